"""A decoding strategy is one step function and one entry of `STRATEGIES`; it then works
everywhere in process.

The arg-max strategy below (the most probable token at every step, chosen by log-probability:
greedy decoding's tokens) is registered by this test alone: `decode`, `DecodingOptions` and
`Translator.translate_batch` take it with no other file changed, and the exports refuse it with
the message the registry derives.
"""

import numpy as np
import pytest
from keras import ops

from keras_nmt.decoding.decoding_options import COMMON_OPTIONS, DecodingOptions
from keras_nmt.decoding.loop import decode
from keras_nmt.decoding.strategies import STRATEGIES, Strategy
from keras_nmt.workshop.translators.ctranslate2_translator import CTranslate2Translator
from keras_nmt.workshop.translators.saved_translator import SavedTranslator
from keras_nmt.workshop.translators.served_strategies import check_served
from tests.decoding.fake_models import FakeModel, random_table
from tests.decoding.helpers import to_numpy
from tests.export.helpers import SOURCES, make_translator

IDS = np.array([[4, 5, 6, 7, 4], [7, 0, 0, 0, 0]], dtype=np.int32)


def argmax_step(logits, log_probs, t, sentences):
    """The step function: each row's most probable next token."""
    del logits, t, sentences
    return ops.argmax(log_probs, axis=-1)


@pytest.fixture
def argmax(monkeypatch):
    monkeypatch.setitem(STRATEGIES, "argmax", Strategy(argmax_step, COMMON_OPTIONS,
                                                       "arg-max decoding"))
    return "argmax"


def test_decode_and_the_options_take_a_registered_strategy(argmax):
    model = FakeModel(random_table(30), source_weight=0.2)
    expected = to_numpy(decode(model, IDS, "greedy", max_length=6))
    by_name = to_numpy(decode(model, IDS, argmax, max_length=6))
    options = DecodingOptions(strategy=argmax, max_length=6)
    by_options = to_numpy(decode(model, IDS, options))
    for result in (by_name, by_options):
        np.testing.assert_array_equal(result.tokens, expected.tokens)
        np.testing.assert_allclose(result.scores, expected.scores, rtol=1e-6)
    assert sorted(options.options()) == sorted(COMMON_OPTIONS)
    with pytest.raises(TypeError, match="do not apply to strategy 'argmax'"):
        decode(model, IDS, argmax, beam_size=2)
    with pytest.raises(ValueError, match="must be one of greedy, beam, sample, argmax"):
        DecodingOptions(strategy="argmin")


def test_the_translator_runs_a_registered_strategy(argmax):
    translator = make_translator("lstm", "functional")
    greedy = translator.translate_batch(SOURCES)
    results = translator.translate_batch(SOURCES, strategy=argmax)
    assert [r.text for r in results] == [r.text for r in greedy]
    np.testing.assert_allclose([r.score for r in results], [r.score for r in greedy], rtol=1e-5)
    with pytest.raises(ValueError, match="^arg-max decoding gives one translation per sentence"):
        translator.translate_batch(SOURCES, strategy=argmax, beam_size=2)


@pytest.mark.parametrize(("translator", "export"), [
    (SavedTranslator, "the SavedModel (only greedy decoding, beam search and attention are)"),
    (CTranslate2Translator,
     "a CTranslate2 export (only greedy decoding, beam search and sampling are)"),
])
def test_the_exports_refuse_a_strategy_they_do_not_serve(argmax, translator, export):
    # The translators' own checks, on no export: the strategy is refused before anything is read.
    unloaded = translator.__new__(translator)
    with pytest.raises(ValueError) as error:
        unloaded.check_options(DecodingOptions(strategy=argmax))
    assert str(error.value) == (f"arg-max decoding is not exported to {export}; translate with "
                                "the run folder to use arg-max decoding")
    check_served("greedy", translator.export)  # served: no error
