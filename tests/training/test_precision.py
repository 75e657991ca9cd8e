"""`--precision auto` from a faked machine: both outcomes, the GPU case and the bf16 warning."""

import pytest

from keras_nmt.hardware.machine import describe_machine, machine_summary
from keras_nmt.training import precision
from keras_nmt.training.precision import choose_precision, resolve_precision

AVX2_CPUINFO = """processor\t: 0
model name\t: AMD EPYC 7B13
flags\t\t: fpu sse2 avx fma avx2 bmi2

processor\t: 1
model name\t: AMD EPYC 7B13
flags\t\t: fpu sse2 avx fma avx2 bmi2
"""
AMX_CPUINFO = """processor\t: 0
model name\t: Intel(R) Xeon(R) Platinum 8480+
flags\t\t: fpu avx2 fma avx512f avx512_bf16 amx_bf16 amx_tile amx_int8
"""


def test_machine_description_names_the_cpu_and_its_isa_flags():
    avx2 = describe_machine(AVX2_CPUINFO, gpus=[])
    assert avx2["cpu_model"] == "AMD EPYC 7B13"
    assert avx2["isa_flags"] == ["avx2", "fma"]
    assert not avx2["native_bf16"]
    amx = describe_machine(AMX_CPUINFO, gpus=[])
    assert amx["isa_flags"] == ["avx2", "fma", "avx512f", "avx512_bf16", "amx_tile", "amx_bf16"]
    assert amx["native_bf16"]
    assert machine_summary(avx2).startswith("AMD EPYC 7B13, ")
    assert machine_summary(avx2).endswith("avx2 fma (no native bf16)")
    assert describe_machine("", gpus=[])["cpu_model"] == "unknown CPU"


def test_auto_picks_bfloat16_on_a_cpu_with_native_bf16():
    choice = choose_precision(describe_machine(AMX_CPUINFO, gpus=[]))
    assert choice.policy == "mixed_bfloat16"
    assert "avx512_bf16, amx_bf16" in choice.reason


def test_auto_picks_float32_on_an_avx2_cpu_from_its_flags_alone(monkeypatch):
    # No timing decides it (a timed bf16 matmul there swings around 1x): the same machine always
    # gets the same policy, so the same seed gives the same weights.
    monkeypatch.setattr(precision, "describe_machine",
                        lambda: describe_machine(AVX2_CPUINFO, gpus=[]))
    choices = [choose_precision() for _ in range(3)]
    assert [c.policy for c in choices] == ["float32"] * 3
    assert "AMD EPYC 7B13 has no native bf16" in choices[0].reason


def test_auto_picks_float16_on_a_gpu():
    machine = describe_machine(AVX2_CPUINFO, gpus=["NVIDIA H100"])
    assert choose_precision(machine).policy == "mixed_float16"


def test_explicit_bfloat16_on_an_emulating_cpu_warns():
    choice = resolve_precision("mixed_bfloat16", describe_machine(AVX2_CPUINFO, gpus=[]))
    assert choice.policy == "mixed_bfloat16"  # the user's choice stands
    assert "without native bf16" in choice.warning and "auto picks float32" in choice.warning
    native = resolve_precision("mixed_bfloat16", describe_machine(AMX_CPUINFO, gpus=[]))
    assert native.warning is None
    assert resolve_precision("float32", describe_machine(AVX2_CPUINFO, gpus=[])).policy == "float32"
    with pytest.raises(ValueError, match="unknown precision"):
        resolve_precision("float64")
