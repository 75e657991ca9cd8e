"""What every subcommand shares beyond the parser (`keras_nmt.workshop.arguments`): the decoding
flags, a quiet TensorFlow start, one-line user errors, progress.

This module imports no TensorFlow: `keras-nmt SUBCOMMAND --help` answers from the parsers alone.
"""

import contextlib
import errno
import functools
import lzma
import os
import sys
import time
import traceback
import zipfile

from keras_nmt.decoding.decoding_options import GREEDY, DecodingOptions
from keras_nmt.option_fields import flag_of, option_fields
from keras_nmt.plural import plural
from keras_nmt.workshop import interruption, quiet_start
from keras_nmt.workshop.arguments import positive_int
from keras_nmt.workshop.cli.options import add_options, unread_error

# Errors a user causes (bad files, bad values, a folder already in use), printed as one line.
# `ValueError` covers the library's `CorpusError` and `RunFolderError`.
USER_ERRORS = (OSError, ValueError, EOFError, lzma.LZMAError, zipfile.BadZipFile)
# `--accept-data` of train and evaluate: one flag to insist on data that looks wrong.
ACCEPT_DATA_HELP = (
    "use the data as it is, although it looks wrong: a first line that reads as column names "
    "(source<TAB>target) is read as a pair, and a file that looks reversed or in another "
    "language or script than the model's, or a vocabulary that leaves most tokens unknown, is "
    "not refused (default: skip such a header with a warning, refuse the rest)")


# The `DecodingOptions` fields translate and evaluate offer as flags.
DECODING_FLAGS = ("strategy", "beam_size", "length_penalty", "temperature", "top_k", "top_p")


def add_decoding_arguments(parser, names=DECODING_FLAGS):
    """Adds the flags of `DecodingOptions` fields `names`, with its defaults, so
    that the command line, the `Translator` and `decode` cannot disagree.

    Each app adds `seed` itself, with its own help: it may seed more than sampling
    (`keras-nmt evaluate` also draws its built-in test data with it).
    """
    add_options(parser, names, GREEDY)


def decoding_options(args, **fields):
    """The `DecodingOptions` of parsed `add_decoding_arguments` flags (plus other `fields`)."""
    chosen = {name: getattr(args, name) for name in DECODING_FLAGS if hasattr(args, name)}
    return DecodingOptions(seed=args.seed, **chosen, **fields)


def check_decoding_flags(parser, args, seed_is_sampling_only=True):
    """`parser.error` naming the decoding flags given (away from their defaults) that the chosen
    strategy does not read (`STRATEGIES[...].options`): `--temperature` or `--seed` with beam
    search, `--length-penalty` with sampling, `--n-best` with greedy decoding. They were
    accepted and ignored. `--beam-size` with a strategy of one translation has the translator's
    own error. `--seed` counts unless it seeds more than sampling (evaluate's also draws its
    built-in test data: `seed_is_sampling_only=False`). An unknown `--strategy` is refused too.
    Call it after `start_tensorflow`: the strategy table imports the step functions, hence
    Keras."""
    from keras_nmt.decoding.strategies import STRATEGIES  # noqa: PLC0415  (see above)

    try:
        strategy = DecodingOptions(strategy=args.strategy,
                                   beam_size=args.beam_size).chosen_strategy
    except ValueError as error:
        parser.error(str(error))
    read = STRATEGIES[strategy].options
    fields = {field.name: field for field in option_fields(DecodingOptions)}
    names = [name for name in (*DECODING_FLAGS, "n_best", "seed") if name not in (
        "strategy", "beam_size", *(() if seed_is_sampling_only else ("seed",)))]
    unread = [name for name in names if hasattr(args, name) and name not in read
              and getattr(args, name) != parser.get_default(name)]
    if unread:
        parser.error(unread_error(
            [f"{flag_of(fields[name])} {getattr(args, name)}" for name in unread],
            STRATEGIES[strategy].title,
            [flag_of(fields[name]) for name in (*DECODING_FLAGS, "n_best", "seed")
             if name in read and hasattr(args, name)]))


def check_one_input(parser, texts, input_file):
    """`parser.error` when sentences are given both as arguments and as `--input FILE`: the
    arguments were translated and the file ignored."""
    if texts and input_file is not None:
        parser.error(f"--input {input_file}: sentences are given as arguments too; give one or "
                     "the other (the file would be ignored)")


