"""Flags made from the options' declarations, as fairseq's `gen_parser_from_dataclass` does.

Each option is declared once, as a field of `TrainConfig` (with `ModelOptions`) or
`DecodingOptions`, with its flag, help, default and limits (`keras_nmt.option_fields`).
`add_options` turns fields into flags, so a flag has one spelling, one type, one help text and
one check everywhere; a command chooses only which fields it offers and their defaults: a
dataclass value's (train, translate, spell), or none, meaning "the preset's" (compare).

Example:
    >>> parser = new_parser("Train.")
    >>> add_options(parser, ["units", "time_budget"], TrainConfig())
    >>> parser.parse_args(["--units", "64", "--time-budget", "2"]).time_budget
    2.0
"""

import argparse
import dataclasses
import functools

from keras_nmt.models.registry import card
from keras_nmt.option_fields import flag_of, option_fields, reason_refused, value_type
from keras_nmt.workshop.configurations import MODEL_ARGUMENTS, ModelOptions
from keras_nmt.workshop.run.train_config import TrainConfig

# train's "model" group: the model, its twin and every `ModelOptions` field (a new model option
# is a flag at once); `max_length` also filters the data, so it is shown with the data.
MODEL_OPTIONS = ("model", "api", *(field.name for field in option_fields(ModelOptions)
                                   if field.name != "max_length"))
SIZE_OPTIONS = ("embedding_dim", "units", "num_layers", "d_model", "num_heads", "ff_dim",
                "channels", "kernel_size", "dropout")
# One or the other: a batch is a number of pairs or a number of tokens.
EXCLUSIVE = ("batch_size", "batch_tokens")


# Training's option fields by name (their flags: `flag_of`).
TRAIN_FIELDS = {field.name: field for field in option_fields(TrainConfig)}
# The options some models (or schedules) do not read: `unread_options` checks them.
MODEL_DEPENDENT = (*MODEL_OPTIONS[2:], "learning_rate", "warmup_steps")


# Options read only when another has a certain value: (whether `args` has it, what it is).
READ_ONLY_WITH = {
    "vocab_size": (lambda args: args.tokenizer != "char", "--tokenizer word or subword (a "
                   "character vocabulary holds every character seen)"),
    "average_every": (lambda args: args.average_checkpoints > 1,
                      "--average-checkpoints above 1"),
    "max_bad_fraction": (lambda args: args.skip_bad_lines, "--skip-bad-lines"),
}


# The training option each schedule reads: a value given for the other one would be ignored.
SCHEDULE_OPTIONS = {"constant": ("learning_rate",), "inverse_sqrt": ("warmup_steps",)}


def options_read_by(model, fine_tuning=False):
    """The model and schedule options training `model` reads: its constructor's arguments,
    `max_length` (which also limits the data) and its schedule's (`SCHEDULE_OPTIONS`)."""
    return {*MODEL_ARGUMENTS[model], "max_length",
            *SCHEDULE_OPTIONS[card(model).schedule(fine_tuning)]}


def parse_value(field, text):
    """The value of flag text `text` for `field`, checked: `ValueError(reason)` (the parser
    puts the flag and the text before the reason)."""
    kind = value_type(field)
    value = text
    if kind in (int, float):
        try:
            value = kind(text)
        except ValueError:
            raise ValueError(f"is not {'an integer' if kind is int else 'a number'}") from None
    reason = reason_refused(field, value)
    if reason:
        raise ValueError(reason)
    return value


def unread_error(given, reader, reads):
    """The one wording of options refused because `reader` (a model, a decoding strategy) does
    not read them: `given` their flags with values, `reads` the flags it does read."""
    them = "it (it would be" if len(given) == 1 else "them (they would be"
    return (f"{', '.join(given)}: {reader} does not read {them} ignored); its options here: "
            f"{' '.join(reads) or 'none'}")


def unread_options(args, default_of):
    """The error for an option that `args` sets to a value other than `default_of(name)` but
    that training does not read, or None: one of `READ_ONLY_WITH` without its companion
    (`--vocab-size` with characters), or one of `MODEL_DEPENDENT` that `args.model` does not read
    (`options_read_by`: a Transformer has no `--units`, its warm-up schedule no
    `--learning-rate` unless fine-tuning, an LSTM no `--heads`), or that none of `args.models`
    reads (a comparison of several). Such a value was accepted, recorded in the run's
    config.json, and ignored."""
    for name, (reads_it, needs) in READ_ONLY_WITH.items():
        try:
            unread = not reads_it(args) and getattr(args, name) != default_of(name)
        except AttributeError:  # a command without the option or the one it depends on
            continue
        if unread:
            return (f"{flag_of(TRAIN_FIELDS[name])} {getattr(args, name)}: read only with "
                    f"{needs}, so it would be ignored")
    fine_tuning = bool(getattr(args, "init_from", None))
    models = getattr(args, "models", None) or [args.model]  # a comparison: read by any of them
    read = set().union(*(options_read_by(model, fine_tuning) for model in models))
    offered = [name for name in MODEL_DEPENDENT if hasattr(args, name)]
    unread = [name for name in offered
              if name not in read and getattr(args, name) != default_of(name)]
    if not unread:
        return None
    flags = {name: flag_of(TRAIN_FIELDS[name]) for name in offered}
    return unread_error([f"{flags[name]} {getattr(args, name)}" for name in unread],
                        f"--model{'s' * (len(models) > 1)} {','.join(models)}"
                        f"{' with --init-from' if fine_tuning else ''}",
                        [flags[name] for name in offered if name in read])


def _parse(field, text):
    try:
        return parse_value(field, text)
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


def add_options(group, names, defaults, unset=None, helps=None):
    """Adds the flags of fields `names` of dataclass value `defaults` to `group`.

    Args:
        group: a parser or an argument group.
        names: the fields, in the order shown by `--help`.
        defaults: a dataclass value (`TrainConfig`, `DecodingOptions`): its values are the
            defaults, shown in the help.
        unset: instead, every flag defaults to `None` (not given) and its help ends with
            "(default: UNSET; else DEFAULT)", e.g. `unset="the preset's"`.
        helps: help texts of this command by field name, in place of the declared ones
            (e.g. what `--seed` seeds in this command).
    """
    fields = {field.name: field for field in option_fields(type(defaults))}
    exclusive = None
    for name in names:
        field = fields[name]
        help = (helps or {}).get(name, field.metadata["help"])
        default = getattr(defaults, name)
        target = group
        if name in EXCLUSIVE:
            exclusive = exclusive or group.add_mutually_exclusive_group()
            target = exclusive
        if value_type(field) is bool:
            if default:  # an option that is on unless turned off: --no-NAME turns it off
                target.add_argument(flag_of(field), dest=name, default=None if unset else default,
                                    action=argparse.BooleanOptionalAction, help=help)
            else:
                target.add_argument(flag_of(field), dest=name, action="store_true", help=help)
            continue
        if "(default:" not in help and (unset or default is not None):
            help += f" (default: {unset}; else {default})" if unset else " (default: %(default)s)"
        choices = field.metadata["choices"]
        target.add_argument(flag_of(field), dest=name, default=None if unset else default,
                            type=functools.partial(_parse, field),
                            metavar=field.metadata["metavar"] or (
                                "{" + ",".join(map(str, choices)) + "}" if choices else None),
                            help=help)


def config_fields(args):
    """The parsed values that are `TrainConfig` fields."""
    fields = {field.name for field in dataclasses.fields(TrainConfig)}
    return {name: value for name, value in vars(args).items() if name in fields}
