"""A trained Transformer run as a CTranslate2 model directory (strings in, strings out).

CTranslate2 (https://opennmt.net/CTranslate2) is a C++ inference engine for Transformers; it
decodes our models several times faster than TensorFlow on a CPU (docs/results). The converter
fills CTranslate2's model specification (`ctranslate2.specs.TransformerSpec`) weight by weight
from the Keras layers, by layer name:

    source_embedding / shared_embedding    encoder.embeddings (times sqrt(d_model) in both)
    target_embedding                       decoder.embeddings
    our sinusoid table (either layout)     encoder/decoder.position_encodings, given explicitly
    encoder_block_{i}.self_attention       encoder.layer[i].self_attention (q, k, v fused)
    decoder_block_{i}.cross_attention      decoder.layer[i].attention (q; k, v fused)
    *.self_attention_norm, *_norm          the sub-layer's layer_norm (epsilon 1e-6), before it
                                           (pre-norm) or after the residual sum (post-norm)
    ffn_inner, ffn_outer                   ffn.linear_0, ffn.linear_1
    encoder/decoder_final_norm (pre-norm)  encoder/decoder.layer_norm
    output_projection, or the target       decoder.projection
    embedding with tied_output (and the
    output_bias layer as its bias)
    activation, scale_embeddings           the encoder's and decoder's activation (relu, swish,
                                           gelu) and scale_embeddings

Token ids map to vocabulary strings through the tokenizers' own vocabularies: ids 0..3 are
`<pad>`, `<unk>`, `<s>`, `</s>` (`keras_nmt.special_ids`), CTranslate2's names for unknown, start
and end, so a decoder starts from `<s>` as ours does from `START_ID`.

Layout of the directory written:

    model.bin, config.json                 CTranslate2's model (weights quantized as asked)
    shared_vocabulary.json, or source_vocabulary.json and target_vocabulary.json
    tokenizers/source/, tokenizers/target/ the run's tokenizers (`load_run_tokenizer`)
    keras_nmt_ctranslate2.json             metadata: model name, length limits, quantization,
                                           data columns
                                           (`keras_nmt.workshop.translators.open_translator`
                                           recognizes the directory by this file)
    data.json                              the run's data fingerprints and profile
    provenance.json                        its languages, tokenizers' fingerprints,
                                           attribution (`keras_nmt.workshop.run.provenance`)
                                           and the SHA-256 of each of CTranslate2's files
                                           (`engine_files`: model.bin...), checked on opening

Example:
    >>> export_ctranslate2("runs/transformer", "exports/transformer-int8", quantization="int8")
    >>> translator = keras_nmt.workshop.translators.open_translator("exports/transformer-int8")
    >>> translator.translate_texts(["Hola."])
"""

import errno
import os
import shutil
from pathlib import Path

import numpy as np

from keras_nmt.workshop.atomic_file import write_json
from keras_nmt.workshop.interruption import deferred
from keras_nmt.workshop.owned_folder import FolderWriter, manifest
from keras_nmt.workshop.run.provenance import (
    PROVENANCE_FILE,
    file_digests,
    run_provenance,
    tokenizer_record,
)
from keras_nmt.workshop.run.run_folder import (
    CONFIG_FILE,
    DATA_FILE,
    TOKENIZERS_DIR,
    RunFolder,
    read_run_config,
    run_columns,
)
from keras_nmt.workshop.translators.ctranslate2_translator import (
    METADATA_FILE,
    is_ctranslate2_export,
)
from keras_nmt.workshop.translators.formats import QUANTIZATIONS, check_ctranslate2_model

# Fields of config.json copied into the metadata (the data a model was trained on).
_CONFIG_FIELDS = ("source_column", "target_column", "data", "tokenizer", "max_length")


def _numpy(variable):
    return np.asarray(variable.numpy() if hasattr(variable, "numpy") else variable, np.float32)


