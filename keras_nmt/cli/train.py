"""Train a sequence-to-sequence model and write a run folder.

Examples:
    keras-nmt train --model lstm --api functional --output-dir runs/lstm     # built-in dates
    keras-nmt train --model luong --api subclassed --teacher-forcing inverse_sigmoid:300
    keras-nmt train --data my-pairs.tsv --train-size 5000 --time-budget 10   # one TSV file
    keras-nmt train --recipe spa-eng/transformer --data ../shared/data/spa-eng.{split}.tsv \\
        --output-dir runs/spa-eng-transformer
Re-running the same command resumes an interrupted run exactly; Ctrl-C leaves it resumable.
"""

import argparse
import sys

from keras_nmt.cli.common import (
    add_debug_flag,
    command,
    exit_status,
    new_parser,
    non_negative_int,
    positive_float,
    positive_int,
    rate,
    start_tensorflow,
)
from keras_nmt.models.configurations import recipe_fields, recipe_names
from keras_nmt.models.registry import APIS, MODEL_NAMES
from keras_nmt.training.train_config import PRECISIONS, TrainConfig

DEFAULTS = TrainConfig()


def build_parser(prog=None):
    parser = new_parser(__doc__, prog)
    parser.add_argument("--recipe", choices=recipe_names(), default=None,
                        help="start from a reference configuration: its model, sizes, "
                        "tokenizer, lengths and training recipe become the defaults, and the "
                        "flags given here still win (e.g. spa-eng/transformer, the reference "
                        "Transformer; choices: %(choices)s)")
    model = parser.add_argument_group("model")
    model.add_argument("--model", default=DEFAULTS.model, choices=MODEL_NAMES,
                       help="architecture: LSTM encoder-decoder (Sutskever 2014), LSTM + Luong "
                       "attention (2015), LSTM + Bahdanau attention (2014), Transformer (Vaswani "
                       "2017) (default: %(default)s)")
    model.add_argument("--api", default=DEFAULTS.api, choices=APIS,
                       help="which twin: the functional graph or the subclassed step loop "
                       "(default: %(default)s)")
    model.add_argument("--embedding-dim", type=positive_int, default=DEFAULTS.embedding_dim,
                       help="embedding width of the recurrent models (default: %(default)s)")
    model.add_argument("--units", type=positive_int, default=DEFAULTS.units,
                       help="LSTM width of the recurrent models (default: %(default)s)")
    model.add_argument("--layers", dest="num_layers", type=positive_int,
                       default=DEFAULTS.num_layers,
                       help="stacked layers in encoder and decoder (default: %(default)s)")
    model.add_argument("--dropout", type=rate, default=DEFAULTS.dropout,
                       help="dropout rate (default: %(default)s)")
    model.add_argument("--reverse-source", action="store_true",
                       help="feed the source backwards (Sutskever et al. 2014, §3.3)")
    model.add_argument("--bidirectional", action="store_true",
                       help="bidirectional encoder (LSTM and Luong models)")
    model.add_argument("--attention-score", default=DEFAULTS.attention_score,
                       choices=["dot", "general", "concat"],
                       help="Luong score function (default: %(default)s)")
    model.add_argument("--input-feeding", action="store_true",
                       help="Luong input feeding (§3.3); subclassed twin only")
    model.add_argument("--attention-units", type=positive_int, default=DEFAULTS.attention_units,
                       help="Bahdanau attention width (default: --units)")
    model.add_argument("--deep-output", action="store_true",
                       help="Bahdanau deep output: the previous token also feeds the output layer")
    model.add_argument("--d-model", type=positive_int, default=DEFAULTS.d_model,
                       help="Transformer model width (default: %(default)s)")
    model.add_argument("--heads", dest="num_heads", type=positive_int, default=DEFAULTS.num_heads,
                       help="Transformer attention heads (default: %(default)s)")
    model.add_argument("--ff-dim", type=positive_int, default=DEFAULTS.ff_dim,
                       help="Transformer feed-forward width (default: %(default)s)")
    model.add_argument("--pre-norm", action="store_true",
                       help="Transformer layer norm before each sub-layer instead of after")
    model.add_argument("--shared-embeddings", action="store_true",
                       help="Transformer: one embedding for source and target (same vocabulary)")
    model.add_argument("--tied-output", action="store_true",
                       help="Transformer: output projection tied to the target embedding")

    data = parser.add_argument_group("data and tokenizers")
    data.add_argument("--data", default=DEFAULTS.data,
                      help="built-in dataset name ('dates'), a corpus file (TSV, .gz/.xz/.zip), "
                      "a path with {split} (e.g. ../shared/data/spa-eng.{split}.tsv) or "
                      "SOURCE_FILE,TARGET_FILE (default: %(default)s)")
    data.add_argument("--valid", default=None,
                      help="validation file (default: the {split} file, the built-in split, or a "
                      "seeded 5%% hold-out of --data)")
    data.add_argument("--source-column", type=non_negative_int, default=DEFAULTS.source_column,
                      help="which TSV column is the source: Tatoeba files are "
                      "'English<TAB>other', so 1 translates other->English (default: %(default)s)")
    data.add_argument("--target-column", type=non_negative_int, default=None,
                      help="which TSV column is the target, for files with more columns "
                      "(default: the other one of columns 0 and 1)")
    data.add_argument("--skip-bad-lines", action="store_true",
                      help="skip (and count) malformed corpus lines instead of stopping at the "
                      "first one; the first few are reported as FILE:LINE")
    data.add_argument("--max-bad-fraction", type=rate, default=DEFAULTS.max_bad_fraction,
                      help="with --skip-bad-lines, fail when more than this fraction of the "
                      "lines is malformed (default: %(default)s)")
    data.add_argument("--train-size", type=positive_int, default=None,
                      help="training pairs: the built-in dataset generates N; a corpus file "
                      "is cut to a seeded sample of N (default: all, or 20,000 built-in)")
    data.add_argument("--valid-size", type=positive_int, default=None,
                      help="validation pairs: generated, held out of a single file, or a "
                      "seeded sample of the validation file (default: all; 1,000 built-in; 5%% "
                      "of a single file, at most 2,000)")
    data.add_argument("--tokenizer", default=DEFAULTS.tokenizer,
                      choices=["char", "word", "subword"],
                      help="tokenizer for both sides (default: %(default)s)")
    data.add_argument("--vocab-size", type=positive_int, default=DEFAULTS.vocab_size,
                      help="word/subword vocabulary size (default: %(default)s)")
    data.add_argument("--lowercase", action="store_true", help="lower-case all text")
    data.add_argument("--max-length", type=positive_int, default=DEFAULTS.max_length,
                      help="longest sequence in tokens: longer training pairs are dropped, "
                      "longer inputs truncated when translating (default: %(default)s)")

    train = parser.add_argument_group("training")
    train.add_argument("--epochs", type=positive_int, default=DEFAULTS.epochs,
                       help="training epochs (default: %(default)s)")
    batching = train.add_mutually_exclusive_group()
    batching.add_argument("--batch-size", type=positive_int, default=DEFAULTS.batch_size,
                          help="pairs per batch (default: %(default)s)")
    batching.add_argument("--batch-tokens", type=positive_int, default=None, metavar="N",
                          help="instead of --batch-size: length-bucketed batches of as many "
                          "pairs as keep the padded source + target tokens <= N (fairseq "
                          "--max-tokens), e.g. 4096; validation keeps --batch-size")
    train.add_argument("--learning-rate", type=positive_float, default=DEFAULTS.learning_rate,
                       help="Adam learning rate of the recurrent models (default: %(default)s)")
    train.add_argument("--warmup-steps", type=positive_int, default=DEFAULTS.warmup_steps,
                       help="Transformer warm-up steps of the inverse-square-root schedule "
                       "(default: %(default)s)")
    train.add_argument("--clipnorm", type=positive_float, default=DEFAULTS.clipnorm,
                       help="gradient norm clipping (default: %(default)s)")
    train.add_argument("--label-smoothing", type=rate, default=DEFAULTS.label_smoothing,
                       help="label smoothing epsilon (default: %(default)s)")
    train.add_argument("--teacher-forcing", default=DEFAULTS.teacher_forcing,
                       help="scheduled sampling (Bengio 2015), subclassed twins only: "
                       "KIND[:K[:FLOOR]] with KIND constant|linear|exponential|inverse_sigmoid, "
                       "e.g. inverse_sigmoid:300 (default: %(default)s = plain teacher forcing)")
    train.add_argument("--patience", type=positive_int, default=None,
                       help="early stopping on validation BLEU after this many epochs without "
                       "improvement, ending with the best epoch's weights; not with "
                       "--average-checkpoints (default: off)")
    train.add_argument("--run-eagerly", action="store_true",
                       help="run the training step eagerly (debugging; slow)")
    train.add_argument("--jit-compile", action="store_true", help="compile with XLA")
    train.add_argument("--precision", default=DEFAULTS.precision, choices=PRECISIONS,
                       help="Keras dtype policy; logits and softmax stay float32. auto: "
                       "mixed_float16 on a GPU, mixed_bfloat16 on a CPU with native bf16 "
                       "(AVX512_BF16/AMX flags), else float32; the choice and why are printed "
                       "and kept for a resumed run (default: %(default)s)")
    train.add_argument("--time-budget", type=positive_float, default=None,
                       help="stop after the epoch that crosses this many minutes; the weights "
                       "of the moment it runs out are kept in budget.weights.h5 (where: "
                       "budget.json)")
    train.add_argument("--average-checkpoints", type=positive_int,
                       default=DEFAULTS.average_checkpoints, metavar="K",
                       help="end with the mean of K weights: the last ones and K-1 kept every "
                       "--average-every optimizer steps (checkpoint averaging, Vaswani et al. "
                       "2017); validation then scores the mean (val_bleu) and the last weights "
                       "(val_last_bleu); 1: no averaging (default: %(default)s)")
    train.add_argument("--average-every", type=positive_int, default=DEFAULTS.average_every,
                       metavar="N", help="optimizer steps between the weights kept for "
                       "--average-checkpoints (default: %(default)s)")
    train.add_argument("--strategy", default=DEFAULTS.strategy,
                       choices=["default", "mirrored", "multi-worker"],
                       help="tf.distribute: one device, MirroredStrategy over this machine's GPUs "
                       "(or logical CPUs), or MultiWorkerMirroredStrategy from TF_CONFIG (run the "
                       "same command on every worker, each with its own --output-dir); the batch "
                       "size is the global batch, split across replicas (default: %(default)s)")

    run = parser.add_argument_group("run")
    run.add_argument("--seed", type=int, default=DEFAULTS.seed,
                     help="seed for data order, initial weights and dropout: same seed, same "
                     "result (default: %(default)s)")
    run.add_argument("--output-dir", dest="output", default=None,
                     help="run folder (default: runs/MODEL-API); re-running the same "
                     "command resumes exactly from its backup, or does nothing once finished; "
                     "other options are refused")
    run.add_argument("--output", dest="output", help=argparse.SUPPRESS)  # the old spelling
    run.add_argument("--fresh", action="store_true",
                     help="delete what an earlier run left in --output-dir (config, tokenizers, "
                     "backup, model) and start again")
    run.add_argument("--backup-every", type=positive_int, default=DEFAULTS.backup_every,
                     help="batches between backups of weights and optimizer (default: %(default)s)")
    run.add_argument("--validation-sentences", type=positive_int,
                     default=DEFAULTS.validation_sentences,
                     help="validation sentences translated after each epoch for val_bleu etc. "
                     "(default: %(default)s)")
    run.add_argument("--samples", type=non_negative_int, default=DEFAULTS.samples,
                     help="sample translations printed after each epoch (default: %(default)s)")
    run.add_argument("--verbose", type=int, default=None, choices=[0, 1, 2],
                     help="Keras progress: 0 silent, 1 a live progress bar, 2 one line per "
                     "epoch (default: 1 on a terminal, 2 when the output is a file or a pipe)")
    run.add_argument("--export", action="store_true",
                     help="export a SavedModel to saved_models/<run name>/<version>/ at the end")
    add_debug_flag(run)
    return parser


