"""`keras-nmt serve`'s `MODEL` arguments: `PATH` or `SRC:TGT=PATH`, read without TensorFlow (the
command checks them before anything loads).

Example:
    >>> parse_model_spec("es:en=runs/spa"), parse_model_spec("runs/spa")
    ((('es', 'en'), PosixPath('runs/spa')), (None, PosixPath('runs/spa')))
"""

import os
import re
from pathlib import Path

from keras_nmt.workshop.run.train_config import LANGUAGE_CODE

_PAIR = re.compile(f"(?P<source>{LANGUAGE_CODE}):(?P<target>{LANGUAGE_CODE})")


def parse_model_spec(spec):
    """`(pair or None, path)` of `SRC:TGT=PATH` or `PATH`.

    A spec with `=` is a pair and a path unless it is an existing path, or what comes before the
    `=` holds a folder separator (`runs/a=b`).

    Raises:
        ValueError: what comes before the `=` is not a pair of language codes (`EN:de`, `en-de`,
            `es:en:fr`), or nothing comes after it.
    """
    pair, equals, path = spec.partition("=")
    if not equals or Path(spec).exists() or "/" in pair or os.sep in pair:
        return None, Path(spec)
    match = _PAIR.fullmatch(pair)
    if match is None:
        raise ValueError(f"{pair!r} is not a language pair: give SRC:TGT=PATH with two "
                         "lower-case language codes, e.g. es:en=runs/spa (pt-BR:en for a region)")
    if not path:
        raise ValueError("no path after '='; give SRC:TGT=PATH, e.g. es:en=runs/spa")
    return (match["source"], match["target"]), Path(path)
