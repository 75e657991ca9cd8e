"""The command-line pieces every parser shares, with no TensorFlow: the `Parser` (flags named
in errors, no abbreviations, no lone `-`), numeric flag types that fail in the parser, and
`check_outputs`, which refuses an output before any work (by the rule outputs are written
with, `keras_nmt.workshop.output_file.output_kind`).

`keras_nmt.workshop.cli` builds every subcommand on them; tools below it that parse flags of their
own (`python -m keras_nmt.workshop.benchmarks.serve_load`) use the same ones, so a bad flag fails
alike.

Example:
    >>> parser = new_parser("Export a run.", prog="keras-nmt export")
    >>> _ = parser.add_argument("--version", type=positive_int)
    >>> parser.parse_args(["--version", "0"])  # prints "error: --version 0: must be >= 1"
    Traceback (most recent call last):
    SystemExit: 2
"""

import argparse
import os
import tempfile

from keras_nmt.workshop.output_file import OutputError, output_kind, same_file


def stdio(text):
    """The type of a file flag whose `-` is stdin (an input) or stdout (an output), as for `cat`:
    `-` becomes None, the flag's default, which reads stdin or prints (`Parser`)."""
    return None if text == "-" else text


class Parser(argparse.ArgumentParser):
    """An `ArgumentParser` whose value errors name the flag and the value
    (`error: --seed -1: must be >= 0`), and that refuses abbreviations, its subcommands' parsers
    too, so that a misspelt or old flag fails instead of matching another.

    A lone `-` given to a flag is refused unless the flag's type is `stdio`: taken as a file
    name, `--output -` wrote the translations to a file named "-" in silence, where the user
    expected them on stdout.

    An empty or blank value is refused for every flag and argument (shown quoted, as `''`): a
    path `''` is the current folder (`train --output-dir ""` trained into it, among the user's
    files), a host `''` every interface, a list `''` nothing to do. A flag is left out for its
    default, so no default may be blank."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **{**kwargs, "allow_abbrev": False})

    def _get_value(self, action, arg_string):
        # argparse's one hook between a flag's text and its type: it knows both.
        if arg_string == "-" and action.option_strings and action.type is not stdio:
            raise argparse.ArgumentError(
                None, f"{'/'.join(action.option_strings)} -: a lone dash is no value here (it "
                "is stdin or stdout only for the --input and --output of translate and spell "
                "correct); a file named - is ./-")
        name = "/".join(action.option_strings) or action.metavar or action.dest
        if isinstance(arg_string, str) and _not_utf8(arg_string):
            # Python reads bytes that are not UTF-8 as lone surrogates; TensorFlow then failed
            # with "Error converting unicode string...", naming neither the flag nor the path.
            shown = arg_string.encode("utf-8", "surrogateescape").decode("utf-8", "replace")
            raise argparse.ArgumentError(
                None, f"{name} {shown}: not UTF-8 (a Latin-1 or Windows-1252 name?); give a "
                "UTF-8 name, e.g. rename it with `convmv -f latin1 -t utf-8`")
        # A subcommand's action sees all its arguments here; its own parser checks each.
        blank = (isinstance(arg_string, str) and not arg_string.strip()
                 and not isinstance(action, argparse._SubParsersAction))
        shown = repr(arg_string) if blank else arg_string
        try:
            value = super()._get_value(action, arg_string)
        except argparse.ArgumentError as error:
            raise argparse.ArgumentError(None, f"{name} {shown}: {error.message}") from None
        if blank:  # after the type: its own reason, where it has one, is the better message
            raise argparse.ArgumentError(
                None, f"{name} {shown}: an empty value names nothing; give one"
                + (", or leave the flag out" if action.option_strings else ""))
        return value


def _not_utf8(text):
    """Whether `text` holds bytes that were not UTF-8 (`os.fsdecode`'s lone surrogates)."""
    return any("\udc80" <= character <= "\udcff" for character in text)


def new_parser(doc, prog=None):
    """A `Parser` described by a module docstring (first paragraph: description, the rest:
    epilog)."""
    description, _, epilog = doc.partition("\n\n")
    return Parser(
        prog=prog,
        description=description,
        epilog=epilog or None,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )


def _number(kind, text, name):
    try:
        return kind(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"is not {name}") from None


def add_renamed_flag(parser, old, new, why):
    """Refuses flag `old` (a flag's former spelling) with one line naming `new`, instead of
    "unrecognized arguments" (`old` is left out of `--help`).

    Example:
        >>> add_renamed_flag(parser, "--strategy", "--distribution", "tf.distribute")
        >>> parser.parse_args(["--strategy", "mirrored"])
        error: --strategy is now --distribution (tf.distribute); give --distribution mirrored
    """

    class Renamed(argparse.Action):
        def __call__(self, parser, namespace, values, option_string=None):
            given = f" {values}" if values else " VALUE"
            parser.error(f"{old} is now {new} ({why}); give {new}{given}")

    parser.add_argument(old, action=Renamed, nargs="?", default=argparse.SUPPRESS,
                        help=argparse.SUPPRESS)


def positive_int(text):
    """An int >= 1 (batch sizes, versions, beam sizes of commands without a dataclass)."""
    value = _number(int, text, "an integer")
    if value < 1:
        raise argparse.ArgumentTypeError("must be >= 1")
    return value


def non_negative_int(text):
    """An int >= 0 (counts where 0 means none, e.g. --attention-sentences)."""
    value = _number(int, text, "an integer")
    if value < 0:
        raise argparse.ArgumentTypeError("must be >= 0")
    return value


def positive_float(text):
    """A finite float > 0 (benchmark lengths)."""
    value = _number(float, text, "a number")
    if not 0 < value < float("inf"):
        raise argparse.ArgumentTypeError("must be a finite number > 0")
    return value


def rate(text):
    """A float in [0, 1): a probability that is not certainty (spell's --noise-rate)."""
    value = _number(float, text, "a number")
    if not 0 <= value < 1:
        raise argparse.ArgumentTypeError("must be in [0, 1)")
    return value


def check_outputs(outputs, inputs, replaceable=(), reads_stdin=False):
    """Refuses, before any work, an output that would destroy an input or cannot be written.

    What an output may be is `output_file.output_kind`'s rule, the one by which it
    will be written: a regular file (or a link to one), a new file, a pipe, a FIFO or a
    character device; anything else is refused here, naming the flag.

    Args:
        outputs: ``{flag: path or None}``, e.g. ``{"--output": args.output}``.
        inputs: the files and folders the command reads; a folder counts with every file in it
            (a model), so no output may replace one of its files.
        replaceable: files among `inputs` an output may replace (a run's earlier hypotheses).
        reads_stdin: the command reads stdin (`translate < a.txt`): no output may be the file
            behind it.

    Raises:
        ValueError: an output is a folder, a socket or a block device, is one of the inputs
            (stdin included) or another output (by device and inode: any link, hard link or
            relative path), or its folder does not exist or cannot be written (found out after
            the work, it cost the whole translation or benchmark), naming the flag and the file.
    """
    given = {flag: path for flag, path in outputs.items() if path}
    read = []
    replaceable = [path for path in replaceable if path and os.path.exists(path)]
    for path in inputs:
        if path and os.path.isdir(path):
            read.extend(os.path.join(root, name) for root, _, names in os.walk(path)
                        for name in names)
        elif path:
            read.append(path)
    if reads_stdin:
        read.append(0)
    seen = {}
    for flag, path in given.items():
        if os.path.isdir(path):
            raise ValueError(f"{flag} {path} is a folder: name a file in it, e.g. "
                             f"{os.path.join(path, 'out.txt')}")
        try:
            kind = output_kind(path)
        except OutputError as error:
            raise ValueError(f"{flag} {error}") from None
        if kind == "file":
            _check_folder(flag, path)
        if os.path.isfile(path):  # a device or pipe read and written is no loss
            for source in read:
                if same_file(path, source) and not any(same_file(path, kept)
                                                       for kept in replaceable):
                    shown = "stdin" if source == 0 else f"the input {source}"
                    raise ValueError(f"{flag} {path} is {shown}: writing it would destroy "
                                     f"the input; choose another {flag} file")
        for other, other_path in seen.items():
            if os.path.realpath(path) == os.path.realpath(other_path) or same_file(path,
                                                                                   other_path):
                raise ValueError(f"{flag} {path} is also {other}: choose two files")
        seen[flag] = path


def _check_folder(flag, path):
    """Refuses a file output whose folder is missing or cannot be written."""
    folder = os.path.dirname(os.path.realpath(path))
    if not os.path.isdir(folder):
        raise ValueError(f"{flag} {path}: the folder {folder} does not exist; create it "
                         "first, or name a file in another folder")
    try:  # what the command's write will do: a file in that folder (`atomic_path`)
        with tempfile.TemporaryFile(dir=folder):
            pass
    except OSError as error:
        raise ValueError(f"{flag} {path}: the folder {folder} cannot be written "
                         f"({error.strerror}); name a file in another folder") from None
