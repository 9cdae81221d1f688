"""The benchmark's cases, most used operators first (issue 15's list)."""

from __future__ import annotations

from tflm_reference.conv_cases import add_transpose_conv
from tflm_reference.elementwise_cases import add_elementwise_cases
from tflm_reference.matmul_cases import add_batch_matmul, add_fully_connected_keep_num_dims
from tflm_reference.micro_kernel_cases import add_micro_kernel_cases
from tflm_reference.model import BenchModel
from tflm_reference.movement_cases import add_movement_cases
from tflm_reference.normalization_cases import add_normalization_cases
from tflm_reference.reduce_cases import add_reduce_cases


def build_model(only: list[str]) -> BenchModel:
    """Every case, or those whose label starts with one of `only` (the model keeps every operator)."""
    model = BenchModel()
    add_elementwise_cases(model)
    add_micro_kernel_cases(model)
    add_reduce_cases(model)
    add_movement_cases(model)
    add_normalization_cases(model)
    add_transpose_conv(model, with_bias=True)
    add_transpose_conv(model, with_bias=False)
    add_fully_connected_keep_num_dims(model)
    add_batch_matmul(model, adj_y=True)
    add_batch_matmul(model)
    add_batch_matmul(model, adj_x=True)
    add_batch_matmul(model, rhs_batches=1)
    if only:
        model.cases = [c for c in model.cases if any(c.label.startswith(prefix) for prefix in only)]
    return model
