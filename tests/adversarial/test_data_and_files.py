"""Adversarial cases of data and files: no silent wrong result, no file lost or overwritten.

Each test feeds the command line what a stranger might (a reversed, headed, foreign or replaced
data file, a damaged tokenizer, an output that is an input, two commands at once, what a killed
command left) and asserts the outcome: the right result, or one `error:` line naming the file or
flag, a non-zero exit and nothing lost. docs/reliability.md lists them ("Data and files").
One tiny Transformer is trained per module (`made`); tests copy what they change.
"""

import errno
import gzip
import importlib.util
import json
import multiprocessing
import os
import random
import shutil
import subprocess
import sys
import types
from pathlib import Path

import pytest

from keras_nmt.workshop.atomic_file import atomic_path
from keras_nmt.workshop.cli import evaluate as evaluate_app
from keras_nmt.workshop.cli import export as export_app
from keras_nmt.workshop.cli import main as cli_main
from keras_nmt.workshop.cli import train as train_app
from keras_nmt.workshop.cli import translate as translate_app
from keras_nmt.workshop.corpora.corpus import read_tsv
from keras_nmt.workshop.corpora.data_profile import looks_like_header
from keras_nmt.workshop.lines import read_lines, write_lines
from keras_nmt.workshop.owned_folder import partial_name
from keras_nmt.workshop.run.provenance import tokenizer_fingerprints
from keras_nmt.workshop.run.run_lifecycle import check_data_unchanged, check_run_folder, data_record
from keras_nmt.workshop.run.train_config import TrainConfig
from keras_nmt.workshop.serve.served_model import ModelLoadError, load_served_models
from keras_nmt.workshop.translators.open_translator import model_data
from tests.error_output import one_error_line
from tests.test_owned_folder import dead_owner

ROOT = Path(__file__).resolve().parents[2]

# A toy "Spanish -> English" with disjoint vocabularies, so that a reversed or foreign file is
# unmistakable to the data checks, and a tiny Transformer (CTranslate2 exports it too).
LEXICON = {"uno": "one", "dos": "two", "tres": "three", "gato": "cat", "perro": "dog",
           "casa": "house", "rojo": "red", "verde": "green", "grande": "big", "pequeño": "small",
           "come": "eats", "duerme": "sleeps"}
TRAIN_FLAGS = ["--model", "transformer", "--d-model", "16", "--heads", "2", "--ff-dim", "16",
               "--layers", "1", "--batch-size", "16", "--epochs", "1", "--validation-sentences",
               "4", "--samples", "0", "--verbose", "0", "--max-length", "24"]


def toy_pairs(count, seed):
    """`count` (source, target) pairs of 1-3 toy words."""
    rng = random.Random(seed)
    words = sorted(LEXICON)
    pairs = []
    for _ in range(count):
        chosen = [rng.choice(words) for _ in range(rng.randint(1, 3))]
        pairs.append((" ".join(chosen), " ".join(LEXICON[word] for word in chosen)))
    return pairs


def write_tsv(path, pairs, header=None):
    lines = ([header] if header else []) + [f"{source}\t{target}" for source, target in pairs]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def train_command(data, run, *more):
    return [*TRAIN_FLAGS, "--data", str(data), "--output-dir", str(run), *more]


@pytest.fixture(scope="module")
def made(tmp_path_factory):
    """One tiny trained run (source first, target second), its SavedModel and, where
    ctranslate2 is installed, its CTranslate2 export; tests copy what they change."""
    base = tmp_path_factory.mktemp("adversarial")
    data = write_tsv(base / "pairs.tsv", toy_pairs(80, seed=0))
    test = write_tsv(base / "test.tsv", toy_pairs(12, seed=1))
    # Trained into a folder of the user's files (`test_a_folder_of_other_files_takes_a_run_and_
    # keeps_them` checks they are kept): one training serves both.
    run = users_folder(base, "results/")
    assert train_app.main(train_command(data, run)) is not None
    saved_models = base / "saved"
    assert export_app.main([str(run), "--output-dir", str(saved_models), "--name", "m",
                            "--max-beam-size", "1"]) == 0
    export = None
    if importlib.util.find_spec("ctranslate2") is not None:  # an optional extra
        assert export_app.main([str(run), "--output-dir", str(saved_models), "--name", "m",
                                "--format", "ctranslate2"]) == 0
        export = saved_models / "m-ctranslate2"
    return types.SimpleNamespace(base=base, data=data, test=test, run=run,
                                 saved=saved_models / "m" / "1", ctranslate2=export)


def own_run(made, tmp_path):
    """A copy of the module's run with its own copy of the data file (config and `data.json`
    rewritten to it), to damage or replace; returns ``(run, data)``."""
    data = shutil.copyfile(made.data, tmp_path / "pairs.tsv")
    run = shutil.copytree(made.run, tmp_path / "run")
    config = json.loads((run / "config.json").read_text())
    config.update(data=str(data), output=str(run))
    (run / "config.json").write_text(json.dumps(config))
    record = json.loads((run / "data.json").read_text())
    for item in record["files"]:
        item["path"] = str(data.resolve())
    (run / "data.json").write_text(json.dumps(record))
    return run, data


def needs_ctranslate2(made):
    if made.ctranslate2 is None:
        pytest.skip("ctranslate2 is not installed")
    return made.ctranslate2


def tree(folder):
    """Every path under `folder` with its size and content, to show nothing changed."""
    return {str(p.relative_to(folder)): p.read_bytes() if p.is_file() else None
            for p in sorted(folder.rglob("*"))}


def sources_of(path):
    return [line.split("\t")[0] for line in read_lines(path)]


def swapped(pairs):
    return [(target, source) for source, target in pairs]


