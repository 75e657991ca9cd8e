"""Translate sentences with a run folder or an exported SavedModel.

Input: the positional SENTENCE arguments, else --input FILE, else stdin; one sentence per line
(lines end at newline characters only; an empty line gives an empty output line, so line N of
the output is always the translation of line N of the input). Typed at a terminal, each line is
translated as soon as it is entered. Inputs longer than the model's maximum source length
are truncated, with a warning on stderr. Output: one translation per line; with --n-best N, N
lines per sentence "SENTENCE_NUMBER<TAB>RANK<TAB>SCORE<TAB>TRANSLATION", best first.

Examples:
    keras-nmt translate runs/lstm "3rd of March 2021" "12/04/1999"
    keras-nmt translate saved_models/lstm/1 --beam-size 4 --n-best 3 < dates.txt
    keras-nmt translate runs/luong --input dates.txt --output out.txt --attention-plot plots/
    keras-nmt translate runs/lstm --strategy sample --temperature 0.7 --top-p 0.9 --seed 1 "3/3/21"
    keras-nmt translate runs/opus-en-romance --target-language spa "Where is the station?"
    keras-nmt translate runs/spa-eng --glossary terms.tsv --input page.txt
A glossary file holds one term a line: SOURCE<TAB>TARGET (the target term the translation must
use), or a term alone not to translate; # starts a comment (docs/serving.md, Glossaries).
"""

import contextlib
import itertools
import os
import sys
from pathlib import Path

from keras_nmt.decoding.decoding_options import GREEDY, DecodingOptions
from keras_nmt.workshop.arguments import (
    check_outputs,
    new_parser,
    positive_int,
    stdio,
)
from keras_nmt.workshop.cli.common import (
    Progress,
    add_debug_flag,
    add_decoding_arguments,
    add_parallel_batches_argument,
    add_translator_argument,
    check_decoding_flags,
    check_one_input,
    command,
    decoding_options,
    exit_status,
    start_tensorflow,
    use_parallel_batches,
    warn,
    writing_to,
)
from keras_nmt.workshop.cli.options import add_options
from keras_nmt.workshop.corpora.data_profile import implausibility
from keras_nmt.workshop.lines import input_chunks, iter_lines, one_line
from keras_nmt.workshop.output_file import OutputError, output_kind, output_stream, write_bytes
from keras_nmt.workshop.translators.glossary import Glossary

# Fewer sentences than this are not judged: a few words say little about a language.
MIN_MEASURED = 5


def build_parser(prog=None):
    parser = new_parser(__doc__, prog)
    add_translator_argument(parser)
    parser.add_argument("sentences", metavar="SENTENCE", nargs="*",
                        help="sentences to translate (default: --input FILE, else stdin)")
    parser.add_argument("--input", metavar="FILE", type=stdio,
                        help="read sentences from FILE, one per line (plain, .gz, .xz or .zip; "
                        "- is stdin)")
    parser.add_argument("--output", metavar="FILE", type=stdio, help="write translations to "
                        "FILE (default, or -: stdout)")
    add_decoding_arguments(parser)
    add_parallel_batches_argument(parser)
    parser.add_argument("--target-language", metavar="LANG", default=None,
                        help="a multilingual imported Marian model's target language: puts its "
                        "token >>LANG<< before every sentence (e.g. spa, fra); the token must be "
                        "in the model's source vocabulary")
    add_options(parser, ["n_best", "seed"], GREEDY)
    parser.add_argument("--batch-size", type=positive_int, default=64,
                        help="sentences per decoding call (default: %(default)s)")
    parser.add_argument("--glossary", metavar="FILE",
                        help="terms the translations must use: SOURCE<TAB>TARGET per line, or a "
                        "term alone not to translate it (greedy decoding; models with "
                        "attention)")
    parser.add_argument("--attention-plot", metavar="DIR",
                        help="write one attention heatmap PNG per sentence to DIR (greedy "
                        "decoding; models with attention; a ConvS2S run: each decoder layer's "
                        "and their mean)")
    add_debug_flag(parser)
    return parser