def add_parallel_batches_argument(parser):
    """Adds --parallel-batches (applied by `use_parallel_batches`)."""
    parser.add_argument("--parallel-batches", type=positive_int, default=None, metavar="N",
                        help="on a CPU, translate N batches at once, one thread each (on 2 "
                        "cores 1.1-1.5x the sentences/s of one batch on both, same outputs: "
                        "docs/results/parallel-translation.md); 1: one batch at a time on all "
                        "cores (default: one batch per CPU core); a CTranslate2 export too")


def use_parallel_batches(args):
    """Sets TensorFlow's thread pools for `--parallel-batches`; call it right after
    `start_tensorflow`, before any TensorFlow op (the pools are fixed from the first)."""
    if args.parallel_batches != 1:
        from keras_nmt.workshop.translators.decoding_threads import (  # noqa: PLC0415  (loads TF)
            configure_decoding_threads,
        )

        configure_decoding_threads(args.parallel_batches)


def add_translator_argument(parser, name="model", trained_by="keras-nmt train"):
    """Adds the positional MODEL: anything `keras_nmt.workshop.translators.open_translator`
    opens."""
    parser.add_argument(name, metavar="MODEL",
                        help=f"a run folder ({trained_by}), a SavedModel directory (keras-nmt "
                        "export; a model directory uses its highest version) or a CTranslate2 "
                        "export (keras-nmt export --format ctranslate2)")


def add_debug_flag(parser):
    """Adds `--debug`: show the full traceback of a user error instead of one line."""
    parser.add_argument("--debug", action="store_true",
                        help="on an error, print the full Python traceback instead of one "
                        "'error: ...' line")


def command(main):
    """Wraps a subcommand's `main(argv=None, prog=None)`: a user error prints one
    `error: ...` line and returns 1; Ctrl-C (SIGINT) and SIGTERM print one line saying what was
    left and return 130 / 143 instead of a traceback (`keras_nmt.workshop.cli.interruption`), also
    when a library swallowed the signal and the command ran on. A reader of the output that went
    away (`| head`) ends the command quietly with status 141, as SIGPIPE ends `cat`. With `--debug`
    among the arguments the traceback is printed as well. Any error raised after a signal is
    that signal's doing (a library importing or tracing turned the `KeyboardInterrupt` into an
    `ImportError` or a `ValueError`): it ends the command as the signal does. A library error
    may carry `.left` (what state it left, e.g. "the run folder resumes from its last backup"),
    printed on the same line.
    """

    @functools.wraps(main)
    def wrapper(argv=None, prog=None):
        arguments = sys.argv[1:] if argv is None else list(argv)
        debug = "--debug" in arguments

        def attempt():
            try:
                return main(argv, prog=prog) if prog else main(argv)
            except BrokenPipeError:
                return _reader_gone()
            except Exception as error:
                swallowed = interruption.swallowed()
                if swallowed is not None:  # a library turned the signal into its own error
                    return interruption.report(swallowed, debug)
                if not isinstance(error, USER_ERRORS) and not _out_of_space(error):
                    raise
                return _report_error(error, debug)

        return interruption.run(attempt, debug, status=exit_status)

    return wrapper


