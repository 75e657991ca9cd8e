"""What the TensorFlow sections and the JAX benchmark share; no TensorFlow.

The training and decoding timers (tokens/s with FLOPs and MFU; sentences/s), one configuration
run (dtype policy, seed, a failure kept as a record), the records' tables and files, and
synthetic batches of random ids for a machine with no corpus at hand: speed depends on the ids
only through the shapes. Synthetic lengths are log-normal, as sentence lengths in parallel
corpora roughly are (by default a median of 20 target tokens, about a WMT sentence in subwords),
batched by length up to a budget of padded tokens (fairseq's `--max-tokens`).
"""

import itertools

import keras
import numpy as np

from keras_nmt.special_ids import END_ID, NUM_RESERVED, PAD_ID, START_ID
from keras_nmt.workshop import markdown
from keras_nmt.workshop.benchmarks.flops import training_flops
from keras_nmt.workshop.output_file import write_json, write_text
from keras_nmt.workshop.timing import time_call

# The compute dtype of each `--precisions` policy (the dtype of its peak matmul).
COMPUTE_DTYPES = {"float32": "float32", "mixed_bfloat16": "bfloat16", "mixed_float16": "float16"}


def batch_lengths(batches):
    """Real (non-padding) `(source_lengths, target_lengths)` of every sentence of `batches`.

    Args:
        batches: `[(inputs, targets), ...]` as `keras_nmt.data.pipeline.make_dataset` yields them.
    """
    sources = [np.sum(np.asarray(inputs["encoder_tokens"]) != PAD_ID, axis=1)
               for inputs, _ in batches]
    targets = [np.sum(np.asarray(target) != PAD_ID, axis=1) for _, target in batches]
    return np.concatenate(sources), np.concatenate(targets)


def configuration_record(head, precision, seed, measure):
    """`{**head, **measure()}` under `precision`'s dtype policy and `seed`.

    An exception becomes `{**head, "error": ...}`: one failing configuration must not stop the
    others. The policy goes back to float32 and the Keras session is cleared after.
    """
    keras.mixed_precision.set_global_policy(precision)
    keras.utils.set_random_seed(seed)
    try:
        return {**head, **measure()}
    except Exception as error:
        return {**head, "error": f"{type(error).__name__}: {str(error).strip()[:300]}"}
    finally:
        keras.mixed_precision.set_global_policy("float32")
        keras.backend.clear_session()


def train_measurement(model, name, batches, steps, peak):
    """Real target tokens/s of a compiled registry model's training steps, its FLOPs and MFU.

    Step `i` trains on `batches[i % len(batches)]`, after one untimed pass over `batches` (every
    shape traced, and with XLA compiled) timed apart as the warm-up. Under JAX the steps run
    through `fit`, as a user trains: Keras' JAX `train_on_batch` copies every weight, optimizer
    slot and metric back into the model after each step and waits for the step's losses, where
    `fit` does so once at the end, and meanwhile queues the next step while the device runs the
    last. Under TensorFlow both run the same traced step on variables in place, and each
    `train_on_batch` is one step (it returns host floats: the step has finished).

    Args:
        model: a compiled Keras model of the registry; `name`: its registry name (its FLOPs
            formula, `flops.training_flops`).
        batches: `[(inputs, targets), ...]` (tensors or arrays).
        steps: timed steps.
        peak: a `keras_nmt.workshop.hardware.peak.measure_peak_matmul` result.

    Returns:
        A dict: `tokens_per_second`, `seconds`, `steps`, `warmup_steps`, `warmup_seconds`,
        `mean_step_seconds`, `train_flops_per_token`, `achieved_flops_per_second`,
        `peak_flops_per_second`, `peak_dtype`, `peak_size`, `mfu`, `parameters`.
    """
    if keras.backend.backend() == "jax":
        timing = time_call(lambda: _fit(model, batches, steps),
                           warmup=lambda: _fit(model, batches, len(batches)))
    else:
        order = itertools.cycle(batches)
        timing = time_call(lambda: model.train_on_batch(*next(order)), repeats=steps,
                           warmup=lambda: [model.train_on_batch(*batch) for batch in batches])
    source_lengths, target_lengths = batch_lengths(batches)
    per_batch = [int(np.sum(np.asarray(target) != PAD_ID)) for _, target in batches]
    tokens_per_second = sum(per_batch[s % len(batches)] for s in range(steps)) / timing.total
    per_token = training_flops(name, model.get_config(), source_lengths, target_lengths)
    per_token /= target_lengths.sum()
    return {
        "tokens_per_second": tokens_per_second, "seconds": timing.total, "steps": steps,
        "warmup_steps": len(batches), "warmup_seconds": timing.warmup_seconds,
        "mean_step_seconds": timing.total / steps, "train_flops_per_token": per_token,
        "achieved_flops_per_second": per_token * tokens_per_second,
        "peak_flops_per_second": peak["flops_per_second"], "peak_dtype": peak["dtype"],
        "peak_size": peak.get("size"),
        "mfu": per_token * tokens_per_second / peak["flops_per_second"],
        "parameters": int(model.count_params()),
    }


