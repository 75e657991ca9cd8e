"""Parity and first measurements of an imported Marian model of OPUS-MT's base size.

Run by hand (not collected by pytest), from the repository root, with torch and transformers
installed (reference tools, not dependencies) and CTranslate2 for the export figures:

    nice -n 10 .venv/bin/python tests/pretrained/base_size.py [--sentences 200]
        [--parity-sentences 200] [--no-saved-model]

It builds a RANDOM MarianMTModel of OPUS-MT's base size (6+6 layers, d_model 512, 8 heads,
feed-forward 2048, swish, one shared vocabulary of 58,000 entries; seed 0, weights drawn with
standard deviation `INIT_STD`, not trained) in a temporary Hugging Face directory with
`save_pretrained`, reusing the tiny fixture's SentencePiece models (`fixtures/hf/`) and
padding its vocabulary with dummy pieces to the real size. The logits bias
is transformers' (zeros) with the pad banned (-1e9), as in `make_fixtures.py`. The model and
transformers' references are made in a child process (`--build DIR`), so that this process's
peak memory is keras_nmt's alone. Then it

1. imports the model into both twins (`import_marian`, timed);
2. compares teacher-forced log-probabilities with transformers' (max abs diff, float32) and
   greedy and beam-4 outputs (tokens, 24 new tokens at most) on `--parity-sentences`
   sentences;
3. measures greedy translation, sentences/s, in-process (`open_translator` on the run folder),
   through CTranslate2 exports (float32, int8) and, unless `--no-saved-model`, a SavedModel
   (its export timed), on the first `--sentences` of `fixtures/sentences.txt`;
4. fine-tunes the functional twin (`keras-nmt train --init-from`, a child process) for two
   epochs of `FINE_TUNE_PAIRS` pairs in batches of `FINE_TUNE_BATCH`, and reports its second
   epoch's target tokens per second of training steps and the child's peak memory;

and prints the results as one JSON object (the figures of docs/results/marian-base-size.md).
"""

import argparse
import json
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

FIXTURES = Path(__file__).parent / "fixtures"
VOCAB_SIZE, D_MODEL, LAYERS, HEADS, FFN, MAX_POSITIONS = 58000, 512, 6, 8, 2048, 512
TARGET_LENGTH, MAX_NEW_TOKENS, SEED = 7, 24, 0
FINE_TUNE_PAIRS, FINE_TUNE_BATCH = 160, 16
# transformers' default (0.02) gives one greedy output for every source: the decoder barely
# hears the encoder. 0.1 (as in make_fixtures.py) makes outputs differ from input to input.
INIT_STD = 0.1


def build(hf, parity_sentences):
    """Writes the random base-size model to `hf` and transformers' references beside it."""
    import shutil

    import torch
    from make_fixtures import move_norms_and_biases  # beside this script, run as a script
    from transformers import MarianConfig, MarianMTModel, MarianTokenizer

    torch.manual_seed(SEED)
    rng = np.random.default_rng(SEED)
    hf.mkdir(parents=True)
    for name in ("source.spm", "target.spm"):
        shutil.copy(FIXTURES / "hf" / name, hf / name)
    pieces = [p for p in json.loads((FIXTURES / "hf" / "vocab.json").read_text("utf-8"))
              if p != "<pad>"]
    pieces += [f"▁dummy{i}" for i in range(VOCAB_SIZE - 1 - len(pieces))] + ["<pad>"]
    vocab = {piece: i for i, piece in enumerate(pieces)}
    (hf / "vocab.json").write_text(json.dumps(vocab, ensure_ascii=False), encoding="utf-8")
    pad = vocab["<pad>"]
    config = MarianConfig(
        vocab_size=VOCAB_SIZE, decoder_vocab_size=VOCAB_SIZE, d_model=D_MODEL,
        encoder_layers=LAYERS, decoder_layers=LAYERS, encoder_attention_heads=HEADS,
        decoder_attention_heads=HEADS, encoder_ffn_dim=FFN, decoder_ffn_dim=FFN,
        max_position_embeddings=MAX_POSITIONS, activation_function="swish", pad_token_id=pad,
        eos_token_id=0, forced_eos_token_id=0, decoder_start_token_id=pad, bos_token_id=0,
        scale_embedding=True, share_encoder_decoder_embeddings=True, tie_word_embeddings=True,
        init_std=INIT_STD,
    )
    model = MarianMTModel(config).eval()
    with torch.no_grad():
        move_norms_and_biases(model)
        model.final_logits_bias.zero_()
        model.final_logits_bias[0, pad] = -1e9
        model.model.shared.weight[pad] = 0.0  # as in every converted OPUS-MT model
    started = time.perf_counter()
    model.save_pretrained(hf, safe_serialization=True)
    tokenizer = MarianTokenizer(str(hf / "source.spm"), str(hf / "target.spm"),
                                str(hf / "vocab.json"), source_lang="spa", target_lang="eng")
    tokenizer.save_pretrained(hf)
    for extra in hf.glob("special_tokens_map.json"):
        extra.unlink()
    saved_s = time.perf_counter() - started

    texts = read_sentences()[:parity_sentences]
    batch = tokenizer(texts, return_tensors="pt", padding=True)
    targets = torch.tensor(rng.integers(2, len(pieces) - 1, size=(len(texts), TARGET_LENGTH)))
    decoder_input = torch.cat([torch.full((len(texts), 1), pad), targets[:, :-1]], dim=1)
    with torch.no_grad():
        logits = model(**batch, decoder_input_ids=decoder_input).logits
        log_probs = torch.log_softmax(logits, dim=-1).numpy()
        common = dict(do_sample=False, max_new_tokens=MAX_NEW_TOKENS, forced_eos_token_id=None)
        greedy = model.generate(**batch, num_beams=1, **common).tolist()
        beam = model.generate(**batch, num_beams=4, length_penalty=0.0, early_stopping=False,
                              **common).tolist()
    np.savez(hf.parent / "reference.npz", teacher_sources=batch["input_ids"].numpy(),
             teacher_decoder_input=decoder_input.numpy(), teacher_log_probs=log_probs,
             greedy=np.array(json.dumps([strip(r) for r in greedy])),
             beam=np.array(json.dumps([strip(r) for r in beam])), pad=pad, saved_s=saved_s,
             parameters=sum(p.numel() for p in model.parameters()))


