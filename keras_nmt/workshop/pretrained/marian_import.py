"""Imports a Marian (OPUS-MT) model into either Transformer twin and writes a run folder.

The run folder is an ordinary one (`keras_nmt.workshop.run.run_folder.RunFolder`): `translate`,
`evaluate`, `export` and `train --init-from` use it unchanged. What the import does:

- Vocabulary: Marian's ids are reordered so that ours hold (`keras_nmt.special_ids`): id 0
  `<pad>`, 1 `<unk>`, 2 `<s>`, 3 `</s>`, then Marian's other pieces in Marian's order. Every
  vocabulary-sized weight (embeddings, logits bias) is permuted alike. Marian's decoder starts
  from its pad token's embedding (transformers' `decoder_start_token_id`); that row becomes our
  `START_ID` row, so decoding starts from `START_ID` as for our own models.
- The `<pad>` and `<s>` logits get a bias of -1e9: neither may be produced (transformers bans
  the pad token in `generate`; Marian and CTranslate2 have no such token).
- Weights: transformers' `(out, in)` matrices become Keras' `(in, out)` kernels, attention
  projections `(d_model, heads, head_dim)`.
- Model options: swish, LayerNorm epsilon 1e-5, sines-then-cosines positions, scaled
  embeddings, tied output with a bias, post-norm without a final norm
  (`TransformerFunctional`'s arguments).
"""

import dataclasses
import os
import re
from pathlib import Path

import numpy as np

from keras_nmt.models.registry import build_model
from keras_nmt.special_ids import RESERVED_TOKENS
from keras_nmt.workshop.atomic_file import write_json
from keras_nmt.workshop.marian_tokenizer import MarianTokenizer
from keras_nmt.workshop.owned_folder import FolderWriter, manifest
from keras_nmt.workshop.pretrained.marian_checkpoint import (
    NORM_EPSILON,
    MarianImportError,
    read_marian,
)
from keras_nmt.workshop.run.provenance import IMPORT_FILE, record_run_provenance
from keras_nmt.workshop.run.run_folder import (
    CONFIG_FILE,
    MODEL_FILE,
    RUN_FOLDER_NAMES,
    TOKENIZERS_DIR,
)
from keras_nmt.workshop.run.run_lifecycle import holds_a_run
from keras_nmt.workshop.run.train_config import FINE_TUNING_LEARNING_RATE, TrainConfig

BANNED_LOGIT = -1e9
# OPUS-MT's licence, unless the model's card states another (`license: ...`).
OPUS_MT_LICENCE = "CC-BY 4.0"
OPUS_MT_CREDIT = ("OPUS-MT, Helsinki-NLP (Tiedemann & Thottingal, 2020, \"OPUS-MT - Building "
                  "open translation services for the World\", EAMT 2020)")


@dataclasses.dataclass
class ImportResult:
    """What `import_marian` wrote.

    Attributes:
        run_dir: the run folder.
        layout: `"huggingface"` or `"opus-mt"`.
        source_order, target_order: Marian's id of each of our ids (`ours[i] = marian[order[i]]`).
        parameters: the model's parameter count.
        languages: the pair recorded in the run's config (`"es,en"`), or `None`.
    """

    run_dir: Path
    layout: str
    source_order: np.ndarray
    target_order: np.ndarray
    parameters: int
    languages: str | None


def marian_order(vocabulary_size, pad_id, unk_id, start_id, eos_id):
    """Marian's id of each of our ids: `[pad, unk, start, eos]`, then the rest in order.

    Example:
        >>> marian_order(6, pad_id=5, unk_id=1, start_id=5, eos_id=0).tolist()
        [5, 1, 5, 0, 2, 3, 4]
    """
    special = {pad_id, unk_id, start_id, eos_id}
    rest = [i for i in range(vocabulary_size) if i not in special]
    return np.array([pad_id, unk_id, start_id, eos_id, *rest], np.int64)


