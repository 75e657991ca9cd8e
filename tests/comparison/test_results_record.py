import dataclasses
import json
from pathlib import Path

import pytest

from keras_nmt.workshop.comparison.preset_registry import get_preset
from keras_nmt.workshop.comparison.results_record import (
    plot_record,
    read_record,
    record_entry,
    record_table,
    update_record,
)
from keras_nmt.workshop.comparison.runner import RESUMABLE_FIELDS

MACHINE = {"cpu_model": "AMD EPYC", "cpu_count": 2, "isa_flags": ["avx2", "fma"],
           "native_bf16": False, "gpus": []}
SIGNATURE = "nrefs:1|case:mixed|eff:no|tok:13a|smooth:exp|version:2.6.0"


def _run_record(bleu_greedy, bleu_beam, machine=MACHINE):
    base = {"model": "luong", "parameters": 16_597_312, "epochs": 2, "train_seconds": 2790.0,
            "target_tokens_per_second": 1234.4, "val_bleu": 30.1}
    rows = [
        {**base, "decoding": name, "bleu": bleu, "chrf": bleu + 15.0,
         "sentences_per_second": speed, "bleu_signature": SIGNATURE, "chrf_signature": "c"}
        for name, bleu, speed in (("greedy", bleu_greedy, 200.0), ("beam 5", bleu_beam, 60.0))
    ]
    return {"config": {"model": "luong", "units": 512, "output": "runs/x", "verbose": 2},
            "rows": rows, "curve": {"seconds": [1395.0, 2790.0], "val_bleu": [10.0, 30.1]},
            "precision": "float32", "machine": machine}


def test_entry_keeps_the_configuration_and_scores():
    entry = record_entry(_run_record(30.0, 31.5), "2-layer LSTM + Luong attention")
    assert entry["config"] == {"model": "luong", "units": 512}  # run-only fields dropped
    assert (entry["epochs"], entry["minutes"], entry["precision"]) == (2, 46.5, "float32")
    assert entry["decodings"]["beam 5"]["bleu"] == 31.5
    assert entry["decodings"]["greedy"]["bleu_signature"] == SIGNATURE
    assert entry["curve"] == {"minutes": [23.25, 46.5], "val_bleu": [10.0, 30.1]}


def test_update_merges_and_renders(tmp_path):
    path = tmp_path / "results" / "spa-eng.json"
    update_record(path, "spa-eng", {"luong": record_entry(_run_record(30.0, 31.5), "Luong")})
    other = {**MACHINE, "cpu_model": "Intel Xeon", "isa_flags": ["avx512f", "amx_bf16"],
             "native_bf16": True}
    record = update_record(path, "spa-eng",
                           {"lstm": record_entry(_run_record(20.0, 21.0, other), "LSTM")})
    assert list(record["configurations"]) == ["lstm", "luong"]  # by name
    assert json.loads(path.read_text()) == record
    table = path.with_suffix(".md").read_text()
    assert table == record_table(record) + "\n"
    lines = table.splitlines()
    assert lines[0] == ("| configuration | parameters | precision | epochs | minutes | "
                        "target tokens/s | BLEU greedy | chrF greedy | BLEU beam 5 | chrF beam 5 | "
                        "sentences/s greedy | sentences/s beam 5 | machine |")
    assert lines[3] == ("| luong: Luong | 16.6M | float32 | 2 | 46.5 | 1,234 | 30.0 | 45.0 | "
                        "31.5 | 46.5 | 200 | 60 | M1 |")
    # Machines are keyed in the order of their descriptions, not of the rows.
    assert lines[2].endswith("| 20.0 | 35.0 | 21.0 | 36.0 | 200 | 60 | M2 |")
    assert "- M1: AMD EPYC, 2 CPUs, avx2 fma (no native bf16)" in lines
    assert "- M2: Intel Xeon, 2 CPUs, avx512f amx_bf16 (native bf16)" in lines
    assert f"- BLEU signature: `{SIGNATURE}`" in lines
    assert path.with_suffix(".png").read_bytes()[:4] == b"\x89PNG"

    # A configuration run again replaces only its own entry.
    record = update_record(path, "spa-eng", {"luong": record_entry(_run_record(33.0, 34.0), "L")})
    assert record["configurations"]["luong"]["decodings"]["greedy"]["bleu"] == 33.0
    assert record["configurations"]["lstm"]["decodings"]["greedy"]["bleu"] == 20.0


