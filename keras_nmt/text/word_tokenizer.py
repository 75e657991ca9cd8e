"""Word tokenizer: words and punctuation marks, split with regular expressions in TF ops."""

from __future__ import annotations

from typing import Any

import tensorflow as tf

from keras_nmt.text.tokenizer import Tokenizer

# A "word character": letters, combining marks, digits, underscore (RE2's \w is ASCII only).
_W = r"[\p{L}\p{M}\p{N}_]"
# Private-use code points that protect a separator from the punctuation split; they are put back
# before the whitespace split. Input code points in this range become U+FFFD in tokenize.
_PROTECT = r"[\x{E000}-\x{E005}]"
# (pattern, replacement): a separator FOLLOWED by a word character (a digit for . , :) is
# replaced by a marker. Requiring only the right-hand context keeps each rule a single pass
# ("rock'n'roll", "1,000,000"); a separator with nothing on its left ("-5", " 'hello") becomes
# part of the next token or a token of its own, which detokenizes the same way.
_PROTECTIONS = (
    (rf"'({_W})", "\ue000\\1"),  # apostrophe inside a word: l'homme, don't
    (rf"\x{{2019}}({_W})", "\ue001\\1"),  # the same with U+2019 (typographic) apostrophe
    (rf"-({_W})", "\ue002\\1"),  # hyphen inside a word: Dis-moi, well-known
    (r"\.(\p{N})", "\ue003\\1"),  # decimal point: 3.5
    (r",(\p{N})", "\ue004\\1"),  # thousands or decimal comma: 1,000 / 3,5
    (r":(\p{N})", "\ue005\\1"),  # time: 10:30
)
# The apostrophe stays with the left piece and the pieces are split: l'homme -> l' homme.
_RESTORE = (("\ue000", "' "), ("\ue001", "\u2019 "), ("\ue002", "-"), ("\ue003", "."),
            ("\ue004", ","), ("\ue005", ":"))
# Every other character that is neither a word character nor a space is a token of its own.
_PUNCT = r"([^\p{L}\p{M}\p{N}_ \x{E000}-\x{E005}])"

# Detokenization. Closing marks take no space before them, opening marks no space after them.
_CLOSE_EN = r" ([.,!?:;%)\]}»\x{201D}\x{2026}'\x{2019}])"
_OPEN_EN = r"([¿¡(\[{«\x{201C}\x{2018}\x{201E}$£]) "
# French typography keeps a space before ! ? : ; % » and after «.
_CLOSE_FR = r" ([.,)\]}\x{201D}\x{2026}'\x{2019}])"
_OPEN_FR = r"([¿¡(\[{\x{201C}\x{2018}\x{201E}]) "
_APOSTROPHE_PIECE = rf"({_W}['\x{{2019}}]) "
_DOUBLE_QUOTES = r'" ?([^"]*?) ?"'


