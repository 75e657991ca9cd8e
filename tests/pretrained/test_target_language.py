"""A multilingual model's target-language token: `>>spa<<` first, one token, as transformers."""

from keras_nmt.workshop.cli import main
from keras_nmt.workshop.run.run_folder import RunFolder


def test_language_token_is_one_token_before_the_pieces(imported):
    tokenizer = RunFolder.load(imported().run_dir).source_tokenizer
    with_code, without = tokenizer.tokenize([">>spa<< Tengo hambre.", "Tengo hambre."]).to_list()
    assert with_code[0] == tokenizer.vocabulary.index(">>spa<<")
    assert with_code[1:] == without  # MarianTokenizer: the text after the code, then </s>


def test_translate_target_language_prefixes_every_sentence(imported, capsys):
    run_dir = str(imported().run_dir)
    assert main(["translate", run_dir, "--target-language", "spa", "Hola", "Tengo hambre"]) == 0
    prefixed = capsys.readouterr().out
    assert main(["translate", run_dir, ">>spa<< Hola", ">>spa<< Tengo hambre"]) == 0
    assert prefixed == capsys.readouterr().out
    assert main(["translate", run_dir, "--target-language", "deu", "Hola"]) == 1
    error = capsys.readouterr().err.strip()
    assert error == ("error: --target-language deu: the model has no >>deu<< token (its "
                     "language tokens: >>eng<<, >>spa<<)")
