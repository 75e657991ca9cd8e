"""One training run: data, tokenizers, model, `fit` with callbacks, and the run folder."""

import dataclasses
import os
import random
import shutil
import sys
import time
from pathlib import Path

import keras
import numpy as np

from keras_nmt.data.pipeline import make_dataset
from keras_nmt.inference.translator import Translator
from keras_nmt.models.registry import build_model, card
from keras_nmt.plural import plural
from keras_nmt.special_ids import NUM_RESERVED, UNK_ID
from keras_nmt.text import make_tokenizer
from keras_nmt.training.fit import compile_model
from keras_nmt.training.teacher_forcing_schedule import TeacherForcingSchedule
from keras_nmt.workshop import interruption
from keras_nmt.workshop.atomic_file import atomic_path, write_json
from keras_nmt.workshop.corpora.corpus import has_splits
from keras_nmt.workshop.corpora.data_profile import MAX_MEASURED, implausibility
from keras_nmt.workshop.evaluation import group_references, score_all
from keras_nmt.workshop.marian_tokenizer import load_run_tokenizer, sentencepiece_model_tokenizer
from keras_nmt.workshop.run.checkpoint_average import CheckpointAverage
from keras_nmt.workshop.run.distribution import make_distribution
from keras_nmt.workshop.run.divergence import StopOnDivergence
from keras_nmt.workshop.run.epoch_progress import EpochProgress
from keras_nmt.workshop.run.exact_backup import ExactBackup, fit_from
from keras_nmt.workshop.run.precision import step_matmul_shapes
from keras_nmt.workshop.run.provenance import (
    PROVENANCE_FILE,
    derived_attribution,
    record_run_provenance,
    record_weights,
    run_attribution,
)
from keras_nmt.workshop.run.run_folder import (
    AVERAGE_DIR,
    BACKUP_DIR,
    BUDGET_POINT_FILE,
    BUDGET_WEIGHTS_FILE,
    CONFIG_FILE,
    DATA_FILE,
    HISTORY_FILE,
    LOGS_DIR,
    MODEL_FILE,
    TOKENIZERS_DIR,
    RunFolder,
    check_finite_weights,
    position_text,
    temporary_name,
)
from keras_nmt.workshop.run.run_lifecycle import (
    data_record,
    lock_run_folder,
    mark_finished,
    prepare_run_folder,
    record_precision,
    run_precision,
    undone_on_failed_start,
)
from keras_nmt.workshop.run.run_state import RunState, read_history
from keras_nmt.workshop.run.sample_translations import SampleTranslations
from keras_nmt.workshop.run.task import TranslationTask
from keras_nmt.workshop.run.time_budget import TimeBudget
from keras_nmt.workshop.run.train_config import teacher_forcing_values
from keras_nmt.workshop.run.validation_scores import ValidationScores

# Training tokens unknown to the run's own vocabulary: refused above MAX_UNKNOWN_TOKENS (a
# --vocab-size that leaves almost nothing), a warning above WARN_UNKNOWN_TOKENS.
MAX_UNKNOWN_TOKENS = 0.5
WARN_UNKNOWN_TOKENS = 0.1


@dataclasses.dataclass
class TrainResult:
    """What `train` returns: the model, a translator, the history and the final scores.

    `model` is the model as trained (its dtype policy, optimizer and all); `translator` decodes
    with the run's saved model as `evaluate.py`, `translate.py` and the export load it, in
    float32 (`translator.model`), and `scores` are its: after a mixed-precision run the two
    models hold the same weights but decode in different precisions. `target_tokens_per_epoch`
    counts the non-padding target tokens of one training epoch (`TrainingStream`).
    """

    model: keras.Model
    translator: Translator
    history: dict
    scores: dict
    seconds: float
    target_tokens_per_epoch: float | None = None


