"""The installable package: wheel metadata, the console script, cheap imports and `--help`."""

import json
import subprocess
import sys
import zipfile
from email.parser import Parser
from pathlib import Path

import pytest

from keras_nmt.workshop.cli import COMMANDS

ROOT = Path(__file__).resolve().parents[2]
RUNTIME = ("tensorflow", "tensorflow-text", "keras", "sentencepiece", "sacrebleu", "numpy",
           "matplotlib")


def python(code, *args):
    """Runs `code` in a fresh interpreter; returns its stdout."""
    done = subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True,
                          cwd=ROOT, timeout=300, check=False)
    assert done.returncode == 0, done.stderr
    return done.stdout


@pytest.fixture(scope="module")
def wheel(tmp_path_factory):
    out = tmp_path_factory.mktemp("wheel")
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps",
                    "--no-build-isolation", "--wheel-dir", str(out), str(ROOT)],
                   check=True, capture_output=True, timeout=300)
    (path,) = out.glob("keras_nmt-*.whl")
    return zipfile.ZipFile(path)


def test_the_wheel_declares_the_runtime_dependencies_and_no_test_tools(wheel):
    (metadata,) = [n for n in wheel.namelist() if n.endswith(".dist-info/METADATA")]
    message = Parser().parsestr(wheel.read(metadata).decode())
    required = [r for r in message.get_all("Requires-Dist") if "extra ==" not in r]
    names = {r.split(";")[0].split(">")[0].split("<")[0].split("=")[0].strip() for r in required}
    assert set(RUNTIME) <= names
    assert not names & {"pytest", "pytest-xdist", "ruff", "jax", "jaxlib", "ctranslate2"}
    assert {"jax", "test", "dev", "ctranslate2"} <= set(message.get_all("Provides-Extra"))


def test_the_wheel_carries_the_command_line_and_its_entry_point(wheel):
    names = set(wheel.namelist())
    assert {f"keras_nmt/workshop/cli/{command}.py" for command in COMMANDS} <= names
    assert "keras_nmt/workshop/cli/common.py" in names and "keras_nmt/__main__.py" in names
    assert {f"keras_nmt/workshop/serve/static/{name}" for name in (
        "index.html", "explorer.js", "explorer.css")} <= names  # the page, without a build step
    (entry_points,) = [n for n in names if n.endswith(".dist-info/entry_points.txt")]
    assert "keras-nmt = keras_nmt.workshop.cli:run" in wheel.read(entry_points).decode()


def test_building_leaves_the_checkout_clean(wheel):
    del wheel  # built above, from this checkout
    status = subprocess.run(["git", "status", "--porcelain", "--ignored=no"], cwd=ROOT,
                            capture_output=True, text=True, check=False)
    if status.returncode != 0:
        pytest.skip("not a git checkout")
    built = [line for line in status.stdout.splitlines() if "build/" in line or "egg-info" in line]
    assert built == []


def test_the_installed_command_answers_help_and_version():
    script = Path(sys.executable).parent / "keras-nmt"
    if not script.exists():
        pytest.skip("keras_nmt is not installed in this environment (make test installs it)")
    done = subprocess.run([str(script), "--help"], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0
    for command in COMMANDS:
        assert f"  {command} " in done.stdout
    version = subprocess.run([str(script), "--version"], capture_output=True, text=True)
    assert version.stdout.strip() == "keras-nmt 0.1.0"


HELP_IMPORTS = """
import json, sys
from keras_nmt.workshop.cli import main
try:
    main(sys.argv[1:])
except SystemExit as exit:
    code = exit.code
print(json.dumps([code, sorted(m for m in sys.modules if m.split('.')[0] in
                               ('tensorflow', 'keras', 'jax', 'tensorflow_text', 'matplotlib'))]))
"""


@pytest.mark.parametrize("command", [None, *COMMANDS])
def test_help_imports_no_tensorflow(command):
    args = ["--help"] if command is None else [command, "--help"]
    code, heavy = json.loads(python(HELP_IMPORTS, *args).splitlines()[-1])
    assert code == 0 and heavy == []


def test_every_spell_subcommand_help_imports_no_tensorflow():
    for sub in ("train", "correct", "compare"):
        code, heavy = json.loads(python(HELP_IMPORTS, "spell", sub, "--help").splitlines()[-1])
        assert code == 0 and heavy == []


def test_import_keras_nmt_is_cheap_and_names_the_entry_points():
    out = python(
        "import sys, keras_nmt\n"
        "heavy = [m for m in sys.modules if m.split('.')[0] in ('tensorflow', 'keras')]\n"
        "print(heavy, sorted(keras_nmt.__all__))\n"
    )
    assert out.strip() == ("[] ['TrainConfig', 'TranslationTask', 'build_model', "
                           "'export_translator', 'open_translator', 'train']")


def test_tensorflow_starts_without_the_optional_imports_no_command_uses():
    """TF Lite's JAX converter and Keras's image-gallery plots stay out of a command's start
    (1.5-2 s of 7 on 2 cores); matplotlib still imports for our plots afterwards."""
    out = python(
        "import sys\n"
        "from keras_nmt.workshop.cli.common import start_tensorflow\n"
        "start_tensorflow()\n"
        "loaded = sorted(m for m in ('jax', 'matplotlib') if m in sys.modules)\n"
        "import matplotlib.pyplot, keras_nmt.workshop.plots\n"
        "print(loaded, 'keras' in sys.modules, 'tensorflow_text' in sys.modules)\n"
    )
    assert out.strip().splitlines()[-1] == "[] True True"


def test_the_entry_points_resolve_to_the_library_objects():
    import keras_nmt
    from keras_nmt.workshop.run.task import TranslationTask
    from keras_nmt.workshop.run.trainer import train
    from keras_nmt.workshop.translators.export_translator import export_translator
    from keras_nmt.workshop.translators.open_translator import open_translator

    assert keras_nmt.train is train
    assert keras_nmt.open_translator is open_translator
    assert keras_nmt.export_translator is export_translator
    assert keras_nmt.TranslationTask is TranslationTask
    assert callable(keras_nmt.build_model)


def test_python_dash_m_runs_the_command():
    done = subprocess.run([sys.executable, "-m", "keras_nmt", "--version"], cwd=ROOT,
                          capture_output=True, text=True, timeout=120)
    assert done.stdout.strip() == "keras-nmt 0.1.0"


def test_the_apps_shims_run_the_same_command():
    done = subprocess.run([sys.executable, "apps/translate.py", "--help"], cwd=ROOT,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0 and done.stdout.startswith("usage: keras-nmt translate")
    assert "sys.path" not in "".join(p.read_text() for p in (ROOT / "apps").glob("*.py"))