class WordTokenizer(Tokenizer):
    """Words and punctuation marks as tokens; the ``max_vocab`` most frequent get ids.

    Tokenization rules (on normalized text, all in TF regex ops):

    - white space separates tokens;
    - every character that is not a letter, mark, digit or ``_`` is a token of its own
      (``. , ! ? ; : ¿ ¡ « » " ( )`` ...), except in the protected cases below;
    - an apostrophe (``'`` or U+2019) followed by a word character stays attached to the LEFT
      piece and splits the word: ``l'homme`` -> ``l'`` ``homme``, ``aujourd'hui`` ->
      ``aujourd'`` ``hui``, ``don't`` -> ``don'`` ``t``, ``Tom's`` -> ``Tom'`` ``s``; any other
      apostrophe is a token of its own (``parents' car`` -> ``parents`` ``'`` ``car``);
    - a hyphen followed by a word character stays inside the word (``Dis-moi``, ``peut-être``,
      ``-5``);
    - ``.``, ``,`` and ``:`` followed by a digit stay inside the token (``3.5``, ``1,000``,
      ``10:30``).

    Detokenization joins the tokens with spaces, then removes the space:

    - after a piece ending with an intra-word apostrophe (``l' homme`` -> ``l'homme``);
    - before closing marks ``. , ! ? : ; % ) ] } » ” … '`` and ``’``;
    - after opening marks ``¿ ¡ ( [ { « “ ‘ „`` (and ``$ £`` with English spacing);
    - inside pairs of straight double quotes (``" hola "`` -> ``"hola"``, paired left to right).

    With ``french_spacing=True`` the space before ``! ? : ; % »`` and after ``«`` is kept
    instead (French typography; narrow no-break spaces are plain spaces after normalization).

    Hence ``detokenize(tokenize(s)) == normalize(s)`` except where ``s`` does not follow these
    spacing rules: e.g. with English spacing ``"Dis-moi !"`` comes back as ``"Dis-moi!"``; with
    either style ``"U.S.A."`` comes back as ``"U. S. A."``, ``"( x )"`` as ``"(x)"``,
    ``"x--y"`` as ``"x - -y"``, single quotes used as quotation marks ``"he said 'hi' "`` as
    ``"he said' hi'"`` (a standalone apostrophe is glued to the left, which suits the far more
    common ``parents' car``), and a character in U+E000..U+E005 (private use, used internally as
    markers) as ``"⁇"``. Unknown words come back as ``"⁇"``.

    Args:
        max_vocab: maximum vocabulary size, reserved ids included; ``None`` for no limit.
        min_count: minimum number of occurrences in the training text to get an id.
        lowercase, name: as in :class:`Tokenizer`.
        french_spacing: detokenize with French spacing around ``! ? : ; % « »``.

    Example:
        >>> tok = WordTokenizer(max_vocab=100).build(["¿Dónde está l'homme?"])
        >>> tok.ids_to_tokens(tok.tokenize(["¿Dónde está l'homme?"])).to_list()
        [[b'\\xc2\\xbf', b'D\\xc3\\xb3nde', b'est\\xc3\\xa1', b"l'", b'homme', b'?']]
        >>> tok.detokenize(tok.tokenize(["¿Dónde está l'homme?"])).numpy()[0].decode()
        "¿Dónde está l'homme?"
    """

    kind = "word"
    _join_separator = " "

    def __init__(self, max_vocab: int | None = 8000, min_count: int = 1, lowercase: bool = False,
                 french_spacing: bool = False, name: str | None = None):
        super().__init__(lowercase=lowercase, name=name)
        self.max_vocab = None if max_vocab is None else int(max_vocab)
        self.min_count = int(min_count)
        self.french_spacing = bool(french_spacing)

    def get_config(self) -> dict[str, Any]:
        return {**super().get_config(), "max_vocab": self.max_vocab, "min_count": self.min_count,
                "french_spacing": self.french_spacing}

    def _split(self, normalized: tf.Tensor) -> tf.RaggedTensor:
        # (batch,) -> (batch, None) word and punctuation strings.
        text = tf.strings.regex_replace(normalized, _PROTECT, "\ufffd")
        for pattern, replacement in _PROTECTIONS:
            text = tf.strings.regex_replace(text, pattern, replacement)
        text = tf.strings.regex_replace(text, _PUNCT, r" \1 ")
        for marker, original in _RESTORE:
            text = tf.strings.regex_replace(text, marker, original, replace_global=True)
        return tf.strings.split(text)

    def _postprocess(self, joined: tf.Tensor) -> tf.Tensor:
        # The apostrophe-piece rule must run before the closing-mark rule: after that one a
        # standalone apostrophe ("parents ' car" -> "parents' car") would look like a piece.
        text = tf.strings.regex_replace(joined, _APOSTROPHE_PIECE, r"\1")
        close, open_ = (_CLOSE_FR, _OPEN_FR) if self.french_spacing else (_CLOSE_EN, _OPEN_EN)
        text = tf.strings.regex_replace(text, close, r"\1")
        text = tf.strings.regex_replace(text, open_, r"\1")
        return tf.strings.regex_replace(text, _DOUBLE_QUOTES, r'"\1"')
