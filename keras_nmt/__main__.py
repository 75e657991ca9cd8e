"""`python -m keras_nmt ...` is `keras-nmt ...`."""

from keras_nmt.cli import run

if __name__ == "__main__":
    run()
