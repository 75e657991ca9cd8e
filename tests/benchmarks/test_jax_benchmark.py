"""`keras-nmt benchmark --backend jax`: synthetic batches, no TensorFlow imported, quick runs."""

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from keras_nmt.special_ids import END_ID, START_ID
from keras_nmt.workshop.benchmarks.speed import (
    random_rows,
    source_batches,
    synthetic_lengths,
    token_batches,
)

REPO = Path(__file__).resolve().parents[2]

# Any import of tensorflow raises: what a machine with JAX but no TensorFlow would do.
BLOCK_TENSORFLOW = """
import importlib.abc, sys
class NoTensorFlow(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] == "tensorflow":
            raise ImportError("tensorflow is blocked in this test")
sys.meta_path.insert(0, NoTensorFlow())
"""


def run_without_tensorflow(code, timeout=900, keras_backend="jax"):
    pytest.importorskip("jax")
    env = {**os.environ, "KERAS_BACKEND": keras_backend, "PYTHONPATH": str(REPO),
           # Tiny models: compilation dominates, so a cheaper one (as in `make test`).
           "XLA_FLAGS": "--xla_backend_optimization_level=0 "
                        "--xla_llvm_disable_expensive_passes=true"}
    return subprocess.run(
        [sys.executable, "-c", BLOCK_TENSORFLOW + code],
        cwd=REPO, env=env, capture_output=True, text=True, timeout=timeout,
    )


def test_synthetic_batches_respect_the_token_budget_and_the_data_format():
    rng = np.random.default_rng(0)
    sources, targets = synthetic_lengths(5000, rng, median=20.0, max_length=96)
    assert 18 <= np.median(targets) <= 22 and targets.max() <= 96 and targets.min() >= 2
    batches = token_batches(sources, targets, 2048, 30, 40, rng)
    assert sum(len(t) for _, t in batches) > 0.95 * len(targets)  # few dropped by rounding
    for inputs, target in batches:
        encoder, decoder = inputs["encoder_tokens"], inputs["decoder_tokens"]
        batch, width = len(target), max(encoder.shape[1], target.shape[1])
        assert batch * width <= 2048 or batch == 1
        assert encoder.shape[1] % 8 == 0 and target.shape[1] % 8 == 0
        assert (decoder[:, 0] == START_ID).all()
        lengths = (target != 0).sum(axis=1)
        np.testing.assert_array_equal((decoder != 0).sum(axis=1), lengths)
        assert (target[np.arange(batch), lengths - 1] == END_ID).all()
        np.testing.assert_array_equal(decoder[:, 1:][target[:, :-1] != END_ID],
                                      target[:, :-1][target[:, :-1] != END_ID])
        assert encoder.max() < 30 and target.max() < 40
    ids = source_batches(random_rows(sources[:100], 30, rng), batch_size=64)
    assert [len(x) for x in ids] == [64, 36]
    np.testing.assert_array_equal((ids[1] != 0).sum(axis=1), sources[64:100])


@pytest.fixture(scope="module")
def quick_run(tmp_path_factory):
    """One fresh JAX process for two tests (each pays JAX's import and compilations again): it
    imports the benchmark modules, the models and decoding and prints whether TensorFlow came
    with them, then runs `apps/benchmark_jax.py` (the developers' guide's command) quickly with
    a few flags. Returns the finished process and its folder (`bench.json`, `bench.md`)."""
    folder = tmp_path_factory.mktemp("quick")
    output = folder / "bench.json"
    code = (
        "import keras_nmt.workshop.benchmarks.flops, keras_nmt.workshop.benchmarks.jax_benchmark\n"
        "import keras_nmt.models, keras_nmt.decoding\n"
        "print('tensorflow' in sys.modules, flush=True)\n"
        "import runpy; sys.argv = ['benchmark_jax.py', '--quick', '--models', 'luong',"
        # float32 JAX training: tests/models/test_recurrent_parts.py (marked jax)
        " '--precisions', 'mixed_bfloat16', '--train-steps', '3', '--decode-sentences', '24',"
        f" '--output-json', {str(output)!r}, '--output-md', {str(folder / 'bench.md')!r}]\n"
        "runpy.run_path('apps/benchmark_jax.py', run_name='__main__')"
    )
    return run_without_tensorflow(code), folder


