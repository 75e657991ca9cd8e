"""`SpellingData`: the clean splits, the noise, and the pairs and datasets made from them."""

import dataclasses

from keras_nmt.workshop.spelling.noise import NoiseGenerator, noisy_pairs
from keras_nmt.workshop.spelling.report import clean_vocabulary
from keras_nmt.workshop.spelling.sentences import read_sentences, split_sentences


@dataclasses.dataclass
class SpellingData:
    """Clean sentences split three ways, and the noise that turns them into training pairs.

    Validation and test pairs are noised once, with fixed seeds (``"{seed}:valid"``,
    ``"{seed}:test"``), so every model is scored on the same misspellings. Training sentences get
    fresh noise on every pass (`keras_nmt.workshop.spelling.task.SpellingTask`).

    Attributes:
        train: clean training sentences.
        valid_pairs: fixed ``(noisy, clean)`` validation pairs.
        test_pairs: fixed ``(noisy, clean)`` test pairs.
        generator: the `NoiseGenerator`.
        seed: the seed all noise and orders derive from.
    """

    train: list
    valid_pairs: list
    test_pairs: list
    generator: NoiseGenerator
    seed: int = 0

    @classmethod
    def from_sentences(cls, sentences, generator, seed=0, valid_size=None, test_size=None):
        """Splits ``sentences`` (`split_sentences`) and noises the held-out ones."""
        train, valid, test = split_sentences(sentences, seed, valid_size, test_size)
        return cls(
            train=train,
            valid_pairs=noisy_pairs(valid, f"{seed}:valid", generator),
            test_pairs=noisy_pairs(test, f"{seed}:test", generator),
            generator=generator,
            seed=seed,
        )

    @classmethod
    def from_file(cls, path, generator, seed=0, column=None, max_sentences=None, max_chars=None,
                  valid_size=None, test_size=None):
        """`read_sentences` then `from_sentences`."""
        sentences = read_sentences(path, column, max_sentences, max_chars)
        return cls.from_sentences(sentences, generator, seed, valid_size, test_size)

    def vocabulary_pairs(self):
        """One seeded noisy version of the training sentences, ``[(noisy, clean)]``.

        `keras_nmt.workshop.run.trainer.train` builds the tokenizers on its training pairs: giving
        it these lets the source vocabulary see misspelled text (a word vocabulary gets its most
        frequent misspellings, a subword model pieces of them), not only clean text.
        """
        return noisy_pairs(self.train, f"{self.seed}:vocabulary", self.generator)

    def clean_vocabulary(self):
        """The clean training words (see `keras_nmt.workshop.spelling.report.clean_vocabulary`)."""
        return clean_vocabulary(self.train)

    def summary(self):
        """The split sizes and the noise settings, in one line."""
        return (
            f"{len(self.train)} training, {len(self.valid_pairs)} validation and "
            f"{len(self.test_pairs)} test sentences; noise: word rate "
            f"{self.generator.word_rate}, {dataclasses.asdict(self.generator.rates)}"
        )
