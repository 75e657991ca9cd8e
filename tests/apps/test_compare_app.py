import csv
import json

import pytest
from matplotlib.image import imread

from keras_nmt.workshop.cli import compare as compare_app
from keras_nmt.workshop.comparison import preset_registry as presets_module
from keras_nmt.workshop.comparison.configuration import Configuration
from keras_nmt.workshop.comparison.preset import Preset
from keras_nmt.workshop.evaluation import group_references, score_all
from keras_nmt.workshop.run.run_folder import RunFolder
from keras_nmt.workshop.run.task import load_pairs
from keras_nmt.workshop.run.train_config import TrainConfig
from tests.fixed_precision import FLOAT32_FLAGS

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"
COLUMNS = [
    "configuration", "decoding", "parameters", "epochs", "training time", "target tokens/s",
    "val loss", "BLEU", "chrF", "exact match", "decode sentences/s", "status",
]


def _table(markdown):
    lines = [line for line in markdown.splitlines() if line.startswith("|")]
    header = [cell.strip() for cell in lines[0].strip("|").split("|")]
    rows = [[cell.strip() for cell in line.strip("|").split(" | ")] for line in lines[2:]]
    return header, rows


def test_tiny_preset_end_to_end(tmp_path, capsys):
    output = tmp_path / "compare"
    record_path = tmp_path / "results" / "tiny.json"
    assert compare_app.main(["--preset", "tiny", "--output-dir", str(output),
                             "--verbose", "0", "--record", str(record_path)]) == 0
    printed = capsys.readouterr().out
    header, rows = _table((output / "results.md").read_text())
    assert header == COLUMNS
    assert [row[0] for row in rows] == ["lstm", "luong"]
    assert all(row[-1] == "ok" and row[1] == "greedy" and row[3] == "1" for row in rows)
    assert "| configuration | decoding |" in printed

    with open(output / "results.csv", newline="") as stream:
        table = list(csv.DictReader(stream))
    results = json.loads((output / "results.json").read_text())
    assert [row["configuration"] for row in table] == [row["configuration"] for row in results]
    for row in results:
        assert row["parameters"] > 0 and row["epochs"] == 1
        assert 0 < row["step_seconds"] <= row["train_seconds"]
        assert row["target_tokens_per_second"] == pytest.approx(
            row["tokens_per_epoch"] / row["step_seconds"])
        assert row["sentences"] == 32 and row["sentences_per_second"] > 0
        assert 0 <= row["bleu"] <= 100 and 0 <= row["exact_match"] <= 1
        assert (output / "runs" / row["configuration"] / "model.keras").exists()

    plots = ["val_loss.png", "val_bleu.png", "attention-1.png", "attention-2.png",
             "attention-3.png"]
    assert sorted(p.name for p in output.glob("*.png")) == sorted(plots)
    for name in plots:
        assert (output / name).read_bytes()[:8] == PNG_MAGIC
        image = imread(output / name)
        assert image.ndim == 3 and image.shape[0] > 100 and image.shape[1] > 100

    # The committed record: one entry per configuration, its table and plot beside it.
    record = json.loads(record_path.read_text())
    assert record["preset"] == "tiny" and sorted(record["configurations"]) == ["lstm", "luong"]
    for row in results:
        entry = record["configurations"][row["configuration"]]
        assert entry["decodings"]["greedy"]["bleu"] == row["bleu"]
        assert entry["epochs"] == 1 and entry["curve"]["minutes"] == [
            round(row["train_seconds"] / 60, 2)]
        chosen = json.loads((output / "runs" / row["configuration"] / "precision.json").read_text())
        assert entry["precision"] == chosen["policy"] and entry["machine"]["cpu_count"] > 0
    assert "| lstm: plain LSTM |" in record_path.with_suffix(".md").read_text()
    assert record_path.with_suffix(".png").read_bytes()[:8] == PNG_MAGIC

    # Re-running reuses the finished configurations instead of training them again, and merges
    # only them into the record.
    record["configurations"]["lstm"]["epochs"] = 7
    record_path.write_text(json.dumps(record))
    assert compare_app.main(["--preset", "tiny", "--output-dir", str(output), "--only", "luong",
                             "--verbose", "0", "--record", str(record_path)]) == 0
    assert "luong: finished earlier" in capsys.readouterr().out
    assert json.loads((output / "results.json").read_text()) == results[1:]
    merged = json.loads(record_path.read_text())["configurations"]
    assert merged["lstm"]["epochs"] == 7 and merged["luong"]["epochs"] == 1

    # A record of another preset is refused before anything trains.
    with pytest.raises(SystemExit):
        compare_app.main(["--preset", "attention", "--record", str(record_path)])
    assert "records preset 'tiny', not 'attention'" in capsys.readouterr().err