def test_bad_record_files(tmp_path):
    assert read_record(tmp_path / "none.json", "spa-eng") == {"preset": "spa-eng",
                                                              "configurations": {}}
    path = tmp_path / "r.json"
    path.write_text("{not json")
    with pytest.raises(ValueError, match="r.json: not a comparison record"):
        read_record(path, "spa-eng")
    path.write_text(json.dumps({"preset": "tiny", "configurations": {}}))
    with pytest.raises(ValueError, match="records preset 'tiny', not 'spa-eng'"):
        update_record(path, "spa-eng", {})


def test_results_page_shows_the_committed_record():
    """The results page's table is the one `compare.py --record` renders from the record."""
    repository = Path(__file__).resolve().parents[2]
    path = repository / "docs" / "results" / "spa-eng.json"
    record = read_record(path, "spa-eng")
    assert record["configurations"], f"{path} holds no configuration"
    table = record_table(record)
    assert path.with_suffix(".md").read_text() == table + "\n"
    page = (repository / "docs" / "results" / "spa-eng-references.md").read_text()
    assert table in page
    assert "(spa-eng.png)" in page and path.with_suffix(".png").exists()
    assert "docs/results/spa-eng.png" in (repository / "README.md").read_text()


def test_record_rows_are_the_preset_configurations_of_their_names():
    """Each committed row was trained with what `--only NAME` trains today, so it reproduces."""
    path = Path(__file__).resolve().parents[2] / "docs" / "results" / "spa-eng.json"
    preset = get_preset("spa-eng")
    configurations = {c.name: c for c in (*preset.configurations, *preset.variants)}
    # The corpus path is the machine's; the budget fields may change on resumption.
    ignored = {"data", *RESUMABLE_FIELDS}
    for name, entry in read_record(path, "spa-eng")["configurations"].items():
        configuration = configurations[name]
        wanted = dataclasses.asdict(configuration.resolve(preset.defaults))
        assert {key: value for key, value in entry["config"].items() if key not in ignored} == {
            key: value for key, value in wanted.items()
            if key not in ignored and key in entry["config"]}, name
        assert entry["description"] == configuration.description


@pytest.mark.parametrize("budgets, drawn", [((45.0, 45.0), 45.0), ((45.0, 30.0), None)])
def test_plot_shows_the_shared_budget(tmp_path, budgets, drawn):
    configurations = {}
    for name, budget in zip(("a", "b"), budgets, strict=True):
        run = _run_record(30.0, 31.5)
        run["config"]["time_budget"] = budget
        configurations[name] = record_entry(run, name)
    fig = plot_record({"preset": "spa-eng", "configurations": configurations},
                      tmp_path / "p.png")
    lines = fig.axes[0].lines
    assert len(lines) == (3 if drawn else 2)
    if drawn:
        assert list(lines[-1].get_xdata()) == [drawn, drawn]


def test_plot_colours_lines_by_model_and_draws_references_solid(tmp_path):
    configurations = {}
    for name, model in (("luong", "luong"), ("luong-a", "luong"), ("luong-b", "luong"),
                        ("lstm-a", "lstm")):
        run = _run_record(30.0, 31.5)
        run["rows"] = [{**row, "model": model} for row in run["rows"]]
        configurations[name] = record_entry(run, name)
    fig = plot_record({"preset": "spa-eng", "configurations": configurations},
                      tmp_path / "p.png")
    lines = dict(zip(configurations, fig.axes[0].lines, strict=True))  # no budget: no 5th line
    assert lines["luong"].get_color() == lines["luong-a"].get_color() \
        == lines["luong-b"].get_color() != lines["lstm-a"].get_color()
    assert lines["luong"].get_linestyle() == "-"
    assert lines["luong"].get_linewidth() > lines["luong-a"].get_linewidth()
    dashes = {lines[name].get_linestyle() for name in ("luong-a", "luong-b")}
    assert len(dashes) == 2 and "-" not in dashes and "--" not in dashes  # "--": the budget