class _Steps(keras.utils.PyDataset):
    """`steps` training batches for `fit`: `batches[i % len(batches)]` for step `i`."""

    def __init__(self, batches, steps):
        super().__init__()
        self.batches, self.steps = batches, steps

    def __len__(self):
        return self.steps

    def __getitem__(self, index):
        return self.batches[index % len(self.batches)]


def _fit(model, batches, steps):
    """`steps` steps of `model.fit`, returned once the last has finished on the device."""
    model.fit(_Steps(batches, steps), epochs=1, shuffle=False, verbose=0)
    # A host copy of the step counter, which the last step writes: it waits for that step.
    keras.ops.convert_to_numpy(model.optimizer.iterations)


def time_decoding(decode_lengths, batches, warmup_batches):
    """Sentences/s of `decode_lengths(ids) -> output lengths` over `batches`.

    `warmup_batches` are decoded first, untimed and timed apart: they hold tracing and
    compilation (one batch per shape where each shape compiles).

    Returns:
        A dict: `sentences_per_second`, `seconds`, `sentences`, `mean_output_length` (tokens of
        the best hypothesis, END included), `max_output_length`, `warmup_seconds`.
    """
    timing = time_call(
        # A host copy of the lengths: the decode has finished.
        lambda: [np.asarray(decode_lengths(ids)) for ids in batches],
        warmup=lambda: [np.asarray(decode_lengths(ids)) for ids in warmup_batches],
    )
    lengths = np.concatenate(timing.result)
    return {
        "sentences_per_second": len(lengths) / timing.total, "seconds": timing.total,
        "sentences": int(len(lengths)), "mean_output_length": float(np.mean(lengths)),
        "max_output_length": int(np.max(lengths)), "warmup_seconds": timing.warmup_seconds,
    }


def records_table(records, columns, head=3):
    """`records` as a Markdown table, one row each, failures (records with an `error`) last.

    Args:
        records: JSON records.
        columns: `(title, key, spec)` per column: the cell is `format(record[key], spec)`, or
            `key(record)` when `key` is callable; an empty `spec` aligns the column left.
        head: the columns a failure fills; the next says `failed: ERROR`, the rest are blank.
    """
    def cells(r, chosen):
        return [key(r) if callable(key) else format(r[key], spec) for _, key, spec in chosen]

    rows = [cells(r, columns) for r in records if "error" not in r]
    rows += [cells(r, columns[:head]) + [f"failed: {r['error'][:80]}"]
             + [""] * (len(columns) - head - 1) for r in records if "error" in r]
    return markdown.table([title for title, _, _ in columns], rows,
                          align="".join("r" if spec else "l" for _, _, spec in columns))


def beam_name(beam_size):
    """`greedy` for beam size 1, else `beam N` (a table's strategy cell)."""
    return "greedy" if beam_size == 1 else f"beam {beam_size}"


def write_outputs(args, records, markdown):
    """(Re)writes --output-json and --output-md with every record so far, atomically.

    Called after each measurement, so that a run cut short (a crash, a lease's time limit)
    keeps what it measured.
    """
    if args.output_json:
        write_json(args.output_json, records, indent=1)
    if args.output_md:
        write_text(args.output_md, markdown)


