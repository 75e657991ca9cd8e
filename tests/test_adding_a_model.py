"""Every registered model is in each place that CONTRIBUTING.md's checklist names: its twins and
their test file, its registry entry, its configurations entries, its FLOP counter and its row of
the README's model table."""

from pathlib import Path

import pytest

from keras_nmt.benchmarks.flops import forward_flops
from keras_nmt.benchmarks.jax_benchmark import PRESETS
from keras_nmt.models.configurations import (
    MODEL_ARGUMENTS,
    REFERENCE_CONFIGURATIONS,
    TRAINING_RECIPES,
    model_options,
)
from keras_nmt.models.registry import ALIGNED_MODEL_NAMES, APIS, MODEL_NAMES, model_class

ROOT = Path(__file__).resolve().parents[1]


def test_the_model_tables_list_exactly_the_registered_models():
    # Every model has arguments and a recipe; the reference sizes are the seq2seq models' (the
    # benchmarks and the translation comparisons), which the aligned ones (CTC) are not.
    for table in (MODEL_ARGUMENTS, TRAINING_RECIPES):
        assert [name for name in table if name not in ALIGNED_MODEL_NAMES] == list(MODEL_NAMES)
        assert set(ALIGNED_MODEL_NAMES) <= set(table)
    for name, models in REFERENCE_CONFIGURATIONS.items():
        assert list(models) == list(MODEL_NAMES), name
    # The sizes of the JAX benchmark and of the tests' tiny models are configurations too.
    used = {preset["configuration"] for preset in PRESETS.values()} | {"tiny"}
    assert used <= set(REFERENCE_CONFIGURATIONS)


@pytest.mark.parametrize("name", MODEL_NAMES)
def test_every_model_has_a_flop_counter(name):
    config = {"source_vocab_size": 30, "target_vocab_size": 40, **model_options(name)}
    assert forward_flops(name, config, [3, 5], [4, 2]) > 0


@pytest.mark.parametrize("name", MODEL_NAMES)
def test_every_model_has_its_twins_their_tests_and_a_readme_row(name):
    files = [model_class(name, api).__module__.split(".")[-1] + ".py" for api in APIS]
    stem = files[0].removesuffix("_functional.py")
    assert files == [f"{stem}_{api}.py" for api in APIS]
    assert list((ROOT / "tests" / "models").glob(f"test_{stem}*.py")), f"no tests of {stem}"
    row = f"| `{name}` | "
    rows = [line for line in (ROOT / "README.md").read_text().splitlines()
            if line.startswith(row)]
    assert any(all(f"`models/{file}`" in line for file in files) for line in rows), (
        f"README.md's model table has no row for {name}"
    )
