"""Every option of a training run, as saved in `RUN_FOLDER/config.json`."""

import dataclasses
import json
import re
from pathlib import Path

from keras_nmt.models.model_options import ModelOptions
from keras_nmt.models.registry import ALIGNED_MODEL_NAMES, APIS, MODEL_NAMES
from keras_nmt.option_fields import option
from keras_nmt.special_ids import SUBWORD_MODELS, TOKENIZER_KINDS
from keras_nmt.training.teacher_forcing_values import SCHEDULE_DEFAULTS, check_schedule
from keras_nmt.workshop.atomic_file import write_json
from keras_nmt.workshop.configurations import REFERENCE_CONFIGURATIONS, reference_configuration

# The learning rate of a run started from another's weights (`init_from`), constant: the
# from-scratch warm-up schedule peaks near 1e-3 and wrecks a pretrained model (transformers'
# Marian fine-tuning examples use 2e-5 to 5e-5).
FINE_TUNING_LEARNING_RATE = 5e-5
# Keras dtype policies a run may ask for; `auto` is resolved by `precision.py`.
PRECISIONS = ("auto", "float32", "mixed_bfloat16", "mixed_float16")

# The options of a reference configuration that are not its models': data, tokens, lengths,
# budget. `keras-nmt train --configuration NAME/MODEL` and the comparison of that name share them.
REFERENCE_DEFAULTS = {
    "spa-eng": {
        "source_column": 1,
        "tokenizer": "subword",
        "vocab_size": 8000,
        "max_length": 64,
        "epochs": 1000,
        "time_budget": 45.0,
    },
}


def teacher_forcing_values(text):
    """`(kind, k, floor)` of a `--teacher-forcing` value `KIND[:K[:FLOOR]]`, checked.

    Example:
        >>> teacher_forcing_values("linear:1e-4:0.25")
        ('linear', 0.0001, 0.25)
    """
    kind, *numbers = text.split(":")
    if len(numbers) > 2:
        raise ValueError("expected KIND[:K[:FLOOR]]")
    try:
        values = [float(number) for number in numbers]
    except ValueError:
        raise ValueError("k and floor must be numbers (KIND[:K[:FLOOR]])") from None
    k, floor = values + [SCHEDULE_DEFAULTS.get(kind, 1.0), 0.0][len(values):]
    check_schedule(kind, k, floor)
    return kind, k, floor


def configuration_names():
    """`NAME/MODEL` of every trainable reference configuration, e.g. ``spa-eng/transformer``."""
    return tuple(f"{name}/{model}" for name in REFERENCE_DEFAULTS
                 for model in REFERENCE_CONFIGURATIONS[name])


def configuration_fields(configuration):
    """The `TrainConfig` fields of reference configuration ``NAME/MODEL``: the model, the data
    and budget options of NAME (`REFERENCE_DEFAULTS`) and the model's reference configuration.

    Example:
        >>> configuration_fields("spa-eng/transformer")["d_model"]
        256
    """
    name, _, model = configuration.partition("/")
    if name not in REFERENCE_DEFAULTS:
        raise ValueError(f"unknown reference configuration {configuration!r}; choose from "
                         f"{', '.join(configuration_names())}")
    return {"model": model, **REFERENCE_DEFAULTS[name], **reference_configuration(name, model)}


# A language code as LibreTranslate clients send it: ISO 639 letters, an optional region or
# script after a hyphen (en, es, zh-Hant, pt-BR).
LANGUAGE_CODE = r"[a-z]{2,3}(?:-[A-Za-z0-9]{2,8})?"


def check_language_pair(text):
    """`ValueError` unless `text` is two language codes `SOURCE,TARGET` (e.g. `es,en`)."""
    codes = text.split(",")
    if len(codes) != 2 or not all(re.fullmatch(LANGUAGE_CODE, code) for code in codes):
        raise ValueError("must be two language codes SOURCE,TARGET such as es,en")


def _named_folder(path):
    """`ValueError` for a blank run folder: `""` is the current one, whatever it holds."""
    if not str(path).strip():
        raise ValueError("an empty value names nothing; give a folder")


