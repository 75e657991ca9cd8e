"""Writes an OPUS-MT release folder (Marian's `.npz` layout) from a Hugging Face MarianMT dir.

The inverse of transformers' `convert_marian_to_pytorch.py`, in NumPy: the `.npz` keeps Marian's
names (`encoder_l1_self_Wq`, ...), `(in, out)` matrices, `(1, n)` biases and gains, no `<pad>`
row, and its options as the byte array `special:model.yml`.
"""

import json
import shutil
from pathlib import Path

import numpy as np
import yaml

from keras_nmt.workshop.pretrained.safetensors_file import read_safetensors

_ATTENTION = {"self": "self_attn", "context": "encoder_attn"}


def write_opus_folder(hf_dir, output_dir, **option_changes):
    """Writes `output_dir` (model.npz, opus.spm.vocab.yml, source.spm, target.spm, decoder.yml).

    Args:
        hf_dir: a Hugging Face MarianMT directory with shared embeddings.
        output_dir: the folder to write.
        **option_changes: entries of `special:model.yml` to change (`transformer_preprocess="n"`
            for a pre-norm variant...), underscores for dashes.
    """
    hf_dir, output_dir = Path(hf_dir), Path(output_dir)
    output_dir.mkdir(parents=True, exist_ok=True)
    config = json.loads((hf_dir / "config.json").read_text())
    weights = read_safetensors(hf_dir / "model.safetensors")
    arrays = {"Wemb": weights["model.shared.weight"][:-1],
              "decoder_ff_logit_out_b": weights["final_logits_bias"][:, :-1]}
    for side, attentions in (("encoder", ("self",)), ("decoder", ("self", "context"))):
        for i in range(config[f"{side}_layers"]):
            hf = f"model.{side}.layers.{i}."
            marian = f"{side}_l{i + 1}_"
            for short in attentions:
                long = _ATTENTION[short]
                for letter, projection in (("q", "q"), ("k", "k"), ("v", "v"), ("o", "out")):
                    linear = f"{hf}{long}.{projection}_proj"
                    arrays[f"{marian}{short}_W{letter}"] = weights[f"{linear}.weight"].T
                    arrays[f"{marian}{short}_b{letter}"] = weights[f"{linear}.bias"][None]
                norm = f"{hf}{long}_layer_norm"
                arrays[f"{marian}{short}_Wo_ln_scale"] = weights[f"{norm}.weight"][None]
                arrays[f"{marian}{short}_Wo_ln_bias"] = weights[f"{norm}.bias"][None]
            for n in (1, 2):
                arrays[f"{marian}ffn_W{n}"] = weights[f"{hf}fc{n}.weight"].T
                arrays[f"{marian}ffn_b{n}"] = weights[f"{hf}fc{n}.bias"][None]
            arrays[f"{marian}ffn_ffn_ln_scale"] = weights[f"{hf}final_layer_norm.weight"][None]
            arrays[f"{marian}ffn_ffn_ln_bias"] = weights[f"{hf}final_layer_norm.bias"][None]
    vocab = json.loads((hf_dir / "vocab.json").read_text())
    vocab.pop("<pad>")
    options = {
        "type": "transformer", "dim-emb": config["d_model"],
        "enc-depth": config["encoder_layers"], "dec-depth": config["decoder_layers"],
        "transformer-heads": config["encoder_attention_heads"],
        "transformer-dim-ffn": config["encoder_ffn_dim"], "transformer-ffn-activation": "swish",
        "tied-embeddings-all": True, "transformer-preprocess": "",
        "transformer-postprocess": "dan", "transformer-dropout": 0.1,
        "dim-vocabs": [len(vocab), len(vocab)],
        **{key.replace("_", "-"): value for key, value in option_changes.items()},
    }
    text = yaml.safe_dump(options).encode() + b"\0"
    arrays["special:model.yml"] = np.frombuffer(text, np.int8)
    np.savez(output_dir / "opus.npz", **{k: np.asarray(v) for k, v in arrays.items()})
    (output_dir / "opus.spm.vocab.yml").write_text(yaml.safe_dump(vocab, allow_unicode=True),
                                                   encoding="utf-8")
    (output_dir / "decoder.yml").write_text(yaml.safe_dump({
        "models": ["opus.npz"], "vocabs": ["opus.spm.vocab.yml"] * 2, "beam-size": 4}))
    for name in ("source.spm", "target.spm"):
        shutil.copy(hf_dir / name, output_dir / name)
    return output_dir
