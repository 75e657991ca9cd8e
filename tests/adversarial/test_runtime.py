"""Runs, signals and errors: a diverged training, a time budget, a signal at any moment, a
damaged file, a full disk or a read-only folder each end in one line that names the file or the
flag and the way out, with the exit status a shell expects, and nothing half-written.

Tiny models; one untrained run folder per module (`tests.export.helpers`), and two short
in-process trainings. The real-signal trials with many random moments: `signal_trials.py` here
(their results: docs/reliability.md).
"""

import errno
import io
import logging
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path
from types import SimpleNamespace

import keras
import numpy as np
import pytest

from keras_nmt.workshop import interruption
from keras_nmt.workshop.atomic_file import atomic_path
from keras_nmt.workshop.cli import common
from keras_nmt.workshop.cli import evaluate as evaluate_app
from keras_nmt.workshop.cli import export as export_app
from keras_nmt.workshop.cli import train as train_app
from keras_nmt.workshop.cli import translate as translate_app
from keras_nmt.workshop.run.divergence import StopOnDivergence, TrainingDiverged, where_kept
from keras_nmt.workshop.run.exact_backup import ExactBackup
from keras_nmt.workshop.run.run_lifecycle import finished_message, finished_record, is_finished
from keras_nmt.workshop.run.time_budget import TimeBudget
from keras_nmt.workshop.run.train_config import TrainConfig
from keras_nmt.workshop.run.trainer import interrupted_at, plural
from tests.adversarial.signal_trials import handles
from tests.error_output import one_error_line
from tests.export.helpers import make_model, make_run_folder

ROOT = Path(__file__).resolve().parents[2]
TINY = ["--units", "8", "--embedding-dim", "8", "--train-size", "64", "--valid-size", "8",
        "--batch-size", "16", "--samples", "0", "--verbose", "0"]


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    return make_run_folder(tmp_path_factory.mktemp("runtime") / "run")


def with_nan_weights(path):
    """The run folder `path` with NaN weights in its model.keras (as a diverged training left
    them)."""
    model = keras.models.load_model(path / "model.keras", compile=False)
    kernel = model.weights[0]
    kernel.assign(np.full(kernel.shape, np.nan, np.float32))
    model.save(path / "model.keras")
    return path


@pytest.fixture(scope="module")
def nan_run(tmp_path_factory):
    """A run folder whose model.keras holds NaN weights."""
    return with_nan_weights(make_run_folder(tmp_path_factory.mktemp("nan") / "run"))


# --- Divergence: never a finished run --------------------------------------------------------

@pytest.mark.parametrize("rate", ["1e38", "1e30"])  # NaN weights; a loss of ~1e31 (ppl inf)
def test_a_diverging_training_is_an_error_and_leaves_no_model(rate, tmp_path, capsys):
    output = tmp_path / "run"
    status = train_app.main(["--output-dir", str(output), "--epochs", "2",
                             "--learning-rate", rate, *TINY])
    assert status == 1
    line = one_error_line(capsys)
    assert f"training in {output} diverged" in line and "--learning-rate" in line, line
    assert not (output / "finished.json").exists() and not (output / "model.keras").exists()


def test_the_divergence_check_stops_at_the_first_non_finite_batch():
    check = StopOnDivergence("runs/x", learning_rate=0.5)
    check.on_train_batch_end(0, {"loss": 3.2, "perplexity": 24.5})  # fine: nothing happens
    with pytest.raises(TrainingDiverged, match=r"batch 2 \(loss 8e\+31, perplexity inf\)"):
        check.on_train_batch_end(1, {"loss": 8e31, "perplexity": float("inf")})


