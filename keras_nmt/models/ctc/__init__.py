"""An aligned model: Connectionist Temporal Classification (Graves et al. 2006).

The seq2seq models of `keras_nmt.models` read the whole source, then write the target one token
at a time: they learn the alignment between unaligned sequences (attention). CTC is the aligned
case: the model labels every (upsampled) input position with an output token or a *blank*, all
positions at once, and a labelling is read off by collapsing repeats and dropping blanks. The
loss sums over every alignment that collapses to the target, so no alignment is ever given.

- `ctc_model.CtcModel`: embeddings, a bidirectional LSTM, upsampling (each position becomes
  `upsampling` frames), a softmax over the target tokens and the blank at every frame.
- `ctc_loss.ctc_loss`: `-log p(y | x)`, summed over alignments by the forward recursion.
- `ctc_decoding`: best-path (greedy) decoding and CTC prefix beam search.

The model does not keep the seq2seq inference contract (`encode`, `decode_step`): it has no
decoder steps. It keeps the aligned one (`keras_nmt.decoding.aligned.AlignedModel`), through
which `keras_nmt.decoding.loop.decode`, the `Translator` and the SavedModel export run it.

This file is its card (`CARD`): its options, recipe and matmuls; no reference sizes or FLOPs
count (the benchmarks and the translation comparisons are the seq2seq models').
"""

import dataclasses

from keras_nmt.models import lstm
from keras_nmt.models.model_card import ModelCard
from keras_nmt.option_fields import option


@dataclasses.dataclass
class CtcOptions:
    """The option CTC brings besides the LSTM's."""

    upsampling: int = option(2, "CTC: output frames per input position, so an output may be up "
                             "to this many times as long as its input", at_least=1)


CARD = ModelCard(
    name="ctc",
    package=__name__,
    arguments=("embedding_dim", "units", "num_layers", "dropout", "upsampling"),
    options=CtcOptions,
    recipe={"schedule": "constant", "adam": {}},
    step_matmuls=lstm.step_matmuls,
    aligned_class=("ctc_model", "CtcModel"),
)
