"""The results table: one row per (configuration, decoding), as Markdown, CSV and JSON.

A row is a plain dict (see `ROW_FIELDS`); missing or ``None`` values show as ``n/a`` in
Markdown and as empty cells in the CSV. Failed configurations keep their row, with ``status``
``failed`` and the ``error``.
"""

import csv
import io
from pathlib import Path

from keras_nmt.workshop import markdown
from keras_nmt.workshop.output_file import write_json, write_text

# Every field a row may have, in CSV order.
ROW_FIELDS = (
    "configuration",
    "decoding",
    "model",
    "api",
    "tokenizer",
    "status",
    "error",
    "parameters",
    "epochs",
    "train_seconds",
    "step_seconds",
    "tokens_per_epoch",
    "target_tokens_per_second",
    "val_loss",
    "val_bleu",
    "bleu",
    "chrf",
    "cer",
    "wer",
    "exact_match",
    "sentences",
    "decode_seconds",
    "sentences_per_second",
    "bleu_signature",
    "chrf_signature",
)


def _seconds(value):
    return f"{value:.1f} s" if value < 100 else f"{value:,.0f} s"


# (column title, row key, formatter) of the Markdown table.
COLUMNS = (
    ("configuration", "configuration", str),
    ("decoding", "decoding", str),
    ("parameters", "parameters", "{:,}".format),
    ("epochs", "epochs", str),
    ("training time", "train_seconds", _seconds),
    ("target tokens/s", "target_tokens_per_second", "{:,.0f}".format),
    ("val loss", "val_loss", "{:.3f}".format),
    ("BLEU", "bleu", "{:.1f}".format),
    ("chrF", "chrf", "{:.1f}".format),
    ("exact match", "exact_match", "{:.1%}".format),
    ("decode sentences/s", "sentences_per_second", "{:,.1f}".format),
    ("status", "status", str),
)
MISSING = "n/a"
# Longest error message shown in the Markdown status cell (the CSV and JSON keep all of it).
MAX_ERROR_CHARS = 120


def format_cell(row, key, formatter):
    """One Markdown cell: the formatted value, ``n/a`` when missing, pipes escaped."""
    value = row.get(key)
    if value is None:
        return MISSING
    text = formatter(value)
    if key == "status" and row.get("error"):
        error = " ".join(str(row["error"]).split())
        if len(error) > MAX_ERROR_CHARS:
            error = error[: MAX_ERROR_CHARS - 3] + "..."
        text = f"{text}: {error}"
    return text.replace("|", "\\|")


def markdown_table(rows, columns=COLUMNS):
    """The rows as a Markdown table with one line per row.

    Example:
        >>> print(markdown_table([{"configuration": "lstm", "bleu": 12.345}],
        ...                      columns=[("configuration", "configuration", str),
        ...                               ("BLEU", "bleu", "{:.1f}".format)]))
        | configuration | BLEU |
        |---|---|
        | lstm | 12.3 |
    """
    return markdown.table(
        [title for title, _, _ in columns],
        [[format_cell(row, key, formatter) for _, key, formatter in columns] for row in rows],
    )


def write_results(rows, output_dir, header=""):
    """Writes ``results.md`` (``header`` + table), ``results.csv`` and ``results.json``.

    Returns:
        ``{"md": path, "csv": path, "json": path}``.
    """
    directory = Path(output_dir)
    directory.mkdir(parents=True, exist_ok=True)
    paths = {kind: directory / f"results.{kind}" for kind in ("md", "csv", "json")}
    text = (header.rstrip() + "\n\n" if header else "") + markdown_table(rows) + "\n"
    write_text(paths["md"], text)
    fields = list(dict.fromkeys([*ROW_FIELDS, *(key for row in rows for key in row)]))
    table = io.StringIO()
    writer = csv.DictWriter(table, fieldnames=fields)
    writer.writeheader()
    writer.writerows(rows)
    write_text(paths["csv"], table.getvalue(), newline="")
    write_json(paths["json"], rows, indent=2)
    return paths
