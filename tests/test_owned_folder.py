"""The one way a folder is made or replaced (`keras_nmt.workshop.owned_folder`)."""

import json
import os
import subprocess
import sys
import time

import pytest

from keras_nmt.workshop.owned_folder import (
    MANIFEST_FILE,
    OWNERLESS_AGE,
    FolderError,
    FolderWriter,
    folder_lock,
    owner,
    owner_is_dead,
    partial_name,
    remove_dead_partials,
)


def dead_owner():
    """The owner string of a process that has ended (same host and PID namespace)."""
    code = "from keras_nmt.workshop.owned_folder import owner; print(owner())"
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=True, timeout=60).stdout.strip()


def write(folder, **files):
    for name, text in files.items():
        path = folder / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)


def test_a_new_folder_is_made_whole_with_a_manifest_of_its_names(tmp_path):
    final = tmp_path / "run"
    with FolderWriter(final) as writer:
        write(writer.partial, **{"config.json": "{}", "tokenizers/source/vocab.txt": "a"})
        assert not final.exists() and writer.partial.parent == tmp_path
        assert writer.partial.name.startswith(".run.partial-" + owner())
    assert sorted(p.name for p in tmp_path.iterdir()) == ["run"]  # no lock file left either
    assert json.loads((final / MANIFEST_FILE).read_text()) == {"names": ["config.json",
                                                                         "tokenizers"]}


def test_force_replaces_only_our_names_and_keeps_the_users(tmp_path):
    """`import --force` onto an earlier import deleted the user's notes.txt and results/."""
    final = tmp_path / "run"
    with FolderWriter(final) as writer:
        write(writer.partial, **{"config.json": "old", "model.keras": "old"})
    write(final, **{"notes.txt": "mine", "results/bleu.txt": "mine"})
    with FolderWriter(final, force=True) as writer:
        write(writer.partial, **{"config.json": "new", "import.json": "new"})
    assert {p.name: p.read_text() for p in final.iterdir() if p.is_file()} == {
        "config.json": "new", "import.json": "new", "notes.txt": "mine",
        MANIFEST_FILE: json.dumps({"names": ["config.json", "import.json"]}, indent=1) + "\n"}
    assert (final / "results" / "bleu.txt").read_text() == "mine"


def test_without_force_an_existing_folder_is_refused(tmp_path):
    (tmp_path / "run").mkdir()
    with pytest.raises(FileExistsError, match="use --force"), FolderWriter(tmp_path / "run"):
        pass


def test_force_refuses_a_folder_of_files_we_did_not_write(tmp_path):
    write(tmp_path / "runs", **{"thesis.txt": "mine"})
    with pytest.raises(FolderError, match="holds files keras-nmt did not write"), \
            FolderWriter(tmp_path / "runs", force=True):
        pass
    assert os.listdir(tmp_path / "runs") == ["thesis.txt"]


def test_a_folder_that_appears_meanwhile_is_never_deleted(tmp_path):
    """`import` checked at its start that --output-dir did not exist and ended with
    `rmtree(output_dir)`: a folder the user made meanwhile (holding thesis.txt) was deleted."""
    final = tmp_path / "x93"
    with pytest.raises(FolderError, match="x93 holds files keras-nmt did not write"), \
            FolderWriter(final, force=False) as writer:
        write(writer.partial, **{"config.json": "{}"})
        write(final, **{"thesis.txt": "mine"})
    assert os.listdir(final) == ["thesis.txt"] and sorted(os.listdir(tmp_path)) == ["x93"]


def test_a_folder_of_our_names_that_appears_meanwhile_is_not_replaced_without_force(
        tmp_path):
    """A writer that takes no lock (an earlier keras-nmt)
    moved its folder in while we worked: its names look like ours, but without --force nothing
    of it was asked to be replaced (it was)."""
    final = tmp_path / "1"
    with pytest.raises(FileExistsError, match="1 was written by another writer meanwhile; "
                       "choose another --version, or add --force"), \
            FolderWriter(final, flag="--version", known=("saved_model.pb",)) as writer:
        write(writer.partial, **{"saved_model.pb": "ours"})
        write(final, **{"saved_model.pb": "theirs"})
    assert (final / "saved_model.pb").read_text() == "theirs"
    assert sorted(os.listdir(tmp_path)) == ["1"]


def test_two_writers_of_one_folder_one_wins_the_other_is_refused(tmp_path):
    """Two imports into one new folder both printed "imported" and one result was lost."""
    final = tmp_path / "x93"
    with FolderWriter(final) as first:
        with pytest.raises(FolderError, match=r"x93 is being written by another keras-nmt "
                           rf"\(PID {os.getpid()}\); wait .* choose another --output-dir"):
            with FolderWriter(final):
                pass
        write(first.partial, **{"config.json": "first"})
    assert (final / "config.json").read_text() == "first"
    with folder_lock(final, "--output-dir"):  # the lock is free again
        pass


def test_errors_name_the_folder_not_the_hidden_partial(tmp_path):
    final = tmp_path / "saved"
    with pytest.raises(OSError) as raised, FolderWriter(final) as writer:
        open(writer.partial / "missing" / "saved_model.pb")
    assert raised.value.filename == str(final) and ".partial-" not in str(raised.value)


def test_partials_are_removed_only_when_their_owner_is_provably_dead(tmp_path):
    """A live export in another PID namespace (a second container on a shared volume) was
    taken for dead ("no such PID here") and its partial deleted; a killed import's partial,
    with no PID in its name, was never removed."""
    host, namespace, pid, start = owner().split("-")
    dead = tmp_path / f".a.partial-{dead_owner()}-0001"
    live = tmp_path / partial_name("a")
    other_namespace = tmp_path / f".a.partial-{host}-{int(namespace) + 1}-999999999-5-0002"
    other_host = tmp_path / f".a.partial-00000000-{namespace}-999999999-5-0003"
    reused_pid = tmp_path / f".a.partial-{host}-{namespace}-{pid}-{int(start) + 1}-0004"
    unknown = tmp_path / ".a.partial-x1y2z3_q"  # no owner in the name (mkdtemp's): no proof
    for folder in (dead, live, other_namespace, other_host, reused_pid, unknown):
        folder.mkdir()
    assert [owner_is_dead(f) for f in (dead, live, other_namespace, other_host, reused_pid,
                                       unknown)] == [True, False, False, False, True, False]
    # Ownerless (earlier versions'): dead once it and all in it are older than OWNERLESS_AGE.
    (unknown / "variables").mkdir()
    later = time.time() + OWNERLESS_AGE + 60
    assert owner_is_dead(unknown, now=later)
    assert not owner_is_dead(tmp_path / ".a.partial-not-ours", now=later)  # not our name
    os.utime(unknown / "variables", (later, later))  # written inside meanwhile: not dead
    assert not owner_is_dead(unknown, now=later)
    remove_dead_partials(tmp_path)
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(
        p.name for p in (live, other_namespace, other_host, unknown))


def test_a_killed_writers_partial_is_removed_by_the_next_writer_of_any_folder_there(tmp_path):
    """A killed import left `.NAME.partial-*` that nothing removed."""
    killed = tmp_path / f".x93.partial-{dead_owner()}-0001"
    killed.mkdir()
    (killed / "model.keras").write_text("half")
    with FolderWriter(tmp_path / "other") as writer:
        write(writer.partial, **{"config.json": "{}"})
    assert sorted(os.listdir(tmp_path)) == ["other"]
