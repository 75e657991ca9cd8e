"""`SpellingTask`: the spelling corrector's training data, a `Task` beside `TranslationTask`."""

import dataclasses

from keras_nmt.workshop.run.task import Task
from keras_nmt.workshop.spelling.noisy_dataset import NoisyStream
from keras_nmt.workshop.spelling.spelling_data import SpellingData


@dataclasses.dataclass
class SpellingTask(Task):
    """Noisy -> clean sentences: fixed noise for validation, fresh noise on each training pass.

    The tokenizers are built on one seeded noisy version of the training sentences
    (`SpellingData.vocabulary_pairs`), so the source vocabulary sees misspelled text; validation
    scores the fixed noisy pairs; training batches come from `NoisyStream`, which a resumed run
    continues exactly.

    Example:
        >>> data = SpellingData.from_file("sentences.txt", NoiseGenerator())  # doctest: +SKIP
        >>> train(TrainConfig(tokenizer="char"), task=SpellingTask(data))  # doctest: +SKIP
    """

    data: SpellingData

    def load_pairs(self, config):
        return self.data.vocabulary_pairs(), self.data.valid_pairs

    def training_stream(self, config, train_pairs, source_tokenizer, target_tokenizer):
        return NoisyStream(
            self.data.train, self.data.generator, source_tokenizer, target_tokenizer,
            config.batch_size, seed=self.data.seed, max_length=config.max_length,
        )
