"""The Markdown table helper."""

import pytest

from keras_nmt.workshop import markdown


def test_table_lines_and_alignment():
    text = markdown.table(["model", "BLEU"], [["lstm", 12.3], ["luong", ""]], align="lr")
    assert text.splitlines() == [
        "| model | BLEU |", "|---|---:|", "| lstm | 12.3 |", "| luong |  |",
    ]
    assert markdown.table(["a"], []) == "| a |\n|---|"
    with pytest.raises(ValueError, match="one 'l' or 'r' per column"):
        markdown.table(["a", "b"], [], align="l")
