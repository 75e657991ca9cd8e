"""Eager decoding under JAX through one `jax.jit` function per model, options and shape bucket.

Called eagerly under JAX, a strategy's `keras.ops.while_loop` is traced and compiled again on
every call (a `jax.lax.while_loop` outside `jit` is compiled per call). `decode` sends such calls
here instead: it runs again inside a jitted function, cached per model, strategy and options,
whose input is padded to a shape bucket (batch and source length each rounded up to a power of
two), so JAX compiles once per bucket. The model's variables are arguments of the
jitted function (bound through a `keras.StatelessScope`), so a model trained between two calls
decodes with its new weights. Padding changes no result: extra rows repeat the first sentence
and are dropped, and extra `PAD_ID` columns are masked by the model (per-sentence length limits
count real source tokens only).
"""

import weakref

import keras
import numpy as np

from keras_nmt.decoding.decode_result import DecodeResult
from keras_nmt.decoding.strategies import STRATEGIES
from keras_nmt.special_ids import PAD_ID

MIN_BUCKET = 8

# model -> {(strategy, options): jitted function}; entries go with their model.
_CACHE = weakref.WeakKeyDictionary()


def bucket_size(size, minimum=MIN_BUCKET):
    """The padded size of an axis of `size`: the next power of two, at least `minimum`."""
    return max(minimum, 1 << max(0, size - 1).bit_length())


def can_compile(model, strategy, encoder_tokens, options):
    """Whether `decode` should send this call to `compiled_decode`.

    True under the JAX backend for an eager call (not inside the caller's own `jax.jit`) on a
    built model, with hashable options (the cache key). A strategy taking a `seed` (sampling)
    needs an integer one: a `SeedGenerator` (or the global one, `seed=None`) changes state on
    every call, which a cached function cannot carry, so those calls stay eager.
    """
    if keras.backend.backend() != "jax" or not getattr(model, "built", True):
        return False
    # The JAX backend only: TensorFlow runs never import jax.
    import jax

    if isinstance(encoder_tokens, jax.core.Tracer):
        return False
    seed = options.get("seed")
    if "seed" in STRATEGIES[strategy].options and (
        not isinstance(seed, int) or isinstance(seed, bool)
    ):
        return False
    try:
        hash(tuple(sorted(options.items())))
    except TypeError:
        return False
    return True


def pad_to_bucket(encoder_tokens):
    """`(batch, src_len)` ids padded to `(bucket_size(batch), bucket_size(src_len))`.

    Extra columns are `PAD_ID`; extra rows repeat the first sentence (a row of padding only
    would give attention nothing to attend to).
    """
    tokens = np.asarray(encoder_tokens, dtype=np.int32)
    batch, length = tokens.shape
    padded = np.full((bucket_size(batch), bucket_size(length)), PAD_ID, dtype=np.int32)
    padded[:, :length] = tokens[0]
    padded[:batch, :length] = tokens
    return padded


def compiled_decode(decode, model, strategy, encoder_tokens, options, sentence_ids=None):
    """The `DecodeResult` of `decode(model, encoder_tokens, strategy, **options,
    sentence_ids=sentence_ids)` (`decode` is `keras_nmt.decoding.loop.decode`, traced inside),
    through the cached jitted function of `model`, `strategy` and `options` (hashable values;
    `trim` is applied here, outside); `encoder_tokens` is an array, not a tracer."""
    import jax  # the JAX backend only (see `can_compile`)

    options = dict(options)
    trim = options.pop("trim", True)
    # The model's own `max_length` (a Python attribute read at trace time) keys it too.
    key = (strategy, tuple(sorted(options.items())), getattr(model, "max_length", None))
    per_model = _CACHE.setdefault(model, {})
    if key not in per_model:
        variables = list(getattr(model, "variables", ()))
        # A weak reference: the cache entry must not keep its own key (the model) alive.
        model_ref = weakref.ref(model)

        def run(values, encoder_tokens, sentence_ids):
            with keras.StatelessScope(state_mapping=list(zip(variables, values, strict=True))):
                # The tokens are a tracer here: `decode` runs its loop, not this function.
                return tuple(decode(model_ref(), encoder_tokens, strategy, **options,
                                    sentence_ids=sentence_ids, trim=False))

        per_model[key] = (jax.jit(run), variables)
    run, variables = per_model[key]
    batch, length = np.shape(encoder_tokens)
    padded = pad_to_bucket(encoder_tokens)
    if sentence_ids is None:
        sentence_ids = np.arange(batch, dtype=np.int32)
    # The extra rows' indices repeat the first ones: their results are never read back.
    sentence_ids = np.resize(np.asarray(sentence_ids, np.int32), len(padded))
    outputs = run([variable.value for variable in variables], padded, sentence_ids)
    result = DecodeResult(*(None if x is None else x[:batch] for x in outputs))
    if result.attention is not None:
        result = result._replace(attention=result.attention[..., :length])
    return result.trimmed() if trim else result
