"""Adding a model is one folder plus one registry line (CONTRIBUTING.md, "Adding a model").

Every registered model is laid out so (its card, shared part and twins in its folder, its
tests, its README row), and a model added by this test alone, `tests/models/new_model/` copied
into a copy of the package with its registry line, works everywhere models are used: the
options and flags, `build_model`, twin parity, saving, decoding, FLOPs, the precision probe, the
benchmarks' sizes and the comparison presets.
"""

import ast
import dataclasses
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from keras_nmt.models.registry import (
    ALIGNED_CARDS,
    ALIGNED_MODEL_NAMES,
    APIS,
    CARDS,
    MODEL_NAMES,
    model_class,
)
from keras_nmt.workshop.configurations import (
    MODEL_ARGUMENTS,
    REFERENCE_NAMES,
    TRAINING_RECIPES,
    ModelOptions,
)

ROOT = Path(__file__).resolve().parents[1]
MODELS = ROOT / "keras_nmt" / "models"


@pytest.mark.parametrize("name", MODEL_NAMES)
def test_every_model_is_its_folder_its_tests_and_a_readme_row(name):
    card = CARDS[MODEL_NAMES.index(name)]
    folder = MODELS / name
    assert card.package == f"keras_nmt.models.{name}"
    assert {"__init__.py", "model.py", *(f"{api}.py" for api in APIS)} <= {
        path.name for path in folder.iterdir()}
    for api in APIS:
        assert model_class(name, api).__module__ == f"{card.package}.{api}"
    assert list((ROOT / "tests" / "models").glob(f"test_{name}*.py")), f"no tests of {name}"
    row = f"| `{name}` | "
    rows = [line for line in (ROOT / "README.md").read_text().splitlines()
            if line.startswith(row)]
    assert any(all(f"`models/{name}/{api}.py`" in line for api in APIS) for line in rows), (
        f"README.md's model table has no row for {name}"
    )


@pytest.mark.parametrize("name", MODEL_NAMES)
def test_the_twins_are_wiring_only(name):
    # One constructor and one docstring with the arguments: the shared class's, in model.py.
    assert "def __init__" in (MODELS / name / "model.py").read_text()
    for api in APIS:
        twin = (MODELS / name / f"{api}.py").read_text()
        assert "def __init__" not in twin, f"{name}/{api}.py"
        assert "source_vocab_size:" not in twin, f"{name}/{api}.py restates the arguments"


@pytest.mark.parametrize("name", MODEL_NAMES)
def test_no_method_is_written_in_both_twins(name):
    # A method both twins write alike is computed alike: it belongs in model.py, written once.
    def methods(api):
        tree = ast.parse((MODELS / name / f"{api}.py").read_text())
        return {node.name: ast.dump(ast.Module(node.body, [])) for node in ast.walk(tree)
                if isinstance(node, ast.FunctionDef)}

    functional, subclassed = (methods(api) for api in APIS)
    same = sorted(key for key in functional.keys() & subclassed.keys()
                  if functional[key] == subclassed[key])
    assert not same, f"{name}: both twins write {same}; write it once in model.py"


def test_every_card_has_every_reference_size_and_each_option_has_one_owner():
    brought = [field.name for card in CARDS + ALIGNED_CARDS if card.options
               for field in dataclasses.fields(card.options)]
    assert len(brought) == len(set(brought))  # an option is declared by one card only
    fields = {field.name for field in dataclasses.fields(ModelOptions)}
    for card in CARDS + ALIGNED_CARDS:
        assert set(card.arguments) <= fields, card.name
    # The reference sizes and FLOPs are the seq2seq models' (the benchmarks and the translation
    # comparisons), which the aligned ones (CTC) are not; every model has arguments and a recipe.
    for card in CARDS:
        assert list(card.sizes) == list(REFERENCE_NAMES), card.name
        assert card.forward_flops and card.class_stem and card.aligned_class is None, card.name
    for table in (MODEL_ARGUMENTS, TRAINING_RECIPES):
        assert list(table) == [*MODEL_NAMES, *ALIGNED_MODEL_NAMES]
    for card in ALIGNED_CARDS:
        assert not card.sizes and model_class(card.name, APIS[0]).model_name == card.name


