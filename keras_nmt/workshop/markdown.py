"""The one Markdown table writer of the project (comparison, spelling, scores, benchmarks)."""


def table(titles, rows, align=None):
    """A GitHub-flavoured Markdown table.

    Cells are written as given (`str` of each value); escaping `|` inside a cell is the caller's
    choice of text.

    Args:
        titles: the column titles.
        rows: sequences of cells, one per row (as many cells as titles).
        align: optional string with one letter per column, `l` (`---`) or `r` (`---:`, numbers);
            default: every column `---`.

    Returns:
        The table, one line per row, joined by newlines (no trailing newline).

    Example:
        >>> print(table(["model", "BLEU"], [["lstm", "12.3"]], align="lr"))
        | model | BLEU |
        |---|---:|
        | lstm | 12.3 |
    """
    align = align or "l" * len(titles)
    if len(align) != len(titles) or set(align) - {"l", "r"}:
        raise ValueError(f"align needs one 'l' or 'r' per column, got {align!r} for {titles}")
    lines = [
        "| " + " | ".join(titles) + " |",
        "|" + "|".join("---:" if side == "r" else "---" for side in align) + "|",
    ]
    for row in rows:
        lines.append("| " + " | ".join(str(cell) for cell in row) + " |")
    return "\n".join(lines)


def scores_table(scores):
    """A Markdown table of `keras_nmt.workshop.evaluation.score_all`'s result (plus any extra
    numeric entries), then the sacreBLEU signatures and the Unicode normalization both sides
    were scored in."""
    rows = [
        [key, f"{value:.4f}" if isinstance(value, float) else str(value)]
        for key, value in scores.items()
        if not key.endswith("_signature") and key != "unicode_form"
    ]
    signatures = [
        f"{key.split('_')[0]} signature: {value}"
        for key, value in scores.items()
        if key.endswith("_signature")
    ]
    if "unicode_form" in scores:
        signatures.append(f"hypotheses and references scored in Unicode {scores['unicode_form']}")
    return "\n".join([table(["metric", "value"], rows), "", *signatures])
