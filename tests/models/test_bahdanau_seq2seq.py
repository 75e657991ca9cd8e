"""Bahdanau attention twins: parity, inference, masking, saving, scheduled sampling, learning."""

import keras
import numpy as np
import pytest
from keras import ops

from keras_nmt.models.bahdanau_seq2seq_functional import BahdanauSeq2SeqFunctional
from keras_nmt.models.bahdanau_seq2seq_subclassed import BahdanauSeq2SeqSubclassed
from keras_nmt.models.copy_weights_by_layer_name import (
    _leaf_layers_by_name,
    copy_weights_by_layer_name,
)
from keras_nmt.special_ids import START_ID

SRC_VOCAB, TGT_VOCAB = 20, 18
CONFIGS = {
    "plain": dict(),
    "deep_output": dict(deep_output=True, attention_units=6),
}


def make_model(cls, **options):
    options = {"embedding_dim": 8, "units": 8, **options}
    return cls(source_vocab_size=SRC_VOCAB, target_vocab_size=TGT_VOCAB, **options)


def make_batch(seed=0, batch=3, src_len=6, tgt_len=5):
    """Right-padded random ids; returns inputs and the `(batch, tgt_len)` real-position mask."""
    rng = np.random.default_rng(seed)
    src = rng.integers(4, SRC_VOCAB, (batch, src_len))
    tgt = rng.integers(4, TGT_VOCAB, (batch, tgt_len))
    tgt[:, 0] = START_ID
    for row, (s, t) in enumerate([(src_len, tgt_len), (2, 3), (4, 1)][:batch]):
        src[row, s:] = 0
        tgt[row, t:] = 0
    inputs = {"encoder_tokens": src.astype("int32"), "decoder_tokens": tgt.astype("int32")}
    return inputs, tgt != 0


def built_twins(options, seed=0):
    keras.utils.set_random_seed(seed)
    functional = make_model(BahdanauSeq2SeqFunctional, **options)
    subclassed = make_model(BahdanauSeq2SeqSubclassed, **options)
    inputs, _ = make_batch()
    functional(inputs)
    subclassed(inputs)
    return functional, subclassed


def unrolled_logits(model, inputs):
    """Logits of `decode_step` fed START then the ground truth, `(batch, tgt, vocab)`, + weights."""
    memory = model.encode(ops.convert_to_tensor(inputs["encoder_tokens"]))
    state = model.initial_state(memory, max_length=inputs["decoder_tokens"].shape[1])
    logits, weights = [], []
    for t in range(inputs["decoder_tokens"].shape[1]):
        step_logits, state, step_weights = model.decode_step(
            ops.convert_to_tensor(inputs["decoder_tokens"][:, t]), state, memory
        )
        logits.append(ops.convert_to_numpy(step_logits))
        weights.append(ops.convert_to_numpy(step_weights))
    return np.stack(logits, axis=1), np.stack(weights, axis=1)


@pytest.mark.parametrize("config", list(CONFIGS))
def test_twins_compute_the_same_logits_with_weights_copied_both_ways(config):
    functional, subclassed = built_twins(CONFIGS[config])
    inputs, real = make_batch(seed=1)
    copy_weights_by_layer_name(functional, subclassed)
    expected = ops.convert_to_numpy(functional(inputs, training=False))
    got = ops.convert_to_numpy(subclassed(inputs, training=False))
    assert expected.shape == (3, 5, TGT_VOCAB)
    np.testing.assert_allclose(got[real], expected[real], atol=1e-5)

    keras.utils.set_random_seed(7)
    other = make_model(BahdanauSeq2SeqSubclassed, **CONFIGS[config])
    other(inputs)
    copy_weights_by_layer_name(other, functional)
    np.testing.assert_allclose(
        ops.convert_to_numpy(functional(inputs))[real],
        ops.convert_to_numpy(other(inputs))[real],
        atol=1e-5,
    )
    assert not np.allclose(ops.convert_to_numpy(functional(inputs))[real], expected[real])


