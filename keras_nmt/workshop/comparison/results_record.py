"""The committed record of a reference comparison: JSON, its Markdown table and its plot.

`keras-nmt compare --record docs/results/spa-eng.json` merges each configuration it finished into
that file (a configuration run later, e.g. with ``--only NAME`` in another session or on another
machine, replaces only its own entry) and rewrites, from the whole record, the table
(``spa-eng.md``) and the plot of validation BLEU against wall-clock minutes (``spa-eng.png``)
beside it. docs/results/spa-eng-references.md shows that table (a test checks that it is the one
the record renders, so the two cannot disagree) and the README the plot.

One entry per configuration::

    {"description", "model", "config" (its `TrainConfig` fields), "precision" (the policy
     `--precision auto` chose), "parameters", "epochs", "minutes" (training + validation),
     "target_tokens_per_second", "val_bleu" (last epoch), "decodings": {name: {"bleu", "chrf",
     "sentences_per_second", "bleu_signature", "chrf_signature"}}, "curve": {"minutes",
     "val_bleu"}, "machine" (`keras_nmt.workshop.hardware.machine.describe_machine`), "at_budget"
     (where the time budget ran out, in runs that recorded it: {"epochs" (fractional), "minutes",
     "decodings": {name: {"bleu", "chrf"}}})}

Example:
    >>> record = update_record("docs/results/spa-eng.json", "spa-eng", {"lstm": entry})
    ...                                                                 # doctest: +SKIP
    >>> print(record_table(record))                                     # doctest: +SKIP
"""

import json
from pathlib import Path

from keras_nmt.workshop import markdown
from keras_nmt.workshop.comparison.curves import plot_curves
from keras_nmt.workshop.comparison.table import MISSING
from keras_nmt.workshop.hardware.machine import machine_summary
from keras_nmt.workshop.output_file import write_json, write_text

# Run-specific fields of a `TrainConfig` that say nothing about the configuration.
_RUN_FIELDS = ("output", "verbose", "samples", "backup_every")
# Line colours by model (matplotlib's tab10 minus its grey, which the budget line uses) and the
# dash patterns and markers of a model's variants (the budget line is the only "--").
_MODEL_COLORS = ("tab:blue", "tab:orange", "tab:green", "tab:red", "tab:purple", "tab:brown",
                 "tab:pink", "tab:olive", "tab:cyan")
_VARIANT_DASHES = (":", "-.", (0, (5, 1, 1, 1, 1, 1)), (0, (1, 3)), (0, (6, 2)))
_VARIANT_MARKERS = ("s", "^", "v", "D", "x")
_DECODING_FIELDS = ("bleu", "chrf", "sentences_per_second", "bleu_signature", "chrf_signature")


def record_entry(run_record, description):
    """One configuration's entry, from its ``runs/NAME/comparison.json`` record.

    Args:
        run_record: ``{"config", "rows", "curve", "precision", "machine"}`` as
            `run_configuration` writes it.
        description: the configuration's one-line description.
    """
    rows = run_record["rows"]
    first = rows[0]
    curve = run_record["curve"]
    return {
        "description": description,
        "model": first["model"],
        "config": {key: value for key, value in run_record["config"].items()
                   if key not in _RUN_FIELDS},
        "precision": run_record["precision"],
        "parameters": first["parameters"],
        "epochs": first["epochs"],
        "minutes": round(first["train_seconds"] / 60, 1),
        "target_tokens_per_second": first["target_tokens_per_second"],
        "val_bleu": first["val_bleu"],
        "decodings": {row["decoding"]: {key: row[key] for key in _DECODING_FIELDS}
                      for row in rows},
        "curve": {"minutes": [round(seconds / 60, 2) for seconds in curve["seconds"]],
                  "val_bleu": curve["val_bleu"]},
        "machine": run_record["machine"],
        **_at_budget(run_record.get("at_budget")),
    }


