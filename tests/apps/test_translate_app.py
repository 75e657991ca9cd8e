import io
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from keras_nmt.workshop.cli import translate as translate_app
from tests.export.helpers import SOURCES, make_run_folder

# The commands of a test on one model share its opening (`each_model_opened_once`): these
# tests check what `translate` does with its input and flags; `test_saved_model_apps` opens
# each kind of folder afresh.
pytestmark = pytest.mark.usefixtures("each_model_opened_once")


@pytest.fixture(scope="module")
def run_and_saved(untrained_models):
    return untrained_models["run"], untrained_models["version"]


@pytest.mark.parametrize("which", [0, 1], ids=["run_dir", "saved_model"])
def test_arguments_stdin_and_file(run_and_saved, which, tmp_path, capsys, monkeypatch):
    model = str(run_and_saved[which])
    assert translate_app.main([model, *SOURCES[:2]]) == 0
    from_args = capsys.readouterr().out.splitlines()
    assert len(from_args) == 2
    monkeypatch.setattr("sys.stdin", io.StringIO(f"{SOURCES[0]}\n\n{'7' * 300}\n"))
    assert translate_app.main([model]) == 0
    captured = capsys.readouterr()
    lines = captured.out.split("\n")
    assert lines[0] == from_args[0] and lines[1] == "" and len(lines) == 4
    assert "only the first 20 are translated" in captured.err
    (tmp_path / "in.txt").write_text("\n".join(SOURCES[:2]) + "\n")
    out = tmp_path / "out.txt"
    assert translate_app.main([model, "--input", str(tmp_path / "in.txt"), "--output",
                               str(out)]) == 0
    assert out.read_text().splitlines() == from_args


@pytest.mark.parametrize("which", [0, 1], ids=["run_dir", "saved_model"])
def test_n_best_sorted_and_attention_plot(run_and_saved, which, tmp_path, capsys):
    model = str(run_and_saved[which])
    assert translate_app.main([model, "--beam-size", "2", "--n-best", "2", *SOURCES]) == 0
    rows = [line.split("\t") for line in capsys.readouterr().out.splitlines()]
    assert len(rows) == 2 * len(SOURCES)
    for first, second in zip(rows[::2], rows[1::2], strict=True):
        assert (first[1], second[1]) == ("1", "2") and float(first[2]) >= float(second[2])
    assert translate_app.main([model, "--attention-plot", str(tmp_path / "plots"), "a"]) == 0
    assert "no attention" in capsys.readouterr().err  # plain LSTM: a message, no crash


def test_attention_plots_are_of_the_translations_printed_or_say_whose_they_are(tmp_path,
                                                                              capsys):
    # With --beam-size, the plots were greedy decoding's, of translations that may differ from
    # those printed, without a word; greedy decoding translated every sentence twice.
    luong = str(make_run_folder(tmp_path / "luong", "luong"))
    plots = tmp_path / "plots"
    assert translate_app.main([luong, "--attention-plot", str(plots), *SOURCES[:2]]) == 0
    greedy = capsys.readouterr()
    assert sorted(p.name for p in plots.iterdir()) == ["attention_0001.png", "attention_0002.png"]
    assert "attention" not in greedy.err
    assert translate_app.main([luong, "--beam-size", "2", "--attention-plot",
                               str(tmp_path / "beam"), *SOURCES[:2]]) == 0
    beam = capsys.readouterr()
    assert ("--attention-plot draws greedy decoding's attention, each plot titled with its "
            "translation, not beam search's") in beam.err
    assert len(list((tmp_path / "beam").iterdir())) == 2


def test_a_convs2s_runs_plots_show_every_decoder_layer_and_their_mean(tmp_path, capsys):
    from keras_nmt.workshop.translators.open_translator import open_translator

    run = make_run_folder(tmp_path / "convs2s", "convs2s")
    plots = tmp_path / "plots"
    assert translate_app.main([str(run), "--attention-plot", str(plots), SOURCES[0]]) == 0
    assert [p.name for p in plots.iterdir()] == ["attention_0001.png"]
    translator = open_translator(run)
    [result] = translator.translate_batch([SOURCES[0]], return_attention=True)
    panels = translate_app.decoder_layer_panels(translator, SOURCES[0], result)
    assert [panel[3] for panel in panels] == ["decoder layer 1", "decoder layer 2",
                                              "mean (what decoding returns)"]
    layers = np.stack([panel[0] for panel in panels[:2]])  # (layers, target, source)
    assert layers.shape == (2, len(result.target_tokens), len(result.source_tokens))
    np.testing.assert_allclose(layers.mean(axis=0), result.weights, atol=1e-5)


def test_sampling_on_saved_model_is_a_clear_error(run_and_saved, capsys):
    assert translate_app.main([str(run_and_saved[1]), "--strategy", "sample", "a"]) == 1
    assert "sampling is not exported" in capsys.readouterr().err
    argv = [str(run_and_saved[0]), "--strategy", "sample", "--seed", "3", "a"]
    assert translate_app.main(argv) == 0


THREADS = """
import sys
from keras_nmt.workshop.cli import translate
from keras_nmt.inference.batch_translator import parallel_batches
code = translate.main(sys.argv[1:])
print("parallel", parallel_batches(), code)
"""


def test_parallel_batches_by_default_and_the_same_translations(run_and_saved, tmp_path):
    # The thread pools are fixed per process: each setting runs in a fresh one.
    root = Path(__file__).resolve().parents[2]
    sentences = [f"{day} March 2021" for day in range(1, 29)] * 3
    (tmp_path / "in.txt").write_text("\n".join(sentences) + "\n")
    outputs = {}
    for flags in ([], ["--parallel-batches", "1"]):
        done = subprocess.run(
            [sys.executable, "-c", THREADS, str(run_and_saved[0]), "--input",
             str(tmp_path / "in.txt"), "--batch-size", "8", *flags],
            capture_output=True, text=True, cwd=root, timeout=300,
            env={**os.environ, "PYTHONPATH": str(root)},
        )
        lines = done.stdout.splitlines()
        assert done.returncode == 0 and lines[-1].startswith("parallel"), done.stderr[-2000:]
        outputs[tuple(flags)] = lines[:-1]
        expected = 1 if flags else (os.cpu_count() or 1)
        assert lines[-1] == f"parallel {expected} 0"
    assert len(outputs[()]) == len(sentences)
    assert outputs[()] == outputs[("--parallel-batches", "1")]
