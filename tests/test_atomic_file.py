import json
import os
import socket
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from keras_nmt.saved_files import read_json
from keras_nmt.workshop.arguments import check_outputs
from keras_nmt.workshop.atomic_file import atomic_path, write_json
from keras_nmt.workshop.output_file import OutputError, output_path, write_text


def test_the_file_appears_whole_when_the_block_ends(tmp_path):
    path = tmp_path / "history.json"
    path.write_text("old\n")
    with atomic_path(path) as temporary:
        # Hidden, unique to this process and call, the extension kept.
        assert temporary.parent == tmp_path and temporary.name.startswith(".history.json-")
        assert temporary.name.endswith(".json") and str(os.getpid()) in temporary.name
        temporary.write_text("new\n")
        assert path.read_text() == "old\n"  # readers see the old file until the end
        with atomic_path(path) as other:  # another writer of the same file: its own temporary
            assert other != temporary
            other.write_text("other\n")
        assert path.read_text() == "other\n" and temporary.read_text() == "new\n"
    assert path.read_text() == "new\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["history.json"]


def test_an_error_in_the_block_keeps_the_old_file_and_deletes_the_temporary(tmp_path):
    path = tmp_path / "state.npz"
    path.write_bytes(b"old")
    with pytest.raises(RuntimeError), atomic_path(path, tmp_path / "state.npz.partial") as partial:
        partial.write_bytes(b"ha")
        raise RuntimeError("disk full")
    assert path.read_bytes() == b"old"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["state.npz"]


def test_write_json(tmp_path):
    write_json(tmp_path / "a.json", {"seconds": 1.5}, indent=1)
    assert json.loads((tmp_path / "a.json").read_text()) == {"seconds": 1.5}
    assert (tmp_path / "a.json").read_text().endswith("}\n")


@pytest.mark.parametrize(("text", "state"), [
    ("", "empty"), ('{"a": ', "not JSON: Expecting value"), ("[1, 2]", "not a JSON dict")])
def test_read_json_names_a_damaged_file_and_the_way_out(tmp_path, text, state):
    path = tmp_path / "config.json"
    path.write_text(text)
    with pytest.raises(KeyError) as raised:
        read_json(path, "train again", expect=dict, error=KeyError)
    message = raised.value.args[0]
    assert message.startswith(f"{path} is damaged ({state}") and message.endswith("; train again")
    path.write_text('{"a": [1]}')
    assert read_json(path, "train again", expect=dict) == {"a": [1]}


# ------------------------------------------------------------------------------------------------
# One way to write an output: by what the path is
# ------------------------------------------------------------------------------------------------
def test_a_regular_file_keeps_its_permissions(tmp_path):
    """An existing 0600 file became 0644 (the temporary's mode) when replaced."""
    path = tmp_path / "secret.txt"
    path.write_text("old\n")
    os.chmod(path, 0o600)
    write_text(path, "new\n")
    assert path.read_text() == "new\n" and stat.S_IMODE(os.stat(path).st_mode) == 0o600


def test_a_link_is_kept_and_the_file_it_points_to_replaced(tmp_path):
    """A symbolic link to a file was replaced by a file (the target kept the old text)."""
    (tmp_path / "real").mkdir()
    target = tmp_path / "real" / "out.txt"
    target.write_text("old\n")
    link = tmp_path / "out.txt"
    link.symlink_to(target)
    write_text(link, "new\n")
    assert link.is_symlink() and os.readlink(link) == str(target)
    assert target.read_text() == "new\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.txt", "real"]
    assert sorted(p.name for p in (tmp_path / "real").iterdir()) == ["out.txt"]


def test_a_fifo_is_written_through_not_replaced(tmp_path):
    """A FIFO with a reader waiting was replaced by a file and the reader blocked forever."""
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    reader = subprocess.Popen(["cat", str(fifo)], stdout=subprocess.PIPE)
    write_text(fifo, "one\ntwo\n")
    assert reader.communicate(timeout=30)[0] == b"one\ntwo\n"
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)


def test_a_character_device_is_written_through_not_replaced(tmp_path):
    """A copy of /dev/null (`mknod`) became a 1,077-byte file."""
    device = tmp_path / "null"
    try:
        os.mknod(device, 0o666 | stat.S_IFCHR, os.makedev(1, 3))
    except PermissionError:
        device = Path("/dev/null")  # not root: the system's own
    write_text(device, "x" * 1077)
    assert stat.S_ISCHR(os.lstat(device).st_mode) and os.stat(device).st_size == 0


def test_dev_stdout_in_a_pipe_gives_the_pipe_the_output():
    """`--output /dev/stdout | wc -l` counted 0 lines (the temporary was renamed over it)."""
    code = ("from keras_nmt.workshop.lines import write_lines; "
            "write_lines('/dev/stdout', ['a', 'b', 'c'])")
    done = subprocess.run([sys.executable, "-c", code], stdout=subprocess.PIPE, check=True,
                          timeout=60)
    assert done.stdout == b"a\nb\nc\n"
    assert Path("/dev/stdout").is_symlink() or not Path("/dev/stdout").is_file()


@pytest.mark.parametrize("kind", ["folder", "socket"])
def test_anything_else_is_refused_before_the_block(tmp_path, kind):
    path = tmp_path / "out"
    if kind == "folder":
        path.mkdir()
    else:
        server = socket.socket(socket.AF_UNIX)
        server.bind(str(path))
    ran = []
    with pytest.raises(OutputError, match=f"{path} is a {kind}"), output_path(path):
        ran.append(True)
    assert not ran and sorted(p.name for p in tmp_path.iterdir()) == ["out"]


@pytest.mark.parametrize("kind", ["socket", "stdin"])
def test_check_outputs_names_the_flag(tmp_path, kind):
    """An output that is stdin's file (`translate --output a.txt < a.txt`) replaced the input
    with its own translations; a socket output failed after the work."""
    path = tmp_path / "a.txt"
    if kind == "socket":
        server = socket.socket(socket.AF_UNIX)
        server.bind(str(path))
        with pytest.raises(ValueError, match=f"--output {path} is a socket"):
            check_outputs({"--output": str(path)}, [])
        return
    path.write_text("hola\n")
    code = ("import sys; from keras_nmt.workshop.arguments import check_outputs\n"
            "try:\n    check_outputs({'--output': sys.argv[1]}, [], reads_stdin=True)\n"
            "except ValueError as e:\n    print(e)")
    with open(path) as stdin:
        done = subprocess.run([sys.executable, "-c", code, str(path)], stdin=stdin,
                              capture_output=True, text=True, check=True, timeout=60)
    assert done.stdout.strip() == (f"--output {path} is stdin: writing it would destroy the "
                                   "input; choose another --output file")
    with open(tmp_path / "b.txt", "w") as other, open(path) as stdin:  # another file: fine
        done = subprocess.run([sys.executable, "-c", code, other.name], stdin=stdin,
                              capture_output=True, text=True, check=True, timeout=60)
    assert done.stdout == ""