def test_a_backup_of_non_finite_weights_is_refused_and_the_good_one_kept(tmp_path):
    model, _, _ = make_model()
    model.compile(optimizer="adam", loss="sparse_categorical_crossentropy")
    backup = ExactBackup(tmp_path / "backup", every=1)
    backup.set_model(model)
    backup.save(0, 3)
    good = backup.path.read_bytes()
    model.trainable_variables[0].assign(np.full(model.trainable_variables[0].shape, np.inf))
    with pytest.raises(TrainingDiverged, match=r"the last good backup \(epoch 1, batch 3\)"):
        backup.save(0, 4)
    assert backup.path.read_bytes() == good


@pytest.mark.parametrize("argv", [
    ["export", "{run}", "--output-dir", "{tmp}"],
    ["translate", "{run}", "3rd of March 2021"],
    ["evaluate", "{run}", "--output", "{tmp}/h.txt"],
], ids=["export", "translate", "evaluate"])
def test_every_command_refuses_a_model_with_nan_weights(argv, nan_run, tmp_path, capsys):
    apps = {"export": export_app, "translate": translate_app, "evaluate": evaluate_app}
    args = [a.format(run=nan_run, tmp=tmp_path) for a in argv[1:]]
    assert apps[argv[0]].main(args) == 1
    line = one_error_line(capsys)
    assert f"{nan_run / 'model.keras'} holds non-finite weights" in line, line
    assert not list(tmp_path.iterdir())  # nothing exported, nothing written


def test_the_ctranslate2_export_refuses_nan_weights(tmp_path, capsys):
    pytest.importorskip("ctranslate2")
    run = with_nan_weights(make_run_folder(tmp_path / "run", "transformer"))  # one it can run
    assert export_app.main([str(run), "--format", "ctranslate2",
                            "--output-dir", str(tmp_path / "ct2")]) == 1
    assert "holds non-finite weights" in one_error_line(capsys)


# --- The time budget: a wall-clock promise ---------------------------------------------------

class FakeClock:
    def __init__(self):
        self.now = 0.0

    def start(self):
        pass

    def seconds(self):
        return self.now


def test_the_time_budget_stops_at_the_batch_that_crosses_it():
    model, _, _ = make_model()
    clock = FakeClock()
    budget = TimeBudget(1, clock=clock)
    budget.set_model(model)
    budget.set_params({"steps": 1000})
    model.stop_training = False
    budget.on_train_begin()
    budget.on_epoch_begin(0)
    budget.on_train_batch_end(0)
    assert not model.stop_training
    clock.now = 60.5  # mid-epoch: one batch past the minute
    budget.on_train_batch_end(1)
    assert model.stop_training


def test_an_epoch_cut_short_is_backed_up_where_it_stopped(tmp_path):
    model, _, _ = make_model()
    model.compile(optimizer="adam", loss="sparse_categorical_crossentropy")
    backup = ExactBackup(tmp_path / "backup", every=100)
    backup.set_model(model)
    backup.set_params({"steps": 50})
    model.stop_training = False
    backup.on_epoch_begin(0)
    backup.on_train_batch_end(0)
    model.stop_training = True  # the budget ran out at the second batch
    backup.on_train_batch_end(1)
    backup.on_epoch_end(0)
    assert backup.saved_at == (0, 2)  # not (1, 0): the epoch is not done
    with np.load(backup.path) as state:
        assert (int(state["epoch"]), int(state["batch"])) == (0, 2)


def test_a_rerun_after_a_budget_stop_says_so_and_how_to_continue():
    config = TrainConfig(output="runs/x", epochs=10, time_budget=5)
    record = {"epochs": 10, "trained_epochs": 1.25, "time_budget": 5}
    assert is_finished(config, record)
    said = finished_message(config, record)
    assert "stopped at its time budget of 5 minutes after 1.25 of 10 epochs" in said
    assert "--time-budget" in said and "finished (10 epochs)" not in said
    # A larger budget, or none, trains on; a smaller one does not.
    assert not is_finished(TrainConfig(output="runs/x", epochs=10, time_budget=8), record)
    assert not is_finished(TrainConfig(output="runs/x", epochs=10), record)
    assert is_finished(TrainConfig(output="runs/x", epochs=10, time_budget=3), record)


