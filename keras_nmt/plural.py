"""Counts in words: `plural(1, "sentence")` is "1 sentence", never "1 sentences".

Every message that puts a number before a noun goes through `plural` (a test reads the code
for f-strings that do not).

Example:
    >>> plural(1, "epoch"), plural(1.07, "epoch"), plural(2_000, "sentence"), plural(1, "batch")
    ('1 epoch', '1.07 epochs', '2,000 sentences', '1 batch')
    >>> plural(3, "batch"), plural(2, "hypothesis", "hypotheses")
    ('3 batches', '2 hypotheses')
"""


def plural(count, noun, nouns=None):
    """`count` and `noun`, the noun in the plural unless `count` is 1 (`nouns`: the plural
    when adding "s" or "es" does not make it); whole numbers with thousands separators."""
    if nouns is None:
        nouns = noun + ("es" if noun.endswith(("s", "sh", "tch", "x")) else "s")
    number = f"{int(count):,}" if float(count).is_integer() else f"{count:,g}"
    return f"{number} {noun if count == 1 else nouns}"
