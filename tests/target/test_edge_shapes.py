"""The weighted operators at the edges of their shapes on each instruction-set class with assembly kernels: one pixel,
one row, one column, one or two images, channel counts around the kernels' vector and tile widths. The kernels'
property tests draw shapes from ranges and rarely hit these together: a 1x1 convolution of one pixel (a
squeeze-and-excite block's) ran the M55's resident pair loops with no pair and faulted (stop 45's seeded sweep)."""

from __future__ import annotations

import pytest
from batched import assert_batch_bit_exact
from target_fixtures import needs_qemu
from test_variants_mve import conv_case, fully_connected_case

CHANNELS = (1, 8, 17, 33, 64, 65)


def edge_cases() -> list[bytes]:
    cases, seed = [], 9000
    for in_c in CHANNELS:
        for out_c in (1, 4, 16):
            for shape, window in [((1, 1, 1, in_c), (1, 1)), ((1, 1, 3, in_c), (1, 1)), ((2, 1, 1, in_c), (1, 1)),
                                  ((1, 1, 1, in_c), (3, 3))]:
                seed += 1
                cases.append(conv_case(seed, "CONV_2D", shape, window, out_c))
        for shape, stride in [((1, 1, 1, in_c), 1), ((1, 1, 5, in_c), 1), ((1, 1, 5, in_c), 2), ((2, 3, 1, in_c), 2)]:
            seed += 1
            cases.append(conv_case(seed, "DEPTHWISE_CONV_2D", shape, (3, 3), 1, stride=stride))
        for out_c in (1, 4, 8, 16):
            seed += 1
            cases.append(fully_connected_case(seed, 1, in_c, out_c))
    return cases


@needs_qemu
@pytest.mark.parametrize("board", ["mps3_an547", "mps2_an386", "mps2_an500"])
def test_edge_shapes_bit_exact(board, tmp_path) -> None:
    cases = edge_cases()
    half = len(cases) // 2
    for k, part in enumerate((cases[:half], cases[half:])):
        assert_batch_bit_exact(part, board, tmp_path / f"build{k}", seed=k)