def test_one_epoch_is_singular():
    assert (plural(1, "epoch"), plural(2, "epoch"), plural(0.5, "epoch")) == (
        "1 epoch", "2 epochs", "0.5 epochs")
    said = finished_message(TrainConfig(output="runs/x", epochs=1), {"epochs": 1})
    assert "(1 epoch)" in said


# --- Signals, in process ---------------------------------------------------------------------

def signal_then(behaviour, signum=signal.SIGTERM, error=None):
    """Sends `signum` to this process and does with its exception what a library may: lets it
    through ("raised"), turns it into its own `error` ("converted"; by default a TypeError, as
    TensorFlow's native `nest.flatten` did) or swallows it and goes on ("swallowed")."""
    try:
        os.kill(os.getpid(), signum)
        time.sleep(0.1)
    except KeyboardInterrupt as interruption_raised:
        if behaviour == "converted":
            raise (error or TypeError("a library's own error")) from interruption_raised
        if behaviour == "raised":
            raise


@common.command
def _swallowing(argv=None):
    signal_then("swallowed", signal.SIGINT)
    return 0


@common.command
def _converting(argv=None):  # an import or a trace turning it into its own error
    signal_then("converted", signal.SIGTERM, ImportError("cannot import name 'x'"))


@common.command
def _deferring(argv=None):
    with interruption.deferred():
        os.kill(os.getpid(), signal.SIGINT)
        time.sleep(0.05)
        reached = True  # the native call ran to its end
    assert reached
    return 0


@pytest.mark.parametrize("function, status", [
    (_swallowing, 130), (_converting, 143), (_deferring, 130)],
    ids=["swallowed", "converted-to-ImportError", "deferred"])
def test_a_signal_ends_the_command_whatever_a_library_does_with_it(function, status, capsys):
    assert function([]) == status
    err = capsys.readouterr().err
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1, err


def signal_after_fit(monkeypatch, behaviour):
    """Makes the trainer's `fit_from` train as usual, then receive SIGTERM and do `behaviour`
    with it (`signal_then`); returns the real `fit_from`."""
    from keras_nmt.workshop.run import trainer  # noqa: PLC0415

    def fit_then_signal(*args, **kwargs):
        history = fit_from(*args, **kwargs)
        signal_then(behaviour)
        return history

    fit_from = trainer.fit_from
    monkeypatch.setattr(trainer, "fit_from", fit_then_signal)
    return fit_from


@pytest.mark.parametrize("behaviour", ["converted", "swallowed"])
def test_a_signal_a_library_turned_or_swallowed_during_training_names_the_backup(
        behaviour, tmp_path, monkeypatch, capsys):
    """SIGTERM after a backup, while TensorFlow's code ran (CI saw one): the line said "nothing
    was left half-written" and not where the re-run resumes."""
    fit_from = signal_after_fit(monkeypatch, behaviour)  # one epoch trained and backed up
    output = tmp_path / "run"
    argv = ["--output-dir", str(output), "--epochs", "1", "--backup-every", "2", *TINY]
    assert train_app.main(argv) == interruption.EXIT_TERMINATED
    assert capsys.readouterr().err.splitlines() == [
        "terminated (SIGTERM): at epoch 1, batch 4; the last backup is from the end of epoch 1; "
        "re-run the same command to resume from it"]
    assert finished_record(output) is None
    monkeypatch.setattr("keras_nmt.workshop.run.trainer.fit_from", fit_from)
    assert common.exit_status(train_app.main(argv)) == 0  # nothing left to train; the ending
    assert "resuming from the end of epoch 1" in capsys.readouterr().out
    assert finished_record(output) is not None


