"""The package import graph has no cycle and follows the layering of docs/architecture.md.

The graph is built from the source with `ast` (nothing is imported): an edge `a -> b` for every
`import keras_nmt.b...` / `from keras_nmt.b... import ...` / `from keras_nmt import b` in a module
of package `a`, wherever the statement sits (module level or inside a function, so a hidden
function-local import counts too). The allowed layering is read from the table in
docs/architecture.md, the one place that states it.
"""

import ast
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "keras_nmt"
PAGE = ROOT / "docs" / "architecture.md"


def read_layering(text):
    """`{package: level}` from the table between the `layering` comments of the page."""
    block = re.search(r"<!-- layering:.*?-->(.*?)<!-- end layering -->", text, re.S)
    assert block, "docs/architecture.md lost its layering table"
    levels = {}
    for line in block.group(1).splitlines():
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if len(cells) < 2 or not cells[0].isdigit():
            continue  # the header and separator rows
        for name in cells[1].split(","):
            assert name.strip() not in levels, f"{name.strip()} is listed twice"
            levels[name.strip()] = int(cells[0])
    return levels


def package_of(module):
    """`keras_nmt.decoding.greedy` -> `decoding`; `keras_nmt.plural` -> `plural`;
    `keras_nmt.workshop.cli.train` -> `workshop.cli`; `keras_nmt`, `keras_nmt.workshop` -> None."""
    parts = module.split(".")
    if len(parts) > 2 and parts[1] == "workshop":
        return f"workshop.{parts[2]}"
    return parts[1] if len(parts) > 1 and parts[1] != "workshop" else None


def imported_packages(tree):
    """The keras_nmt packages a module imports, anywhere in its body."""
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            modules = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            assert node.level == 0, "relative imports hide the package they import"
            if node.module in ("keras_nmt", "keras_nmt.workshop"):  # `from keras_nmt import text`
                modules = [f"{node.module}.{alias.name}" for alias in node.names]
            else:
                modules = [node.module or ""]
        else:
            continue
        found.update(package_of(m) for m in modules if m.startswith("keras_nmt"))
    found.discard(None)
    return found


def import_graph():
    """`{package: packages it imports}` over every module of keras_nmt (self-edges dropped)."""
    graph = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = path.relative_to(ROOT).with_suffix("").parts
        source = package_of(".".join(parts))
        if source is None or source.endswith("__init__"):  # keras_nmt/(workshop/)__init__.py
            continue
        edges = graph.setdefault(source, set())
        edges.update(imported_packages(ast.parse(path.read_text(encoding="utf-8"))) - {source})
    return graph


def find_cycle(graph):
    """One cycle as a list of packages, or `None` (depth-first search)."""
    state, stack = {}, []

    def visit(node):
        state[node] = "open"
        stack.append(node)
        for target in sorted(graph.get(node, ())):
            if state.get(target) == "open":
                return stack[stack.index(target):] + [target]
            if target not in state and (cycle := visit(target)):
                return cycle
        state[node] = "done"
        stack.pop()
        return None

    for node in sorted(graph):
        if node not in state and (cycle := visit(node)):
            return cycle
    return None


LEVELS = read_layering(PAGE.read_text(encoding="utf-8"))
GRAPH = import_graph()


def test_the_layering_table_reads_as_the_page_states_it():
    assert LEVELS["special_ids"] == 0
    order = ["models", "decoding", "inference", "training", "workshop.comparison"]
    assert [LEVELS[name] for name in order] == sorted({LEVELS[name] for name in order})
    assert LEVELS["text"] == LEVELS["data"] < LEVELS["models"]
    assert LEVELS["training"] == LEVELS["export"]


def test_every_package_is_placed_in_the_table():
    unplaced = sorted(set(GRAPH) - set(LEVELS))
    assert not unplaced, f"add {unplaced} to the layering table of docs/architecture.md"
    missing = sorted(set(LEVELS) - set(GRAPH))
    assert not missing, f"the table lists packages that do not exist: {missing}"


