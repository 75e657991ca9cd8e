"""Inference: the `Translator` (strings in, translations out: tokenize, decode and detokenize in
one graph), `BatchTranslator` (a list of strings cut into batches, results in input order) and
`TranslationResult`. Translators opened from files are the workshop's.

Example:
    >>> translator = Translator(model, source_tokenizer, target_tokenizer)
    >>> translator.translate_batch(["3rd of March 2021"], beam_size=4)[0].text
"""