# ------------------------------------------------------------------------------------------------
# Fingerprints: a run knows its data and its tokenizer files
# ------------------------------------------------------------------------------------------------
def test_a_run_records_what_its_data_is(made):
    record = json.loads((made.run / "data.json").read_text())
    [item] = record["files"]
    assert item["path"] == str(made.data.resolve()) and item["size"] == made.data.stat().st_size
    assert len(item["sha256"]) == 64 and item["columns"] == [0, 1] and item["header"] is False
    assert sorted(record["profile"]["source"]["words"]) == sorted(LEXICON)
    assert sorted(record["profile"]["target"]["words"]) == sorted(LEXICON.values())
    tokenizer = json.loads((made.run / "tokenizers" / "source" / "config.json").read_text())
    assert set(tokenizer["sha256"]) == {"vocab.txt"}


@pytest.mark.parametrize("change", ["replaced", "appended", "gone"])
def test_resume_with_a_replaced_data_file_is_refused(change, made, tmp_path, capsys):
    """Case 7: the data file replaced between runs; the run would resume with the old
    vocabulary and its place in the old file."""
    run, data = own_run(made, tmp_path)
    (run / "finished.json").unlink()  # an unfinished run: the same command would resume it
    if change == "replaced":  # same size, other pairs
        write_tsv(data, swapped(toy_pairs(80, seed=0)))
    elif change == "appended":
        data.write_text(data.read_text() + "gato\tcat\n")
    else:
        data.unlink()
    before = tree(run)
    assert train_app.main(train_command(data, run)) == 1
    line = one_error_line(capsys)
    assert str(data.resolve()) in line and "--fresh" in line
    assert tree(run) == before


def test_resume_with_a_changed_validation_file_is_refused(made, tmp_path, capsys):
    data = shutil.copyfile(made.data, tmp_path / "pairs.tsv")
    valid = write_tsv(tmp_path / "valid.tsv", toy_pairs(6, seed=5))
    run = tmp_path / "run"
    config = TrainConfig(data=str(data), valid=str(valid), output=str(run))
    run.mkdir()
    (run / "data.json").write_text(json.dumps(data_record(config, toy_pairs(3, 0))))
    check_data_unchanged(run)  # unchanged: no error
    write_tsv(valid, toy_pairs(6, seed=6))
    with pytest.raises(ValueError, match=str(valid.resolve())):
        check_data_unchanged(run)


