"""Running a preset: train every configuration, score every decoding, write table and plots.

Each configuration trains into ``OUTPUT_DIR/runs/<name>`` with
`keras_nmt.workshop.run.trainer.train` (resumable: re-running the same command continues an
interrupted run from its backup). When a configuration has finished, ``runs/<name>/comparison.json``
keeps its rows, learning curve and attention, so a re-run of the whole comparison reuses it instead
of training again (delete that file, or the run folder, to retrain). A configuration that raises is
reported as ``failed`` with its error, and the others still run.

Measured per configuration (see `keras_nmt.workshop.comparison.table.ROW_FIELDS`):

- ``train_seconds``: wall time of all epochs, validation included (the history's ``seconds``,
  timed by the run's `RunState`, cumulative over a resumed run's processes);
- ``step_seconds``: the training steps alone (the history's ``step_seconds``);
- ``target_tokens_per_second``: non-padding target tokens of one epoch (counted by the task's
  `TrainingStream`) times epochs, divided by ``step_seconds``;
- ``val_loss`` / ``val_bleu``: the last epoch's validation loss and greedy BLEU (history);
- per decoding: BLEU, chrF, CER, WER (`score_all`) of the evaluation sources (the validation
  split, or the test split for presets with ``evaluation_split="test"``), repeated sources
  merged into one with several references; exact match only for built-in data (where a
  reference is the single right answer); ``sentences_per_second`` over the evaluation sources
  translated in batches of 64, after one warm-up batch so graph tracing is not counted;
- ``at_budget``: with a time budget (training stops at the end of the batch during which it
  runs out, then validates that cut epoch, a little past the budget), the same decodings of the
  weights kept when the budget ran out (`TimeBudget`), and where
  (fractional epochs): the strict reading of the budget.
"""

import dataclasses
import gc
import json
import re
import traceback
from pathlib import Path

import keras

from keras_nmt.plural import plural
from keras_nmt.workshop.atomic_file import write_json
from keras_nmt.workshop.comparison.curves import plot_attention_comparison, plot_curves
from keras_nmt.workshop.comparison.preset import decoding_name
from keras_nmt.workshop.comparison.results_record import record_entry, update_record
from keras_nmt.workshop.comparison.table import write_results
from keras_nmt.workshop.comparison.throughput import tokens_per_second
from keras_nmt.workshop.corpora.builtin import BUILTIN_DATASETS
from keras_nmt.workshop.corpora.corpus import load_corpus
from keras_nmt.workshop.evaluation import group_references, score_all
from keras_nmt.workshop.hardware.machine import describe_machine
from keras_nmt.workshop.run.run_folder import (
    BUDGET_POINT_FILE,
    BUDGET_WEIGHTS_FILE,
    COMPARISON_FILE,
    CONFIG_FILE,
    HISTORY_FILE,
    PRECISION_FILE,
)
from keras_nmt.workshop.run.run_lifecycle import read_run_json
from keras_nmt.workshop.run.task import TranslationTask
from keras_nmt.workshop.run.trainer import train
from keras_nmt.workshop.timing import time_call

RUNS_DIR = "runs"
# Options that may change between a run and its resumption (the budget, the verbosity).
RESUMABLE_FIELDS = ("epochs", "time_budget", "verbose", "samples")


def _is_builtin(data):
    return isinstance(data, str) and data in BUILTIN_DATASETS


class _PairsCache(TranslationTask):
    """The preset's task, reading each corpus once per comparison (configurations usually
    share it)."""

    def __init__(self, preset):
        self.preset = preset
        self.task = preset.task or TranslationTask()
        self.cache = {}

    def load_pairs(self, config):
        key = ("train", config.data, config.valid, config.source_column, config.train_size,
               config.valid_size, config.seed)
        if key not in self.cache:
            self.cache[key] = self.task.load_pairs(config)
        return self.cache[key]

    def training_stream(self, *args):
        return self.task.training_stream(*args)

    def evaluation(self, config):
        if self.preset.evaluation_split == "valid":
            return self.load_pairs(config)[1]
        key = ("test", config.data, config.source_column, config.seed)
        if key not in self.cache:
            self.cache[key] = load_corpus(
                config.data, "test", source_column=config.source_column, seed=config.seed
            ).pairs
        return self.cache[key]


def check_run_folder(config):
    """Refuses to resume a run folder that was trained with different options."""
    path = Path(config.output) / CONFIG_FILE
    if not path.exists():
        return
    saved = read_run_json(path)
    wanted = dataclasses.asdict(config)
    changed = sorted(
        key for key in wanted
        if key not in RESUMABLE_FIELDS and key != "output" and saved.get(key) != wanted[key]
    )
    if changed:
        raise ValueError(
            f"{config.output} holds a run with other options ({', '.join(changed)}); delete it "
            "or choose another --output-dir"
        )


