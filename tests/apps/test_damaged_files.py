"""A damaged file the command line reads ends in one `error:` line that names it (rc 1): a
truncated model.keras, a bad tokenizer config or vocabulary, a SavedModel without its variables,
an invalid run config.json, a bad comparison record."""

import shutil

import pytest

from keras_nmt.workshop.cli import translate as translate_app


@pytest.fixture(scope="module")
def models(untrained_models):
    """A pristine run folder and its SavedModel version folder, copied by each test."""
    return {"run": untrained_models["run"], "saved": untrained_models["version"]}


def copy_of(models, which, tmp_path):
    return shutil.copytree(models[which], tmp_path / which)


def truncate(path):
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2])


def empty(path):
    path.write_bytes(b"")


def reversed_vocabulary(path):
    path.write_text("".join(reversed(path.read_text(encoding="utf-8").splitlines(True))),
                    encoding="utf-8")


def remove(path):
    shutil.rmtree(path) if path.is_dir() else path.unlink()


# (folder, damaged file, damage, what the line must name, what it must say)
DAMAGES = [
    ("run", "model.keras", truncate, "model.keras", "damaged"),
    ("run", "model.keras", empty, "model.keras", "damaged"),
    ("run", "tokenizers/source/config.json", truncate, "tokenizers/source/config.json", "damaged"),
    ("run", "tokenizers/target/config.json", empty, "tokenizers/target/config.json", "damaged"),
    ("run", "tokenizers/source/vocab.txt", reversed_vocabulary, "tokenizers/source/vocab.txt",
     "damaged"),
    ("run", "tokenizers/target/vocab.txt", remove, "tokenizers/target/vocab.txt", ""),
    ("saved", "variables/variables.index", remove, "", "export it again"),
    ("saved", "variables", remove, "", "export it again"),
    ("saved", "saved_model.pb", truncate, "", "export it again"),
]


@pytest.mark.parametrize("which, name, damage, named, says", DAMAGES,
                         ids=[f"{w}/{n} {d.__name__}" for w, n, d, _, _ in DAMAGES])
def test_translate_names_the_damaged_file(which, name, damage, named, says, models, tmp_path,
                                          capsys):
    folder = copy_of(models, which, tmp_path)
    damage(folder / name)
    capsys.readouterr()
    assert translate_app.main([str(folder), "3rd of March 2021"]) == 1
    err = capsys.readouterr().err
    assert "Traceback" not in err, err
    lines = err.splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), err
    assert str(folder / named) in lines[0] and says in lines[0], err
    assert "not found" not in lines[0].lower() or not (folder / name).exists(), err


def test_invalid_run_config_is_named(models, tmp_path, capsys):
    folder = copy_of(models, "run", tmp_path)
    truncate(folder / "config.json")
    assert translate_app.main([str(folder), "3rd of March 2021"]) == 1
    err = capsys.readouterr().err
    assert len(err.splitlines()) == 1 and str(folder / "config.json") in err, err
