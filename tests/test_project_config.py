"""The project file (firmware-gen.toml or --config FILE): its settings become the commands' defaults, the command
line overrides them, and an unknown key or a bad value is one line naming the key, the file and the line, exit 2."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from firmware_gen.cli import entry as cli
from firmware_gen.modelgen import zoo
from firmware_gen.project_config import CONFIG_NAME, ConfigError, line_of, read_config
from firmware_gen.resources import PROJECT_DIR

PROJECT = """\
# the team's settings
board = "mps2_an385"
name = "kws"
pools = ["sram"]

[planning]
overlap = false
io_in_pool = false
"""


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A project directory, the current one, with its firmware-gen.toml and a model."""
    (tmp_path / CONFIG_NAME).write_text(PROJECT)
    (tmp_path / "tiny.tflite").write_bytes(zoo.tiny_cnn())
    monkeypatch.chdir(tmp_path)
    return tmp_path


def _args(*argv: str):
    return cli.build_parser(cli._project_settings(list(argv))).parse_args(list(argv))


def test_the_file_gives_the_defaults_of_every_command_that_takes_them(project: Path) -> None:
    run = _args("run", "tiny.tflite")  # --board is no longer required
    assert (run.board, run.pool, run.overlap, run.io_in_pool, run.interface) == (
        "mps2_an385", ["sram"], False, False, "unpacked")
    assert _args("generate", "tiny.tflite", "-o", "out").name == "kws"
    assert _args("validate", "tiny.tflite").board is None  # validate runs on the host unless told otherwise
    assert _args("demo").board == "qemu_cortex_m3"


def test_the_command_line_overrides_the_file(project: Path) -> None:
    args = _args("run", "tiny.tflite", "--board", "mps2_an386", "--pool", "dtcm:64K", "--pool", "sram2",
                 "--overlap", "--io-in-pool", "--interface", "packed")
    assert (args.board, args.pool, args.overlap, args.io_in_pool, args.interface) == (
        "mps2_an386", ["dtcm:64K", "sram2"], True, True, "packed")


