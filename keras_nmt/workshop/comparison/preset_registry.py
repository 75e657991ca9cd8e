"""The registry of comparison presets, holding the built-in ones; other modules add theirs.

Each preset is made by a function with no arguments that returns a `Preset`; the registry maps
the ``--preset`` name to that function, so building a preset costs nothing until it is used.

Adding a preset from another package (the hook for ``spelling``, which lives in
``keras_nmt/workshop/spelling``): either call `register_preset` when that package is imported, e.g.

    from keras_nmt.workshop.comparison.configuration import Configuration
    from keras_nmt.workshop.comparison.preset import Preset
    from keras_nmt.workshop.comparison.preset_registry import register_preset

    @register_preset("spelling")
    def spelling_preset():
        return Preset("spelling", "...", configurations=(...), task=SpellingTask(...))

or, so that ``keras-nmt compare --preset spelling`` finds it without importing the package first,
add ``"spelling": "keras_nmt.workshop.spelling.<module>:<function>"`` to `LAZY_PRESETS` (imported on
first use). A `Preset` may bring its own data and training batches as a `TranslationTask` (e.g.
fresh noise every epoch), see `Preset`.
"""

import importlib

from keras_nmt.decoding.decoding_options import GREEDY, DecodingOptions
from keras_nmt.models.registry import MODEL_NAMES
from keras_nmt.models.transformer import CHECKPOINT_AVERAGE
from keras_nmt.workshop.comparison.configuration import Configuration
from keras_nmt.workshop.comparison.preset import Preset
from keras_nmt.workshop.configurations import REFERENCE_CONFIGURATIONS, reference_configuration
from keras_nmt.workshop.corpora.corpus import shared_data_dir
from keras_nmt.workshop.run.train_config import REFERENCE_DEFAULTS

_PRESETS = {}
# name -> "module:function" of presets registered lazily (imported on first use).
LAZY_PRESETS = {}

# The reference corpus (in `shared_data_dir()`), Spanish -> English.
SPA_ENG_DATA = str(shared_data_dir() / "spa-eng.{split}.tsv")
# Padded source + target tokens per batch of the spa-eng `*-tokens` configurations: the
# `--batch-tokens` of the training-speed benchmark (1.6x Bahdanau's, 1.2x the Transformer's
# tokens/s of batches of 64 there: docs/results/benchmark-train*.md, AMD EPYC with AVX2).
SPA_ENG_BATCH_TOKENS = 4096
# Dropout of the first spa-eng references (recurrent models 0.2, Transformer 0.1, the base recipe).
_RECURRENT_DROPOUT = {"dropout": 0.2}
_TRANSFORMER_DROPOUT = {"dropout": 0.1}
# The Transformer reference averages checkpoints since its variants were measured: they keep
# their last weights, as they were trained.
_LAST = {"average_checkpoints": 1}
# The LSTM and Luong references had two layers per side when their variants were measured.
_TWO_LAYERS = {"num_layers": 2}
# The spa-eng variants, the alternatives measured against the references
# (docs/results/spa-eng-references.md):
# (name, model, the `TrainConfig` fields it changes, description). Dropout only slowed learning
# in the 2-5 epochs of the budget; the `general` score collapses onto one source position early;
# token batches lost at equal wall time (3.3x the pairs of a batch of 64, so the step size grows
# by about its square root: learning rate x2, Transformer warm-up /4, about equal in tokens);
# half the Transformer warm-up led after epoch 1 but fell behind after epoch 4.
_TOKENS = f"batches of <= {SPA_ENG_BATCH_TOKENS} tokens"
_SPA_ENG_VARIANTS = (
    ("lstm-2layer", "lstm", _TWO_LAYERS,
     "the lstm configuration with two layers per side (the earlier reference)"),
    ("lstm-dropout", "lstm", {**_TWO_LAYERS, **_RECURRENT_DROPOUT}, "lstm-2layer, dropout 0.2"),
    ("luong-2layer", "luong", _TWO_LAYERS,
     "the luong configuration with two layers per side (the earlier reference)"),
    ("luong-dropout", "luong", {**_TWO_LAYERS, **_RECURRENT_DROPOUT},
     "luong-2layer, dropout 0.2"),
    ("luong-general-dropout", "luong",
     {**_TWO_LAYERS, "attention_score": "general", **_RECURRENT_DROPOUT},
     "luong-dropout with Luong's `general` score"),
    ("bahdanau-dropout", "bahdanau", _RECURRENT_DROPOUT,
     "the bahdanau configuration, dropout 0.2"),
    ("bahdanau-tokens", "bahdanau",
     {**_RECURRENT_DROPOUT, "batch_tokens": SPA_ENG_BATCH_TOKENS, "learning_rate": 2e-3},
     f"bahdanau-dropout, {_TOKENS}, learning_rate 0.002"),
    ("transformer-dropout", "transformer", {**_TRANSFORMER_DROPOUT, **_LAST},
     "the transformer configuration without averaging, dropout 0.1"),
    ("transformer-tokens", "transformer",
     {**_TRANSFORMER_DROPOUT, **_LAST, "batch_tokens": SPA_ENG_BATCH_TOKENS,
      "warmup_steps": 1000},
     f"transformer-dropout, {_TOKENS}, warmup_steps 1000"),
    ("transformer-warmup", "transformer", {**_TRANSFORMER_DROPOUT, **_LAST, "warmup_steps": 2000},
     "transformer-dropout, warmup_steps 2000"),
    # The 2-layer LSTM gained ~3 validation BLEU per epoch at 0.001 (dates models learned fastest at
    # 0.005); the Transformer's output projection tied to its target embedding (Press and Wolf
    # 2017; Vaswani et al. 2017, §3.4): 2M fewer parameters, the same FLOPs.
    ("lstm-lr", "lstm", {**_TWO_LAYERS, "learning_rate": 3e-3},
     "lstm-2layer, learning_rate 0.003"),
    ("transformer-tied", "transformer", {"tied_output": True, **_LAST},
     "the transformer configuration without averaging, output projection tied to the target "
     "embedding"),
    ("transformer-last", "transformer", _LAST,
     "the transformer configuration without averaging: its last weights"),
    ("lstm-average", "lstm", {**_TWO_LAYERS, **CHECKPOINT_AVERAGE},
     "lstm-2layer, the mean of its last 5 weights 250 steps apart"),
)
# GNMT length penalty alpha of the `decoding` preset (Wu et al. 2016 found 0.6-0.7 best, §7).
DECODING_LENGTH_PENALTY = 0.6


