"""One flag, one meaning: abbreviations and old spellings refused, reference configurations,
sizes that apply; the flags are made from the options' declarations."""

import json

import pytest

from keras_nmt.workshop.cli import compare, demo, evaluate, spell, train, translate
from keras_nmt.workshop.run.task import cap_pairs, load_pairs
from keras_nmt.workshop.run.train_config import TrainConfig


@pytest.mark.parametrize("module, argv", [
    (translate, ["RUN", "--beam", "3"]),
    (evaluate, ["RUN", "--beam", "3"]),
    (train, ["--epoch", "3"]),
    (compare, ["--preset", "tiny", "--epoch", "1"]),
])
def test_an_abbreviated_flag_is_refused(module, argv):
    with pytest.raises(SystemExit) as exit:
        module.build_parser().parse_args(argv)
    assert exit.value.code == 2


def test_a_reference_configuration_gives_the_defaults_and_flags_win():
    args = train.parse(["--configuration", "spa-eng/transformer", "--d-model", "128"])
    assert (args.model, args.num_layers, args.d_model, args.tokenizer, args.vocab_size,
            args.max_length, args.label_smoothing) == ("transformer", 3, 128, "subword", 8000,
                                                       64, 0.1)
    config = TrainConfig.from_configuration("spa-eng/transformer", data="x.{split}.tsv")
    assert (config.d_model, config.average_checkpoints, config.data) == (256, 5, "x.{split}.tsv")


@pytest.mark.parametrize("argv, dest, value", [
    (["--time-budget", "2"], "time_budget", 2.0),
    (["--output-dir", "runs/x"], "output", "runs/x"),
    (["--languages", "es,en"], "languages", "es,en"),
    (["--languages", "pt-BR,zh-Hant"], "languages", "pt-BR,zh-Hant"),
    # An option that is on by default is turned off by its --no- form, never accepted and ignored.
    ([], "scale_embeddings", True),
    (["--model", "transformer", "--no-scale-embeddings"], "scale_embeddings", False),
])
def test_train_flags(argv, dest, value):
    assert getattr(train.parse(argv), dest) == value


def test_a_marian_tokenizer_without_an_imported_run_is_refused(capsys):
    with pytest.raises(SystemExit):
        train.parse(["--tokenizer", "marian"])
    assert "--tokenizer marian: an imported model's own vocabulary" in capsys.readouterr().err


@pytest.mark.parametrize("pair", ["es", "es,en,fr", "ES,en", "es,", "spanish,english"])
def test_a_language_pair_that_is_not_two_codes_is_refused(pair, capsys):
    with pytest.raises(SystemExit):
        train.parse(["--languages", pair])
    assert "must be two language codes SOURCE,TARGET" in capsys.readouterr().err


@pytest.mark.parametrize("module, argv, dest, value", [
    (demo, ["--time-budget", "2"], "time_budget", 2.0),
    (demo, ["--output-dir", "runs/d"], "output", "runs/d"),
    (compare, ["--time-budget", "2"], "time_budget", 2.0),
    (evaluate, ["RUN", "--test-size", "7"], "test_size", 7),
    (spell, ["train", "--text", "t", "--tokenizer", "word"], "tokenizer", "word"),
    (spell, ["train", "--text", "t", "--source-column", "1"], "column", 1),
    (spell, ["train", "--text", "t", "--time-budget", "3"], "time_budget", 3.0),
    (spell, ["train", "--text", "t", "--train-size", "9"], "max_sentences", 9),
])
def test_one_name_per_concept(module, argv, dest, value):
    assert getattr(module.build_parser().parse_args(argv), dest) == value


# The old spellings, once hidden aliases; `evaluate --hypotheses` overwrote a file of hypotheses.
OLD_SPELLINGS = """
train --output runs/x | train --minutes 2 | train --column 0 | train --max-sentences 9
train --level word | demo --minutes 2 | demo --output runs/x | compare --minutes 2
evaluate RUN --size 7 | evaluate RUN --limit 7 | evaluate RUN --hypotheses h.txt
spell train --text t --level word | spell train --text t --column 1
spell train --text t --max-sentences 9 | spell train --text t --output runs/x
spell compare --text t --levels char
"""