def test_without_a_file_the_defaults_are_the_parsers(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    args = _args("plan", "m.tflite")
    assert (args.pool, args.overlap, args.io_in_pool) == (None, True, True)


def test_plan_and_generate_follow_the_file(project: Path, capsys: pytest.CaptureFixture) -> None:
    assert cli.main(["plan", "tiny.tflite", "--json"]) == 0
    plan = json.loads(capsys.readouterr().out)
    assert plan["overlap"] is False and [pool["name"] for pool in plan["pools"]] == ["sram"]
    assert cli.main(["generate", "tiny.tflite", "-o", "out"]) == 0
    assert "kws_model_run" in (project / "out" / "model.h").read_text()


def test_config_option_and_a_board_file_relative_to_it(project: Path, capsys: pytest.CaptureFixture) -> None:
    team = project / "team"
    team.mkdir()
    (team / "my_board.toml").write_text((PROJECT_DIR / "boards" / "mps2_an386.toml")
                                        .read_text())
    (team / "fg.toml").write_text('board = "my_board.toml"\n[planning]\noverlap = false\n')
    assert _args("run", "tiny.tflite", "--config", "team/fg.toml").board == str(team / "my_board.toml")
    assert _args("run", "tiny.tflite", "--config=team/fg.toml").pool is None  # the named file only


@pytest.mark.parametrize(("text", "line", "message"), [
    ('bord = "mps2_an385"\n', 1, "unknown key 'bord' (did you mean 'board'?"),
    ('board = "mps2_an385"\n[planning]\noverlapp = true\n', 3, "unknown key 'planning.overlapp'"),
    ('[pools]\nsram = 1\n', 1, 'pools = {"sram": 1}: must be a list'),
    ('[memory]\nsram = 1\n', 1, "unknown key 'memory'"),
    ('interface = "fast"\n', 1, "interface = \"fast\": must be one of 'unpacked', 'packed'"),
    ('name = "9lives"\n', 1, "name = \"9lives\": must be a C identifier"),
    ('\n\npools = "sram"\n', 3, 'pools = "sram": must be a list of "NAME[:SIZE]" strings'),
    ('pools = [\n  "dtcm:64Q",\n]\n', 1, "'dtcm:64Q': the size must be bytes, e.g. 65536, 64K or 1M"),
    ('pools = ["a", "a:1K"]\n', 1, "each pool needs a distinct name"),
    ('planning.overlap = "yes"\n', 1, 'planning.overlap = "yes": must be true or false'),
    ('# comment\n[planning]\nio_in_pool = 1\n', 3, "planning.io_in_pool = 1: must be true or false"),
    ('board = "nucleo_nowhere"\n', 1, "unknown board 'nucleo_nowhere' (known:"),
    ('board = "boards/none.toml"\n', 1, "no board file"),
])
def test_a_bad_setting_is_one_line_naming_key_file_and_line(project: Path, capsys: pytest.CaptureFixture,
                                                            text: str, line: int, message: str) -> None:
    (project / CONFIG_NAME).write_text(text)
    assert cli.main(["generate", "tiny.tflite", "-o", "out"]) == 2
    error = capsys.readouterr().err.strip()
    assert len(error.splitlines()) == 1, error
    assert error.startswith(f"firmware-gen: error: {CONFIG_NAME}:{line}: ") and message in error, error
    assert not (project / "out").exists()


@pytest.mark.parametrize(("argv", "message"), [
    (["--config", "missing.toml"], "--config missing.toml: no such file"),
    (["--config", "broken.toml"], "broken.toml: not valid TOML (Expected '=' after a key in a key/value pair "
                                  "(at line 2, column 5))"),
])
def test_a_missing_or_broken_file_is_one_line(project: Path, capsys: pytest.CaptureFixture, argv: list[str],
                                              message: str) -> None:
    (project / "broken.toml").write_text('board = "mps2_an385"\nname\n')
    assert cli.main(["plan", "tiny.tflite", *argv]) == 2
    error = capsys.readouterr().err.strip()
    assert len(error.splitlines()) == 1 and message in error, error


def test_read_config_returns_destinations(project: Path) -> None:
    assert read_config(project / CONFIG_NAME) == {"board": "mps2_an385", "name": "kws", "pool": ["sram"],
                                                  "overlap": False, "io_in_pool": False}


def test_line_of_finds_tables_dotted_and_quoted_keys() -> None:
    text = '"board" = "x"\nplanning.overlap = true\n[ planning ]  # opts\n  io_in_pool = false\n[other]\nname = 1\n'
    assert [line_of(text, key) for key in ("board", "planning.overlap", "planning", "planning.io_in_pool",
                                           "other.name", "name")] == [1, 2, 3, 4, 6, None]


def test_the_readme_example_is_a_valid_project_file(tmp_path: Path) -> None:
    readme = (PROJECT_DIR / "README.md").read_text()
    block = readme.split("    # firmware-gen.toml\n", 1)[1].split("\n\n    firmware-gen ", 1)[0]
    (tmp_path / CONFIG_NAME).write_text("\n".join(line[4:] for line in block.splitlines()))
    assert read_config(tmp_path / CONFIG_NAME) == {"board": "mps2_an386", "interface": "unpacked", "name": "kws",
                                                   "pool": ["sram"], "overlap": True, "io_in_pool": False,
                                                   "patches": "auto"}


def test_patches_in_the_project_file(tmp_path: Path) -> None:
    (tmp_path / CONFIG_NAME).write_text('[planning]\npatches = "min"\n')
    assert read_config(tmp_path / CONFIG_NAME) == {"patches": "min"}
    (tmp_path / CONFIG_NAME).write_text('[planning]\npatches = "always"\n')
    with pytest.raises(ConfigError, match="planning.patches = .always.: must be one of 'off', 'auto', 'min'"):
        read_config(tmp_path / CONFIG_NAME)