# Runs in a copy of the package with tests/models/new_model as keras_nmt/models/bow.
NEW_MODEL = r"""
import contextlib, io, sys
import numpy as np
import keras
from keras_nmt.workshop.benchmarks.flops import forward_flops
from keras_nmt.workshop.benchmarks.jax_benchmark import PRESETS
from keras_nmt.workshop.cli import main
from keras_nmt.workshop.comparison.preset_registry import get_preset
from keras_nmt.decoding.loop import decode
from keras_nmt.workshop.copy_weights_by_layer_name import copy_weights_by_layer_name
from keras_nmt.workshop.configurations import model_options
from keras_nmt.workshop.cli.options import options_read_by
from keras_nmt.models.registry import MODEL_NAMES, build_model
from keras_nmt.workshop.run.precision import step_matmul_shapes
from keras_nmt.workshop.run.train_config import TrainConfig

assert MODEL_NAMES[-1] == "bow"
help_text = io.StringIO()
with contextlib.redirect_stdout(help_text), contextlib.suppress(SystemExit):
    main(["train", "--help"])
assert "--bag-units" in help_text.getvalue()
config = TrainConfig(model="bow", bag_units=7)
assert "bag_units" in options_read_by("bow") and "units" not in options_read_by("bow")
assert step_matmul_shapes(config)[0] == (64, 128, 7)

tiny = model_options("bow", "tiny")
assert tiny == {"embedding_dim": 8, "bag_units": 8}
assert all(model_options("bow", preset["configuration"]) for preset in PRESETS.values())
assert "bow" in [c.name for c in get_preset("spa-eng").configurations]

source = np.array([[5, 6, 3, 0], [7, 3, 0, 0]], "int32")
inputs = {"encoder_tokens": source, "decoder_tokens": np.array([[2, 8, 9], [2, 10, 0]], "int32")}
functional, subclassed = (build_model("bow", api, 12, 13, vars(config), **tiny)
                          for api in ("functional", "subclassed"))
subclassed(inputs)
copy_weights_by_layer_name(functional, subclassed)
expected = np.asarray(functional(inputs))
np.testing.assert_allclose(np.asarray(subclassed(inputs)), expected, atol=1e-6)
assert functional.get_config() == subclassed.get_config()
functional.save(sys.argv[1])
reloaded = keras.models.load_model(sys.argv[1])
np.testing.assert_allclose(np.asarray(reloaded(inputs)), expected, atol=1e-6)

greedy = [np.asarray(decode(model, source, "greedy", max_length=5).tokens)
          for model in (functional, subclassed)]
np.testing.assert_array_equal(*greedy)
beam = np.asarray(decode(subclassed, source, "beam", beam_size=2, max_length=5).best().tokens)
assert greedy[0].shape[0] == beam.shape[0] == 2
# Two summaries (8 -> 8), then for 5 target tokens the summary projection and the output.
flops = forward_flops("bow", functional.get_config(), [3, 2], [3, 2])
assert flops == 2 * (2 * 8 * 8) + 5 * (2 * 8 * 8) + 5 * (2 * 8 * 13)
print("the new model works")
"""


def test_a_new_model_is_one_folder_and_one_registry_line(tmp_path):
    package = tmp_path / "keras_nmt"
    shutil.copytree(ROOT / "keras_nmt", package, ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copytree(ROOT / "tests" / "models" / "new_model", package / "models" / "bow")
    registry = package / "models" / "registry.py"
    lines = registry.read_text().splitlines()
    cards = [i for i, line in enumerate(lines) if line.startswith("CARDS = (")]
    imports = [i for i, line in enumerate(lines) if line.startswith("from keras_nmt.models import")]
    assert len(cards) == len(imports) == 1 and lines[cards[0]].endswith(")")
    # The registry line: the folder imported and its card listed.
    lines[imports[0]] += ", bow"
    lines[cards[0]] = lines[cards[0]].removesuffix(")") + ", bow.CARD)"
    registry.write_text("\n".join(lines) + "\n")
    result = subprocess.run(
        [sys.executable, "-c", NEW_MODEL, str(tmp_path / "bow.keras")],
        cwd=tmp_path, capture_output=True, text=True, timeout=600,
        env={"PYTHONPATH": str(tmp_path), "KERAS_BACKEND": "tensorflow",
             "TF_CPP_MIN_LOG_LEVEL": "3", "PATH": "/usr/bin:/bin"},
    )
    assert result.returncode == 0, result.stderr[-3000:]
    assert "the new model works" in result.stdout
