"""Nothing outside the root is ever opened, and every file is one document.

A hostile folder holds symlinks out of the root (as files, as folders, deep inside), swaps a
folder for a symlink after the scan, and puts a FIFO or a link to a device where the
``.dittoignore`` should be. The walker, the reader, the session and the CLI stay inside.
"""

from __future__ import annotations

import os
import shutil
import threading
from pathlib import Path

import pytest

import ditto_tui.corpus.rootdir as rootdir_mod
from ditto_tui.cli.main import main
from ditto_tui.corpus.documents import ScanOptions, Skipped
from ditto_tui.corpus.records import FileEntry
from ditto_tui.corpus.rootdir import LEAVES, OUTSIDE, THROUGH_SYMLINK, Refused, RootDir
from ditto_tui.corpus.session import CorpusSession
from ditto_tui.corpus.stream import iter_fingerprints
from ditto_tui.corpus.walk import Walker

from .conftest import TEXT_A, TEXT_B, write

SECRET = "TOP SECRET outside the root. " * 20


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    """A folder beside the corpus whose content must never be read."""
    return write(tmp_path, "outside/secret.txt", SECRET).parent


def _walk(root: Path, rel: str = "", **kw) -> tuple[list[str], dict[str, str]]:
    items = list(Walker(str(root), **kw).walk(rel))
    files = [i.id for i in items if isinstance(i, FileEntry)]
    skips = {i.id: i.reason for i in items if isinstance(i, Skipped)}
    return files, skips


# -- item 2: every component is checked, not only the last ----------------------------
@pytest.mark.parametrize("follow", [False, True])
def test_a_path_below_a_symlink_out_of_the_root_is_not_a_document(
    root: Path, outside: Path, follow: bool
) -> None:
    (root / "outlink").symlink_to(outside, target_is_directory=True)
    write(root, "deep/ok.txt", TEXT_A)
    (root / "deep" / "up").symlink_to(outside, target_is_directory=True)
    options = ScanOptions(follow_symlinks=follow)
    for rel in ("outlink/secret.txt", "outlink", "deep/up/secret.txt"):
        files, _ = _walk(root, rel, options=options)
        assert files == []
    files, skips = _walk(root, options=options)
    assert files == ["deep/ok.txt"]
    assert skips == {"deep/up": LEAVES, "outlink": LEAVES}


# -- item 3: the reader refuses, at open time, a path that now leads outside -----------
def test_preview_refuses_a_folder_swapped_for_a_symlink_after_the_scan(
    root: Path, outside: Path, pipeline
) -> None:
    write(root, "sub/secret.txt", TEXT_A)
    write(root, "other/secret.txt", TEXT_B)
    with CorpusSession(root, pipeline, use_cache=False, jobs=1) as session:
        session.scan()
        assert session.read_text("sub/secret.txt") == TEXT_A
        shutil.rmtree(root / "sub")
        (root / "sub").symlink_to(outside, target_is_directory=True)
        with pytest.raises(OSError, match=THROUGH_SYMLINK):
            session.read_text("sub/secret.txt")
        # A symlink to another folder inside the root is refused too (not the same file).
        (root / "sub").unlink()
        (root / "sub").symlink_to(root / "other", target_is_directory=True)
        with pytest.raises(OSError, match=THROUGH_SYMLINK):
            session.read_text("sub/secret.txt")


def test_reader_refuses_a_leaf_swapped_for_a_symlink(root: Path, outside: Path, pipeline) -> None:
    write(root, "a.txt", TEXT_A)
    with CorpusSession(root, pipeline, use_cache=False, jobs=1) as session:
        session.scan()
        (root / "a.txt").unlink()
        (root / "a.txt").symlink_to(outside / "secret.txt")
        with pytest.raises(OSError, match=THROUGH_SYMLINK):
            session.read_bytes("a.txt")


def test_a_folder_moved_out_of_the_root_while_opening_is_refused(
    root: Path, tmp_path: Path, monkeypatch
) -> None:
    """The race no name check can see: the descriptor's real path is checked (Linux)."""
    if rootdir_mod.fd_path(os.open("/", os.O_RDONLY)) is None:
        pytest.skip("no /proc/self/fd here")
    write(root, "sub/inner/doc.txt", TEXT_A)
    real_open = os.open
    moved = {"done": False}

    def racing_open(path, flags, *args, dir_fd=None, **kw):
        fd = real_open(path, flags, *args, dir_fd=dir_fd, **kw)
        if path == "sub" and not moved["done"]:
            moved["done"] = True
            os.rename(root / "sub", tmp_path / "moved-out")
        return fd

    gate = RootDir(root)
    monkeypatch.setattr(rootdir_mod.os, "open", racing_open)
    with pytest.raises(Refused, match=OUTSIDE):
        gate.open_file("sub/inner/doc.txt")
    monkeypatch.undo()
    assert moved["done"]
    gate.close()


