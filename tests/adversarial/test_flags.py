"""Adversarial flag values: each is refused by the parser, exit status 2, in one `error:` line
that names the flag and the value, before any file is read or TensorFlow is started.

The limits live beside the options (`keras_nmt.option_fields`), so a value refused here is
refused alike from Python (the last tests).
"""

import argparse
import importlib
import math

import pytest

from keras_nmt.workshop.arguments import stdio
from keras_nmt.workshop.benchmarks import serve_load
from keras_nmt.workshop.cli import COMMANDS, main
from keras_nmt.workshop.run.train_config import TrainConfig

REFUSED = [
    # teacher forcing: probabilities above 1, negative, not numbers, NaN
    (["train", "--teacher-forcing", "linear:abc"], "k and floor must be numbers"),
    (["train", "--teacher-forcing", "constant:1.5"], "must be in [0, 1]"),
    (["train", "--teacher-forcing", "constant:-0.1"], "must be in [0, 1]"),
    (["train", "--teacher-forcing", "linear:nan"], "finite"),
    (["train", "--teacher-forcing", "linear:0.001:1.5"], "floor is a probability"),
    (["train", "--teacher-forcing", "exponential:1.5"], "0 < k < 1"),
    (["train", "--teacher-forcing", "inverse_sigmoid:0.5"], "k >= 1"),
    (["train", "--teacher-forcing", "linear:0.1:0.2:0.3"], "KIND[:K[:FLOOR]]"),
    (["train", "--teacher-forcing", "cosine"], "unknown teacher-forcing schedule"),
    # training numbers: negative seeds, NaN and infinite rates, probabilities out of range
    (["train", "--seed", "-1"], "must be >= 0"),
    (["train", "--dropout", "nan"], "must be a finite number"),
    (["train", "--learning-rate", "inf"], "must be a finite number"),
    (["train", "--learning-rate", "-0.001"], "must be > 0"),
    (["train", "--label-smoothing", "1"], "must be in [0, 1)"),
    (["train", "--max-bad-fraction", "-0.5"], "must be in [0, 1)"),
    (["train", "--time-budget", "nan"], "must be a finite number"),
    (["train", "--source-column", "-1"], "must be >= 0"),
    (["train", "--verbose", "3"], "must be one of 0, 1, 2"),
    (["train", "--model", "gru"], "must be one of lstm"),
    (["train", "--epochs", "two"], "is not an integer"),
    (["compare", "--preset", "tiny", "--dropout", "1.5"], "must be in [0, 1)"),
    # a flag that every configuration of the comparison sets itself would be ignored
    (["compare", "--preset", "granularity", "--tokenizer", "word"],
     "every configuration of granularity sets it"),
    (["demo", "--time-budget", "-3"], "must be > 0"),
    (["spell", "train", "--text", "t", "--source-column", "-1"], "must be >= 0"),
    (["spell", "train", "--text", "t", "--noise-rate", "1.5"], "must be in [0, 1)"),
    # decoding
    (["translate", "run", "--top-p", "0"], "must be in (0, 1]"),
    (["translate", "run", "--top-p", "nan"], "must be a finite number"),
    (["translate", "run", "--top-k", "-1"], "must be >= 0"),
    (["translate", "run", "--temperature", "-0.5"], "must be >= 0"),
    (["translate", "run", "--temperature", "inf"], "must be a finite number"),
    (["translate", "run", "--length-penalty", "-1"], "must be >= 0"),
    (["translate", "run", "--seed", "-7"], "must be >= 0"),
    (["evaluate", "run", "--seed", "-3"], "must be >= 0"),
    # a decoding flag the chosen strategy does not read was accepted and ignored
    (["translate", "run", "--seed", "5"], "greedy decoding does not read it"),
    (["translate", "run", "--n-best", "2"], "greedy decoding does not read it"),
    (["translate", "run", "--strategy", "beam", "--temperature", "0.5"],
     "beam search does not read it"),
    (["translate", "run", "--beam-size", "4", "--top-p", "0.9"], "beam search does not read"),
    (["translate", "run", "--strategy", "sample", "--length-penalty", "0.6"],
     "sampling does not read it"),
    (["evaluate", "run", "--top-k", "5"], "greedy decoding does not read it"),
    # sentences given twice: the arguments were translated, the file ignored
    (["translate", "run", "a", "--input", "in.txt"], "give one or the other"),
    (["spell", "correct", "run", "a", "--input", "in.txt"], "give one or the other"),
    (["evaluate", "run", "--beam-size", "0"], "must be >= 1"),
    (["export", "run", "--seed", "-1"], "must be >= 0"),
    # a model's name is one folder under --output-dir, not a path out of it
    (["export", "run", "--name", "../m"], "a name is one folder's name, not a path"),
    (["export", "run", "--name", ".."], "a name is one folder's name, not a path"),
    (["benchmark", "--seed", "-1"], "must be >= 0"),
    # an option the chosen model (or its learning-rate schedule) does not read was accepted,
    # recorded in config.json and ignored
    (["train", "--model", "transformer", "--units", "512"], "--model transformer does not read"),
    (["train", "--model", "transformer", "--learning-rate", "0.01"], "does not read it"),
    (["train", "--model", "lstm", "--heads", "8"], "--model lstm does not read it"),
    (["train", "--model", "lstm", "--warmup-steps", "100"], "--model lstm does not read it"),
    (["train", "--model", "lstm", "--attention-score", "dot"], "--model lstm does not read"),
    (["train", "--model", "bahdanau", "--layers", "2"], "--model bahdanau does not read it"),
    (["spell", "train", "--text", "t", "--model", "transformer", "--embedding-dim", "8"],
     "--model transformer does not read it"),
    # an option read only beside another's value (a character vocabulary has no size cap)
    (["train", "--vocab-size", "500"], "read only with --tokenizer word or subword"),
    (["train", "--average-every", "100"], "read only with --average-checkpoints above 1"),
    (["train", "--max-bad-fraction", "0.2"], "read only with --skip-bad-lines"),
    (["spell", "train", "--text", "t", "--vocab-size", "50"], "read only with --tokenizer"),
    (["compare", "--preset", "granularity", "--heads", "8"],
     "no configuration of granularity reads it"),
    # serving: an empty key would refuse every request; a port beyond TCP's
    (["serve", "run", "--api-key", ""], "an empty key would refuse every request"),
    (["serve", "run", "--port", "65536"], "a port is 0-65535"),
    # a model's language pair, checked before anything loads (it was taken for a path); the
    # first MODEL is a path, so that the last two words are what the error names
    (["serve", "MODEL", "EN:de=run"], "'EN:de' is not a language pair"),
    (["serve", "MODEL", "es:en="], "no path after '='"),
]


