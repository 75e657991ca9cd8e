"""README.md and docs/: fences closed, relative links alive, the quickstarts as written."""

import importlib
import re
import shlex
from pathlib import Path

import pytest
from markdown_it import MarkdownIt

import keras_nmt
from tests.docs.markdown_blocks import REPOSITORY, fence_after, fences

DOCUMENTS = [REPOSITORY / "README.md", *sorted((REPOSITORY / "docs").rglob("*.md"))]
# Pages whose diagrams use plain fences; the language rule below applies to all the others.
PLAIN_FENCES_ALLOWED = {"docs/architecture.md"}
SUBCOMMANDS = ("train", "translate", "evaluate", "export", "import", "serve", "compare",
               "benchmark", "spell", "demo")
# Sizes the README's Python quickstart is run with here: the same code, a few seconds of training.
TINY = {"train_size": 200, "epochs": 1, "units": 16, "embedding_dim": 8}


def _name(path):
    return str(path.relative_to(REPOSITORY))


@pytest.mark.parametrize("path", DOCUMENTS, ids=_name)
def test_every_code_fence_is_closed_and_names_its_language(path):
    """A fence left open, or closed twice, turns the rest of a page into one code block.

    Every opening fence names its language, so a stray closing fence (which would open a block
    with no language) is caught as well as an unclosed one.
    """
    text = path.read_text()
    found = fences(text)
    assert [f.line for f in found if not f.closed] == [], f"{_name(path)}: unclosed fence"
    if _name(path) not in PLAIN_FENCES_ALLOWED:
        assert [f.line for f in found if not f.info] == [], f"{_name(path)}: fence, no language"
    # CommonMark agrees: the same fences, and every "#" line outside them is a heading.
    tokens = MarkdownIt("commonmark").parse(text)
    assert len([t for t in tokens if t.type == "fence"]) == len(found)
    inside = {line for f in found for line in range(f.line, f.line + f.text.count("\n") + 2)}
    headings = [i + 1 for i, line in enumerate(text.splitlines())
                if re.match(r"#{1,6} ", line) and i + 1 not in inside]
    assert len([t for t in tokens if t.type == "heading_open"]) == len(headings)


def _links(text):
    """Every link and image target of a CommonMark document."""
    targets = []
    for token in MarkdownIt("commonmark").parse(text):
        for child in token.children or []:
            if child.type == "link_open":
                targets.append(child.attrs["href"])
            elif child.type == "image":
                targets.append(child.attrs["src"])
    return targets


@pytest.mark.parametrize("path", DOCUMENTS, ids=_name)
def test_every_relative_link_points_at_a_file_that_exists(path):
    relative = [t for t in _links(path.read_text())
                if not re.match(r"[a-z][a-z0-9+.-]*:", t) and not t.startswith("#")]
    missing = [t for t in relative if not (path.parent / t.split("#")[0]).exists()]
    assert missing == [], f"{_name(path)} links to missing files"


def test_the_link_check_sees_links():
    """The link test is not vacuous: the README links to its pages and its plot."""
    links = _links((REPOSITORY / "README.md").read_text())
    assert "docs/results/spa-eng.png" in links and "docs/training.md" in links


def _quickstart_commands():
    """The `keras-nmt ...` command lines of the README's shell quickstart, continuations joined."""
    block = fence_after((REPOSITORY / "README.md").read_text(), "<!-- quickstart -->", "bash")
    lines = block.text.replace("\\\n", " ").splitlines()
    return [shlex.split(line, comments=True) for line in lines if line.startswith("keras-nmt ")]


def test_the_shell_quickstart_uses_real_subcommands():
    commands = _quickstart_commands()
    assert [c[1] for c in commands] == ["train", "translate", "evaluate", "export"]
    assert all(c[1] in SUBCOMMANDS for c in commands)


def test_the_shell_quickstart_parses():
    """Each quickstart command's flags are accepted by its subcommand's parser (not run)."""
    spec = importlib.util.find_spec("keras_nmt.workshop.cli")
    if spec is None or not Path(spec.origin).is_relative_to(REPOSITORY):
        pytest.skip("keras_nmt.workshop.cli (the keras-nmt command) is not in this checkout")
    for command in _quickstart_commands():
        parser = importlib.import_module(f"keras_nmt.workshop.cli.{command[1]}").build_parser()
        try:  # sentences may follow options, as `translate` parses them
            args = parser.parse_intermixed_args(command[2:])
        except TypeError:  # a parser with subcommands (spell) cannot intermix
            args = parser.parse_args(command[2:])
        assert args is not None, command


def _python_quickstart():
    """The first ```python block after the README's '## Python' heading."""
    return fence_after((REPOSITORY / "README.md").read_text(), "\n## Python\n", "python").text


def test_the_python_quickstart_names_the_tiny_sizes():
    """The sizes the executed test shrinks are keyword arguments of the quickstart."""
    code = _python_quickstart()
    assert all(re.search(rf"\b{name}=\d+", code) for name in TINY), code


@pytest.mark.slow
def test_the_python_quickstart_runs(tmp_path, monkeypatch, capsys):
    if not hasattr(keras_nmt, "train"):
        pytest.skip("keras_nmt.train (the top-level Python API) is not in this checkout")
    code = _python_quickstart()
    for name, value in TINY.items():
        code = re.sub(rf"\b{name}=\d+", f"{name}={value}", code)
    code = code.replace("TrainConfig(", "TrainConfig(valid_size=40, validation_sentences=20, "
                        "verbose=0, ", 1)
    # One beam size traced instead of eight (the export's default); the exports' own tests
    # check every size.
    code = code.replace('export_translator("runs/quick")',
                        'export_translator("runs/quick", max_beam_size=1)', 1)
    assert "max_beam_size=1" in code, code
    monkeypatch.chdir(tmp_path)
    namespace = {}
    exec(compile(code, "README.md (Python quickstart)", "exec"), namespace)
    assert 0.0 <= namespace["result"].scores["bleu"] <= 100.0
    assert Path(namespace["path"]).is_dir()
    assert (tmp_path / "runs" / "quick" / "model.keras").is_file()
    printed = capsys.readouterr().out
    assert "['" in printed  # the translators' lists of strings
