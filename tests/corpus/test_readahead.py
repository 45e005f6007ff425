"""readahead: large files named on the command line are read while the program loads,
and those bytes are used only for the same file, unchanged."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from ditto_tui.core import Featurizer
from ditto_tui.corpus import early_bytes, readahead
from ditto_tui.corpus.bulk import fingerprint_batches

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(autouse=True)
def _small_bounds(monkeypatch: pytest.MonkeyPatch) -> None:
    """Early reads of files of 1-100 KB (not 8-64 MB), and nothing left from another test."""
    monkeypatch.setattr(readahead, "MIN_SIZE", 1000)
    monkeypatch.setattr(readahead, "MAX_SIZE", 100_000)
    monkeypatch.setattr(readahead, "BUDGET", 250_000)
    monkeypatch.setattr(early_bytes, "_early", {})


def _mbox(messages: int, word: str = "alpha") -> bytes:
    return b"".join(
        f"From a{i}@x Mon Jan  1 00:00:00 2024\nSubject: {i}\n\n{word} body {i} {word}\n\n".encode()
        for i in range(messages)
    )


def _fingerprints(path: Path) -> list[tuple[str, int]]:
    found = []
    for batch in fingerprint_batches([str(path)], Featurizer(), jobs=1):
        assert not batch.skips
        found += list(zip(list(batch.ids), batch.fps, strict=True))
    return found


def _wait(path: Path) -> None:
    st = os.stat(path)
    assert early_bytes._early[st.st_dev, st.st_ino].done.wait(10)


def test_only_regular_files_within_the_bounds_are_read_early(tmp_path: Path) -> None:
    sizes = {"small": 999, "first": 1000, "second": 100_000, "large": 100_001, "third": 100_000,
             "over budget": 60_000}
    for name, size in sizes.items():
        (tmp_path / name).write_bytes(b"x" * size)
    (tmp_path / "link").symlink_to(tmp_path / "first")
    os.mkfifo(tmp_path / "pipe")
    (tmp_path / "folder").mkdir()
    names = [*sizes, "link", "pipe", "folder", "missing", "first", "bad\0name"]
    assert readahead.start(str(tmp_path / name) for name in names) == 3  # (the budget: 250 KB)
    read = sorted(early.path for early in early_bytes._early.values())
    assert read == sorted(str(tmp_path / name) for name in ("first", "second", "third"))
    for name in ("first", "second", "third"):
        st = os.stat(tmp_path / name)
        assert early_bytes.take(st) == (tmp_path / name).read_bytes()
        assert early_bytes.take(st) is None  # handed over once
    assert early_bytes.take(os.stat(tmp_path / "small")) is None


def test_a_file_changed_after_its_early_read_is_read_again(tmp_path: Path) -> None:
    mbox = tmp_path / "mail.mbox"
    mbox.write_bytes(_mbox(40))
    assert readahead.start([str(mbox)]) == 1
    _wait(mbox)
    before = os.stat(mbox)
    with mbox.open("r+b") as handle:  # the same inode and size, new words, a new time
        handle.write(_mbox(40, "omega"))
    os.utime(mbox, ns=(before.st_atime_ns, before.st_mtime_ns + 1_000_000_000))
    changed = _fingerprints(mbox)
    assert changed == _fingerprints_fresh(mbox)
    early_bytes._early.clear()
    mbox.write_bytes(_mbox(40))
    assert changed != _fingerprints(mbox)  # (the change is one the fingerprints show)


def _fingerprints_fresh(path: Path) -> list[tuple[str, int]]:
    early_bytes._early.clear()
    return _fingerprints(path)


def test_the_walk_takes_the_bytes_read_early_for_the_same_unchanged_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    mbox = tmp_path / "mail.mbox"
    mbox.write_bytes(_mbox(40))
    expected = _fingerprints(mbox)
    assert readahead.start([str(mbox)]) == 1
    _wait(mbox)
    read_twice = []
    original = os.read

    def counted(fd: int, size: int) -> bytes:
        if size > 1000:
            read_twice.append(size)
        return original(fd, size)

    monkeypatch.setattr(os, "read", counted)
    assert _fingerprints(mbox) == expected
    assert read_twice == []  # no second read of the whole file
    assert not early_bytes._early


def test_a_replaced_file_is_not_given_the_old_files_bytes(tmp_path: Path) -> None:
    mbox = tmp_path / "mail.mbox"
    mbox.write_bytes(_mbox(40))
    assert readahead.start([str(mbox)]) == 1
    _wait(mbox)
    replacement = tmp_path / "new.mbox"
    replacement.write_bytes(_mbox(40, "omega"))
    os.replace(replacement, mbox)  # another inode under the same name
    assert _fingerprints(mbox) == _fingerprints_fresh(mbox)
    assert _fingerprints(mbox) != []


def test_a_forked_child_never_waits_for_the_parents_early_reads(tmp_path: Path) -> None:
    big = tmp_path / "big.txt"
    big.write_bytes(b"word " * 1000)
    assert readahead.start([str(big)]) == 1
    _wait(big)
    early_bytes._owner = -1  # as in a child forked from the process that started the reads
    assert early_bytes.take(os.stat(big)) is None


def test_the_careful_reader_takes_them_too_and_sees_a_binary_file(tmp_path: Path) -> None:
    from ditto_tui.corpus.reading import BINARY_PROBE, read_document_bytes
    from ditto_tui.corpus.rootdir import RootDir

    text, binary = tmp_path / "text.txt", tmp_path / "data.bin"
    text.write_bytes(b"words and more words " * 1000)
    binary.write_bytes(b"\0\1\2" * 10_000)
    assert readahead.start([str(text), str(binary)]) == 2
    _wait(text)
    _wait(binary)
    with RootDir(str(tmp_path)) as root:
        got, _st, is_binary = read_document_bytes(root, "text.txt", max_size=1 << 20)
        assert (got, is_binary) == (text.read_bytes(), False)
        head, _st, is_binary = read_document_bytes(root, "data.bin", max_size=1 << 20,
                                                   want_binary=False)
        assert (head, is_binary) == (binary.read_bytes()[:BINARY_PROBE], True)
    assert not early_bytes._early


@pytest.mark.parametrize("cache", [False, True])
def test_the_command_line_gives_the_same_lines_with_and_without_early_reads(
    tmp_path: Path, cache: bool
) -> None:
    mbox = tmp_path / "mail.mbox"
    mbox.write_bytes(_mbox(3000))
    code = ("import sys\nfrom ditto_tui import launch\nfrom ditto_tui.corpus import early_bytes, readahead\n"
            "readahead.MIN_SIZE = {min_size}\n"
            "launch.quick_exit = lambda code: None\n"
            "sys.argv = ['ditto-tui', 'fingerprint', {options}{path!r}]\n"
            "launch.main()\n"
            "print('read early and taken:', early_bytes._owner != 0 and not early_bytes._early)")
    options = "" if cache else "'--no-cache', "
    env = {**os.environ, "XDG_CACHE_HOME": str(tmp_path / "cache")}
    outputs = []
    for min_size in (1, 1 << 40):  # read early, then never
        source = code.format(min_size=min_size, options=options, path=str(mbox))
        done = subprocess.run([sys.executable, "-c", source], capture_output=True, text=True,
                              cwd=ROOT, env=env, check=True)
        outputs.append(done.stdout.splitlines())
    assert outputs[0][-1] == "read early and taken: True"
    assert outputs[1][-1] == "read early and taken: False"
    assert outputs[0][:-1] == outputs[1][:-1]
    assert len(outputs[0]) == 3001
