"""What the terminal shows when the output is a file: no progress-bar control characters."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
TINY = ["--train-size", "64", "--valid-size", "8", "--epochs", "1", "--units", "8",
        "--embedding-dim", "8", "--validation-sentences", "4", "--samples", "0"]

pytestmark = pytest.mark.tensorflow


def test_training_piped_to_a_file_writes_plain_lines_and_no_start_up_noise(tmp_path):
    env = {k: v for k, v in os.environ.items() if k != "TF_CPP_MIN_LOG_LEVEL"}  # as a user has it
    done = subprocess.run(
        [sys.executable, "-m", "keras_nmt", "train", *TINY, "--output-dir", str(tmp_path / "r")],
        cwd=ROOT, capture_output=True, text=True, timeout=600, env=env)
    assert done.returncode == 0, done.stderr
    for stream in (done.stdout, done.stderr):
        assert "\b" not in stream and "\x1b[" not in stream
    assert "oneDNN" not in done.stderr and "cuInit" not in done.stderr, done.stderr
    assert done.stderr == "" and "loss: " in done.stdout and "trained 1 epoch of 1 (" in done.stdout


def test_translate_at_a_terminal_answers_each_line_as_it_is_typed(tmp_path):
    import pty
    import select

    from tests.export.helpers import make_run_folder

    run = make_run_folder(tmp_path / "run", "luong")
    main, secondary = pty.openpty()
    env = {**os.environ, "TF_CPP_MIN_LOG_LEVEL": "3"}
    process = subprocess.Popen([sys.executable, "-m", "keras_nmt", "translate", str(run)],
                               cwd=ROOT, stdin=secondary, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True, env=env)
    os.close(secondary)
    try:
        os.write(main, b"3rd of March 2021\n")
        # The first line's translation arrives while the input is still open.
        ready, _, _ = select.select([process.stdout], [], [], 300)
        assert ready, "no translation before the end of the input"
        first = process.stdout.readline()
        os.write(main, b"\x04")  # end of file (Ctrl-D)
        rest, err = process.communicate(timeout=120)
    finally:
        os.close(main)
        process.kill()
    assert process.returncode == 0, err
    assert first.endswith("\n") and rest == ""
