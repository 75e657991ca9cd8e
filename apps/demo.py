"""`python apps/demo.py ...` is `keras-nmt demo ...`, run from a checkout."""

import sys

from keras_nmt.workshop.cli import run

if __name__ == "__main__":
    sys.argv.insert(1, "demo")
    run()
