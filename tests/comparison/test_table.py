import csv
import json

from keras_nmt.workshop.comparison.table import (
    COLUMNS,
    MISSING,
    format_cell,
    markdown_table,
    write_results,
)

ROWS = [
    {"configuration": "lstm", "decoding": "greedy", "parameters": 1234567, "epochs": 3,
     "train_seconds": 61.26, "target_tokens_per_second": 12345.6, "val_loss": 0.12345,
     "bleu": 45.678, "chrf": 70.01, "exact_match": 0.5, "sentences_per_second": 321.04,
     "status": "ok", "error": None},
    {"configuration": "luong", "decoding": "beam 4, alpha 0.6", "status": "failed",
     "error": "ValueError: bad | value\nsecond line"},
]


def test_markdown_table_formats_numbers_and_missing_values():
    lines = markdown_table(ROWS).splitlines()
    assert lines[0] == "| " + " | ".join(title for title, _, _ in COLUMNS) + " |"
    assert lines[1] == "|" + "|".join(["---"] * len(COLUMNS)) + "|"
    assert lines[2] == (
        "| lstm | greedy | 1,234,567 | 3 | 61.3 s | 12,346 | 0.123 | 45.7 | 70.0 | 50.0% "
        "| 321.0 | ok |"
    )
    cells = lines[3].split(" | ")
    assert cells[2:11] == [MISSING] * 9
    # The error follows the status on one line, with its pipe escaped.
    assert lines[3].endswith("| failed: ValueError: bad \\| value second line |")
    assert len(lines) == 4


def test_long_errors_are_cut_and_seconds_switch_format():
    row = {"status": "failed", "error": "x" * 500, "train_seconds": 1234.4}
    assert format_cell(row, "status", str) == "failed: " + "x" * 117 + "..."
    assert format_cell(row, "train_seconds", COLUMNS[4][2]) == "1,234 s"


def test_write_results_round_trips(tmp_path):
    paths = write_results(ROWS, tmp_path / "out", header="# title")
    assert paths["md"].read_text().startswith("# title\n\n| configuration |")
    assert json.loads(paths["json"].read_text()) == ROWS
    with open(paths["csv"], newline="") as stream:
        read = list(csv.DictReader(stream))
    assert [row["configuration"] for row in read] == ["lstm", "luong"]
    assert read[0]["bleu"] == "45.678" and read[1]["bleu"] == ""
    assert read[1]["error"] == "ValueError: bad | value\nsecond line"