@pytest.mark.parametrize("command", [c.strip() for c in OLD_SPELLINGS.replace("\n", "|").split("|")
                                     if c.strip()])
def test_the_old_spellings_are_refused(command, capsys):
    from keras_nmt.workshop.cli import main

    with pytest.raises(SystemExit) as exit:
        main(command.split())
    assert exit.value.code == 2
    assert "unrecognized arguments" in capsys.readouterr().err



def test_the_default_model_is_the_same_everywhere():
    models = {train.parse([]).model, demo.build_parser().parse_args([]).model,
              spell.build_parser().parse_args(["train", "--text", "t"]).model}
    assert models == {TrainConfig().model}


def test_train_size_caps_a_corpus_file_with_a_seeded_sample(tmp_path):
    corpus = tmp_path / "pairs.tsv"
    corpus.write_text("".join(f"en {i}\tes {i}\n" for i in range(300)))
    config = TrainConfig(data=str(corpus), train_size=50, valid_size=7, seed=3)
    train_pairs, valid_pairs = load_pairs(config)
    assert (len(train_pairs), len(valid_pairs)) == (50, 7)
    assert not set(train_pairs) & set(valid_pairs)
    numbers = [int(source.split()[1]) for source, _ in train_pairs]
    assert numbers == sorted(numbers)  # file order kept
    assert load_pairs(config) == (train_pairs, valid_pairs)  # seeded
    assert cap_pairs(train_pairs, None, 0) is train_pairs


def test_evaluate_reads_a_file_as_the_model_read_its_data_unless_told(tmp_path):
    """A file's columns are the file's: `--source-column` names them for that file alone (it
    said "this model was trained with --source-column 1"); without it, the file is first read
    as the model's training data was, then checked against the model (`choose_columns`)."""
    from keras_nmt.workshop.translators.open_translator import model_data

    (tmp_path / "config.json").write_text(json.dumps({"source_column": 1, "target_column": 0,
                                                      "data": "x.tsv"}))
    recorded = model_data(tmp_path)
    assert evaluate.columns_read(recorded, None) == (1, 0)
    assert evaluate.columns_read(recorded, 0) == (0, None)
    assert evaluate.columns_read(model_data(tmp_path / "saved"), None) == (0, None)


def test_only_a_model_trained_on_the_dates_is_scored_on_them_by_default(tmp_path):
    from keras_nmt.workshop.translators.open_translator import model_data

    (tmp_path / "dates").mkdir()
    (tmp_path / "dates" / "config.json").write_text(json.dumps({"data": "dates"}))
    assert evaluate.data_to_score(model_data(tmp_path / "dates"), None) == "dates"
    (tmp_path / "spa").mkdir()
    (tmp_path / "spa" / "config.json").write_text(json.dumps({"data": "spa-eng.{split}.tsv"}))
    assert evaluate.data_to_score(model_data(tmp_path / "spa"), "t.tsv") == "t.tsv"
    with pytest.raises(ValueError, match="trained on spa-eng.{split}.tsv, not the built-in "
                       "dates: give its test set with --data FILE"):
        evaluate.data_to_score(model_data(tmp_path / "spa"), None)


def flags_of(parser):
    """`{flag: action}` of a parser's optional flags (`-h` and `--help` left out)."""
    return {flag: action for flag, action in parser._option_string_actions.items()
            if flag not in ("-h", "--help")}


# Flags of `train` that are not options of a run: how to start it and what to do after, and the
# old spelling refused with the new one's name.
TRAIN_COMMAND_FLAGS = {"--configuration", "--fresh", "--export", "--debug", "--strategy"}


def test_every_trainconfig_field_is_a_train_flag_with_help_and_every_flag_a_field():
    import dataclasses

    from keras_nmt.option_fields import flag_of, option_fields

    fields = dataclasses.fields(TrainConfig)
    assert [field.name for field in option_fields(TrainConfig)] == [f.name for f in fields]
    flags = flags_of(train.build_parser())
    for field in fields:
        action = flags[flag_of(field)]
        assert action.dest == field.name and len(action.help) > 10, field.name
    assert {flag for flag, action in flags.items()
            if action.dest not in {f.name for f in fields}} == TRAIN_COMMAND_FLAGS