def _at_budget(point):
    """``{"at_budget": ...}`` for a run's budget point (`runner._scores_at_budget`), or ``{}``."""
    if point is None:
        return {}
    return {"at_budget": {
        "epochs": point["epochs"],
        "minutes": round(point["seconds"] / 60, 1),
        "decodings": {row["decoding"]: {"bleu": row["bleu"], "chrf": row["chrf"]}
                      for row in point["rows"]},
    }}


def read_record(path, preset_name):
    """The record at ``path`` (an empty one where there is no file yet).

    Raises:
        ValueError: ``path`` is not such a record, or records another preset.
    """
    path = Path(path)
    if not path.exists():
        return {"preset": preset_name, "configurations": {}}
    try:
        record = json.loads(path.read_text())
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as error:
        raise ValueError(f"{path}: not a comparison record ({error})") from None
    if not isinstance(record, dict) or not isinstance(record.get("configurations"), dict):
        raise ValueError(f"{path}: not a comparison record (no 'configurations')")
    if record.get("preset") != preset_name:
        raise ValueError(f"{path} records preset {record.get('preset')!r}, not "
                         f"{preset_name!r}; choose another record file")
    return record


def update_record(path, preset_name, entries):
    """Merges ``entries`` (``{name: entry}``) into the record at ``path`` and returns it.

    Writes ``path`` (JSON), and beside it ``.md`` (`record_table`) and ``.png`` (`plot_record`).

    Raises:
        ValueError: see `read_record`.
    """
    path = Path(path)
    record = read_record(path, preset_name)
    # By name, so that the file, table and plot do not depend on the order runs finished.
    record["configurations"] = dict(sorted({**record["configurations"], **entries}.items()))
    path.parent.mkdir(parents=True, exist_ok=True)
    write_json(path, record, indent=1)
    write_text(path.with_suffix(".md"), record_table(record) + "\n")
    plot_record(record, path.with_suffix(".png"))
    return record


def _number(value, digits=1):
    return MISSING if value is None else f"{value:,.{digits}f}"


def _shared_budget(entries):
    """The time budget (minutes) every entry that had one ran under, or ``None``."""
    budgets = {entry["config"].get("time_budget") for entry in entries.values()} - {None}
    return budgets.pop() if len(budgets) == 1 else None


def _within_budget(curve, budget):
    """``"BLEU (epochs)"`` of the last epoch that ended within ``budget`` minutes."""
    inside = [bleu for minutes, bleu in zip(curve["minutes"], curve["val_bleu"], strict=True)
              if minutes <= budget]
    return f"{inside[-1]:.1f} ({len(inside)})" if inside else MISSING


def _bleu_at_budget(entry, decodings, budget):
    """``"BLEU / BLEU (epochs)"`` of ``decodings`` for the weights at the budget: those kept
    when it ran out, or the final ones of a run that ended within it."""
    if "at_budget" in entry:
        scores, epochs = entry["at_budget"]["decodings"], entry["at_budget"]["epochs"]
    elif entry["minutes"] <= budget:
        scores, epochs = entry["decodings"], entry["epochs"]
    else:
        return MISSING
    bleu = " / ".join(_number(scores.get(name, {}).get("bleu")) for name in decodings)
    return f"{bleu} ({round(epochs, 2):g})"