def _set_linear(spec, kernel, bias=None):
    """A Keras kernel `(in, out)` (or `(in, heads, head_dim)`) as CTranslate2's `(out, in)`."""
    kernel = _numpy(kernel)
    spec.weight = kernel.reshape(kernel.shape[0], -1).T.copy()
    if bias is not None:
        spec.bias = _numpy(bias).reshape(-1)


def _set_dense(spec, dense):
    _set_linear(spec, dense.kernel, dense.bias)


def _set_layer_norm(spec, norm):
    spec.gamma = _numpy(norm.gamma)
    spec.beta = _numpy(norm.beta)


def _set_attention(spec, attention, norm, self_attention):
    """Query, key and value projections (fused as CTranslate2 wants), output and layer norm."""
    # Optional heavy dependency, imported where used (see export_ctranslate2).
    from ctranslate2.converters import utils
    from ctranslate2.specs import common_spec

    parts = []
    for dense in (attention.query_dense, attention.key_dense, attention.value_dense):
        part = common_spec.LinearSpec()
        _set_dense(part, dense)
        parts.append(part)
    if self_attention:
        utils.fuse_linear(spec.linear[0], parts)
    else:
        utils.fuse_linear(spec.linear[0], parts[:1])
        utils.fuse_linear(spec.linear[1], parts[1:])
    output = attention.output_dense
    # (heads, head_dim, d_model) -> (d_model, d_model), as any other kernel.
    kernel = _numpy(output.kernel)
    _set_linear(spec.linear[-1], kernel.reshape(-1, kernel.shape[-1]), output.bias)
    _set_layer_norm(spec.layer_norm, norm)


def _set_ffn(spec, block):
    _set_dense(spec.linear_0, block.ffn_inner)
    _set_dense(spec.linear_1, block.ffn_outer)
    _set_layer_norm(spec.layer_norm, block.ffn_norm)


def transformer_spec(model, source_vocabulary, target_vocabulary):
    """The `ctranslate2.specs.TransformerSpec` of one of our Transformers, weights filled in.

    Args:
        model: a `TransformerFunctional` or `TransformerSubclassed` (built).
        source_vocabulary, target_vocabulary: the token strings of ids `0..vocab_size - 1`.

    Returns:
        The spec, validated (not yet quantized or saved).
    """
    # Optional heavy dependency, imported where used (see export_ctranslate2).
    from ctranslate2.specs import transformer_spec as ct2
    from ctranslate2.specs.common_spec import Activation

    activations = {"relu": Activation.RELU, "swish": Activation.SWISH, "gelu": Activation.GELU}
    if model.activation not in activations:
        raise ValueError(f"CTranslate2 has no {model.activation!r} feed-forward activation")
    layers = model.num_layers
    architecture = {"pre_norm": model.pre_norm, "activation": activations[model.activation]}
    encoder = ct2.TransformerEncoderSpec(layers, model.num_heads, **architecture)
    decoder = ct2.TransformerDecoderSpec(layers, model.num_heads, **architecture)
    encoder.scale_embeddings = decoder.scale_embeddings = bool(model.scale_embeddings)
    spec = ct2.TransformerSpec(encoder, decoder)
    # One epsilon for the whole model in CTranslate2, as in ours (`norm_epsilon`).
    spec.config.layer_norm_epsilon = float(
        model.get_layer("encoder_block_0").self_attention_norm.epsilon)
    # Our sources carry no <s> or </s>; the decoder starts from <s> (START_ID), CTranslate2's
    # default decoder_start_token.
    spec.config.add_source_bos = False
    spec.config.add_source_eos = False

    if model.shared_embeddings:
        source_embedding = target_embedding = model.get_layer("shared_embedding")
    else:
        source_embedding = model.get_layer("source_embedding")
        target_embedding = model.get_layer("target_embedding")
    encoder.embeddings[0].weight = _numpy(source_embedding.embeddings)
    encoder.position_encodings.encodings = _position_table(source_embedding)
    decoder.embeddings.weight = _numpy(target_embedding.embeddings)
    decoder.position_encodings.encodings = _position_table(target_embedding)

    for i, layer_spec in enumerate(encoder.layer):
        block = model.get_layer(f"encoder_block_{i}")
        _set_attention(layer_spec.self_attention, block.self_attention,
                       block.self_attention_norm, self_attention=True)
        _set_ffn(layer_spec.ffn, block)
    for i, layer_spec in enumerate(decoder.layer):
        block = model.get_layer(f"decoder_block_{i}")
        _set_attention(layer_spec.self_attention, block.self_attention,
                       block.self_attention_norm, self_attention=True)
        _set_attention(layer_spec.attention, block.cross_attention,
                       block.cross_attention_norm, self_attention=False)
        _set_ffn(layer_spec.ffn, block)
    if model.pre_norm:
        _set_layer_norm(encoder.layer_norm, model.get_layer("encoder_final_norm"))
        _set_layer_norm(decoder.layer_norm, model.get_layer("decoder_final_norm"))
    if model.tied_output:
        decoder.projection.weight = _numpy(target_embedding.embeddings)
        if model.output_bias:
            decoder.projection.bias = _numpy(model.get_layer("output_bias").bias)
    else:
        _set_dense(decoder.projection, model.get_layer("output_projection"))

    spec.register_source_vocabulary(list(source_vocabulary))
    spec.register_target_vocabulary(list(target_vocabulary))
    spec.validate()
    return spec


