"""The typing-noise generator: each operation, the rates, seeding, and the untouched clean side."""

import random
from collections import Counter

import pytest

from keras_nmt.workshop.spelling.noise import (
    QWERTY_NEIGHBOURS,
    NoiseGenerator,
    NoiseRates,
    neighbour_keys,
    noisy_pairs,
    strip_accents,
)

WORDS = (
    "the quick brown fox jumps over the lazy dog while Tom keeps calling his little sister "
    "about a letter that will arrive tomorrow morning café niño jalapeño I a"
).split()


def only(word_rate=1.0, seed=0, **rates):
    return NoiseGenerator(NoiseRates.only(**rates), word_rate=word_rate, seed=seed)


def random_text(num_words, seed=0):
    rng = random.Random(seed)
    return " ".join(rng.choice(WORDS) for _ in range(num_words))


def test_qwerty_neighbours_are_symmetric_and_touching():
    assert QWERTY_NEIGHBOURS["g"] == "tyfhvb"
    assert QWERTY_NEIGHBOURS["q"] == "wa"
    assert QWERTY_NEIGHBOURS["m"] == "jkn"
    assert len(QWERTY_NEIGHBOURS) == 26
    for key, neighbours in QWERTY_NEIGHBOURS.items():
        for other in neighbours:
            assert key in QWERTY_NEIGHBOURS[other]
    assert neighbour_keys("G") == "TYFHVB"
    assert neighbour_keys("é") == ""


def test_deletion_removes_exactly_one_letter():
    noisy, ops = only(deletion=1.0).corrupt_with_ops("ab")
    # Deletion never takes the word's last letter, so "ab" loses exactly one of its two.
    assert noisy == "b"
    assert ops == [(0, "deletion")]
    generator = only(deletion=0.2)
    for seed in range(50):
        noisy, ops = generator.corrupt_with_ops("keyboard", random.Random(seed))
        assert len(noisy) == 8 - len(ops)
        if len(ops) == 1:
            assert any(noisy == "keyboard"[:i] + "keyboard"[i + 1 :] for i in range(8))


def test_substitution_uses_a_neighbouring_key_and_keeps_case():
    generator = only(substitution=1.0)
    for seed in range(30):
        noisy = generator.corrupt("Go", random.Random(seed))
        assert len(noisy) == 2
        assert noisy[0] in "TYFHVB" and noisy[1] in "ipkl"


def test_insertion_adds_a_neighbour_after_the_letter():
    for seed in range(30):
        noisy = only(insertion=1.0).corrupt("a", random.Random(seed))
        assert len(noisy) == 2 and noisy[0] == "a" and noisy[1] in "qwsz"


def test_transposition_swaps_adjacent_letters():
    assert only(transposition=1.0).corrupt("the cat") == "hte act"
    noisy, ops = only(transposition=1.0).corrupt_with_ops("ab.")
    assert (noisy, ops) == ("ba.", [(0, "transposition")])


def test_doubling_and_dropped_double():
    assert only(doubling=1.0).corrupt("ab") == "aabb"
    assert only(dropped_double=1.0).corrupt("letter") == "leter"
    assert only(dropped_double=1.0).corrupt("Hello, all") == "Helo, al"


def test_case_flips_the_first_letter():
    assert only(case=1.0).corrupt("Tom is here, I think") == "tom Is Here, i Think"
    assert only(case=1.0).corrupt("¿qué?") == "¿Qué?"


def test_accents_are_dropped_per_word():
    assert strip_accents("Él está en Bogotá, niño") == "El esta en Bogota, nino"
    assert only(accent=1.0).corrupt("café niño naïve plain") == "cafe nino naive plain"
    noisy, ops = only(accent=1.0).corrupt_with_ops("plain café")
    assert ops == [(1, "accent")]


