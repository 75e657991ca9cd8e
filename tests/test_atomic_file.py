import json
import os

import pytest

from keras_nmt.atomic_file import atomic_path, read_json, write_json


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
