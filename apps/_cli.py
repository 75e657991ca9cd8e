"""What every app shares: numeric flag types that fail in the parser, the decoding flags, and
one-line user errors.

Example:
    >>> parser = argparse.ArgumentParser()
    >>> _ = parser.add_argument("--epochs", type=positive_int)
    >>> parser.parse_args(["--epochs", "3"]).epochs
    3
"""

import argparse
import functools
import lzma
import sys
import traceback
import zipfile

from keras_nmt.decoding import GREEDY, DecodingOptions

# Errors a user causes (bad files, bad values, a folder already in use), printed as one line.
# `ValueError` covers the library's `CorpusError` and `RunFolderError`.
USER_ERRORS = (OSError, ValueError, EOFError, lzma.LZMAError, zipfile.BadZipFile)


def _number(kind, text, name):
    try:
        return kind(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not {name}") from None


def positive_int(text):
    """An int >= 1 (batch sizes, epochs, widths, lengths, beam sizes)."""
    value = _number(int, text, "an integer")
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be a positive integer, got {value}")
    return value


def non_negative_int(text):
    """An int >= 0 (counts where 0 means none, e.g. --samples, --top-k)."""
    value = _number(int, text, "an integer")
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be >= 0, got {value}")
    return value


def positive_float(text):
    """A finite float > 0 (learning rate, clip norm, minutes)."""
    value = _number(float, text, "a number")
    if not 0 < value < float("inf"):
        raise argparse.ArgumentTypeError(f"must be a positive number, got {text}")
    return value


def non_negative_float(text):
    """A finite float >= 0 (length penalty, temperature)."""
    value = _number(float, text, "a number")
    if not 0 <= value < float("inf"):
        raise argparse.ArgumentTypeError(f"must be >= 0, got {text}")
    return value


def rate(text):
    """A float in [0, 1): dropout, label smoothing, a fraction of bad lines."""
    value = _number(float, text, "a number")
    if not 0 <= value < 1:
        raise argparse.ArgumentTypeError(f"must be in [0, 1), got {text}")
    return value


def probability_mass(text):
    """A float in (0, 1] (nucleus sampling's top-p)."""
    value = _number(float, text, "a number")
    if not 0 < value <= 1:
        raise argparse.ArgumentTypeError(f"must be in (0, 1], got {text}")
    return value


def add_decoding_arguments(parser):
    """Adds --beam-size, --length-penalty, --sample, --temperature, --top-k and --top-p.

    translate and evaluate share these flags; their defaults are `DecodingOptions`' own, so the
    command line, the `Translator` and `decode` cannot disagree.

    Each app adds its own --seed (default `DecodingOptions().seed`): it may seed more than
    sampling (`apps/evaluate.py` also draws its built-in test data with it).
    """
    parser.add_argument("--beam-size", type=positive_int, default=GREEDY.beam_size,
                        help="1: greedy decoding; more: beam search width (an export accepts "
                        "1..8) (default: %(default)s)")
    parser.add_argument("--length-penalty", type=non_negative_float, default=GREEDY.length_penalty,
                        help="GNMT length penalty alpha of beam search, >= 0; 0 ranks beams by "
                        "their sum of log-probabilities (Wu et al. 2016 use 0.6-0.7) "
                        "(default: %(default)s)")
    parser.add_argument("--sample", action="store_true",
                        help="ancestral sampling instead of greedy/beam (run directories only)")
    parser.add_argument("--temperature", type=non_negative_float, default=GREEDY.temperature,
                        help="sampling temperature; 0 is arg-max (default: %(default)s)")
    parser.add_argument("--top-k", type=non_negative_int, default=0,
                        help="sample among the k most probable tokens; 0: off "
                        "(default: %(default)s)")
    parser.add_argument("--top-p", type=probability_mass, default=1.0,
                        help="nucleus sampling mass in (0, 1]; 1: off (default: %(default)s)")


def decoding_options(args, **fields):
    """The `DecodingOptions` of parsed `add_decoding_arguments` flags (plus other `fields`)."""
    return DecodingOptions(
        strategy="sample" if args.sample else None,
        beam_size=args.beam_size,
        length_penalty=args.length_penalty,
        temperature=args.temperature,
        top_k=args.top_k or None,
        top_p=args.top_p if args.top_p != 1.0 else None,
        seed=args.seed,
        **fields,
    )


def add_debug_flag(parser):
    """Adds `--debug`: show the full traceback of a user error instead of one line."""
    parser.add_argument("--debug", action="store_true",
                        help="on an error, print the full Python traceback instead of one "
                        "'error: ...' line")


def user_errors(main):
    """Wraps an app's `main(argv=None)`: a user error prints `error: ...` and returns 1.

    With `--debug` among the arguments the traceback is printed as well.
    """

    @functools.wraps(main)
    def wrapper(argv=None):
        arguments = sys.argv[1:] if argv is None else list(argv)
        try:
            return main(argv)
        except USER_ERRORS as error:
            if "--debug" in arguments:
                traceback.print_exc()
            print(f"error: {describe(error)}", file=sys.stderr)
            return 1

    return wrapper


def describe(error):
    """One line for `error`, naming the file where the error object knows it."""
    text = str(error) or type(error).__name__
    filename = getattr(error, "filename", None)
    if isinstance(error, OSError) and filename and str(filename) not in text:
        text = f"{filename}: {text}"
    return " ".join(text.split())


def exit_status(result):
    """The process exit status of an app whose `main` returns 1 on a user error."""
    return 1 if isinstance(result, int) and not isinstance(result, bool) and result else 0