def test_gate_resolves_links_inside_and_refuses_the_rest(root: Path, outside: Path) -> None:
    write(root, "real/doc.txt", TEXT_A)
    (root / "rel-link").symlink_to("real", target_is_directory=True)
    (root / "abs-link").symlink_to(root / "real", target_is_directory=True)
    (root / "dotdot").symlink_to("../outside", target_is_directory=True)
    (root / "real" / "up").symlink_to("..", target_is_directory=True)
    gate = RootDir(root)
    assert gate.resolve("rel-link/doc.txt")[0] == "real/doc.txt"
    assert gate.resolve("abs-link/doc.txt")[0] == "real/doc.txt"
    assert gate.resolve("real/up/real/up/rel-link")[0] == "real"
    for rel in ("dotdot/secret.txt", "../outside/secret.txt", "real/../../outside/secret.txt"):
        with pytest.raises(Refused, match=LEAVES):
            gate.resolve(rel)
    with pytest.raises(Refused, match=THROUGH_SYMLINK):
        gate.open_file("rel-link/doc.txt")
    followed = RootDir(root, follow=True)
    fd = followed.open_file("rel-link/doc.txt")
    assert os.read(fd, 100) == TEXT_A.encode()[:100]
    os.close(fd)
    with pytest.raises(Refused, match=LEAVES):
        followed.open_file("dotdot/secret.txt")
    os.mkfifo(root / "fifo")
    with pytest.raises(Refused, match="FIFO"):
        gate.open_file("fifo")  # refused from its lstat: never opened, never blocks


# -- item 4: .dittoignore is read under the document rules -------------------------------
def _walk_with_deadline(root: Path, seconds: float = 10.0) -> list[FileEntry | Skipped]:
    out: list[list[FileEntry | Skipped]] = []
    thread = threading.Thread(target=lambda: out.append(list(Walker(str(root)).walk())),
                              daemon=True)
    thread.start()
    thread.join(seconds)
    if thread.is_alive():  # release a reader blocked on a FIFO, then fail
        fifo = root / ".dittoignore"
        fd = os.open(fifo, os.O_WRONLY | os.O_NONBLOCK)
        os.close(fd)
        thread.join(5)
        pytest.fail("the walk hung on .dittoignore")
    return out[0]


def test_dittoignore_fifo_does_not_hang(root: Path) -> None:
    write(root, "a.txt", TEXT_A)
    os.mkfifo(root / ".dittoignore")
    items = _walk_with_deadline(root)
    assert [i.id for i in items if isinstance(i, FileEntry)] == ["a.txt"]
    skips = {i.id: i.reason for i in items if isinstance(i, Skipped)}
    assert skips == {".dittoignore": "named pipe (FIFO), not read"}


@pytest.mark.parametrize("target", ["/dev/zero", "outside"])
def test_dittoignore_link_out_of_the_root_is_not_followed(
    root: Path, outside: Path, target: str
) -> None:
    (outside / "rules").write_text("*.txt\n")
    write(root, "a.txt", TEXT_A)
    (root / ".dittoignore").symlink_to(outside / "rules" if target == "outside" else target)
    items = _walk_with_deadline(root)
    assert [i.id for i in items if isinstance(i, FileEntry)] == ["a.txt"]
    assert {i.id: i.reason for i in items if isinstance(i, Skipped)} == {".dittoignore": LEAVES}


def test_dittoignore_size_limit_and_link_inside(root: Path) -> None:
    write(root, "a.txt", TEXT_A)
    write(root, "b.log", TEXT_B)
    write(root, "conf/rules", "*.log\n")
    (root / ".dittoignore").symlink_to("conf/rules")
    items = _walk_with_deadline(root)
    assert {i.id for i in items if isinstance(i, FileEntry)} == {"a.txt", "conf/rules"}
    (root / ".dittoignore").unlink()
    write(root, ".dittoignore", "*.log\n" + "#" * (2 << 20))
    items = _walk_with_deadline(root)
    assert {i.id for i in items if isinstance(i, FileEntry)} == {"a.txt", "b.log", "conf/rules"}
    (skip,) = [i for i in items if isinstance(i, Skipped)]
    assert skip.id == ".dittoignore" and skip.reason.startswith("larger than the size limit")


