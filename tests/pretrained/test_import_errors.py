"""Bad input to `keras-nmt import`: one `error:` line naming the file, and nothing written."""

import json
import shutil

import numpy as np
import pytest

from keras_nmt.workshop.cli import main
from tests.pretrained.conftest import HF_DIR
from tests.pretrained.opus_layout import write_opus_folder


def hf_copy(tmp_path, **config_changes):
    folder = tmp_path / "model"
    shutil.copytree(HF_DIR, folder)
    if config_changes:
        config = json.loads((folder / "config.json").read_text())
        config.update(config_changes)
        (folder / "config.json").write_text(json.dumps(config))
    return folder


def opus_with_array(tmp_path, name):
    folder = write_opus_folder(HF_DIR, tmp_path / "model")
    arrays = dict(np.load(folder / "opus.npz"))
    arrays[name] = np.zeros((1, 16), np.float32)
    np.savez(folder / "opus.npz", **arrays)
    return folder


def missing_file(tmp_path):
    folder = hf_copy(tmp_path)
    (folder / "target.spm").unlink()
    return folder, "target.spm: missing"


def bart_config(tmp_path):
    return hf_copy(tmp_path, model_type="bart"), "model_type 'bart' is not a Marian model"


def t5_config(tmp_path):
    return hf_copy(tmp_path, model_type="t5"), "model_type 't5' is not a Marian model"


def pre_norm_hf(tmp_path):
    return hf_copy(tmp_path, normalize_before=True), "pre-norm"


def pre_norm_npz(tmp_path):
    folder = write_opus_folder(HF_DIR, tmp_path / "model", transformer_preprocess="n")
    return folder, "opus.npz: a pre-norm model"


def guided_alignment(tmp_path):
    folder = write_opus_folder(HF_DIR, tmp_path / "model", guided_alignment="train.align")
    return folder, "guided alignment"


def alignment_layer(tmp_path):
    return opus_with_array(tmp_path, "decoder_alignment_W"), "guided-alignment and factor"


def factors(tmp_path):
    folder = write_opus_folder(HF_DIR, tmp_path / "model", factors_dim_emb=8)
    return folder, "factored vocabularies"


def bin_checkpoint(tmp_path):
    folder = hf_copy(tmp_path)
    (folder / "model.safetensors").rename(folder / "pytorch_model.bin")
    return folder, "pytorch_model.bin: a PyTorch .bin checkpoint cannot be read without torch"


def vocabulary_sizes_disagree(tmp_path):
    folder = hf_copy(tmp_path)
    vocab = json.loads((folder / "vocab.json").read_text())
    vocab["▁extra"] = len(vocab)
    (folder / "vocab.json").write_text(json.dumps(vocab))
    return folder, "vocab.json: 164 pieces but the model has 163"


def npz_vocabulary_disagrees(tmp_path):
    folder = write_opus_folder(HF_DIR, tmp_path / "model")
    path = folder / "opus.spm.vocab.yml"
    path.write_text(path.read_text(encoding="utf-8") + "▁extra: 162\n", encoding="utf-8")
    return folder, "opus.spm.vocab.yml: 163 pieces but the model has 162"


def truncated_safetensors(tmp_path):
    folder = hf_copy(tmp_path)
    data = (folder / "model.safetensors").read_bytes()
    (folder / "model.safetensors").write_bytes(data[: len(data) // 2])
    return folder, "model.safetensors: tensor"


def damaged_config(tmp_path):
    folder = hf_copy(tmp_path)
    (folder / "config.json").write_text("{not json")
    return folder, "config.json: not valid JSON"


def unequal_depths(tmp_path):
    return hf_copy(tmp_path, decoder_layers=1), "encoder_layers=2 but decoder_layers=1"


def not_a_model(tmp_path):
    folder = tmp_path / "model"
    folder.mkdir()
    (folder / "notes.txt").write_text("hello")
    return folder, "neither a Hugging Face MarianMT directory"


CASES = [missing_file, bart_config, t5_config, pre_norm_hf, pre_norm_npz, guided_alignment,
         alignment_layer, factors, bin_checkpoint, vocabulary_sizes_disagree,
         npz_vocabulary_disagrees, truncated_safetensors, damaged_config, unequal_depths,
         not_a_model]


@pytest.mark.parametrize("case", CASES, ids=[case.__name__ for case in CASES])
def test_bad_model_gets_one_error_line_and_nothing_written(tmp_path, capsys, case):
    folder, expected = case(tmp_path)
    output = tmp_path / "run"
    status = main(["import", str(folder), "--output-dir", str(output)])
    captured = capsys.readouterr()
    assert status == 1
    lines = captured.err.strip().split("\n")
    assert len(lines) == 1 and lines[0].startswith("error: "), captured.err
    assert expected in lines[0]
    assert str(folder) in lines[0]
    assert not output.exists()
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".run")] == []


@pytest.mark.parametrize("where", [".", ".."])
def test_the_models_own_folder_as_output_is_refused_even_with_force(tmp_path, capsys, where):
    folder = hf_copy(tmp_path)
    files = sorted(p.name for p in folder.iterdir())
    status = main(["import", str(folder), "--output-dir", str(folder / where), "--force"])
    assert status == 1
    assert "the --output-dir holds the model being imported" in capsys.readouterr().err
    assert sorted(p.name for p in folder.iterdir()) == files


def test_existing_output_is_kept_without_force(tmp_path, capsys):
    output = tmp_path / "run"
    output.mkdir()
    (output / "mine.txt").write_text("keep")
    assert main(["import", str(HF_DIR), "--output-dir", str(output)]) == 1
    assert "exists: add --force" in capsys.readouterr().err
    assert [p.name for p in output.iterdir()] == ["mine.txt"]
