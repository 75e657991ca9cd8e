"""`python apps/serve.py ...` is `keras-nmt serve ...`, run from a checkout."""

import sys

from keras_nmt.workshop.cli import run

if __name__ == "__main__":
    sys.argv.insert(1, "serve")
    run()
