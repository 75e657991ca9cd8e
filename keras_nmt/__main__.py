"""`python -m keras_nmt ...` is `keras-nmt ...`."""

from keras_nmt.workshop import interruption

if __name__ == "__main__":
    # First: a signal while the command line's modules are imported ends in one line too.
    interruption.install()
    try:
        from keras_nmt.workshop.cli import run
    except KeyboardInterrupt as error:
        interruption.exit_now(interruption.report(error))
    run()
