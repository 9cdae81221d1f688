from __future__ import annotations

import pytest

from firmware_gen.target.boards import BOARDS_DIR, BoardError, list_boards, load_board
from firmware_gen.target.linker_script import render_linker_script

EXPECTED_BOARDS = ["microbit", "mps2_an385", "mps2_an385_armv6m", "mps2_an386", "mps2_an500", "mps2_an521",
                   "mps3_an547", "qemu_cortex_m3"]


def test_every_board_loads():
    assert list_boards(emulated=True) == EXPECTED_BOARDS
    for name in EXPECTED_BOARDS:
        board = load_board(name)
        assert board.name == name
        assert board.region_for("code").origin in (0x0, 0x10000000)
        assert board.uart_kind in ("pl011", "cmsdk", "nrf_uart")


def test_the_armv6m_boards_are_their_own_isa_class():
    microbit, forced = load_board("microbit"), load_board("mps2_an385_armv6m")
    assert (microbit.region_for("rodata").size, microbit.region_for("pool").size) == (256 * 1024, 16 * 1024)
    assert (microbit.qemu_machine, microbit.uart_kind, microbit.uart_base) == ("microbit", "nrf_uart", 0x40002000)
    assert forced.qemu_machine == load_board("mps2_an385").qemu_machine  # an M3 executing the Armv6-M code
    for board in (microbit, forced):
        assert board.core in ("cortex-m0", "cortex-m0plus") and f"-mcpu={board.core}" in board.gcc_flags
        assert board.isa.name == "Armv6-M" and board.isa.features == {"armv6m"}
    assert load_board("mps2_an385").isa.name == "Armv7-M"


def test_qemu_cortex_m3_is_the_small_lm3s6965():
    board = load_board("qemu_cortex_m3")
    assert (board.region_for("rodata").size, board.region_for("pool").size) == (256 * 1024, 64 * 1024)
    assert (board.qemu_machine, board.uart_kind, board.uart_base) == ("lm3s6965evb", "pl011", 0x4000C000)
    assert board.instructions_per_tick == 80


@pytest.mark.parametrize(("name", "per_tick"), [("mps2_an385", 40), ("mps2_an386", 40), ("mps2_an500", 40),
                                                ("mps2_an521", 50), ("mps3_an547", 31.25), ("microbit", 62.5)])
def test_instructions_per_systick_tick(name, per_tick):
    assert load_board(name).instructions_per_tick == per_tick


def test_mps3_an547_links_at_the_secure_aliases():
    board = load_board("mps3_an547")
    assert board.region_for("code").origin == 0x10000000
    assert board.region_for("stack").origin == 0x30000000
    assert "-mfloat-abi=hard" in board.gcc_flags


def test_mps2_an521_links_at_the_secure_aliases_and_runs_on_cpu1():
    board = load_board("mps2_an521")
    assert (board.region_for("code").origin, board.region_for("stack").origin) == (0x10000000, 0x38000000)
    assert (board.uart_kind, board.uart_base, board.init) == ("cmsdk", 0x50200000, "mps2_an521")
    assert board.core == "cortex-m33" and board.isa.has(frozenset({"dsp", "armv7m"}))


def test_unknown_board_lists_the_known_ones():
    with pytest.raises(BoardError) as error:
        load_board("stm32_nope")
    message = str(error.value)
    assert "stm32_nope" in message
    assert all(name in message for name in EXPECTED_BOARDS)


def test_board_file_with_a_kind_nobody_holds_is_refused(tmp_path):
    text = (BOARDS_DIR / "qemu_cortex_m3.toml").read_text()
    broken = tmp_path / "broken.toml"
    broken.write_text(text.replace('"data", "bss", "pool", "stack"', '"data", "bss", "stack"'))
    with pytest.raises(BoardError, match="no memory region holds 'pool'"):
        load_board(str(broken))
    broken.write_text("name = 'x'\n")
    with pytest.raises(BoardError, match="not a valid board description"):
        load_board(str(broken))


def test_linker_script_places_every_kind_in_its_region():
    script = render_linker_script(load_board("qemu_cortex_m3"))
    assert "FLASH (rx) : ORIGIN = 0x00000000, LENGTH = 0x40000" in script
    assert "SRAM (rwx) : ORIGIN = 0x20000000, LENGTH = 0x10000" in script
    # The pool section must claim .bss.fg_pool before .bss.* does, and the stack sits at the bottom of RAM.
    assert script.index("KEEP(*(.bss.fg_pool))") < script.index("*(.bss .bss.*)")
    assert script.index(".stack (NOLOAD)") < script.index(".data :")
    assert "} > SRAM AT > FLASH" in script
    assert 'ASSERT(ADDR(.fg_pool) + SIZEOF(.fg_pool) <= ORIGIN(SRAM) + LENGTH(SRAM)' in script
    assert "__fg_stack_bytes = 4096;" in script


def test_linker_script_region_names_become_identifiers():
    script = render_linker_script(load_board("mps2_an385"))
    assert "CODE_SRAM (rx) : ORIGIN = 0x00000000, LENGTH = 0x400000" in script
    assert "PSRAM (rwx)" in script