@pytest.mark.parametrize("argv, reason", REFUSED, ids=[" ".join(argv) for argv, _ in REFUSED])
def test_a_bad_flag_value_is_refused_in_one_line_naming_the_flag(argv, reason, capsys):
    with pytest.raises(SystemExit) as exit_info:
        main(argv)
    assert exit_info.value.code == 2
    err = capsys.readouterr().err
    errors = [line for line in err.splitlines() if "error: " in line]
    assert len(errors) == 1 and "Traceback" not in err, err
    flag, value = argv[-2], argv[-1]
    shown = value if value.strip() else repr(value)  # a blank value is shown quoted
    assert f"error: {flag} {shown}: " in errors[0] and reason in errors[0], errors[0]


@pytest.mark.parametrize("changes, message", [
    ({"seed": -1}, "--seed -1: must be >= 0"),
    ({"teacher_forcing": "constant:2"}, "--teacher-forcing constant:2: the constant schedule"),
    ({"dropout": math.nan}, "--dropout nan: must be a finite number"),
    ({"tokenizer": "bpe"}, "--tokenizer bpe: must be one of char, word, subword"),
])
def test_a_trainconfig_refuses_the_same_values_naming_the_flag(changes, message):
    from keras_nmt.workshop.run.train_config import TrainConfig

    with pytest.raises(ValueError) as error:
        TrainConfig(**changes)
    assert str(error.value).startswith(message)


