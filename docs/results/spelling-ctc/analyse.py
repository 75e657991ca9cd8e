"""The CTC spelling page's figures: typos fixed by kind, frames needed, examples, decoding speed.

Reads the run folders of a spelling comparison (`keras-nmt spell compare --tokenizers char
--models lstm,luong,ctc --output-dir RUNS`), regenerates the test set's noise with the operations
that made it (the same seed, `NoiseGenerator.corrupt_with_ops`), and writes `analysis.json`
beside this script. Usage, from the repository root:

    python docs/results/spelling-ctc/analyse.py runs/spell-ctc

- **by typo**: of the test words that one kind of typo made wrong, the share each corrector
  set right (the word aligned to the clean word is equal to it); words hit by two kinds or
  more are one more row.
- **frames**: the share of test sentences whose clean text a CTC model with `k` frames per
  typed character cannot emit at all (`k * len(noisy) < len(clean) + repeats(clean)`).
- **speed**: greedy corrections of the test sentences by each run in turn, three rounds after a
  warm-up, in sentences per second; and the CTC run's beam search.
- **examples**: test sentences where the aligned model and the attention model disagree.
"""

import json
import random
import sys
from collections import Counter
from pathlib import Path

from keras_nmt.decoding.decoding_options import DecodingOptions
from keras_nmt.workshop.run.run_folder import RunFolder
from keras_nmt.workshop.spelling.noise import NoiseGenerator, NoiseRates
from keras_nmt.workshop.spelling.report import align_words
from keras_nmt.workshop.spelling.training import correct_texts, evaluate_corrector
from keras_nmt.workshop.timing import time_in_turn

HERE = Path(__file__).resolve().parent
CTC, ATTENTION = "ctc", "luong"


def read_run(folder):
    """`(report, noise settings, [(noisy, clean, corrected)])` of a finished spelling run."""
    record = json.loads((folder / "spelling.json").read_text())
    lines = (folder / "test_pairs.tsv").read_text(encoding="utf-8").splitlines()[1:]
    return record["test"], record, [tuple(line.split("\t")) for line in lines]


def test_operations(record, triples):
    """The typo kinds of each clean word of each test sentence: `[[set of kinds]]`."""
    noise = record["noise"]
    generator = NoiseGenerator(NoiseRates(**noise["rates"]), noise["word_rate"], noise["seed"])
    rng = random.Random(f"{record['seed']}:test")  # as `SpellingData.from_sentences`
    kinds = []
    for noisy, clean, _ in triples:
        again, operations = generator.corrupt_with_ops(clean, rng)
        assert again == noisy, "the test noise did not regenerate: other settings?"
        words = [set() for _ in clean.split()]
        for index, operation in operations:
            words[index].add(operation)
        kinds.append(words)
    return kinds


def by_typo(runs, kinds):
    """`{kind: {"words": n, model: share fixed}}` over the words a typo made wrong."""
    counts, fixed = Counter(), Counter()
    for row, sentence_kinds in enumerate(kinds):
        noisy, clean, _ = runs[CTC][row]
        clean_words, noisy_words = clean.split(), noisy.split()
        aligned = {model: align_words(clean_words, triples[row][2].split())
                   for model, triples in runs.items()}
        for index, word_kinds in enumerate(sentence_kinds):
            if not word_kinds or noisy_words[index] == clean_words[index]:
                continue
            kind = next(iter(word_kinds)) if len(word_kinds) == 1 else "two kinds or more"
            counts[kind] += 1
            for model in runs:
                fixed[kind, model] += aligned[model][index] == clean_words[index]
    return {kind: {"words": count, **{model: fixed[kind, model] / count for model in runs}}
            for kind, count in counts.most_common()}


def frames_needed(text):
    """CTC frames that can carry `text`: its characters plus one blank per doubled letter."""
    return len(text) + sum(a == b for a, b in zip(text, text[1:], strict=False))


def unreachable(triples, upsampling):
    """The share of sentences whose clean text needs more frames than `upsampling` per typed
    character give."""
    return sum(upsampling * len(noisy) < frames_needed(clean)
               for noisy, clean, _ in triples) / len(triples)


def examples(runs, kinds, wanted=("transposition", "deletion", "dropped_double", "insertion",
                                  "substitution", "case"),
             per_kind=3):
    """Sentences with a word of one typo kind that exactly one of CTC and Luong set right."""
    found = {kind: [] for kind in wanted}
    for row, sentence_kinds in enumerate(kinds):
        noisy, clean, ctc = runs[CTC][row]
        attention = runs[ATTENTION][row][2]
        for index, word_kinds in enumerate(sentence_kinds):
            kind = next(iter(word_kinds)) if len(word_kinds) == 1 else None
            if kind not in found or len(found[kind]) >= 2 * per_kind:
                continue
            word = clean.split()[index]
            right = {model: align_words(clean.split(), text.split())[index] == word
                     for model, text in ((CTC, ctc), (ATTENTION, attention))}
            if right[CTC] != right[ATTENTION]:
                found[kind].append({"noisy": noisy, "clean": clean, CTC: ctc,
                                    ATTENTION: attention, "word": word,
                                    "right": CTC if right[CTC] else ATTENTION})
    return found


def speeds(folders, texts):
    """Greedy sentences/s of each run, timed in turn; and the CTC run's beam 4 report."""
    translators = {model: RunFolder.load(folder).translator()
                   for model, folder in folders.items()}
    for translator in translators.values():  # warm-up: traces the graphs
        correct_texts(translator, texts[:64])
    models = list(translators)
    timings = time_in_turn([lambda t=translators[m]: correct_texts(t, texts) for m in models],
                           repeats=3, rotate=True)
    return {model: len(texts) / timing.median
            for model, timing in zip(models, timings, strict=True)}


def main(runs_dir):
    folders = {path.name.split("-", 1)[1]: path for path in sorted(Path(runs_dir).glob("char-*"))
               if (path / "spelling.json").exists()}
    reports, runs = {}, {}
    for model, folder in folders.items():
        reports[model], record, runs[model] = read_run(folder)
    kinds = test_operations(record, runs[CTC])
    texts = [noisy for noisy, _, _ in runs[CTC]]
    clean = [target for _, target, _ in runs[CTC]]
    pairs = list(zip(texts, clean, strict=True))
    beam, _ = evaluate_corrector(RunFolder.load(folders[CTC]).translator(), pairs, set(),
                                 DecodingOptions(beam_size=4))
    analysis = {
        "reports": reports,
        "by_typo": by_typo(runs, kinds),
        "unreachable": {k: unreachable(runs[CTC], k) for k in (1, 2, 3)},
        "ctc_beam_4": {key: beam[key] for key in ("corrected_cer", "corrected_wer",
                                                  "corrected_exact", "sentences_per_second")},
        "greedy_sentences_per_second": speeds(folders, texts),
        "examples": examples(runs, kinds),
    }
    (HERE / "analysis.json").write_text(json.dumps(analysis, indent=2, ensure_ascii=False) + "\n")
    print(json.dumps({k: v for k, v in analysis.items() if k != "examples"}, indent=2))


if __name__ == "__main__":
    main(sys.argv[1])