def strip(row):
    """Generated ids without the decoder start and the padding after `</s>` (kept)."""
    row = row[1:]
    return row[: row.index(0) + 1] if 0 in row else row


def read_sentences():
    return (FIXTURES / "sentences.txt").read_text(encoding="utf-8").split("\n")[:-1]


def to_ours(result, marian_ids, pad, start=False):
    """Marian ids as ours: the pad becomes PAD (a source) or START (a decoder input)."""
    from keras_nmt.special_ids import PAD_ID, START_ID

    ours = {int(m): i for i, m in reversed(list(enumerate(result.source_order)))}
    ours[pad] = START_ID if start else PAD_ID
    return np.vectorize(ours.__getitem__)(np.asarray(marian_ids))


def parity(result, reference):
    """Teacher-forced log-probabilities and greedy / beam-4 tokens against transformers'."""
    import tensorflow as tf

    from keras_nmt.decoding.loop import decode
    from keras_nmt.special_ids import PAD_ID, START_ID
    from keras_nmt.workshop.run.run_folder import RunFolder

    run = RunFolder.load(result.run_dir)
    pad = int(reference["pad"])
    logits = run.model({
        "encoder_tokens": to_ours(result, reference["teacher_sources"], pad),
        "decoder_tokens": to_ours(result, reference["teacher_decoder_input"], pad, True),
    })
    ours = np.asarray(tf.nn.log_softmax(logits, axis=-1))
    theirs = reference["teacher_log_probs"][..., result.target_order]
    produced = np.ones(ours.shape[-1], bool)
    produced[[PAD_ID, START_ID]] = False  # banned by a -1e9 bias in both
    diff = np.abs(ours[..., produced] - theirs[..., produced])
    sentences = len(reference["teacher_sources"])
    sources = run.source_tokenizer.tokenize(read_sentences()[:sentences]).to_tensor()
    out = {"teacher_max_abs_diff": float(diff.max()), "teacher_mean_abs_diff": float(diff.mean()),
           "teacher_log_prob_range": [float(theirs[..., produced].min()),
                                      float(theirs[..., produced].max())],
           "teacher_argmax_equal": bool(np.array_equal(ours[..., produced].argmax(-1),
                                                       theirs[..., produced].argmax(-1)))}
    for name, options in (("greedy", {}), ("beam", {"beam_size": 4, "length_penalty": 0.0})):
        decoded = decode(run.model, sources, name, max_length=MAX_NEW_TOKENS, max_length_a=0.0,
                         max_length_b=MAX_NEW_TOKENS, **options)
        tokens, lengths = np.asarray(decoded.tokens), np.asarray(decoded.lengths)
        if tokens.ndim == 3:
            tokens, lengths = tokens[:, 0], lengths[:, 0]
        mine = [result.target_order[row[:n]].tolist() for row, n in zip(tokens, lengths,
                                                                         strict=True)]
        theirs_rows = json.loads(str(reference[name]))
        out[f"{name}_identical"] = sum(a == b for a, b in zip(mine, theirs_rows, strict=True))
        out[f"{name}_distinct_outputs"] = len({tuple(r) for r in theirs_rows})
        out[f"{name}_finished"] = sum(r[-1] == 0 for r in theirs_rows)
    out["sentences"] = len(sources)
    return out


def speed(translator, texts):
    """Greedy sentences/s after one warm-up batch, and mean output tokens per sentence."""
    translator.translate_batch(texts[:64])
    started = time.perf_counter()
    results = translator.translate_batch(texts)
    seconds = time.perf_counter() - started
    return {"sentences_per_s": round(len(texts) / seconds, 2), "seconds": round(seconds, 2),
            "mean_output_words": round(float(np.mean([len(r.text.split()) for r in results])),
                                       1)}


