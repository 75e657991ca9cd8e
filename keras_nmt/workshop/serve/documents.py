"""Translating documents: plain text cut into sentences, and HTML with its markup kept.

The models translate sentences. A document is cut into the pieces a model should see, those
are translated together (one call of `translate`, an async function of a list of strings, which
the server sends through its batcher), and the document is put back together around them.

**Text** (`translate_text`): each line on its own; a line is cut into sentences after `.`, `!`,
`?`, `…`, `;` or `。` followed by white space; the white space between them is kept as it was.

**HTML** (`translate_html`): parsed with Python's `html.parser` into a tree; every tag, its
attributes and their order, comments, the doctype and the contents of `script`, `style`, `pre`,
`code` (and of elements marked `translate="no"` or `class="notranslate"`) come back as they
were; only text changes. Attribute values are not translated. Sentences often hold inline
markup (`I went to <b>Paris</b> last summer.`): a run of text and inline elements is
translated as one sentence, and each inline element's own text is translated too and looked
for in the sentence's translation; found (in order, not overlapping), the element is put
around it (`Fui a <b>París</b> el verano pasado.`), as LibreTranslate's HTML translation does
(Argos Translate's tag injection). Where it is not found, LibreTranslate leaves the run
untranslated; here each text node of the run is translated on its own instead, in a second
call, so the text is always translated and the markup always kept. Broken HTML (an end tag
that closes nothing, an element left open that HTML does not allow to be, a tag cut off at the
end) is refused with `DocumentError` naming where, rather than repaired by guesswork.

Example:
    >>> async def shout(texts):
    ...     return [t.upper() for t in texts]
    >>> asyncio.run(translate_html('<p title="x">I saw <b>Paris</b>.</p>', shout))
    '<p title="x">I SAW <b>PARIS</b>.</p>'
"""

import asyncio  # noqa: F401 (the docstring's example)
import dataclasses
import html
import re
from html.parser import HTMLParser

# Where a line is cut into sentences: after sentence-final punctuation and white space.
_SENTENCE_END = re.compile(r"(?<=[.!?…;。])(\s+)(?=\S)")

# Elements without an end tag.
VOID = frozenset("area base br col embed hr img input link meta param source track wbr".split())
# Elements whose end tag HTML allows to leave out (closed by their parent's end, or a sibling).
OPTIONAL_END = frozenset(
    "p li dt dd option optgroup tr td th thead tbody tfoot colgroup caption rb rt rp html "
    "head body".split())
# Elements inside a sentence: a run of text and these is translated as one sentence.
INLINE = frozenset(
    "a abbr b bdi bdo cite data del dfn em font i ins kbd mark q s samp small span strong sub "
    "sup time u var code".split())
# Elements whose content is kept as it is (code, scripts, styles, preformatted text).
KEPT = frozenset("script style pre code kbd samp var textarea noscript svg math template".split())


class DocumentError(ValueError):
    """A document that cannot be translated (broken HTML): the message says where."""


def split_sentences(text):
    """`(sentences, separators)`: `text` cut after sentence-final punctuation; the white space
    between sentence i and i + 1 is `separators[i]`.

    Example:
        >>> split_sentences("Hola.  ¿Qué tal?")
        (['Hola.', '¿Qué tal?'], ['  '])
    """
    parts = _SENTENCE_END.split(text)
    return parts[0::2], parts[1::2]


def _pieces(text):
    """`(leading space, sentences, separators, trailing space)` of one stretch of text."""
    stripped = text.strip()
    if not stripped:
        return text, [], [], ""
    start = text.index(stripped[0])
    sentences, separators = split_sentences(stripped)
    return text[:start], sentences, separators, text[start + len(stripped):]


def _wordless(sentence):
    """Whether a piece holds no letter (`.`, `1.`, `--`): kept as it is, since a model asked to
    translate a lone full stop writes a sentence of its own."""
    return not any(c.isalpha() for c in sentence)


