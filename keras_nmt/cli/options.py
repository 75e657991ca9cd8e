"""Every training option's flag, defined once, by its `TrainConfig` field name.

`keras-nmt train`, `compare` and `spell` (and the demo) add the options they offer from here, so
a flag has one spelling, one type and one help text everywhere; each command chooses only the
defaults: `TrainConfig`'s own (train, spell), or none, meaning "the preset's" (compare).
Old spellings stay as hidden aliases.

Example:
    >>> parser = new_parser("Train.")
    >>> add_options(parser, ["units", "time_budget"], TrainConfig())
    >>> parser.parse_args(["--units", "64", "--minutes", "2"]).time_budget
    2.0
"""

import argparse
import dataclasses

from keras_nmt.cli.common import (
    ACCEPT_DATA_HELP,
    non_negative_int,
    positive_float,
    positive_int,
    rate,
)
from keras_nmt.models.registry import APIS, MODEL_NAMES
from keras_nmt.training.train_config import PRECISIONS, TrainConfig

TOKENIZERS = ("char", "word", "subword")


def _option(flag, help, aliases=(), **argparse_options):
    return {"flag": flag, "help": help, "aliases": aliases, **argparse_options}


def _switch(flag, help):
    return _option(flag, help, action="store_true")


# TrainConfig field -> its flag. `help` has no default: `add_options` appends it.
TRAIN_OPTIONS = {
    # model
    "model": _option("--model", "architecture: LSTM encoder-decoder (Sutskever 2014), LSTM + "
                     "Luong attention (2015), LSTM + Bahdanau attention (2014), Transformer "
                     "(Vaswani 2017)", choices=MODEL_NAMES),
    "api": _option("--api", "which twin: the functional graph or the subclassed step loop",
                   choices=APIS),
    "embedding_dim": _option("--embedding-dim", "embedding width of the recurrent models",
                             type=positive_int),
    "units": _option("--units", "LSTM width of the recurrent models", type=positive_int),
    "num_layers": _option("--layers", "stacked layers in encoder and decoder", type=positive_int),
    "dropout": _option("--dropout", "dropout rate", type=rate),
    "reverse_source": _switch("--reverse-source",
                              "feed the source backwards (Sutskever et al. 2014, §3.3)"),
    "bidirectional": _switch("--bidirectional", "bidirectional encoder (LSTM and Luong models)"),
    "attention_score": _option("--attention-score", "Luong score function",
                               choices=("dot", "general", "concat")),
    "input_feeding": _switch("--input-feeding", "Luong input feeding (§3.3); subclassed twin "
                             "only"),
    "attention_units": _option("--attention-units", "Bahdanau attention width (default: "
                               "--units)", type=positive_int),
    "deep_output": _switch("--deep-output", "Bahdanau deep output: the previous token also "
                           "feeds the output layer"),
    "d_model": _option("--d-model", "Transformer model width", type=positive_int),
    "num_heads": _option("--heads", "Transformer attention heads", type=positive_int),
    "ff_dim": _option("--ff-dim", "Transformer feed-forward width", type=positive_int),
    "pre_norm": _switch("--pre-norm", "Transformer layer norm before each sub-layer instead of "
                        "after"),
    "shared_embeddings": _switch("--shared-embeddings", "Transformer: one embedding for source "
                                 "and target (same vocabulary)"),
    "tied_output": _switch("--tied-output", "Transformer: output projection tied to the target "
                           "embedding"),
    # data and tokenizers
    "data": _option("--data", "built-in dataset name ('dates'), a corpus file (TSV, "
                    ".gz/.xz/.zip), a path with {split} (e.g. ../shared/data/spa-eng.{split}.tsv) "
                    "or SOURCE_FILE,TARGET_FILE"),
    "source_column": _option("--source-column", "which TSV column is the source; the "
                             "default reads 'source<TAB>target'. Tatoeba files are "
                             "'English<TAB>other': 1 translates other->English (the spa-eng "
                             "recipes say so)", type=non_negative_int, aliases=("--column",)),
    "target_column": _option("--target-column", "which TSV column is the target, for files "
                             "with more columns (default: the other one of columns 0 and 1)",
                             type=non_negative_int),
    "accept_data": _switch("--accept-data", ACCEPT_DATA_HELP),
    "skip_bad_lines": _switch("--skip-bad-lines", "skip (and count) malformed corpus lines "
                              "instead of stopping at the first one; the first few are reported "
                              "as FILE:LINE"),
    "max_bad_fraction": _option("--max-bad-fraction", "with --skip-bad-lines, fail when more "
                                "than this fraction of the lines is malformed", type=rate),
    "train_size": _option("--train-size", "training pairs: the built-in dataset generates N; a "
                          "corpus file is cut to a seeded sample of N (default: all; built-in: "
                          "20,000)", type=positive_int, metavar="N",
                          aliases=("--max-sentences",)),
    "valid_size": _option("--valid-size", "validation pairs: generated, held out of a single "
                          "file, or a seeded sample of the validation file (default: all; "
                          "built-in: 1,000; a single file: 5%% of it, at most 2,000)",
                          type=positive_int, metavar="N"),
    "tokenizer": _option("--tokenizer", "token level of both sides", choices=TOKENIZERS,
                         aliases=("--level",)),
    "vocab_size": _option("--vocab-size", "word/subword vocabulary size", type=positive_int),
    "lowercase": _switch("--lowercase", "lower-case all text"),
    "max_length": _option("--max-length", "longest sequence in tokens: longer training pairs "
                          "are dropped, longer inputs truncated when translating",
                          type=positive_int),
    # training
    "epochs": _option("--epochs", "training epochs", type=positive_int),
    "steps_per_epoch": _option("--steps-per-epoch", "batches per epoch (default: one pass over "
                               "the training data)", type=positive_int),
    "batch_size": _option("--batch-size", "pairs per batch", type=positive_int),
    "batch_tokens": _option("--batch-tokens", "instead of --batch-size: length-bucketed batches "
                            "of as many pairs as keep the padded source + target tokens <= N "
                            "(fairseq --max-tokens), e.g. 4096; validation keeps --batch-size",
                            type=positive_int, metavar="N"),
    "learning_rate": _option("--learning-rate", "Adam learning rate of the recurrent models",
                             type=positive_float),
    "warmup_steps": _option("--warmup-steps", "Transformer warm-up steps of the "
                            "inverse-square-root schedule", type=positive_int),
    "clipnorm": _option("--clipnorm", "gradient norm clipping", type=positive_float),
    "label_smoothing": _option("--label-smoothing", "label smoothing epsilon", type=rate),
    "teacher_forcing": _option("--teacher-forcing", "scheduled sampling (Bengio 2015), "
                               "subclassed twins only: KIND[:K[:FLOOR]] with KIND "
                               "constant|linear|exponential|inverse_sigmoid, e.g. "
                               "inverse_sigmoid:300; constant:1.0 is plain teacher forcing"),
    "patience": _option("--patience", "early stopping on validation BLEU after this many epochs "
                        "without improvement, ending with the best epoch's weights; not with "
                        "--average-checkpoints (default: off)", type=positive_int),
    "run_eagerly": _switch("--run-eagerly", "run the training step eagerly (debugging; slow)"),
    "jit_compile": _switch("--jit-compile", "compile with XLA"),
    "precision": _option("--precision", "Keras dtype policy; logits and softmax stay float32. "
                         "auto: mixed_float16 on a GPU; on a CPU mixed_bfloat16 where it is "
                         "faster (see docs/decisions.md), else float32; the choice and why are "
                         "printed and kept for a resumed run", choices=PRECISIONS),
    "time_budget": _option("--time-budget", "stop after the epoch that crosses this many "
                           "minutes; the weights of the moment it runs out are kept in "
                           "budget.weights.h5 (where: budget.json)",
                           type=positive_float, metavar="MINUTES", aliases=("--minutes",)),
    "average_checkpoints": _option("--average-checkpoints", "end with the mean of K weights: "
                                   "the last ones and K-1 kept every --average-every optimizer "
                                   "steps (checkpoint averaging, Vaswani et al. 2017); "
                                   "validation then scores the mean (val_bleu) and the last "
                                   "weights (val_last_bleu); 1: no averaging",
                                   type=positive_int, metavar="K"),
    "average_every": _option("--average-every", "optimizer steps between the weights kept for "
                             "--average-checkpoints", type=positive_int, metavar="N"),
    "strategy": _option("--strategy", "tf.distribute: one device, MirroredStrategy over this "
                        "machine's GPUs (or logical CPUs), or MultiWorkerMirroredStrategy from "
                        "TF_CONFIG (run the same command on every worker, each with its own "
                        "--output-dir); the batch size is the global batch, split across "
                        "replicas", choices=("default", "mirrored", "multi-worker")),
    # run
    "seed": _option("--seed", "seed for data order, initial weights and dropout: same seed, "
                    "same result", type=int),
    "backup_every": _option("--backup-every", "batches between backups of weights and "
                            "optimizer", type=positive_int),
    "validation_sentences": _option("--validation-sentences", "validation sentences translated "
                                    "after each epoch for val_bleu etc.", type=positive_int),
    "samples": _option("--samples", "sample translations printed after each epoch",
                       type=non_negative_int),
    "verbose": _option("--verbose", "Keras progress: 0 silent, 1 a live progress bar, 2 one "
                       "line per epoch (default: 1 on a terminal, 2 when the output is a file "
                       "or a pipe)", type=int, choices=(0, 1, 2)),
}
MODEL_OPTIONS = ("model", "api", "embedding_dim", "units", "num_layers", "dropout",
                 "reverse_source", "bidirectional", "attention_score", "input_feeding",
                 "attention_units", "deep_output", "d_model", "num_heads", "ff_dim", "pre_norm",
                 "shared_embeddings", "tied_output")