def test_benchmark_modules_import_without_tensorflow(quick_run):
    result, _ = quick_run
    assert result.stdout.splitlines()[:1] == ["False"], result.stderr[-2000:]


def test_quick_run_of_the_apps_shim_under_jax_without_tensorflow(quick_run):
    """`apps/benchmark_jax.py` (the developers' guide's command) is `benchmark --backend jax`.

    `--quick` sets defaults: a flag given with it is measured, not replaced (it was, silently:
    2 steps and 16 sentences whatever was asked). One run checks both.
    """
    result, folder = quick_run
    assert result.returncode == 0, result.stdout[-2000:] + result.stderr[-2000:]
    records = json.loads((folder / "bench.json").read_text())
    train = [r for r in records if r["section"] == "train"]
    decode = [r for r in records if r["section"] == "decode"]
    assert all("error" not in r for r in records), [r["error"] for r in records if "error" in r]
    assert len(train) == 2  # APIs
    assert all(r["tokens_per_second"] > 0 and 0 < r["mfu"] < 1 for r in train)
    assert {r["strategy"] for r in decode} == {"greedy", "beam"} and len(decode) == 4
    assert all(r["sentences_per_second"] > 0 for r in decode)
    assert all(r["backend"] == "jax" for r in records)
    assert "| luong | subclassed | mixed_bfloat16 |" in (folder / "bench.md").read_text()
    # The flags given win over --quick's defaults; --quick's own warm-up stays.
    assert all((r["steps"], r["warmup_steps"], r["preset"]) == (3, 2, "quick") for r in train)
    assert all(r["sentences"] == 24 for r in decode)


def test_the_benchmark_command_sets_jax_itself_and_imports_no_tensorflow(tmp_path):
    """`keras-nmt benchmark --backend jax` sets KERAS_BACKEND before Keras is imported, even
    where the environment names another backend."""
    output = tmp_path / "bench.json"
    code = (
        "from keras_nmt.workshop.cli import main\n"
        "status = main(['benchmark', '--backend', 'jax', '--quick', '--only', 'decode',"
        " '--models', 'lstm', '--apis', 'functional', '--precisions', 'float32',"
        f" '--output-json', {str(output)!r}])\n"
        "print(status, 'tensorflow' in sys.modules)"
    )
    result = run_without_tensorflow(code, keras_backend="tensorflow")
    assert result.returncode == 0, result.stdout[-2000:] + result.stderr[-2000:]
    assert result.stdout.splitlines()[-1] == "0 False"
    records = json.loads(output.read_text())
    assert [(r["section"], r["strategy"], r["backend"]) for r in records] == [
        ("decode", "greedy", "jax"), ("decode", "beam", "jax")]


def test_the_command_offers_the_presets_and_policies_of_the_jax_benchmark():
    from keras_nmt.workshop.benchmarks import JAX_PRECISIONS, JAX_PRESETS
    from keras_nmt.workshop.benchmarks.jax_benchmark import PRESETS
    from keras_nmt.workshop.benchmarks.speed import COMPUTE_DTYPES

    assert JAX_PRESETS == tuple(PRESETS) and JAX_PRECISIONS == tuple(COMPUTE_DTYPES)


def test_markdown_writes_a_row_per_record_and_failures_in_the_first_number_column():
    from keras_nmt.workshop.benchmarks.jax_benchmark import markdown

    records = [
        {"section": "train", "model": "lstm", "api": "functional", "precision": "float32",
         "tokens_per_second": 12345.6, "mfu": 0.1234, "mean_step_seconds": 0.0123},
        {"section": "decode", "model": "lstm", "api": "functional", "precision": "float32",
         "strategy": "beam", "beam_size": 4, "error": "out of memory"},
    ]
    lines = markdown(records, "CPU").splitlines()
    assert lines[3:5] == ["|---|---|---|---:|---:|---:|",
                          "| lstm | functional | float32 | 12,346 | 12.3% | 12.3 |"]
    assert lines[-1] == "| lstm | functional | float32 | beam 4 | failed: out of memory |  |"
