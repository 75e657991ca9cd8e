"""WordTokenizer: splitting rules and round trips on real sentences."""

from keras_nmt.special_ids import NUM_RESERVED, UNK_ID
from keras_nmt.text import WordTokenizer
from tests.text.helpers import read_columns, strings

REAL_SENTENCES = [
    ("I don't know if it's true.", False),
    ("We're ruined.", False),
    ('"Why aren\'t you going?" "Because I don\'t want to."', False),
    ("Daddy, let's make faces at each other and see who can keep from laughing.", False),
    ("They're my parents' friends.", False),
    ("It costs $3.50, or 1,000 yen at 10:30.", False),
    ("¿Por qué no vas?", False),
    ("«¿Vas a ir a la fiesta de Tom?» «Todavía no estoy seguro.»", False),
    ('Papá, juguemos a "a ver quién se ríe antes".', False),
    ("¡Qué bonito día!", False),
    ("Je t'envie.", True),
    ("C'est juste !", True),
    ("Tu es dans l'erreur.", True),
    ("« Seras-tu à ma soirée, demain ? » « J'essaierai d'y être. »", True),
    ("Il n'est pas là aujourd'hui : il est parti.", True),
    ("Dis-moi\u202f!", True),  # narrow no-break space: a plain space after normalization
]


def _tokens(tok, texts):
    rows = tok.ids_to_tokens(tok.tokenize(texts)).to_list()
    return [[t.decode("utf-8") for t in row] for row in rows]


def test_splitting_rules():
    text = "« L'homme d'aujourd'hui ? » ¿Dónde? ¡Sí! I don't—Tom's dogs' toys: 3,5 kg, 10:30 a.m."
    tok = WordTokenizer(max_vocab=None).build([text])
    assert _tokens(tok, [text])[0] == [
        "«", "L'", "homme", "d'", "aujourd'", "hui", "?", "»", "¿", "Dónde", "?", "¡", "Sí", "!",
        "I", "don'", "t", "—", "Tom'", "s", "dogs", "'", "toys", ":", "3,5", "kg", ",", "10:30",
        "a", ".", "m", ".",
    ]  # fmt: skip
    assert _tokens(tok, ["Dis-moi, peut-être."])[0] == ["<unk>", ",", "<unk>", "."]
    assert _tokens(tok, ["rock'n'roll"])[0] == ["<unk>", "<unk>", "<unk>"]
    rock = WordTokenizer().build(["rock'n'roll", "Dis-moi, peut-être."])
    assert _tokens(rock, ["rock'n'roll"])[0] == ["rock'", "n'", "roll"]
    assert _tokens(rock, ["Dis-moi, peut-être."])[0] == ["Dis-moi", ",", "peut-être", "."]


def test_round_trip_real_sentences_exact():
    for text, french in REAL_SENTENCES:
        tok = WordTokenizer(french_spacing=french).build([text])
        ids = tok.tokenize([text])
        assert ids.flat_values.numpy().min() >= NUM_RESERVED
        assert strings(tok.detokenize(ids)) == strings(tok.normalize([text])), text


def test_documented_spacing_changes():
    english = WordTokenizer().build(["Dis-moi !", "the U.N. ( x )"])
    assert strings(english.detokenize(english.tokenize(["Dis-moi !", "the U.N. ( x )"]))) == [
        "Dis-moi!",
        "the U. N. (x)",
    ]
    french = WordTokenizer(french_spacing=True).build(["Pourquoi?"])
    assert strings(french.detokenize(french.tokenize(["Pourquoi?"]))) == ["Pourquoi ?"]


def test_round_trip_test_files_up_to_spacing(shared_data):
    """Nearly every real sentence comes back exactly; the rest differ only in spaces."""
    for name, column, french, min_exact in (
        ("spa-eng.test.tsv", 0, False, 0.998),
        ("spa-eng.test.tsv", 1, False, 0.998),
        ("fra-eng.test.tsv", 0, False, 0.998),
        ("fra-eng.test.tsv", 1, True, 0.99),
    ):
        texts = list(read_columns(shared_data / name)[column])
        tok = WordTokenizer(max_vocab=None, french_spacing=french).build(texts)
        back = strings(tok.detokenize(tok.tokenize(texts)))
        norm = strings(tok.normalize(texts))
        exact = sum(a == b for a, b in zip(back, norm, strict=True)) / len(texts)
        assert exact >= min_exact, (name, column, exact)
        assert [b.replace(" ", "") for b in back] == [n.replace(" ", "") for n in norm]


def test_max_vocab_keeps_most_frequent():
    tok = WordTokenizer(max_vocab=NUM_RESERVED + 2).build(["a a a b b c", "a b ."])
    assert tok.vocabulary[NUM_RESERVED:] == ("a", "b")
    assert tok.tokenize(["a c b"]).to_list() == [[4, UNK_ID, 5]]
    assert strings(tok.detokenize(tok.tokenize(["a c b"]))) == ["a \u2047 b"]
