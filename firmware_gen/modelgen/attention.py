"""A seeded, calibrated single-head self-attention block: the matrix operators of issue 15 with SOFTMAX.

    input [1, 6, 8] -> FULLY_CONNECTED (keep_num_dims) to q, k, v [1, 6, 8]
    -> BATCH_MATMUL q k^T (adj_y) [1, 6, 6] -> SOFTMAX (beta 1/sqrt(8)) -> BATCH_MATMUL with v [1, 6, 8]
    -> FULLY_CONNECTED (keep_num_dims) [1, 6, 8]
"""

from __future__ import annotations

import numpy as np

from firmware_gen.modelgen.calibrated import Activation, CalibratedBuilder

TOKENS, WIDTH, CALIBRATION_SAMPLES = 6, 8, 8


class MatrixBuilder(CalibratedBuilder):
    """CalibratedBuilder with the layers of the attention block."""

    def dense(self, x: Activation, units: int, name: str, spread: float = 2.0) -> Activation:
        """FULLY_CONNECTED over the last dimension of a rank-3 input, keeping its dimensions."""
        weights = self.rng.normal(0.0, 1.0, (units, x.values.shape[-1]))
        return self._weighted("FULLY_CONNECTED", name, x, weights, None, lambda v, w: v @ w.T,
                              {"activation": "NONE", "keep_num_dims": True}, spread, 0.0)

    def batch_matmul(self, a: Activation, b: Activation, adj_y: bool = False, name: str = "matmul") -> Activation:
        other = np.swapaxes(b.values, -1, -2) if adj_y else b.values
        y = self._calibrated(name, a.values @ other)
        self.model.operator("BATCH_MATMUL", [a.index, b.index], [y.index], {"adj_x": False, "adj_y": adj_y})
        return y


def attention_block(seed: int = 0) -> bytes:
    graph = MatrixBuilder(name="attention_block", seed=seed)
    x = graph.input("tokens", graph.rng.normal(0.0, 1.0, (CALIBRATION_SAMPLES, TOKENS, WIDTH)))
    query, key, value = (graph.dense(x, WIDTH, name) for name in ("query", "key", "value"))
    scores = graph.batch_matmul(query, key, adj_y=True, name="scores")
    weights = graph.softmax(scores, beta=1.0 / float(np.sqrt(WIDTH)), name="attention")
    context = graph.batch_matmul(weights, value, name="context")
    graph.output(graph.dense(context, WIDTH, "projection"))
    return graph.build()
