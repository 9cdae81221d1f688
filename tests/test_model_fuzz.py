"""The importer and planner under a fuzz campaign (issue 10), reduced and seeded: mutated zoo models
(tests/model_fuzz.py) through inspect, plan and generate in-process; each ends in a result or a one-line UserError,
none in another exception, none over 5 s. The full campaign (10,000 cases) is `python bench/model_fuzz.py`."""

from __future__ import annotations

import warnings

from model_fuzz import campaign, counts

CI_CASES = range(1200)


def test_reduced_fuzz_campaign():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        outcomes = campaign(CI_CASES)
    tally = counts(outcomes)
    findings = [(o.seed, o.verdict, o.stage, o.detail) for o in outcomes if o.verdict in ("traceback", "slow")]
    assert not findings, (tally, findings[:5])
    assert tally["result"] > 50 and tally["user_error"] > 500, tally  # mutations both survive and get caught
    # Every stage is reached by some case: the mutations are not all stopped at the reader.
    assert {o.stage for o in outcomes if o.verdict == "user_error"} >= {"read", "inspect", "generate"}


def test_dataflow_errors_name_operator_and_tensor():
    from model_fuzz import BASE_MODELS, builder_from_graph

    from firmware_gen.errors import ModelFormatError
    from firmware_gen.frontend.tflite_reader import read_model

    graph = read_model(BASE_MODELS["tiny_cnn"](), "tiny_cnn")
    builder = builder_from_graph(graph)
    del builder.operators[0]  # the next operator reads a tensor nobody writes
    try:
        read_model(builder.build(), "tiny_cnn.tflite")
    except ModelFormatError as error:
        assert "operator 0 (DEPTHWISE_CONV_2D) reads tensor" in str(error), error
    else:
        raise AssertionError("a graph reading an unwritten tensor was accepted")


def test_malformed_pads_reach_their_own_checks():
    """PAD folding runs before the operators' checks, so a PAD or PADV2 without its paddings input, or a VALID
    convolution reading a PAD with no filter or a stride of 0, is left alone there and refused in one line (the
    campaign's seeds 777315: an opcode mutated to PADV2 on a one-input QUANTIZE raised IndexError in the folding;
    912568: ZeroDivisionError)."""
    import numpy as np
    import pytest

    from firmware_gen.errors import UserError
    from firmware_gen.frontend.tflite_reader import read_model
    from firmware_gen.modelgen.writer import ModelBuilder
    from firmware_gen.ops import check_supported

    def model(opcode: str, with_paddings: bool, reader_inputs: int, stride_w: int = 1) -> bytes:
        b = ModelBuilder("malformed_pad")
        x = b.input("x", (1, 4, 4, 2), "int8", scale=0.5, zero_point=0)
        inputs = [x] + ([b.constant("paddings", np.array([[0, 0], [1, 1], [1, 1], [0, 0]], np.int32))]
                        if with_paddings else [])
        padded = b.tensor("padded", (1, 6, 6, 2), "int8", scale=0.5, zero_point=0)
        b.operator(opcode, inputs=inputs, outputs=[padded])
        w = b.constant("w", np.ones((1, 3, 3, 2), np.int8), scale=0.1, zero_point=0)
        y = b.tensor("y", (1, 4, 4, 2), "int8", scale=0.5, zero_point=0)
        b.operator("DEPTHWISE_CONV_2D", inputs=[padded, w][:reader_inputs], outputs=[y],
                   options={"padding": "VALID", "stride_h": 1, "stride_w": stride_w, "dilation_h": 1, "dilation_w": 1,
                            "depth_multiplier": 1, "activation": "NONE"})
        b.output(y)
        return b.build()

    for opcode, with_paddings, reader_inputs, stride_w in [("PAD", False, 2, 1), ("PADV2", False, 2, 1),
                                                           ("PAD", True, 1, 1), ("PAD", True, 2, 0)]:
        with pytest.raises(UserError):
            check_supported(read_model(model(opcode, with_paddings, reader_inputs, stride_w), "malformed_pad.tflite"))
