"""`--precision auto`: the Keras dtype policy this machine trains fastest with, and why.

A GPU trains in float16 with loss scaling. On a CPU the flags settle two cases and a timing the
third:

* AMX (`amx_bf16`): bf16, multiplied in AMX tiles, is the fast choice.
* No bf16 instructions (no `avx512_bf16`): oneDNN emulates bf16 and the reference Transformer
  trained 20-40x slower than in float32 (a 2-core AMD EPYC with AVX2 only): float32.
* `avx512_bf16` without AMX: the flag does not decide it. A 2-core Intel Xeon with it trained
  the Transformer and the LSTM in bf16 at 0.60-0.66x the float32 speed; an AMD Zen 4 with the
  same flag at 1.3-1.9x. So the model's own matmul shapes (`step_matmul_shapes`) are timed in
  both dtypes (`keras_nmt.workshop.hardware.peak.measure_bf16_speedup`: interleaved rounds, median),
  and bf16 is chosen only when it is at least `MIN_BF16_SPEEDUP` times faster.

A timed rule must not flip between runs on one machine. An earlier one did: it timed a
512-square matmul, bf16 after float32, three times, on CPUs *without* bf16 instructions, where
the ratio swung from 0.42x to 1.47x. This one times only where the answer is far from 1 on the
CPUs measured (0.6-0.7x or 1.3-1.9x), times the model's shapes rather than one square, alternates
the dtypes within each round so a passing load slows both, takes the median of the rounds,
demands a clear margin, measures once per process and shapes (so `compare` gives every
configuration of one shape the same answer) and records the measurement with the choice in the
run folder, where a resumed run reads it instead of timing again.
"""

import dataclasses
import functools

from keras_nmt.models.registry import card
from keras_nmt.workshop.hardware.machine import describe_machine
from keras_nmt.workshop.hardware.peak import measure_bf16_speedup
from keras_nmt.workshop.run.train_config import PRECISIONS, TrainConfig

# Where it is timed, bf16 must run the model's matmuls at least this much faster than float32:
# a whole step gains less than its matmuls (bf16 element-wise ops, casts), and a ratio near 1 is
# where a timing on a shared machine could go either way from run to run.
MIN_BF16_SPEEDUP = 1.15
# Tokens per sentence assumed for the rows of a step's matmuls (`batch_size * TYPICAL_LENGTH`)
# when `--batch-tokens` does not give them; and the vocabulary of a char tokenizer, not known
# before the tokenizers are built.
TYPICAL_LENGTH = 32
CHAR_VOCABULARY = 128


@dataclasses.dataclass
class PrecisionChoice:
    """A resolved `--precision`: the Keras policy, why, a warning if any, the timing if any."""

    policy: str
    reason: str
    warning: str | None = None
    measurement: dict | None = None


def step_matmul_shapes(config):
    """The `(m, k, n)` matmuls that dominate a training step of `config`'s model.

    Args:
        config: a `TrainConfig` (its model, sizes, batch and tokenizer).

    Returns:
        A list of triples, from the model's card (`ModelCard.step_matmuls`): a Transformer's
        attention projections, both feed-forward layers and the output projection over
        `batch * length` rows; a recurrent model's LSTM gates over `batch` rows (one time step)
        and its attention and output projections over `batch * length` rows.

    Example:
        >>> step_matmul_shapes(TrainConfig(model="transformer", d_model=256, ff_dim=1024,
        ...                                tokenizer="subword", vocab_size=8000))
        [(2048, 256, 256), (2048, 256, 1024), (2048, 1024, 256), (2048, 256, 8000)]
    """
    rows = config.batch_tokens or config.batch_size * TYPICAL_LENGTH
    vocab = config.vocab_size if config.tokenizer in ("word", "subword") else CHAR_VOCABULARY
    sentences = max(1, rows // TYPICAL_LENGTH)
    return card(config.model).step_matmuls(dataclasses.asdict(config), rows, sentences, vocab)


# Timed where no run configuration is given (the benchmarks): the reference Transformer's step.
REFERENCE_SHAPES = step_matmul_shapes(
    TrainConfig(model="transformer", d_model=256, ff_dim=1024, tokenizer="subword")
)


@functools.cache
def _cached_bf16_speedup(shapes):
    return measure_bf16_speedup(list(shapes))


def bf16_speedup(shapes):
    """`measure_bf16_speedup(shapes)`, measured once per process for each set of shapes."""
    return _cached_bf16_speedup(tuple(tuple(shape) for shape in shapes))


def choose_precision(machine=None, shapes=None):
    """The policy `auto` picks (see the module docstring for the rule and why).

    Args:
        machine: `keras_nmt.workshop.hardware.machine.describe_machine()` (tests pass a fake one).
        shapes: the model's `step_matmul_shapes`, timed on a CPU with avx512_bf16 but no AMX
            (default: `REFERENCE_SHAPES`).

    Returns:
        A `PrecisionChoice`; its `measurement` is `bf16_speedup`'s where the choice was timed.
    """
    machine = describe_machine() if machine is None else machine
    cpu, flags = machine["cpu_model"], machine["isa_flags"]
    if machine["gpus"]:
        return PrecisionChoice("mixed_float16", f"GPU {machine['gpus'][0]}")
    if "amx_bf16" in flags:
        return PrecisionChoice("mixed_bfloat16", f"{cpu} multiplies bf16 in AMX tiles (amx_bf16)")
    if "avx512_bf16" not in flags:
        return PrecisionChoice(
            "float32", f"{cpu} has no native bf16 (no avx512_bf16/amx_bf16): bf16 would be emulated"
        )
    measurement = bf16_speedup(REFERENCE_SHAPES if shapes is None else shapes)
    ratios = measurement["ratios"]
    timed = (
        f"{cpu} has avx512_bf16 without AMX; bf16 ran the model's matmuls at "
        f"{measurement['speedup']:.2f}x the float32 speed (median of {len(ratios)} interleaved "
        f"rounds, {min(ratios):.2f}-{max(ratios):.2f})"
    )
    if measurement["speedup"] >= MIN_BF16_SPEEDUP:
        reason = f"{timed}, >= the {MIN_BF16_SPEEDUP}x asked of bf16"
        return PrecisionChoice("mixed_bfloat16", reason, measurement=measurement)
    reason = f"{timed}, under the {MIN_BF16_SPEEDUP}x asked of bf16"
    return PrecisionChoice("float32", reason, measurement=measurement)


def resolve_precision(requested, machine=None, shapes=None):
    """The policy for a `--precision` value, with a warning for bf16 on a CPU that emulates it.

    Args:
        requested: one of `PRECISIONS`.
        machine: as in `choose_precision`.
        shapes: as in `choose_precision` (used by `auto` only).

    Returns:
        A `PrecisionChoice`.

    Example:
        >>> resolve_precision("auto").policy  # on an AVX2-only CPU  # doctest: +SKIP
        'float32'
    """
    if requested not in PRECISIONS:
        raise ValueError(f"unknown precision {requested!r}; choose from {', '.join(PRECISIONS)}")
    if requested == "auto":
        return choose_precision(machine, shapes)
    choice = PrecisionChoice(requested, "requested")
    machine = describe_machine() if machine is None else machine
    if requested == "mixed_bfloat16" and not machine["gpus"] and not machine["native_bf16"]:
        choice.warning = (
            f"mixed_bfloat16 on {machine['cpu_model']} without native bf16 (no avx512_bf16/"
            "amx_bf16): oneDNN emulates bf16 and training usually runs slower than in float32 "
            "(README, issue 17); --precision auto picks float32"
        )
    return choice