def test_a_signal_while_a_finished_run_trains_on_names_the_backup(tmp_path, monkeypatch,
                                                                    capsys):
    """Its `finished.json` of fewer epochs is still there while it trains on: not finished."""
    output = tmp_path / "run"
    argv = ["--output-dir", str(output), "--backup-every", "2", *TINY]
    assert common.exit_status(train_app.main([*argv, "--epochs", "1"])) == 0
    signal_after_fit(monkeypatch, "raised")
    assert train_app.main([*argv, "--epochs", "2"]) == interruption.EXIT_TERMINATED
    assert capsys.readouterr().err.splitlines() == [
        "terminated (SIGTERM): at epoch 2, batch 4; the last backup is from the end of epoch 2; "
        "re-run the same command to resume from it"]


def test_a_signal_while_a_finished_training_is_scored_says_the_run_is_finished(
        tmp_path, monkeypatch, capsys):
    """Not "before training began; re-run the same command to start": the model is saved."""
    monkeypatch.setattr("keras_nmt.workshop.run.trainer.report_scores",
                        lambda *args: signal_then("raised", signal.SIGINT))
    output = tmp_path / "run"
    assert train_app.main(["--output-dir", str(output), "--epochs", "1", *TINY]) == 130
    assert capsys.readouterr().err.splitlines() == [
        f"interrupted: after training, before the validation scores: {output} is finished and "
        f"its model is {output / 'model.keras'}; `keras-nmt evaluate {output}` scores it"]
    assert finished_record(output) is not None


def test_leaving_names_what_an_interruption_left_whatever_a_library_did():
    previous = interruption.install()
    try:
        for behaviour in ("raised", "converted", "swallowed"):
            with pytest.raises(KeyboardInterrupt) as raised:
                with interruption.leaving(lambda: "the outer state"):
                    with interruption.leaving(lambda: "the inner state"):
                        signal_then(behaviour)
            assert isinstance(raised.value, interruption.Terminated)
            assert raised.value.left == "the inner state", behaviour  # the deepest one names it
            assert isinstance(raised.value.__cause__, TypeError) == (behaviour == "converted")
            interruption.restore(previous)  # forgets the signal: the next behaviour's is first
            previous = interruption.install()
        with pytest.raises(ZeroDivisionError):  # without a signal, an error is the block's own
            with interruption.leaving(lambda: "unused"):
                1 / 0  # noqa: B018
    finally:
        interruption.restore(previous)


def test_interruption_run_is_the_commands_wrapper_for_any_function(capsys):
    # What the load benchmark (not a `keras-nmt` command) runs under: a result passes through;
    # a swallowed signal turns a success into the signal's status, not a failure's own.
    def swallowing(result):
        signal_then("swallowed", signal.SIGINT)
        return result

    assert interruption.run(lambda: "done") == "done"
    assert interruption.run(lambda: swallowing(None)) == 130
    assert interruption.run(lambda: swallowing(1)) == 1
    assert interruption.run(lambda: signal_then("converted", signal.SIGINT)) == 130
    with pytest.raises(TypeError):  # without a signal, an error is the function's own
        interruption.run(lambda: int([]))
    err = capsys.readouterr().err
    assert err.strip().splitlines() == ["interrupted: nothing was left half-written"] * 2, err


# --- Signals, real processes -----------------------------------------------------------------

def start(*argv, module="keras_nmt"):
    env = {**os.environ, "PYTHONPATH": str(ROOT), "TF_CPP_MIN_LOG_LEVEL": "3"}
    return subprocess.Popen([sys.executable, "-m", module, *argv], cwd=ROOT, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))


def signal_once_handled(process, signum, delay):
    """Sends `signum` `delay` seconds after `process` has put in its signal handlers; returns
    its `(stdout, stderr)` once it has ended."""
    # Not a fixed delay: on a loaded machine Python itself may still be starting (before any
    # keras_nmt code runs, a signal ends Python its own way).
    deadline = time.monotonic() + 60
    while not handles(process.pid, signal.SIGTERM) and time.monotonic() < deadline:
        time.sleep(0.01)
    time.sleep(delay)
    process.send_signal(signum)
    return process.communicate(timeout=120)


