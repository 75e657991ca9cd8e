"""Code fences of the Markdown documentation: parsing them for the documentation tests.

Example:
    >>> fences("text\\n```json\\n{}\\n```\\n")
    [Fence(info='json', text='{}\\n', line=2, closed=True, before='text\\n')]
"""

import dataclasses
import re
from pathlib import Path

REPOSITORY = Path(__file__).resolve().parents[2]
# A fence opens with three or more backticks or tildes, indented by at most three spaces.
_FENCE = re.compile(r"^( {0,3})(`{3,}|~{3,})(.*)$")


@dataclasses.dataclass
class Fence:
    """A fenced code block: its info string, its text, its opening line (1-based), whether a
    closing fence ends it, and the document's text before it."""

    info: str
    text: str
    line: int
    closed: bool
    before: str


def fences(markdown):
    """The fenced code blocks of a CommonMark document, in order.

    A fence closes on a line of the same character, at least as long, with nothing after it;
    an unclosed fence runs to the end of the document (as CommonMark renders it).
    """
    lines = markdown.splitlines(keepends=True)
    found, index = [], 0
    while index < len(lines):
        opening = _FENCE.match(lines[index].rstrip("\n"))
        if not opening or (opening.group(2)[0] == "`" and "`" in opening.group(3)):
            index += 1
            continue
        marker = opening.group(2)
        closing = re.compile(rf"^ {{0,3}}{re.escape(marker[0])}{{{len(marker)},}}\s*$")
        end = next((j for j in range(index + 1, len(lines)) if closing.match(lines[j])), None)
        body = lines[index + 1: end if end is not None else len(lines)]
        found.append(Fence(opening.group(3).strip(), "".join(body), index + 1, end is not None,
                           "".join(lines[:index])))
        index = (end if end is not None else len(lines)) + 1
    return found


def fence_after(markdown, marker, info=None):
    """The first fence after the line holding `marker` (e.g. an HTML comment), of `info`."""
    position = markdown.index(marker)
    for fence in fences(markdown):
        if len(fence.before) > position and (info is None or fence.info == info):
            return fence
    raise ValueError(f"no fence after {marker!r}")