SIZE_OPTIONS = ("embedding_dim", "units", "num_layers", "d_model", "num_heads", "ff_dim",
                "dropout")


def add_options(group, names, defaults, unset=None):
    """Adds the flags of `names` (`TrainConfig` fields) to `group`.

    Args:
        group: a parser or an argument group.
        names: the fields, in the order shown by `--help`.
        defaults: a `TrainConfig` (its values are the defaults) or `None`: every flag defaults to
            `None` (not given), and its help ends with `unset`.
        unset: with `defaults=None`, what applies when a flag is not given, e.g. "the preset's".
    """
    fallback = TrainConfig()
    exclusive = None
    for name in names:
        spec = dict(TRAIN_OPTIONS[name])
        flag, help, aliases = spec.pop("flag"), spec.pop("help"), spec.pop("aliases")
        switch = spec.get("action") == "store_true"
        target = group
        if name in ("batch_size", "batch_tokens"):  # one or the other
            exclusive = exclusive or group.add_mutually_exclusive_group()
            target = exclusive
        if defaults is not None:
            default = getattr(defaults, name)
            if not switch and default is not None and "(default:" not in help:
                help += " (default: %(default)s)"
        else:
            default = None
            if not switch and "(default:" not in help:
                help += f" (default: {unset}; else {getattr(fallback, name)})"
        if switch:
            target.add_argument(flag, dest=name, help=help, **spec)
        else:
            target.add_argument(flag, dest=name, default=default, help=help, **spec)
        for alias in aliases:
            group.add_argument(alias, dest=name, help=argparse.SUPPRESS,
                               **{k: v for k, v in spec.items() if k != "metavar"})


def config_fields(args):
    """The parsed values that are `TrainConfig` fields."""
    fields = {field.name for field in dataclasses.fields(TrainConfig)}
    return {name: value for name, value in vars(args).items() if name in fields}
