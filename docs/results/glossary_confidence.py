"""Measures glossaries and confidence on the spa-eng test set (docs/results/glossary.md,
docs/results/confidence.md).

    python docs/results/glossary_confidence.py glossary RUN [--data DIR] [--out FILE.json]
    python docs/results/glossary_confidence.py confidence RUN [RUN...] [--data DIR]

glossary: 100 terms that occur in the test set, chosen by a fixed rule from the training data
alone (below), applied with `keras_nmt.workshop.translators.glossary.Glossary` (alignment
replacement) and, for comparison, two of the placeholder family (the model is to copy something
through): the target term written into the source in place of the source term, and a number the
sentence does not hold in its place, replaced by the target term after translation. Reports the
share of required target terms in the output, and BLEU on the sentences with a term and on the
others.

The rule: on the training pairs, lower-cased words; each Spanish word of 4 letters or more,
outside the 150 most frequent Spanish words, paired with the English word (outside the 150 most
frequent) it co-occurs with most by Dice's coefficient, kept when that is at least 0.5; of
those, the 100 whose source word and target word occur together in the most test pairs.

confidence: each test sentence's greedy translation, its mean token log-probability
(`keras_nmt.workshop.translators.word_alignment.confidence`) and its sentence chrF (sacreBLEU);
Spearman's rank correlation between the two.
"""

import argparse
import collections
import json
import lzma
import re
import sys
import time
from pathlib import Path

import numpy as np
import sacrebleu
from scipy.stats import spearmanr

from keras_nmt.decoding.decoding_options import GREEDY
from keras_nmt.workshop.translators.glossary import Glossary
from keras_nmt.workshop.translators.open_translator import open_translator
from keras_nmt.workshop.translators.word_alignment import confidence

WORD = re.compile(r"\w+")


def pairs(path):
    """(Spanish, English) pairs of a Tatoeba spa-eng file (columns: English, Spanish)."""
    opener = lzma.open if str(path).endswith(".xz") else open
    with opener(path, "rt", encoding="utf-8") as lines:
        return [(s, e) for e, s in (line.rstrip("\n").split("\t")[:2] for line in lines)]


def words(text):
    return set(WORD.findall(text.lower()))


def choose_terms(train, test, count=100):
    """The glossary rule of the module docstring: `{spanish: english}`."""
    spanish, english, both = collections.Counter(), collections.Counter(), collections.Counter()
    for source, target in train:
        s, e = words(source), words(target)
        spanish.update(s)
        english.update(e)
        both.update((a, b) for a in s for b in e)
    common_s = {w for w, _ in spanish.most_common(150)}
    common_e = {w for w, _ in english.most_common(150)}
    best = {}
    for (a, b), together in both.items():
        if len(a) < 4 or a in common_s or b in common_e or not a.isalpha() or not b.isalpha():
            continue
        dice = 2 * together / (spanish[a] + english[b])
        if dice >= 0.5 and dice > best.get(a, (0, ""))[0]:
            best[a] = (dice, b)
    in_test = collections.Counter()
    for source, target in test:
        s, e = words(source), words(target)
        for a in s & best.keys():
            if best[a][1] in e:
                in_test[a] += 1
    return {a: best[a][1] for a, _ in in_test.most_common(count)}


def has_term(text, term):
    return re.search(r"(?<!\w)" + re.escape(term) + r"(?!\w)", text, re.IGNORECASE) is not None


def bleu(hypotheses, references):
    return round(sacrebleu.corpus_bleu(hypotheses, [references]).score, 2) if hypotheses else None


