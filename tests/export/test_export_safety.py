"""SavedModel inputs of the wrong rank, concurrent and killed exports, readable version folders."""

import json
import os
import stat
import time

import pytest
import tensorflow as tf

from keras_nmt.workshop.owned_folder import (
    MANIFEST_FILE,
    OWNERLESS_AGE,
    FolderError,
    folder_lock,
    partial_name,
)
from keras_nmt.workshop.translators.export_translator import export_translator
from tests.export.helpers import make_translator
from tests.test_owned_folder import dead_owner

export_module = __import__("keras_nmt.export.saved_model", fromlist=["x"])


@pytest.fixture(scope="module")
def loaded(lstm_saved):
    """`lstm_export`'s SavedModel as `tf.saved_model.load` gives it, for the signature tests:
    `lstm_saved`'s (loaded once per worker: a load and its first calls take seconds)."""
    return lstm_saved.module


@pytest.mark.parametrize("text", [[["a", "b"], ["c", "d"]], "a", [[["a"]]]],
                         ids=["2-D", "scalar", "3-D"])
def test_signatures_reject_anything_but_a_vector_of_strings(loaded, text):
    calls = {
        "serving_default": dict(),
        "attention": dict(),
        "beam_search": dict(beam_size=tf.constant(2), length_penalty=tf.constant(0.0)),
    }
    for name, options in calls.items():
        with pytest.raises(tf.errors.InvalidArgumentError, match=r"text .* not compatible"):
            loaded.signatures[name](text=tf.constant(text), **options)
    assert loaded.signatures["serving_default"](text=tf.constant(["a"]))["translation"].shape == [1]


def test_version_folders_are_readable_by_others(lstm_export):
    path = lstm_export[1]
    for root, _, files in os.walk(path):
        assert stat.S_IMODE(os.stat(root).st_mode) == 0o755, root
        for name in files:
            assert stat.S_IMODE(os.stat(os.path.join(root, name)).st_mode) == 0o644, name


@pytest.fixture(scope="module")
def one_beam():
    """A Translator with one beam function (less to trace), shared: saving one Translator again
    reuses the functions its first save traced (0.6 CPU s instead of 4.4-4.9)."""
    return make_translator(max_beam_size=1)


def test_an_export_beside_another_takes_the_next_version_or_is_refused_at_once(
        one_beam, tmp_path, monkeypatch):
    """Two exporters of one version: one wins, the other is refused in one line, before its
    work; without --version the second takes the next free number."""
    model_dir = tmp_path / "m"
    model_dir.mkdir()
    with folder_lock(model_dir / "1", "--version"):  # another export writing version 1
        path = export_translator(one_beam, tmp_path, name="m")
        assert path == model_dir / "2" and (path / "saved_model.pb").stat().st_size > 0

        def no_work(*args, **kwargs):
            raise AssertionError("the refused export saved")

        monkeypatch.setattr(export_module.tf.saved_model, "save", no_work)
        with pytest.raises(FolderError, match=r"m/1 is being written by another keras-nmt "
                           r"\(PID \d+\); wait for it to end, or choose another --version"):
            export_translator(one_beam, tmp_path, name="m", version=1)
    assert sorted(p.name for p in model_dir.iterdir()) == ["2"]


def test_a_version_written_meanwhile_without_a_lock_is_never_replaced(one_beam, tmp_path,
                                                                      monkeypatch):
    """A writer that takes no lock (an earlier keras-nmt)
    renames its version into place while we work: it is kept, ours refused, nothing left."""
    save = tf.saved_model.save

    def save_while_another_export_finishes(obj, path, signatures=None):
        save(obj, path, signatures=signatures)
        (tmp_path / "m" / "1").mkdir()
        (tmp_path / "m" / "1" / "saved_model.pb").write_bytes(b"theirs")

    monkeypatch.setattr(export_module.tf.saved_model, "save", save_while_another_export_finishes)
    with pytest.raises(FileExistsError, match="m/1 was written by another writer meanwhile"):
        export_translator(one_beam, tmp_path, name="m")
    assert (tmp_path / "m" / "1" / "saved_model.pb").read_bytes() == b"theirs"
    assert sorted(p.name for p in (tmp_path / "m").iterdir()) == ["1"]


def test_force_replaces_only_what_the_export_wrote(one_beam, tmp_path):
    """`export --version 1 --force` replaces the export and keeps the user's notes.txt (the
    version was never overwritten, and a CTranslate2 export's --force deleted notes.txt)."""
    first = export_translator(one_beam, tmp_path, name="m", version=1)
    (first / "notes.txt").write_text("mine")
    (first / "saved_model.pb").write_bytes(b"old")
    with pytest.raises(FileExistsError, match="m/1 already exists"):
        export_translator(one_beam, tmp_path, name="m", version=1)
    again = export_translator(one_beam, tmp_path, name="m", version=1, force=True)
    assert again == first and (first / "notes.txt").read_text() == "mine"
    assert (first / "saved_model.pb").read_bytes() != b"old"
    names = json.loads((first / MANIFEST_FILE).read_text())["names"]
    assert "notes.txt" not in names and "saved_model.pb" in names
    assert sorted(p.name for p in (tmp_path / "m").iterdir()) == ["1"]  # no lock, no partial


def test_stale_partial_folders_of_killed_exports_are_removed(one_beam, tmp_path):
    model_dir = tmp_path / "m"
    dead = model_dir / f".1.partial-{dead_owner()}-abc"  # its export was killed
    alive = model_dir / partial_name("1")  # an export still running
    # Earlier versions' partials carry no owner: one untouched for longer than OWNERLESS_AGE
    # is a killed export's (they were never removed); a recent one may be a live export's.
    old, recent = model_dir / ".1.partial-0123456789abcdef", model_dir / ".2.partial-fedcba98"
    for folder in (dead, alive, old, recent):
        (folder / "variables").mkdir(parents=True)
    then = time.time() - OWNERLESS_AGE - 60
    for path in (old, old / "variables"):
        os.utime(path, (then, then))
    path = export_translator(one_beam, tmp_path, name="m")
    assert path == model_dir / "1"
    assert not dead.exists() and alive.exists() and not old.exists() and recent.exists()
