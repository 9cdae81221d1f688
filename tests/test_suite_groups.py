"""The suite's own scheduling under pytest-xdist's --dist loadgroup (scripts/test.sh): a test's xdist_group reaches
the scheduler, or a group's tests (one Zephyr tree's builds, one Ray cluster) run on both workers, each doing the
group's work again (with pytest 9.2, pytest-xdist 3.8 lost them silently); and a test using a module-scoped fixture
is in its module's group (conftest.py), so that the fixture is made once per run. Skipped in a serial run."""

from __future__ import annotations

import pytest


@pytest.fixture
def loadgroup(request: pytest.FixtureRequest) -> None:
    if not getattr(request.config.option, "loadgroup", False):
        pytest.skip("not under pytest-xdist's --dist loadgroup")


@pytest.fixture(scope="module")
def shared() -> str:
    return "made once"


@pytest.mark.xdist_group("suite_groups")
def test_a_named_group_reaches_the_scheduler(loadgroup: None, request: pytest.FixtureRequest) -> None:
    assert request.node.nodeid.endswith("@suite_groups"), request.node.nodeid


def test_a_module_scoped_fixture_puts_its_tests_in_the_modules_group(loadgroup: None, shared: str,
                                                                     request: pytest.FixtureRequest) -> None:
    assert request.node.nodeid.endswith("@tests/test_suite_groups.py"), request.node.nodeid
