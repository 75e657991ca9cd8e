"""Training and scoring a spelling corrector with the ordinary training run.

There is no second training loop: `train_speller` calls `keras_nmt.workshop.run.trainer.train` with
a `SpellingTask` (fixed noisy validation pairs, fresh noise on every training pass), then scores
the fixed test pairs with `keras_nmt.workshop.spelling.report.spelling_report` and writes
``RUN_FOLDER/spelling.json``. The run folder has the normal layout, so `keras-nmt translate`,
`keras-nmt evaluate` and `keras-nmt export` work on it as on a translation run.
"""

import dataclasses
from pathlib import Path

from keras_nmt.decoding.decoding_options import GREEDY
from keras_nmt.workshop.atomic_file import write_json
from keras_nmt.workshop.lines import write_lines
from keras_nmt.workshop.run.run_folder import SPELLING_FILE, SPELLING_TEST_FILE
from keras_nmt.workshop.run.trainer import train
from keras_nmt.workshop.spelling.noisy_dataset import steps_per_epoch
from keras_nmt.workshop.spelling.report import format_report, spelling_report
from keras_nmt.workshop.spelling.task import SpellingTask
from keras_nmt.workshop.timing import time_call


def correct_texts(translator, texts, decoding=GREEDY, batch_size=64):
    """Corrections of ``texts`` (a list of strings) by a translator, one string each.

    ``decoding`` is a `DecodingOptions` (default: greedy).
    """
    results = translator.translate_batch(list(texts), decoding, batch_size=batch_size)
    # `TranslationResult.text` is the best translation; results that carry only the n-best list
    # as `translations` (the export API's other spelling) work too.
    return [
        result.text if hasattr(result, "text") else result.translations[0] for result in results
    ]


def evaluate_corrector(translator, pairs, vocabulary, decoding=GREEDY, batch_size=64):
    """`spelling_report` of a translator on ``(noisy, clean)`` pairs, plus decoding speed.

    Returns:
        ``(report, corrected)``: the report dict with ``decode_seconds`` and
        ``sentences_per_second`` added (timed after a warm-up batch that traces the graph), and
        the corrected sentences.
    """
    noisy = [source for source, _ in pairs]
    clean = [target for _, target in pairs]
    timing = time_call(  # the warm-up batch traces the graph
        lambda: correct_texts(translator, noisy, decoding, batch_size),
        warmup=lambda: correct_texts(translator, noisy[:batch_size], decoding, batch_size))
    report = spelling_report(noisy, timing.result, clean, vocabulary)
    report.update(decode_seconds=timing.median,
                  sentences_per_second=len(noisy) / max(timing.median, 1e-9))
    return report, timing.result


def with_epoch_steps(config, data):
    """``config`` with ``steps_per_epoch`` = one pass over ``data.train``, unless it has one."""
    if config.steps_per_epoch is not None:
        return config
    return dataclasses.replace(
        config, steps_per_epoch=steps_per_epoch(len(data.train), config.batch_size)
    )


def train_speller(config, data, print_fn=print, decoding=GREEDY, extra_callbacks=()):
    """Trains a corrector on `SpellingData` and scores it on the fixed test pairs.

    Args:
        config: a `TrainConfig`; ``tokenizer`` is the level (``char``, ``word``, ``subword``).
            Without ``steps_per_epoch``, one epoch is one pass over the training sentences.
        data: a `SpellingData`.
        print_fn: where progress lines go.
        decoding: the `DecodingOptions` of the test corrections (default: greedy).
        extra_callbacks: more Keras callbacks for ``fit``.

    Returns:
        ``(result, report)``: the `TrainResult` and the test report (`evaluate_corrector`, with
        ``train_seconds`` and ``epochs`` added), which is also saved in
        ``RUN_FOLDER/spelling.json``; the test pairs and corrections go to
        ``RUN_FOLDER/test_pairs.tsv``.
    """
    config = with_epoch_steps(config, data)
    print_fn(data.summary())
    result = train(
        config,
        print_fn=print_fn,
        extra_callbacks=extra_callbacks,
        task=SpellingTask(data),
    )
    report, corrected = evaluate_corrector(
        result.translator, data.test_pairs, data.clean_vocabulary(), decoding, config.batch_size
    )
    epochs = len(next(iter(result.history.values()), []))
    report.update(train_seconds=result.seconds, epochs=epochs, level=config.tokenizer,
                  model=config.model, api=config.api)
    print_fn(format_report(report))
    print_fn(f"decoding: {report['sentences_per_second']:.1f} sentences/s")
    run = Path(config.output)
    write_json(run / SPELLING_FILE, {
        "noise": data.generator.get_config(),
        "seed": data.seed,
        "sizes": {
            "train": len(data.train),
            "valid": len(data.valid_pairs),
            "test": len(data.test_pairs),
        },
        "beam_size": decoding.beam_size,
        "test": report,
    }, indent=2)
    rows = [f"{noisy}\t{clean}\t{output}"
            for (noisy, clean), output in zip(data.test_pairs, corrected, strict=True)]
    write_lines(run / SPELLING_TEST_FILE, ["noisy\tclean\tcorrected", *rows])
    return result, report
