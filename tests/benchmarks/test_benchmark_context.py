"""The benchmark's training pairs: a seeded shuffle of a split that is sorted by length."""

import lzma

import numpy as np

from keras_nmt.workshop.benchmarks.sections import training_pairs


def test_training_pairs_are_a_seeded_shuffle_of_the_whole_split(tmp_path):
    # Sorted by length, as the spa-eng split is: English first, then Spanish.
    pairs = [(" ".join(["hola"] * n), " ".join(["hello"] * n)) for n in range(1, 401)]
    path = tmp_path / "spa-eng.train.tsv.xz"
    with lzma.open(path, "wt", encoding="utf-8") as file:
        file.writelines(f"{english}\t{spanish}\n" for spanish, english in pairs)

    shuffled = training_pairs(path, seed=0)
    assert sorted(shuffled) == sorted(pairs)  # every pair once, Spanish -> English
    assert training_pairs(path, seed=0) == shuffled
    assert training_pairs(path, seed=1) != shuffled
    # The first quarter has about the mean length of all (200.5 words), not the shortest (50.5).
    first_quarter = [len(spanish.split()) for spanish, _ in shuffled[:100]]
    assert abs(np.mean(first_quarter) - 200.5) < 30