def measure_glossary(run, data):
    train, test = pairs(data / "spa-eng.train.tsv.xz"), pairs(data / "spa-eng.test.tsv")
    terms = choose_terms(train, test)
    translator = open_translator(run)
    sources, references = [s for s, _ in test], [e for _, e in test]
    report = {"run": str(run), "terms": len(terms), "glossary": terms}
    for name, glossary in (("reference terms", Glossary(terms)),
                           ("do-not-translate", Glossary({s: s for s in terms}))):
        found = [glossary.find(s) for s in sources]
        with_terms = [i for i, m in enumerate(found) if m]
        started = time.perf_counter()
        plain = translator.translate_batch(sources, GREEDY.replace(return_attention=True))
        aligned = [glossary.apply(s, r) if m else r.text
                   for s, r, m in zip(sources, plain, found, strict=True)]
        seconds = time.perf_counter() - started
        # The placeholder family: the target term written into the source, copied through.
        inline = []
        for source, matches in zip(sources, found, strict=True):
            for match in reversed(matches):
                source = source[:match.start] + match.target + source[match.end:]
            inline.append(source)
        copied = translator.translate_batch([inline[i] for i in with_terms])
        inline_out = [r.text for r in plain]
        for i, result in zip(with_terms, copied, strict=True):
            inline_out[i] = result.text
        # The classic placeholder: a number the sentence does not hold, which models copy,
        # put back as the target term after translation.
        numbered, numbers = [], []
        for i in with_terms:
            source, used = sources[i], []
            free = (str(n) for n in range(7, 100) if str(n) not in sources[i])
            for match in reversed(found[i]):
                number = next(free)
                used.append((number, match.target))
                source = source[:match.start] + number + source[match.end:]
            numbered.append(source)
            numbers.append(used)
        number_out = [r.text for r in plain]
        for i, result, used in zip(with_terms, translator.translate_batch(numbered), numbers,
                                   strict=True):
            text = result.text
            for number, term in used:
                text = re.sub(r"(?<!\d)" + number + r"(?!\d)", term, text, count=1)
            number_out[i] = text
        rows = {}
        for method, outputs in (("no glossary", [r.text for r in plain]),
                                ("alignment replacement", aligned),
                                ("target term in the source", inline_out),
                                ("number placeholder", number_out)):
            required = [(i, m.target) for i in with_terms for m in found[i]]
            present = sum(has_term(outputs[i], term) for i, term in required)
            others = [i for i in range(len(sources)) if i not in set(with_terms)]
            rows[method] = {
                "required terms": len(required), "present": present,
                "share present": round(present / len(required), 4),
                "BLEU, sentences with a term": bleu([outputs[i] for i in with_terms],
                                                    [references[i] for i in with_terms]),
                "BLEU, the other sentences": bleu([outputs[i] for i in others],
                                                  [references[i] for i in others]),
                "BLEU, all": bleu(outputs, references),
            }
        report[name] = {"sentences with a term": len(with_terms), "methods": rows,
                        "seconds (translate with attention + apply)": round(seconds, 1)}
    return report


def measure_confidence(run, data):
    test = pairs(data / "spa-eng.test.tsv")
    translator = open_translator(run)
    results = translator.translate_batch([s for s, _ in test],
                                         GREEDY.replace(return_attention=True))
    confidences = [confidence(r) for r in results]
    chrf = [sacrebleu.sentence_chrf(r.text, [e]).score
            for r, (_, e) in zip(results, test, strict=True)]
    rho = spearmanr(confidences, chrf)
    return {"run": str(run), "sentences": len(test),
            "spearman": round(float(rho.statistic), 4), "p_value": float(rho.pvalue),
            "BLEU": bleu([r.text for r in results], [e for _, e in test]),
            "mean confidence": round(float(np.mean(confidences)), 4),
            "mean chrF": round(float(np.mean(chrf)), 2)}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("what", choices=["glossary", "confidence"])
    parser.add_argument("runs", nargs="+")
    parser.add_argument("--data", type=Path, default=Path("../shared/data"))
    parser.add_argument("--out", type=Path)
    args = parser.parse_args(argv)
    measure = measure_glossary if args.what == "glossary" else measure_confidence
    report = [measure(run, args.data) for run in args.runs]
    text = json.dumps(report, indent=1, ensure_ascii=False)
    if args.out:
        args.out.write_text(text + "\n")
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
