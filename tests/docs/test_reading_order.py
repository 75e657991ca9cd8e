"""README.md's "Read the code": every file it names is in the textbook, and each line it names
still holds the equation it quotes."""

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def reading_order():
    """`[(path, line, quoted pieces)]` from the table between the `reading order` comments."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    block = re.search(r"<!-- reading order:.*?-->(.*?)<!-- end reading order -->", text, re.S)
    assert block, "README.md lost its reading order"
    rows = []
    for line in block.group(1).splitlines():
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if len(cells) < 4 or not cells[0].isdigit():
            continue
        path, number = cells[2].strip("`").rsplit(":", 1)
        rows.append((path, int(number), re.findall(r"`([^`]+)`", line.split(cells[2], 1)[1])))
    return rows


def normalized(text):
    return re.sub(r"[`\s]+", " ", text.replace("\\|", "|")).strip()


def test_the_reading_order_names_eight_to_twelve_textbook_files():
    rows = reading_order()
    assert 8 <= len({path for path, _, _ in rows}) <= 12
    for path, _, _ in rows:
        assert (ROOT / path).is_file(), path
        assert "workshop" not in Path(path).parts, f"{path} is not in the textbook"


def test_each_named_line_holds_its_equation():
    for path, number, pieces in reading_order():
        lines = (ROOT / path).read_text(encoding="utf-8").splitlines()
        line = normalized(lines[number - 1])
        for piece in pieces:
            head = normalized(piece).split("...")[0].strip(" ,")
            assert head in line, f"{path}:{number} no longer reads {piece!r}"
