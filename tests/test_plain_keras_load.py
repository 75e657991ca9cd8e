"""A `.keras` file of ours loads with plain `keras.models.load_model` after `import keras_nmt`
(which itself imports no Keras): every class a saved model may name is registered when Keras
is imported. Also when the program's first import is one of our modules that imports Keras
itself: registering in the middle of that import met the module half-defined (a
circular-import error)."""

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from keras_nmt.models.registry import build_model
from keras_nmt.training.fit import compile_model
from keras_nmt.workshop.run.train_config import TrainConfig

ROOT = Path(__file__).resolve().parents[1]

LOAD = """
import sys
exec(sys.argv[5])  # the program's first import
import numpy as np
import keras
model = keras.models.load_model(sys.argv[1])
inputs = np.load(sys.argv[2])
np.save(sys.argv[3], model(dict(inputs), training=False))
# Each module that registers a serializable class was imported with Keras.
missing = [name for name in sys.argv[4].split(",") if name not in sys.modules]
assert not missing, missing
"""


FIRST_IMPORTS = [
    "import keras_nmt; assert 'keras' not in sys.modules and 'tensorflow' not in sys.modules",
    "from keras_nmt.layers.attention import LuongAttention",
]


@pytest.fixture(scope="module")
def saved(tmp_path_factory):
    """A compiled Transformer saved once for both first imports: its folder (`model.keras`,
    `inputs.npz`), its logits on those inputs and the modules that register a class."""
    folder = tmp_path_factory.mktemp("saved")
    config = TrainConfig(model="transformer", d_model=16, num_heads=2, ff_dim=32, num_layers=1)
    model = build_model("transformer", "functional", 20, 20, vars(config))
    inputs = {"encoder_tokens": np.array([[5, 6, 7, 3]]),
              "decoder_tokens": np.array([[2, 8, 9, 10]])}
    expected = np.asarray(model(inputs, training=False))
    compile_model(model, config)  # the optimizer, its schedule, the loss and metrics are saved
    model.save(folder / "model.keras")
    np.savez(folder / "inputs.npz", **inputs)
    registering = sorted(
        ".".join(path.relative_to(ROOT).with_suffix("").parts)
        for path in (ROOT / "keras_nmt").rglob("*.py")
        if "@keras.saving.register_keras_serializable" in path.read_text()
    )
    return folder, expected, registering


@pytest.mark.parametrize("first_import", FIRST_IMPORTS, ids=["package", "a-layer-module"])
def test_a_compiled_transformer_loads_with_plain_keras(tmp_path, saved, first_import):
    folder, expected, registering = saved
    assert len(registering) > 20  # models, layers, training objects, a metric
    result = subprocess.run(
        [sys.executable, "-c", LOAD, str(folder / "model.keras"), str(folder / "inputs.npz"),
         str(tmp_path / "out.npy"), ",".join(registering), first_import],
        cwd=tmp_path, capture_output=True, text=True, timeout=300,
        env={"PYTHONPATH": str(ROOT), "KERAS_BACKEND": "tensorflow", "TF_CPP_MIN_LOG_LEVEL": "3"},
    )
    assert result.returncode == 0, result.stderr[-2000:]
    np.testing.assert_allclose(np.load(tmp_path / "out.npy"), expected, rtol=1e-5, atol=1e-6)