def interrupted_at(backup, run, finished=False):
    """Where an interruption (Ctrl-C, SIGTERM) stopped training and what it left, in one line:
    the last backup a re-run resumes from, or, once the run is marked `finished`, its model."""
    if finished:  # only the validation scores were left to do
        return (f"after training, before the validation scores: {run} is finished and its model "
                f"is {Path(run) / MODEL_FILE}; `keras-nmt evaluate {run}` scores it")
    at = (f"at {position_text(backup.epoch, backup.batches_done)}"
          if hasattr(backup, "epoch") else "as training started")
    if backup.saved_at is None:
        return f"{at}, before the first backup: nothing was kept in {run}"
    return (f"{at}; the last backup is from {position_text(*backup.saved_at)}; re-run the same "
            "command to resume from it")


def budget_ran_out(callbacks):
    """Whether a `TimeBudget` among `callbacks` stopped the training."""
    return any(isinstance(c, TimeBudget) and c.ran_out() for c in callbacks)


def stop_reason(config, callbacks, trained):
    """Why `fit` ended (`trained`: the epochs trained in all): its epochs done, the time budget
    or early stopping."""
    if budget_ran_out(callbacks):
        return (f"the time budget of {plural(config.time_budget, 'minute')} ran out after "
                f"{plural(trained, 'epoch')} of {config.epochs}; a larger --time-budget (it "
                "counts the whole run) continues from there")
    for callback in callbacks:
        if isinstance(callback, keras.callbacks.EarlyStopping) and callback.stopped_epoch:
            return (f"no better val_bleu for {plural(config.patience, 'epoch')} (early "
                    "stopping; the best "
                    "epoch's weights kept)")
    return f"all {plural(config.epochs, 'epoch')} done"


def make_tokenizers(config, train_pairs, run):
    """Builds and saves the tokenizers, or reloads the ones a resumed run already saved."""
    directory = run / TOKENIZERS_DIR
    if (directory / "source").exists() and (directory / "target").exists():
        return load_run_tokenizer(directory / "source"), load_run_tokenizer(directory / "target")
    if config.init_from:
        # Fine-tuning keeps the vocabularies the weights were trained with (those, not others):
        # the run is opened as every command opens one (its tokenizers against its record, its
        # weights finite and the ones the record fingerprints, their sizes its tokenizers').
        RunFolder.load(config.init_from)
        for side in ("source", "target"):
            partial = directory / temporary_name(side)
            shutil.rmtree(partial, ignore_errors=True)
            shutil.copytree(Path(config.init_from) / TOKENIZERS_DIR / side, partial)
            os.replace(partial, directory / side)
        return load_run_tokenizer(directory / "source"), load_run_tokenizer(directory / "target")
    options = {"lowercase": config.lowercase}
    if config.tokenizer == "word":
        options["max_vocab"] = config.vocab_size
    if config.tokenizer == "subword":
        options.update(vocab_size=config.vocab_size, model_type=config.subword_model,
                       character_coverage=config.character_coverage)
    sides = {"source": [s for s, _ in train_pairs], "target": [t for _, t in train_pairs]}
    if config.sentencepiece_model:  # one's own models, one for both sides or one each
        models = [sentencepiece_model_tokenizer(file, lowercase=config.lowercase)
                  for file in config.sentencepiece_model.split(",")]
        built = dict(zip(sides, models * 2 if len(models) == 1 else models, strict=True))
    elif config.joint_vocabulary:  # one vocabulary of both sides' texts, saved for each side
        joint = make_tokenizer(config.tokenizer, **options).build(
            sides["source"] + sides["target"])
        built = dict.fromkeys(sides, joint)
    else:
        built = {side: make_tokenizer(config.tokenizer, **options).build(texts)
                 for side, texts in sides.items()}
    tokenizers = []
    for side, tokenizer in built.items():
        # Whole or not at all: a half-saved tokenizer would be reloaded by the next run.
        partial = directory / temporary_name(side)
        shutil.rmtree(partial, ignore_errors=True)
        shutil.rmtree(directory / side, ignore_errors=True)
        tokenizer.save(partial)
        os.replace(partial, directory / side)
        tokenizers.append(tokenizer)
    return tuple(tokenizers)


