"""Export a trained run folder as a SavedModel (or for CTranslate2): strings in, strings out.

Writes RUN_FOLDER's translator to OUTPUT_DIR/NAME/VERSION/ (TensorFlow Serving's versioned layout),
atomically, and prints its signatures (as `saved_model_cli show --all` would):

    serving_default(text: string [batch]) -> translation: string [batch], score: float32 [batch]
    beam_search(text, beam_size: int32 [], length_penalty: float32 [])
        -> translations: string [batch, beam_size], scores: float32 [batch, beam_size]
    attention(text) -> translation, tokens [batch, T], source_tokens [batch, S],
        weights: float32 [batch, T, S]

With --format ctranslate2 (a Transformer run; `pip install keras_nmt[ctranslate2]`), writes a
CTranslate2 model with our tokenizers to OUTPUT_DIR/NAME-ctranslate2/, which `keras-nmt
translate` and `evaluate` open like a run folder, with CTranslate2's faster CPU decoder.

Examples:
    keras-nmt export runs/lstm                          # saved_models/lstm/1/
    keras-nmt export runs/lstm --name dates --version 3
    keras-nmt export runs/transformer --format ctranslate2 --quantization int8
    python -c "import tensorflow as tf, tensorflow_text; m = tf.saved_model.load(
        'saved_models/lstm/1'); print(m.signatures['serving_default'](
        text=tf.constant(['3rd of March 2021'])))"
    # `saved_model_cli run` alone fails with "Op type not registered 'NormalizeUTF8'" (it has
    # no flag to load the tensorflow-text ops the tokenizers use); run it with them registered:
    python -c "import sys, tensorflow_text; from tensorflow.python.tools import \\
        saved_model_cli; sys.argv[0] = 'saved_model_cli'; saved_model_cli.main()" \\
        run --dir saved_models/lstm/1 --tag_set serve --signature_def serving_default \\
        --input_exprs 'text=["3rd of March 2021"]'
"""

import argparse
import sys
from pathlib import Path

from keras_nmt.decoding.decoding_options import DEFAULT_MAX_BEAM_SIZE
from keras_nmt.saved_files import read_json
from keras_nmt.workshop.arguments import new_parser, non_negative_int, positive_int
from keras_nmt.workshop.cli.common import (
    add_debug_flag,
    command,
    exit_status,
    start_tensorflow,
    writing_to,
)
from keras_nmt.workshop.translators.formats import (
    FORMATS,
    QUANTIZATIONS,
    check_ctranslate2_model,
    check_model_name,
)


def folder_name(text):
    """argparse type: a model's name (`check_model_name`)."""
    try:
        check_model_name(text)
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from None
    return text


def build_parser(prog=None):
    parser = new_parser(__doc__, prog)
    parser.add_argument("run_dir", metavar="RUN_FOLDER",
                        help="run folder written by keras-nmt train (config.json, model.keras, "
                        "tokenizers/)")
    parser.add_argument("--output-dir", default="saved_models",
                        help="directory of all exported models (default: %(default)s)")
    parser.add_argument("--name", type=folder_name, default=None,
                        help="model name, the directory under --output-dir (default: the name of "
                        "RUN_FOLDER)")
    parser.add_argument("--version", type=positive_int, default=None,
                        help="version number, a positive integer (default: one more than the "
                        "largest existing version); an existing version is replaced only with "
                        "--force")
    parser.add_argument("--format", default="saved_model", choices=FORMATS,
                        help="saved_model: a TensorFlow SavedModel (TensorFlow Serving); "
                        "ctranslate2: a CTranslate2 model, Transformers only (default: "
                        "%(default)s)")
    parser.add_argument("--quantization", default=None, choices=QUANTIZATIONS,
                        help="ctranslate2 only: the weights' type (default: float32)")
    parser.add_argument("--force", action="store_true",
                        help="replace an existing export once the new one is complete: the "
                        "--version given, or with --format ctranslate2 the NAME-ctranslate2 "
                        "folder; only what an export wrote is replaced, other files in it are "
                        "kept")
    parser.add_argument("--max-beam-size", type=positive_int, default=None,
                        help="the largest beam size the export serves; each size is a function "
                        "of its own in the SavedModel, so fewer sizes export faster; "
                        f"saved_model only (default: {DEFAULT_MAX_BEAM_SIZE})")
    parser.add_argument("--seed", type=non_negative_int, default=0,
                        help="random seed set before loading (export itself is deterministic; "
                        "default: %(default)s)")
    add_debug_flag(parser)
    return parser


