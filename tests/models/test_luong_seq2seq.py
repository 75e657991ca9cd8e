"""Luong attention twins: parity, inference, masking, saving, scheduled sampling, learning."""

import keras
import numpy as np
import pytest
from keras import ops

from keras_nmt.models.copy_weights_by_layer_name import copy_weights_by_layer_name
from keras_nmt.models.luong_seq2seq_functional import LuongSeq2SeqFunctional
from keras_nmt.models.luong_seq2seq_subclassed import LuongSeq2SeqSubclassed
from keras_nmt.special_ids import START_ID

SRC_VOCAB, TGT_VOCAB = 20, 18
CONFIGS = {
    "general": dict(attention_score="general"),
    "concat_deep": dict(
        attention_score="concat", num_layers=2, bidirectional=True, reverse_source=True
    ),
    "dot": dict(attention_score="dot"),
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
    functional = make_model(LuongSeq2SeqFunctional, **options)
    subclassed = make_model(LuongSeq2SeqSubclassed, **options)
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
    other = make_model(LuongSeq2SeqSubclassed, **CONFIGS[config])
    other(inputs)
    copy_weights_by_layer_name(other, functional)
    np.testing.assert_allclose(
        ops.convert_to_numpy(functional(inputs))[real],
        ops.convert_to_numpy(other(inputs))[real],
        atol=1e-5,
    )
    assert not np.allclose(ops.convert_to_numpy(functional(inputs))[real], expected[real])


def test_twins_share_layer_names_and_config():
    functional, subclassed = built_twins(CONFIGS["concat_deep"])
    assert functional.get_config() == subclassed.get_config()
    names = {layer.name for layer in functional.layers if layer.weights}
    assert names == {layer.name for layer in subclassed.layers if layer.weights}
    assert {"attention", "attentional_projection", "decoder_lstm_1", "encoder_lstm_1"} <= names


@pytest.mark.parametrize("api", ["functional", "subclassed"])
def test_unrolled_decode_step_reproduces_training_logits(api):
    functional, subclassed = built_twins(CONFIGS["concat_deep"])
    model = functional if api == "functional" else subclassed
    inputs, real = make_batch(seed=2)
    expected = ops.convert_to_numpy(model(inputs, training=False))
    logits, _ = unrolled_logits(model, inputs)
    np.testing.assert_allclose(logits[real], expected[real], atol=1e-5)


def test_input_feeding_step_loop_matches_its_own_unrolled_decode():
    keras.utils.set_random_seed(3)
    model = make_model(LuongSeq2SeqSubclassed, input_feeding=True, num_layers=2)
    inputs, real = make_batch(seed=3)
    expected = ops.convert_to_numpy(model(inputs, training=False))
    logits, _ = unrolled_logits(model, inputs)
    np.testing.assert_allclose(logits[real], expected[real], atol=1e-5)
    # The first decoder layer reads [E y_{t-1}; h̃_{t-1}].
    assert model.get_layer("decoder_lstm_0").kernel.shape == (8 + 8, 4 * 8)
    # Input feeding changes the computation: without the fed vector, the logits differ.
    no_feed = make_model(LuongSeq2SeqSubclassed, num_layers=2)
    no_feed(inputs)
    assert not np.allclose(ops.convert_to_numpy(no_feed(inputs))[real], expected[real])


def test_functional_twin_rejects_input_feeding():
    with pytest.raises(ValueError, match="input feeding"):
        make_model(LuongSeq2SeqFunctional, input_feeding=True)


@pytest.mark.parametrize("api", ["functional", "subclassed"])
def test_attention_ignores_padded_sources_and_sums_to_one(api):
    functional, subclassed = built_twins(CONFIGS["general"])
    model = functional if api == "functional" else subclassed
    inputs, real = make_batch(seed=4)
    _, weights = unrolled_logits(model, inputs)  # (batch, tgt, src)
    assert weights.shape == (3, 5, 6)
    source_pad = inputs["encoder_tokens"] == 0  # (batch, src)
    assert np.all(weights[np.broadcast_to(source_pad[:, None, :], weights.shape)] == 0.0)
    np.testing.assert_allclose(weights.sum(-1), 1.0, atol=1e-5)
    memory = model.encode(ops.convert_to_tensor(inputs["encoder_tokens"]))
    assert set(memory) == {"source_mask", "encoder_outputs", "keys", "encoder_states"}
    assert tuple(memory["keys"].shape) == (3, 6, 8)
    assert set(model.initial_state(memory)) == {"states", "attentional"}


@pytest.mark.parametrize("api", ["functional", "subclassed"])
def test_extra_padding_changes_no_logits_at_real_positions(api):
    functional, subclassed = built_twins(CONFIGS["concat_deep"])
    model = functional if api == "functional" else subclassed
    inputs, real = make_batch(seed=5)
    padded = {key: np.pad(value, [(0, 0), (0, 4)]) for key, value in inputs.items()}
    expected = ops.convert_to_numpy(model(inputs))
    got = ops.convert_to_numpy(model(padded))[:, :5]
    np.testing.assert_allclose(got[real], expected[real], atol=1e-5)


@pytest.mark.parametrize("api", ["functional", "subclassed"])
def test_keras_file_round_trip_gives_identical_outputs(api, tmp_path):
    functional, subclassed = built_twins(CONFIGS["concat_deep"])
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

    model = make_model(LuongSeq2SeqSubclassed, input_feeding=True)
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
    reference = make_model(LuongSeq2SeqSubclassed, input_feeding=True)
    reference(inputs)
    weights = reference.get_weights()
    compiled = _loss_after_one_epoch(False, inputs, targets, weights)
    eager = _loss_after_one_epoch(True, inputs, targets, weights)
    np.testing.assert_allclose(compiled, eager, rtol=1e-5)
    assert compiled[1] < compiled[0]


def test_teacher_forcing_probability_zero_feeds_the_models_own_predictions():
    keras.utils.set_random_seed(9)
    model = make_model(LuongSeq2SeqSubclassed, input_feeding=True)
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
def test_learns_dates_and_attends_to_the_year():
    from keras_nmt.decoding.greedy import greedy_decode

    model, source, target, valid_pairs = train_on_dates(LuongSeq2SeqFunctional)
    score = exact_match(model, source, target, valid_pairs)
    print("luong exact match", score)
    assert score > 0.5

    # Attention: while writing the year (output positions 0-3 of "YYYY-MM-DD"), the argmax
    # source position lies inside the year of the source.
    sources = ["2013/07/21", "1987/11/03", "21 March 2019", "4 June 1968"]
    year_spans = [(0, 4), (0, 4), (9, 13), (7, 11)]
    ids = source.tokenize(sources).to_tensor()
    decoded = greedy_decode(model, ids, max_length=12, return_attention=True)
    attention = ops.convert_to_numpy(decoded.attention)  # (batch, out_len, src_len)
    inside = [
        start <= attention[row, t].argmax() < stop
        for row, (start, stop) in enumerate(year_spans)
        for t in range(4)
    ]
    print("luong year attention inside the year:", np.mean(inside))
    assert np.mean(inside) >= 0.75
