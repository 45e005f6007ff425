"""A user opens a folder: which files become documents, which are skipped and why."""

from __future__ import annotations

import errno
import os
import socket
from pathlib import Path

import pytest

from ditto_tui.core.fingerprint.pipeline import make_pipeline
from ditto_tui.corpus.documents import ScanOptions, Skipped, display_id
from ditto_tui.corpus.records import FileEntry
from ditto_tui.corpus.stream import go_clean, go_join, iter_fingerprints
from ditto_tui.corpus.walk import Walker, walk_order_key

from .conftest import IS_ROOT, TEXT_A, TEXT_B, write


def walk(root: Path, **kw) -> tuple[list[FileEntry], dict[str, str]]:
    items = list(Walker(str(root), **kw).walk())
    files = [i for i in items if isinstance(i, FileEntry)]
    skips = {i.id: i.reason for i in items if isinstance(i, Skipped)}
    return files, skips


def test_folder_is_walked_depth_first_in_byte_order(root: Path) -> None:
    for rel in ["b.txt", "a/z.txt", "a/b/c.txt", "B.txt", "a.txt", "é.txt", "a-b.txt"]:
        write(root, rel, TEXT_A)
    files, skips = walk(root)
    assert [f.id for f in files] == [
        "B.txt", "a/b/c.txt", "a/z.txt", "a-b.txt", "a.txt", "b.txt", "é.txt",
    ]  # the names of one folder in byte order; a folder is entered where its name sorts
    assert sorted(reversed([f.id for f in files]), key=walk_order_key) == [f.id for f in files]
    assert skips == {}
    assert all(f.path == str(root / f.id) and f.kind == "text" for f in files)


def test_html_is_a_document_and_html_pipeline_skips_other_files(root: Path) -> None:
    write(root, "page.HTML", "<html><body>hi</body></html>")
    write(root, "notes.txt", TEXT_A)
    files, _ = walk(root)
    assert {f.id: f.kind for f in files} == {"page.HTML": "html", "notes.txt": "text"}
    html = make_pipeline("html")
    files, skips = walk(root, accepts=html.accepts, pipeline_name=html.name)
    # notes.txt is left to its first bytes (read later); page.HTML is a page by its name
    assert {f.id: (f.kind, f.sniff) for f in files} == {
        "notes.txt": ("html", True), "page.HTML": ("html", False)
    }
    assert skips == {}
    files, skips = walk(root, accepts=html.accepts, pipeline_name=html.name, sniff=False)
    assert [f.id for f in files] == ["page.HTML"]
    assert skips == {"notes.txt": "not accepted by the html pipeline"}


def test_special_files_are_skipped_without_being_opened(root: Path, pipeline) -> None:
    os.mkfifo(root / "pipe")
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        sock.bind(str(root / "sock"))
        write(root, "ok.txt", TEXT_A)
        # A FIFO would block a naive reader forever: the whole fingerprint stream must end.
        out = list(iter_fingerprints([str(root)], pipeline, use_cache=False))
    finally:
        sock.close()
    skips = {s.id.rsplit("/", 1)[-1]: s.reason for s in out if isinstance(s, Skipped)}
    assert skips == {"pipe": "named pipe (FIFO), not read", "sock": "socket, not read"}
    assert [i for i, _ in (o for o in out if not isinstance(o, Skipped))] == [f"{root}/ok.txt"]


def test_devices_are_skipped(tmp_path: Path) -> None:
    link_root = tmp_path / "dev"
    link_root.mkdir()
    if not os.path.exists("/dev/null"):
        pytest.skip("no /dev/null")
    # A symlink to a device inside the root cannot be made; walk a root holding a device node
    # when we may create one (root), else check the classification through /dev itself.
    if IS_ROOT:
        os.mknod(link_root / "null", 0o600 | 0o020000, os.makedev(1, 3))
        _, skips = walk(link_root)
        assert skips == {"null": "device, not read"}
    else:
        entry = Walker("/dev/null").walk()
        assert [s.reason for s in entry] == ["device, not read"]