def record_table(record):
    """The record as a Markdown table, one row per configuration, then the machines.

    Columns: configuration, parameters, precision, epochs, minutes, target tokens/s, then, when
    the configurations share a time budget, the validation BLEU of the last epoch that ended
    within it (training stops at the end of the batch during which the budget runs out and then
    validates that cut epoch, so the last epoch may end a little past it; records made before
    that rule stopped after the epoch that crossed it) with that epoch's number and the BLEU of
    each decoding of the weights at the budget (`_bleu_at_budget`) with the epochs trained then,
    then BLEU, chrF and sentences/s of
    each decoding ("greedy", "beam 5", ... in the order recorded) after the last epoch.
    """
    entries = record["configurations"]
    # The budget column only for a shared budget: one value or none.
    budgets = [budget for budget in [_shared_budget(entries)] if budget is not None]
    decodings = list(dict.fromkeys(name for entry in entries.values()
                                   for name in entry["decodings"]))
    machines, machine_keys = _machines(entries)
    titles = ["configuration", "parameters", "precision", "epochs", "minutes", "target tokens/s",
              *(title for budget in budgets
                for title in (f"val BLEU at {budget:g} min (epochs)",
                              f"BLEU {' / '.join(decodings)} at {budget:g} min (epochs)")),
              *(f"{metric} {name}" for name in decodings for metric in ("BLEU", "chrF")),
              *(f"sentences/s {name}" for name in decodings), "machine"]
    rows = []
    for name, entry in entries.items():
        scores = [entry["decodings"].get(decoding, {}) for decoding in decodings]
        rows.append([
            f"{name}: {entry['description']}",
            f"{entry['parameters'] / 1e6:.1f}M",
            entry["precision"],
            str(entry["epochs"]),
            _number(entry["minutes"]),
            _number(entry["target_tokens_per_second"], 0),
            *(cell for budget in budgets
              for cell in (_within_budget(entry["curve"], budget),
                           _bleu_at_budget(entry, decodings, budget))),
            *(_number(score.get(metric)) for score in scores for metric in ("bleu", "chrf")),
            *(_number(score.get("sentences_per_second"), 0) for score in scores),
            machine_keys[name],
        ])
    signatures = sorted({score["bleu_signature"] for entry in entries.values()
                         for score in entry["decodings"].values()})
    lines = [markdown.table(titles, rows, align="lll" + "r" * (len(titles) - 4) + "l"), ""]
    lines += [f"- M{index + 1}: {machine}" for index, machine in enumerate(machines)]
    lines += [f"- BLEU signature: `{signature}`" for signature in signatures]
    return "\n".join(lines)


def _machines(entries):
    """The distinct machine summaries, sorted, and each configuration's key ("M1", "M2", ...).

    Sorted, not in the order of the rows: a machine keeps its key when a row is re-run elsewhere.
    """
    summaries = {name: machine_summary(entry["machine"]) for name, entry in entries.items()}
    machines = sorted(set(summaries.values()))
    keys = {name: f"M{machines.index(summary) + 1}" for name, summary in summaries.items()}
    return machines, keys


def _line_styles(entries):
    """One colour per model; its reference (the entry named after the model) a thick solid line,
    its variants thin, each with its own dash pattern and marker."""
    models = list(dict.fromkeys(entry["model"] for entry in entries.values()))
    variants_seen = {model: 0 for model in models}
    styles = {}
    for name, entry in entries.items():
        style = {"color": _MODEL_COLORS[models.index(entry["model"]) % len(_MODEL_COLORS)]}
        if name == entry["model"]:
            style.update(linestyle="-", linewidth=2.4, marker="o")
        else:
            index = variants_seen[entry["model"]]
            variants_seen[entry["model"]] += 1
            style.update(linestyle=_VARIANT_DASHES[index % len(_VARIANT_DASHES)], linewidth=1.2,
                         marker=_VARIANT_MARKERS[index % len(_VARIANT_MARKERS)])
        styles[name] = style
    return styles


def plot_record(record, path):
    """Validation BLEU (greedy) against wall-clock minutes, one line per configuration.

    Lines of one model share a colour: the reference solid and thick, the variants thin, each
    with its own dash pattern. The configurations' time budget is drawn too (grey, dashed) when
    they all ran under the same one. When they ran on more than one machine, each label names its
    row's machine key of `record_table` ("transformer (M2)"): minutes differ between CPUs.
    """
    entries = record["configurations"]
    machines, machine_keys = _machines(entries)
    labels = {name: f"{name} ({machine_keys[name]})" if len(machines) > 1 else name
              for name in entries}
    curves = {labels[name]: {"seconds": entry["curve"]["minutes"],
                             "val_bleu": entry["curve"]["val_bleu"]}
              for name, entry in entries.items()}
    styles = {labels[name]: style for name, style in _line_styles(entries).items()}
    return plot_curves(curves, "val_bleu", path, "validation BLEU (greedy)",
                       title=f"{record['preset']}: validation BLEU", time_unit="min",
                       budget=_shared_budget(entries), styles=styles)