@pytest.mark.parametrize("changes, message", [
    ({"top_p": 1.5}, "--top-p 1.5: must be in (0, 1]"),
    ({"temperature": -1.0}, "--temperature -1.0: must be >= 0"),
    ({"beam_size": 0}, "--beam-size 0: must be >= 1"),
    ({"strategy": "nucleus"}, "--strategy nucleus: must be one of greedy, beam, sample"),
])
def test_decoding_options_refuse_the_same_values_naming_the_flag(changes, message):
    from keras_nmt.decoding.decoding_options import DecodingOptions

    with pytest.raises(ValueError) as error:
        DecodingOptions(**changes)
    assert str(error.value) == message


@pytest.mark.parametrize("name", ["../m", "..", ".", "a/b"])
def test_an_export_name_is_refused_as_a_path_from_python_too(name, tmp_path):
    from keras_nmt.workshop.translators.export_translator import export_translator

    with pytest.raises(ValueError, match="a name is one folder's name, not a path"):
        export_translator(tmp_path / "run", tmp_path / "saved", name=name)
    assert list(tmp_path.iterdir()) == []


def test_every_reference_configuration_and_a_fine_tuning_run_read_what_they_are_given(
        tmp_path, capsys):
    from keras_nmt.workshop.cli.train import parse
    from keras_nmt.workshop.run.train_config import configuration_names

    for name in configuration_names():  # their values become the defaults
        assert parse(["--configuration", name]).configuration == name
    for argv in (["--tokenizer", "word", "--vocab-size", "500"],
                 ["--average-checkpoints", "3", "--average-every", "100"],
                 ["--skip-bad-lines", "--max-bad-fraction", "0.2"]):  # with their companions
        assert parse(argv) is not None
    run = tmp_path / "run"
    run.mkdir()
    TrainConfig(model="transformer").to_json(run / "config.json")
    (run / "model.keras").write_bytes(b"")
    # Fine-tuning keeps a constant learning rate: --learning-rate is read, --warmup-steps not.
    assert parse(["--init-from", str(run), "--learning-rate", "1e-5"]).learning_rate == 1e-5
    with pytest.raises(SystemExit):
        parse(["--init-from", str(run), "--warmup-steps", "100"])
    assert ("error: --warmup-steps 100: --model transformer with --init-from does not read it"
            in capsys.readouterr().err)


def test_the_decoding_flags_a_strategy_reads_are_accepted():
    from keras_nmt.workshop.cli import evaluate, translate
    from keras_nmt.workshop.cli.common import check_decoding_flags

    for module, argv in [
            (translate, ["run", "--strategy", "sample", "--temperature", "0.5", "--top-k", "3",
                         "--top-p", "0.9", "--seed", "4"]),
            (translate, ["run", "--beam-size", "4", "--n-best", "2", "--length-penalty", "0.6"]),
            (evaluate, ["run", "--seed", "3"])]:  # evaluate's seed also draws the test data
        parser = module.build_parser()
        check_decoding_flags(parser, parser.parse_args(argv),
                             seed_is_sampling_only=module is translate)


def test_a_comparison_notes_the_configurations_that_do_not_read_a_flag():
    from keras_nmt.workshop.cli.compare import build_parser, not_read_by_configurations
    from keras_nmt.workshop.comparison.preset_registry import get_preset

    args = build_parser().parse_args(["--preset", "attention", "--units", "64",
                                      "--warmup-steps", "100"])
    # ConvS2S has channels, not units, and trains without warm-up (its card's recipe).
    no_warmup = ["lstm", "luong-dot", "luong-general", "luong-concat", "bahdanau", "convs2s"]
    assert not_read_by_configurations(get_preset("attention"), args) == {
        "units": ["transformer", "convs2s"], "warmup_steps": no_warmup}
    # A configuration that cannot resolve fails alone, in the comparison's table.
    from keras_nmt.workshop.comparison.configuration import Configuration
    from keras_nmt.workshop.comparison.preset import Preset

    broken = Preset("broken", "", (Configuration("gru", {"model": "gru"}),
                                   Configuration("transformer", {"model": "transformer"})))
    assert not_read_by_configurations(broken, args) == {"units": ["transformer"]}


