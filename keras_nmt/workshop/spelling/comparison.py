"""Spelling correctors (token levels x models) on the same noisy data and the same budget."""

import csv
import dataclasses
import io
import itertools
import json
from pathlib import Path

from keras_nmt.decoding.decoding_options import GREEDY
from keras_nmt.special_ids import TOKENIZER_KINDS
from keras_nmt.workshop import markdown
from keras_nmt.workshop.comparison.runner import check_run_folder
from keras_nmt.workshop.output_file import write_json, write_text
from keras_nmt.workshop.run.run_folder import SPELLING_FILE
from keras_nmt.workshop.spelling.training import train_speller, with_epoch_steps

# (column title, report key, format) of the comparison table.
COLUMNS = (
    ("level", "level", "{}"),
    ("model", "model", "{}"),
    ("noisy CER", "noisy_cer", "{:.4f}"),
    ("corrected CER", "corrected_cer", "{:.4f}"),
    ("noisy WER", "noisy_wer", "{:.4f}"),
    ("corrected WER", "corrected_wer", "{:.4f}"),
    ("correct words changed", "changed_correct_rate", "{:.2%}"),
    ("wrong words fixed", "fixed_rate", "{:.2%}"),
    ("hallucinated words", "hallucination_rate", "{:.2%}"),
    ("noisy words not in vocabulary", "noisy_oov_rate", "{:.2%}"),
    ("epochs", "epochs", "{}"),
    ("train s", "train_seconds", "{:.0f}"),
    ("decode sent/s", "sentences_per_second", "{:.1f}"),
)


def compare_correctors(config, data, levels=TOKENIZER_KINDS, models=None,
                       output_dir="runs/spelling", print_fn=print, decoding=GREEDY):
    """Trains one corrector per token level and model on `SpellingData` ``data``; returns the
    test reports.

    Every row gets the same clean splits, the same fixed validation/test noise, the same
    training noise stream (same seed) and the same `TrainConfig` (hence the same epochs and
    ``time_budget``); only ``tokenizer``, ``model`` and ``output`` (``OUTPUT_DIR/LEVEL-MODEL``)
    change. A row whose run folder already holds its report (``spelling.json``) is not
    trained again, so rows trained separately (e.g. in parallel, ``--tokenizers char --models
    ctc``) combine into one table; delete its folder to retrain it. ``decoding``
    (`DecodingOptions`) decodes the test pairs.

    Args:
        config: the `TrainConfig` every row starts from.
        data: a `SpellingData`.
        levels: token levels (``char``, ``word``, ``subword``).
        models: model names (a seq2seq model, or ``ctc``); default ``config.model``.
        output_dir: the folder of the rows' run folders.
        print_fn: where progress lines go.
        decoding: the `DecodingOptions` of the test corrections.

    Raises:
        ValueError: a finished row was trained with other options.

    Returns:
        One report dict per row (see `train_speller`), levels in the order of ``levels``, each
        with its models in the order of ``models``.
    """
    # Every row's options are checked (`TrainConfig`) before the first row trains.
    row_configs = [
        with_epoch_steps(dataclasses.replace(config, tokenizer=level, model=model,
                                             output=str(Path(output_dir) / f"{level}-{model}")),
                         data)
        for level, model in itertools.product(levels, models or [config.model])
    ]
    rows = []
    for row_config in row_configs:
        name = Path(row_config.output).name
        print_fn(f"=== {name} ===")
        record = Path(row_config.output) / SPELLING_FILE
        if record.exists():
            check_run_folder(row_config)
            print_fn(f"{name}: finished earlier, reusing {record}")
            rows.append(json.loads(record.read_text())["test"])
            continue
        _, report = train_speller(row_config, data, print_fn=print_fn, decoding=decoding)
        rows.append(report)
    return rows


def markdown_table(rows):
    """The comparison as a Markdown table (one row per level and model)."""
    return markdown.table(
        [title for title, _, _ in COLUMNS],
        [[fmt.format(row[key]) if key in row else "" for _, key, fmt in COLUMNS] for row in rows],
    )


def write_comparison(rows, output_dir):
    """Writes ``comparison.json``, ``comparison.csv`` and ``comparison.md``; returns the paths."""
    directory = Path(output_dir)
    directory.mkdir(parents=True, exist_ok=True)
    paths = [directory / name for name in ("comparison.json", "comparison.csv", "comparison.md")]
    write_json(paths[0], rows, indent=2)
    keys = list(dict.fromkeys(key for row in rows for key in row))
    table = io.StringIO()
    writer = csv.DictWriter(table, fieldnames=keys)
    writer.writeheader()
    writer.writerows(rows)
    write_text(paths[1], table.getvalue(), newline="")
    write_text(paths[2], markdown_table(rows) + "\n")
    return paths