@pytest.mark.parametrize("signum, status, delay", [
    (signal.SIGINT, 130, 0.0),   # as soon as the handlers are in: importing the subcommand
    (signal.SIGTERM, 143, 0.0),
    (signal.SIGINT, 130, 1.5),   # then importing TensorFlow / matplotlib
])
def test_a_signal_during_start_up_ends_translate_in_one_line(run, signum, status, delay):
    process = start("translate", str(run), "3rd of March 2021")
    out, err = signal_once_handled(process, signum, delay)
    assert process.returncode == status, err[-2000:]
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1, err
    assert out == ""  # it did not run on


@pytest.mark.parametrize("signum, status, delay", [
    (signal.SIGINT, 130, 0.0),   # parsing the flags, reading the sentences
    (signal.SIGTERM, 143, 1.5),  # importing TensorFlow, opening the model, translating offline
])
def test_a_signal_ends_the_serving_load_benchmark_in_one_line(run, signum, status, delay,
                                                              tmp_path):
    # It printed a traceback, like any script: the benchmark had none of the commands' handling.
    table = tmp_path / "table.md"
    process = start(str(run), "--output", str(table),
                    module="keras_nmt.workshop.benchmarks.serve_load")
    out, err = signal_once_handled(process, signum, delay)
    assert process.returncode == status, err[-2000:]
    # The last line (TensorFlow's start-up log lines may come before it, as in any run).
    assert "Traceback" not in err and err.strip().splitlines()[-1] == (
        f"{'terminated (SIGTERM)' if status == 143 else 'interrupted'}: nothing was left "
        "half-written"), err
    assert list(tmp_path.iterdir()) == []  # no table, no temporary file


def test_after_a_signal_no_library_logs_beside_the_one_line():
    # A real-signal trial of train (SIGINT while Keras traced an RNN loop) printed TensorFlow's
    # "Object was never used (type TensorArray)" record and its stack beside the one line.
    logger = logging.getLogger("tensorflow")  # TensorFlow's Python logger (tf_logging)
    previous = interruption.install()
    try:
        with pytest.raises(KeyboardInterrupt):
            os.kill(os.getpid(), signal.SIGINT)
            time.sleep(5)  # the handler raises here
        assert not logger.isEnabledFor(logging.CRITICAL)
    finally:
        interruption.restore(previous)
    assert logger.isEnabledFor(logging.ERROR)  # the next command in this process logs again


def test_a_reader_that_goes_away_ends_translate_quietly(run, tmp_path):
    # `keras-nmt translate RUN --input FILE | head`: "error: [Errno 32] Broken pipe", exit 1.
    source = tmp_path / "in.txt"
    source.write_text("3rd of March 2021\n" * 40)
    process = start("translate", str(run), "--input", str(source))
    process.stdout.close()  # the reader is gone before the first line
    _, err = process.communicate(timeout=300)
    assert process.returncode == 128 + signal.SIGPIPE, err[-2000:]  # as SIGPIPE ends `cat`
    assert "error" not in err and "Traceback" not in err and "Exception ignored" not in err, err


def test_serve_on_a_busy_port_or_an_unknown_host_is_one_line_before_the_models_load(tmp_path):
    # A second `keras-nmt serve` on the same port printed a 30-line uvicorn traceback, exit 3,
    # after loading every model; a port above 65535 an OverflowError traceback.
    pytest.importorskip("uvicorn")
    busy = socket.create_server(("127.0.0.1", 0))
    port = busy.getsockname()[1]
    missing = f"es:en={tmp_path / 'not-loaded'}"  # never opened: the socket comes first
    cases = [(["--port", str(port)], 1, f"cannot listen on 127.0.0.1:{port}: Address already"),
             (["--host", "no.such.host.invalid"], 1, "cannot listen on no.such.host.invalid"),
             (["--port", "70000"], 2, "--port 70000: a port is 0-65535")]
    try:
        for flags, status, message in cases:
            process = start("serve", missing, *flags)
            out, err = process.communicate(timeout=120)
            assert process.returncode == status, err
            assert message in err and "Traceback" not in err, err
            assert err.strip().splitlines()[-1].count("error") == 1
            assert "--port" in err.strip().splitlines()[-1] and out == "", err
    finally:
        busy.close()