def start_attribution(config):
    """The attribution a new run carries: that of the run it starts from (`--init-from`), with
    the fine-tuning added to its changes; None for a run trained from scratch."""
    if not config.init_from:
        return None
    start = Path(config.init_from)
    change = f"fine-tuned with keras-nmt train --init-from {start.name} on {config.data}"
    return derived_attribution(run_attribution(start), change)


def unknown_token_rate(tokenizer, texts):
    """The fraction of the tokens of `texts` (at most `MAX_MEASURED`) that are `UNK_ID`."""
    ids = tokenizer.tokenize(list(texts)[:MAX_MEASURED]).flat_values.numpy()
    return float(np.mean(ids == UNK_ID)) if ids.size else 0.0


def check_training_data(config, profile, valid_pairs, train_pairs, tokenizers, print_fn):
    """Refuses (`ValueError`) what would train a useless model without a word: validation data
    that looks reversed or in another language than the training data, or a vocabulary that
    leaves most training tokens unknown; warns when it leaves many. `--accept-data` skips this.
    """
    insist = "; add --accept-data to train on it as it is"
    if config.valid or has_splits(config.data):  # a file of its own (a hold-out is alike)
        name = config.valid or config.data.format(split="valid")
        problem = implausibility(valid_pairs, profile, f"the validation data {name}")
        if problem:
            raise ValueError(f"{problem}, compared with the training data{insist}")
    for index, (side, tokenizer) in enumerate(zip(("source", "target"), tokenizers, strict=True)):
        rate = unknown_token_rate(tokenizer, [pair[index] for pair in train_pairs])
        if rate > MAX_UNKNOWN_TOKENS:
            real = tokenizer.vocab_size - NUM_RESERVED
            unit = {"char": "character"}.get(config.tokenizer, config.tokenizer)
            if config.init_from:  # its vocabulary is the starting model's: no flag changes it
                raise ValueError(
                    f"the {side} vocabulary of {config.init_from} ({real} {unit}"
                    f"{'s' * (real != 1)}) leaves {rate:.0%} of the {side} tokens of "
                    f"{config.data} unknown: that model does not fit this data (another "
                    f"language or script?){insist}")
            raise ValueError(
                f"--vocab-size {config.vocab_size} keeps {real} {unit}{'s' * (real != 1)} "
                f"besides the {NUM_RESERVED} special tokens: {rate:.0%} of the {side} tokens "
                f"of {config.data} would be unknown; raise --vocab-size{insist}")
        if rate > WARN_UNKNOWN_TOKENS:
            remedy = ("" if config.init_from else
                      "; a larger --vocab-size keeps more")
            print_fn(f"warning: {rate:.0%} of the {side} tokens of {config.data} are unknown to "
                     f"its {tokenizer.vocab_size}-token vocabulary{remedy}")