def parse(argv=None, prog=None):
    """The `TrainConfig` fields of a command line: `--recipe` gives the defaults, flags win."""
    parser = build_parser(prog)
    known, _ = parser.parse_known_args(argv)
    if known.recipe:
        parser.set_defaults(**recipe_fields(known.recipe))
    return parser.parse_args(argv)


@command
def main(argv=None, prog=None):
    args = parse(argv, prog)
    start_tensorflow(args.debug)
    # Imported after parsing: `--help` and flag errors must not wait for TensorFlow.
    from keras_nmt.export import export_translator  # noqa: PLC0415
    from keras_nmt.training.run_folder import prepare_run_folder  # noqa: PLC0415
    from keras_nmt.training.trainer import train  # noqa: PLC0415

    skipped = ("export", "fresh", "debug", "recipe")
    options = {k: v for k, v in vars(args).items() if k not in skipped}
    if options["output"] is None:
        options["output"] = f"runs/{args.model}-{args.api}"
    if options["verbose"] is None:
        options["verbose"] = 1 if sys.stdout.isatty() else 2
    config = TrainConfig(**options)
    if prepare_run_folder(config, fresh=args.fresh):
        print(f"{config.output} is finished ({config.epochs} epochs): nothing to do. Raise "
              "--epochs to train on, or add --fresh to start again")
        return None
    try:
        result = train(config)
    except KeyboardInterrupt as interruption:
        interruption.left = (f"{config.output} keeps its last backup; re-run the same command "
                             "to resume from it")
        raise
    if args.export:
        path = export_translator(config.output)  # named after the run folder
        print(f"exported a SavedModel to {path}")
    return result


if __name__ == "__main__":
    sys.exit(exit_status(main()))