# Lines read, translated and written at a time: memory holds one chunk, not the input, and
# within a chunk the sentences are batched by length as before.
CHUNK_LINES = 4096


def read_sentences(args):
    """The input lines in chunks of `CHUNK_LINES`: the arguments, else --input FILE, else stdin
    (`keras_nmt.workshop.lines.input_chunks`), each chunk read when it is asked for.

    Invalid UTF-8 becomes U+FFFD, from a file and from stdin alike, with a warning.
    """
    if args.sentences:
        return iter([list(args.sentences)])
    return input_chunks(args.input, CHUNK_LINES, warn)


def language_prefix(translator, language):
    """`">>LANG<< "` for `--target-language LANG` (checked against the source vocabulary)."""
    if language is None:
        return ""
    token = f">>{language}<<"
    vocabulary = getattr(getattr(translator, "source_tokenizer", None), "vocabulary", ())
    if token not in vocabulary:
        codes = sorted(t for t in vocabulary if t.startswith(">>") and t.endswith("<<"))
        raise ValueError(f"--target-language {language}: the model has no {token} token "
                         f"(its language tokens: {', '.join(codes) or 'none'})")
    return token + " "


def warn_if_implausible(sentences, profile, name, warn):
    """Warns, loudly, when the sentences do not read like the model's source language (its
    target language, another language or script: `keras_nmt.workshop.corpora.data_profile`)."""
    if profile is None or len(sentences) < MIN_MEASURED:
        return
    problem = implausibility([(s, "") for s in sentences], profile, name or "the input",
                             sides=("source",))
    if problem:
        warn(f"{problem}; the translations will be poor")


def warn_if_truncated(translator, texts, warn, first=1):
    """Calls `warn(message)` for each text with more than the translator's `max_source_length`
    tokens (`texts[0]` is input `first`)."""
    lengths = getattr(translator, "source_lengths", None)
    if translator.max_source_length is None or lengths is None or not len(texts):
        return
    # Here, not at the top: the command parses its flags before TensorFlow loads.
    import numpy as np  # noqa: PLC0415
    import tensorflow as tf  # noqa: PLC0415

    lengths = np.asarray(lengths(tf.constant(list(texts), tf.string)))
    for index in np.flatnonzero(lengths > translator.max_source_length):
        warn(f"input {index + first} has {lengths[index]} tokens; only the first "
             f"{translator.max_source_length} are translated")


def interactive(translator, options, warn, prefix=""):
    """Translates each line typed at a terminal as soon as it is entered (until end of file)."""
    stdin = getattr(sys.stdin, "buffer", sys.stdin)
    # The prompt goes to stderr: stdout holds the translations alone.
    print("type a sentence and press Enter to translate it; Ctrl-D ends", file=sys.stderr)
    print("> ", end="", file=sys.stderr, flush=True)
    for index, line in enumerate(iter_lines(stdin)):
        line = prefix + line
        warn_if_truncated(translator, [line], warn)
        # The line's index in the input: its sample is the one it gets in a file.
        results = translator.translate_batch([line], options, indices=[index])
        for output in format_results(results, options.n_best):
            print(output, flush=True)
        print("> ", end="", file=sys.stderr, flush=True)


def has_attention(translator):
    """Whether `translator` returns attention weights (a plain LSTM has none, a CTranslate2
    export gives none)."""
    found = getattr(translator, "has_attention", None)
    if found is None:
        found = bool(getattr(getattr(translator, "model", None), "has_attention", False))
    return found


def plot_name(directory, index):
    """The attention plot of sentence `index` (from 1) in `directory`."""
    return Path(directory) / f"attention_{index:04d}.png"


