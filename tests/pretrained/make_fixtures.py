"""Makes the tiny Marian model of the import tests and transformers' outputs on it.

Run once, with torch and transformers installed (reference tools, not dependencies):

    python tests/pretrained/make_fixtures.py

It writes tests/pretrained/fixtures/ (committed, about 300 kB), so that the tests need neither
torch nor transformers:

    hf/                  a Hugging Face MarianMT directory: config.json, model.safetensors,
                         source.spm, target.spm, vocab.json, tokenizer_config.json
    reference.npz        transformers' (and CTranslate2's converter's) outputs on that model
                         (see `REFERENCE` below)
    sentences.txt        the source sentences of the reference outputs

The model is random (seed 0; random logits bias and layer-norm gains), then trained for a
few steps on the twenty pairs below, so that greedy outputs differ from sentence to sentence
and end. Its SentencePiece models are trained on the few lines below; the vocabulary is their
union plus `>>eng<<`, `>>spa<<` (a multilingual model's target-language tokens) and `<pad>` last,
as in OPUS-MT's converted models. The pad token's logits bias is -1e9: transformers bans the
pad token from generation after normalizing (so its probability counts in beam scores), Marian
and CTranslate2 have no pad token at all, and our import bans it by its bias; with -1e9 all
three normalize alike, so beam scores can be compared exactly.
"""

import hashlib
import json
import shutil
import tempfile
from pathlib import Path

import ctranslate2
import numpy as np
import sentencepiece as spm
import torch
from ctranslate2.converters import TransformersConverter
from transformers import MarianConfig, MarianMTModel, MarianTokenizer

HERE = Path(__file__).parent / "fixtures"
SHARED_TEST = Path(__file__).resolve().parents[2].parent / "shared" / "data" / "spa-eng.test.tsv"
SPANISH_TEXT = """Hola, ¿cómo estás? Tengo hambre. El perro come carne. Me gusta leer libros.
¿Dónde está la estación? Mañana vamos a la playa. Ella canta muy bien. No sé nada.
Los niños juegan en el parque. Quiero un café con leche. La casa es grande y blanca.
Hace frío hoy. ¿Puedes ayudarme? Tom compró un coche nuevo. Vivo en Madrid desde hace años.
Nos vemos pronto. El tren llega a las cinco. Mi hermana estudia medicina. Está lloviendo."""
ENGLISH_TEXT = """Hello, how are you? I am hungry. The dog eats meat. I like reading books.
Where is the station? Tomorrow we are going to the beach. She sings very well. I know nothing.
The children play in the park. I want a coffee with milk. The house is big and white.
It is cold today. Can you help me? Tom bought a new car. I have lived in Madrid for years.
See you soon. The train arrives at five. My sister studies medicine. It is raining."""
SPANISH, ENGLISH = SPANISH_TEXT.split(". "), ENGLISH_TEXT.split(". ")
WORDS = " ".join(SPANISH).replace("\n", " ").split()
D_MODEL, LAYERS, HEADS, FFN, MAX_POSITIONS = 16, 2, 2, 32, 64
INIT_STD, TRAIN_STEPS, EARLY_STOPPING = 0.1, 150, False
NUM_SENTENCES = 240  # greedy and beam references
REFERENCE = {
    "source_ids": "MarianTokenizer's ids of every sentence, `</s>` included (ragged, flattened)",
    "teacher_logits": "MarianMTModel's logits (8 sentences, targets of 7 tokens)",
    "greedy": "generate(num_beams=1, max_new_tokens=24), decoder start dropped",
    "beam": "generate(num_beams=4, length_penalty=0.0, early_stopping=False, max_new_tokens=24)",
    "shared_test_ids": "MarianTokenizer's ids of the Spanish side of spa-eng.test.tsv",
    "ctranslate2_greedy": "CTranslate2's TransformersConverter on hf/, greedy, pieces",
}


def move_norms_and_biases(model):
    """Draws the layer norms' gains and offsets and the biases away from 1 and 0 (std 0.2), so
    that a random model's parity test also checks them (in place, under `torch.no_grad`)."""
    for name, parameter in model.named_parameters():
        if "layer_norm" in name:
            centre = 1.0 if "weight" in name else 0.0
            parameter.copy_(torch.randn_like(parameter) * 0.2 + centre)
        elif name.endswith("bias"):
            parameter.copy_(torch.randn_like(parameter) * 0.2)


