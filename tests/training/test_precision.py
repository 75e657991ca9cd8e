"""`--precision auto` on faked machines and faked timings: every outcome, and the bf16 warning."""

import json

import pytest

from keras_nmt.workshop.hardware import peak
from keras_nmt.workshop.hardware.machine import describe_machine, machine_summary
from keras_nmt.workshop.run import precision
from keras_nmt.workshop.run.precision import (
    MIN_BF16_SPEEDUP,
    REFERENCE_SHAPES,
    choose_precision,
    resolve_precision,
    step_matmul_shapes,
)
from keras_nmt.workshop.run.run_lifecycle import PRECISION_FILE, record_precision, run_precision
from keras_nmt.workshop.run.train_config import TrainConfig
from keras_nmt.workshop.timing import Timing

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
# AVX512_BF16 without AMX: bf16 trained 0.60-0.66x as fast as float32 on such an Intel Xeon,
# 1.3-1.9x on an AMD Zen 4.
AVX512_BF16_CPUINFO = """processor\t: 0
model name\t: Intel(R) Xeon(R) Processor
flags\t\t: fpu avx2 fma avx512f avx512_bf16 avx512_fp16 avx512_vnni
"""


def fake_timing(monkeypatch, speedup):
    """Replaces the timing by one that measures `speedup`; returns the shapes it was asked."""
    asked = []

    def measure(shapes):
        asked.append(shapes)
        return {"speedup": speedup, "ratios": [speedup - 0.25, speedup, speedup + 0.25],
                "float32_seconds": 0.02 * speedup, "bfloat16_seconds": 0.02}  # fmt: skip

    monkeypatch.setattr(precision, "bf16_speedup", measure)
    return asked


def no_timing(shapes):
    raise AssertionError("the flags decide this machine: nothing may be timed")


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


def test_auto_picks_bfloat16_on_amx_without_timing(monkeypatch):
    monkeypatch.setattr(precision, "bf16_speedup", no_timing)
    choice = choose_precision(describe_machine(AMX_CPUINFO, gpus=[]))
    assert choice.policy == "mixed_bfloat16" and choice.measurement is None
    assert "AMX tiles (amx_bf16)" in choice.reason


def test_auto_picks_float32_without_a_bf16_flag_from_the_flags_alone(monkeypatch):
    # Nothing is timed (a timed bf16 matmul there swung 0.42x-1.47x): the same machine always
    # gets the same policy, so the same seed gives the same weights.
    monkeypatch.setattr(precision, "bf16_speedup", no_timing)
    monkeypatch.setattr(precision, "describe_machine",
                        lambda: describe_machine(AVX2_CPUINFO, gpus=[]))
    choices = [choose_precision() for _ in range(3)]
    assert [c.policy for c in choices] == ["float32"] * 3
    assert "AMD EPYC 7B13 has no native bf16" in choices[0].reason


@pytest.mark.parametrize(
    ("speedup", "policy"),
    [
        (1.6, "mixed_bfloat16"),  # bf16 clearly faster (AMD Zen 4)
        (MIN_BF16_SPEEDUP, "mixed_bfloat16"),  # just clear enough
        (0.65, "float32"),  # bf16 slower (the Intel Xeon without AMX)
        (1.10, "float32"),  # faster, but within the margin
        (1.0, "float32"),
    ],
)
def test_auto_times_the_model_shapes_on_avx512_bf16_without_amx(monkeypatch, speedup, policy):
    asked = fake_timing(monkeypatch, speedup)
    shapes = [(2048, 256, 1024)]
    choice = choose_precision(describe_machine(AVX512_BF16_CPUINFO, gpus=[]), shapes)
    assert asked == [shapes]  # the model's own shapes, timed once
    assert choice.policy == policy
    assert choice.measurement["speedup"] == speedup
    assert f"at {speedup:.2f}x the float32 speed" in choice.reason
    assert f"{speedup - 0.25:.2f}-{speedup + 0.25:.2f}" in choice.reason  # the rounds' spread
    assert "avx512_bf16 without AMX" in choice.reason


def test_auto_without_shapes_times_the_reference_transformer(monkeypatch):
    asked = fake_timing(monkeypatch, 0.65)
    assert resolve_precision("auto", describe_machine(AVX512_BF16_CPUINFO, gpus=[])).policy == (
        "float32")
    assert asked == [REFERENCE_SHAPES]


def test_auto_picks_float16_on_a_gpu(monkeypatch):
    monkeypatch.setattr(precision, "bf16_speedup", no_timing)
    machine = describe_machine(AVX512_BF16_CPUINFO, gpus=["NVIDIA H100"])
    assert choose_precision(machine).policy == "mixed_float16"