def source_batches(rows, batch_size=64):
    """Source id rows, `batch_size` at a time, as int32 `(batch, longest)` arrays padded with 0.

    Example:
        >>> [b.tolist() for b in source_batches([[5, 6], [7], [8, 9, 10]], batch_size=2)]
        [[[5, 6], [7, 0]], [[8, 9, 10]]]
    """
    batches = []
    for start in range(0, len(rows), batch_size):
        chunk = rows[start : start + batch_size]
        ids = np.full((len(chunk), max(len(row) for row in chunk)), PAD_ID, np.int32)
        for i, row in enumerate(chunk):
            ids[i, : len(row)] = row
        batches.append(ids)
    return batches


def random_rows(lengths, vocab_size, rng):
    """One row of random ids in `[NUM_RESERVED, vocab_size)` per length (`rng`: a Generator)."""
    return [rng.integers(NUM_RESERVED, vocab_size, int(n)).astype(np.int32) for n in lengths]


def synthetic_lengths(count, rng, median=20.0, spread=0.5, ratio=1.0, max_length=96):
    """`(source_lengths, target_lengths)`, int arrays of `count` sentence lengths.

    Targets are `exp(N(log median, spread^2))` tokens (END included), sources `ratio` times
    their target with a log-normal noise of spread 0.15; both clipped to `[2, max_length]`.
    """
    target = np.exp(rng.normal(np.log(median), spread, count))
    source = target * ratio * np.exp(rng.normal(0.0, 0.15, count))
    clip = lambda x: np.clip(np.rint(x), 2, max_length).astype(np.int64)  # noqa: E731
    return clip(source), clip(target)


def token_batches(source_lengths, target_lengths, tokens_per_batch, source_vocab_size,
                  target_vocab_size, rng, length_multiple=8, max_batches=None):
    """Length-bucketed batches of random ids, each within `tokens_per_batch` padded tokens.

    Sentences sorted by target length are cut into consecutive groups whose padded size
    `batch * max(padded source length, padded target length)` stays within the budget; lengths
    are padded up to a multiple of `length_multiple` (fewer shapes: fewer compilations) and
    batch sizes over 8 rounded down to a multiple of 8. At most `max_batches` groups (None:
    all), spread over the length range, come back in a random order.

    Returns:
        `[({"encoder_tokens": (batch, S), "decoder_tokens": (batch, T)}, targets (batch, T))]`,
        int32, as `keras_nmt.data.pipeline.make_dataset` yields them (`decoder_tokens` = START + y,
        `targets` = y + END, padded with `PAD_ID`); ids in `[NUM_RESERVED, vocab size)`.
    """
    order = np.argsort(target_lengths, kind="stable")
    padded = lambda n: -(-int(n) // length_multiple) * length_multiple  # noqa: E731
    groups, start = [], 0
    while start < len(order):
        end, width = start, 0
        while end < len(order):
            index = order[end]
            wider = max(width, padded(source_lengths[index]), padded(target_lengths[index]))
            if (end + 1 - start) * wider > tokens_per_batch and end > start:
                break
            end, width = end + 1, wider
        size = end - start
        size = size - size % 8 if size > 8 else size
        groups.append(order[start : start + size])
        start += size
    if max_batches is not None and len(groups) > max_batches:
        keep = np.linspace(0, len(groups) - 1, max_batches).round().astype(int)
        groups = [groups[i] for i in keep]
    batches = []
    for group in groups:
        s, t = source_lengths[group][:, None], target_lengths[group][:, None]
        source = rng.integers(NUM_RESERVED, source_vocab_size, (len(group), padded(s.max())))
        words = rng.integers(NUM_RESERVED, target_vocab_size, (len(group), padded(t.max())))
        at = np.arange(words.shape[1])  # target positions; y is words[:, :t - 1]
        decoder = np.where(at == 0, START_ID, np.where(at < t, np.roll(words, 1, axis=1), PAD_ID))
        targets = np.where(at < t - 1, words, np.where(at == t - 1, END_ID, PAD_ID))
        source = np.where(np.arange(source.shape[1]) < s, source, PAD_ID)
        batches.append(({"encoder_tokens": source.astype(np.int32),
                         "decoder_tokens": decoder.astype(np.int32)}, targets.astype(np.int32)))
    return [batches[i] for i in rng.permutation(len(batches))]