def train_spm(lines, prefix, vocab_size):
    spm.SentencePieceTrainer.train(
        sentence_iterator=iter(lines), model_prefix=str(prefix), vocab_size=vocab_size,
        model_type="unigram", character_coverage=1.0, hard_vocab_limit=False, minloglevel=2,
        bos_id=-1, eos_id=1, unk_id=0, pad_id=-1,
    )
    return spm.SentencePieceProcessor(model_file=f"{prefix}.model")


def sentences(rng):
    """Training lines and random word salads: varied lengths, unseen combinations."""
    out = [s.strip().replace("\n", " ") for s in SPANISH]
    while len(out) < NUM_SENTENCES:
        n = int(rng.integers(1, 12))
        out.append(" ".join(rng.choice(WORDS, n)))
    return out


def main():
    rng = np.random.default_rng(0)
    torch.manual_seed(0)
    shutil.rmtree(HERE, ignore_errors=True)
    hf = HERE / "hf"
    hf.mkdir(parents=True)
    with tempfile.TemporaryDirectory() as tmp:
        source = train_spm([s.replace("\n", " ") for s in SPANISH], Path(tmp) / "source", 120)
        target = train_spm([s.replace("\n", " ") for s in ENGLISH], Path(tmp) / "target", 120)
        shutil.copy(Path(tmp) / "source.model", hf / "source.spm")
        shutil.copy(Path(tmp) / "target.model", hf / "target.spm")
    pieces = ["</s>", "<unk>", ">>eng<<", ">>spa<<"]
    for processor in (source, target):
        for i in range(processor.get_piece_size()):
            piece = processor.id_to_piece(i)
            if piece not in pieces and piece not in ("<unk>", "</s>"):
                pieces.append(piece)
    pieces.append("<pad>")
    vocab = {piece: i for i, piece in enumerate(pieces)}
    (hf / "vocab.json").write_text(json.dumps(vocab, ensure_ascii=False))
    pad = vocab["<pad>"]
    config = MarianConfig(
        vocab_size=len(vocab), decoder_vocab_size=len(vocab), d_model=D_MODEL,
        encoder_layers=LAYERS, decoder_layers=LAYERS, encoder_attention_heads=HEADS,
        decoder_attention_heads=HEADS, encoder_ffn_dim=FFN, decoder_ffn_dim=FFN,
        max_position_embeddings=MAX_POSITIONS, activation_function="swish", pad_token_id=pad,
        eos_token_id=0, forced_eos_token_id=0, decoder_start_token_id=pad, bos_token_id=0,
        scale_embedding=True, share_encoder_decoder_embeddings=True, tie_word_embeddings=True,
        dropout=0.1, attention_dropout=0.0, activation_dropout=0.0, init_std=INIT_STD,
    )
    model = MarianMTModel(config).eval()
    with torch.no_grad():
        move_norms_and_biases(model)
        model.final_logits_bias.copy_(torch.randn_like(model.final_logits_bias) * 0.5)
    tokenizer = MarianTokenizer(str(hf / "source.spm"), str(hf / "target.spm"),
                                str(hf / "vocab.json"), source_lang="spa", target_lang="eng")
    train_briefly(model, tokenizer)
    with torch.no_grad():
        model.final_logits_bias[0, pad] = -1e9
        # As in every converted OPUS-MT model: the decoder starts from a zero embedding.
        model.model.shared.weight[pad] = 0.0
    model.save_pretrained(hf, safe_serialization=True)
    tokenizer.save_pretrained(hf)
    for extra in hf.glob("special_tokens_map.json"):
        extra.unlink()

    texts = sentences(rng)
    (HERE / "sentences.txt").write_text("\n".join(texts) + "\n", encoding="utf-8")
    source_ids = [tokenizer(t)["input_ids"] for t in texts]
    batch = tokenizer(texts[:8], return_tensors="pt", padding=True)
    targets = torch.tensor(rng.integers(2, pad, size=(8, 7)))
    decoder_input = torch.cat([torch.full((8, 1), pad), targets[:, :-1]], dim=1)
    with torch.no_grad():
        logits = model(**batch, decoder_input_ids=decoder_input).logits.numpy()
    greedy, beam = [], []
    for start in range(0, len(texts), 16):
        inputs = tokenizer(texts[start:start + 16], return_tensors="pt", padding=True)
        with torch.no_grad():
            g = model.generate(**inputs, num_beams=1, do_sample=False, max_new_tokens=24,
                               forced_eos_token_id=None)
            b = model.generate(**inputs, num_beams=4, do_sample=False, max_new_tokens=24,
                               length_penalty=0.0, early_stopping=EARLY_STOPPING,
                               forced_eos_token_id=None)
        greedy += [_strip(row, pad) for row in g.tolist()]
        beam += [_strip(row, pad) for row in b.tolist()]
    shared = shared_test_ids(tokenizer)
    ctranslate2_greedy = ctranslate2_reference(hf, texts)
    np.savez_compressed(
        HERE / "reference.npz",
        **shared,
        ctranslate2_greedy=np.array(ctranslate2_greedy, dtype=object).astype(str),
        source_ids=np.concatenate(source_ids), source_lengths=[len(s) for s in source_ids],
        teacher_sources=batch["input_ids"].numpy(), teacher_decoder_input=decoder_input.numpy(),
        teacher_logits=logits,
        greedy=np.concatenate(greedy), greedy_lengths=[len(s) for s in greedy],
        beam=np.concatenate(beam), beam_lengths=[len(s) for s in beam],
        greedy_texts=np.array([tokenizer.decode(g, skip_special_tokens=True) for g in greedy]),
    )
    print(f"wrote {HERE}: vocabulary {len(vocab)}, {len(texts)} sentences")