def test_the_timing_and_choice_are_recorded_and_a_resumed_run_reuses_them(tmp_path, monkeypatch):
    fake_timing(monkeypatch, 1.6)
    monkeypatch.setattr(precision, "describe_machine",
                        lambda: describe_machine(AVX512_BF16_CPUINFO, gpus=[]))
    choice = run_precision(tmp_path, "auto", [(64, 8, 8)])
    record_precision(tmp_path, choice)
    recorded = json.loads((tmp_path / PRECISION_FILE).read_text())
    assert recorded["policy"] == "mixed_bfloat16" and recorded["measurement"]["speedup"] == 1.6
    # Resumed on a machine that would now time otherwise: the recorded choice stands.
    fake_timing(monkeypatch, 0.65)
    resumed = run_precision(tmp_path, "auto", [(64, 8, 8)])
    assert resumed.policy == "mixed_bfloat16" and resumed.measurement["speedup"] == 1.6
    assert resumed.reason.startswith("recorded when the run started: ")


def test_step_shapes_follow_the_model_and_its_batch():
    transformer = TrainConfig(model="transformer", d_model=256, ff_dim=1024, batch_size=64,
                              tokenizer="subword", vocab_size=8000)  # fmt: skip
    assert step_matmul_shapes(transformer) == [
        (2048, 256, 256), (2048, 256, 1024), (2048, 1024, 256), (2048, 256, 8000)]
    assert REFERENCE_SHAPES == step_matmul_shapes(transformer)
    lstm = TrainConfig(model="luong", units=256, embedding_dim=128, batch_tokens=4096,
                       tokenizer="char")  # fmt: skip
    assert step_matmul_shapes(lstm) == [
        (128, 128, 1024), (128, 256, 1024), (4096, 256, 256), (4096, 256, 128)]


def test_the_timing_is_measured_once_per_process_and_shapes(monkeypatch):
    calls = []
    monkeypatch.setattr(precision, "measure_bf16_speedup",
                        lambda shapes: calls.append(shapes) or {"speedup": 1.0})
    precision._cached_bf16_speedup.cache_clear()
    try:
        for _ in range(2):
            assert precision.bf16_speedup([(8, 4, 4)]) == {"speedup": 1.0}
        precision.bf16_speedup([[16, 4, 4]])
    finally:
        precision._cached_bf16_speedup.cache_clear()
    assert calls == [[(8, 4, 4)], [(16, 4, 4)]]


def test_bf16_speedup_alternates_the_dtypes_and_takes_the_median_round(monkeypatch):
    # Durations in call order: the warm-ups (float32, bf16: 0.1 s, so one call per side), then
    # rounds of float32 0.2 s against bf16 0.1 s; the second round starts with bf16, which
    # another process slowed to 0.4 s.
    durations = iter([0.1, 0.1, 0.2, 0.1, 0.4, 0.2, 0.2, 0.1])
    monkeypatch.setattr(peak, "time_call", lambda function, warmup=None: Timing((next(durations),)))
    result = peak.measure_bf16_speedup([(4, 8, 2)], rounds=3, min_seconds=0.05)
    assert result["ratios"] == pytest.approx([2.0, 0.2 / 0.4, 2.0])
    assert result["speedup"] == pytest.approx(2.0)  # the disturbed round does not move it
    assert result["float32_seconds"] == pytest.approx(0.2)
    assert result["bfloat16_seconds"] == pytest.approx(0.1)
    assert result["calls"] == 1 and result["rounds"] == 3 and result["shapes"] == [[4, 8, 2]]


def test_bf16_speedup_measures_real_products():
    result = peak.measure_bf16_speedup([(32, 16, 8), (8, 16, 32)], rounds=3, min_seconds=0.001)
    assert len(result["ratios"]) == 3 and all(ratio > 0 for ratio in result["ratios"])
    assert result["float32_seconds"] > 0 and result["bfloat16_seconds"] > 0
    assert result["speedup"] == sorted(result["ratios"])[1]


def test_explicit_bfloat16_on_an_emulating_cpu_warns():
    choice = resolve_precision("mixed_bfloat16", describe_machine(AVX2_CPUINFO, gpus=[]))
    assert choice.policy == "mixed_bfloat16"  # the user's choice stands
    assert "without native bf16" in choice.warning and "auto picks float32" in choice.warning
    native = resolve_precision("mixed_bfloat16", describe_machine(AMX_CPUINFO, gpus=[]))
    assert native.warning is None
    assert resolve_precision("float32", describe_machine(AVX2_CPUINFO, gpus=[])).policy == "float32"
    with pytest.raises(ValueError, match="unknown precision"):
        resolve_precision("float64")
