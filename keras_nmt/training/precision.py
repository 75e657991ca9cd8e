"""`--precision auto`: the Keras dtype policy this machine trains fastest with, and why.

bf16 pays off on a CPU only where it multiplies bf16 in hardware (AVX512_BF16, AMX): elsewhere
oneDNN emulates it and the reference Transformer trained 20-40x slower than in float32 (issue
17, a 2-core AMD EPYC with AVX2 only). A GPU trains in float16 with loss scaling. The choice reads
the CPU's flags only, never a timing: a timed bf16/float32 matmul on such a CPU measured anywhere
from 0.42x to 1.47x on an idle machine (512-square, 8 tries), so a measured choice would give one
machine different policies, and one seed different weights, from run to run.
"""

import dataclasses

from keras_nmt.hardware.machine import NATIVE_BF16_FLAGS, describe_machine
from keras_nmt.training.train_config import PRECISIONS


@dataclasses.dataclass
class PrecisionChoice:
    """A resolved `--precision`: the Keras policy, why it was chosen, and a warning if any."""

    policy: str
    reason: str
    warning: str | None = None


def choose_precision(machine=None):
    """The policy `auto` picks: float16 on a GPU, bf16 on a CPU that multiplies it natively.

    Args:
        machine: `keras_nmt.hardware.machine.describe_machine()` (tests pass a fake one).

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
    return PrecisionChoice(
        "float32", f"{cpu} has no native bf16 (no avx512_bf16/amx_bf16): bf16 would be emulated")


def resolve_precision(requested, machine=None):
    """The policy for a `--precision` value, with a warning for bf16 on a CPU that emulates it.

    Args:
        requested: one of `PRECISIONS`.
        machine: as in `choose_precision`.

    Returns:
        A `PrecisionChoice`.

    Example:
        >>> resolve_precision("auto").policy  # on an AVX2-only CPU  # doctest: +SKIP
        'float32'
    """
    if requested not in PRECISIONS:
        raise ValueError(f"unknown precision {requested!r}; choose from {', '.join(PRECISIONS)}")
    if requested == "auto":
        return choose_precision(machine)
    choice = PrecisionChoice(requested, "requested")
    machine = describe_machine() if machine is None else machine
    if requested == "mixed_bfloat16" and not machine["gpus"] and not machine["native_bf16"]:
        choice.warning = (
            f"mixed_bfloat16 on {machine['cpu_model']} without native bf16 (no avx512_bf16/"
            "amx_bf16): oneDNN emulates bf16 and training usually runs slower than in float32 "
            "(README, issue 17); --precision auto picks float32"
        )
    return choice