def check_plot_folder(directory, count=0, first=1):
    """Refuses, before the translation, an `--attention-plot` that is not a folder we may fill
    (a file, or a folder that cannot be written), or whose plots for `count` sentences from
    sentence `first` could not be written (`attention_0001.png` a folder, a socket): found out
    after the work, it cost the whole translation. Each plot is written as every output is
    (`output_file`)."""
    if not directory:
        return
    if os.path.exists(directory) and not os.path.isdir(directory):
        raise ValueError(f"--attention-plot {directory} is a file, not a folder: name a folder "
                         "to write the attention_NNNN.png plots in")
    existing = next((p for p in [os.path.abspath(directory), *Path(directory).absolute().parents]
                     if os.path.exists(p)), None)
    if existing is not None and (not os.path.isdir(existing) or not os.access(existing, os.W_OK)):
        raise ValueError(f"--attention-plot {directory}: {existing} is not a folder you can write"
                         " in; choose another folder")
    if os.path.isdir(directory):
        for index in range(first, first + count):
            try:
                output_kind(plot_name(directory, index))
            except OutputError as error:
                raise ValueError(f"--attention-plot {directory}: {error}") from None


def decoder_layer_panels(translator, sentence, result):
    """A ConvS2S run's attention layer by layer: each decoder layer's own (teacher-forced on
    the translation `result` holds) and their mean (what decoding returns, `result.weights`), as
    `plot_attention_grid` panels; None for a model without per-layer attention or an export
    (whose graph returns the mean only)."""
    model = getattr(translator, "model", None)
    if not hasattr(model, "layer_attention"):
        return None
    # Here, not at the top: the command parses its flags before TensorFlow loads.
    import numpy as np  # noqa: PLC0415
    import tensorflow as tf  # noqa: PLC0415

    from keras_nmt.special_ids import START_ID  # noqa: PLC0415

    ids, _ = translator.source_ids(tf.constant([sentence]))
    index = {token: i for i, token in enumerate(translator.target_tokenizer.vocabulary)}
    produced = [index[token] for token in result.target_tokens]  # END included
    layers = np.asarray(model.layer_attention(ids, [[START_ID, *produced[:-1]]]))[0]
    tokens = (result.source_tokens, result.target_tokens)
    return [(weights, *tokens, f"decoder layer {i}") for i, weights in enumerate(layers, 1)] + [
        (result.weights, *tokens, "mean (what decoding returns)")]


def write_attention_plots(results, directory, warn, panels_of=None, first=1):
    """One PNG per result (translated with `return_attention`) in `directory`, numbered from
    `first`; returns the paths written. `panels_of(index, result)`, when given, may return
    panels to draw side by side instead (`decoder_layer_panels`)."""
    # Here, not at the top: Matplotlib's import costs every other translation a second.
    from keras_nmt.workshop.plots import plot_attention, plot_attention_grid, png  # noqa: PLC0415

    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    paths = []
    for index, result in enumerate(results, start=first):
        if not result.source_tokens or not result.target_tokens:
            warn(f"sentence {index} is empty: no attention plot")
            continue
        path = plot_name(directory, index)
        panels = panels_of(index, result) if panels_of else None
        if panels:
            figure = plot_attention_grid(panels, title=result.text)
        else:
            figure = plot_attention(result.weights, result.source_tokens, result.target_tokens,
                                    title=result.text)
        with writing_to(path):
            write_bytes(path, png(figure))
        paths.append(path)
    return paths


def format_results(results, n_best, first=1):
    """The output lines of `results` (sentences `first`, `first + 1`...)."""
    lines = []
    for number, result in enumerate(results, start=first):
        if n_best == 1:
            lines.append(result.text)
            continue
        for rank, (text, score) in enumerate(zip(result.texts, result.scores, strict=True), 1):
            lines.append(f"{number}\t{rank}\t{score:.4f}\t{text}")
    return lines