@pytest.mark.parametrize("second_machine, labels, key", [
    (MACHINE, ["a", "b"], "M1"),
    ({**MACHINE, "isa_flags": ["avx2", "fma", "avx512f", "avx512_bf16"], "native_bf16": True},
     ["a (M1)", "b (M2)"], "M2"),
])
def test_plot_labels_name_the_machine_when_there_are_several(tmp_path, second_machine, labels,
                                                             key):
    """Minutes are not comparable across CPUs, so the legend says which machine each line ran on:
    the table's own keys, only when the record holds more than one machine."""
    configurations = {"a": record_entry(_run_record(30.0, 31.5), "a"),
                      "b": record_entry(_run_record(30.0, 31.5, machine=second_machine), "b")}
    record = {"preset": "spa-eng", "configurations": configurations}
    fig = plot_record(record, tmp_path / "p.png")
    assert [line.get_label() for line in fig.axes[0].lines] == labels
    assert record_table(record).split("\n")[3].endswith(f"| {key} |")  # row b


def test_table_shows_the_bleu_reached_within_the_budget():
    """The last epoch may end past the budget: the table also shows where the run stood at it."""
    configurations = {}
    for name, budget, seconds in (("a", 45.0, [1395.0, 2790.0]), ("b", None, [1200.0, 2400.0]),
                                  ("c", 45.0, [2790.0, 5580.0]), ("d", 45.0, [1395.0, 2790.0])):
        run = _run_record(30.0, 31.5)
        run["config"]["time_budget"] = budget
        run["curve"]["seconds"] = seconds
        run["rows"] = [{**row, "train_seconds": seconds[-1]} for row in run["rows"]]
        if name == "d":  # a run that kept the weights where its budget ran out
            run["at_budget"] = {"epochs": 1.9375, "seconds": 2700.2, "rows": [
                {"decoding": "greedy", "bleu": 28.04, "chrf": 43.0},
                {"decoding": "beam 5", "bleu": 29.5, "chrf": 44.0}]}
        configurations[name] = record_entry(run, name)
    assert configurations["d"]["at_budget"] == {
        "epochs": 1.9375, "minutes": 45.0,
        "decodings": {"greedy": {"bleu": 28.04, "chrf": 43.0},
                      "beam 5": {"bleu": 29.5, "chrf": 44.0}}}
    assert "at_budget" not in configurations["a"]
    lines = record_table({"preset": "spa-eng", "configurations": configurations}).splitlines()
    assert lines[0].startswith("| configuration | parameters | precision | epochs | minutes | "
                               "target tokens/s | val BLEU at 45 min (epochs) | "
                               "BLEU greedy / beam 5 at 45 min (epochs) | BLEU greedy |")
    # a: epoch 2 ended at 46.5 min, no weights kept at 45; b: no budget of its own, measured
    # against the shared one, and ended within it; c: no epoch ended within 45 minutes; d: its
    # weights at 45 minutes were scored.
    assert [line.split(" | ")[6:8] for line in lines[2:6]] == [
        ["10.0 (1)", "n/a"], ["30.1 (2)", "30.0 / 31.5 (2)"], ["n/a", "n/a"],
        ["10.0 (1)", "28.0 / 29.5 (1.94)"]]
    configurations["b"]["config"]["time_budget"] = 30.0  # no shared budget: no column
    assert "at 45 min" not in record_table({"preset": "spa-eng", "configurations": configurations})
