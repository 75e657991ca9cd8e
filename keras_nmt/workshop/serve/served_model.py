"""The models a server offers: where each comes from, its language pair, and what it can show.

`load_served_models(["es:en=runs/spa", "exports/fra-eng"])` opens each with
`keras_nmt.workshop.translators.open_translator` (a run folder, a SavedModel or a CTranslate2
export). The pair comes from the command line (`SRC:TGT=PATH`) or from the run's `config.json`
(`keras-nmt train --languages es,en`). A run folder keeps its Keras model, so the explorer can
draw the beam search tree and the attention of every layer and head (`explore`); an export
offers its n-best list and, a SavedModel, its greedy translation's attention (`explore_export`).

Example:
    >>> [model] = load_served_models(["es:en=runs/spa"])
    >>> model.pair, model.kind
    (('es', 'en'), 'run folder')
"""

import dataclasses
import json
import threading
from pathlib import Path

import numpy as np
import tensorflow as tf

from keras_nmt.decoding.decoding_model import DecodingModel
from keras_nmt.decoding.decoding_options import GREEDY
from keras_nmt.special_ids import END_ID, START_ID
from keras_nmt.workshop.serve.beam_tree import beam_tree
from keras_nmt.workshop.serve.model_spec import parse_model_spec
from keras_nmt.workshop.translators.ctranslate2_translator import CTranslate2Translator
from keras_nmt.workshop.translators.open_translator import model_data, open_translator
from keras_nmt.workshop.translators.saved_translator import SavedTranslator


class ModelLoadError(ValueError):
    """A model named on the command line cannot be served (its path is in the message)."""


@dataclasses.dataclass
class ServedModel:
    """One model behind the server.

    Attributes:
        name: how the API names it: the folder's name (a SavedModel version folder: its
            model's), made unique by `load_served_models` with primes.
        path: where it was loaded from.
        pair: `(source, target)` language codes.
        translator: a `Translator`, `SavedTranslator` or `CTranslate2Translator`.
    """

    name: str
    path: Path
    pair: tuple
    translator: object
    # Its languages, tokenizers' fingerprints and attribution (`keras_nmt.workshop.run.provenance`).
    provenance: dict = dataclasses.field(default_factory=dict)
    # The explorer's eager model calls are not run concurrently on one model.
    lock: threading.Lock = dataclasses.field(default_factory=threading.Lock, repr=False)

    @property
    def kind(self):
        if isinstance(self.translator, CTranslate2Translator):
            return "CTranslate2 export"
        if isinstance(self.translator, SavedTranslator):
            return "SavedModel"
        return "run folder"

    @property
    def keras_model(self):
        """The Keras model of a run folder, `None` for an export."""
        return getattr(self.translator, "model", None) if self.kind == "run folder" else None

    @property
    def draws_tree(self):
        """Whether the explorer can record a beam search step by step: a run folder's model
        that keeps the decoding contract (not an export, not the aligned CTC model, which has
        no steps: it gets an export's view)."""
        return isinstance(self.keras_model, DecodingModel)

    def describe(self):
        """What `GET /api/models` says about the model."""
        model = self.keras_model
        return {
            "name": self.name, "source": self.pair[0], "target": self.pair[1],
            "kind": self.kind, "path": str(self.path),
            "model_class": type(model).__name__ if model is not None else None,
            "max_beam_size": self.translator.max_beam_size,
            "beam_tree": self.draws_tree,
            "attention": bool(model.has_attention if model is not None
                              else getattr(self.translator, "has_attention", False)),
            # Where it comes from: what the page shows, and the credit a licence asks for.
            "languages": self.provenance.get("languages"),
            "attribution": self.provenance.get("attribution"),
            "tokenizers": self.provenance.get("tokenizers"),
        }


def recorded_pair(recorded):
    """The language codes a model records (`keras-nmt train --languages es,en`, an import's,
    carried by both exports; a `ModelData`), or `None`."""
    languages = recorded.languages
    codes = tuple(languages[side]["code"] for side in ("source", "target")) if languages else ()
    return codes if codes and all(codes) else None


def no_pair(path, recorded):
    """The error for a model that records no language pair, with the way out that works."""
    record = (f"record it with keras-nmt train --languages SRC,TGT --output-dir {path} (the "
              "model is not trained again)" if recorded.kind == "run" else
              "record it in the run and export it again")
    return ModelLoadError(f"{path}: no language pair; give it as SRC:TGT={path} (e.g. "
                          f"es:en={path}), or {record}")