async def translate_pieces(texts, translate):
    """Each of `texts` translated sentence by sentence, its outer and inner white space kept
    (pieces without a letter kept as they are); every sentence of every text goes to one call
    of `translate`."""
    cut = [_pieces(text) for text in texts]
    flat = [sentence for _, sentences, _, _ in cut for sentence in sentences
            if not _wordless(sentence)]
    done = iter(await translate(flat) if flat else [])
    translated = (sentence if _wordless(sentence) else next(done)
                  for _, sentences, _, _ in cut for sentence in sentences)
    answers = []
    for lead, sentences, separators, trail in cut:
        if not sentences:  # white space only
            answers.append(lead)
            continue
        out = [next(translated) for _ in sentences]
        joined = "".join(s + sep for s, sep in zip(out, [*separators, ""], strict=True))
        answers.append(lead + joined + trail)
    return answers


async def translate_text(text, translate):
    """A plain-text document translated line by line, sentence by sentence (see the module)."""
    lines = text.split("\n")
    return "\n".join(await translate_pieces(lines, translate))


@dataclasses.dataclass
class Element:
    """One element of the tree: its tag as written, attributes, children (`Element`, `Text`
    or `Markup`) and how its start tag was written (`<br/>` or `<br>`)."""

    tag: str
    attrs: list
    children: list
    self_closing: bool = False
    closed: bool = True  # its end tag was written (one that HTML allows to leave out may not be)

    def kept(self):
        classes = dict(self.attrs).get("class") or ""
        return (self.tag in KEPT or dict(self.attrs).get("translate") == "no"
                or "notranslate" in classes.split())

    def text(self):
        return "".join(child.text() for child in self.children)


@dataclasses.dataclass
class Text:
    """A text node; `raw`: the content of `script` or `style`, written without escaping."""

    value: str
    raw: bool = False

    def text(self):
        return self.value


@dataclasses.dataclass
class Markup:
    """A comment, doctype or processing instruction, written back as it came."""

    value: str

    def text(self):
        return ""