@command
def main(argv=None, prog=None):
    # Intermixed: sentences may follow options (`MODEL --beam-size 4 "a" "b"`).
    parser = build_parser(prog)
    args = parser.parse_intermixed_args(argv)
    check_one_input(parser, args.sentences, args.input)
    check_outputs({"--output": args.output}, [args.input, args.model],
                  reads_stdin=not args.sentences and not args.input)
    check_plot_folder(args.attention_plot)
    typed = (not args.sentences and not args.input and sys.stdin.isatty()
             and not args.attention_plot)
    start_tensorflow(args.debug)
    use_parallel_batches(args)
    check_decoding_flags(parser, args)  # reads the strategy table, which imports Keras
    glossary = None
    if args.glossary:
        if args.n_best != 1 or DecodingOptions(strategy=args.strategy, beam_size=args.beam_size
                                               ).chosen_strategy != "greedy":
            parser.error("--glossary works on greedy decoding's word alignment: not with "
                         "--beam-size, --n-best or --strategy sample")
        glossary = Glossary.read(args.glossary)  # checked before the model loads
    # The first chunk is read (and checked) before the model loads: a wrong file fails before
    # that wait; the next ones as the translation reaches them (`CHUNK_LINES`).
    chunks = None if typed else read_sentences(args)
    first = None if typed else next(chunks)
    check_plot_folder(args.attention_plot, len(first or ()))  # each plot's path too
    # Imported after parsing: `--help` and flag errors must not wait for TensorFlow.
    from keras_nmt.decoding.strategies import STRATEGIES  # noqa: PLC0415
    from keras_nmt.workshop.translators.open_translator import (
        model_data,  # noqa: PLC0415
        open_translator,  # noqa: PLC0415
    )

    translator = open_translator(args.model, parallel=args.parallel_batches)
    prefix = language_prefix(translator, args.target_language)
    options = decoding_options(args, n_best=args.n_best)
    if glossary is not None and not has_attention(translator):
        raise ValueError(f"--glossary: {args.model} gives no attention weights to align the "
                         "terms with (a plain LSTM has none, a CTranslate2 export gives none)")
    if typed:
        interactive(translator, options, warn, prefix)
        return 0
    warn_if_implausible(first, model_data(args.model).profile, args.input, warn)
    plots = bool(args.attention_plot) and has_attention(translator)
    greedy = options.chosen_strategy == "greedy"
    if args.attention_plot and not plots:
        warn("this model returns no attention weights (a plain LSTM has none, and a "
             "CTranslate2 export does not give them): no attention plots")
    elif plots and not greedy:
        warn(f"--attention-plot draws greedy decoding's attention, each plot titled with its "
             f"translation, not {STRATEGIES[options.chosen_strategy].title}'s")
    # The total is known when the input is one chunk.
    progress = Progress(len(first) if args.sentences or len(first) < CHUNK_LINES else None)
    with contextlib.ExitStack() as outputs:
        if args.output:  # a file is replaced when every chunk is written (`output_path`)
            outputs.enter_context(writing_to(args.output))
            stream = outputs.enter_context(output_stream(args.output, newline="\n"))
        else:
            stream = sys.stdout
        done = 0  # the sentences before this chunk
        for chunk in itertools.chain([first], chunks):
            if done:
                check_plot_folder(args.attention_plot, len(chunk), done + 1)
            lines = translate_chunk(translator, [prefix + s for s in chunk], done, options,
                                    args, progress, glossary, plots)
            stream.write("".join(one_line(line) + "\n" for line in lines))
            stream.flush()
            done += len(chunk)
    progress.finish()
    return 0


def translate_chunk(translator, sentences, done, options, args, progress, glossary, plots):
    """The output lines of one chunk of `sentences` (`done` sentences before it), each
    translated as in one call over the whole input: its sentences numbered and sampled by
    their place in the input, its attention plots named so."""
    greedy = options.chosen_strategy == "greedy"
    warn_if_truncated(translator, sentences, warn, first=done + 1)
    results = translator.translate_batch(
        sentences, options, batch_size=args.batch_size, on_batch=progress.add,
        indices=range(done, done + len(sentences)),
        return_attention=(plots or glossary is not None) and greedy)
    if glossary is not None:
        for sentence, result in zip(sentences, results, strict=True):
            result.texts = [glossary.apply(sentence, result)]
    if plots:  # attention comes with greedy decoding only: the printed translations' if greedy
        write_attention_plots(results if greedy else translator.translate_batch(
            sentences, return_attention=True, batch_size=args.batch_size),
            args.attention_plot, warn, first=done + 1,
            panels_of=lambda index, result: decoder_layer_panels(
                translator, sentences[index - done - 1], result))
    return format_results(results, args.n_best, first=done + 1)


if __name__ == "__main__":
    sys.exit(exit_status(main()))
