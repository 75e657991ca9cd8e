"""`keras-nmt train --init-from RUN`: fine-tuning an imported Marian model."""

import json
import types

import numpy as np
import pytest

from keras_nmt.workshop.cli.train import parse
from keras_nmt.workshop.run.run_folder import RunFolder
from keras_nmt.workshop.run.train_config import FINE_TUNING_LEARNING_RATE, TrainConfig
from keras_nmt.workshop.run.trainer import train
from tests.fixed_precision import FLOAT32_FLAGS
from tests.training.test_trainer import CrashAtBatch

QUIET = dict(print_fn=lambda *_: None)


@pytest.fixture(scope="module")
def corpus(reference, tmp_path_factory):
    """200 training and 40 validation pairs: the fixture's sentences, translated to
    themselves (the tiny model has never seen this task, so its loss has room to fall)."""
    folder = tmp_path_factory.mktemp("corpus")
    pairs = [f"{s}\t{s}" for s in reference.sentences]
    (folder / "train.tsv").write_text("\n".join(pairs[:200]) + "\n", encoding="utf-8")
    (folder / "valid.tsv").write_text("\n".join(pairs[200:]) + "\n", encoding="utf-8")
    return folder


def fine_tuning_config(imported, corpus, output, *flags):
    args = parse(["--init-from", str(imported().run_dir), "--data", str(corpus / "train.tsv"),
                  "--valid", str(corpus / "valid.tsv"), "--source-column", "0",
                  "--target-column", "1", "--batch-size", "32", "--backup-every", "2",
                  "--validation-sentences", "40", "--samples", "0", "--verbose", "0",
                  *FLOAT32_FLAGS, "--output-dir", str(output), *flags])
    options = {k: v for k, v in vars(args).items()
               if k not in ("export", "fresh", "debug", "configuration")}
    return TrainConfig(**options)


@pytest.fixture(scope="module")
def fine_tuned(imported, corpus, tmp_path_factory):
    """One uninterrupted two-epoch fine-tuning (its config, result and printed lines), shared
    by the loss test and the resume test (which must reproduce its weights)."""
    output = tmp_path_factory.mktemp("tuned") / "tuned"
    config = fine_tuning_config(imported, corpus, output, "--epochs", "2")
    lines = []
    result = train(config, print_fn=lines.append)
    return types.SimpleNamespace(config=config, result=result, lines=lines, output=output)


def test_fine_tuning_carries_the_languages_attribution_and_tokenizers(imported, fine_tuned):
    """Issue 68: a run fine-tuned from an import had `"languages": null` and no attribution."""
    start = imported().run_dir
    assert fine_tuned.config.languages == "spa,eng"
    carried = json.loads((fine_tuned.output / "provenance.json").read_text())
    origin = json.loads((start / "provenance.json").read_text())
    assert carried["tokenizers"] == origin["tokenizers"]
    attribution = carried["attribution"]
    assert {k: attribution[k] for k in ("name", "licence", "source")} == {
        k: origin["attribution"][k] for k in ("name", "licence", "source")}
    assert attribution["changes"][:-1] == origin["attribution"]["changes"]
    assert attribution["changes"][-1].startswith(f"fine-tuned with keras-nmt train --init-from "
                                                 f"{start.name} on ")


def test_fine_tuning_lowers_the_validation_loss_and_keeps_the_vocabulary(imported, fine_tuned):
    config, result, lines = fine_tuned.config, fine_tuned.result, fine_tuned.lines
    source = RunFolder.load(imported().run_dir)
    assert config.learning_rate == FINE_TUNING_LEARNING_RATE
    assert (config.activation, config.position_layout, config.output_bias) == (
        "swish", "halves", True)
    assert any(line.startswith("validation before fine-tuning") for line in lines)
    losses = result.history["val_loss"]
    assert losses[1] < losses[0]
    assert len(result.history["val_bleu"]) == 2  # BLEU after each epoch
    tuned = RunFolder.load(fine_tuned.output)
    assert tuned.target_tokenizer.vocabulary == source.target_tokenizer.vocabulary
    assert tuned.source_tokenizer.vocabulary == source.source_tokenizer.vocabulary
    assert tuned.model.count_params() == source.model.count_params()
    changed = [not np.array_equal(a, b) for a, b in
               zip(tuned.model.get_weights(), source.model.get_weights(), strict=True)]
    assert any(changed)


@pytest.mark.slow
def test_killed_fine_tuning_resumes_exactly(imported, corpus, fine_tuned, tmp_path):
    full = fine_tuned.result
    config = fine_tuning_config(imported, corpus, tmp_path / "run", "--epochs", "2")
    with pytest.raises(KeyboardInterrupt):
        train(config, extra_callbacks=[CrashAtBatch(1, 2)], **QUIET)
    result = train(config, **QUIET)
    for resumed, uninterrupted in zip(result.model.get_weights(), full.model.get_weights(),
                                      strict=True):
        np.testing.assert_array_equal(resumed, uninterrupted)
    history = json.loads((tmp_path / "run" / "history.json").read_text())
    assert [record["epoch"] for record in history] == [0, 1]


def test_a_contradicting_architecture_flag_is_refused(imported, corpus, tmp_path, capsys):
    with pytest.raises(SystemExit):
        fine_tuning_config(imported, corpus, tmp_path / "x", "--d-model", "32")
    assert "--d-model 32 contradicts --init-from" in capsys.readouterr().err