def learning_curve(run_folder):
    """``{"epochs", "seconds", "step_seconds", "val_loss", "val_bleu"}`` lists from a run
    directory's history (its times: `keras_nmt.workshop.run.run_state.RunState`)."""
    run = Path(run_folder)
    history = json.loads((run / HISTORY_FILE).read_text()) if (run / HISTORY_FILE).exists() \
        else []
    curve = {"epochs": [], "seconds": [], "step_seconds": [], "val_loss": [], "val_bleu": []}
    for record in history:
        if "seconds" not in record:  # written before the history held the times
            continue
        curve["epochs"].append(record["epoch"])
        curve["seconds"].append(record["seconds"])
        curve["step_seconds"].append(record["step_seconds"])
        curve["val_loss"].append(record.get("val_loss"))
        curve["val_bleu"].append(record.get("val_bleu"))
    for key in ("val_loss", "val_bleu"):
        if any(value is None for value in curve[key]):
            curve[key] = []
    return curve


def _decode(translator, sources, references, decoding, batch_size, exact):
    timing = time_call(  # the warm-up traces the graph: not in the speed
        lambda: translator.translate_batch(sources, decoding, batch_size=batch_size),
        warmup=lambda: translator.translate_batch(sources[:1], decoding))
    scores = score_all([result.text for result in timing.result], references)
    if not exact:
        scores["exact_match"] = None
    scores.update(decode_seconds=timing.median,
                  sentences_per_second=len(sources) / timing.median)
    return scores


def _scores_at_budget(run, model, decode):
    """Where the time budget ran out (``budget.json``: fractional epochs, seconds) with
    ``decode()``'s rows for the weights kept there; ``None`` when it did not run out.

    Loads those weights into ``model``: call it after the final weights were scored.
    """
    point = run / BUDGET_POINT_FILE
    if not point.exists():
        return None
    model.load_weights(run / BUDGET_WEIGHTS_FILE)
    return {**json.loads(point.read_text()), "rows": decode()}


def _attention(translator, sources):
    """Greedy attention of the first sentences, JSON-ready; ``None`` without attention."""
    if not getattr(translator.model, "has_attention", False) or not sources:
        return None
    return [
        {
            "source": source,
            "translation": result.text,
            "weights": result.weights.tolist(),
            "source_tokens": result.source_tokens,
            "target_tokens": result.target_tokens,
        }
        for source, result in zip(
            sources, translator.translate_batch(sources, return_attention=True), strict=True
        )
    ]


def run_configuration(configuration, preset, config, pairs, print_fn=print,
                      attention_sentences=3, decode_batch_size=64):
    """Trains (or reuses) one configuration and scores each of the preset's decodings.

    Returns:
        The record written to ``runs/<name>/comparison.json``: ``{"config", "rows", "curve",
        "attention", "at_budget" (`_scores_at_budget`), "precision" (the dtype policy trained
        with), "machine" (`describe_machine` of this process: the one that trained the last
        epochs, or that evaluated a run which had finished training earlier)}``.
    """
    run = Path(config.output)
    record_path = run / COMPARISON_FILE
    if record_path.exists():
        record = json.loads(record_path.read_text())
        if record.get("config") == dataclasses.asdict(config):
            print_fn(f"{configuration.name}: finished earlier, reusing {record_path}")
            return record
    check_run_folder(config)
    run.mkdir(parents=True, exist_ok=True)
    result = train(config, print_fn=print_fn, task=pairs)
    tokens_per_epoch = result.target_tokens_per_epoch
    curve = learning_curve(run)
    epochs = len(curve["epochs"])
    step_seconds = curve["step_seconds"][-1] if epochs else result.seconds
    base = {
        "configuration": configuration.name,
        "model": config.model,
        "api": config.api,
        "tokenizer": config.tokenizer,
        "status": "ok",
        "error": None,
        "parameters": int(result.model.count_params()),
        "epochs": epochs,
        "train_seconds": curve["seconds"][-1] if epochs else result.seconds,
        "step_seconds": step_seconds,
        "tokens_per_epoch": tokens_per_epoch,
        "target_tokens_per_second": tokens_per_second(
            tokens_per_epoch, epochs, step_seconds
        ),
        "val_loss": curve["val_loss"][-1] if curve["val_loss"] else None,
        "val_bleu": curve["val_bleu"][-1] if curve["val_bleu"] else None,
    }
    sources, references = group_references(pairs.evaluation(config))
    translator = result.translator

    def decode_all(weights=""):
        rows = []
        for decoding in preset.decodings:
            print_fn(f"{configuration.name}: decoding {plural(len(sources), 'sentence')}, "
                     f"{decoding_name(decoding)}{weights}")
            scores = _decode(translator, sources, references, decoding, decode_batch_size,
                             exact=_is_builtin(config.data))
            rows.append({"decoding": decoding_name(decoding), **scores})
        return rows

    rows = [{**base, **row} for row in decode_all()]
    attention = _attention(translator, sources[:attention_sentences])
    # Into the translator's model (the saved one, float32), which scored the final weights.
    at_budget = _scores_at_budget(
        run, translator.model, lambda: decode_all(" (the weights at the time budget)")
    )
    record = {
        "config": dataclasses.asdict(config),
        "rows": rows,
        "curve": curve,
        "attention": attention,
        "at_budget": at_budget,
        "precision": read_run_json(run / PRECISION_FILE)["policy"],
        "machine": describe_machine(),
    }
    write_json(record_path, record)
    return record