def test_twins_share_layer_names_and_config():
    functional, subclassed = built_twins(CONFIGS["deep_output"])
    assert functional.get_config() == subclassed.get_config()
    names = set(_leaf_layers_by_name(functional))
    assert names == set(_leaf_layers_by_name(subclassed))
    assert {"attention", "decoder_lstm_0", "bridge_h", "bridge_c", "output_hidden"} <= names
    # The functional twin's recurrent layer holds the very cell and attention it steps through.
    rnn = functional.get_layer("decoder_rnn")
    assert (rnn.cell.name, rnn.attention.name) == ("decoder_lstm_0", "attention")
    assert rnn.cell is functional.decoder_step_model.get_layer("decoder_rnn").cell
    assert rnn.attention.units == 6


@pytest.mark.parametrize("api", ["functional", "subclassed"])
def test_unrolled_decode_step_reproduces_training_logits(api):
    functional, subclassed = built_twins(CONFIGS["deep_output"])
    model = functional if api == "functional" else subclassed
    inputs, real = make_batch(seed=2)
    expected = ops.convert_to_numpy(model(inputs, training=False))
    logits, _ = unrolled_logits(model, inputs)
    np.testing.assert_allclose(logits[real], expected[real], atol=1e-5)


@pytest.mark.parametrize("api", ["functional", "subclassed"])
def test_attention_ignores_padded_sources_and_sums_to_one(api):
    functional, subclassed = built_twins(CONFIGS["plain"])
    model = functional if api == "functional" else subclassed
    inputs, real = make_batch(seed=4)
    _, weights = unrolled_logits(model, inputs)  # (batch, tgt, src)
    assert weights.shape == (3, 5, 6)
    source_pad = inputs["encoder_tokens"] == 0  # (batch, src)
    assert np.all(weights[np.broadcast_to(source_pad[:, None, :], weights.shape)] == 0.0)
    np.testing.assert_allclose(weights.sum(-1), 1.0, atol=1e-5)
    memory = model.encode(ops.convert_to_tensor(inputs["encoder_tokens"]))
    assert set(memory) == {"source_mask", "encoder_outputs", "keys", "encoder_states"}
    assert tuple(memory["encoder_outputs"].shape) == (3, 6, 16)  # 2 * units
    assert tuple(memory["keys"].shape) == (3, 6, 8)
    assert set(model.initial_state(memory)) == {"states"}


@pytest.mark.parametrize("api", ["functional", "subclassed"])
def test_extra_padding_changes_no_logits_at_real_positions(api):
    functional, subclassed = built_twins(CONFIGS["deep_output"])
    model = functional if api == "functional" else subclassed
    inputs, real = make_batch(seed=5)
    padded = {key: np.pad(value, [(0, 0), (0, 4)]) for key, value in inputs.items()}
    expected = ops.convert_to_numpy(model(inputs))
    got = ops.convert_to_numpy(model(padded))[:, :5]
    np.testing.assert_allclose(got[real], expected[real], atol=1e-5)


@pytest.mark.parametrize("api", ["functional", "subclassed"])
def test_keras_file_round_trip_gives_identical_outputs(api, tmp_path):
    functional, subclassed = built_twins(CONFIGS["deep_output"])
    model = functional if api == "functional" else subclassed
    inputs, _ = make_batch(seed=6)
    path = tmp_path / "model.keras"
    model.save(path)
    loaded = keras.models.load_model(path)
    assert type(loaded) is type(model)
    assert loaded.get_config() == model.get_config()
    np.testing.assert_array_equal(
        ops.convert_to_numpy(loaded(inputs)), ops.convert_to_numpy(model(inputs))
    )
    np.testing.assert_array_equal(
        unrolled_logits(loaded, inputs)[0], unrolled_logits(model, inputs)[0]
    )


def _loss_after_one_epoch(run_eagerly, inputs, targets, weights):
    from keras_nmt.training.masked_sparse_cross_entropy import MaskedSparseCrossEntropy

    model = make_model(BahdanauSeq2SeqSubclassed, deep_output=True)
    model(inputs)
    model.set_weights(weights)
    model.compile(
        optimizer=keras.optimizers.SGD(0.1), loss=MaskedSparseCrossEntropy(),
        run_eagerly=run_eagerly,
    )
    history = model.fit(inputs, targets, batch_size=3, epochs=2, verbose=0, shuffle=False)
    return history.history["loss"]


