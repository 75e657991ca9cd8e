"""Small shared helpers for the tokenizer tests."""

import functools
from pathlib import Path

import numpy as np

TINY_TEXTS = [
    "Tell me.",
    "Dis-moi !",
    "¿Dónde está el perro?",
    "L'homme est là aujourd'hui.",
    "« Merci pour votre aide. »",
    "I don't know, Tom.",
    "¡Qué bonito día!",
]


def strings(tensor) -> list[str]:
    """A tf.string tensor as a list of python str."""
    return [s.decode("utf-8") for s in np.asarray(tensor.numpy()).tolist()]


@functools.cache
def read_columns(path: Path) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The two tab-separated columns of a corpus file."""
    left, right = [], []
    with open(path, encoding="utf-8") as f:
        for line in f:
            a, b = line.rstrip("\n").split("\t")[:2]
            left.append(a)
            right.append(b)
    return tuple(left), tuple(right)