def fine_tuning(run_dir, tmp):
    """Two epochs of `keras-nmt train --init-from run_dir` in a child process: the second
    epoch's target tokens per second of training steps (the first includes tracing) and the
    child's peak resident memory (`/usr/bin/time`)."""
    from keras_nmt.workshop.comparison.runner import learning_curve
    from keras_nmt.workshop.run.run_folder import RunFolder

    sentences = read_sentences()
    pairs = [f"{s}\t{t}" for s, t in zip(sentences[:-1], sentences[1:], strict=True)]
    (tmp / "tune.tsv").write_text("\n".join(pairs[:FINE_TUNE_PAIRS]) + "\n", encoding="utf-8")
    (tmp / "tune-valid.tsv").write_text("\n".join(pairs[-16:]) + "\n", encoding="utf-8")
    output = tmp / "tuned"
    started = time.perf_counter()
    completed = subprocess.run(
        ["/usr/bin/time", "-f", "PEAK_KB %M", sys.executable, "-m", "keras_nmt", "train",
         "--init-from", str(run_dir), "--data", str(tmp / "tune.tsv"),
         "--valid", str(tmp / "tune-valid.tsv"), "--source-column", "0", "--target-column", "1",
         "--batch-size", str(FINE_TUNE_BATCH), "--epochs", "2", "--validation-sentences", "8",
         "--samples", "0", "--verbose", "0", "--output-dir", str(output)],
        capture_output=True, text=True, check=True)
    wall = time.perf_counter() - started
    peak_kb = int(completed.stderr.rsplit("PEAK_KB", 1)[1].split()[0])
    steps = learning_curve(output)["step_seconds"]
    target = RunFolder.load(run_dir).target_tokenizer
    targets = [line.split("\t")[1] for line in pairs[:FINE_TUNE_PAIRS]]
    tokens = int(target.tokenize(targets).row_lengths().numpy().sum()) + len(targets)  # + END
    return {"pairs": FINE_TUNE_PAIRS, "batch_size": FINE_TUNE_BATCH, "epochs": 2,
            "target_tokens_per_epoch": tokens,
            "epoch_2_step_seconds": round(steps[1] - steps[0], 2),
            "target_tokens_per_s": round(tokens / (steps[1] - steps[0]), 1),
            "wall_s": round(wall, 1), "peak_rss_mb": round(peak_kb / 1024)}


def peak_rss_mb():
    return round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--build", type=Path, help=argparse.SUPPRESS)  # the child process
    parser.add_argument("--sentences", type=int, default=200)
    parser.add_argument("--parity-sentences", type=int, default=200)
    parser.add_argument("--no-saved-model", action="store_true")
    parser.add_argument("--no-fine-tuning", action="store_true")
    args = parser.parse_args()
    if args.build:
        return build(args.build, args.parity_sentences)
    from keras_nmt.workshop.pretrained.marian_import import import_marian
    from keras_nmt.workshop.translators.ctranslate2_export import export_ctranslate2
    from keras_nmt.workshop.translators.export_translator import export_translator
    from keras_nmt.workshop.translators.open_translator import open_translator

    report = {}
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        started = time.perf_counter()
        subprocess.run([sys.executable, __file__, "--build", str(tmp / "hf"),
                        "--parity-sentences", str(args.parity_sentences)], check=True)
        report["build_s"] = round(time.perf_counter() - started, 1)
        reference = np.load(tmp / "reference.npz")
        report["parameters"] = int(reference["parameters"])
        results = {}
        for api in ("functional", "subclassed"):
            started = time.perf_counter()
            results[api] = import_marian(tmp / "hf", tmp / api, api=api)
            report[f"import_s_{api}"] = round(time.perf_counter() - started, 1)
            report[f"parity_{api}"] = parity(results[api], reference)
            print(json.dumps(report), flush=True)
        report["peak_rss_mb_after_parity"] = peak_rss_mb()
        texts = read_sentences()[: args.sentences]
        report["speed_sentences"] = len(texts)
        run_dir = results["functional"].run_dir
        report["speed_in_process"] = speed(open_translator(run_dir), texts)
        report["peak_rss_mb_after_in_process"] = peak_rss_mb()
        for quantization in ("float32", "int8"):
            started = time.perf_counter()
            export = export_ctranslate2(run_dir, tmp / f"ct2-{quantization}",
                                        quantization=quantization)
            report[f"ctranslate2_export_s_{quantization}"] = round(time.perf_counter() - started,
                                                                   1)
            report[f"speed_ctranslate2_{quantization}"] = speed(open_translator(export), texts)
            print(json.dumps(report), flush=True)
        if not args.no_saved_model:
            started = time.perf_counter()
            saved = export_translator(run_dir, base_dir=tmp / "saved", max_beam_size=4)
            report["saved_model_export_s"] = round(time.perf_counter() - started, 1)
            report["speed_saved_model"] = speed(open_translator(saved), texts)
        report["peak_rss_mb"] = peak_rss_mb()
        if not args.no_fine_tuning:
            report["fine_tuning"] = fine_tuning(run_dir, tmp)
    print(json.dumps(report, indent=1))


if __name__ == "__main__":
    main()