def every_flag_with_a_value():
    """(command words, flag, type) for every flag that takes a value, of every `keras-nmt`
    command and of the serving load benchmark (`SERVE_LOAD`: its own module's `main`)."""

    def flags(parser, words):
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                for name, subparser in action.choices.items():
                    yield from flags(subparser, [*words, name])
            elif action.option_strings and action.nargs != 0:
                yield words, action.option_strings[0], action.type

    for command in COMMANDS:
        parser = importlib.import_module(f"keras_nmt.workshop.cli.{command}").build_parser()
        yield from flags(parser, [command])
    yield from flags(serve_load.build_parser(), [SERVE_LOAD])


SERVE_LOAD = "serve_load"


def run(words):
    """`keras-nmt WORDS...`, or the serving load benchmark's `main` for `SERVE_LOAD ...`."""
    if words[0] == SERVE_LOAD:
        return serve_load.main(words[1:])
    return main(words)


def test_a_lone_dash_is_refused_by_every_flag_but_the_stdin_and_stdout_ones(capsys):
    # `translate RUN --output -` wrote the translations to a file named "-", without a word.
    dash_flags = []
    for words, flag, kind in every_flag_with_a_value():
        with pytest.raises(SystemExit) as exit_info:
            run([*words, flag, "-", "--help"])
        out, err = capsys.readouterr()
        if kind is stdio:  # parsed: the --help that follows answers
            assert exit_info.value.code == 0 and not err
            dash_flags.append(f"{' '.join(words)} {flag}")
            continue
        errors = [line for line in err.splitlines() if "error: " in line]
        assert exit_info.value.code == 2 and len(errors) == 1, (words, flag, err)
        assert errors[0].endswith(
            f"error: {flag} -: a lone dash is no value here (it is stdin or stdout only for "
            "the --input and --output of translate and spell correct); a file named - is ./-"
        ), (words, flag)
    assert sorted(dash_flags) == ["spell correct --input", "spell correct --output",
                                  "translate --input", "translate --output"]


@pytest.mark.parametrize("value", ["", " \t"])
def test_an_empty_or_blank_value_is_refused_by_every_flag(value, monkeypatch, capsys):
    # `train --output-dir ""` trained into the current folder, among the user's files;
    # `serve --host ""` listened on every interface; `benchmark --only ""` had nothing to run.
    monkeypatch.delenv("KERAS_NMT_API_KEY", raising=False)
    for words, flag, _ in every_flag_with_a_value():
        with pytest.raises(SystemExit) as exit_info:
            run([*words, flag, value, "--help"])
        err = capsys.readouterr().err
        errors = [line for line in err.splitlines() if "error: " in line]
        assert exit_info.value.code == 2 and len(errors) == 1, (words, flag, err)
        assert f"error: {flag} {value!r}: " in errors[0], (words, flag, errors[0])


@pytest.mark.parametrize("argv, name", [
    (["translate", ""], "MODEL"), (["evaluate", " "], "MODEL"), (["export", ""], "RUN_FOLDER"),
    (["serve", ""], "MODEL"), (["import", ""], "PATH"), (["spell", "correct", ""], "MODEL"),
])
def test_an_empty_argument_is_refused_naming_it(argv, name, capsys):
    with pytest.raises(SystemExit) as exit_info:
        main(argv)
    err = capsys.readouterr().err
    assert exit_info.value.code == 2
    assert f"error: {name} {argv[-1]!r}: an empty value names nothing; give one\n" in err, err


def test_no_default_is_blank(monkeypatch):
    # A blank default would be refused by the rule above each time the flag is left out.
    monkeypatch.delenv("KERAS_NMT_API_KEY", raising=False)

    def actions(parser):
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                for subparser in action.choices.values():
                    yield from actions(subparser)
            else:
                yield action

    parsers = [importlib.import_module(f"keras_nmt.workshop.cli.{command}").build_parser()
               for command in COMMANDS]
    blank = [action.dest for parser in [*parsers, serve_load.build_parser()]
             for action in actions(parser)
             if isinstance(action.default, str) and not action.default.strip()]
    assert blank == []


def test_a_blank_api_key_in_the_environment_is_refused_naming_the_variable(monkeypatch, capsys):
    # The error told the user to leave out a flag they had not given.
    monkeypatch.setenv("KERAS_NMT_API_KEY", "   ")
    with pytest.raises(SystemExit) as exit_info:
        main(["serve", "run"])
    assert exit_info.value.code == 2
    assert "$KERAS_NMT_API_KEY" in capsys.readouterr().err