@dataclasses.dataclass
class TrainConfig(ModelOptions):
    """Options of `keras_nmt.workshop.run.trainer.train` (and the flags of `keras-nmt train`).

    The model options (sizes, attention...) and their defaults are the fields of `ModelOptions`
    (first in `config.json`); options that do not apply to the chosen model are ignored (which
    model takes which: `keras_nmt.workshop.configurations.MODEL_ARGUMENTS`).
    """

    # model (its options: `ModelOptions`)
    model: str = option("lstm", "architecture: LSTM encoder-decoder (Sutskever 2014), LSTM + "
                        "Luong attention (2015), LSTM + Bahdanau attention (2014), Transformer "
                        "(Vaswani 2017), convolutional ConvS2S (Gehring 2017); ctc: an aligned "
                        "model labelling each input position (Graves 2006; for spelling)",
                        choices=(*MODEL_NAMES, *ALIGNED_MODEL_NAMES))
    api: str = option("functional", "which twin: the functional graph or the subclassed step "
                      "loop (ctc has one class)", choices=APIS)
    # text and data
    tokenizer: str = option("char", "token level of both sides (marian: an imported Marian "
                            "model's own, which --init-from keeps)",
                            choices=(*TOKENIZER_KINDS, "marian"))
    vocab_size: int = option(8000, "word/subword vocabulary size", at_least=1)
    joint_vocabulary: bool = option(False, "one vocabulary built on the source and target "
                                    "texts together, used by both sides (what "
                                    "--shared-embeddings needs)")
    subword_model: str = option("unigram", "subword: SentencePiece's unigram language model "
                                "(Kudo 2018) or byte-pair encoding (Sennrich et al. 2016)",
                                choices=SUBWORD_MODELS)
    character_coverage: float = option(1.0, "subword: the share of the characters the pieces "
                                       "cover; the rarest others become unknown (SentencePiece "
                                       "suggests 0.9995 for large character sets, e.g. "
                                       "Chinese or Japanese)", above=0, at_most=1)
    sentencepiece_model: str | None = option(
        None, "subword: a SentencePiece model of your own instead of one trained here (FILE for "
        "both sides, SOURCE_FILE,TARGET_FILE for two); its first pieces must be <pad> <unk> <s> "
        "</s> (spm_train --pad_id=0 --unk_id=1 --bos_id=2 --eos_id=3)", metavar="FILE[,FILE]")
    lowercase: bool = option(False, "lower-case all text")
    languages: str | None = option(
        None, "the language pair as codes (e.g. es,en), stored in the run's config.json: "
        "`keras-nmt serve` offers the model to LibreTranslate clients under it",
        check=check_language_pair, metavar="SRC,TGT")
    data: str = option("dates", "built-in dataset name ('dates'), a corpus file (TSV, "
                       ".gz/.xz/.zip), a path with {split} (e.g. "
                       "../shared/data/spa-eng.{split}.tsv) or SOURCE_FILE,TARGET_FILE")
    valid: str | None = option(None, "validation file (default: the {split} file, the built-in "
                               "split, or a seeded hold-out of --data)")
    source_column: int = option(0, "which TSV column is the source; the default reads "
                                "'source<TAB>target'. Tatoeba files are 'English<TAB>other': 1 "
                                "translates other->English (the spa-eng recipes say so)",
                                at_least=0)
    target_column: int | None = option(None, "which TSV column is the target, for files with "
                                       "more columns (default: the other one of columns 0 and "
                                       "1)", at_least=0)
    accept_data: bool = option(False, "use the data as it is, although it looks wrong: a first "
                               "line that reads as column names (source<TAB>target) is trained "
                               "on as a pair, and a validation file that looks reversed or in "
                               "another language or script, or a vocabulary that leaves most "
                               "tokens unknown, is not refused (default: skip such a header with "
                               "a warning, refuse the rest)")
    skip_bad_lines: bool = option(False, "skip (and count) malformed corpus lines instead of "
                                  "stopping at the first one; the first few are reported as "
                                  "FILE:LINE")
    max_bad_fraction: float = option(0.01, "with --skip-bad-lines, fail when more than this "
                                     "fraction of the lines is malformed", at_least=0, below=1)
    train_size: int | None = option(None, "training pairs: the built-in dataset generates N; a "
                                    "corpus file is cut to a seeded sample of N (default: all; "
                                    "built-in: 20,000)", at_least=1, metavar="N")
    valid_size: int | None = option(None, "validation pairs: generated, held out of a single "
                                    "file, or a seeded sample of the validation file (default: "
                                    "all; built-in: 1,000; a single file: 5%% of it, at most "
                                    "2,000)", at_least=1, metavar="N")
    # optimisation
    epochs: int = option(10, "training epochs", at_least=1)
    steps_per_epoch: int | None = option(None, "batches per epoch (default: one pass over the "
                                         "training data)", at_least=1)
    batch_size: int = option(64, "pairs per batch", at_least=1)
    batch_tokens: int | None = option(None, "instead of --batch-size: length-bucketed batches "
                                      "of as many pairs as keep the padded source + target "
                                      "tokens <= N (fairseq --max-tokens), e.g. 4096; "
                                      "validation keeps --batch-size", at_least=1, metavar="N")
    learning_rate: float = option(1e-3, "Adam learning rate of the recurrent and ConvS2S "
                                  "models", above=0)
    warmup_steps: int = option(4000, "Transformer warm-up steps of the inverse-square-root "
                               "schedule", at_least=1)
    clipnorm: float | None = option(1.0, "gradient norm clipping", above=0)
    label_smoothing: float = option(0.0, "label smoothing epsilon", at_least=0, below=1)
    teacher_forcing: str = option("constant:1.0", "scheduled sampling (Bengio 2015), "
                                  "subclassed twins only: KIND[:K[:FLOOR]] with KIND "
                                  "constant|linear|exponential|inverse_sigmoid, e.g. "
                                  "inverse_sigmoid:300; constant:1.0 is plain teacher forcing",
                                  check=teacher_forcing_values)
    patience: int | None = option(None, "early stopping on validation BLEU after this many "
                                  "epochs without improvement, ending with the best epoch's "
                                  "weights; not with --average-checkpoints (default: off)",
                                  at_least=1)
    run_eagerly: bool = option(False, "run the training step eagerly (debugging; slow)")
    jit_compile: bool = option(False, "compile with XLA")
    precision: str = option("auto", "Keras dtype policy; logits and softmax stay float32. "
                            "auto: mixed_float16 on a GPU; on a CPU mixed_bfloat16 where it is "
                            "faster (see docs/decisions.md), else float32; the choice and why "
                            "are printed and kept for a resumed run", choices=PRECISIONS)
    time_budget: float | None = option(None, "minutes of the run (resumptions included): "
                                       "training stops at the end of the batch during which "
                                       "they run out (not the end of the epoch), then validates "
                                       "that cut epoch once; the weights of that moment are "
                                       "also kept in budget.weights.h5 (where: budget.json)",
                                       above=0, metavar="MINUTES")
    # The final model is the mean of this many weights kept every `average_every` optimizer
    # steps, the last included (`CheckpointAverage`); 1: the weights as trained.
    average_checkpoints: int = option(1, "end with the mean of K weights: the last ones and K-1 "
                                      "kept every --average-every optimizer steps (checkpoint "
                                      "averaging, Vaswani et al. 2017); validation then scores "
                                      "the mean (val_bleu) and the last weights "
                                      "(val_last_bleu); 1: no averaging", at_least=1,
                                      metavar="K")
    average_every: int = option(200, "optimizer steps between the weights kept for "
                                "--average-checkpoints", at_least=1, metavar="N")
    distribution: str = option("default", "tf.distribute: one device, MirroredStrategy over this "
                               "machine's GPUs (or logical CPUs), or "
                               "MultiWorkerMirroredStrategy from TF_CONFIG (run the same command "
                               "on every worker, each with its own --output-dir); the batch size "
                               "is the global batch, split across replicas",
                               choices=("default", "mirrored", "multi-worker"))
    # run
    init_from: str | None = option(None, "fine-tune: start from this run folder's weights, "
                                   "tokenizers and architecture (an imported OPUS-MT model or "
                                   "any run); the learning rate is then constant (default 5e-5)",
                                   metavar="RUN")
    seed: int = option(0, "seed for data order, initial weights and dropout: same seed, same "
                       "result", at_least=0)
    output: str = option("runs/default", "run folder (default: runs/MODEL-API); re-running the "
                         "same command resumes exactly from its backup, or does nothing once "
                         "finished; other options are refused", "--output-dir",
                         metavar="DIR", check=_named_folder)
    backup_every: int = option(200, "batches between backups of weights and optimizer",
                               at_least=1)
    validation_sentences: int = option(500, "validation sentences translated after each epoch "
                                       "for val_bleu etc.", at_least=1)
    samples: int = option(5, "sample translations printed after each epoch", at_least=0)
    verbose: int = option(1, "Keras progress: 0 silent, 1 a live progress bar, 2 one line per "
                          "epoch (default: 1 on a terminal, 2 when the output is a file or a "
                          "pipe)", choices=(0, 1, 2))

    def __post_init__(self):
        super().__post_init__()
        own_model = self.sentencepiece_model is not None
        if self.shared_embeddings and not (self.joint_vocabulary or self.init_from or own_model):
            raise ValueError(
                "--shared-embeddings shares one embedding between the source and target "
                "vocabularies: add --joint-vocabulary to build one vocabulary for both sides")
        defaults = {field.name: field.default for field in dataclasses.fields(self)}
        trained_here = ("subword_model", "character_coverage")
        if self.tokenizer != "subword":
            for name in (*trained_here, "sentencepiece_model"):
                if getattr(self, name) != defaults[name]:
                    raise ValueError(f"--{name.replace('_', '-')} applies to --tokenizer "
                                     f"subword, not {self.tokenizer}")
        elif own_model:
            if len(self.sentencepiece_model.split(",")) > 2:
                raise ValueError(f"--sentencepiece-model {self.sentencepiece_model}: one FILE "
                                 "for both sides or SOURCE_FILE,TARGET_FILE")
            for name in (*trained_here, "vocab_size", "joint_vocabulary"):
                if getattr(self, name) != defaults[name]:
                    raise ValueError(f"--{name.replace('_', '-')} does not combine with "
                                     "--sentencepiece-model: that model is used as it is")
        if self.model in ALIGNED_MODEL_NAMES:
            aligned = {
                "api": "it has one class, not twins (keras_nmt/models/ctc/ctc_model.py says why)",
                "teacher_forcing": "it has no decoder to feed",
                "label_smoothing": "its loss sums over alignments, not over one softmax per "
                                   "target token",
            }
            for name, why in aligned.items():
                if getattr(self, name) != defaults[name]:
                    raise ValueError(f"--{name.replace('_', '-')} {getattr(self, name)}: "
                                     f"--model {self.model} does not read it: {why}")
        # Early stopping restores the best epoch's weights as trained; the average would then
        # replace them, so the saved model would be neither the best epoch's nor the average.
        if self.patience is not None and self.average_checkpoints > 1:
            raise ValueError(
                "--patience and --average-checkpoints do not combine: early stopping keeps the "
                "best epoch's weights as trained, checkpoint averaging ends with a mean of the "
                "last ones; choose one"
            )

    @classmethod
    def from_configuration(cls, configuration, **options):
        """The `TrainConfig` of reference configuration ``NAME/MODEL``, with `options` on top
        (its fields: `configuration_fields`).

        Example:
            >>> config = TrainConfig.from_configuration("spa-eng/transformer", data="x.{split}.tsv")
            >>> config.d_model
            256
        """
        return cls(**{**configuration_fields(configuration), **options})

    def to_json(self, path):
        """Writes the options to `path` atomically (never a half-written file)."""
        write_json(path, dataclasses.asdict(self), indent=2)

    @classmethod
    def from_json(cls, path):
        values = json.loads(Path(path).read_text())
        known = {field.name for field in dataclasses.fields(cls)}
        return cls(**{key: value for key, value in values.items() if key in known})