def _failed_rows(configuration, preset, config, error):
    # Keras decorates the messages it re-raises with terminal colours: keep the text only.
    text = re.sub(r"\x1b\[[0-9;]*m", "", f"{type(error).__name__}: {error}").strip()
    return [
        {
            "configuration": configuration.name,
            "decoding": decoding_name(decoding),
            "model": getattr(config, "model", None),
            "api": getattr(config, "api", None),
            "tokenizer": getattr(config, "tokenizer", None),
            "status": "failed",
            "error": text,
        }
        for decoding in preset.decodings
    ]


def run_comparison(preset, output_dir, user_options=None, print_fn=print, attention_sentences=3,
                   decode_batch_size=64, header="", results_record=None):
    """Runs every configuration of ``preset`` and writes the results into ``output_dir``.

    Args:
        preset: a `Preset` (already narrowed with `Preset.select` if wanted).
        output_dir: receives ``results.md``, ``results.csv``, ``results.json``,
            ``val_loss.png``, ``val_bleu.png``, ``attention-<i>.png`` and ``runs/<name>/``.
        user_options: `TrainConfig` fields the user set explicitly (see
            `Configuration.resolve`).
        print_fn: where progress lines go.
        attention_sentences: evaluation sentences drawn side by side for the attention models.
        decode_batch_size: sentences per translation call when timing decoding.
        header: Markdown written above the table in ``results.md``.
        results_record: optional path of a committed record (`results_record`) that receives every
            configuration that finished (with its ``.md`` table and ``.png`` plot).

    Returns:
        ``(rows, paths)``: the table rows, and the written files by kind (``md``, ``csv``,
        ``json``, ``plots``: a list of PNG paths, ``record``: the record's files, if any).
    """
    output_dir = Path(output_dir)
    pairs = _PairsCache(preset)
    rows, curves, attention, entries = [], {}, {}, {}
    for configuration in preset.configurations:
        config = None
        print_fn(f"=== {preset.name}: {configuration.name} ===")
        try:
            config = configuration.resolve(
                preset.defaults, user_options,
                output=str(output_dir / RUNS_DIR / configuration.name),
            )
            run_record = run_configuration(
                configuration, preset, config, pairs, print_fn=print_fn,
                attention_sentences=attention_sentences, decode_batch_size=decode_batch_size,
            )
        except Exception as error:  # one failure must not stop the comparison
            print_fn(f"{configuration.name}: FAILED\n{traceback.format_exc()}")
            rows += _failed_rows(configuration, preset, config, error)
            continue
        finally:  # the next configuration starts without this one's model in memory
            keras.backend.clear_session()
            gc.collect()
        rows += run_record["rows"]
        curves[configuration.name] = run_record["curve"]
        if run_record["attention"]:
            attention[configuration.name] = run_record["attention"]
        entries[configuration.name] = record_entry(run_record, configuration.description)
    paths = write_results(rows, output_dir, header=header)
    paths["plots"] = write_plots(curves, attention, output_dir, preset.name)
    if results_record is not None:
        update_record(results_record, preset.name, entries)
        path = Path(results_record)
        paths["record"] = [path, path.with_suffix(".md"), path.with_suffix(".png")]
    return rows, paths


def write_plots(curves, attention, output_dir, title=""):
    """Learning curves and attention grids; returns the PNG paths written."""
    output_dir = Path(output_dir)
    written = []
    for key, label in (("val_loss", "validation loss"), ("val_bleu", "validation BLEU (greedy)")):
        path = output_dir / f"{key}.png"
        if plot_curves(curves, key, path, label, title=f"{title}: {label}") is not None:
            written.append(path)
    count = min((len(entries) for entries in attention.values()), default=0)
    for index in range(count):
        panels = {name: entries[index] for name, entries in attention.items()}
        source = next(iter(panels.values()))["source"]
        path = output_dir / f"attention-{index + 1}.png"
        if plot_attention_comparison(panels, path, title=repr(source)) is not None:
            written.append(path)
    return written