def test_binary_and_large_files(root: Path) -> None:
    write(root, "image.bin", b"\x89PNG\0\0" + b"x" * 100)
    write(root, "late-nul.txt", b"a" * 9000 + b"\0")  # NUL after the first 8 KiB: text
    write(root, "big.txt", b"y" * 2000)
    write(root, "small.txt", TEXT_A)
    pipeline = make_pipeline("ditto")
    out = list(iter_fingerprints(
        [str(root)], pipeline, options=ScanOptions(max_size=1000), use_cache=False
    ))
    ids = {o[0].rsplit("/", 1)[-1] for o in out if not isinstance(o, Skipped)}
    skips = {s.id.rsplit("/", 1)[-1]: s.reason for s in out if isinstance(s, Skipped)}
    assert ids == {"small.txt"}
    assert skips["image.bin"] == "binary file"
    assert skips["big.txt"].startswith("larger than the size limit")
    assert skips["late-nul.txt"].startswith("larger than the size limit")
    out = list(iter_fingerprints(
        [str(root)], pipeline, options=ScanOptions(include_binary=True), use_cache=False
    ))
    ids = {o[0].rsplit("/", 1)[-1] for o in out if not isinstance(o, Skipped)}
    assert ids == {"image.bin", "late-nul.txt", "big.txt", "small.txt"}


def test_symlinks(root: Path, tmp_path: Path) -> None:
    outside = write(tmp_path, "outside/secret.txt", TEXT_B)
    write(root, "real/doc.txt", TEXT_A)
    (root / "to-outside.txt").symlink_to(outside)
    (root / "to-outside-dir").symlink_to(outside.parent, target_is_directory=True)
    (root / "alias.txt").symlink_to(root / "real" / "doc.txt")
    (root / "broken").symlink_to(root / "nowhere")
    (root / "loop-a").symlink_to(root / "loop-b")
    (root / "loop-b").symlink_to(root / "loop-a")
    (root / "real" / "up").symlink_to(root, target_is_directory=True)
    files, skips = walk(root)
    # One document per file: the in-root link to a file is an alias, folders are not followed.
    assert [f.id for f in files] == ["real/doc.txt"]
    assert skips == {
        "alias.txt": "same file as real/doc.txt",
        "broken": "broken symlink",
        "loop-a": "symlink loop",
        "loop-b": "symlink loop",
        "real/up": "symlinked folder, not followed",
        "to-outside-dir": "symlink leaves the folder",
        "to-outside.txt": "symlink leaves the folder",
    }
    files, skips = walk(root, options=ScanOptions(follow_symlinks=True))
    assert [f.id for f in files] == ["real/doc.txt"]
    assert skips["real/up"] == "symlink loop"
    assert skips["alias.txt"] == "same file as real/doc.txt"
    assert skips["to-outside-dir"] == "symlink leaves the folder"


def test_unreadable_file_and_folder(root: Path, pipeline, monkeypatch) -> None:
    secret = write(root, "secret.txt", TEXT_A)
    locked = root / "locked"
    write(root, "locked/inner.txt", TEXT_B)
    write(root, "open.txt", TEXT_B)
    if IS_ROOT:
        # root reads through chmod 000: simulate the permission errors the OS would raise.
        import ditto_tui.corpus.rootdir as rootdir_mod
        import ditto_tui.corpus.walk as walk_mod

        real_open, real_scandir = os.open, os.scandir

        def fake_open(path, flags, *a, dir_fd=None, **kw):
            if os.fspath(path) == "secret.txt":
                raise PermissionError(errno.EACCES, "Permission denied", path)
            return real_open(path, flags, *a, dir_fd=dir_fd, **kw)

        def fake_scandir(path="."):
            if isinstance(path, int) and os.readlink(f"/proc/self/fd/{path}") == str(locked):
                raise PermissionError(errno.EACCES, "Permission denied", path)
            return real_scandir(path)

        monkeypatch.setattr(rootdir_mod.os, "open", fake_open)
        monkeypatch.setattr(walk_mod.os, "scandir", fake_scandir)
    else:
        secret.chmod(0)
        locked.chmod(0)
    try:
        out = list(iter_fingerprints([str(root)], pipeline, use_cache=False, jobs=1))
    finally:
        secret.chmod(0o644)
        locked.chmod(0o755)
    skips = {s.id.removeprefix(str(root) + "/"): s.reason for s in out if isinstance(s, Skipped)}
    assert skips == {
        "locked": "cannot open folder: permission denied",
        "secret.txt": "permission denied",
    }
    assert [o[0] for o in out if not isinstance(o, Skipped)] == [f"{root}/open.txt"]