def test_subclassed_twin_trains_the_same_compiled_and_eagerly():
    inputs, real = make_batch(seed=8)
    targets = np.where(real, np.roll(inputs["decoder_tokens"], -1, axis=1), 0)
    keras.utils.set_random_seed(8)
    reference = make_model(BahdanauSeq2SeqSubclassed, deep_output=True)
    reference(inputs)
    weights = reference.get_weights()
    compiled = _loss_after_one_epoch(False, inputs, targets, weights)
    eager = _loss_after_one_epoch(True, inputs, targets, weights)
    np.testing.assert_allclose(compiled, eager, rtol=1e-5)
    assert compiled[1] < compiled[0]


def test_teacher_forcing_probability_zero_feeds_the_models_own_predictions():
    keras.utils.set_random_seed(9)
    model = make_model(BahdanauSeq2SeqSubclassed, deep_output=True)
    inputs, real = make_batch(seed=9)
    model(inputs)
    model.teacher_forcing_probability.assign(0.0)
    sampled = ops.convert_to_numpy(model(inputs, training=True))
    # A manual greedy unroll: START, then the argmax of the previous step.
    memory = model.encode(ops.convert_to_tensor(inputs["encoder_tokens"]))
    state = model.initial_state(memory)
    token = ops.convert_to_tensor(inputs["decoder_tokens"][:, 0])
    greedy = []
    for _ in range(inputs["decoder_tokens"].shape[1]):
        logits, state, _ = model.decode_step(token, state, memory)
        greedy.append(ops.convert_to_numpy(logits))
        token = ops.cast(ops.argmax(logits, axis=-1), "int32")
    greedy = np.stack(greedy, axis=1)
    np.testing.assert_allclose(sampled, greedy, atol=1e-5)
    teacher_forced = ops.convert_to_numpy(model(inputs, training=False))
    assert not np.allclose(sampled[real], teacher_forced[real], atol=1e-3)


def train_on_dates(cls, epochs=6, train_size=4000, valid_size=200, **options):
    """Trains a small char-level model on the built-in dates; returns model, tokenizers, pairs."""
    from keras_nmt.data.builtin import builtin_pairs
    from keras_nmt.data.pipeline import make_dataset
    from keras_nmt.text import make_tokenizer
    from keras_nmt.training.masked_sparse_cross_entropy import MaskedSparseCrossEntropy

    keras.utils.set_random_seed(0)
    train_pairs = builtin_pairs("dates", "train", size=train_size, seed=0)
    valid_pairs = builtin_pairs("dates", "valid", size=valid_size, seed=0)
    source = make_tokenizer("char").build([s for s, _ in train_pairs])
    target = make_tokenizer("char").build([t for _, t in train_pairs])
    data = make_dataset(train_pairs, source, target, batch_size=64, shuffle=True, seed=0)
    model = cls(source.vocab_size, target.vocab_size, embedding_dim=32, units=64, **options)
    model.compile(
        optimizer=keras.optimizers.Adam(3e-3, clipnorm=1.0), loss=MaskedSparseCrossEntropy()
    )
    model.fit(data, epochs=epochs, verbose=0)
    return model, source, target, valid_pairs


def exact_match(model, source, target, pairs):
    """Share of `pairs` whose greedy translation equals the reference (ids up to END)."""
    from keras_nmt.decoding.greedy import greedy_decode
    from keras_nmt.special_ids import END_ID

    ids = source.tokenize([s for s, _ in pairs]).to_tensor()
    tokens = ops.convert_to_numpy(greedy_decode(model, ids, max_length=14).tokens).tolist()
    references = target.tokenize([t for _, t in pairs], add_end=True).to_list()
    hypotheses = [row[: row.index(END_ID) + 1] if END_ID in row else row for row in tokens]
    return float(np.mean([h == r for h, r in zip(hypotheses, references, strict=True)]))


@pytest.mark.slow
def test_learns_dates():
    model, source, target, valid_pairs = train_on_dates(BahdanauSeq2SeqFunctional)
    score = exact_match(model, source, target, valid_pairs)
    print("bahdanau exact match", score)
    assert score > 0.5
