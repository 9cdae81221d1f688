"""The serial link under faults (issue 10): one tiny_cnn firmware, run through a proxy that drops, corrupts,
duplicates and delays bytes and closes the connection at random points (link_faults.py). Every run ends with TFLM's
outputs or a one-line error (QEMU's hard limit ends any run): no wrong outputs, no traceback, no hang, no QEMU left
behind.
A reduced seeded campaign here; the full one (>= 200 runs) is `python bench/link_faults.py`."""

from __future__ import annotations

import pytest
from link_faults import Campaign, FaultPlan, counts
from target_fixtures import needs_qemu

from firmware_gen.check.inputs import random_inputs
from firmware_gen.check.oracle import run_tflm
from firmware_gen.driver.deploy import prepare
from firmware_gen.modelgen import zoo

pytestmark = [needs_qemu, pytest.mark.qemu]
CI_SEEDS = range(36)


@pytest.fixture(scope="module")
def campaign(tmp_path_factory: pytest.TempPathFactory) -> Campaign:
    model = zoo.tiny_cnn()
    deployment = prepare(model, "tiny_cnn.tflite", "mps2_an385", out_dir=tmp_path_factory.mktemp("tiny_cnn"))
    inputs = random_inputs(deployment.graph, seed=0)
    expected = run_tflm(model, inputs, len(deployment.graph.tensors)).outputs
    # A hang is a run still going long after QEMU's own hard limit killed it: slowness of a loaded host is not one.
    return Campaign(deployment.firmware, inputs, expected, hang_slack=120.0)


def test_the_plans_cover_every_fault():
    plans = [FaultPlan.random(seed) for seed in CI_SEEDS]
    assert {plan.kind for plan in plans} >= {"clean", "drop", "corrupt", "duplicate", "delay", "close", "mixed"}
    assert plans == [FaultPlan.random(seed) for seed in CI_SEEDS]  # seeded


def test_reduced_campaign(campaign: Campaign):
    outcomes = campaign.run(CI_SEEDS, workers=4)
    tally = counts(outcomes)
    bad = [o for o in outcomes if o.verdict not in ("ok", "clean_error")]
    assert not bad, (tally, [(o.seed, o.verdict, o.detail) for o in bad])
    assert tally["ok"] >= 5 and tally["clean_error"] >= 5, tally  # both endings happen