def register_preset(name, factory=None):
    """Registers ``factory() -> Preset`` under ``name``; usable as a decorator.

    Raises:
        ValueError: ``name`` is already registered.
    """

    def decorator(function):
        if name in _PRESETS or name in LAZY_PRESETS:
            raise ValueError(f"a comparison preset named {name!r} is already registered")
        _PRESETS[name] = function
        return function

    return decorator(factory) if factory is not None else decorator


def preset_names():
    """Every registered preset name, built-in first."""
    return list(dict.fromkeys([*_PRESETS, *LAZY_PRESETS]))


def get_preset(name):
    """The `Preset` registered as ``name``.

    Raises:
        ValueError: no such preset.
    """
    if name not in _PRESETS and name in LAZY_PRESETS:
        module, function = LAZY_PRESETS[name].split(":")
        _PRESETS[name] = getattr(importlib.import_module(module), function)
    if name not in _PRESETS:
        raise ValueError(f"unknown comparison preset {name!r}; choose from {preset_names()}")
    preset = _PRESETS[name]()
    if preset.name != name:
        raise ValueError(f"preset registered as {name!r} calls itself {preset.name!r}")
    return preset


@register_preset("api")
def api_preset():
    """Functional vs subclassed twin of every model, plus the subclassed one run eagerly."""
    configurations = []
    for model in MODEL_NAMES:
        configurations += [
            Configuration(f"{model}-functional", {"model": model, "api": "functional"},
                          description=f"{model}, functional twin (static graph, mask_zero)"),
            Configuration(f"{model}-subclassed", {"model": model, "api": "subclassed"},
                          description=f"{model}, subclassed twin (step loop), tf.function"),
            Configuration(f"{model}-subclassed-eager",
                          {"model": model, "api": "subclassed", "run_eagerly": True},
                          description=f"{model}, subclassed twin with run_eagerly=True"),
        ]
    return Preset(
        "api",
        "The two APIs of each model: same arguments, same layer names; the subclassed twin also "
        "run eagerly (no tf.function) to show what graph compilation buys.",
        tuple(configurations),
    )


@register_preset("attention")
def attention_preset():
    """Plain LSTM vs Luong (dot, general, concat) vs Bahdanau vs Transformer vs ConvS2S."""
    configurations = [
        Configuration("lstm", {"model": "lstm"},
                      description="Sutskever et al. 2014: no attention, one context vector"),
    ]
    for score in ("dot", "general", "concat"):
        configurations.append(
            Configuration(f"luong-{score}", {"model": "luong", "attention_score": score},
                          description=f"Luong et al. 2015, {score} score")
        )
    configurations += [
        Configuration("bahdanau", {"model": "bahdanau"},
                      description="Bahdanau et al. 2014, additive attention"),
        Configuration("transformer", {"model": "transformer"},
                      description="Vaswani et al. 2017, multi-head self- and cross-attention"),
        Configuration("convs2s", {"model": "convs2s"},
                      description="Gehring et al. 2017, convolutions with an attention in "
                      "every decoder layer"),
    ]
    return Preset(
        "attention",
        "No attention vs the three Luong scores vs Bahdanau's additive attention vs the "
        "Transformer vs ConvS2S's multi-step attention, all functional twins on the same data.",
        tuple(configurations),
    )


