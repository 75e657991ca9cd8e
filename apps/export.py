"""`python apps/export.py ...` is `keras-nmt export ...`, run from a checkout."""

import sys

from keras_nmt.workshop.cli import run

if __name__ == "__main__":
    sys.argv.insert(1, "export")
    run()
