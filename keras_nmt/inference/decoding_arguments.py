"""The decoding flags of the apps, written once, and the `DecodingOptions` they give.

`apps/translate.py` and `apps/evaluate.py` add the same flags with `add_decoding_arguments`; their
defaults are `DecodingOptions`' own (greedy, `length_penalty` 0), so the command
line, the `Translator` and `decode` cannot disagree.
"""

from keras_nmt.decoding import GREEDY, DecodingOptions


def add_decoding_arguments(parser):
    """Adds --beam-size, --length-penalty, --sample, --temperature, --top-k and --top-p.

    Each app adds its own --seed (default `DecodingOptions().seed`): it may seed more than
    sampling (`apps/evaluate.py` also draws its built-in test data with it).
    """
    parser.add_argument("--beam-size", type=int, default=GREEDY.beam_size,
                        help="1: greedy decoding; more: beam search width (an export accepts "
                        "1..8) (default: %(default)s)")
    parser.add_argument("--length-penalty", type=float, default=GREEDY.length_penalty,
                        help="GNMT length penalty alpha of beam search, >= 0; 0 ranks beams by "
                        "their sum of log-probabilities (Wu et al. 2016 use 0.6-0.7) "
                        "(default: %(default)s)")
    parser.add_argument("--sample", action="store_true",
                        help="ancestral sampling instead of greedy/beam (run directories only)")
    parser.add_argument("--temperature", type=float, default=GREEDY.temperature,
                        help="sampling temperature; 0 is arg-max (default: %(default)s)")
    parser.add_argument("--top-k", type=int, default=0,
                        help="sample among the k most probable tokens; 0: off "
                        "(default: %(default)s)")
    parser.add_argument("--top-p", type=float, default=1.0,
                        help="nucleus sampling mass in (0, 1]; 1: off (default: %(default)s)")


def decoding_options(args, **fields):
    """The `DecodingOptions` of parsed `add_decoding_arguments` flags (plus other `fields`)."""
    return DecodingOptions(
        strategy="sample" if args.sample else None,
        beam_size=args.beam_size,
        length_penalty=args.length_penalty,
        temperature=args.temperature,
        top_k=args.top_k or None,
        top_p=args.top_p if args.top_p != 1.0 else None,
        seed=args.seed,
        **fields,
    )
