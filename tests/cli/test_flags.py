"""One flag, one meaning: abbreviations refused, old spellings kept, recipes, sizes that apply."""

import json

import pytest

from keras_nmt.cli import compare, demo, evaluate, spell, train, translate
from keras_nmt.training.task import cap_pairs, load_pairs
from keras_nmt.training.train_config import TrainConfig


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


def test_a_recipe_gives_the_defaults_and_flags_win():
    args = train.parse(["--recipe", "spa-eng/transformer", "--d-model", "128"])
    assert (args.model, args.num_layers, args.d_model, args.tokenizer, args.vocab_size,
            args.max_length, args.label_smoothing) == ("transformer", 3, 128, "subword", 8000,
                                                       64, 0.1)
    config = TrainConfig.from_recipe("spa-eng/transformer", data="x.{split}.tsv")
    assert (config.d_model, config.average_checkpoints, config.data) == (256, 5, "x.{split}.tsv")


@pytest.mark.parametrize("argv, dest, value", [
    (["--time-budget", "2"], "time_budget", 2.0),
    (["--output", "runs/x"], "output", "runs/x"),
    (["--output-dir", "runs/x"], "output", "runs/x"),
])
def test_train_flags(argv, dest, value):
    assert getattr(train.parse(argv), dest) == value


@pytest.mark.parametrize("module, argv, dest, value", [
    (demo, ["--minutes", "2"], "time_budget", 2.0),
    (demo, ["--time-budget", "2"], "time_budget", 2.0),
    (compare, ["--minutes", "2"], "time_budget", 2.0),
    (compare, ["--time-budget", "2"], "time_budget", 2.0),
    (evaluate, ["RUN", "--size", "7"], "test_size", 7),
    (evaluate, ["RUN", "--limit", "7"], "test_size", 7),
    (evaluate, ["RUN", "--test-size", "7"], "test_size", 7),
    (evaluate, ["RUN", "--hypotheses", "h.txt"], "output", "h.txt"),
    (spell, ["train", "--text", "t", "--level", "word"], "tokenizer", "word"),
    (spell, ["train", "--text", "t", "--tokenizer", "word"], "tokenizer", "word"),
    (spell, ["train", "--text", "t", "--column", "1"], "column", 1),
    (spell, ["train", "--text", "t", "--source-column", "1"], "column", 1),
    (spell, ["train", "--text", "t", "--time-budget", "3"], "time_budget", 3.0),
    (spell, ["train", "--text", "t", "--train-size", "9"], "max_sentences", 9),
])
def test_one_name_per_concept_and_the_old_spellings_still_parse(module, argv, dest, value):
    assert getattr(module.build_parser().parse_args(argv), dest) == value


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


def test_evaluate_reads_the_run_direction_and_refuses_another(tmp_path):
    from keras_nmt.inference import model_data

    (tmp_path / "config.json").write_text(json.dumps({"source_column": 1, "target_column": 0}))
    recorded = model_data(tmp_path)
    assert evaluate.data_columns(recorded, None) == (1, 0)
    assert evaluate.data_columns(recorded, 1) == (1, 0)
    with pytest.raises(ValueError, match="--source-column 1"):
        evaluate.data_columns(recorded, 0)
    assert evaluate.data_columns(model_data(tmp_path / "saved"), None) == (0, None)


def test_every_training_flag_is_defined_once_for_a_trainconfig_field():
    import dataclasses
    import re
    from pathlib import Path

    from keras_nmt.cli.options import TRAIN_OPTIONS

    fields = {field.name for field in dataclasses.fields(TrainConfig)}
    assert set(TRAIN_OPTIONS) <= fields
    flags = [spec["flag"] for spec in TRAIN_OPTIONS.values()]
    assert len(flags) == len(set(flags))
    # No training command defines one of these flags itself. (translate, evaluate and benchmark
    # have a --batch-size and a --seed of their own: of decoding, and of sweeps over lists.)
    cli = Path(__file__).resolve().parents[2] / "keras_nmt" / "cli"
    # spell's data flags count sentences of one text file, not pairs; its `correct` batches
    # decoding.
    own = {"spell": {"--source-column", "--train-size", "--valid-size", "--batch-size"}}
    for name in ("train", "compare", "spell", "demo"):
        path = cli / f"{name}.py"
        defined = set(re.findall(r'add_argument\(\s*"(--[a-z-]+)"', path.read_text()))
        again = defined & set(flags) - own.get(name, set())
        assert not again, f"{path.name} defines {again} again"