def load_served_models(specs, parallel=None):
    """Opens every `SRC:TGT=PATH` / `PATH` of `specs` (a CTranslate2 export decoding `parallel`
    batches at once: `open_translator`); raises `ModelLoadError` naming the path."""
    models, names = [], set()
    for spec in specs:
        try:
            pair, path = parse_model_spec(spec)
        except ValueError as error:
            raise ModelLoadError(f"{spec}: {error}") from None
        try:
            if not path.exists():  # before its pair: a missing folder has no recorded pair
                raise ModelLoadError(f"{path} does not exist")
            recorded = model_data(path)
            pair = pair or recorded_pair(recorded)
            if pair is None:
                raise no_pair(path, recorded)
            translator = open_translator(path, parallel=parallel)
        except ModelLoadError:
            raise
        except (OSError, ValueError, json.JSONDecodeError) as error:
            raise ModelLoadError(f"cannot load {path}: {error}") from error
        folder = path.resolve()
        # A SavedModel version folder (saved_models/NAME/1) is named after its model.
        name = folder.parent.name if folder.name.isdigit() else folder.name
        while name in names:
            name += "'"
        names.add(name)
        models.append(ServedModel(name, path, pair, translator, recorded.provenance))
    return models


def _tokens(tokenizer, ids):
    """Token strings of a list of ids."""
    ragged = tf.ragged.constant([list(ids)], dtype=tf.int32)
    return [t.decode("utf-8", "replace") for t in tokenizer.ids_to_tokens(ragged)[0].numpy()]


def head_attention(model, source_ids, target_ids):
    """Cross-attention of every decoder layer and head of a Transformer, teacher-forced.

    Runs the encoder and the decoder blocks (found by their layer names, which both twins
    share) over `[START] + target_ids[:-1]` in whole-sequence mode, the way training sees the
    sentence; the last layer's mean over heads is what `decode_step` returns at each step.

    Args:
        model: a Transformer twin.
        source_ids: int32 `(1, src_len)`.
        target_ids: the produced ids (`END` included).

    Returns:
        float32 `(layers, heads, len(target_ids), src_len)`.
    """
    source = tf.constant(source_ids, tf.int32)
    source_mask = tf.not_equal(source, 0)
    embedding = _layer(model, "source_embedding") or model.get_layer("shared_embedding")
    x = embedding(source)
    for i in range(model.num_layers):
        x = model.get_layer(f"encoder_block_{i}")(x, mask=source_mask)
    norm = _layer(model, "encoder_final_norm")
    memory = norm(x) if norm is not None else x
    decoder_tokens = tf.constant([[START_ID, *list(target_ids)[:-1]]], tf.int32)
    target = _layer(model, "target_embedding") or model.get_layer("shared_embedding")
    y = target(decoder_tokens)
    layers = []
    for i in range(model.num_layers):
        y, scores = model.get_layer(f"decoder_block_{i}")(
            y, memory, inputs_mask=tf.not_equal(decoder_tokens, 0), memory_mask=source_mask,
            return_attention_scores=True,
        )
        layers.append(np.asarray(scores)[0])  # (heads, tgt_len, src_len)
    return np.stack(layers).astype(np.float32)


def decoder_layer_attention(model, source_ids, target_ids):
    """Every decoder layer's attention of a ConvS2S (one attention per layer, no heads),
    teacher-forced over `[START] + target_ids[:-1]`; their mean is what `decode_step` returns.

    Returns:
        float32 `(layers, 1, len(target_ids), src_len)`: `head_attention`'s layout, one head.
    """
    decoder_tokens = np.array([[START_ID, *list(target_ids)[:-1]]], np.int32)
    maps = np.asarray(model.layer_attention(np.asarray(source_ids, np.int32), decoder_tokens))
    return maps[0][:, None].astype(np.float32)


def _layer(model, name):
    try:
        return model.get_layer(name)
    except ValueError:
        return None