def import_marian(path, output_dir, api="functional", force=False, languages=None):
    """Reads a Marian model (either layout) and writes it as a run folder of one twin.

    The folder is made by `keras_nmt.workshop.owned_folder.FolderWriter`: written under a hidden
    partial name beside `output_dir`, under a lock (a second import into it is refused), and
    moved in when complete; a failure leaves nothing behind, and `force` replaces only the
    names an import or a run wrote, never a user's other files.

    Args:
        path: a Hugging Face MarianMT directory or an OPUS-MT release folder.
        output_dir: the run folder to write (must not exist unless `force`).
        api: `"functional"` or `"subclassed"`.
        force: replace an existing `output_dir`.
        languages: the pair `"SRC,TGT"` recorded for `keras-nmt serve` (default: the one the
            model states, `MarianCheckpoint.languages`).

    Returns:
        An `ImportResult`.

    Raises:
        MarianImportError: the model cannot be imported (the message names the file).
        FileExistsError: `output_dir` exists and `force` is False.
        FolderError: another import is writing `output_dir`, or it holds files that are not
            a run's.

    Example:
        >>> import_marian("opus-mt-es-en", "runs/opus-es-en")  # doctest: +SKIP
        >>> keras_nmt.open_translator("runs/opus-es-en").translate_texts(["Hola."])
    """
    output_dir = Path(output_dir)
    source = Path(path).resolve()
    if output_dir.resolve() in (source, *source.parents):  # --force would delete the model
        raise MarianImportError(f"{output_dir}: the --output-dir holds the model being imported "
                                f"({path}); choose another folder")
    # Made under the folder's lock (a second import, or a training, into the same folder is
    # refused at once, and a training started meanwhile is refused too); with
    # --force only an earlier import's or run's names are replaced (a user's notes.txt and
    # results/ are kept, as `train --fresh` keeps them).
    with FolderWriter(output_dir, force=force, known=RUN_FOLDER_NAMES,
                      refuse=_not_a_run) as writer:
        checkpoint = read_marian(path)
        source_order = marian_order(len(checkpoint.source_vocabulary), checkpoint.pad_id,
                                    checkpoint.unk_id, checkpoint.start_id, checkpoint.eos_id)
        target_order = marian_order(len(checkpoint.target_vocabulary), checkpoint.pad_id,
                                    checkpoint.unk_id, checkpoint.start_id, checkpoint.eos_id)
        source_tokenizer = _tokenizer(checkpoint.source_spm, checkpoint.source_vocabulary,
                                      source_order, append_end=True)
        target_tokenizer = _tokenizer(checkpoint.target_spm, checkpoint.target_vocabulary,
                                      target_order, append_end=False)
        options = model_options(checkpoint)
        model = build_model("transformer", api, len(source_order), len(target_order), options)
        if not model.built:
            model.build()
        set_marian_weights(model, checkpoint, source_order, target_order)

        # A Marian model with one embedding has one vocabulary (vocab.json) for both sides.
        config = TrainConfig(model="transformer", api=api, tokenizer="marian",
                             vocab_size=len(target_order), data="",
                             joint_vocabulary=checkpoint.shared_embeddings,
                             learning_rate=FINE_TUNING_LEARNING_RATE,
                             languages=languages or checkpoint.languages, **options)
        temporary = writer.partial
        config.output = str(output_dir)
        config.to_json(temporary / CONFIG_FILE)
        source_tokenizer.save(temporary / TOKENIZERS_DIR / "source")
        target_tokenizer.save(temporary / TOKENIZERS_DIR / "target")
        model.save(temporary / MODEL_FILE)
        attribution = import_attribution(path, checkpoint.layout)
        write_json(temporary / IMPORT_FILE, attribution, indent=2)
        # The fingerprints of the tokenizers just saved, and whom to credit: carried by
        # `train --init-from` and both exports, shown by `keras-nmt serve`.
        record_run_provenance(temporary, attribution, model)
        os.chmod(temporary, 0o755)
    return ImportResult(output_dir, checkpoint.layout, source_order, target_order,
                        model.count_params(), config.languages)


def _not_a_run(folder):
    """Why `import --force` may not replace `folder` (None when it may): it holds no run."""
    if manifest(folder) is not None or holds_a_run(folder) or not any(folder.iterdir()):
        return None
    # `--output-dir runs --force`, taking the flag for export's parent folder, deleted every
    # run in it.
    return "holds no run: --force replaces only an earlier import or run, never other files"


def import_attribution(path, layout):
    """What the import records of the model's origin (`IMPORT_FILE`, and the attribution of
    `provenance.json`): its name (the folder's), licence, source, credit and what changed."""
    source = Path(path).resolve()
    return {
        "name": source.name,
        "licence": _card_licence(source) or OPUS_MT_LICENCE,
        "source": str(source),
        "layout": layout,
        "credit": OPUS_MT_CREDIT,
        "changes": ["imported into keras_nmt (Marian weights as Keras weights, ids reordered)"],
        "note": "Keep this attribution with the model and anything made from it (fine-tuned "
                "runs, exports).",
    }


def _card_licence(folder):
    """The `license:` a model card (`README.md`) states, or None."""
    card = folder / "README.md"
    if not card.is_file():
        return None
    found = re.search(r"^\W*licen[cs]e\s*:\s*(\S.*)$", card.read_text(encoding="utf-8",
                      errors="replace"), re.MULTILINE | re.IGNORECASE)
    return found[1].strip() if found else None