def test_one_letter_words_and_punctuation_are_handled():
    everything = NoiseRates(**{name: 1.0 for name in NoiseRates.__dataclass_fields__})
    generator = NoiseGenerator(everything, word_rate=1.0)
    for seed in range(20):
        noisy = generator.corrupt("I - a , 42 ...", random.Random(seed))
        words = noisy.split(" ")
        assert len(words) == 6  # no word vanishes, no space is added
        assert words[1] == "-" and words[3] == "," and words[4] == "42" and words[5] == "..."
        assert len(words[0]) >= 1 and len(words[2]) >= 1
    # Deletion alone never empties a one-letter word.
    assert only(deletion=1.0).corrupt("I a") == "I a"


def test_white_space_and_word_count_are_kept():
    generator = NoiseGenerator(word_rate=1.0, seed=3)
    text = "  Tom   said\tit's  fine.  "
    noisy = generator.corrupt(text)
    assert noisy[:2] == "  " and noisy[-2:] == "  " and "\t" in noisy
    assert len(noisy.split()) == len(text.split())


def test_word_rate_zero_changes_nothing():
    text = random_text(500)
    assert NoiseGenerator(word_rate=0.0).corrupt(text) == text


@pytest.mark.parametrize(
    "name, rate",
    [
        ("deletion", 0.1),
        ("insertion", 0.08),
        ("substitution", 0.12),
        ("transposition", 0.1),
        ("doubling", 0.05),
        ("dropped_double", 0.4),
        ("case", 0.2),
        ("accent", 0.5),
    ],
)
def test_each_rate_is_met_on_20k_words(name, rate):
    generator = only(word_rate=0.3, seed=1, **{name: rate})
    sites = Counter()
    _, ops = generator.corrupt_with_ops(random_text(20_000), sites=sites)
    assert sites["word"] == 20_000
    # Touched words: binomial(20000, 0.3), standard deviation 65 words.
    assert abs(sites["touched"] / 20_000 - 0.3) < 0.01
    fired = sum(op == name for _, op in ops)
    assert sites[name] > 300
    # Within 4 standard deviations of the binomial count at the sites the operation could use.
    sigma = (sites[name] * rate * (1 - rate)) ** 0.5
    assert abs(fired - rate * sites[name]) < 4 * sigma


def test_substitution_rate_seen_from_outside():
    # Measured on the output alone: same length, changed letters / letters with neighbours.
    text = random_text(20_000, seed=5)
    noisy = only(substitution=0.1, word_rate=0.5, seed=2).corrupt(text)
    assert len(noisy) == len(text)
    changed = sum(a != b for a, b in zip(text, noisy, strict=True))
    letters = sum(c.lower() in QWERTY_NEIGHBOURS for c in text)
    assert abs(changed / letters - 0.05) < 0.005


def test_same_seed_same_noise_different_seed_different_noise():
    text = random_text(300)
    assert NoiseGenerator(seed=7).corrupt(text) == NoiseGenerator(seed=7).corrupt(text)
    assert NoiseGenerator(seed=7).corrupt(text) != NoiseGenerator(seed=8).corrupt(text)
    generator = NoiseGenerator(seed=7)
    assert generator.corrupt(text, random.Random(1)) == generator.corrupt(text, random.Random(1))


def test_noisy_pairs_are_seeded_and_keep_the_clean_side():
    clean = [random_text(8, seed=s) for s in range(200)]
    copy = list(clean)
    pairs = noisy_pairs(clean, seed=3)
    assert [c for _, c in pairs] == copy and clean == copy
    assert pairs == noisy_pairs(clean, seed=3)
    assert pairs != noisy_pairs(clean, seed=4)
    changed = sum(noisy != c for noisy, c in pairs)
    assert 100 < changed < 200  # 8 words at word rate 0.3: most sentences get some noise


def test_rates_parse_and_validate():
    rates = NoiseRates.parse("deletion=0.1, dropped-double=0")
    assert rates.deletion == 0.1 and rates.dropped_double == 0.0
    assert rates.substitution == NoiseRates().substitution
    with pytest.raises(ValueError, match="bad noise rate"):
        NoiseRates.parse("typo=0.1")
    with pytest.raises(ValueError, match="in \\[0, 1\\]"):
        NoiseRates(deletion=1.5)
    assert NoiseGenerator({"case": 0.0}).rates.case == 0.0