def _position_table(embedding):
    # Ours interleaves sin and cos (dimensions 2i, 2i+1) by default; CTranslate2 would otherwise
    # build its own table (sin and cos in two halves), so it gets ours, whatever its layout.
    return np.asarray(embedding._position_table, np.float32)


def _copy_tree(source, destination, output_dir):
    """`shutil.copytree`, whose error lists every file that failed (hundreds of characters on a
    full disk) as one `OSError` naming `output_dir` and the first reason."""
    try:
        shutil.copytree(source, destination)
    except shutil.Error as error:
        reason = str(error.args[0][0][2]) if error.args and error.args[0] else str(error)
        code = errno.ENOSPC if "No space left" in reason else errno.EIO
        raise OSError(code, os.strerror(code), str(output_dir)) from error


def export_ctranslate2(run_dir, output_dir, quantization="float32", force=False):
    """Converts a Transformer run folder into a CTranslate2 model directory, atomically.

    The directory is made by `keras_nmt.workshop.owned_folder.FolderWriter`: written under a hidden
    partial name beside `output_dir` (``.NAME.partial-OWNER-*``) and moved into place when
    complete, under a lock held from the start, so that two exports to one name never both
    succeed (the second is refused at once); the partial is removed on failure, the next export
    removes those of killed exports, and `force` replaces only what an export wrote.

    Args:
        run_dir: a run folder of a Transformer (either twin, any of `pre_norm`,
            `tied_output`, `shared_embeddings`).
        output_dir: the directory to write (must not exist unless `force`).
        quantization: the weights' type, one of `QUANTIZATIONS` (CTranslate2's names; `int8`
            keeps float32 activations on a CPU). A CPU without the type's kernels decodes with
            the closest one it has.
        force: replace an existing `output_dir`.

    Returns:
        The `Path` of `output_dir`.

    Raises:
        ValueError: not a Transformer (CTranslate2 has no recurrent or convolutional models:
            `check_ctranslate2_model`), or an unknown quantization.
        FileExistsError: `output_dir` exists and `force` is False.
        FolderError: another export is writing `output_dir`, or it holds files that are not
            an export's.
    """
    run_dir, output_dir = Path(run_dir), Path(output_dir)
    if quantization not in QUANTIZATIONS:
        raise ValueError(f"quantization must be one of {', '.join(QUANTIZATIONS)}, "
                         f"got {quantization!r}")
    if (run_dir / CONFIG_FILE).is_file():  # before anything loads (else RunFolder says)
        check_ctranslate2_model(read_run_config(run_dir / CONFIG_FILE).get("model"), run_dir)
    # Imported here, not at the top: CTranslate2 is an optional extra
    # (`pip install keras_nmt[ctranslate2]`) that nothing else needs.
    import ctranslate2  # noqa: F401  (fails early with ModuleNotFoundError when absent)

    # Made under a lock (a second export to one name is refused at once); `force` replaces
    # only the names an export wrote, never a user's other files (`workshop.owned_folder`).
    with FolderWriter(output_dir, force=force, flag="--output-dir or --name",
                      known=(METADATA_FILE, *EXPORT_NAMES), refuse=_not_an_export) as writer:
        _write_export(run_dir, output_dir, writer.partial, quantization)
    return output_dir