def shared_test_ids(tokenizer):
    """MarianTokenizer's ids of the Spanish side of ../shared's spa-eng test set, if there."""
    if not SHARED_TEST.exists():
        print(f"{SHARED_TEST} absent: no reference ids of the shared test set")
        return {}
    lines = SHARED_TEST.read_text(encoding="utf-8").split("\n")[:-1]
    spanish = [line.split("\t")[1] for line in lines]
    ids = [tokenizer(text)["input_ids"] for text in spanish]
    return {"shared_test_sha256": hashlib.sha256(SHARED_TEST.read_bytes()).hexdigest(),
            "shared_test_ids": np.concatenate(ids),
            "shared_test_lengths": [len(row) for row in ids]}


def ctranslate2_reference(hf, texts):
    """CTranslate2's own converter for transformers' Marian models, greedy: the pieces."""
    with tempfile.TemporaryDirectory() as tmp:
        TransformersConverter(str(hf)).convert(tmp, force=True)
        translator = ctranslate2.Translator(tmp, device="cpu")
        processor = spm.SentencePieceProcessor(model_file=str(hf / "source.spm"))
        pieces = [processor.encode(text, out_type=str) + ["</s>"] for text in texts]
        results = translator.translate_batch(pieces, beam_size=1, max_decoding_length=24)
    return [" ".join(result.hypotheses[0]) for result in results]


def train_briefly(model, tokenizer):
    """A few Adam steps on the twenty pairs, so outputs depend on the source and end."""
    pairs = [(s.strip().replace("\n", " "), e.strip().replace("\n", " "))
             for s, e in zip(SPANISH, ENGLISH, strict=True)]
    batch = tokenizer([s for s, _ in pairs], text_target=[e for _, e in pairs],
                      return_tensors="pt", padding=True)
    batch["labels"][batch["labels"] == tokenizer.pad_token_id] = -100
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    model.train()
    for _ in range(TRAIN_STEPS):
        loss = model(**batch).loss
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    model.eval()
    print(f"training loss after {TRAIN_STEPS} steps: {loss.item():.3f}")


def _strip(row, pad):
    """Generated ids without the decoder start and the padding after `</s>` (kept)."""
    row = row[1:]
    return row[: row.index(0) + 1] if 0 in row else row


if __name__ == "__main__":
    main()