def test_path_too_long_is_skipped(root: Path) -> None:
    write(root, "short.txt", TEXT_A)
    # Build a chain of folders longer than PATH_MAX using directory file descriptors.
    fd = os.open(root, os.O_RDONLY)
    name = "d" * 200
    try:
        for _ in range(25):
            os.mkdir(name, dir_fd=fd)
            new = os.open(name, os.O_RDONLY, dir_fd=fd)
            os.close(fd)
            fd = new
        leaf = os.open("deep.txt", os.O_WRONLY | os.O_CREAT, 0o644, dir_fd=fd)
        os.write(leaf, b"deep")
        os.close(leaf)
    finally:
        os.close(fd)
    files, skips = walk(root)
    assert [f.id for f in files] == ["short.txt"]
    assert len(skips) == 1
    ((rel, reason),) = skips.items()
    assert reason == "path too long for the system"
    assert rel.startswith(name + "/") and len(os.fsencode(str(root / rel))) >= 4096


def test_non_utf8_names_are_kept_and_shown_escaped(root: Path, pipeline) -> None:
    raw = os.fsencode(str(root)) + b"/caf\xe9.txt"
    with open(raw, "wb") as f:
        f.write(TEXT_A.encode())
    files, skips = walk(root)
    assert skips == {}
    (entry,) = files
    assert os.fsencode(entry.id) == b"caf\xe9.txt"
    assert display_id(entry.id) == "caf\\xe9.txt"
    ((ident, fp),) = list(iter_fingerprints([str(root)], pipeline, use_cache=False))
    assert os.fsencode(ident) == raw
    assert fp == pipeline.fingerprint(TEXT_A.encode())


def test_ignore_defaults_option_and_dittoignore(root: Path) -> None:
    for rel in [".git/config", "node_modules/x/i.js", "src/__pycache__/m.pyc", "src/m.py",
                "build/out.txt", "notes/draft.tmp", "notes/keep.txt", "logs/a.log"]:
        write(root, rel, TEXT_A)
    write(root, ".dittoignore", "# comment\nbuild/\n*.tmp\n")
    files, skips = walk(root, options=ScanOptions(ignore=("logs",)))
    assert [f.id for f in files] == ["notes/keep.txt", "src/m.py"]
    assert skips == {}


def test_ditto_compatible_ids(tmp_path: Path, pipeline, monkeypatch) -> None:
    root = tmp_path / "c"
    write(root, "x/a.txt", TEXT_A)
    write(root, "b.txt", TEXT_B)
    monkeypatch.chdir(tmp_path)
    ids = [o[0] for o in iter_fingerprints(["c"], pipeline, use_cache=False)]
    assert ids == ["c/b.txt", "c/x/a.txt"]
    ids = [o[0] for o in iter_fingerprints(["./c/"], pipeline, use_cache=False)]
    assert ids == ["c/b.txt", "c/x/a.txt"]
    monkeypatch.chdir(root)
    assert [o[0] for o in iter_fingerprints(["."], pipeline, use_cache=False)] == [
        "b.txt", "x/a.txt",
    ]
    # A file argument keeps its spelling; a missing one is reported, not fatal.
    out = list(iter_fingerprints(["./x/a.txt", "nope", "../c/b.txt"], pipeline, use_cache=False))
    assert out[0] == ("./x/a.txt", pipeline.fingerprint(TEXT_A.encode()))
    assert out[1] == Skipped("nope", str(root / "nope"), "no such file or folder")
    assert out[2][0] == "../c/b.txt"


@pytest.mark.parametrize(
    ("path", "clean"),
    [("", "."), (".", "."), ("./a/", "a"), ("a//b/./c/..", "a/b"), ("/../a", "/a"),
     ("../../a", "../../a"), ("//x", "/x"), ("a/..", ".")],
)
def test_go_clean(path: str, clean: str) -> None:
    assert go_clean(path) == clean


def test_go_join() -> None:
    assert go_join(".", "a/b") == "a/b"
    assert go_join("dir/", "x") == "dir/x"
    assert go_join("", "") == ""


def test_reading_one_named_file(tmp_path: Path) -> None:
    from ditto_tui.corpus.reading import read_document_file

    path = write(tmp_path, "x.bin", b"\0\1 binary is read when named")
    assert read_document_file(str(path), max_size=100) == b"\0\1 binary is read when named"
    with pytest.raises(OSError, match="larger than the size limit"):
        read_document_file(str(path), max_size=5)
    os.mkfifo(tmp_path / "fifo")
    with pytest.raises(OSError, match="FIFO"):
        read_document_file(str(tmp_path / "fifo"), max_size=100)