def make_callbacks(config, translator, sources, references, state, backup, batches_per_epoch,
                   print_fn):
    """The run's callbacks, in the order they must run, and its `CheckpointAverage` (or None).

    First the divergence check (a non-finite batch is never saved); validation scores and
    sample translations (they add to the epoch's logs); the time budget (it may stop at a
    batch), the run state (which records the logs) and the backup (which saves the state),
    then TensorBoard; checkpoint averaging and early stopping when the config asks for them.
    """
    run = Path(config.output)
    average = None
    validate = translator.translate_texts
    if config.average_checkpoints > 1:
        average = CheckpointAverage(run / AVERAGE_DIR, config.average_checkpoints,
                                    config.average_every)
        validate = average.wrap(translator.translate_texts)  # val_* scores the averaged model
    callbacks = [
        StopOnDivergence(run, backup, None if card(config.model).schedule(
            fine_tuning=bool(config.init_from)) == "inverse_sqrt" else config.learning_rate),
        ValidationScores(validate, sources, references, max_sentences=config.validation_sentences),
        SampleTranslations(
            validate, sources[: config.samples],
            [refs[0] for refs in references[: config.samples]], print_fn=print_fn,
        ),
        state,  # after the callbacks adding to the logs, before the backup saving it
        backup,
        keras.callbacks.TensorBoard(str(run / LOGS_DIR), write_graph=False),
        # Counts the batches that ran: Keras' own ends each epoch at its full count.
        EpochProgress(batches_per_epoch, print_fn),
    ]
    if average is not None:
        # The weights as trained, scored too (val_last_*): what averaging adds, epoch by epoch.
        callbacks[2:2] = [
            ValidationScores(translator.translate_texts, sources, references,
                             max_sentences=config.validation_sentences, prefix="val_last_"),
            average,
        ]
    if config.time_budget is not None:
        # Before the run state and the backup: the batch it stops at is backed up as the end.
        callbacks.insert(callbacks.index(state), TimeBudget(
            config.time_budget, clock=state, snapshot_weights=run / BUDGET_WEIGHTS_FILE,
            snapshot_point=run / BUDGET_POINT_FILE, batches_per_epoch=batches_per_epoch,
            average=average,
        ))
    if config.patience is not None:
        callbacks.append(
            keras.callbacks.EarlyStopping(
                monitor="val_bleu", mode="max", patience=config.patience, restore_best_weights=True
            )
        )
    return callbacks, average


def report_scores(config, translator, sources, references, seconds, print_fn):
    """Scores the validation sources with `translator` and prints them with a few samples."""
    hypotheses = translator.translate_texts(sources)
    scores = {**score_all(hypotheses, references), "train_seconds": seconds}
    rows = list(zip(sources, hypotheses, references, strict=True))
    for source, hypothesis, refs in rows[: config.samples]:
        print_fn(f"  {source!r} -> {hypothesis!r} (reference {refs[0]!r})")
    print_fn(
        f"validation ({plural(len(sources), 'sentence')}): exact match "
        f"{scores['exact_match']:.2%}, "
        f"BLEU {scores['bleu']:.1f}, chrF {scores['chrf']:.1f}, CER {scores['cer']:.3f}"
    )
    return scores


def train(config, print_fn=print, extra_callbacks=(), task=None, fresh=False):
    """Trains one model and writes its run folder (see docs/architecture.md).

    Re-running the same command after a crash resumes exactly from `RUN_FOLDER/backup/` (the whole
    training state and the position in the run's batches, saved every `config.backup_every`
    batches and at each epoch's end): the batches after that position are trained, in the same
    order, so the final weights equal an uninterrupted run's, whatever the task (see
    `keras_nmt.workshop.run.exact_backup` and `keras_nmt.workshop.run.task`). A folder holding a run
    with other options is refused (`RunFolderError`); a finished run is not trained again (its model
    is evaluated), unless `config.epochs` grew.

    Args:
        config: a `TrainConfig`.
        print_fn: where progress lines go.
        extra_callbacks: more Keras callbacks (tests use one that interrupts training).
        task: the `Task` giving the pairs and the training batches (default: a
            `TranslationTask`, the corpus of `config.data`); e.g.
            `keras_nmt.workshop.spelling.task.SpellingTask`.
        fresh: first delete what an earlier run wrote in `config.output`.

    Returns:
        A `TrainResult`.

    Example:
        >>> result = train(TrainConfig(epochs=2, output="runs/dates"))  # doctest: +SKIP
        >>> result.translator.translate_texts(["June 3, 2021"])  # doctest: +SKIP
    """
    previous = keras.mixed_precision.global_policy()
    try:
        return _train(config, print_fn, extra_callbacks, task or TranslationTask(), fresh)
    finally:
        # The dtype policy is process-wide: a run that chose bf16 must not hand it to the models
        # built after it (the next configuration of `compare.py`, the next test).
        keras.mixed_precision.set_global_policy(previous)