def test_the_import_graph_has_no_cycle():
    assert find_cycle(GRAPH) is None, f"import cycle: {' -> '.join(find_cycle(GRAPH))}"


def test_every_import_goes_down_the_layers():
    upward = sorted(
        f"{source} (level {LEVELS[source]}) imports {target} (level {LEVELS[target]})"
        for source, targets in GRAPH.items()
        for target in targets
        if LEVELS[target] >= LEVELS[source]
    )
    assert not upward, "imports against docs/architecture.md:\n" + "\n".join(upward)


# Outside keras_nmt/workshop/ but not the textbook: the command's `python -m keras_nmt`, and
# the package's own `__init__` (skipped by the graph), the front door naming the entry points of
# both halves.
COMMAND = {"__main__"}


# The textbook's size in lines (docstrings, comments and blank lines included): every module of
# keras_nmt outside keras_nmt/workshop/ and __main__.py. The goal is about 9,000 (JoeyNMT's whole
# package is 9,420); this bound keeps it from growing back while it is above (docs/decisions.md:
# what keeps it there).
TEXTBOOK_LINES = 9_740


def textbook_files():
    return sorted(path for path in PACKAGE.rglob("*.py")
                  if "workshop" not in path.relative_to(PACKAGE).parts
                  and path.name != "__main__.py")


def test_the_textbook_stays_small():
    lines = sum(len(path.read_text(encoding="utf-8").splitlines()) for path in textbook_files())
    assert lines <= TEXTBOOK_LINES, (
        f"the textbook has {lines} lines (at most {TEXTBOOK_LINES}): a module that is machinery "
        "rather than lesson belongs in keras_nmt/workshop/")


def test_the_textbook_never_imports_the_workshop():
    """Every module of keras_nmt outside keras_nmt/workshop/ imports nothing of the workshop."""
    offenders = sorted(
        f"{source} imports {target}" for source, targets in GRAPH.items()
        if not source.startswith("workshop.") and source not in COMMAND for target in targets
        if target.startswith("workshop.")
    )
    assert not offenders, "\n".join(offenders)


@pytest.mark.parametrize("graph, cycle", [
    ({"a": {"b"}, "b": {"c"}, "c": {"a"}}, ["a", "b", "c", "a"]),
    ({"a": {"b"}, "b": {"c"}, "c": set()}, None),
    ({"a": {"b", "c"}, "b": {"c"}, "c": {"b"}}, ["b", "c", "b"]),
])
def test_the_cycle_finder_finds_cycles(graph, cycle):
    assert find_cycle(graph) == cycle


def test_the_graph_sees_function_local_and_package_imports():
    code = (
        "import keras\n"
        "from keras_nmt import text\n"
        "from keras_nmt.decoding.greedy import greedy_decode\n"
        "def f():\n"
        "    import keras_nmt.training.fit\n"
    )
    assert imported_packages(ast.parse(code)) == {"text", "decoding", "training"}
    code = ("from keras_nmt.workshop import interruption\n"
            "from keras_nmt.workshop.cli.common import command\n")
    assert imported_packages(ast.parse(code)) == {"workshop.interruption", "workshop.cli"}


# Where a module is imported by a computed name: the command line's subcommands (so `--help`
# imports no TensorFlow), the model folders the registry names, the comparison presets other
# packages register. Everything else is a plain import statement.
IMPORT_BY_NAME = {"keras_nmt/workshop/cli/__init__.py", "keras_nmt/models/registry.py",
                  "keras_nmt/workshop/comparison/preset_registry.py",
                  # its "module:function" strings go with the one decoding loop (issue 70)
                  "keras_nmt/decoding/strategies.py"}


def test_modules_are_imported_by_name_only_at_the_plugin_points():
    found = sorted(
        str(path.relative_to(ROOT)) for path in PACKAGE.rglob("*.py")
        if "import_module(" in path.read_text(encoding="utf-8")
    )
    assert set(found) <= IMPORT_BY_NAME, f"plain imports instead of import_module in {found}"
