"""apps/spell.py: train a tiny corrector, correct from arguments, a file and stdin."""

import io
import json

import pytest

from keras_nmt.metrics import corpus_cer, corpus_wer
from keras_nmt.workshop.cli import spell
from keras_nmt.workshop.run.run_folder import RunFolder
from keras_nmt.workshop.serve.served_model import explore_export, load_served_models
from keras_nmt.workshop.translators.export_translator import export_translator

SUBJECTS = ["Tom", "Mary", "the cat", "my dog", "she", "he"]
VERBS = ["likes", "sees", "wants", "found", "needs"]
OBJECTS = ["apples", "the ball", "a letter", "water", "it"]

# `spell correct` on a model already opened in the module reuses it (`each_model_opened_once`).
pytestmark = pytest.mark.usefixtures("each_model_opened_once")


@pytest.fixture(scope="module")
def tiny_run(tmp_path_factory):
    directory = tmp_path_factory.mktemp("spell")
    text = directory / "text.txt"
    text.write_text(
        "\n".join(f"{s} {v} {o}." for s in SUBJECTS for v in VERBS for o in OBJECTS) + "\n"
    )
    run = directory / "run"
    report = spell.main([
        "train", "--text", str(text), "--tokenizer", "char", "--model", "lstm", "--units", "16",
        "--embedding-dim", "8", "--epochs", "1", "--batch-size", "32", "--valid-size", "10",
        "--test-size", "20", "--max-length", "40", "--verbose", "0", "--output-dir", str(run),
    ])
    return run, report


def test_train_writes_a_normal_run_folder_and_the_report(tiny_run):
    run, report = tiny_run
    saved = json.loads((run / "spelling.json").read_text())
    assert saved["sizes"] == {"train": 120, "valid": 10, "test": 20}
    assert saved["noise"]["word_rate"] == 0.3
    assert saved["test"]["sentences"] == report["sentences"] == 20
    assert report["epochs"] == 1 and report["level"] == "char"
    assert report["sentences_per_second"] > 0
    lines = (run / "test_pairs.tsv").read_text().splitlines()
    assert lines[0] == "noisy\tclean\tcorrected" and len(lines) == 21
    noisy, clean, corrected = zip(*(line.split("\t") for line in lines[1:]), strict=True)
    # The saved report is the report of the saved test pairs and corrections.
    assert report["noisy_cer"] == pytest.approx(corpus_cer(noisy, clean).rate)
    assert report["corrected_cer"] == pytest.approx(corpus_cer(corrected, clean).rate)
    assert report["corrected_wer"] == pytest.approx(corpus_wer(corrected, clean).rate)
    assert 0.0 < report["noisy_cer"] < 0.2  # word rate 0.3, a few typos per touched word
    loaded = RunFolder.load(run)
    assert loaded.config["tokenizer"] == "char"
    # One epoch is one pass over the 120 training sentences in batches of 32.
    assert loaded.config["steps_per_epoch"] == 4


def test_correct_from_arguments_file_and_stdin(tiny_run, tmp_path, capsys, monkeypatch):
    run, _ = tiny_run
    corrected = spell.main(["correct", str(run), "Tom liks apples.", "she sees teh ball."])
    assert len(corrected) == 2 and all(isinstance(line, str) for line in corrected)
    assert capsys.readouterr().out.splitlines() == corrected

    inputs = tmp_path / "in.txt"
    inputs.write_text("Tom liks apples.\nshe sees teh ball.\nmy dgo needs water.\n")
    from_file = spell.main(["correct", str(run), "--input", str(inputs)])
    assert from_file[:2] == corrected and len(from_file) == 3
    capsys.readouterr()

    monkeypatch.setattr("sys.stdin", io.StringIO("Tom liks apples.\nshe sees teh ball.\n"))
    assert spell.main(["correct", str(run)]) == corrected


def test_compare_reuses_levels_trained_separately(tiny_run, tmp_path, monkeypatch, capsys):
    text = tiny_run[0].parent / "text.txt"
    common = ["--text", str(text), "--models", "lstm", "--units", "16", "--embedding-dim", "8",
              "--epochs", "1", "--batch-size", "32", "--valid-size", "10", "--test-size", "20",
              "--max-length", "40", "--verbose", "0", "--output-dir", str(tmp_path / "cmp")]
    # Two levels trained by separate commands (as when run in parallel)...
    char_row, = spell.main(["compare", "--tokenizers", "char", *common])
    word_row, = spell.main(["compare", "--tokenizers", "word", *common])
    capsys.readouterr()

    def no_training(*args, **kwargs):
        raise AssertionError("a finished level was trained again")

    # ...combine into one table without training again.
    monkeypatch.setattr("keras_nmt.workshop.spelling.comparison.train_speller", no_training)
    rows = spell.main(["compare", "--tokenizers", "char,word", *common])
    assert rows == [char_row, word_row]
    assert "finished earlier, reusing" in capsys.readouterr().out
    table = (tmp_path / "cmp" / "comparison.md").read_text().splitlines()
    assert len(table) == 4 and table[2].startswith("| char ") and table[3].startswith("| word ")
    # A finished level with other model options is refused, not silently mixed in.
    assert spell.main(["compare", "--tokenizers", "char", *common[:5], "32", *common[6:]]) == 1
    error = capsys.readouterr().err  # one line, no traceback
    assert error.startswith("error: ") and "units" in error and "Traceback" not in error


