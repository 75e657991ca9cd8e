"""The benchmark report: section tables and train ratios from records (no measuring)."""

from keras_nmt.workshop.benchmarks.sections import markdown_report

MACHINE = {"cpu_model": "AMD EPYC", "cpu_count": 2, "isa_flags": ["avx2", "fma"],
           "native_bf16": False, "gpus": []}
ENVIRONMENT = {"machine": MACHINE, "cpu_count": 2, "tf_version": "2.21", "keras_version": "3",
               "seed": 0}
TRAIN = {
    "section": "train", "model": "lstm", "api": "functional", "precision": "float32",
    "jit_compile": False, "run_eagerly": False, "tokens_per_second": 1000.0,
    "train_flops_per_token": 1e6, "achieved_flops_per_second": 1e9,
    "peak_flops_per_second": 1e11, "mfu": 0.01, **ENVIRONMENT,
}


def test_train_table_ratios_and_failures():
    records = [
        TRAIN,
        {**TRAIN, "api": "subclassed", "tokens_per_second": 800.0},
        {**TRAIN, "jit_compile": True, "tokens_per_second": 1200.0},
        {**TRAIN, "model": "luong", "error": "Boom: x"},
    ]
    lines = markdown_report(records).splitlines()
    assert lines[:2] == ["### train", ""]
    assert "| lstm | functional | float32 | off | no | 1,000 | 0.0010 | 1.00 | 100.0 | 1.00% |" \
        in lines
    assert "| luong | functional | float32 | off | no | failed: Boom: x |  |  |  |  |" in lines
    assert "| lstm subclassed float32 XLA off | subclassed / functional | 0.80 |" in lines
    assert "| lstm functional float32 XLA on | XLA on / off | 1.20 |" in lines
    assert lines[-1] == (
        "AMD EPYC, 2 CPUs, avx2 fma (no native bf16), TensorFlow 2.21, Keras 3, seed 0."
    )


def test_sections_in_order_and_empty_report():
    decode = {
        "section": "decode", "model": "lstm", "api": "functional", "weights": "untrained",
        "beam_size": 4, "sentences_per_second": 10.0, "ms_per_sentence": 100.0,
        "time_ratio_to_greedy": 2.5, "mean_output_length": 5.0, "mean_source_length": 4.0,
        **ENVIRONMENT,
    }
    text = markdown_report([decode, TRAIN])
    assert text.index("### train") < text.index("### decode")
    assert "| lstm | functional | untrained | beam 4 | 10.0 | 100.00 | 2.50 | 5.0 | 4.0 |" in text
    assert markdown_report([]) == ""


def test_profile_table_shares_and_failures():
    shares = {"forward": 0.25, "loss and metrics": 0.05, "backward": 0.6,
              "Adam and clipnorm": 0.1}
    profile = {
        "section": "profile", "model": "transformer", "api": "functional",
        "precision": "float32", "step_seconds": 0.2, "shares": shares, "mfu_forward": 0.5,
        "mfu_backward": None, "mfu_step": 0.45, "output_projection_flop_share": 0.3,
        **ENVIRONMENT,
    }
    failed = {"section": "profile", "model": "lstm", "api": "functional",
              "precision": "float32", "error": "Boom: x", **ENVIRONMENT}
    lines = markdown_report([failed, profile]).splitlines()
    assert lines[:2] == ["### profile", ""]
    assert lines[4:6] == [
        "| transformer | functional | float32 | 200 | 25% | 5% | 60% | 10% | 50% | n/a | 45% "
        "| 30% |",
        "| lstm | functional | float32 | failed: Boom: x |  |  |  |  |  |  |  |  |",
    ]
