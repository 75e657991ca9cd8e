"""Ctrl-C (SIGINT) and SIGTERM end every command in one line, at any moment, with 130 / 143.

`install` puts the handlers in place first thing (`keras_nmt.workshop.cli.run`, before any
subcommand or TensorFlow is imported), so a signal during start-up, during the imports of TensorFlow
or matplotlib, or during an export is the same `KeyboardInterrupt` (`Terminated` for SIGTERM) that
the commands' clean-up already handles (`keras_nmt.workshop.cli.common.command`):

- the first signal raises in the main thread; later ones are only recorded, so the clean-up
  of the first (removing a half-written file, naming the last backup) runs to its end;
- `deferred` holds a signal back while native code runs that must not be unwound midway (the
  CTranslate2 converter: a `KeyboardInterrupt` raised inside its callbacks killed the process
  with "Fatal Python error: PyThreadState_Get"), and raises it when the block ends;
- `leaving` names what an interruption in its block leaves ("the last backup is from
  epoch 2"), also when a library turned the signal into its own error or swallowed it;
- `swallowed` turns a command that returned normally after a signal (an exception swallowed
  by a library during its import) into 130 / 143 all the same, so a signal never exits 0;
- `exit_now` leaves without the interpreter's shutdown once the line is printed: TensorFlow's
  and tf.data's threads made an interrupted training wait ~20 s there, and a signal during
  the shutdown of a command that had succeeded killed it;
- a signal whose exception lands in code that cannot raise (a garbage-collector callback such
  as JAX's, a `__del__`) is not printed as "Exception ignored in ..." and lost: it is delivered
  again a moment later, outside that code.

Example:
    >>> previous = install()
    >>> with deferred():          # doctest: +SKIP
    ...     spec.save(directory)  # a Ctrl-C here is raised after the save
"""

import atexit
import contextlib
import logging
import os
import signal
import sys
import threading
import traceback

# Exit statuses of a command ended by a signal, as a shell reports them (128 + the signal).
EXIT_INTERRUPTED = 128 + signal.SIGINT
EXIT_TERMINATED = 128 + signal.SIGTERM
SIGNALS = (signal.SIGINT, signal.SIGTERM)

_received = []  # the signals received by this process, in order
_deferring = []  # one entry per open `deferred` block
_redelivering = []  # signals swallowed by code that cannot raise, sent again (`_unraisable`)
_next_hook = [sys.unraisablehook]  # where `_unraisable` sends the rest
_silenced = []  # `logging.disable` by the first signal, undone by the outermost `restore`
# Seconds before such a signal is sent again: the callback that swallowed it has ended by then.
REDELIVERY_DELAY = 0.01


class Terminated(KeyboardInterrupt):
    """SIGTERM, raised in the main thread like Ctrl-C so that the same clean-up runs."""


def _interruption(signum):
    return Terminated() if signum == signal.SIGTERM else KeyboardInterrupt()


def _handle(signum, frame):
    del frame
    if _redelivering:  # the signal sent again: the same one, not a second
        _redelivering.pop()
    _received.append(signum)
    if len(_received) == 1:
        # The command ends in one line: no library's log record from here on, such as
        # TensorFlow's "Object was never used (type TensorArray)" and its stack, logged when
        # the unwinding abandons a half-traced loop.
        logging.disable(logging.CRITICAL)
        _silenced.append(True)
    if len(_received) == 1 and not _deferring:
        raise _interruption(signum)


def _unraisable(unraisable):
    """`sys.unraisablehook`: our interruption, raised where Python can only report it (a gc
    callback, a `__del__`), is sent again instead; anything else goes to the hook that was in
    place before `install`."""
    if isinstance(unraisable.exc_value, KeyboardInterrupt) and len(_received) == 1:
        signum = _received.pop()
        _redelivering.append(signum)
        threading.Timer(REDELIVERY_DELAY, os.kill, (os.getpid(), signum)).start()
        return
    _next_hook[-1](unraisable)


def install():
    """Installs the handlers (in the main thread; elsewhere nothing); returns the previous ones
    for `restore`."""
    if threading.current_thread() is not threading.main_thread():
        return None
    previous = {signum: signal.getsignal(signum) for signum in SIGNALS}
    previous["unraisablehook"] = sys.unraisablehook
    for signum in SIGNALS:
        signal.signal(signum, _handle)
    if sys.unraisablehook is not _unraisable:
        _next_hook.append(sys.unraisablehook)
        sys.unraisablehook = _unraisable
    return previous


