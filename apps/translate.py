"""`python apps/translate.py ...` is `keras-nmt translate ...`, run from a checkout."""

import sys

from keras_nmt.workshop.cli import run

if __name__ == "__main__":
    sys.argv.insert(1, "translate")
    run()
