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
