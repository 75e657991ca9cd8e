"""tf.distribute (mirrored, multi-worker), mixed precision and cuDNN eligibility."""

import json
import os
import socket
import subprocess
import sys
import textwrap
from pathlib import Path

import keras
import numpy as np
import pytest

from keras_nmt.models.lstm.functional import LstmSeq2SeqFunctional
from keras_nmt.models.registry import APIS, MODEL_NAMES
from keras_nmt.workshop.hardware.cudnn import cudnn_ineligibility

REPO = Path(__file__).resolve().parents[2]

# Trains the same tiny model for a few steps on the same global batches, on one device and under
# MirroredStrategy over two logical CPU devices (FusedAdam's kernel then updates each replica's
# copy); prints both loss curves as JSON.
MIRRORED = textwrap.dedent(
    """
    import json, os
    os.environ["TF_CPP_MIN_LOG_LEVEL"] = "2"
    import tensorflow as tf
    cpu = tf.config.list_physical_devices("CPU")[0]
    tf.config.set_logical_device_configuration(
        cpu, [tf.config.LogicalDeviceConfiguration()] * 2)
    import keras, numpy as np
    from keras_nmt.models.lstm.functional import LstmSeq2SeqFunctional
    from keras_nmt.training.fused_adam import FusedAdam
    from keras_nmt.training.masked_sparse_cross_entropy import MaskedSparseCrossEntropy
    from keras_nmt.workshop.run.distribution import make_distribution

    rng = np.random.default_rng(0)
    source = rng.integers(1, 12, (32, 6)).astype("int32")
    target = rng.integers(1, 9, (32, 5)).astype("int32")
    inputs = {"encoder_tokens": source, "decoder_tokens": target}
    labels = np.roll(target, -1, axis=1)
    data = tf.data.Dataset.from_tensor_slices((inputs, labels)).batch(16)
    curves = {}
    for name in ("default", "mirrored"):
        strategy = make_distribution(name)
        with strategy.scope():
            keras.utils.set_random_seed(0)
            model = LstmSeq2SeqFunctional(12, 9, embedding_dim=4, units=8)
            model.compile(optimizer=FusedAdam(0.05), loss=MaskedSparseCrossEntropy())
        history = model.fit(data, epochs=4, verbose=0)
        curves[name] = [history.history["loss"], strategy.num_replicas_in_sync]
    print("RESULT" + json.dumps(curves))
    """
)


def run_python(code, env=None, timeout=300):
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=timeout,
        cwd=REPO, env={**os.environ, **(env or {})},
    )
    assert result.returncode == 0, result.stderr[-3000:]
    return result.stdout


def test_mirrored_on_two_logical_cpus_matches_one_device():
    output = run_python(MIRRORED)
    curves = json.loads(output.split("RESULT", 1)[1])
    assert curves["default"][1] == 1 and curves["mirrored"][1] == 2
    np.testing.assert_allclose(curves["mirrored"][0], curves["default"][0], rtol=1e-4)
    assert curves["default"][0][-1] < curves["default"][0][0]


def free_port():
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.mark.slow
def test_two_workers_finish_with_the_same_weights(tmp_path):
    workers = [f"127.0.0.1:{free_port()}" for _ in range(2)]
    processes = []
    for index in range(2):
        tf_config = {"cluster": {"worker": workers}, "task": {"type": "worker", "index": index}}
        command = [
            sys.executable, "apps/train.py", "--distribution", "multi-worker", "--epochs", "1",
            "--train-size", "128", "--valid-size", "16", "--units", "8", "--embedding-dim", "4",
            "--batch-size", "32", "--verbose", "0", "--validation-sentences", "8",
            "--samples", "0", "--output-dir", str(tmp_path / f"worker{index}"),
        ]
        processes.append(subprocess.Popen(
            command, cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
            env={**os.environ, "TF_CONFIG": json.dumps(tf_config), "TF_CPP_MIN_LOG_LEVEL": "2"},
        ))
    for process in processes:
        output = process.communicate(timeout=600)[0]
        assert process.returncode == 0, output[-3000:]
        assert "2 replicas" in output
    weights = [
        keras.models.load_model(tmp_path / f"worker{i}" / "model.keras").get_weights()
        for i in range(2)
    ]
    for first, second in zip(*weights, strict=True):
        np.testing.assert_allclose(first, second, atol=1e-6)


def test_mixed_bfloat16_trains_with_float32_logits():
    from keras_nmt.training.masked_sparse_cross_entropy import MaskedSparseCrossEntropy

    keras.mixed_precision.set_global_policy("mixed_bfloat16")
    try:
        keras.utils.set_random_seed(0)
        model = LstmSeq2SeqFunctional(12, 9, embedding_dim=4, units=8)
        rng = np.random.default_rng(0)
        inputs = {
            "encoder_tokens": rng.integers(1, 12, (16, 6)).astype("int32"),
            "decoder_tokens": rng.integers(1, 9, (16, 5)).astype("int32"),
        }
        assert model.get_layer("decoder_lstm_0").compute_dtype == "bfloat16"
        assert model(inputs).dtype == "float32"
        model.compile(optimizer="adam", loss=MaskedSparseCrossEntropy())
        history = model.fit(inputs, inputs["decoder_tokens"], epochs=3, verbose=0)
        assert np.all(np.isfinite(history.history["loss"]))
        assert history.history["loss"][-1] < history.history["loss"][0]
    finally:
        keras.mixed_precision.set_global_policy("float32")


@pytest.mark.parametrize("options", [{}, {"bidirectional": True, "num_layers": 2, "dropout": 0.3}])
def test_functional_lstm_layers_meet_the_cudnn_conditions(options):
    model = LstmSeq2SeqFunctional(12, 9, embedding_dim=4, units=8, **options)
    lstms = [
        layer for layer in model.layers
        if isinstance(layer, keras.layers.LSTM | keras.layers.Bidirectional)
    ]
    assert len(lstms) == 2 * model.num_layers
    assert [reason for lstm in lstms for reason in cudnn_ineligibility(lstm)] == []
    assert cudnn_ineligibility(keras.layers.LSTM(4, recurrent_dropout=0.1, name="x")) == [
        "x: recurrent_dropout is not 0"
    ]


@pytest.mark.parametrize("name", MODEL_NAMES)
@pytest.mark.parametrize("api", APIS)
def test_every_model_gives_float32_logits_under_mixed_bfloat16(name, api):
    from keras_nmt.models.registry import build_model

    keras.mixed_precision.set_global_policy("mixed_bfloat16")
    try:
        options = {"embedding_dim": 4, "units": 8, "d_model": 8, "num_heads": 2, "ff_dim": 8,
                   "channels": 8}
        model = build_model(name, api, 12, 9, options)
        tokens = np.array([[4, 5, 6, 0]], dtype="int32")
        logits = model({"encoder_tokens": tokens, "decoder_tokens": tokens})
        assert logits.dtype == "float32"
        memory = model.encode(tokens)
        step_logits, _, _ = model.decode_step(
            tokens[:, 0], model.initial_state(memory, max_length=8), memory
        )
        assert step_logits.dtype == "float32"
    finally:
        keras.mixed_precision.set_global_policy("float32")
