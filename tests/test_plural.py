"""No "1 sentences": a number before a count noun goes through `keras_nmt.plural.plural`.

The class, not the case: every f-string of the library is read, and one that puts a formatted
value right before a plural count noun (`f"{n} sentences"`) fails, unless the value cannot be 1
(listed below, with why).
"""

import ast
import re
from pathlib import Path

from keras_nmt.plural import plural

LIBRARY = Path(__file__).resolve().parents[1] / "keras_nmt"
NOUNS = ("sentences", "epochs", "pairs", "lines", "batches", "tokens", "words", "characters",
         "minutes", "hypotheses", "samples", "files", "steps", "translations", "models", "runs",
         "pieces", "layers", "heads", "columns", "references", "errors")
# A noun, not a unit ("sentences/s" follows a rate).
_FOLLOWED = re.compile(rf"^ ({'|'.join(NOUNS)})\b(?!/)")
# (file, the value's source text): never 1, so the plural is always right.
NEVER_ONE = {
    ("workshop/cli/translate.py", "lengths[index]"),  # longer than the model's limit
    ("data/pipeline.py", "self.max_length"),  # "N longer than MAX tokens": a limit
    ("workshop/corpora/parallel_corpus.py", "self.max_chars"),  # "longer than MAX characters"
    ("workshop/comparison/preset_registry.py", "SPA_ENG_BATCH_TOKENS"),  # a constant, 4,096
    ("workshop/cli/benchmark.py", "QUICK_PAIRS"),  # a constant
    ("workshop/benchmarks/train_section.py", "args.batch_tokens"),  # "<= N tokens": a limit
    ("metrics/references.py", "num_hypotheses"),  # an error about two counts that differ
    ("metrics/edit_distance.py", "len(hypotheses)"),  # the same
    ("workshop/run/validation_scores.py", "len(hypotheses)"),  # the same
    ("workshop/corpora/corpus.py", "source_counts.read"),  # two line counts that differ
    ("workshop/corpora/corpus.py", "target_counts.read"),
    ("workshop/cli/compare.py", "config.epochs"),  # only below EPOCHS_FOR_TIME_BUDGET with a budget
    ("workshop/corpora/data_profile.py", "side"),  # "its source words": a side's name, not a count
    ("workshop/run/trainer.py", "side"),  # the same
    ("workshop/translators/glossary.py", "len(term)"),  # a term longer than the limit
    ("workshop/translators/glossary.py", "len(columns)"),  # more than 2 columns
    ("workshop/corpora/raw_lines.py", "limit"),  # "longer than N characters": a limit, a million
}


def _decimal(value):
    """A value formatted with decimals (`{rate:.2f}`): "1.00 pieces" is plural in English."""
    spec = value.format_spec
    return spec is not None and any(isinstance(part, ast.Constant) and "." in str(part.value)
                                    for part in spec.values)


def counts_before_nouns():
    """`(file, value source, line)` of every f-string value followed by a plural count noun."""
    found = []
    for path in sorted(LIBRARY.rglob("*.py")):
        source = path.read_text(encoding="utf-8")
        for node in ast.walk(ast.parse(source)):
            if not isinstance(node, ast.JoinedStr):
                continue
            for value, after in zip(node.values, node.values[1:], strict=False):
                if (isinstance(value, ast.FormattedValue) and not _decimal(value)
                        and isinstance(after, ast.Constant) and isinstance(after.value, str)
                        and _FOLLOWED.match(after.value)):
                    found.append((str(path.relative_to(LIBRARY)),
                                  ast.get_source_segment(source, value.value), node.lineno))
    return found


def test_every_count_before_a_noun_agrees_with_it():
    wrong = [f"keras_nmt/{file}:{line}: {{{value}}}" for file, value, line in counts_before_nouns()
             if (file, value) not in NEVER_ONE]
    assert not wrong, "use keras_nmt.plural.plural:\n" + "\n".join(wrong)


def test_every_exception_still_names_a_count_of_the_library():
    """An entry of NEVER_ONE whose count moved or went would excuse nothing, or the wrong file."""
    found = {(file, value) for file, value, _ in counts_before_nouns()}
    assert sorted(NEVER_ONE - found) == []


def test_plural():
    assert [plural(1, "sentence"), plural(2, "sentence"), plural(1.07, "epoch"),
            plural(0.5, "epoch"), plural(1, "batch"), plural(1_752, "batch"),
            plural(1, "minute"), plural(2, "hypothesis", "hypotheses"), plural(8.0, "minute")] == [
        "1 sentence", "2 sentences", "1.07 epochs", "0.5 epochs", "1 batch", "1,752 batches",
        "1 minute", "2 hypotheses", "8 minutes"]
