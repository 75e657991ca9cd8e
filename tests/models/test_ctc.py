"""The CTC model: its loss and decodings against sums over every path, masking, saving, learning."""

import inspect
import itertools
import math

import keras
import numpy as np
import pytest
from keras import ops

from keras_nmt.decoding.aligned import AlignedModel
from keras_nmt.decoding.loop import decode
from keras_nmt.models.ctc.ctc_decoding import beam_decode, best_path_decode
from keras_nmt.models.ctc.ctc_loss import BLANK, ctc_loss, frames_needed
from keras_nmt.models.ctc.ctc_model import CtcModel
from keras_nmt.models.registry import build_model, model_class
from keras_nmt.special_ids import END_ID, PAD_ID
from keras_nmt.workshop.configurations import MODEL_ARGUMENTS, OPTION_DEFAULTS

A, B = 4, 5  # two labels; 0 is the blank


def collapse(path):
    """B of the paper, in plain Python: merge repeats, drop blanks."""
    merged = [label for i, label in enumerate(path) if i == 0 or label != path[i - 1]]
    return tuple(label for label in merged if label != BLANK)


def labelling_probabilities(probs):
    """`{labelling: p(l | x)}` summed over all `V ** T` paths of frames `probs (T, V)`."""
    totals = {}
    for path in itertools.product(range(probs.shape[1]), repeat=probs.shape[0]):
        p = math.prod(probs[t, label] for t, label in enumerate(path))
        totals[collapse(path)] = totals.get(collapse(path), 0.0) + p
    return totals


def frames(seed, length=5, vocab=6, peak=None):
    """Random frame distributions `(length, vocab)` (labels 1-3 never chosen: ids 0, 4, 5)."""
    rng = np.random.default_rng(seed)
    logits = rng.normal(size=(length, vocab)) * 2
    logits[:, 1:4] = -30.0  # UNK, START, END: never emitted
    if peak is not None:  # one label per frame nearly certain
        logits[np.arange(length), rng.choice([0, A, B], size=length)] += peak
    probs = np.exp(logits - logits.max(-1, keepdims=True))
    return probs / probs.sum(-1, keepdims=True)


@pytest.mark.jax
def test_best_path_decoding_collapses_the_frame_arg_maxes_by_hand():
    # Arg-maxes a a - a b b - | padding: "aab" (the blank keeps the two a's apart).
    best = [A, A, BLANK, A, B, B, BLANK, B]
    log_probs = np.full((1, 8, 6), -5.0, "float32")
    log_probs[0, np.arange(8), best] = -0.1
    labels, lengths, path = best_path_decode(log_probs, np.array([7]))
    assert np.asarray(labels)[0].tolist() == [A, A, B, 0, 0, 0, 0, 0]
    assert int(lengths[0]) == 3
    assert float(path[0]) == pytest.approx(-0.7)  # 7 real frames of log-probability -0.1
    # As the backend's own greedy decoder reads it.
    decoded, _ = ops.ctc_decode(log_probs, np.array([7]), strategy="greedy", mask_index=BLANK)
    assert np.asarray(decoded)[0, 0, :3].tolist() == [A, A, B]


@pytest.mark.jax
@pytest.mark.parametrize("labels", [(A,), (A, B), (A, A), (B, A, B), ()])
def test_the_loss_is_minus_log_the_sum_over_every_path(labels):
    probs = frames(seed=len(labels), length=5)
    expected = -math.log(labelling_probabilities(probs)[labels])
    targets = np.array([[*labels, END_ID, 0, 0][:4]], "int32")
    loss = ctc_loss(targets, np.log(probs)[None].astype("float32"), np.array([5]))
    assert float(loss) * max(len(labels), 1) == pytest.approx(expected, rel=1e-4)


@pytest.mark.jax
def test_a_labelling_longer_than_its_frames_is_left_out_with_a_finite_gradient():
    probs = frames(seed=1, length=4)
    fits, too_long = [A, B, END_ID, 0, 0], [A, A, B, B, END_ID]  # needs 4, needs 6 > 4 frames
    assert np.asarray(frames_needed(np.array([[A, B, 0, 0], [A, A, B, B]]),
                                    np.array([2, 4]))).tolist() == [2, 6]
    logits = keras.Variable(np.log(probs)[None].repeat(2, 0).astype("float32"))
    both = ctc_loss(np.array([fits, too_long]), logits, np.array([4, 4]))
    alone = ctc_loss(np.array([fits]), logits[:1], np.array([4]))
    assert float(both) == pytest.approx(float(alone), rel=1e-6)
    if keras.backend.backend() == "tensorflow":
        import tensorflow as tf  # noqa: PLC0415  (the gradient of this backend)

        with tf.GradientTape() as tape:
            loss = ctc_loss(np.array([fits, too_long]), logits, np.array([4, 4]))
        gradient = tape.gradient(loss, logits.value).numpy()
        assert np.isfinite(gradient).all() and not gradient[1].any()