def test_every_decoding_flag_is_a_decodingoptions_field_with_its_default():
    from keras_nmt.decoding.decoding_options import GREEDY, DecodingOptions
    from keras_nmt.option_fields import flag_of, option_fields

    fields = {flag_of(field): field for field in option_fields(DecodingOptions)}
    flags = flags_of(translate.build_parser())
    own = {"--input", "--output", "--parallel-batches", "--batch-size",
           "--attention-plot", "--debug", "--target-language", "--glossary"}
    assert set(flags) - own <= set(fields)
    for flag in set(flags) - own:
        assert flags[flag].default == getattr(GREEDY, fields[flag].name), flag
        assert flags[flag].help


def test_no_command_defines_a_declared_flag_by_hand():
    import re
    from pathlib import Path

    from keras_nmt.decoding.decoding_options import DecodingOptions
    from keras_nmt.option_fields import flag_of, option_fields

    declared = {flag_of(field) for cls in (TrainConfig, DecodingOptions)
                for field in option_fields(cls)}
    cli = Path(__file__).resolve().parents[2] / "keras_nmt" / "workshop" / "cli"
    # Every command names its own --output-dir (train's is TrainConfig's run folder). spell's
    # data flags count sentences of one text file, not pairs; translate's, evaluate's and spell
    # correct's --batch-size count sentences per decoding call.
    declared.remove("--output-dir")
    own = {"spell": {"--source-column", "--train-size", "--valid-size", "--batch-size"},
           "translate": {"--batch-size"},
           "evaluate": {"--batch-size", "--source-column", "--data"},  # of the test set
           "benchmark": {"--seed"}, "export": {"--seed"}}  # of synthetic data, of a sample
    commands = sorted(cli.glob("*.py"))
    assert len(commands) > 8, cli  # the commands' modules are where this test looks
    for path in commands:
        defined = set(re.findall(r'add_argument\(\s*"(--[a-z-]+)"', path.read_text()))
        again = defined & declared - own.get(path.stem, set())
        assert not again, f"{path.name} defines {again} by hand"


def test_flags_are_made_from_fields_fairseq_style():
    import dataclasses

    from keras_nmt.option_fields import check_options, option
    from keras_nmt.workshop.arguments import new_parser
    from keras_nmt.workshop.cli.options import add_options

    @dataclasses.dataclass
    class Options:
        width: int = option(8, "how wide", at_least=1)
        rate: float = option(0.5, "a rate", "--the-rate", at_least=0, below=1)
        kind: str = option("a", "which kind", choices=("a", "b"))
        fast: bool = option(False, "go fast")
        loud: bool = option(True, "speak up")

        def __post_init__(self):
            check_options(self)

    parser = new_parser("Test.")
    add_options(parser, ["width", "rate", "kind", "fast", "loud"], Options())
    args = parser.parse_args(["--width", "3", "--the-rate", "0.25", "--fast", "--no-loud"])
    assert Options(**vars(args)) == Options(3, 0.25, "a", True, False)
    assert parser.parse_args([]).loud is True
    assert "how wide (default: 8)" in " ".join(parser.format_help().split())
    unset = new_parser("Test.")
    add_options(unset, ["width"], Options(), "the preset's")
    assert unset.parse_args([]).width is None
    assert "(default: the preset's; else 8)" in unset.format_help()
    with pytest.raises(ValueError, match=r"^--the-rate 1: must be in \[0, 1\)$"):
        Options(rate=1)
    with pytest.raises(ValueError, match="^--kind c: must be one of a, b$"):
        Options(kind="c")


def test_train_distribution_flag_and_its_old_spelling(capsys):
    """`--strategy` is translate's decoding choice; train's tf.distribute flag is --distribution,
    and its old spelling is refused naming the new one."""
    args = train.build_parser().parse_args(["--distribution", "mirrored"])
    assert args.distribution == "mirrored"
    with pytest.raises(SystemExit) as exit:
        train.build_parser().parse_args(["--strategy", "mirrored"])
    assert exit.value.code == 2
    assert ("error: --strategy is now --distribution (tf.distribute); give --distribution "
            "mirrored") in capsys.readouterr().err
    assert "--strategy" not in train.build_parser().format_help()