def describe_signatures(path):
    """Text listing every signature of the SavedModel at `path` (inputs and outputs)."""
    import tensorflow as tf  # noqa: PLC0415  (after parsing: --help loads no TensorFlow)

    from keras_nmt.workshop.quiet_start import quiet_native_output  # noqa: PLC0415  (the same)

    with quiet_native_output():  # SentencePiece's `normalizer.cc LOG(INFO)` lines
        loaded = tf.saved_model.load(str(path))
    lines = []
    for name, function in sorted(loaded.signatures.items()):
        lines.append(f"signature {name!r}:")
        _, inputs = function.structured_input_signature
        for key, spec in sorted(inputs.items()):
            lines.append(f"  input  {key}: {spec.dtype.name} {spec.shape.as_list()}")
        for key, spec in sorted(function.structured_outputs.items()):
            lines.append(f"  output {key}: {spec.dtype.name} {spec.shape.as_list()}")
    return "\n".join(lines)


def export_run(run_dir, output_dir="saved_models", name=None, version=None, seed=0,
               print_fn=print, max_beam_size=DEFAULT_MAX_BEAM_SIZE, force=False):
    """Exports `run_dir` and prints where and which signatures; returns the version directory.

    `keras-nmt spell` calls this after training.
    """
    import keras  # noqa: PLC0415  (after parsing: --help loads no TensorFlow)

    from keras_nmt.workshop.translators.export_translator import export_translator  # noqa: PLC0415

    keras.utils.set_random_seed(seed)
    path = export_translator(run_dir, base_dir=output_dir, name=name, version=version,
                             max_beam_size=max_beam_size, force=force)
    print_fn(f"exported {run_dir} to {path}")
    print_fn(describe_signatures(path))
    return path


def export_ctranslate2_run(args, print_fn=print):
    """`--format ctranslate2`: OUTPUT_DIR/NAME-ctranslate2; returns its path."""
    from keras_nmt.workshop.translators.ctranslate2_export import export_ctranslate2  # noqa: PLC0415  (after parsing)

    name = args.name or Path(args.run_dir).resolve().name
    path = Path(args.output_dir) / f"{name}-ctranslate2"
    try:
        export_ctranslate2(args.run_dir, path, quantization=args.quantization or "float32",
                           force=args.force)
    except ModuleNotFoundError as error:
        if error.name != "ctranslate2":
            raise
        raise ValueError("--format ctranslate2 needs the ctranslate2 package: pip install "
                         "'keras_nmt[ctranslate2]'") from None
    except FileExistsError:
        raise FileExistsError(f"{path} exists: add --force to replace it") from None
    print_fn(f"exported {args.run_dir} to {path} (CTranslate2, {args.quantization or 'float32'})")
    return path


@command
def main(argv=None, prog=None):
    parser = build_parser(prog)
    args = parser.parse_args(argv)
    # No flag is accepted and then ignored: each format refuses the other's options.
    other = {"saved_model": {"--quantization": args.quantization},
             "ctranslate2": {"--version": args.version, "--max-beam-size": args.max_beam_size}}
    given = [flag for flag, value in other[args.format].items() if value not in (None, False)]
    if given:
        verb = "does" if len(given) == 1 else "do"
        parser.error(f"{', '.join(given)} {verb} not apply to --format {args.format}")
    if args.format == "saved_model" and args.force and args.version is None:
        parser.error("--force replaces an existing version: give it with --version (without "
                     "it, an export takes a new version)")
    config = Path(args.run_dir) / "config.json"
    if args.format == "ctranslate2" and config.is_file():  # said before TensorFlow loads
        run = read_json(config, "copy the run folder again, or train again into a new folder",
                        expect=dict)
        check_ctranslate2_model(run.get("model"), args.run_dir)
    start_tensorflow(args.debug)
    with writing_to(args.output_dir):
        if args.format == "ctranslate2":
            export_ctranslate2_run(args)
        else:
            export_run(args.run_dir, args.output_dir, args.name, args.version, args.seed,
                       max_beam_size=args.max_beam_size or DEFAULT_MAX_BEAM_SIZE,
                       force=args.force)
    return 0


if __name__ == "__main__":
    sys.exit(exit_status(main()))