@pytest.mark.jax
def test_beam_search_finds_the_most_probable_labellings_and_their_probabilities():
    # 64 prefixes hold every prefix of 5 frames over a and b (63), and the other labels have
    # probabilities near e^-30: the search is exact.
    probs = frames(seed=3, length=5)
    exact = sorted(labelling_probabilities(probs).items(), key=lambda item: -item[1])[:3]
    labels, lengths, log_probs = beam_decode(np.log(probs)[None].astype("float32"),
                                             np.array([5]), beam_size=64, n_best=3)
    found = [tuple(np.asarray(labels)[0, k, : int(lengths[0, k])]) for k in range(3)]
    assert found == [labelling for labelling, _ in exact]
    np.testing.assert_allclose(np.asarray(log_probs)[0], [math.log(p) for _, p in exact],
                               rtol=1e-4)


@pytest.mark.jax
def test_beam_width_one_merges_paths_where_best_path_does_not():
    # The example of ctc_decoding's docstring: best path "ab" (.36), most probable "a" (.54).
    probs = np.full((1, 2, 6), 1e-6, "float32")
    probs[0, 0, [BLANK, A]] = [0.1, 0.9]
    probs[0, 1, [BLANK, A, B]] = [0.3, 0.3, 0.4]
    log_probs = np.log(probs / probs.sum(-1, keepdims=True))
    greedy, greedy_lengths, path = best_path_decode(log_probs, np.array([2]))
    beam, beam_lengths, labelling = beam_decode(log_probs, np.array([2]), beam_size=1)
    assert np.asarray(greedy)[0, : int(greedy_lengths[0])].tolist() == [A, B]
    assert np.asarray(beam)[0, 0, : int(beam_lengths[0, 0])].tolist() == [A]
    assert math.exp(float(path[0])) == pytest.approx(0.36, rel=1e-3)
    assert math.exp(float(labelling[0, 0])) == pytest.approx(0.54, rel=1e-3)


@pytest.mark.parametrize("seed", range(3))
def test_beam_width_one_is_best_path_decoding_on_near_certain_frames(seed):
    log_probs = np.log(frames(seed, length=12, peak=12.0))[None].astype("float32")
    greedy, greedy_lengths, _ = best_path_decode(log_probs, np.array([12]))
    beam, beam_lengths, _ = beam_decode(log_probs, np.array([12]), beam_size=1)
    assert int(greedy_lengths[0]) == int(beam_lengths[0, 0]) > 0
    assert np.array_equal(np.asarray(greedy)[0], np.asarray(beam)[0, 0])


def tiny_model(**options):
    keras.utils.set_random_seed(0)
    return build_model("ctc", "functional", 11, 10, {"embedding_dim": 4, "units": 8, **options})


def test_the_model_keeps_the_aligned_contract_and_its_options():
    model = tiny_model()
    assert isinstance(model, AlignedModel) and model_class("ctc", "subclassed") is CtcModel
    parameters = inspect.signature(CtcModel).parameters
    assert list(parameters)[2:-2] == list(MODEL_ARGUMENTS["ctc"])
    assert {name: parameters[name].default for name in MODEL_ARGUMENTS["ctc"]} == {
        name: OPTION_DEFAULTS[name] for name in MODEL_ARGUMENTS["ctc"]}
    tokens = np.array([[4, 5, 6], [7, 0, 0]], "int32")
    assert tuple(model(tokens).shape) == (2, 6, 10)  # upsampling 2
    assert tuple(tiny_model(upsampling=3)(tokens).shape) == (2, 9, 10)
    with pytest.raises(ValueError, match="even"):
        CtcModel(11, 9, units=7)


def test_padding_changes_neither_frames_nor_loss_nor_decoding():
    model = tiny_model()
    sentences = [[4, 5, 6, 7], [8, 9]]
    targets = np.array([[4, 6, 7, 3, 0], [9, 9, 3, 0, 0]], "int32")

    def padded(width):
        return np.array([s + [PAD_ID] * (width - len(s)) for s in sentences], "int32")

    short, long = padded(4), padded(9)
    logits_short, logits_long = np.asarray(model(short)), np.asarray(model(long))
    for row, sentence in enumerate(sentences):
        real = 2 * len(sentence)
        np.testing.assert_allclose(logits_short[row, :real], logits_long[row, :real], atol=1e-5)
        # Padding frames are blanks for sure.
        assert (logits_long[row, real:].argmax(-1) == BLANK).all()
        assert (logits_long[row, real:, BLANK] - logits_long[row, real:, 1:].max(-1) > 1e8).all()
    loss_short = model.compute_loss({"encoder_tokens": short}, targets, logits_short)
    loss_long = model.compute_loss({"encoder_tokens": long}, targets, logits_long)
    assert float(loss_short) == pytest.approx(float(loss_long), rel=1e-5)
    # Even a loss that ignores the lengths gives the same (padding frames are certain blanks).
    full = ctc_loss(targets, logits_long, np.array([18, 18]))
    assert float(full) == pytest.approx(float(loss_short), rel=1e-5)
    for strategy, options in [("greedy", {}), ("beam", {"beam_size": 3})]:
        a, b = (decode(model, tokens, strategy, **options) for tokens in (short, long))
        assert np.array_equal(np.asarray(a.tokens), np.asarray(b.tokens))
        np.testing.assert_allclose(np.asarray(a.scores), np.asarray(b.scores), rtol=1e-5)