def test_help_explains_the_flags(capsys):
    for command, flags in [
        ("train", ["--text", "--source-column", "--tokenizer", "--model", "--api", "--epochs",
                   "--time-budget", "--noise-rate", "--noise", "--train-size", "--seed",
                   "--output-dir"]),
        ("correct", ["--input", "--output", "--beam-size"]),
        ("compare", ["--tokenizers", "--output-dir", "--time-budget"]),
    ]:
        with pytest.raises(SystemExit):
            spell.main([command, "--help"])
        text = capsys.readouterr().out
        for flag in flags:
            assert flag in text


def test_an_exported_corrector_corrects_the_same(tiny_run, tmp_path, capsys):
    run, _ = tiny_run
    texts = ["Tom liks apples.", "she sees teh ball."]
    from_run = spell.main(["correct", str(run), *texts])
    # Greedy correction only: beam size 1 is the one beam function the export needs to trace.
    saved = export_translator(str(run), base_dir=tmp_path / "saved", name="speller",
                              max_beam_size=1)
    assert spell.main(["correct", str(saved), *texts]) == from_run


def test_a_ctc_corrector_trains_corrects_and_exports(tiny_run, tmp_path, capsys):
    text = tiny_run[0].parent / "text.txt"
    # Through the comparison: its row's folder is OUTPUT_DIR/LEVEL-MODEL.
    row, = spell.main([
        "compare", "--text", str(text), "--tokenizers", "char", "--models", "ctc", "--units",
        "16", "--embedding-dim", "8", "--epochs", "1", "--batch-size", "32", "--valid-size",
        "10", "--test-size", "20", "--max-length", "40", "--verbose", "0", "--output-dir",
        str(tmp_path / "cmp"),
    ])
    run = tmp_path / "cmp" / "char-ctc"
    assert row["model"] == "ctc" and row["sentences"] == 20 and row["sentences_per_second"] > 0
    assert RunFolder.load(run).model.model_name == "ctc"
    texts = ["Tom liks apples.", "she sees teh ball."]
    greedy = spell.main(["correct", str(run), *texts])
    beam = spell.main(["correct", str(run), *texts, "--beam-size", "2"])
    assert len(greedy) == len(beam) == 2
    capsys.readouterr()
    # The SavedModel runs the same CTC decodings (greedy and beam search) in its graph.
    saved = export_translator(str(run), base_dir=tmp_path / "saved", name="ctc", max_beam_size=2)
    assert spell.main(["correct", str(saved), *texts]) == greedy
    assert spell.main(["correct", str(saved), *texts, "--beam-size", "2"]) == beam
    # The server's explorer has no steps to record a tree from: it shows the n-best, as for an
    # export (it ran the seq2seq step loop on the model and failed).
    [served] = load_served_models([f"en:en={run}"])
    assert served.describe()["beam_tree"] is False
    view = explore_export(served, texts[1], 2, 2, 0.0)
    assert view["tree"] is None and view["hypotheses"][0]["text"] == beam[1]


def test_options_no_compared_model_reads_are_refused(capsys):
    common = ["compare", "--text", "t", "--tokenizers", "char"]
    for argv, message in [
        ([*common, "--models", "lstm", "--upsampling", "3"], "--upsampling 3: --model lstm"),
        ([*common, "--models", "ctc", "--heads", "2"], "--heads 2: --model ctc"),
        ([*common, "--models", "lstm,nope"], "nope: not a model"),
        (["train", "--text", "t", "--model", "ctc", "--d-model", "64"], "--d-model 64"),
    ]:
        with pytest.raises(SystemExit):
            spell.main(argv)
        assert message in capsys.readouterr().err
    # Read by one of the compared models: accepted (the missing file is the next error).
    assert spell.main([*common, "--models", "lstm,ctc", "--upsampling", "3"]) == 1
    assert "corpus file not found" in capsys.readouterr().err
    # The CTC model is one class: --api would choose nothing.
    assert spell.main(["train", "--text", "t", "--model", "ctc", "--api", "subclassed"]) == 1
    assert "--api subclassed: --model ctc does not read it" in capsys.readouterr().err


def test_a_comparison_checks_every_row_before_training_one(tiny_run, monkeypatch, capsys):
    def no_training(*args, **kwargs):
        raise AssertionError("a row trained before the others were checked")

    monkeypatch.setattr("keras_nmt.workshop.spelling.comparison.train_speller", no_training)
    text = tiny_run[0].parent / "text.txt"
    assert spell.main(["compare", "--text", str(text), "--tokenizers", "char", "--models",
                       "lstm,ctc", "--api", "subclassed", "--test-size", "20"]) == 1
    assert "--api subclassed: --model ctc does not read it" in capsys.readouterr().err