@pytest.mark.parametrize("command", ["translate", "evaluate", "export", "train"])
def test_a_truncated_vocabulary_fails_its_checksum(command, made, tmp_path, capsys):
    """Case 14: vocab.txt cut short but still beginning with the special tokens: every command
    refuses it, naming the file, instead of translating differently."""
    run, data = own_run(made, tmp_path)
    vocabulary = run / "tokenizers" / "target" / "vocab.txt"
    lines = vocabulary.read_text(encoding="utf-8").split("\n")
    vocabulary.write_text("\n".join(lines[: len(lines) // 2]) + "\n", encoding="utf-8")
    assert lines[:4] == ["<pad>", "<unk>", "<s>", "</s>"]
    if command == "translate":
        status = translate_app.main([str(run), "uno dos"])
    elif command == "evaluate":
        status = evaluate_app.main([str(run), "--data", str(made.test)])
    elif command == "export":
        status = export_app.main([str(run), "--output-dir", str(tmp_path / "saved")])
    else:
        (run / "finished.json").unlink()
        status = train_app.main(train_command(data, run))
    assert status == 1
    line = one_error_line(capsys)
    assert str(vocabulary) in line and "checksum" in line
    assert not (tmp_path / "saved").exists()


def test_a_vocabulary_with_one_changed_token_fails_its_checksum(made, tmp_path, capsys):
    run, _ = own_run(made, tmp_path)
    vocabulary = run / "tokenizers" / "source" / "vocab.txt"
    text = vocabulary.read_text(encoding="utf-8")
    vocabulary.write_text(text.replace("\na\n", "\nx\n", 1), encoding="utf-8")  # same size
    assert vocabulary.read_text(encoding="utf-8") != text
    assert translate_app.main([str(run), "uno"]) == 1
    assert str(vocabulary) in one_error_line(capsys)


def test_a_deleted_vocabulary_is_named(made, tmp_path, capsys):
    run, _ = own_run(made, tmp_path)
    (run / "tokenizers" / "source" / "vocab.txt").unlink()
    assert translate_app.main([str(run), "uno"]) == 1
    assert str(run / "tokenizers" / "source" / "vocab.txt") in one_error_line(capsys)


def test_a_tokenizer_saved_before_checksums_still_loads(made, tmp_path, capsys):
    run, _ = own_run(made, tmp_path)
    (run / "provenance.json").unlink()  # a run older than checksums is older than this too
    for side in ("source", "target"):
        path = run / "tokenizers" / side / "config.json"
        config = json.loads(path.read_text())
        del config["sha256"]
        path.write_text(json.dumps(config))
    capsys.readouterr()
    assert translate_app.main([str(run), "uno dos"]) == 0
    assert len(capsys.readouterr().out.splitlines()) == 1


def test_a_damaged_ctranslate2_vocabulary_is_named(made, tmp_path, capsys):
    export = shutil.copytree(needs_ctranslate2(made), tmp_path / "ct2")
    vocabulary = export / "tokenizers" / "source" / "vocab.txt"
    vocabulary.write_text(vocabulary.read_text(encoding="utf-8")[:-3], encoding="utf-8")
    assert translate_app.main([str(export), "uno"]) == 1
    assert str(vocabulary) in one_error_line(capsys)


def test_a_ctranslate2_model_bin_of_other_weights_is_named(made, tmp_path, capsys):
    """A CTranslate2 export's `model.bin` was bound to nothing: one of other weights (here one
    value changed) beside the export's tokenizers and record translated without a word."""
    export = shutil.copytree(needs_ctranslate2(made), tmp_path / "ct2")
    record = json.loads((export / "provenance.json").read_text())
    assert set(record["engine_files"]) >= {"model.bin", "config.json"}
    model = export / "model.bin"
    data = bytearray(model.read_bytes())
    data[len(data) // 2] ^= 0x40  # a bit of a weight (the file is mostly weights)
    model.write_bytes(bytes(data))
    assert translate_app.main([str(export), "uno"]) == 1
    assert one_error_line(capsys) == (
        f"error: {model} is not the file this model was exported with (its SHA-256 differs "
        f"from the one in {export / 'provenance.json'}): the weights are not those of the "
        "tokenizers beside them. Copy the export's own files back, or export it again")


def missing_record_warning(folder, model_name, way_out):
    return (f"warning: {folder / 'provenance.json'} is missing (written by older code, or "
            f"deleted): nothing binds {folder / model_name} to {folder / 'tokenizers'} but their "
            "vocabulary sizes, and another model's tokenizers of those sizes would translate "
            f"into nonsense without an error; {way_out}")


def warnings_in(err):
    return [line for line in err.splitlines() if line.startswith("warning: ")]


def test_a_run_without_its_record_is_named_and_its_next_train_records_it(made, tmp_path,
                                                                           capsys):
    """A run without `provenance.json` (older code, or the file deleted) was opened without a
    word, though nothing bound its model to its tokenizers but their sizes; a re-run of its
    train command said "nothing to do" and left it unbound."""
    run, data = own_run(made, tmp_path)
    recorded = json.loads((run / "provenance.json").read_text())
    (run / "provenance.json").unlink()
    capsys.readouterr()
    assert translate_app.main([str(run), "uno dos"]) == 0
    assert warnings_in(capsys.readouterr().err) == [missing_record_warning(
        run, "model.keras", f"if they are its own, `keras-nmt train --output-dir {run}` records "
        "them as they are now (an import: import it again)")]
    assert train_app.main(train_command(data, run)) is None  # finished: nothing to train
    assert (f"recorded {run / 'provenance.json'}: the fingerprints of {run / 'model.keras'} "
            "and of its tokenizers as they are now") in capsys.readouterr().out
    again = json.loads((run / "provenance.json").read_text())
    assert {k: again[k] for k in ("tokenizers", "tokenizer_files", "weights")} == {
        k: recorded[k] for k in ("tokenizers", "tokenizer_files", "weights")}
    assert translate_app.main([str(run), "uno dos"]) == 0
    assert warnings_in(capsys.readouterr().err) == []


def test_a_ctranslate2_export_without_its_record_is_named_in_a_warning(made, tmp_path, capsys):
    export = shutil.copytree(needs_ctranslate2(made), tmp_path / "ct2")
    (export / "provenance.json").unlink()
    capsys.readouterr()
    assert translate_app.main([str(export), "uno"]) == 0
    assert warnings_in(capsys.readouterr().err) == [missing_record_warning(
        export, "model.bin", "export it again from its run to record them")]


def test_an_export_of_a_run_without_its_record_binds_what_it_carries(made, tmp_path, capsys):
    """A CTranslate2 export of a run without `provenance.json` recorded no tokenizer
    fingerprints: its own tokenizers could be swapped without a word."""
    needs_ctranslate2(made)
    run, _ = own_run(made, tmp_path)
    (run / "provenance.json").unlink()
    assert export_app.main([str(run), "--output-dir", str(tmp_path / "out"), "--name", "m",
                            "--format", "ctranslate2"]) == 0
    export = tmp_path / "out" / "m-ctranslate2"
    record = json.loads((export / "provenance.json").read_text())
    assert record["tokenizers"] == tokenizer_fingerprints(export / "tokenizers")
    source, target = export / "tokenizers" / "source", export / "tokenizers" / "target"
    for name in ("config.json", "vocab.txt"):  # the other side's files: each whole
        shutil.copyfile(target / name, source / name)
    capsys.readouterr()
    assert translate_app.main([str(export), "uno"]) == 1
    assert one_error_line(capsys).startswith(f"error: {source / 'config.json'} is not the file")


def test_a_run_made_before_a_new_option_is_not_refused(made):
    """A config.json written before an option existed (here `accept_data`) resumes: the option
    takes its default."""
    config = json.loads((made.run / "config.json").read_text())
    del config["accept_data"]
    older = made.run.parent / "older-config.json"
    older.write_text(json.dumps(config))
    check_run_folder(TrainConfig(**{**config, "accept_data": False}), older)


# ------------------------------------------------------------------------------------------------
# A finished run is never retrained because its backup is gone
# ------------------------------------------------------------------------------------------------
def test_a_finished_run_without_its_backup_is_not_retrained(made, tmp_path, capsys):
    """Case 3: backup/state.npz deleted; training on (--epochs 2) would start from epoch 1 and
    replace the model."""
    run, data = own_run(made, tmp_path)
    (run / "backup" / "state.npz").unlink()
    model = (run / "model.keras").read_bytes()
    assert train_app.main([*train_command(data, run), "--epochs", "2"]) == 1
    line = one_error_line(capsys)
    assert str(run / "backup" / "state.npz") in line and "--fresh" in line
    assert (run / "model.keras").read_bytes() == model


def test_a_finished_run_without_its_backup_still_does_nothing(made, tmp_path, capsys):
    run, data = own_run(made, tmp_path)
    (run / "backup" / "state.npz").unlink()
    model = (run / "model.keras").read_bytes()
    assert train_app.main(train_command(data, run)) is None
    assert "is finished" in capsys.readouterr().out
    assert (run / "model.keras").read_bytes() == model


def test_a_run_with_a_history_but_no_backup_is_not_restarted(made, tmp_path, capsys):
    run, data = own_run(made, tmp_path)
    for name in ("backup/state.npz", "model.keras", "finished.json"):
        (run / name).unlink()
    assert train_app.main(train_command(data, run)) == 1
    assert "history.json" in one_error_line(capsys)


def test_a_damaged_data_record_is_named_not_a_traceback(made, tmp_path, capsys):
    run, data = own_run(made, tmp_path)
    (run / "data.json").write_text('{"mine": 1}')
    assert train_app.main([*train_command(data, run), "--epochs", "2"]) == 1
    line = one_error_line(capsys)
    assert f"{run / 'data.json'} is damaged" in line and "--fresh" in line


# ------------------------------------------------------------------------------------------------
# Training, --fresh and a start that fails delete only what a run wrote
# ------------------------------------------------------------------------------------------------
def users_folder(tmp_path, *names):
    """A folder of the user's holding `names` (files or, ending in /, folders with a file)."""
    folder = tmp_path / "project"
    folder.mkdir()
    (folder / "notes.txt").write_text("mine\n")
    for name in names:
        if name.endswith("/"):
            (folder / name).mkdir()
            (folder / name / "mine.txt").write_text("mine\n")
        else:
            (folder / name).write_text('{"app": "mine"}')
    return folder


@pytest.mark.parametrize("fresh", [[], ["--fresh"]])
def test_a_foreign_config_json_is_not_taken_for_a_run(fresh, made, tmp_path, capsys):
    """Its error said "a run made with other options ... add --fresh", and --fresh deleted the
    user's config.json and logs/."""
    folder = users_folder(tmp_path, "config.json", "logs/")
    before = tree(folder)
    assert train_app.main([*train_command(made.data, folder), *fresh]) == 1
    line = one_error_line(capsys)
    assert f"{folder / 'config.json'} is not a run's" in line and "another --output-dir" in line
    assert tree(folder) == before


@pytest.mark.parametrize("fresh", [[], ["--fresh"]])
def test_a_folder_holding_a_runs_names_but_no_run_is_refused(fresh, made, tmp_path, capsys):
    """A start that failed (every pair too long) deleted the user's logs/ and backup/."""
    folder = users_folder(tmp_path, "logs/", "backup/", "data.json")
    before = tree(folder)
    assert train_app.main([*train_command(made.data, folder, "--max-length", "3"), *fresh]) == 1
    line = one_error_line(capsys)
    assert f"{folder} holds data.json, backup, logs but no run" in line
    assert tree(folder) == before


def test_a_folder_of_other_files_takes_a_run_and_keeps_them(made):
    folder = made.run  # the module's run, trained into a folder holding notes.txt and results/
    assert (folder / "notes.txt").read_text() == "mine\n"
    assert (folder / "results" / "mine.txt").read_text() == "mine\n"
    assert (folder / "model.keras").is_file()


def test_import_force_replaces_only_a_run(tmp_path, capsys):
    """`import MODEL --output-dir runs --force` (taking the flag for export's parent folder)
    deleted every run in runs/."""
    marian = ROOT / "tests" / "pretrained" / "fixtures" / "hf"  # a tiny Marian model
    runs = users_folder(tmp_path, "spa-eng/")
    before = tree(runs)
    assert cli_main(["import", str(marian), "--output-dir", str(runs), "--force"]) == 1
    line = one_error_line(capsys)
    assert f"{runs} holds no run: --force replaces only an earlier import or run" in line
    assert tree(runs) == before
    imported = tmp_path / "opus"
    for force in ([], ["--force"]):  # an import, then one replacing it
        assert cli_main(["import", str(marian), "--output-dir", str(imported), *force]) == 0
    assert (imported / "config.json").is_file()


def test_a_ctranslate2_export_force_replaces_only_an_export(made, tmp_path, capsys):
    needs_ctranslate2(made)
    folder = tmp_path / "m-ctranslate2"
    folder.mkdir()
    (folder / "notes.txt").write_text("mine\n")
    assert export_app.main([str(made.run), "--output-dir", str(tmp_path), "--name", "m",
                            "--format", "ctranslate2", "--force"]) == 1
    assert f"{folder} is not a CTranslate2 export" in one_error_line(capsys)
    assert [p.name for p in tmp_path.iterdir()] == ["m-ctranslate2"]
    assert [p.name for p in folder.iterdir()] == ["notes.txt"]


def test_an_empty_run_folder_is_refused_from_python_too():
    with pytest.raises(ValueError, match="--output-dir '': an empty value names nothing"):
        TrainConfig(output="")


# ------------------------------------------------------------------------------------------------
# Exports carry the run's columns and direction; evaluate uses them whatever the format
# ------------------------------------------------------------------------------------------------
def hypotheses_of(model, test, tmp_path, *flags, scores=None):
    """The hypotheses `evaluate` writes for `test`; its scores go into the dict `scores`."""
    output = tmp_path / f"hypotheses-{len(list(tmp_path.iterdir()))}.txt"
    scored = evaluate_app.main([str(model), "--data", str(test), "--output", str(output), *flags])
    assert isinstance(scored, dict), scored
    (scores if scores is not None else {}).update(scored)
    return read_lines(output)


@pytest.fixture(scope="module")
def plain(made, tmp_path_factory):
    """`evaluate`'s hypotheses and scores of `made.test` by `model`, computed once per model
    for the module: the reference the column and header tests compare other inputs and
    formats with."""
    folder, computed = tmp_path_factory.mktemp("hypotheses"), {}

    def of(model):
        if model not in computed:
            scores = {}
            lines = hypotheses_of(model, made.test, folder, scores=scores)
            computed[model] = types.SimpleNamespace(hypotheses=lines, scores=scores)
        return computed[model]

    return of


def test_exports_record_the_runs_columns(made):
    saved = json.loads((made.saved / "assets.extra" / "keras_nmt.json").read_text())
    assert (saved["source_column"], saved["target_column"]) == (0, 1)
    assert (made.saved / "assets.extra" / "data.json").read_bytes() == (
        made.run / "data.json").read_bytes()
    export = needs_ctranslate2(made)
    metadata = json.loads((export / "keras_nmt_ctranslate2.json").read_text())
    assert (metadata["source_column"], metadata["target_column"]) == (0, 1)
    assert (export / "data.json").is_file()


def test_evaluate_feeds_a_saved_model_its_own_columns(made, plain, tmp_path,
                                                     capsys):
    """Case 2: a SavedModel is scored as its run is; a --source-column naming the column of its
    target language is refused, naming the file and the column that fits."""
    expected = plain(made.run).hypotheses
    assert plain(made.saved).hypotheses == expected
    assert hypotheses_of(made.saved.parent, made.test, tmp_path) == expected  # its model folder
    assert evaluate_app.main([str(made.saved), "--data", str(made.test),
                              "--source-column", "1"]) == 1
    line = one_error_line(capsys)
    assert str(made.test) in line and "column 0 reads like the model's source language" in line


def test_evaluate_feeds_a_ctranslate2_export_its_own_columns(made, plain, tmp_path,
                                                             capsys):
    """Case 1: evaluate read CTranslate2's own config.json, fed the export the other language
    and refused the correct --source-column."""
    export = needs_ctranslate2(made)
    expected = plain(made.run).hypotheses
    assert hypotheses_of(export, made.test, tmp_path, "--source-column", "0") == expected
    assert evaluate_app.main([str(export), "--data", str(made.test), "--source-column", "1"]) == 1
    assert str(made.test) in one_error_line(capsys)


@pytest.mark.parametrize("which", ["saved", "ctranslate2"])
def test_evaluate_writes_nothing_into_an_export(which, made, tmp_path):
    export = needs_ctranslate2(made) if which == "ctranslate2" else made.saved
    before = tree(export)
    scores = evaluate_app.main([str(export), "--data", str(made.test)])
    assert isinstance(scores, dict) and scores["sentences"] > 0
    assert tree(export) == before


# ------------------------------------------------------------------------------------------------
# Column order: the source is the first column unless a flag or recipe says otherwise
# ------------------------------------------------------------------------------------------------
def test_the_first_column_is_the_source_by_default(tmp_path):
    """Case 4 (column order): README's pairs.tsv is "source<TAB>target"; Tatoeba recipes say 1."""
    from keras_nmt.workshop.run.train_config import configuration_fields  # noqa: PLC0415

    path = write_tsv(tmp_path / "pairs.tsv", [("hola", "hello")])
    assert read_tsv(path).pairs == [("hola", "hello")]
    assert TrainConfig().source_column == 0
    assert train_app.parse(["--configuration", "spa-eng/transformer"]).source_column == 1
    assert configuration_fields("spa-eng/luong")["source_column"] == 1


# ------------------------------------------------------------------------------------------------
# Plausibility: reversed, foreign or headed data is never silently trained on or scored
# ------------------------------------------------------------------------------------------------
def test_evaluate_feeds_the_source_language_whatever_the_column_order(made, plain, tmp_path,
                                                                      capsys):
    """Case 4, then issue 68: swapped columns scored BLEU 0.37 instead of 99.3 without a word,
    then were refused ("add --accept-data"), with no flag to score them. A file's columns are
    its own: the column of the model's source language feeds it, and a line says which."""
    reversed_test = write_tsv(tmp_path / "reversed.tsv", swapped(toy_pairs(12, seed=1)))
    expected = plain(made.run).scores  # of made.test, its columns as trained
    capsys.readouterr()
    scores = evaluate_app.main([str(made.run), "--data", str(reversed_test), "--output",
                                str(tmp_path / "reversed.txt")])
    err = capsys.readouterr().err
    assert f"{reversed_test}: column 1 fed the model (its source" in err
    assert (scores["bleu"], scores["sentences"]) == (expected["bleu"], expected["sentences"])
    assert read_lines(tmp_path / "reversed.txt") == plain(made.run).hypotheses
    # Said about that file: its column 1 is the source.
    assert evaluate_app.main([str(made.run), "--data", str(reversed_test), "--source-column", "1",
                              "--output", str(tmp_path / "told.txt")])["bleu"] == expected["bleu"]


@pytest.mark.parametrize("model", ["run", "saved", "ctranslate2"])
def test_every_format_feeds_the_source_language_of_a_reversed_file(model, made, plain,
                                                                   tmp_path, capsys):
    path = {"run": made.run, "saved": made.saved}.get(model) or needs_ctranslate2(made)
    reversed_test = write_tsv(tmp_path / "reversed.tsv", swapped(toy_pairs(12, seed=1)))
    assert hypotheses_of(path, reversed_test, tmp_path) == plain(path).hypotheses
    assert f"{reversed_test}: column 1 fed the model" in capsys.readouterr().err


def test_accept_data_scores_a_reversed_file_as_it_is(made, tmp_path):
    reversed_test = write_tsv(tmp_path / "reversed.tsv", swapped(toy_pairs(12, seed=1)))
    scores = evaluate_app.main([str(made.run), "--data", str(reversed_test), "--accept-data",
                                "--output", str(tmp_path / "out.txt")])
    assert scores["sentences"] == len(set(sources_of(reversed_test)))


@pytest.mark.parametrize("language", ["cyrillic", "german"])
def test_evaluate_refuses_another_language_or_script(language, made, tmp_path, capsys):
    pairs = toy_pairs(12, seed=1)
    if language == "cyrillic":
        table = str.maketrans("abcdegimnoprstuv", "абцдегимнопрстув")
        foreign = [(source.translate(table), target) for source, target in pairs]
    else:
        foreign = [("der Hund schläft im Haus", target) for _, target in pairs]
    path = write_tsv(tmp_path / "foreign.tsv", foreign)
    assert evaluate_app.main([str(made.run), "--data", str(path)]) == 1
    line = one_error_line(capsys)
    assert str(path) in line and "source language" in line


def test_translate_warns_when_the_input_is_the_target_language(made, tmp_path, capsys):
    english = tmp_path / "english.txt"
    english.write_text("".join(f"{target}\n" for _, target in toy_pairs(8, seed=2)))
    capsys.readouterr()
    assert translate_app.main([str(made.run), "--input", str(english)]) == 0
    captured = capsys.readouterr()
    assert len(captured.out.splitlines()) == 8  # translated all the same, one line each
    assert f"warning: {english} reads like the model's target language" in captured.err


def test_translate_warns_on_another_script(made, tmp_path, capsys):
    greek = tmp_path / "greek.txt"
    greek.write_text("γάτα σκύλος\n" * 6)
    capsys.readouterr()
    assert translate_app.main([str(made.saved), "--input", str(greek)]) == 0
    assert "does not look like the model's source language" in capsys.readouterr().err


def test_train_refuses_a_reversed_validation_file(made, tmp_path, capsys):
    valid = write_tsv(tmp_path / "valid.tsv", swapped(toy_pairs(8, seed=3)))
    run = tmp_path / "run"
    assert train_app.main(train_command(made.data, run, "--valid", str(valid))) == 1
    line = one_error_line(capsys)
    assert str(valid) in line and "reversed" in line and "--accept-data" in line
    assert not run.exists()  # nothing left that would refuse the corrected command


def test_train_refuses_a_validation_file_in_another_script(made, tmp_path, capsys):
    valid = write_tsv(tmp_path / "valid.tsv", [("кошка", "cat"), ("собака", "dog")] * 4)
    run = tmp_path / "run"
    assert train_app.main(train_command(made.data, run, "--valid", str(valid))) == 1
    assert "another language or script" in one_error_line(capsys)
    assert not run.exists()


def test_a_word_vocabulary_of_one_real_word_is_refused(made, tmp_path, capsys):
    """Case 9: --tokenizer word --vocab-size 5 leaves one real word: refused, naming the flag."""
    run = tmp_path / "run"
    assert train_app.main(train_command(made.data, run, "--tokenizer", "word",
                                        "--vocab-size", "5")) == 1
    line = one_error_line(capsys)
    assert "--vocab-size 5 keeps 1 word besides the 4 special tokens" in line and "unknown" in line
    assert not run.exists()


@pytest.mark.parametrize("fields, header", [
    (["source", "target"], True), (["en", "es"], True), (["English", "Spanish"], True),
    (["src_text", "tgt_text"], True), (["Go.", "Ve."], False), (["uno", "one"], False),
    (["source", "la fuente"], False)])
def test_a_header_line_is_recognised(fields, header):
    assert looks_like_header(fields) is header


def test_evaluate_skips_a_header_line_and_says_so(made, plain, tmp_path, capsys):
    """Case 5: a header line was scored as a sentence (and trained on)."""
    pairs = toy_pairs(12, seed=1)
    headed = write_tsv(tmp_path / "headed.tsv", pairs, header="source\ttarget")
    expected = plain(made.run).hypotheses
    capsys.readouterr()
    assert hypotheses_of(made.run, headed, tmp_path) == expected
    assert f"warning: {headed}, line 1 reads as column names" in capsys.readouterr().err


def test_training_skips_a_header_line_and_records_it(tmp_path, capsys):
    from keras_nmt.workshop.run.task import load_pairs  # noqa: PLC0415

    headed = write_tsv(tmp_path / "headed.tsv", toy_pairs(40, seed=0), header="es\ten")
    config = TrainConfig(data=str(headed), output=str(tmp_path / "run"))
    train, valid = load_pairs(config)
    assert ("es", "en") not in train + valid and len(train + valid) == 40
    assert "line 1 reads as column names ('es\\ten')" in capsys.readouterr().out
    assert data_record(config, train)["files"][0]["header"] is True
    kept, _ = load_pairs(TrainConfig(data=str(headed), accept_data=True))
    assert len(kept) + len(_) == 41  # --accept-data: the line is a pair


def test_a_header_in_a_compressed_file_with_a_byte_order_mark_is_skipped(tmp_path):
    path = tmp_path / "pairs.tsv.gz"
    path.write_bytes(gzip.compress("\ufeffSource\tTarget\nuno\tone\n".encode()))
    corpus = read_tsv(path)
    assert corpus.pairs == [("uno", "one")] and corpus.stats.header == "Source\tTarget"
    assert read_tsv(path, header="keep").pairs == [("Source", "Target"), ("uno", "one")]


# ------------------------------------------------------------------------------------------------
# Nothing overwritten by accident
# ------------------------------------------------------------------------------------------------
def input_file(tmp_path):
    path = tmp_path / "in.txt"
    path.write_text("uno dos\ngato\n", encoding="utf-8")
    return path


@pytest.mark.parametrize("spelling", ["same", "relative", "symlink", "hardlink"])
def test_translate_output_never_replaces_its_input(spelling, made, tmp_path, capsys,
                                                    monkeypatch):
    """Case 8: --output naming the input replaced the input (through any spelling of it)."""
    source = input_file(tmp_path)
    output = {"same": source, "relative": Path("sub/../in.txt")}.get(spelling)
    if spelling == "relative":
        (tmp_path / "sub").mkdir()
        monkeypatch.chdir(tmp_path)
    elif spelling == "symlink":
        output = tmp_path / "link.txt"
        output.symlink_to(source)
    elif spelling == "hardlink":
        output = tmp_path / "hard.txt"
        os.link(source, output)
    assert translate_app.main([str(made.run), "--input", str(source), "--output",
                               str(output)]) == 1
    line = one_error_line(capsys)
    assert line.startswith(f"error: --output {output} is the input") and "--output" in line
    assert source.read_text(encoding="utf-8") == "uno dos\ngato\n"


def test_spell_correct_output_never_replaces_its_input(made, tmp_path, capsys):
    """spell correct had no check: --output naming --input replaced the input."""
    source = input_file(tmp_path)
    assert cli_main(["spell", "correct", str(made.run), "--input", str(source), "--output",
                     str(source)]) == 1
    assert one_error_line(capsys).startswith(f"error: --output {source} is the input")
    assert source.read_text(encoding="utf-8") == "uno dos\ngato\n"


def test_translate_output_never_replaces_a_model_file(made, tmp_path, capsys):
    run, _ = own_run(made, tmp_path)
    vocabulary = run / "tokenizers" / "source" / "vocab.txt"
    before = vocabulary.read_bytes()
    assert translate_app.main([str(run), "uno", "--output", str(vocabulary)]) == 1
    assert str(vocabulary) in one_error_line(capsys)
    assert vocabulary.read_bytes() == before


@pytest.mark.parametrize("victim", ["data", "model", "json"])
def test_evaluate_outputs_never_replace_an_input(victim, made, tmp_path, capsys):
    run, _ = own_run(made, tmp_path)
    test = shutil.copyfile(made.test, tmp_path / "test.tsv")
    before = {test: test.read_bytes(), run / "model.keras": (run / "model.keras").read_bytes()}
    if victim == "data":
        flags = ["--output", str(test)]
    elif victim == "model":
        flags = ["--output", str(run / "model.keras")]
    else:
        flags = ["--output", str(tmp_path / "a.txt"), "--json", str(tmp_path / "a.txt")]
    assert evaluate_app.main([str(run), "--data", str(test), *flags]) == 1
    line = one_error_line(capsys)
    assert ("--output" in line or "--json" in line) and str(tmp_path) in line
    assert all(path.read_bytes() == data for path, data in before.items())
    assert not (tmp_path / "a.txt").exists()


def test_evaluate_may_replace_its_own_earlier_hypotheses(made, tmp_path):
    run, _ = own_run(made, tmp_path)
    for _ in range(2):  # the default output, then the same file named explicitly
        assert isinstance(evaluate_app.main([str(run), "--data", str(made.test)]), dict)
    hypotheses = run / "hypotheses.txt"
    assert isinstance(evaluate_app.main([str(run), "--data", str(made.test), "--output",
                                         str(hypotheses)]), dict)
    assert len(read_lines(hypotheses)) == len(set(sources_of(made.test)))


@pytest.mark.parametrize("command", ["translate", "evaluate"])
def test_output_naming_a_folder_is_refused_and_leaves_nothing(command, made, tmp_path, capsys):
    """Half-written: --output DIR left a stray hidden .DIR file beside the folder."""
    folder = tmp_path / "out"
    folder.mkdir()
    if command == "translate":
        status = translate_app.main([str(made.run), "uno", "--output", str(folder)])
    else:
        status = evaluate_app.main([str(made.run), "--data", str(made.test), "--output",
                                    str(folder)])
    assert status == 1
    assert f"--output {folder} is a folder" in one_error_line(capsys)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out"]
    assert list(folder.iterdir()) == []


@pytest.mark.parametrize("command", [
    "translate", "spell correct", "evaluate --json", "benchmark --output-md"])
def test_an_output_in_a_missing_folder_is_refused_before_the_work(command, made, tmp_path,
                                                                   capsys, monkeypatch):
    """An output that cannot be written was found out only after the work: translate said
    "No such file or directory" after translating every sentence, a benchmark after its run."""
    output = tmp_path / "no-such-folder" / "out.txt"
    flag = command.split()[-1] if " --" in command else "--output"
    if command != "evaluate --json":  # which checks after TensorFlow starts, before its work
        for module in ("translate", "spell", "benchmark"):  # the check comes first
            monkeypatch.setattr(f"keras_nmt.workshop.cli.{module}.start_tensorflow",
                                lambda *_: 1 / 0)
    argv = {
        "translate": ["translate", str(made.run), "uno"],
        "spell correct": ["spell", "correct", str(made.run), "uno"],
        "evaluate --json": ["evaluate", str(made.run), "--data", str(made.test)],
        "benchmark --output-md": ["benchmark", "--quick"],
    }[command]
    assert cli_main([*argv, flag, str(output)]) == 1
    assert one_error_line(capsys) == (
        f"error: {flag} {output}: the folder {output.parent} does not exist; create it first, "
        "or name a file in another folder")
    assert sorted(p.name for p in tmp_path.iterdir()) == []


def test_a_failed_rename_leaves_no_temporary_file(tmp_path, monkeypatch):
    (tmp_path / "out").mkdir()
    with pytest.raises(ValueError, match="is a folder"):  # refused before anything is written
        write_lines(tmp_path / "out", ["a", "b"])
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out"]

    def fail(source, target):
        raise OSError(errno.EXDEV, os.strerror(errno.EXDEV))

    monkeypatch.setattr(os, "replace", fail)
    with pytest.raises(OSError):
        write_lines(tmp_path / "file.txt", ["a", "b"])
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out"]


def _write_many(path, text, barrier, count):
    barrier.wait()
    for _ in range(count):
        write_lines(path, [text] * 200)


def test_two_writers_of_one_output_never_mix_or_fail(tmp_path):
    """Case 13: two commands writing one --output shared the temporary `.NAME`: one got the
    other's translations. Each writer now has its own; the file is always one writer's whole."""
    path = tmp_path / "out.txt"
    context = multiprocessing.get_context("fork")
    barrier = context.Barrier(2)
    writers = [context.Process(target=_write_many, args=(path, text, barrier, 200))
               for text in ("first writer", "second writer")]
    for writer in writers:
        writer.start()
    for writer in writers:
        writer.join(60)
    assert [writer.exitcode for writer in writers] == [0, 0]
    assert read_lines(path) in (["first writer"] * 200, ["second writer"] * 200)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.txt"]


def test_temporaries_are_unique_per_writer(tmp_path):
    with atomic_path(tmp_path / "a.txt") as first, atomic_path(tmp_path / "a.txt") as second:
        assert first != second and first.name.startswith(".a.txt-")
        first.write_text("1")
        second.write_text("2")
    assert (tmp_path / "a.txt").read_text() == "1"  # the outer block ends last


EXPORT = ("import sys; from keras_nmt.workshop.cli import export; "
          "sys.exit(export.main(sys.argv[1:]))")


def test_two_ctranslate2_exports_to_one_name_never_both_succeed(made, tmp_path):
    """Case 12: two exports at once both said "exported" and one replaced the other."""
    needs_ctranslate2(made)
    argv = [str(made.run), "--output-dir", str(tmp_path), "--name", "m", "--format",
            "ctranslate2"]
    processes = [subprocess.Popen([sys.executable, "-c", EXPORT, *argv], cwd=ROOT,
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
                 for _ in range(2)]
    results = [(process.wait(300), process.stderr.read()) for process in processes]
    assert sorted(code for code, _ in results) == [0, 1], results
    [error] = [err for code, err in results if code == 1]
    # Refused while the first writes (`owned_folder`'s lock), or after it finished.
    folder = tmp_path / "m-ctranslate2"
    assert (f"{folder} is being written by another keras-nmt" in error
            or f"{folder} exists: add --force" in error), error
    assert len(error.strip().splitlines()) == 1
    assert sorted(p.name for p in tmp_path.iterdir()) == ["m-ctranslate2"]


def test_a_ctranslate2_export_never_replaces_another_without_force(made, tmp_path, capsys):
    export = shutil.copytree(needs_ctranslate2(made), tmp_path / "m-ctranslate2")
    before = tree(export)
    assert export_app.main([str(made.run), "--output-dir", str(tmp_path), "--name", "m",
                            "--format", "ctranslate2"]) == 1
    assert "add --force" in one_error_line(capsys)
    assert tree(export) == before
    assert export_app.main([str(made.run), "--output-dir", str(tmp_path), "--name", "m",
                            "--format", "ctranslate2", "--force"]) == 0
    assert sorted(p.name for p in tmp_path.iterdir()) == ["m-ctranslate2"]


def test_a_killed_ctranslate2_export_is_cleaned_by_the_next(made, tmp_path):
    """Half-written: a killed CTranslate2 export left `.NAME-ctranslate2.partial-*` behind."""
    needs_ctranslate2(made)
    stale = tmp_path / f".m-ctranslate2.partial-{dead_owner()}-abc"
    live = tmp_path / partial_name("other-ctranslate2")  # still being written
    for folder in (stale, live):
        folder.mkdir()
        (folder / "model.bin").write_bytes(b"half")
    assert export_app.main([str(made.run), "--output-dir", str(tmp_path), "--name", "m",
                            "--format", "ctranslate2"]) == 0
    assert sorted(p.name for p in tmp_path.iterdir()) == [live.name, "m-ctranslate2"]


def test_the_hypotheses_alias_no_longer_turns_an_input_into_an_output(made, tmp_path, capsys):
    """Case 6: `evaluate --hypotheses FILE`, a hidden alias of --output, replaced a user's file
    of hypotheses."""
    mine = tmp_path / "my-hypotheses.txt"
    mine.write_text("mine\n")
    with pytest.raises(SystemExit) as exit_info:
        evaluate_app.main([str(made.run), "--data", str(made.test), "--hypotheses", str(mine)])
    assert exit_info.value.code == 2
    assert mine.read_text() == "mine\n"


# ------------------------------------------------------------------------------------------------
# Trust: a model knows its languages and tokenizers; defaults come from the model
# ------------------------------------------------------------------------------------------------
def test_a_run_and_its_exports_know_their_languages_and_tokenizers(made):
    """A run without --languages names each side by its column of the training data; both
    exports carry that and the tokenizers' fingerprints (their "languages" were null)."""
    run = model_data(made.run).provenance
    assert run["languages"]["source"] == {"code": None, "column": 0, "data": str(made.data)}
    assert run["tokenizers"] == tokenizer_fingerprints(made.run / "tokenizers")
    assert run["attribution"] is None  # trained here, from scratch
    assert model_data(made.saved).provenance == run
    if made.ctranslate2 is not None:  # and the SHA-256 of CTranslate2's own files
        exported = model_data(made.ctranslate2).provenance
        assert set(exported.pop("engine_files")) >= {"model.bin", "config.json"}
        assert exported == run


@pytest.mark.parametrize("model", ["run", "saved", "ctranslate2"])
def test_a_model_with_another_models_tokenizers_is_refused(model, made, tmp_path, capsys):
    """Both tokenizer folders are whole (their own checksums pass) but swapped, source for
    target: nothing tied a model to its tokenizers, and it translated other ids."""
    original = {"run": made.run, "saved": made.saved}.get(model) or needs_ctranslate2(made)
    copy = shutil.copytree(original, tmp_path / "model")
    tokenizers = copy / ("assets.extra/tokenizers" if model == "saved" else "tokenizers")
    (tokenizers / "source").rename(tokenizers / "swap")
    (tokenizers / "target").rename(tokenizers / "source")
    (tokenizers / "swap").rename(tokenizers / "target")
    assert translate_app.main([str(copy), "uno dos"]) == 1
    line = one_error_line(capsys)
    # The file that differs is named where the record lists each file (`tokenizer_files`).
    assert line.startswith(f"error: {tokenizers / 'source'}")
    assert "source tokenizer this model was trained with" in line


def test_evaluate_without_data_asks_for_it_unless_the_model_learned_the_dates(made, tmp_path,
                                                                           capsys):
    """Issue 68: a Spanish->English run was scored on the built-in dates (BLEU 0.0), and its
    hypotheses.txt replaced, without a word."""
    run = shutil.copytree(made.run, tmp_path / "run")
    (run / "hypotheses.txt").write_text("earlier\n")
    assert evaluate_app.main([str(run)]) == 1
    line = one_error_line(capsys)
    assert f"{run} was trained on {made.data}, not the built-in dates" in line
    assert "--data FILE" in line
    assert (run / "hypotheses.txt").read_text() == "earlier\n"
    assert evaluate_app.main([str(made.saved)]) == 1  # an export knows its data too
    assert "--data FILE" in one_error_line(capsys)


def test_a_rerun_restating_the_run_is_accepted_and_a_pair_is_recorded(made, tmp_path, capsys):
    """Issue 68: `train --languages es,en --output-dir RUN` on a finished run was refused for
    "other options" (the default data), then did nothing and kept `languages` null, and
    `serve RUN` went on suggesting that flag."""
    run, data = own_run(made, tmp_path)
    with pytest.raises(ModelLoadError, match=f"keras-nmt train --languages SRC,TGT "
                       f"--output-dir {run}"):
        load_served_models([str(run)])
    before = tree(run)
    assert train_app.main(["--languages", "es,en", "--output-dir", str(run)]) is None
    out = capsys.readouterr().out
    assert f"recorded the languages es,en in {run / 'config.json'}" in out
    assert "is finished (1 epoch): nothing to do" in out
    after = tree(run)
    assert json.loads(after.pop("config.json"))["languages"] == "es,en"
    before.pop("config.json")
    assert after == before  # not trained again: the model, history and backup as they were
    [served] = load_served_models([str(run)])
    assert served.pair == ("es", "en")
    # Restating what the run holds (its data, model and sizes) is accepted: nothing to do.
    assert train_app.main(train_command(data, run, "--languages", "es,en")) is None
    assert "nothing to do" in capsys.readouterr().out