def _train(config, print_fn, extra_callbacks, task, fresh):
    """`train` without restoring the global dtype policy: locks the run folder, and undoes a
    new run's files when it fails before its first backup."""
    run = Path(config.output)
    with lock_run_folder(run):
        finished = prepare_run_folder(config, fresh)
        with undone_on_failed_start(run):
            return _train_locked(config, print_fn, extra_callbacks, task, finished)


def _train_locked(config, print_fn, extra_callbacks, task, finished):
    """`_train` once the folder is locked and checked (`finished`: nothing left to train)."""
    run = Path(config.output)
    # First: a multi-worker distribution must precede every other TensorFlow op.
    strategy = make_distribution(config.distribution)
    random.seed(config.seed)
    keras.utils.set_random_seed(config.seed)
    precision = run_precision(run, config.precision, step_matmul_shapes(config))
    print_fn(f"precision: {precision.policy} ({precision.reason})")
    if precision.warning:
        print_fn(f"warning: {precision.warning}")
    keras.mixed_precision.set_global_policy(precision.policy)

    schedule = TeacherForcingSchedule(*teacher_forcing_values(config.teacher_forcing))
    if not schedule.is_plain_teacher_forcing and config.api != "subclassed":
        raise ValueError("scheduled teacher forcing needs --api subclassed (a step loop)")
    # Data errors come before anything is written (and a new run failing later is undone).
    train_pairs, valid_pairs = task.load_pairs(config)
    record = data_record(config, train_pairs)
    config.to_json(run / CONFIG_FILE)  # first: the folder's options are known from now on
    if not (run / DATA_FILE).exists():
        write_json(run / DATA_FILE, record)
    record_precision(run, precision)
    source_tokenizer, target_tokenizer = make_tokenizers(config, train_pairs, run)
    if not (run / PROVENANCE_FILE).exists():
        record_run_provenance(run, start_attribution(config))
    if config.shared_embeddings and source_tokenizer.vocabulary != target_tokenizer.vocabulary:
        # Equal sizes are not enough: one embedding row would mean two unrelated tokens.
        raise ValueError(
            f"--shared-embeddings needs one vocabulary for both sides, but the source and "
            f"target vocabularies of {config.init_from or run} differ; train without "
            "--shared-embeddings, or with --joint-vocabulary")
    if not config.accept_data:
        check_training_data(config, record["profile"], valid_pairs,
                            train_pairs, (source_tokenizer, target_tokenizer), print_fn)
    print_fn(
        f"data: {len(train_pairs)} training and {len(valid_pairs)} validation pairs; "
        f"{config.tokenizer} vocabularies {source_tokenizer.vocab_size} -> "
        f"{target_tokenizer.vocab_size}"
    )
    stream = task.training_stream(config, train_pairs, source_tokenizer, target_tokenizer)
    print_fn(f"training data: {stream.summary}")
    valid_data = make_dataset(
        valid_pairs, source_tokenizer, target_tokenizer, shuffle=False,
        batch_size=config.batch_size, max_length=config.max_length,
    )

    with strategy.scope():
        model = build_model(
            config.model,
            config.api,
            source_tokenizer.vocab_size,
            target_tokenizer.vocab_size,
            dataclasses.asdict(config),
        )
        model(next(iter(valid_data))[0])  # builds the weights (the backup restores them)
        if config.init_from:
            model.load_weights(Path(config.init_from) / MODEL_FILE)
        compile_model(model, config)
    # One record of the run's clock and history, saved in every backup (see `RunState`).
    state = RunState(run / HISTORY_FILE)
    backup = ExactBackup(run / BACKUP_DIR, config.backup_every, state)
    epoch, batch = backup.restore(model)
    if (epoch, batch) != (0, 0) and not finished:
        print_fn(f"resuming from {position_text(epoch, batch)} ({backup.path})")
    # The run's batches are numbered across epochs; training resumes at the next one.
    batches_per_epoch = config.steps_per_epoch or stream.batches_per_pass
    train_data = stream.batches(epoch * batches_per_epoch + batch,
                                config.epochs * batches_per_epoch)
    if config.distribution != "default":
        print_fn(f"distribution: {config.distribution}, {strategy.num_replicas_in_sync} replicas")
    print_fn(f"model: {config.model} ({config.api}), {model.count_params():,} parameters")

    translator = Translator(
        model, source_tokenizer, target_tokenizer, config.max_length, config.max_length
    )
    sources, references = group_references(valid_pairs)
    callbacks, average = make_callbacks(config, translator, sources, references, state, backup,
                                        batches_per_epoch, print_fn)
    if not schedule.is_plain_teacher_forcing:
        callbacks.insert(0, schedule)
    callbacks.extend(extra_callbacks)
    # A live progress bar only on a terminal: written into a file, its escape codes and
    # carriage returns are noise (a line per epoch says the same).
    verbose = 2 if config.verbose == 1 and not sys.stdout.isatty() else config.verbose

    if config.init_from and (epoch, batch) == (0, 0) and not finished:
        before = next(c for c in callbacks if isinstance(c, ValidationScores)).evaluate()
        print_fn(f"validation before fine-tuning (the weights of {config.init_from}): "
                 f"BLEU {before['val_bleu']:.1f}, chrF {before['val_chrf']:.1f}")
    start = time.monotonic()
    # From here a re-run resumes from the last backup, or finds the run finished (`ended`, read
    # when a signal comes); the one line of an interruption says which.
    ended = finished
    with interruption.leaving(lambda: interrupted_at(backup, run, ended)):
        if finished:
            print_fn(f"{run} finished earlier: nothing to train, evaluating its {MODEL_FILE}")
            model.load_weights(run / MODEL_FILE)
            history = read_history(run / HISTORY_FILE)
        else:
            if budget_ran_out(callbacks):
                # Killed after the budget stopped it and its last epoch was backed up: the
                # budget is spent (one more batch would change the weights), only the ending
                # is left.
                history = read_history(run / HISTORY_FILE)
                if average is not None:
                    average.set_model(model)
            else:
                history = fit_from(
                    model, train_data, batches_per_epoch, epoch, batch, config.epochs,
                    validation_data=valid_data, callbacks=callbacks, verbose=verbose,
                    shuffle=False,  # make_dataset already shuffles (seeded); Keras cannot either
                )
            if average is not None:
                average.apply()
            check_finite_weights(model, run)
            with atomic_path(run / MODEL_FILE) as temporary:
                model.save(temporary)
            record_weights(run, model)  # binds the model to its tokenizers' record
            interruption.check()  # a signal a library swallowed: not marked finished
            epoch, batch = backup.saved_at or (epoch, batch)
            trained = round(epoch + batch / batches_per_epoch, 4)
            budget = config.time_budget if budget_ran_out(callbacks) else None
            mark_finished(run, config.epochs, trained, budget)
            ended = True
        seconds = time.monotonic() - start

        if precision.policy != "float32":
            # Layers take the global policy when built: load the saved model as a new process
            # does.
            keras.mixed_precision.set_global_policy("float32")
            translator = RunFolder.load(run).translator()
        if not finished:
            batches = epoch * batches_per_epoch + batch
            print_fn(f"trained {plural(trained, 'epoch')} of {config.epochs} "
                     f"({plural(batches, 'batch')}) in {seconds:.0f} s; the training batches "
                     f"took {state.step_seconds():.0f} s in all "
                     f"({1000 * state.step_seconds() / max(1, batches):.0f} ms/batch)")
            print_fn(f"stopped: {stop_reason(config, callbacks, trained)}; the model is "
                     f"{run / MODEL_FILE}")
        scores = report_scores(config, translator, sources, references, seconds, print_fn)
    tokens = stream.target_tokens_per_pass * batches_per_epoch / stream.batches_per_pass
    return TrainResult(model, translator, history, scores, seconds, tokens)
