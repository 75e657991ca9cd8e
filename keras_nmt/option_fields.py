"""Options declared once: a dataclass field made by `option` carries its flag, help and limits.

`TrainConfig`, `ModelOptions` and `DecodingOptions` declare each option once, as a field with its
default, help text and limits (the field's metadata, as fairseq's dataclasses carry theirs). The
command line builds its flags from the fields (`keras_nmt.workshop.cli.options.add_options`), and
the dataclasses check their values with `check_options` in `__post_init__`, so a value is refused
the same way from a flag and from Python, in one line that names the flag. Imports nothing.

Example:
    >>> @dataclasses.dataclass
    ... class Options:
    ...     seed: int = option(0, "seed of everything", at_least=0)
    ...     def __post_init__(self):
    ...         check_options(self)
    >>> Options(seed=-1)
    Traceback (most recent call last):
    ValueError: --seed -1: must be >= 0
"""

import dataclasses
import math
import numbers
import operator
import types


def option(default, help, flag=None, *, at_least=None, above=None, at_most=None, below=None,
           choices=None, check=None, metavar=None):
    """A dataclass field that is an option: its default, its `--help` text and its limits.

    Args:
        default: the default value.
        help: the flag's help text, without the default (the parser appends it).
        flag: the flag's spelling (default: `--` + the field name with `-` for `_`).
        at_least, above, at_most, below: bounds of a number (`>=`, `>`, `<=`, `<`); numbers
            are also refused when not finite.
        choices: the values allowed.
        check: `check(value)` raises `ValueError(reason)` on a value of a structured string.
        metavar: the value's name in `--help`.
    """
    metadata = {"help": help, "flag": flag, "at_least": at_least, "above": above,
                "at_most": at_most, "below": below, "choices": choices, "check": check,
                "metavar": metavar}
    return dataclasses.field(default=default, metadata=metadata)


def option_fields(cls):
    """The fields of dataclass `cls` declared with `option`, in declaration order."""
    return [field for field in dataclasses.fields(cls) if "help" in field.metadata]


def flag_of(field):
    """The flag of an `option` field, e.g. `--batch-size`."""
    return field.metadata["flag"] or "--" + field.name.replace("_", "-")


def value_type(field):
    """`int`, `float`, `str` or `bool`: the field's type without `None`."""
    kind = field.type
    if isinstance(kind, types.UnionType):
        kind = next(arg for arg in kind.__args__ if arg is not type(None))
    return kind


def limits(field):
    """The limits of a number field in words, e.g. `>= 1` or `in [0, 1)`; "" when none."""
    meta = field.metadata
    low = ("[", meta["at_least"]) if meta["at_least"] is not None else (
        ("(", meta["above"]) if meta["above"] is not None else None)
    high = ("]", meta["at_most"]) if meta["at_most"] is not None else (
        (")", meta["below"]) if meta["below"] is not None else None)
    if low and high:
        return f"in {low[0]}{low[1]:g}, {high[1]:g}{high[0]}"
    if low:
        return f"{'>=' if low[0] == '[' else '>'} {low[1]:g}"
    if high:
        return f"{'<=' if high[0] == ']' else '<'} {high[1]:g}"
    return ""


def reason_refused(field, value):
    """Why `value` is refused for `field`, or None."""
    meta = field.metadata
    if meta["choices"] is not None and value not in meta["choices"]:
        return "must be one of " + ", ".join(str(choice) for choice in meta["choices"])
    if meta["check"] is not None:
        try:
            meta["check"](value)
        except ValueError as error:
            return str(error)
    kind = value_type(field)
    if kind not in (int, float):
        return None
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or (
            kind is int and not isinstance(value, numbers.Integral)):
        return "is not an integer" if kind is int else "is not a number"
    if not math.isfinite(value):
        return "must be a finite number"
    bounds = ((meta["at_least"], operator.ge), (meta["above"], operator.gt),
              (meta["at_most"], operator.le), (meta["below"], operator.lt))
    if any(bound is not None and not holds(value, bound) for bound, holds in bounds):
        return "must be " + limits(field)
    return None


def check_value(field, value):
    """`value` if `field` allows it (`None` always: not given), else `ValueError` naming the
    flag: `--seed -1: must be >= 0`."""
    reason = None if value is None else reason_refused(field, value)
    if reason:
        shown = repr(value) if isinstance(value, str) and not value.strip() else value
        raise ValueError(f"{flag_of(field)} {shown}: {reason}")
    return value


def check_options(instance):
    """Checks every `option` field of dataclass `instance` (`ValueError` naming the flag)."""
    for field in option_fields(type(instance)):
        check_value(field, getattr(instance, field.name))