def model_options(checkpoint):
    """The Transformer twins' arguments that reproduce `checkpoint`."""
    return {
        "num_layers": checkpoint.num_layers, "d_model": checkpoint.d_model,
        "num_heads": checkpoint.num_heads, "ff_dim": checkpoint.ff_dim,
        "dropout": checkpoint.dropout, "pre_norm": False,
        "shared_embeddings": checkpoint.shared_embeddings, "tied_output": True,
        "max_length": checkpoint.max_length, "activation": checkpoint.activation,
        "norm_epsilon": NORM_EPSILON, "position_layout": "halves", "scale_embeddings": True,
        "output_bias": True,
    }


def set_marian_weights(model, checkpoint, source_order, target_order):
    """Copies `checkpoint`'s weights into a built Transformer twin, rows permuted to our ids."""
    weights = checkpoint.weights
    untied = "lm_head.weight" in weights and not np.array_equal(
        weights["lm_head.weight"], weights["model.decoder.embed_tokens.weight"])
    if untied:
        raise MarianImportError(f"{checkpoint.path}: an output projection not tied to the "
                                "decoder embedding is not supported")
    if checkpoint.shared_embeddings:
        _assign(model.get_layer("shared_embedding").embeddings,
                weights["model.encoder.embed_tokens.weight"][source_order])
    else:
        _assign(model.get_layer("source_embedding").embeddings,
                weights["model.encoder.embed_tokens.weight"][source_order])
        _assign(model.get_layer("target_embedding").embeddings,
                weights["model.decoder.embed_tokens.weight"][target_order])
    bias = weights["final_logits_bias"].reshape(-1)[target_order].copy()
    bias[[0, 2]] = BANNED_LOGIT  # <pad>, <s>: never produced
    _assign(model.get_layer("output_bias").bias, bias)
    for side in ("encoder", "decoder"):
        for i in range(checkpoint.num_layers):
            block = model.get_layer(f"{side}_block_{i}")
            prefix = f"model.{side}.layers.{i}."
            _set_attention(block.self_attention, weights, prefix + "self_attn")
            _set_norm(block.self_attention_norm, weights, prefix + "self_attn_layer_norm")
            if side == "decoder":
                _set_attention(block.cross_attention, weights, prefix + "encoder_attn")
                _set_norm(block.cross_attention_norm, weights, prefix + "encoder_attn_layer_norm")
            _set_dense(block.ffn_inner, weights, prefix + "fc1")
            _set_dense(block.ffn_outer, weights, prefix + "fc2")
            _set_norm(block.ffn_norm, weights, prefix + "final_layer_norm")


def _tokenizer(model_proto, vocabulary, order, append_end):
    pieces = list(RESERVED_TOKENS) + [vocabulary[i] for i in order[len(RESERVED_TOKENS):]]
    return MarianTokenizer.from_pieces(model_proto, pieces, append_end=append_end)


def _assign(variable, value):
    value = np.asarray(value, np.float32)
    if tuple(variable.shape) != value.shape:
        raise MarianImportError(f"weight {variable.path}: shape {tuple(variable.shape)} in the "
                                f"model, {value.shape} in the checkpoint")
    variable.assign(value.reshape(variable.shape))


def _set_attention(attention, weights, prefix):
    """transformers' q/k/v/out projections into our `MultiHeadAttention` (`layers/attention.py`)."""
    heads, head_dim = attention.num_heads, attention.key_dim
    for name, dense in (("q", attention.query_dense), ("k", attention.key_dense),
                        ("v", attention.value_dense)):
        kernel = weights[f"{prefix}.{name}_proj.weight"].T  # (d_model, heads * head_dim)
        _assign(dense.kernel, kernel.reshape(-1, heads, head_dim))
        _assign(dense.bias, weights[f"{prefix}.{name}_proj.bias"].reshape(heads, head_dim))
    kernel = weights[f"{prefix}.out_proj.weight"].T  # (heads * head_dim, d_model)
    _assign(attention.output_dense.kernel, kernel.reshape(heads, head_dim, -1))
    _assign(attention.output_dense.bias, weights[f"{prefix}.out_proj.bias"])


def _set_dense(dense, weights, prefix):
    _assign(dense.kernel, weights[f"{prefix}.weight"].T)
    _assign(dense.bias, weights[f"{prefix}.bias"])


def _set_norm(norm, weights, prefix):
    _assign(norm.gamma, weights[f"{prefix}.weight"])
    _assign(norm.beta, weights[f"{prefix}.bias"])
