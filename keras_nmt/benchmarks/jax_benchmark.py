"""Training and decoding speed of the eight twins on synthetic batches, without TensorFlow.

For a machine with JAX (e.g. a GPU) but no TensorFlow: token ids are random
(`speed.token_batches`), models come from the registry, the loss and metrics are the training
ones, and MFU is measured against a matmul peak taken in the same run (`peak`). Driven by
`keras-nmt benchmark --backend jax` (`jax_run`; `apps/benchmark_jax.py` from a checkout);
every function works under any Keras backend, the command sets JAX.

Presets (model options per model, the padded-token budget of a training batch, vocabularies):
    reference  the reference configurations of models/configurations.py (recurrent: embedding
               256, units 512, one layer per side; Transformer d_model 256, 3+3 layers, 4
               heads, ff 1024), 8,000 ids per side, 8,192 padded tokens per batch.
    gpu        the recurrent models as in `reference`; the Transformer GPU-sized (d_model 512,
               6+6 layers, 8 heads, ff 2048), 32,768 padded tokens per batch (about 18k real
               target tokens with the default lengths).
    quick      tiny sizes for a smoke test.
"""

import keras
import numpy as np

from keras_nmt.benchmarks.speed import (
    error_text,
    records_table,
    time_decoding,
    train_measurement,
)
from keras_nmt.decoding import decode
from keras_nmt.models.configurations import TRAINING_RECIPES
from keras_nmt.models.configurations import model_options as configured_options
from keras_nmt.models.registry import build_model
from keras_nmt.training.fused_adam import FusedAdam
from keras_nmt.training.masked_accuracy import MaskedAccuracy
from keras_nmt.training.masked_sparse_cross_entropy import MaskedSparseCrossEntropy
from keras_nmt.training.perplexity import Perplexity

# The model sizes of each preset: a `REFERENCE_CONFIGURATIONS` entry (every registered model has
# one there).
PRESETS = {
    "reference": {"configuration": "benchmark", "tokens_per_batch": 8192, "vocab_size": 8000},
    "gpu": {"configuration": "benchmark-gpu", "tokens_per_batch": 32768, "vocab_size": 8000},
    "quick": {"configuration": "benchmark-jax-quick", "tokens_per_batch": 256, "vocab_size": 50},
}


def model_options(preset, name):
    """Constructor options of model `name` in `preset` (a `PRESETS` key)."""
    return configured_options(name, PRESETS[preset]["configuration"])


def environment():
    """Versions and the device the run measured (JSON-ready)."""
    record = {"backend": keras.backend.backend(), "keras_version": keras.__version__}
    if record["backend"] == "jax":
        # The JAX backend only: the device and version come from jax itself.
        import jax

        device = jax.devices()[0]
        record.update(
            jax_version=jax.__version__,
            device=f"{device.platform}: {device.device_kind}",
            device_count=jax.device_count(),
        )
    return record


def compile_for_speed(model, name):
    """The training set-up of `keras_nmt.training.trainer.compile_model`, without TensorFlow.

    `FusedAdam` (Keras' own Adam update under JAX) with the model's Adam settings
    (`TRAINING_RECIPES`), and the masked loss and metrics; a constant learning rate instead of
    the Transformer's warm-up schedule (a scalar per step: no difference in speed).
    """
    model.compile(
        optimizer=FusedAdam(1e-3, clipnorm=1.0, **TRAINING_RECIPES[name]["adam"]),
        loss=MaskedSparseCrossEntropy(),
        metrics=[MaskedAccuracy(), Perplexity()],
    )


def train_record(name, api, precision, preset, batches, steps, peak, vocab_size, seed=0):
    """Tokens/s and MFU of one twin in one precision (a dict; `error` when it failed)."""
    record = {"section": "train", "model": name, "api": api, "precision": precision,
              "preset": preset}
    keras.mixed_precision.set_global_policy(precision)
    keras.utils.set_random_seed(seed)
    try:
        model = build_model(name, api, vocab_size, vocab_size, model_options(preset, name))
        compile_for_speed(model, name)
        return {**record, **train_measurement(model, name, batches, steps, peak)}
    except Exception as error:  # one failing twin must not stop the others
        return {**record, "error": error_text(error)}
    finally:
        keras.mixed_precision.set_global_policy("float32")


def decode_speed(model, sources, strategy, **options):
    """Sentences/s of `decode` over `sources` (each shape decoded once untimed first).

    Under JAX `decode` compiles once per shape bucket, so the untimed pass holds the
    compilations. Returns `speed.time_decoding`'s dict.
    """
    one_per_shape = list({ids.shape: ids for ids in sources}.values())
    return time_decoding(
        lambda ids: decode(model, ids, strategy, **options).best().lengths, sources, one_per_shape
    )


def decode_records(name, api, precision, preset, sources, beam_size, vocab_size, seed=0):
    """Greedy and beam-search sentences/s of one untrained twin (dicts; `error` on failure).

    Untrained models rarely emit END: they decode to the length cap, so `mean_output_length`
    is reported next to the speed.
    """
    base = {"section": "decode", "model": name, "api": api, "precision": precision,
            "preset": preset}
    keras.mixed_precision.set_global_policy(precision)
    keras.utils.set_random_seed(seed)
    records = []
    try:
        model = build_model(name, api, vocab_size, vocab_size, model_options(preset, name))
        model(_dummy_inputs())  # built before decoding (decode compiles built models only)
        for strategy, options in (("greedy", {}), ("beam", {"beam_size": beam_size})):
            record = {**base, "strategy": strategy, **options}
            try:
                records.append({**record, **decode_speed(model, sources, strategy, **options)})
            except Exception as error:  # the other strategy may still run
                records.append({**record, "error": error_text(error)})
    finally:
        keras.mixed_precision.set_global_policy("float32")
    return records


def _dummy_inputs():
    tokens = np.full((1, 2), 4, dtype=np.int32)
    return {"encoder_tokens": tokens, "decoder_tokens": tokens}


def markdown(records, device):
    """Two Markdown tables (training, decoding) of `records`, naming `device`."""
    head = [("model", "model", ""), ("API", "api", ""), ("precision", "precision", "")]
    train = records_table([r for r in records if r["section"] == "train"], [
        *head, ("tokens/s", "tokens_per_second", ",.0f"), ("MFU", "mfu", ".1%"),
        ("median step (ms)", lambda r: f"{1000 * r['median_step_seconds']:.1f}", "r"),
    ])
    decode = records_table([r for r in records if r["section"] == "decode"], [
        *head, ("strategy", lambda r: r["strategy"] + (f" {r['beam_size']}" if "beam_size" in r
                                                      else ""), ""),
        ("sentences/s", "sentences_per_second", ",.1f"),
        ("mean output length", "mean_output_length", ".1f"),
    ], head=4)
    return "\n".join([
        f"Training on {device}: real target tokens/s, MFU against the measured peak", "", train,
        "", f"Decoding on {device} (untrained models, batches of 64): sentences/s", "", decode,
    ]) + "\n"