class _TreeBuilder(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.root = Element("", [], [])
        self.open = [self.root]

    def _where(self):
        line, column = self.getpos()
        return f"line {line}, column {column + 1}"

    def handle_starttag(self, tag, attrs):
        current = self.open[-1]
        if current.tag == tag and tag in OPTIONAL_END and tag not in ("html", "body", "head"):
            self.open.pop().closed = False  # <li>a<li>b: the second closes the first
        element = Element(tag, attrs, [])
        self.open[-1].children.append(element)
        if tag not in VOID:
            self.open.append(element)

    def handle_startendtag(self, tag, attrs):
        self.open[-1].children.append(Element(tag, attrs, [], self_closing=True))

    def handle_endtag(self, tag):
        if tag in VOID:
            return
        for depth in range(len(self.open) - 1, 0, -1):
            if self.open[depth].tag == tag:
                between = self.open[depth + 1:]
                unclosed = [e.tag for e in between if e.tag not in OPTIONAL_END]
                if unclosed:
                    raise DocumentError(f"broken HTML: </{tag}> at {self._where()} closes "
                                        f"<{tag}> while <{unclosed[-1]}> inside it is open")
                for element in between:
                    element.closed = False
                del self.open[depth:]
                return
        raise DocumentError(f"broken HTML: </{tag}> at {self._where()} closes no open element")

    def handle_data(self, data):
        raw = self.open[-1].tag in ("script", "style")
        self.open[-1].children.append(Text(data, raw))

    def handle_comment(self, data):
        self.open[-1].children.append(Markup(f"<!--{data}-->"))

    def handle_decl(self, decl):
        self.open[-1].children.append(Markup(f"<!{decl}>"))

    def handle_pi(self, data):
        self.open[-1].children.append(Markup(f"<?{data}>"))

    def unknown_decl(self, data):
        self.open[-1].children.append(Markup(f"<![{data}]>"))


def parse_html(markup):
    """The tree (`Element` of tag `""`) of `markup`; raises `DocumentError` on broken HTML."""
    builder = _TreeBuilder()
    builder.feed(markup)
    if re.match(r"\s*<[a-zA-Z/!?]", builder.rawdata):  # a tag still incomplete at the end
        raise DocumentError(f"broken HTML: a tag is not closed at {builder._where()}")
    builder.close()
    unclosed = [e.tag for e in builder.open[1:] if e.tag not in OPTIONAL_END]
    if unclosed:
        raise DocumentError(f"broken HTML: <{unclosed[-1]}> is never closed")
    for element in builder.open[1:]:
        element.closed = False
    return builder.root


def serialize(node):
    """The HTML of a tree from `parse_html`: the markup as it came (attribute values quoted
    with `"`, characters escaped where HTML needs it), with the tree's text."""
    if isinstance(node, Text):
        return node.value if node.raw else html.escape(node.value, quote=False)
    if isinstance(node, Markup):
        return node.value
    inner = "".join(serialize(child) for child in node.children)
    if not node.tag:
        return inner
    attrs = "".join(f" {name}" if value is None else f' {name}="{html.escape(value)}"'
                    for name, value in node.attrs)
    if node.self_closing:
        return f"<{node.tag}{attrs}/>"
    end = f"</{node.tag}>" if node.closed and node.tag not in VOID else ""
    return f"<{node.tag}{attrs}>{inner}{end}"


def _is_inline(node):
    """Text, or an inline element holding text only (what can be put back into a sentence)."""
    if isinstance(node, Text):
        return True
    if isinstance(node, Markup):
        return True
    return (node.tag in INLINE and not node.self_closing
            and all(isinstance(child, Text) for child in node.children))


def _translatable(node):
    if isinstance(node, Text):
        return bool(node.value.strip())
    return isinstance(node, Element) and not node.kept() and bool(node.text().strip())


def _runs(element, runs):
    """Collects `(element, run)` for each run of `element`'s children to translate (sibling
    text and inline elements), and walks into the children that are not part of a run."""
    if element.kept():
        return
    run = []
    for child in [*element.children, None]:
        if child is not None and _is_inline(child):
            run.append(child)
            continue
        if any(_translatable(node) for node in run):
            runs.append((element, run))
        run = []
        if isinstance(child, Element):
            _runs(child, runs)


def _inject(parent, run, whole, parts):
    """Puts the inline elements of `run` (children of `parent`) around their translations
    `parts` found, in order, in `whole` (the run's translation); `False` when one is not found,
    or they overlap. A kept element (`code`) is looked for as it is, and keeps its text."""
    elements = [node for node in run if isinstance(node, Element)]
    found, start, lowered = [], 0, whole.lower()
    for element, part in zip(elements, parts, strict=True):
        part = (element.text() if element.kept() else part).strip()
        if not element.kept():
            part = part.rstrip(".!?;")
        at = lowered.find(part.lower(), start) if part else -1
        if at < 0:
            return False
        found.append((at, at + len(part)))
        start = at + len(part)
    # The run becomes: text, element, text, ..., element, text; comments and the like stay
    # after the text of the gap they were in.
    markup, gap = {}, 0
    for node in run:
        if isinstance(node, Element):
            gap += 1
        elif isinstance(node, Markup):
            markup.setdefault(gap, []).append(node)
    nodes, position = [], 0
    for gap, ((at, end), element) in enumerate(zip(found, elements, strict=True)):
        if whole[position:at]:
            nodes.append(Text(whole[position:at]))
        nodes += markup.get(gap, [])
        if not element.kept():
            element.children = [Text(whole[at:end])]
        nodes.append(element)
        position = end
    if whole[position:]:
        nodes.append(Text(whole[position:]))
    nodes += markup.get(len(elements), [])
    first = next(i for i, child in enumerate(parent.children) if child is run[0])
    parent.children[first:first + len(run)] = nodes
    return True


async def translate_html(markup, translate):
    """An HTML document with its text translated and its markup kept (see the module)."""
    root = parse_html(markup)
    runs = []
    _runs(root, runs)
    wholes = ["".join(node.text() for node in run) for _, run in runs]
    inline = [[e.text() for e in run if isinstance(e, Element)] for _, run in runs]
    translated = await translate_pieces(wholes + [t for texts in inline for t in texts],
                                        translate)
    parts = iter(translated[len(runs):])
    failed = []
    for (parent, run), translation, texts in zip(runs, translated, inline, strict=False):
        own = [next(parts) for _ in texts]
        if not _inject(parent, run, translation, own):
            failed.append(run)
    # Where injection failed: every text node of the run on its own (a second call).
    nodes = [node for run in failed for node in _text_nodes(run)]
    for node, text in zip(nodes, await translate_pieces([n.value for n in nodes], translate),
                          strict=True):
        node.value = text
    return serialize(root)


def _text_nodes(run):
    nodes = []
    for node in run:
        if isinstance(node, Text):
            nodes.append(node)
        elif isinstance(node, Element) and not node.kept():
            nodes.extend(child for child in node.children if isinstance(child, Text))
    return nodes
