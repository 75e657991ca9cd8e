"""`python apps/spell.py ...` is `keras-nmt spell ...`, run from a checkout."""

import sys

from keras_nmt.workshop.cli import run

if __name__ == "__main__":
    sys.argv.insert(1, "spell")
    run()