def _reader_gone():
    """The reader of our output went away (`keras-nmt translate ... | head`): stop quietly with
    the status of a process ended by SIGPIPE, as `cat` and every other filter do. The output
    still buffered goes nowhere, so that the interpreter's last flush does not fail again."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError, AttributeError):  # a stdout that is not a file (tests)
        pass
    return 128 + 13  # SIGPIPE


def _report_error(error, debug):
    if debug:
        traceback.print_exc()
    print(f"error: {describe(error)}", file=sys.stderr)
    return 1


def _out_of_space(error):
    """True for a full disk reported by TensorFlow (`ResourceExhaustedError`) or by h5py."""
    return "No space left on device" in str(error) or getattr(error, "errno", None) == errno.ENOSPC


@contextlib.contextmanager
def writing_to(path):
    """Names `path` in a write error that does not: a full disk reported by `write()` (a bare
    `OSError(ENOSPC)`) or by TensorFlow, so that the one `error:` line says where.

    Example:
        >>> with writing_to("out.txt"):  # doctest: +SKIP
        ...     write_lines("out.txt", lines)
    """
    try:
        yield
    except Exception as error:
        if str(path) in str(error) or not (isinstance(error, OSError) or _out_of_space(error)):
            raise
        if isinstance(error, OSError) and (error.filename or error.errno is None):
            raise  # it names its file, or it is a message of ours (no errno) that says where
        code = errno.ENOSPC if _out_of_space(error) else getattr(error, "errno", None)
        reason = os.strerror(code) if code else str(error)
        raise OSError(code, reason, str(path)) from error


# The way out of an OS error on a file the command writes, by errno.
_WAYS_OUT = {
    errno.ENOSPC: "free some space and run the command again (a training resumes from its last "
                  "backup)",
    errno.EROFS: "the folder is read-only: write elsewhere with --output-dir (train, export) "
                 "or --output (translate, evaluate)",
    errno.EACCES: "the folder is not writable by you: write elsewhere with --output-dir (train, "
                  "export) or --output (translate, evaluate)",
}


def describe(error):
    """One line for `error`, naming the file where the error object knows it, and for a full
    disk or a folder that cannot be written, the way out."""
    text = str(error) or type(error).__name__
    filename = getattr(error, "filename", None)
    if isinstance(error, OSError) and filename and error.strerror:
        # "dd: Is a directory", not Python's "[Errno 21] Is a directory: 'dd'".
        other = f" -> {error.filename2}" if error.filename2 else ""
        text = f"{filename}{other}: {error.strerror}"
    elif isinstance(error, OSError) and filename and str(filename) not in text:
        text = f"{filename}: {text}"
    if _out_of_space(error) and "No space left" not in text:
        text = f"no space left on the device: {text}"
    code = errno.ENOSPC if _out_of_space(error) else getattr(error, "errno", None)
    if code in _WAYS_OUT and (isinstance(error, OSError) or _out_of_space(error)):
        text = f"{text}; {_WAYS_OUT[code]}"
    return " ".join(text.split())


def warn(message):
    """Prints `warning: message` to stderr (stdout holds a command's results alone)."""
    print(f"warning: {message}", file=sys.stderr)


def exit_status(result):
    """The process exit status of a subcommand whose `main` returns a status on failure (1, 130,
    143) and a result object (or 0 / None) on success."""
    if isinstance(result, int) and not isinstance(result, bool):
        return result
    return 0


def start_tensorflow(debug=False):
    """Imports TensorFlow (with tensorflow-text and Keras) quietly, after the flags are parsed
    (`keras_nmt.workshop.quiet_start.start_tensorflow`: no C++ start-up notes; `--debug` keeps
    them).

    Every command but `benchmark --backend jax` runs on TensorFlow (its tokenizers, graphs and
    exports are TensorFlow's): another `KERAS_BACKEND` in the environment (jax, torch) gave 60
    to 83 lines of traceback. The command sets its own backend and says so in one line."""
    backend = os.environ.get("KERAS_BACKEND", "tensorflow")
    if backend != "tensorflow" and "keras" not in sys.modules:
        warn(f"KERAS_BACKEND={backend} in the environment: this command runs on TensorFlow "
             "(its tokenizers and exports are TensorFlow's), so it uses KERAS_BACKEND="
             "tensorflow")
        os.environ["KERAS_BACKEND"] = "tensorflow"
    quiet_start.start_tensorflow(debug)


class Progress:
    """A bar on a terminal (stderr), nothing otherwise; then one line of totals on stderr, unless
    the command reports its speed itself (`finish(totals=False)`) or a signal has arrived (a
    library swallowed it and the work went on: the command's one line is the interruption's,
    `interruption.run`)."""

    def __init__(self, total):
        """`total`: the sentences to come, or None when not known (an input read in chunks):
        the bar then counts them."""
        self.total, self.done, self.start = total, 0, time.monotonic()
        self.live = sys.stderr.isatty() and (total is None or total > 0)

    def add(self, count):
        self.done += count
        if self.live and self.total is None:
            print(f"\r{plural(self.done, 'sentence')}", end="", file=sys.stderr, flush=True)
        elif self.live:
            width = 30
            filled = width * self.done // self.total
            print(f"\r[{'=' * filled}{'.' * (width - filled)}] {self.done}/"
                  f"{plural(self.total, 'sentence')}", end="", file=sys.stderr, flush=True)

    def finish(self, totals=True):
        seconds = time.monotonic() - self.start
        if self.live:
            print(file=sys.stderr)
        if not totals or interruption.received() is not None:
            return
        rate = self.done / seconds if seconds > 0 else 0.0
        print(f"{plural(self.done, 'sentence')} in {seconds:.1f} s ({rate:.1f} sentences/s)",
              file=sys.stderr)
