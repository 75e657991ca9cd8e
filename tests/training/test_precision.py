"""`--precision auto` from a faked machine: both outcomes, the GPU case and the bf16 warning."""

import pytest

from keras_nmt.hardware.machine import describe_machine, machine_summary
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


def never_measured():
    raise AssertionError("the bf16 matmul must not be measured here")


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


def test_auto_picks_bfloat16_on_a_cpu_with_native_bf16_without_measuring():
    choice = choose_precision(describe_machine(AMX_CPUINFO, gpus=[]), never_measured)
    assert choice.policy == "mixed_bfloat16"
    assert "avx512_bf16, amx_bf16" in choice.reason


def test_auto_picks_float32_on_an_avx2_cpu_where_bf16_measures_slower():
    choice = choose_precision(describe_machine(AVX2_CPUINFO, gpus=[]), lambda: 0.05)
    assert choice.policy == "float32"
    assert "AMD EPYC 7B13 has no native bf16" in choice.reason
    assert "0.05x" in choice.reason


def test_auto_picks_bfloat16_where_the_measured_matmul_says_it_is_faster():
    choice = choose_precision(describe_machine(AVX2_CPUINFO, gpus=[]), lambda: 1.8)
    assert choice.policy == "mixed_bfloat16"
    assert "1.80x" in choice.reason


def test_auto_picks_float16_on_a_gpu():
    machine = describe_machine(AVX2_CPUINFO, gpus=["NVIDIA H100"])
    assert choose_precision(machine, never_measured).policy == "mixed_float16"


def test_explicit_bfloat16_on_an_emulating_cpu_warns_with_the_measured_slowdown():
    choice = resolve_precision("mixed_bfloat16", describe_machine(AVX2_CPUINFO, gpus=[]),
                               lambda: 0.04)
    assert choice.policy == "mixed_bfloat16"  # the user's choice stands
    assert "25.0x slower" in choice.warning
    native = resolve_precision("mixed_bfloat16", describe_machine(AMX_CPUINFO, gpus=[]),
                               never_measured)
    assert native.warning is None
    assert resolve_precision("float32", describe_machine(AVX2_CPUINFO, gpus=[]),
                             never_measured).policy == "float32"
    with pytest.raises(ValueError, match="unknown precision"):
        resolve_precision("float64")
