"""Inference: the `Translator` (strings in, translations out: tokenize, decode and detokenize in
one graph), `BatchTranslator` (a list of strings cut into batches, results in input order) and
`TranslationResult`.

It imports only `text`, `models` and `decoding` (the layering is in docs/architecture.md);
translators opened from files (a run folder, a SavedModel, a CTranslate2 export) are the
workshop's (`keras_nmt.workshop.translators`).

Example:
    >>> translator = Translator(model, source_tokenizer, target_tokenizer)
    >>> translator.translate_batch(["3rd of March 2021"], beam_size=4)[0].text
"""
