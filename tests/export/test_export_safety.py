"""SavedModel inputs of the wrong rank, concurrent and killed exports, readable version folders."""

import os
import stat

import pytest
import tensorflow as tf

from keras_nmt.workshop.owned_folder import partial_name
from keras_nmt.workshop.translators.export_translator import export_translator
from tests.export.helpers import make_translator
from tests.test_owned_folder import dead_owner

export_module = __import__("keras_nmt.export.saved_model", fromlist=["x"])


@pytest.fixture(scope="module")
def loaded(lstm_export):
    """The SavedModel loaded once (a load takes seconds) for the signature tests."""
    return tf.saved_model.load(str(lstm_export[1]))


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


def test_an_export_that_loses_the_race_takes_the_next_version(one_beam, tmp_path, monkeypatch):
    translator = one_beam
    save = tf.saved_model.save

    def save_while_another_export_finishes(obj, path, signatures=None):
        save(obj, path, signatures=signatures)
        (tmp_path / "m" / "1").mkdir()  # the other export renamed its folder into place
        (tmp_path / "m" / "1" / "saved_model.pb").write_bytes(b"")

    monkeypatch.setattr(export_module.tf.saved_model, "save", save_while_another_export_finishes)
    path = export_translator(translator, tmp_path, name="m")
    assert path == tmp_path / "m" / "2" and (path / "saved_model.pb").stat().st_size > 0
    monkeypatch.setattr(export_module.tf.saved_model, "save", save)
    (tmp_path / "m" / "1").rename(tmp_path / "m" / "0")
    monkeypatch.setattr(
        export_module.tf.saved_model, "save", save_while_another_export_finishes
    )
    with pytest.raises(FileExistsError, match="another export"):
        export_translator(translator, tmp_path, name="m", version=1)  # a chosen version
    assert not list((tmp_path / "m").glob(".*partial*"))


def test_stale_partial_folders_of_killed_exports_are_removed(one_beam, tmp_path):
    model_dir = tmp_path / "m"
    dead = model_dir / f".1.partial-{dead_owner()}-abc"  # its export was killed
    alive = model_dir / partial_name("1")  # an export still running
    for folder in (dead, alive):
        folder.mkdir(parents=True)
    path = export_translator(one_beam, tmp_path, name="m")
    assert path == model_dir / "1"
    assert not dead.exists() and alive.exists()
