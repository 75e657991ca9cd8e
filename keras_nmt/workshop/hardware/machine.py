"""What machine a measurement ran on: CPU model, the ISA flags that decide matmul speed, GPUs."""

import os
from pathlib import Path

import tensorflow as tf

CPUINFO = Path("/proc/cpuinfo")
# The flags (Linux /proc/cpuinfo names) that decide fp32/bf16/fp16 matmul speed on x86.
ISA_FLAGS = ("avx2", "fma", "avx512f", "avx512_bf16", "avx512_fp16", "amx_tile", "amx_bf16")
# A CPU multiplies bf16 natively with either of these; without them oneDNN emulates bf16.
NATIVE_BF16_FLAGS = ("avx512_bf16", "amx_bf16")


def _first_field(cpuinfo, name):
    for line in cpuinfo.splitlines():
        key, _, value = line.partition(":")
        if key.strip() == name:
            return value.strip()
    return ""


def gpu_names():
    """Names of the visible GPUs (e.g. `["NVIDIA H100 80GB HBM3"]`), `[]` on a CPU-only host."""
    names = []
    for device in tf.config.list_physical_devices("GPU"):
        details = tf.config.experimental.get_device_details(device)
        names.append(details.get("device_name", device.name))
    return names


def describe_machine(cpuinfo=None, gpus=None):
    """The machine as a dict for benchmark records and the pages of docs/results.

    `cpuinfo` (/proc/cpuinfo text) and `gpus` (names) default to this machine's; tests pass fakes.

    Returns:
        `{"cpu_model", "cpu_count", "isa_flags" (those of ISA_FLAGS present), "native_bf16",
        "gpus"}`.

    Example:
        >>> describe_machine()["isa_flags"]  # doctest: +SKIP
        ['avx2', 'fma']
    """
    if cpuinfo is None:
        cpuinfo = CPUINFO.read_text() if CPUINFO.exists() else ""  # none on macOS, Windows
    flags = set(_first_field(cpuinfo, "flags").split())
    return {
        "cpu_model": _first_field(cpuinfo, "model name") or "unknown CPU",
        "cpu_count": os.cpu_count(),
        "isa_flags": [flag for flag in ISA_FLAGS if flag in flags],
        "native_bf16": any(flag in flags for flag in NATIVE_BF16_FLAGS),
        "gpus": gpu_names() if gpus is None else list(gpus),
    }


def machine_summary(machine):
    """One line naming the machine, e.g. `AMD EPYC, 2 CPUs, avx2 fma (no native bf16)`."""
    flags = " ".join(machine["isa_flags"]) or "no AVX2/AVX-512/AMX"
    bf16 = "native bf16" if machine["native_bf16"] else "no native bf16"
    gpus = f", GPU {', '.join(machine['gpus'])}" if machine["gpus"] else ""
    return f"{machine['cpu_model']}, {machine['cpu_count']} CPUs, {flags} ({bf16}){gpus}"