def test_measuring_linker_script_has_room_for_anything():
    script = render_linker_script(load_board("qemu_cortex_m3"), measure=True)
    assert "LENGTH = 0x40000000" in script
    assert "not runnable" in script


@pytest.mark.parametrize(("name", "features"), [("qemu_cortex_m3", set()), ("mps2_an385", set()),
                                                 ("mps2_an386", {"dsp"}), ("mps2_an500", {"dsp"}),
                                                 ("mps2_an521", {"dsp"}), ("mps3_an547", {"dsp", "mve"})])
def test_boards_state_their_isa_features(name, features):
    assert load_board(name).features == features


@pytest.mark.parametrize(("core", "features", "message"), [
    ("cortex-m4", '["dsp", "mve"]', r"cpu.features \['mve'\]: a cortex-m4 has no such extension"),
    ("cortex-m3", '["dsp"]', r"cpu.features \['dsp'\]: a cortex-m3 has no such extension"),
    ("cortex-m0plus", '["dsp"]', r"cpu.features \['dsp'\]: a cortex-m0plus has no such extension"),
    ("cortex-m4", '["neon"]', r"cpu.features \['neon'\] unknown"),
    ("riscv-e20", '["dsp"]', r"core 'riscv-e20' is unknown"),
    ("cortex-m33", '["dsp", "mve"]', r"cpu.features \['mve'\]: a cortex-m33 has no such extension"),
])
def test_inconsistent_isa_features_are_refused_naming_the_file_and_field(tmp_path, core, features, message):
    text = (BOARDS_DIR / "mps2_an386.toml").read_text()
    text = text.replace('core = "cortex-m4"', f'core = "{core}"')
    text = text.replace('features = ["dsp"]', f"features = {features}")
    path = tmp_path / "copied.toml"
    path.write_text(text)
    with pytest.raises(BoardError, match=rf"{path}: .*{message}"):
        load_board(str(path))


def test_qemu_boards_state_their_memory_timing_and_what_they_stand_for():
    from firmware_gen.target.memory_timing import board_memory

    for name in EXPECTED_BOARDS:
        board = load_board(name)
        assert board.stands_for and all(r.wait_states == 0 for r in board.regions if r.holds)
        assert board_memory(board).description.startswith(board.stands_for)


def test_memory_timing_fields_default_named_and_checked(tmp_path):
    from firmware_gen.target.memory_timing import board_memory

    text = (BOARDS_DIR / "qemu_cortex_m3.toml").read_text().replace("wait_states = 0\n", "")
    plain = tmp_path / "plain.toml"
    plain.write_text(text)
    description = board_memory(load_board(str(plain))).description
    assert "no timing stated for flash, SRAM: 0 wait states assumed" in description
    plain.write_text(text.replace('holds = ["code", "rodata"]', 'holds = ["code", "rodata"]\ncache = "sometimes"'))
    with pytest.raises(BoardError, match="cache must be one of"):
        load_board(str(plain))


def test_the_flash_wait_per_byte_the_variants_see(tmp_path):
    """Isa.flash_wait_per_byte: the read-only data region's wait states over its line bytes, where no cache hides
    data reads; 0 on every QEMU board."""
    assert all(load_board(name).isa.flash_wait_per_byte == 0 for name in EXPECTED_BOARDS)
    text = (BOARDS_DIR / "mps2_an386.toml").read_text()
    timed = tmp_path / "timed.toml"
    for cache, expected in (("none", 5 / 8), ("fetch", 5 / 8), ("all", 0.0)):
        timed.write_text(text.replace("wait_states = 0", f'wait_states = 5\ncache = "{cache}"\nline_bytes = 8', 1))
        assert load_board(str(timed)).isa.flash_wait_per_byte == expected
    timed.write_text(text.replace("wait_states = 0", "wait_states = 5\nline_bytes = 0", 1))
    with pytest.raises(BoardError, match="line_bytes > 0"):
        load_board(str(timed))


def test_a_board_is_known_by_all_it_states_not_by_its_name(tmp_path):
    """The build cache's key (driver/deploy.py): a board file edited under the same name is another board; the same
    board is the same key in another process (its sets in any order) and from a copy of its file elsewhere."""
    import subprocess
    import sys

    text = (BOARDS_DIR / "mps2_an386.toml").read_text()
    copy, edited = tmp_path / "copy.toml", tmp_path / "edited.toml"
    copy.write_text(text)
    edited.write_text(text.replace("wait_states = 0", "wait_states = 3", 1))
    identity = load_board("mps2_an386").identity()
    assert load_board(str(copy)).identity() == identity
    assert load_board(str(edited)).identity() != identity
    script = "from firmware_gen.target.boards import load_board; print(load_board('mps2_an386').identity())"
    for seed in ("1", "2"):
        other = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True,
                               env={"PYTHONHASHSEED": seed, "PATH": "/usr/bin:/bin"})
        assert other.stdout.strip() == identity
