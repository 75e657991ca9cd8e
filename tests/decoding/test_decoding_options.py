"""`DecodingOptions`: one set of defaults from the command line to `decode`."""

import inspect

import pytest

from keras_nmt.decoding.beam_search import BeamSearch
from keras_nmt.decoding.decoding_options import GREEDY, DecodingOptions
from keras_nmt.decoding.sampling import sample_step, sampling_options
from keras_nmt.workshop.cli import evaluate, translate
from keras_nmt.workshop.cli.common import decoding_options
from keras_nmt.workshop.comparison.preset import decoding_name


def test_beam_size_chooses_the_strategy_unless_it_is_given():
    assert DecodingOptions().chosen_strategy == "greedy"
    assert DecodingOptions(beam_size=4).chosen_strategy == "beam"
    assert DecodingOptions(strategy="beam", beam_size=1).chosen_strategy == "beam"
    assert DecodingOptions(strategy="sample", beam_size=1).chosen_strategy == "sample"
    # A change of beam_size re-chooses: the default strategy is not frozen to "greedy".
    assert GREEDY.replace(beam_size=3).chosen_strategy == "beam"


def test_names_are_the_comparison_table_labels():
    assert [decoding_name(o) for o in (GREEDY, DecodingOptions(beam_size=5),
                             DecodingOptions(beam_size=8, length_penalty=0.6),
                             DecodingOptions(strategy="sample"))] == [
        "greedy", "beam 5", "beam 8, alpha 0.6", "sample"]


@pytest.mark.parametrize("function", [BeamSearch, sample_step, sampling_options])
def test_the_strategies_share_the_defaults(function):
    # The loop's own options (max_length, ...) default to GREEDY's fields themselves.
    for name, parameter in inspect.signature(function).parameters.items():
        if name not in {field for field in GREEDY.to_dict()} or name in (
                "beam_size", "n_best", "seed", "return_attention"):
            continue  # not an option, or what the value chooses per call (see DecodingOptions)
        assert parameter.default == getattr(GREEDY, name), name


@pytest.mark.parametrize("app", [translate, evaluate])
def test_the_apps_flags_default_to_the_same_options(app):
    args = app.build_parser().parse_args(["MODEL"])
    assert decoding_options(args) == GREEDY
    args = app.build_parser().parse_args(
        ["MODEL", "--strategy", "sample", "--top-k", "5", "--top-p", "0.9", "--temperature", "0.7"])
    assert decoding_options(args) == DecodingOptions(
        strategy="sample", top_k=5, top_p=0.9, temperature=0.7)