# -- issue 11 item 4: one document per file ----------------------------------------------
def _layout(root: Path) -> None:
    write(root, "real/doc.txt", TEXT_A)
    write(root, "real/other.txt", TEXT_B)
    (root / "alias.txt").symlink_to("real/doc.txt")
    (root / "linked").symlink_to("real", target_is_directory=True)
    os.link(root / "real" / "other.txt", root / "zz-hardlink.txt")


def test_one_document_per_file_in_the_walk_the_session_and_the_cli(
    root: Path, pipeline, capsys
) -> None:
    _layout(root)
    files, skips = _walk(root)
    assert files == ["real/doc.txt", "real/other.txt"]
    assert skips == {
        "alias.txt": "same file as real/doc.txt",
        "linked": "symlinked folder, not followed",
        "zz-hardlink.txt": "same file as real/other.txt",
    }
    with CorpusSession(root, pipeline, use_cache=False, jobs=1) as session:
        session.scan()
        assert sorted(session.documents) == files
        assert {s.id: s.reason for s in session.skipped} == skips
    # The CLI agrees, and names the original as the CLI names documents.
    assert main(["fingerprint", "--no-cache", str(root)]) == 0
    out, err = capsys.readouterr()
    assert [line.split("\t")[1] for line in out.splitlines()] == [f"{root}/{f}" for f in files]
    assert f"skipped {root}/alias.txt: same file as {root}/real/doc.txt" in err
    assert f"skipped {root}/zz-hardlink.txt: same file as {root}/real/other.txt" in err


def test_follow_symlinks_descends_inside_the_root_once_per_file(
    root: Path, outside: Path, pipeline, capsys
) -> None:
    _layout(root)
    (root / "out").symlink_to(outside, target_is_directory=True)
    files, skips = _walk(root, options=ScanOptions(follow_symlinks=True))
    # "linked" sorts before "real": the files are met there first, the real names are aliases.
    assert files == ["linked/doc.txt", "linked/other.txt"]
    assert skips == {
        "alias.txt": "same file as real/doc.txt",
        "out": LEAVES,
        "real/doc.txt": "same file as linked/doc.txt",
        "real/other.txt": "same file as linked/other.txt",
        "zz-hardlink.txt": "same file as linked/other.txt",
    }
    assert main(["fingerprint", "--no-cache", "--follow-symlinks", str(root)]) == 0
    out, _ = capsys.readouterr()
    assert len(out.splitlines()) == 2 and "secret" not in out


def test_a_new_hard_link_seen_by_a_partial_update_is_an_alias(root: Path, pipeline) -> None:
    write(root, "a.txt", TEXT_A)
    with CorpusSession(root, pipeline, use_cache=False, jobs=1) as session:
        session.scan()
        os.link(root / "a.txt", root / "b.txt")
        session._deliver({"b.txt"}, "events")
        assert sorted(session.documents) == ["a.txt"]
        assert [(s.id, s.same_as) for s in session.skipped] == [("b.txt", "a.txt")]
        # The whole rescan agrees with the partial update.
        session.scan()
        assert sorted(session.documents) == ["a.txt"]
        assert [(s.id, s.same_as) for s in session.skipped] == [("b.txt", "a.txt")]


def test_stream_and_cache_stay_inside(root: Path, outside: Path, pipeline, tmp_path) -> None:
    write(root, "a.txt", TEXT_A)
    (root / "sub").mkdir()
    (root / "sub" / "leak.txt").symlink_to(outside / "secret.txt")
    for _ in range(2):  # cold, then warm from the cache
        out = list(iter_fingerprints([str(root)], pipeline, jobs=1, cache_dir=tmp_path / "c"))
        ids = [o[0] for o in out if not isinstance(o, Skipped)]
        assert ids == [f"{root}/a.txt"]
        assert [(s.id, s.reason) for s in out if isinstance(s, Skipped)] == [
            (f"{root}/sub/leak.txt", LEAVES)
        ]


def test_dittoignore_link_to_a_folder_is_refused(root: Path) -> None:
    """Found by the fuzz test: a .dittoignore naming the root (or any folder) is no file."""
    write(root, "a.txt", TEXT_A)
    (root / ".dittoignore").symlink_to(".", target_is_directory=True)
    items = _walk_with_deadline(root)
    assert [i.id for i in items if isinstance(i, FileEntry)] == ["a.txt"]
    assert {i.id: i.reason for i in items if isinstance(i, Skipped)} == {".dittoignore": "is a folder"}
    with pytest.raises(Refused, match="is a folder"):
        RootDir(root).open_file("")