def test_decode_gives_the_seq2seq_result_shapes():
    model = tiny_model()
    tokens = np.array([[4, 5, 6, 7], [8, 0, 0, 0]], "int32")
    labels, lengths, _ = model.decode_aligned(tokens)
    greedy = decode(model, tokens, "greedy")
    for row in range(2):
        emitted = np.asarray(labels)[row, : int(lengths[row])].tolist()
        assert np.asarray(greedy.tokens)[row, : int(greedy.lengths[row])].tolist() == [
            *emitted, END_ID]
    assert greedy.attention is None
    beam = decode(model, tokens, "beam", beam_size=3, n_best=2)
    assert tuple(beam.tokens.shape)[:2] == (2, 2)
    assert (np.diff(np.asarray(beam.scores), axis=1) <= 0).all()  # best first
    cut = decode(model, tokens, "greedy", max_length=2)  # at most 2 tokens: no room for END
    assert np.asarray(cut.lengths).max() <= 2
    with pytest.raises(ValueError, match="a ctc model decodes greedily or with beam search, "
                                         "not with sampling"):
        decode(model, tokens, "sample", temperature=0.5)


def test_config_round_trip_and_a_saved_model_reloads(tmp_path):
    model = tiny_model(num_layers=2, dropout=0.1, upsampling=3)
    tokens = np.array([[4, 5, 6], [7, 8, 0]], "int32")
    twin = CtcModel.from_config(model.get_config())
    assert twin.get_config() == model.get_config()
    expected = np.asarray(model(tokens))  # built: the weights exist
    model.save(tmp_path / "ctc.keras")
    loaded = keras.models.load_model(tmp_path / "ctc.keras")
    assert type(loaded) is CtcModel and loaded.get_config() == model.get_config()
    np.testing.assert_allclose(np.asarray(loaded(tokens)), expected, atol=1e-6)


# An aligned toy task: a shift cipher over letters a-f (ids 4-9) in which "e" becomes two
# letters, so outputs are longer than inputs and repeat letters ("aa" -> "bb").
_CIPHER = {4: [5], 5: [6], 6: [7], 7: [8], 8: [8, 9], 9: [4]}


def _cipher_pairs(rng, count, longest=8):
    sources = np.zeros((count, longest), "int32")
    targets = np.zeros((count, 2 * longest + 1), "int32")
    for row, length in enumerate(rng.integers(3, longest + 1, count)):
        source = rng.integers(4, 10, length)
        target = [token for letter in source for token in _CIPHER[letter]] + [END_ID]
        sources[row, :length], targets[row, : len(target)] = source, target
    return sources, targets


def test_a_tiny_ctc_model_learns_an_aligned_task():
    rng = np.random.default_rng(0)
    (sources, targets), (test_sources, test_targets) = (_cipher_pairs(rng, n) for n in (1024, 200))
    keras.utils.set_random_seed(0)
    model = CtcModel(10, 10, embedding_dim=16, units=32)
    model.compile(optimizer=keras.optimizers.Adam(1e-2))
    model.fit(sources, targets, batch_size=64, epochs=3, verbose=0)
    result = decode(model, test_sources, "greedy")
    tokens, lengths = np.asarray(result.tokens), np.asarray(result.lengths)
    right = [tokens[row, : lengths[row]].tolist() == [t for t in test_targets[row] if t]
             for row in range(len(test_sources))]
    # Seen: 200 of 200 after 3 epochs (about 10 s of training on 2 CPU cores).
    assert np.mean(right) >= 0.95
    beam = decode(model, test_sources, "beam", beam_size=1)  # near-certain frames: = greedy
    assert np.mean([np.array_equal(np.asarray(beam.tokens)[row, 0, : lengths[row]],
                                   tokens[row, : lengths[row]]) for row in range(200)]) >= 0.99


@pytest.mark.tensorflow
def test_tensorflow_s_kernel_gives_the_loss_and_gradient_of_keras_ops():
    import tensorflow as tf  # noqa: PLC0415  (the kernel under test is TensorFlow's)

    rng = np.random.default_rng(0)
    logits = tf.Variable(rng.normal(size=(3, 10, 7)).astype("float32"))
    targets = np.array([[4, 5, 5, 6, 3], [6, 3, 0, 0, 0], [3, 0, 0, 0, 0]], "int32")
    frames = np.array([10, 6, 4], "int32")
    labels, lengths = np.array([[4, 5, 5, 6], [6, 0, 0, 0], [0, 0, 0, 0]]), np.array([4, 1, 0])
    with tf.GradientTape(persistent=True) as tape:
        ours = ctc_loss(targets, logits, frames)
        reference = ops.sum(ops.ctc_loss(labels, logits, lengths, frames)) / 5.0
    assert float(ours) == pytest.approx(float(reference), rel=1e-5)
    np.testing.assert_allclose(tape.gradient(ours, logits), tape.gradient(reference, logits),
                               atol=1e-6)