@register_preset("granularity")
def granularity_preset():
    """The same model on characters, words and subwords."""
    return Preset(
        "granularity",
        "Character vs word vs subword (SentencePiece) tokenizers for the same model (Luong, "
        "general score): sequence lengths, vocabulary and speed trade against each other.",
        (
            Configuration("char", {"tokenizer": "char"}, description="characters"),
            Configuration("word", {"tokenizer": "word"}, description="words"),
            Configuration("subword", {"tokenizer": "subword"},
                          description="SentencePiece unigram pieces (--vocab-size)"),
        ),
        defaults={"model": "luong"},
    )


@register_preset("teacher-forcing")
def teacher_forcing_preset():
    """Plain teacher forcing vs each scheduled-sampling decay (Bengio et al. 2015)."""
    schedules = (
        ("teacher-forcing", "constant:1.0", "p = 1: always feed the ground truth"),
        ("linear", "linear", "p = 1 - k*i (k = 1e-4)"),
        ("exponential", "exponential", "p = k^i (k = 0.999)"),
        ("inverse-sigmoid", "inverse_sigmoid", "p = k / (k + exp(i / k)) (k = 500)"),
    )
    return Preset(
        "teacher-forcing",
        "Scheduled sampling (Bengio et al. 2015) in the subclassed Luong twin: the probability "
        "of feeding the ground truth decays with the optimizer step i.",
        tuple(
            Configuration(name, {"teacher_forcing": spec}, description=description)
            for name, spec, description in schedules
        ),
        defaults={"model": "luong", "api": "subclassed"},
    )


@register_preset("decoding")
def decoding_preset():
    """One model, decoded greedily and with beams of 2, 4, 8, with and without length penalty."""
    decodings = [GREEDY]
    for alpha in (0.0, DECODING_LENGTH_PENALTY):
        decodings += [DecodingOptions(beam_size=size, length_penalty=alpha) for size in (2, 4, 8)]
    return Preset(
        "decoding",
        "One trained model (Luong, general score), decoded greedily and by beam search of "
        f"width 2, 4 and 8, without and with the GNMT length penalty (alpha "
        f"{DECODING_LENGTH_PENALTY}): no retraining.",
        (Configuration("luong", {"model": "luong"}, description="the model every decoder uses"),),
        decodings=tuple(decodings),
    )


@register_preset("spa-eng")
def spa_eng_preset():
    """The reference translation run: each model's `spa-eng` configuration
    (`keras_nmt/workshop/configurations.py`).

    The variants (`_SPA_ENG_VARIANTS`) are the alternatives measured against the references,
    kept reproducible; docs/results/spa-eng-references.md reports each.
    """
    return Preset(
        "spa-eng",
        "Spanish -> English on the Tatoeba splits, subword vocabularies of 8k, each model's "
        "reference configuration for the same wall-clock budget (default 45 minutes each), "
        "scored with sacreBLEU BLEU and chrF on spa-eng.test.tsv against the raw cased "
        "references, greedy and beam 5.",
        tuple(
            Configuration(model, {"model": model}, reference_configuration("spa-eng", model),
                          REFERENCE_CONFIGURATIONS["spa-eng"][model]["description"])
            for model in MODEL_NAMES
        ),
        variants=tuple(
            Configuration(name, {"model": model, **changes},
                          reference_configuration("spa-eng", model), description)
            for name, model, changes, description in _SPA_ENG_VARIANTS
        ),
        decodings=(GREEDY, DecodingOptions(beam_size=5)),
        defaults={"data": SPA_ENG_DATA, **REFERENCE_DEFAULTS["spa-eng"]},
        evaluation_split="test",
    )


@register_preset("tiny")
def tiny_preset():
    """A smoke test: two small models on a little of the built-in dates data, one epoch."""
    models = (("lstm", "plain LSTM"), ("luong", "LSTM + Luong attention"))
    return Preset(
        "tiny",
        "Smoke test: a plain LSTM and a Luong attention model, tiny sizes, 1 epoch on 256 "
        "built-in date pairs.",
        tuple(Configuration(model, {"model": model}, description=description)
              for model, description in models),
        defaults={
            "epochs": 1,
            "train_size": 256,
            "valid_size": 32,
            "batch_size": 32,
            "embedding_dim": 16,
            "units": 32,
            "max_length": 40,
            "validation_sentences": 32,
            "samples": 0,
        },
    )