# What an export writes beside CTranslate2's own files (read in folders written before
# manifests, whose names count as an export's).
EXPORT_NAMES = ("model.bin", "config.json", "shared_vocabulary.json", "source_vocabulary.json",
                "target_vocabulary.json", "shared_vocabulary.txt", "source_vocabulary.txt",
                "target_vocabulary.txt", TOKENIZERS_DIR, PROVENANCE_FILE, DATA_FILE)


def _not_an_export(folder):
    """Why `force` may not replace `folder` (None when it may)."""
    if manifest(folder) is not None or is_ctranslate2_export(folder) or not any(
            folder.iterdir()):
        return None
    return (f"is not a CTranslate2 export (it has no {METADATA_FILE}): --force replaces only an "
            "earlier export, never other files")


def _write_export(run_dir, output_dir, temporary, quantization):
    """Converts the run in `run_dir` into the folder `temporary` (to become `output_dir`)."""
    run = RunFolder.load(run_dir)
    name = getattr(run.model, "model_name", type(run.model).__name__)
    check_ctranslate2_model(name, run_dir)
    spec = transformer_spec(
        run.model, run.source_tokenizer.vocabulary, run.target_tokenizer.vocabulary
    )
    with deferred():
        spec.optimize(quantization=quantization)

    # The length limits of the run folder's own Translator.
    limits = run.translator(max_beam_size=1)
    metadata = {
        "format": "ctranslate2",
        "model": name,
        "run": run_dir.resolve().name,
        "quantization": quantization,
        "max_source_length": limits.max_source_length,
        "max_target_length": limits.max_target_length,
        "pre_norm": bool(run.model.pre_norm),
        "tied_output": bool(run.model.tied_output),
        "activation": run.model.activation,
        "shared_embeddings": bool(run.model.shared_embeddings),
        **{k: run.config[k] for k in _CONFIG_FIELDS if run.config.get(k) is not None},
    }
    metadata["source_column"], metadata["target_column"] = run_columns(run.config)
    with deferred():  # a signal raised inside the converter's native code killed Python
        spec.save(str(temporary))
    written = file_digests(temporary)  # CTranslate2's files alone: model.bin, vocabularies
    _copy_tree(run_dir / TOKENIZERS_DIR, temporary / TOKENIZERS_DIR, output_dir)
    write_json(temporary / METADATA_FILE, metadata, indent=2)
    # Its languages and attribution travel with it; the fingerprints of the tokenizers it
    # carries (the run's record, checked as the run loaded; a run older than its record has
    # none: the export binds what it copied) and the SHA-256 of `model.bin`, checked whenever
    # the export is opened.
    copied = temporary / TOKENIZERS_DIR
    write_json(temporary / PROVENANCE_FILE, {
        **run_provenance(run_dir, run.config), **tokenizer_record(copied),
        "engine_files": written}, indent=2)
    if (run_dir / DATA_FILE).is_file():  # the run's data fingerprints and profile
        shutil.copyfile(run_dir / DATA_FILE, temporary / DATA_FILE)
    for root, _, files in os.walk(temporary):  # readable to a server
        os.chmod(root, 0o755)
        for file in files:
            os.chmod(os.path.join(root, file), 0o644)
