"""`--precision auto`: the Keras dtype policy this machine trains fastest with, and why.

bf16 pays off on a CPU only where it multiplies bf16 in hardware (AVX512_BF16, AMX): elsewhere
oneDNN emulates it and the reference Transformer trained 20-40x slower than in float32 (issue
17, a 2-core AMD EPYC with AVX2 only). A GPU trains in float16 with loss scaling.
"""

import dataclasses
import functools

from keras_nmt.hardware.machine import NATIVE_BF16_FLAGS, describe_machine
from keras_nmt.hardware.peak import measure_peak_matmul

PRECISIONS = ("auto", "float32", "mixed_bfloat16", "mixed_float16")
# bf16 without native support must beat float32 by this much: a small matmul timed a few times
# on a shared machine is noisy.
MIN_BF16_SPEEDUP = 1.1


@dataclasses.dataclass
class PrecisionChoice:
    """A resolved `--precision`: the Keras policy, why it was chosen, and a warning if any."""

    policy: str
    reason: str
    warning: str | None = None


@functools.cache
def measure_bf16_speedup(size=512, repeats=3):
    """bf16 / float32 matmul FLOP/s of a `size`-square `tf.matmul` (once per process).

    Well under a second on an AVX2 CPU at the default size (the bf16 product is the slow one).
    """
    float32 = measure_peak_matmul("float32", size=size, repeats=repeats)
    bfloat16 = measure_peak_matmul("bfloat16", size=size, repeats=repeats)
    return bfloat16["flops_per_second"] / float32["flops_per_second"]


def choose_precision(machine=None, measure_speedup=measure_bf16_speedup):
    """The policy `auto` picks: float16 on a GPU, bf16 on a CPU that is fast at it, else float32.

    Args:
        machine: `keras_nmt.hardware.machine.describe_machine()` (tests pass a fake one).
        measure_speedup: `() -> bf16 / float32 matmul speed`, called only for a CPU without
            native bf16.

    Returns:
        A `PrecisionChoice`.
    """
    machine = describe_machine() if machine is None else machine
    cpu = machine["cpu_model"]
    if machine["gpus"]:
        return PrecisionChoice("mixed_float16", f"GPU {machine['gpus'][0]}")
    if machine["native_bf16"]:
        flags = [flag for flag in machine["isa_flags"] if flag in NATIVE_BF16_FLAGS]
        reason = f"{cpu} multiplies bf16 natively ({', '.join(flags)})"
        return PrecisionChoice("mixed_bfloat16", reason)
    speedup = measure_speedup()
    measured = f"a measured bf16 matmul runs at {speedup:.2f}x the float32 speed"
    if speedup >= MIN_BF16_SPEEDUP:
        return PrecisionChoice("mixed_bfloat16", f"{cpu} lacks native bf16 but {measured}")
    reason = f"{cpu} has no native bf16 (no avx512_bf16/amx_bf16) and {measured}"
    return PrecisionChoice("float32", reason)


def resolve_precision(requested, machine=None, measure_speedup=measure_bf16_speedup):
    """The policy for a `--precision` value, with a warning for bf16 on a CPU that emulates it.

    Args:
        requested: one of `PRECISIONS`.
        machine: as in `choose_precision`.
        measure_speedup: as in `choose_precision`.

    Returns:
        A `PrecisionChoice`.

    Example:
        >>> resolve_precision("auto").policy  # on an AVX2-only CPU  # doctest: +SKIP
        'float32'
    """
    if requested not in PRECISIONS:
        raise ValueError(f"unknown precision {requested!r}; choose from {', '.join(PRECISIONS)}")
    if requested == "auto":
        return choose_precision(machine, measure_speedup)
    choice = PrecisionChoice(requested, "requested")
    machine = describe_machine() if machine is None else machine
    if requested == "mixed_bfloat16" and not machine["gpus"] and not machine["native_bf16"]:
        speedup = measure_speedup()
        if speedup < MIN_BF16_SPEEDUP:
            choice.warning = (
                f"mixed_bfloat16 on {machine['cpu_model']} without native bf16: a bf16 matmul "
                f"measured {1 / speedup:.1f}x slower than float32 here (whole training steps lose "
                "more: bf16 element-wise ops are emulated too); --precision auto picks float32"
            )
    return choice