def explore(served, text, beam_size, n_best, length_penalty, top_k):
    """The explorer's view of one sentence (a run folder's model): tree, n-best, attention.

    Returns:
        A JSON-ready dict: `source_tokens`; `hypotheses` (best first: `text`, `tokens`,
        `token_log_probs`, `score`, `log_prob`, `finished`); `tree` (the `BeamTree` steps with
        token strings); `attention` `{"layers": [[heads: rows target x source]]}` of the best
        hypothesis (per layer and head for a Transformer, per layer for a ConvS2S, one map
        otherwise) or `None`. A sentence without tokens (empty, white space) gets what the
        translators give it: `""` with score 0, and no tree or attention.
    """
    translator, model = served.translator, served.keras_model
    ids, _ = translator.source_ids(tf.constant([text]))
    ids = ids.numpy()
    source_tokens = _tokens(translator.source_tokenizer, [i for i in ids[0] if i != 0])
    if not source_tokens:  # as the translators: "" with score 0, nothing searched
        nothing = {"text": "", "tokens": [], "token_log_probs": [], "score": 0.0,
                   "log_prob": 0.0, "finished": True}
        return {"source_tokens": [], "hypotheses": [nothing] * n_best, "tree": None,
                "attention": None}
    with served.lock:
        tree = beam_tree(model, ids, beam_size=beam_size, n_best=n_best,
                         length_penalty=length_penalty,
                         max_length=translator.max_target_length, top_k=top_k)
        best = tree.hypotheses[0]["tokens"]
        heads = shown = None
        if best and hasattr(model, "layer_attention"):
            heads = decoder_layer_attention(model, ids, best)
            shown = "each decoder layer's attention (decoding returns their mean)"
        elif best and hasattr(model, "num_heads") and model.has_attention:
            heads = head_attention(model, ids, best)
            shown = "decoder cross-attention per layer and head (mean: the heads averaged)"
    target = translator.target_tokenizer

    def text_of(tokens):
        kept = [t for t in tokens if t != END_ID]
        return target.detokenize(tf.constant([kept], tf.int32)).numpy()[0].decode("utf-8")

    hypotheses = [
        {"text": text_of(h["tokens"]), "tokens": _tokens(target, h["tokens"]),
         "token_log_probs": h["token_log_probs"], "score": h["score"],
         "log_prob": h["log_prob"], "finished": h["finished"]}
        for h in tree.hypotheses
    ]
    vocabulary = {}

    def name(token):
        if token not in vocabulary:
            vocabulary[token] = _tokens(target, [token])[0]
        return vocabulary[token]

    steps = []
    for step in tree.steps:
        steps.append({
            "candidates": [{**c, "text": name(c["token"])} for c in step["candidates"]],
            "top_k": [{**t, "texts": [name(i) for i in t["tokens"]]} for t in step["top_k"]],
        })
    attention = None
    if heads is not None:
        attention = {"layers": heads.tolist(), "averaged": shown}
    elif tree.attention is not None:
        attention = {"layers": [[tree.attention[0]]], "averaged": "the model's attention (one "
                     "map: the decoder attends once per step)"}
    return {"source_tokens": source_tokens, "hypotheses": hypotheses,
            "tree": {"steps": steps}, "attention": attention}


def explore_export(served, text, beam_size, n_best, length_penalty):
    """The explorer's view of one sentence for an export: what the export itself can give.

    The n-best list of its beam search (greedy for a beam of 1) and, for a SavedModel of a model
    with attention, the attention of its greedy translation (its `attention` signature: the
    weights the decoder returned at each step; per layer and head they are not exported). No
    tree: the search runs inside the exported graph or CTranslate2, not step by step here.

    Returns:
        `explore`'s dict with `tree` `None`; `attention` also names its `target_tokens` (the
        greedy translation's, which may differ from the best hypothesis of a beam).
    """
    translator = served.translator
    options = GREEDY if beam_size == 1 else GREEDY.replace(
        beam_size=beam_size, n_best=n_best, length_penalty=float(length_penalty))
    [result] = translator.translate_batch([text], options)
    hypotheses = [{"text": t, "tokens": [], "token_log_probs": [], "score": score}
                  for t, score in zip(result.texts, result.scores, strict=True)]
    view = {"source_tokens": [], "hypotheses": hypotheses, "tree": None, "attention": None}
    if isinstance(translator, SavedTranslator) and translator.has_attention:
        [greedy] = translator.translate_batch([text], GREEDY.replace(return_attention=True))
        view["source_tokens"] = list(greedy.source_tokens)
        transformer = "Transformer" in str(translator.metadata.get("model_class", ""))
        what = ("head average: the last decoder layer's cross-attention, averaged over its "
                "heads (per layer and head it is not exported)" if transformer
                else "the model's attention")
        view["attention"] = {"layers": [[np.asarray(greedy.weights).tolist()]],
                             "target_tokens": list(greedy.target_tokens),
                             "averaged": f"{what}, of the export's greedy translation"}
    return view
