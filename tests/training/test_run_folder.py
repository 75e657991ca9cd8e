"""Re-using an --output folder: bad lines reported, other options refused, finished runs kept."""

import json

from keras_nmt.cli import train as train_app
from keras_nmt.training.run_folder import differing_options

TINY = ["--units", "8", "--embedding-dim", "4", "--batch-size", "16", "--epochs", "1",
        "--validation-sentences", "4", "--samples", "0", "--verbose", "0", "--max-length", "12"]


def test_differing_options_ignore_what_never_changes_the_weights():
    saved = {"tokenizer": "char", "verbose": 1, "epochs": 2, "units": 8}
    new = {"tokenizer": "word", "verbose": 2, "epochs": 5, "units": 8}
    assert differing_options(saved, new) == ["tokenizer (char in the folder, word now)"]


def test_reused_folder(tmp_path, capsys):
    lines = [f"{day} May\t{day} de mayo" for day in range(1, 31)]
    lines[4] = "a line without a tab"
    lines[7] = "x" * 40 + "\t" + "y" * 40  # longer than --max-length 12: dropped, counted
    data = tmp_path / "may.tsv"
    data.write_text("\n".join(lines) + "\n", encoding="utf-8")
    run = tmp_path / "run"
    command = [*TINY, "--data", str(data), "--valid", str(data), "--skip-bad-lines",
               "--max-bad-fraction", "0.1", "--output", str(run)]
    assert train_app.main(command) is not None
    out = capsys.readouterr().out
    assert f"first skipped: {data}:5" in out
    assert "1 longer than 12 tokens filtered" in out
    model_time = (run / "model.keras").stat().st_mtime_ns

    # The same command again: finished, nothing is trained or written.
    assert train_app.main(command) is None
    assert "is finished" in capsys.readouterr().out
    assert (run / "model.keras").stat().st_mtime_ns == model_time

    # Other options: refused, naming them; the folder is untouched.
    assert train_app.main([*command, "--tokenizer", "word", "--units", "16"]) == 1
    err = capsys.readouterr().err
    assert "tokenizer (char in the folder, word now)" in err and "units (8" in err
    assert json.loads((run / "config.json").read_text())["tokenizer"] == "char"

    # --fresh starts again with the new options.
    assert train_app.main([*command, "--tokenizer", "word", "--fresh"]) is not None
    assert json.loads((run / "config.json").read_text())["tokenizer"] == "word"
    tokenizer = json.loads((run / "tokenizers" / "source" / "config.json").read_text())
    assert tokenizer["kind"] == "word"
