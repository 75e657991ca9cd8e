"""The tokenizer options of a run: a joint vocabulary (what shared embeddings need), the
SentencePiece model type and character coverage, and what is refused."""

import pytest

from keras_nmt.text import load_tokenizer
from keras_nmt.workshop.run.train_config import TrainConfig
from keras_nmt.workshop.run.trainer import make_tokenizers, train
from tests.export.helpers import make_run_folder

PAIRS = [("abc", "xyz"), ("bca", "zyx"), ("cab", "yzx")]


def test_a_joint_vocabulary_is_built_on_both_sides_and_used_by_both(tmp_path):
    config = TrainConfig(joint_vocabulary=True, output=str(tmp_path))
    source, target = make_tokenizers(config, PAIRS, tmp_path)
    assert source.vocabulary == target.vocabulary
    assert set("abcxyz") <= set(source.vocabulary)  # each side's characters in the one
    for side in ("source", "target"):  # saved for each side: a resumed run reloads both
        assert load_tokenizer(tmp_path / "tokenizers" / side).vocabulary == source.vocabulary


def test_separate_vocabularies_are_the_default(tmp_path):
    source, target = make_tokenizers(TrainConfig(output=str(tmp_path)), PAIRS, tmp_path)
    assert not set("xyz") & set(source.vocabulary) and not set("abc") & set(target.vocabulary)


def test_the_subword_model_type_and_character_coverage_reach_sentencepiece(tmp_path):
    pairs = [(f"the cat {i} sat", f"el gato {i} estaba") for i in range(50)]
    config = TrainConfig(tokenizer="subword", vocab_size=40, subword_model="bpe",
                         character_coverage=0.9995, output=str(tmp_path))
    source, _ = make_tokenizers(config, pairs, tmp_path)
    assert (source.model_type, source.character_coverage) == ("bpe", 0.9995)
    assert source.detokenize(source.tokenize(["the cat 7 sat"])).numpy()[0] == b"the cat 7 sat"


@pytest.mark.parametrize("options, message", [
    ({"model": "transformer", "shared_embeddings": True}, "add --joint-vocabulary"),
    ({"subword_model": "bpe"}, "--subword-model applies to --tokenizer subword, not char"),
    ({"tokenizer": "word", "character_coverage": 0.99},
     "--character-coverage applies to --tokenizer subword, not word"),
])
def test_options_that_would_mean_nothing_are_refused(options, message):
    with pytest.raises(ValueError, match=message):
        TrainConfig(**options)


def test_shared_embeddings_from_a_run_with_two_vocabularies_are_refused(tmp_path):
    """Fine-tuning keeps the vocabularies of --init-from: they must be one."""
    start = make_run_folder(tmp_path / "start")  # its character vocabularies: two
    config = TrainConfig(model="transformer", shared_embeddings=True, init_from=str(start),
                         train_size=20, valid_size=4, output=str(tmp_path / "tuned"))
    with pytest.raises(ValueError, match="source and target vocabularies of .*start differ"):
        train(config, print_fn=lambda *_: None)


def spm_model(path, texts, **ids):
    """A SentencePiece model trained as a user would, with `spm.SentencePieceTrainer`."""
    import sentencepiece as spm

    spm.SentencePieceTrainer.train(sentence_iterator=iter(texts), model_prefix=str(path),
                                   vocab_size=30, model_type="bpe", minloglevel=2, **ids)
    return f"{path}.model"


OUR_IDS = {"pad_id": 0, "unk_id": 1, "bos_id": 2, "eos_id": 3}
TEXTS = [f"the cat {i} sat on the mat" for i in range(40)]


def test_ones_own_sentencepiece_model_tokenizes_as_sentencepiece_does(tmp_path):
    import sentencepiece as spm

    model = spm_model(tmp_path / "own", TEXTS, **OUR_IDS)
    config = TrainConfig(tokenizer="subword", sentencepiece_model=model,
                         output=str(tmp_path / "run"))
    source, target = make_tokenizers(config, list(zip(TEXTS, TEXTS, strict=True)),
                                     tmp_path / "run")
    assert source.vocabulary == target.vocabulary and source.model_type == "bpe"
    expected = spm.SentencePieceProcessor(model_file=model).encode("the cat 7 sat")
    assert source.tokenize(["the cat 7 sat"]).to_list() == [expected]


def test_a_sentencepiece_model_with_other_special_ids_is_refused_with_the_way_out(tmp_path):
    model = spm_model(tmp_path / "default_ids", TEXTS)  # SentencePiece's: unk 0, <s> 1, </s> 2
    config = TrainConfig(tokenizer="subword", sentencepiece_model=f"{model},{model}",
                         output=str(tmp_path / "run"))
    with pytest.raises(ValueError, match="default_ids.model: its first pieces are .*"
                       "--pad_id=0 --unk_id=1 --bos_id=2 --eos_id=3"):
        make_tokenizers(config, [("a", "b")], tmp_path / "run")


@pytest.mark.parametrize("options, message", [
    ({"vocab_size": 500}, "--vocab-size does not combine with --sentencepiece-model"),
    ({"joint_vocabulary": True}, "--joint-vocabulary does not combine"),
    ({"sentencepiece_model": "a.model,b.model,c.model"}, "one FILE for both sides"),
])
def test_options_a_given_sentencepiece_model_would_ignore_are_refused(options, message):
    with pytest.raises(ValueError, match=message):
        TrainConfig(**{"tokenizer": "subword", "sentencepiece_model": "a.model", **options})