def test_the_weights_where_the_budget_ran_out_are_scored_too(tmp_path):
    # A budget of microseconds runs out after the first of 8 batches; training stops at that
    # batch, and the record holds the scores of the kept weights, which are the final ones.
    output, record_path = tmp_path / "compare", tmp_path / "tiny.json"
    assert compare_app.main(["--preset", "tiny", "--only", "lstm", "--output-dir", str(output),
                             "--epochs", "2", "--time-budget", "1e-7", "--verbose", "0",
                             *FLOAT32_FLAGS, "--record", str(record_path)]) == 0
    run = output / "runs" / "lstm"
    entry = json.loads(record_path.read_text())["configurations"]["lstm"]
    assert entry["epochs"] == 1 and entry["at_budget"]["epochs"] == 1 / 8
    valid_pairs = load_pairs(TrainConfig.from_json(run / "config.json"))[1]
    sources, references = group_references(valid_pairs)
    directory = RunFolder.load(run)
    directory.model.load_weights(run / "budget.weights.h5")
    greedy = [result.text for result in directory.translator().translate_batch(sources)]
    scores = score_all(greedy, references)
    kept = entry["at_budget"]["decodings"]["greedy"]
    assert (kept["bleu"], kept["chrf"]) == (scores["bleu"], scores["chrf"])
    # The budget is checked after every batch: training stopped where it ran out.
    assert kept["chrf"] == entry["decodings"]["greedy"]["chrf"]


def test_failed_configuration_is_reported_and_the_others_run(tmp_path, monkeypatch, capsys):
    tiny = presets_module.tiny_preset()

    def broken():
        return Preset("broken", "two bad configurations around a good one", (
            Configuration("bad-model", {"model": "gru"}),
            Configuration("lstm", {"model": "lstm"}),
            Configuration("bad-schedule", {"teacher_forcing": "linear"}),  # functional twin
        ), defaults={**tiny.defaults, "train_size": 64, "valid_size": 8})

    monkeypatch.setitem(presets_module._PRESETS, "broken", broken)
    output = tmp_path / "broken"
    assert compare_app.main(["--preset", "broken", "--output-dir", str(output),
                             "--verbose", "0", *FLOAT32_FLAGS]) == 1
    assert "failed: bad-model, bad-schedule" in capsys.readouterr().out
    results = json.loads((output / "results.json").read_text())
    assert [(r["configuration"], r["status"]) for r in results] == [
        ("bad-model", "failed"), ("lstm", "ok"), ("bad-schedule", "failed")]
    assert "--model gru: must be one of" in results[0]["error"]
    assert "needs --api subclassed" in results[2]["error"]
    _, rows = _table((output / "results.md").read_text())
    assert rows[0][-1].startswith("failed: ValueError: --model gru") and rows[1][-1] == "ok"
    assert rows[0][2:11] == ["n/a"] * 9


def test_list_and_bad_names(capsys):
    assert compare_app.main(["--list"]) == 0
    listed = capsys.readouterr().out
    assert "attention:" in listed and "luong-concat" in listed and "beam 8, alpha 0.6" in listed
    spa_eng = listed[listed.index("spa-eng:"):listed.index("tiny:")]
    assert spa_eng.index("    transformer ") < spa_eng.index("variants (trained only when named") \
        < spa_eng.index("    transformer-dropout ")
    with pytest.raises(SystemExit):
        compare_app.main(["--preset", "attention", "--only", "gru"])
    assert "choose from lstm" in capsys.readouterr().err


def test_user_options():
    args = compare_app.build_parser().parse_args(["--time-budget", "2", "--units", "16"])
    assert compare_app.user_options(args) == {
        "units": 16, "verbose": 2, "time_budget": 2.0,
        "epochs": compare_app.EPOCHS_FOR_TIME_BUDGET}
    args = compare_app.build_parser().parse_args(["--epochs", "3", "--seed", "7"])
    assert compare_app.user_options(args) == {
        "seed": 7, "epochs": 3, "verbose": 2, "time_budget": None}


def test_a_flag_that_configurations_set_themselves_is_named_not_ignored():
    # What a configuration compares (its overrides) beats a flag: named for the configurations
    # that keep their own value; refused (in main) when all of them do.
    preset = Preset("p", "", (Configuration("a", {"units": 8}), Configuration("b"),
                              Configuration("c", {"units": 32, "seed": 1})))
    args = compare_app.build_parser().parse_args(["--units", "16", "--seed", "3", "--epochs", "2"])
    assert compare_app.set_by_configurations(preset, args) == {"units": ["a", "c"], "seed": ["c"]}


def test_token_batches_and_precision_flags(capsys):
    args = compare_app.build_parser().parse_args(["--batch-tokens", "4096", "--precision", "auto"])
    assert compare_app.user_options(args) == {
        "batch_tokens": 4096, "precision": "auto", "verbose": 2}
    with pytest.raises(SystemExit):
        compare_app.build_parser().parse_args(["--batch-tokens", "4096", "--batch-size", "32"])
    assert "not allowed with argument" in capsys.readouterr().err
