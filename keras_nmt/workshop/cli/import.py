"""Import a Marian (OPUS-MT) model as a run folder of either Transformer twin.

Reads a model you have on disk, in either published layout, and writes an ordinary run folder
(config.json, model.keras, tokenizers/) that `translate`, `evaluate`, `export` (SavedModel and
CTranslate2) and `train --init-from` use unchanged:

  - a Hugging Face MarianMT directory: config.json, model.safetensors, source.spm, target.spm,
    vocab.json, tokenizer_config.json (read without torch);
  - an OPUS-MT release folder: the Marian .npz, its *.vocab.yml, source.spm, target.spm,
    decoder.yml.

Nothing is downloaded: fetch the model first (see docs/pretrained.md). OPUS-MT models are
CC-BY 4.0: keep their attribution with the model and its exports.

Examples:
    keras-nmt import opus-mt-es-en --output-dir runs/opus-es-en
    keras-nmt import opus-mt-es-en --output-dir runs/opus-es-en-sub --api subclassed
    keras-nmt translate runs/opus-es-en "¿Dónde está la estación?"
    keras-nmt import opus-mt-en-ROMANCE --output-dir runs/en-romance
    keras-nmt translate runs/en-romance --target-language spa "Where is the station?"
"""

import sys

from keras_nmt.workshop.arguments import new_parser
from keras_nmt.workshop.cli.common import (
    add_debug_flag,
    command,
    exit_status,
    start_tensorflow,
    writing_to,
)
from keras_nmt.workshop.cli.options import add_options
from keras_nmt.workshop.run.train_config import TrainConfig


def build_parser(prog=None):
    parser = new_parser(__doc__, prog)
    parser.add_argument("model_dir", metavar="PATH",
                        help="the Marian model's folder (Hugging Face MarianMT or OPUS-MT "
                        "release layout)")
    parser.add_argument("--output-dir", required=True,
                        help="the run folder to write (must not exist, unless --force)")
    add_options(parser, ["api", "languages"], TrainConfig())
    parser.add_argument("--force", action="store_true",
                        help="replace an existing --output-dir (once the new one is complete)")
    add_debug_flag(parser)
    return parser


@command
def main(argv=None, prog=None):
    parser = build_parser(prog)
    args = parser.parse_args(argv)
    start_tensorflow(args.debug)
    # After parsing: --help loads no TensorFlow.
    from keras_nmt.workshop.pretrained.marian_import import import_marian  # noqa: PLC0415

    with writing_to(args.output_dir):
        try:
            result = import_marian(args.model_dir, args.output_dir, api=args.api,
                                   force=args.force, languages=args.languages)
        except FileExistsError:
            raise FileExistsError(f"{args.output_dir} exists: add --force to replace it, or "
                                  "choose another --output-dir") from None
    languages = (f"languages {result.languages} (what `keras-nmt serve` offers)"
                 if result.languages else "no language pair stated: serve it as SRC:TGT=RUN, "
                 "or import again with --languages SRC,TGT")
    print(f"imported {args.model_dir} ({result.layout} layout) into {result.run_dir}: "
          f"{args.api} Transformer, {result.parameters:,} parameters, vocabularies "
          f"{len(result.source_order)} -> {len(result.target_order)}; {languages}")
    return 0


if __name__ == "__main__":
    sys.exit(exit_status(main()))
