"""How a seq2seq model is compiled for `fit`: the masked loss, its metrics and the optimizer.

Teacher forcing is in the data: the decoder reads the target shifted right (``[START] + y``) and
is scored on ``y + [END]`` (`keras_nmt.data.pipeline.make_dataset`), so one ``model.fit`` step
computes the loss of every target position at once,

    loss = - sum_t m_t log p(y_t | y_<t, x) / sum_t m_t        (m_t = 0 on padding),

`MaskedSparseCrossEntropy` (label smoothing optional, Szegedy et al. 2016); `MaskedAccuracy` and
`Perplexity` (exp of the loss) are counted on the same positions. The optimizer is Adam with
gradient clipping; the Transformer's learning rate follows the inverse square root schedule of
Vaswani et al. 2017 (`InverseSqrtSchedule`), the others' is constant (each model's recipe on its
card, `ModelCard.recipe`).

Example:
    >>> model = build_model("luong", "functional", 64, 64, units=32)
    >>> compile_model(model, TrainConfig(model="luong"))
    >>> model.fit(make_dataset(pairs, source_tokenizer, target_tokenizer, batch_size=32))
"""

from keras_nmt.models.registry import ALIGNED_MODEL_NAMES, card
from keras_nmt.training.fused_adam import FusedAdam
from keras_nmt.training.inverse_sqrt_schedule import InverseSqrtSchedule
from keras_nmt.training.masked_accuracy import MaskedAccuracy
from keras_nmt.training.masked_sparse_cross_entropy import MaskedSparseCrossEntropy
from keras_nmt.training.perplexity import Perplexity


def loss_and_metrics(config):
    """`(loss, metrics)` of training: the masked cross-entropy, masked accuracy and perplexity.

    An aligned model (CTC) computes its own loss (`CtcModel.compute_loss`: it needs the input
    lengths, which a Keras loss never sees) and has no per-token metrics: its outputs are
    frames, not target positions. Its scores are the validation translations' (val_bleu...).
    """
    if config.model in ALIGNED_MODEL_NAMES:
        return None, []
    loss = MaskedSparseCrossEntropy(label_smoothing=config.label_smoothing)
    return loss, [MaskedAccuracy(), Perplexity()]


def compile_model(model, config):
    """Compiles with the masked loss and metrics and the model's recipe (`ModelCard.recipe`);
    a run started from another's weights (`init_from`) keeps a constant learning rate."""
    model_card = card(config.model)
    if model_card.schedule(fine_tuning=bool(config.init_from)) == "inverse_sqrt":
        learning_rate = InverseSqrtSchedule(config.d_model, warmup_steps=config.warmup_steps)
    else:
        learning_rate = config.learning_rate
    optimizer = FusedAdam(learning_rate, clipnorm=config.clipnorm, **model_card.recipe["adam"])
    loss, metrics = loss_and_metrics(config)
    model.compile(optimizer=optimizer, loss=loss, metrics=metrics, run_eagerly=config.run_eagerly,
                  jit_compile=config.jit_compile)
    if model.built:
        # Its slots made now, not inside the first training step: a variable created while
        # tracing makes TensorFlow trace the whole step again (docs/decisions.md).
        model.optimizer.build(model.trainable_variables)