def restore(previous):
    """Puts back the handlers `install` replaced; the outermost `install`'s restore also
    forgets the signals received (a test calling one command after another)."""
    if previous is None:
        return
    if previous["unraisablehook"] is not _unraisable:
        _next_hook.pop()
    sys.unraisablehook = previous["unraisablehook"]
    for signum in SIGNALS:
        signal.signal(signum, previous[signum])
    if previous[signal.SIGINT] is not _handle:
        _received.clear()
        _redelivering.clear()
        if _silenced:
            logging.disable(logging.NOTSET)
            _silenced.clear()


def received():
    """The first signal received since `install`, or None."""
    return (_received or _redelivering or [None])[0]


@contextlib.contextmanager
def deferred():
    """Holds signals back for the block; one received meanwhile is raised when it ends."""
    before = len(_received)
    _deferring.append(True)
    try:
        yield
    finally:
        _deferring.pop()
    if len(_received) > before and not _deferring:
        raise _interruption(_received[before])


@contextlib.contextmanager
def leaving(what):
    """Names what an interruption during the block leaves: `what()`, called then, becomes the
    second half of its one line (`describe`), unless code deeper in has named it already.

    A library's error raised after a signal (its native code turned the `KeyboardInterrupt`
    into a `TypeError`, say) and a signal a library swallowed while the block went on to its
    end are the interruption too, so the line says the same whatever the library did.

    Example:
        >>> with leaving(lambda: "the last backup is from epoch 1"):  # doctest: +SKIP
        ...     model.fit(data)
    """
    try:
        yield
        check()
    except KeyboardInterrupt as error:
        if not getattr(error, "left", None):
            error.left = what()
        raise
    except Exception as error:
        signal_swallowed = swallowed()
        if signal_swallowed is None:
            raise
        signal_swallowed.left = what()
        raise signal_swallowed from error


def check():
    """Raises the interruption of a signal received earlier (a safe point after imports)."""
    if _received:
        raise _interruption(_received[0])


def status(error):
    """The exit status of an interruption: 143 for SIGTERM, 130 for Ctrl-C."""
    return EXIT_TERMINATED if isinstance(error, Terminated) else EXIT_INTERRUPTED


def describe(error):
    """The one line of an interruption: what ended the command, and what it left."""
    name = "terminated (SIGTERM)" if isinstance(error, Terminated) else "interrupted"
    left = getattr(error, "left", None) or "nothing was left half-written"
    return f"{name}: {left}"


def report(error, debug=False):
    """Prints the one line of interruption `error` (and its traceback with `debug`); returns
    its exit status."""
    if debug:
        traceback.print_exception(error)
    print(describe(error), file=sys.stderr)
    return status(error)


def swallowed():
    """The interruption of a signal that arrived and was swallowed (the command went on), or
    None: the caller reports it instead of succeeding."""
    signum = received()
    return None if signum is None else _interruption(signum)


def run(function, debug=False, status=lambda result: result or 0):
    """Calls `function()` between `install` and `restore`, a signal ending it in one line.

    Args:
        function: the work, called with no arguments.
        debug: also print the traceback of an interruption.
        status: the exit status `function`'s result means (0: it succeeded).

    Returns:
        `function`'s result; for a Ctrl-C or SIGTERM, its exit status (130 / 143) once its line
        is printed (`report`), also when a library swallowed it and `function` went on to
        succeed or raised its own error. Any other exception passes through.

    Example:
        >>> sys.exit(run(lambda: main(argv)) or 0)   # doctest: +SKIP
    """
    previous = install()
    try:
        result = function()
        signal_swallowed = swallowed()
        if signal_swallowed is not None and status(result) == 0:
            return report(signal_swallowed, debug)
        return result
    except KeyboardInterrupt as error:
        return report(error, debug)
    except Exception:
        # Raised after a signal, an error is the signal's doing: a library's native code turned
        # the `KeyboardInterrupt` into its own error (TensorFlow's `nest.flatten`: a TypeError).
        signal_swallowed = swallowed()
        if signal_swallowed is None:
            raise
        return report(signal_swallowed, debug)
    finally:
        restore(previous)


def exit_now(exit_status):
    """Exits with `exit_status` without the interpreter's shutdown, its outcome said.

    After a signal, at once. Otherwise once the `atexit` functions ran, with signals ignored
    from here on: the command has finished and said so. (The interpreter's shutdown took
    seconds after a TensorFlow command, during which Python had already put the signals' default
    actions back, so a Ctrl-C there killed a command that had succeeded.)
    """
    if received() is None and exit_status not in (EXIT_INTERRUPTED, EXIT_TERMINATED):
        for signum in SIGNALS:
            signal.signal(signum, signal.SIG_IGN)
        atexit._run_exitfuncs()
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(exit_status)