# --- Errors name the file or the flag, and the way out ---------------------------------------

@pytest.mark.parametrize("damage", ["truncated", "empty", "bit-flipped", "not-a-zip"])
def test_a_damaged_backup_is_named_with_the_way_out(damage, tmp_path):
    model, _, _ = make_model()
    model.compile(optimizer="adam", loss="sparse_categorical_crossentropy")
    backup = ExactBackup(tmp_path / "backup", every=1)
    backup.set_model(model)
    backup.save(0, 1)
    data = bytearray(backup.path.read_bytes())
    if damage == "truncated":
        data = data[: len(data) // 2]
    elif damage == "empty":
        data = b""
    elif damage == "bit-flipped":
        data[len(data) // 3] ^= 0xFF
    else:
        data = b"hello"
    backup.path.write_bytes(bytes(data))
    with pytest.raises(ValueError, match=re.escape(f"{backup.path} is damaged")) as caught:
        backup.restore(model)
    assert "--fresh" in str(caught.value)


def test_weights_of_another_model_are_refused_without_a_tensor_dump(run, tmp_path, capsys):
    other, _, _ = make_model("luong")
    weights = tmp_path / "other.weights.h5"
    other.save_weights(weights)
    assert evaluate_app.main([str(run), "--weights", str(weights),
                              "--output", str(tmp_path / "h.txt")]) == 1
    line = one_error_line(capsys)
    assert f"{weights} does not fit the model of {run}" in line and "value=" not in line
    assert len(line) < 300


def test_export_of_a_missing_folder_names_it_not_the_output(tmp_path, capsys):
    assert export_app.main([str(tmp_path / "nonexist"), "--output-dir", str(tmp_path)]) == 1
    line = one_error_line(capsys)
    assert "Errno None" not in line and f"{tmp_path / 'nonexist'} is not a finished run" in line


def test_a_subword_vocabulary_too_small_names_the_flag(tmp_path, capsys):
    assert train_app.main(["--output-dir", str(tmp_path / "run"), "--tokenizer", "subword",
                           "--vocab-size", "5", *TINY]) == 1
    line = one_error_line(capsys)
    assert "--vocab-size" in line and "5 pieces" in line
    assert not (tmp_path / "run").exists()


@pytest.mark.parametrize("strategy, title", [("greedy", "greedy decoding"),
                                             ("sample", "sampling")])
def test_a_one_translation_strategy_refuses_a_beam_size_naming_the_flag(run, strategy, title,
                                                                          capsys):
    """`--beam-size 4` is not ignored when the chosen strategy has no beams."""
    argv = [str(run), "a", "--strategy", strategy, "--beam-size", "4"]
    assert translate_app.main(argv) == 1
    assert one_error_line(capsys) == (f"error: {title} gives one translation per sentence: "
                                      "beam_size (--beam-size) must be 1")


def test_top_k_above_the_vocabulary_samples_among_all_tokens(run, capsys):
    argv = [str(run), "3rd of March 2021", "--strategy", "sample", "--top-k", "500"]
    assert translate_app.main(argv) in (0, None)
    assert "Traceback" not in capsys.readouterr().err


def test_samples_of_one_sentence_repeat_in_no_batching(run, capsys, monkeypatch):
    # `--batch-size 2 S S S S` printed "guitar / train / guitar / train": every batch restarted
    # the seed. A sentence's sample depends on the seed and its index alone.
    sample = [str(run), "--strategy", "sample", "--seed", "0", "--temperature", "2"]
    outputs = []
    for batch_size in ("2", "4", "1"):
        assert translate_app.main([*sample, "--batch-size", batch_size, *["7 May 1990"] * 4]) == 0
        outputs.append(capsys.readouterr().out.splitlines())
    assert outputs[0] == outputs[1] == outputs[2] and len(set(outputs[0])) == 4
    # Typed at a terminal, line by line: each line draws as it does in a file.
    class Terminal(io.StringIO):
        def isatty(self):
            return True

    monkeypatch.setattr("sys.stdin", Terminal("7 May 1990\n" * 4))
    assert translate_app.main(sample) == 0
    assert capsys.readouterr().out.splitlines() == outputs[0]


@pytest.mark.parametrize("code, way_out", [
    (errno.ENOSPC, "free some space"), (errno.EROFS, "--output-dir"), (errno.EACCES, "--output")])
def test_an_os_error_while_writing_names_the_real_file_and_the_way_out(code, way_out, tmp_path):
    target = tmp_path / "hypotheses.txt"
    with pytest.raises(OSError) as caught, atomic_path(target) as temporary:
        # open() names the hidden temporary, write() names nothing: both become the target.
        raise OSError(code, os.strerror(code), str(temporary))
    assert caught.value.filename == str(target)
    line = common.describe(caught.value)
    assert str(target) in line and way_out in line and ".hypotheses.txt" not in line


def test_an_os_error_is_one_plain_line_naming_its_file(tmp_path, capsys):
    # `translate RUN --input FOLDER` said "error: [Errno 21] Is a directory: 'FOLDER'".
    assert common.describe(IsADirectoryError(errno.EISDIR, "Is a directory", "dd")) == (
        "dd: Is a directory")
    assert common.describe(OSError(errno.EXDEV, "Invalid cross-device link", "a", None, "b")) == (
        "a -> b: Invalid cross-device link")
    assert translate_app.main([str(tmp_path), "--input", str(tmp_path)]) == 1
    assert one_error_line(capsys) == f"error: {tmp_path}: Is a directory"


def test_a_full_disk_during_a_backup_names_the_backup(tmp_path, monkeypatch):
    model, _, _ = make_model()
    model.compile(optimizer="adam", loss="sparse_categorical_crossentropy")
    backup = ExactBackup(tmp_path / "backup", every=1)
    backup.set_model(model)

    def full(*args, **kwargs):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(np, "savez", full)
    with pytest.raises(OSError) as caught:
        backup.save(0, 1)
    assert caught.value.filename == str(backup.path)
    assert not list(backup.directory.iterdir())  # no partial file left


def test_a_full_disk_in_the_ctranslate2_copy_is_one_short_line(tmp_path, monkeypatch):
    from keras_nmt.workshop.translators import ctranslate2_export  # noqa: PLC0415

    def full(source, destination):
        why = f"[Errno 28] No space left on device: '{source}/vocab.txt'"
        raise shutil.Error([(f"{source}/vocab.txt", f"{destination}/vocab.txt", why)] * 20)

    monkeypatch.setattr(shutil, "copytree", full)
    with pytest.raises(OSError) as caught:
        ctranslate2_export._copy_tree(tmp_path / "a", tmp_path / "b", tmp_path / "out")
    line = common.describe(caught.value)
    assert str(tmp_path / "out") in line and "free some space" in line and len(line) < 250


def test_a_read_only_run_folder_names_the_folder_and_the_flag(run, tmp_path, monkeypatch,
                                                            capsys):
    def read_only(path, *args, **kwargs):
        raise OSError(errno.EROFS, os.strerror(errno.EROFS), str(path))

    monkeypatch.setattr("keras_nmt.workshop.output_file.open", read_only, raising=False)
    output = tmp_path / "h.txt"
    assert evaluate_app.main([str(run), "--output", str(output)]) == 1
    line = one_error_line(capsys)
    assert str(output) in line and "--output" in line and f".{output.name}" not in line


def test_the_folder_mismatch_names_the_output_dir_flag(tmp_path, capsys):
    output = tmp_path / "run"
    output.mkdir()
    TrainConfig(output=str(output), units=16).to_json(output / "config.json")
    assert train_app.main(["--output-dir", str(output), *TINY]) == 1
    line = one_error_line(capsys)
    assert "choose another --output-dir" in line


# --- Also seen --------------------------------------------------------------------------------

def test_sentencepiece_prints_nothing(tmp_path, capfd):
    from keras_nmt.text import load_tokenizer, make_tokenizer  # noqa: PLC0415

    texts = ["the cat sat on the mat", "a dog ran in the park"] * 20
    make_tokenizer("subword", vocab_size=40).build(texts).save(tmp_path / "subword")
    load_tokenizer(tmp_path / "subword")
    assert "LOG(INFO)" not in capfd.readouterr().err


def test_the_attention_warning_does_not_call_every_model_a_plain_lstm():
    source = (ROOT / "keras_nmt" / "workshop" / "cli" / "translate.py").read_text()
    assert "no attention (plain LSTM encoder-decoder)" not in source
    assert "returns no attention weights" in source


def test_the_evaluate_help_keeps_its_line_continuation(capsys):
    with pytest.raises(SystemExit):
        evaluate_app.main(["--help"])
    out = capsys.readouterr().out
    assert re.search(r"budget\.weights\.h5 \\\n\s+--data", out), out


def test_the_example_plots_folder_is_ignored_by_git():
    assert "plots/" in (ROOT / ".gitignore").read_text().split()


def test_a_backup_at_an_epochs_end_is_named_so_not_as_the_next_epoch():
    """Found by the real-signal trials: SIGTERM after the last batch of a one-epoch run said "the
    last backup is from epoch 2, batch 0", an epoch the run does not have."""
    path = Path("run") / "backup" / "state.npz"
    at_the_end = SimpleNamespace(epoch=0, batches_done=19, saved_at=(1, 0), path=path)
    assert interrupted_at(at_the_end, "run") == (
        "at epoch 1, batch 19; the last backup is from the end of epoch 1; re-run the same "
        "command to resume from it")
    assert where_kept(at_the_end) == f"the last good backup (the end of epoch 1) is kept in {path}"
    midway = SimpleNamespace(epoch=1, batches_done=7, saved_at=(1, 5), path=path)
    assert "; the last backup is from epoch 2, batch 5; " in interrupted_at(midway, "run")
    assert "(epoch 1, batch 0)" in where_kept(SimpleNamespace(saved_at=(0, 0), path=path))
    before_epoch_2 = SimpleNamespace(epoch=1, batches_done=0, saved_at=(1, 0), path=path)
    assert interrupted_at(before_epoch_2, "run").startswith("at the end of epoch 1; ")


def test_signal_trials_small():
    """The real-signal trials script, one trial of translate (the full count: docs)."""
    from tests.adversarial import signal_trials  # noqa: PLC0415

    assert signal_trials.main(["--trials", "2", "--commands", "translate"]) == 0


def test_a_signal_a_library_swallowed_ends_the_command_in_its_one_line(capsys):
    """A SIGTERM whose exception a library swallowed (or that is being delivered again) while
    the work went on: the command's totals are not printed before the interruption's line (the
    signal trials saw translate print both, two lines)."""

    def work():
        progress = common.Progress(2)
        progress.add(2)
        interruption._received.append(signal.SIGTERM)  # what the handler records; nothing raised
        progress.finish()
        return 0

    assert interruption.run(work) == interruption.EXIT_TERMINATED
    assert capsys.readouterr().err.splitlines() == [
        "terminated (SIGTERM): nothing was left half-written"]
