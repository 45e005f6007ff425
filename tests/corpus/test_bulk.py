"""The fingerprint command's bulk stream gives exactly what the careful stream gives."""

from __future__ import annotations

import os
import random
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ditto_tui.core import Featurizer
from ditto_tui.corpus import bulk, reading
from ditto_tui.corpus.bulk import fingerprint_batches
from ditto_tui.corpus.documents import DEFAULT_OPTIONS, ScanOptions, Skipped
from ditto_tui.corpus.stream import iter_fingerprints
from tests.properties import examples

from .conftest import IS_ROOT, write


def careful(paths: list[str], options: ScanOptions = DEFAULT_OPTIONS, jobs: int = 1) -> list:
    out = []
    for item in iter_fingerprints(paths, Featurizer(), options=options, jobs=jobs, use_cache=False):
        if isinstance(item, Skipped):
            out.append(("skip", item.id, item.reason))
        else:
            out.append(("doc", item[0], int(item[1])))
    return out


def bulky(paths: list[str], options: ScanOptions = DEFAULT_OPTIONS, jobs: int = 1) -> list:
    out = []
    for batch in fingerprint_batches(paths, Featurizer(), options=options, jobs=jobs):
        done = 0
        for at, skipped in [*batch.skips, (len(batch.ids), None)]:
            out.extend(("doc", i, f) for i, f in zip(batch.ids[done:at], batch.fps[done:at], strict=True))
            done = at
            if skipped is not None:
                out.append(("skip", skipped.id, skipped.reason))
    return out


MBOX = (
    b"From alice@example.org Mon Jan  5 10:00:00 2026\n"
    b"Subject: one\n\nhello there\n>From the quoted line\n\n"
    b"From bob@example.org Tue Jan  6 10:00:00 2026\r\n"
    b"Subject: crlf\r\n\r\nbody with CRLF\r\n\r\n"
    b"From carol@example.org Wed Jan  7 10:00:00 2026\n"
    b"Subject: no blank line before the next postmark\nbody\n"
    b"From dave@example.org Thu Jan  8 10:00:00 2026\n"
    b"Subject: =?utf-8?q?caf=C3=A9?=\nContent-Type: text/plain; charset=latin-1\n\ncaf\xe9 \xff\n"
)


def messy_corpus(root: Path) -> None:
    rng = random.Random(5)
    for i in range(30):
        words = " ".join(rng.choice(["alpha", "beta", "gamma", "delta", "épée", "кот"]) for _ in range(200))
        write(root, f"docs/d{i % 3}/f{i:02d}.txt", words)
    write(root, "docs/page.html", "<html><body><p>a page</p></body></html>")
    write(root, "bin/blob.dat", b"abc\0def" * 100)
    write(root, "empty.txt", b"")
    write(root, "tiny.txt", b"hi")
    write(root, "big.txt", b"word " * 50_000)
    write(root, "mail/archive.mbox", MBOX)
    write(root, "mail/postmarked", MBOX)
    write(root, "mail/not-mail.txt", b"From here on the text is prose, not a mailbox.\n")
    for part in ("cur", "new", "tmp"):
        (root / "maildir" / part).mkdir(parents=True)
    write(root, "maildir/cur/1", b"Subject: kept\n\nin cur\n")
    write(root, "maildir/new/2", b"Subject: new\n\nin new\n")
    write(root, "maildir/tmp/3", b"Subject: in delivery\n\nnot read\n")
    write(root, "ignored/skip.txt", b"ignored by the rules")
    write(root, ".dittoignore", b"ignored/\n")
    write(root, os.fsdecode(b"odd/name\xff\x1b[31m\tz.txt"), b"an odd name")
    os.symlink("docs/d0/f00.txt", root / "link-inside.txt")
    os.symlink("/etc/hostname", root / "link-outside.txt")
    os.symlink("nowhere.txt", root / "link-broken.txt")
    os.symlink("docs", root / "link-folder")
    os.link(root / "docs/d1/f01.txt", root / "hardlink.txt")
    os.mkfifo(root / "fifo")
    secret = write(root, "secret.txt", b"no access")
    secret.chmod(0)


OPTIONS = [
    ScanOptions(),
    ScanOptions(include_binary=True, skip_empty=True, min_size=3, max_size=100_000),
    ScanOptions(ignore=("*.html",), follow_symlinks=True),
]


@pytest.mark.parametrize("options", OPTIONS, ids=["default", "limits", "follow"])
def test_bulk_stream_gives_the_careful_streams_documents_ids_and_skips(
    root: Path, options: ScanOptions
) -> None:
    messy_corpus(root)
    expected = careful([str(root)], options)
    assert any(kind == "skip" for kind, *_ in expected)
    assert any(item[:2] == ("doc", f"{root}/mail/archive.mbox#4") for item in expected)
    assert bulky([str(root)], options) == expected
    if not IS_ROOT:
        assert ("skip", f"{root}/secret.txt", "permission denied") in expected


def test_bulk_stream_with_worker_processes_keeps_walk_order(root: Path) -> None:
    messy_corpus(root)
    for i in range(70):  # enough files and bytes for the pool
        write(root, f"many/{i:03d}.txt", f"document {i} " * 4000)
    expected = careful([str(root)])
    assert bulky([str(root)], jobs=2) == expected
    # several arguments, a file argument, a missing one, "." joining
    args = [str(root / "mail/archive.mbox"), str(root / "many"), str(root / "missing"), str(root)]
    assert bulky(args, jobs=2) == careful(args)
    cwd = os.getcwd()
    os.chdir(root)
    try:
        assert bulky([".", "docs/", "tiny.txt"]) == careful([".", "docs/", "tiny.txt"])
    finally:
        os.chdir(cwd)


def test_file_replaced_or_vanishing_between_walk_and_read(root: Path, monkeypatch) -> None:
    write(root, "a.txt", b"first")
    write(root, "b.txt", b"second")
    write(root, "c.txt", b"third")
    real = bulk._outcomes

    def racing(featurizer, rootdir, entries, *args):
        os.unlink(root / "a.txt")  # vanished
        os.unlink(root / "b.txt")
        write(root, "b.txt", b"another file under the old name")  # replaced: new inode
        with open(root / "c.txt", "ab") as f:  # grown since the walk
            f.write(b" and more")
        return real(featurizer, rootdir, entries, *args)

    monkeypatch.setattr(bulk, "_outcomes", racing)
    got = bulky([str(root)])
    fp = Featurizer()
    assert got == [
        ("skip", f"{root}/a.txt", "vanished while reading"),
        ("doc", f"{root}/b.txt", int(fp.fingerprint(b"another file under the old name"))),
        ("doc", f"{root}/c.txt", int(fp.fingerprint(b"third and more"))),
    ]


def test_quick_read_takes_the_careful_path_when_a_file_changes_while_read(
    root: Path, monkeypatch
) -> None:
    path = write(root, "hot.txt", b"x")
    real_fstat = os.fstat
    calls = {"n": 0}

    def growing_fstat(fd: int):
        calls["n"] += 1
        if calls["n"] == 2:  # after the quick read: a writer appended meanwhile
            with open(path, "ab") as f:
                f.write(b"y")
        return real_fstat(fd)

    monkeypatch.setattr(reading.os, "fstat", growing_fstat)
    assert bulky([str(root)]) == [("doc", f"{root}/hot.txt", int(Featurizer().fingerprint(b"xy")))]


@settings(max_examples=examples(40), deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    messages=st.lists(
        st.tuples(
            st.binary(max_size=60),
            st.sampled_from([b"\n", b"\r\n"]),
            st.sampled_from([b"", b"\n", b"\r\n", b"\n\n"]),
            st.booleans(),
        ),
        min_size=1,
        max_size=6,
    )
)
def test_mbox_messages_match_the_careful_stream(tmp_path: Path, messages) -> None:
    data = b""
    for i, (body, eol, gap, quoted) in enumerate(messages):
        line = b">From quoted" + eol if quoted else b""
        data += b"From s%d@example.org Mon Jan  5 10:00:00 2026" % i + eol
        data += b"Subject: m" + eol + eol + line + body.replace(b"\nFrom ", b"\n>From ") + gap
    folder = tmp_path / f"case{abs(hash(data))}"
    write(folder, "box.mbox", data)
    write(folder, "x/mbox-without-suffix", data)
    assert bulky([str(folder)]) == careful([str(folder)])


@pytest.mark.parametrize("extra", [[], ["--json"], ["--strict", "--include-binary", "--jobs", "2"]])
def test_fingerprint_command_writes_the_same_bytes_with_and_without_the_cache(
    root: Path, tmp_path: Path, capfdbinary, extra: list[str]
) -> None:
    from ditto_tui.cli.main import main

    messy_corpus(root)
    for i in range(70):
        write(root, f"many/{i:03d}.txt", f"document {i} " * 4000)
    args = [str(root), str(root / "mail/postmarked"), str(root / "tiny.txt")]
    cached = main(["fingerprint", "--cache", str(tmp_path / "cache"), *extra, *args])
    with_cache = capfdbinary.readouterr()
    bulk_code = main(["fingerprint", "--no-cache", *extra, *args])
    without = capfdbinary.readouterr()
    assert (bulk_code, without.out, without.err) == (cached, with_cache.out, with_cache.err)
    assert without.out.count(b"\n") > 100 and b"skipped" in without.err


def test_a_run_without_worker_processes_never_imports_them(tmp_path: Path) -> None:
    """multiprocessing and concurrent.futures cost about 0.03 s of every command's start."""
    import subprocess
    import sys

    write(tmp_path, "box.mbox", b"From a Mon Jan  5 10:00:00 2026\nSubject: x\n\nbody\n" * 3)
    write(tmp_path, "note.txt", "a note")
    code = (
        "import sys\nfrom ditto_tui.cli.main import main\n"
        f"main(['fingerprint', '--no-cache', {str(tmp_path)!r}])\n"
        "print([m for m in ('multiprocessing', 'concurrent.futures') if m in sys.modules])\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.splitlines()[-1] == "[]"
    assert len(out.splitlines()) == 5  # three messages, the note and the list


def test_an_mboxs_messages_come_as_a_batch_of_their_own_with_ids_made_on_demand(
    tmp_path: Path,
) -> None:
    """The command's writer formats an mbox's lines from its name and count at once."""
    write(tmp_path, "a.txt", b"before")
    write(tmp_path, "b.mbox", MBOX)
    write(tmp_path, "c.txt", b"after")
    batches = list(fingerprint_batches([str(tmp_path)], Featurizer(), jobs=1))
    mail = [b for b in batches if isinstance(b.ids, bulk.MessageIds)]
    base = str(tmp_path / "b.mbox")
    assert len(mail) == 1 and mail[0].ids.base == base and len(mail[0].ids) == 4
    assert list(mail[0].ids) == [f"{base}#{i}" for i in range(1, 5)]
    assert mail[0].ids[1:3] == [f"{base}#2", f"{base}#3"] and mail[0].ids[-1] == f"{base}#4"
    assert [os.path.basename(i) for b in batches for i in b.ids] == [
        "a.txt", *(f"b.mbox#{i}" for i in range(1, 5)), "c.txt"]
    assert bulky([str(tmp_path)]) == careful([str(tmp_path)])


def test_an_mbox_with_an_odd_name_writes_the_same_bytes_with_and_without_the_cache(
    tmp_path: Path, capfdbinary
) -> None:
    from ditto_tui.cli.main import main

    folder = tmp_path / "in"
    write(folder, os.fsdecode(b"odd \x1b[31m\t\xff\xc3\xa9.mbox"), MBOX * 3)
    write(folder, "plain.txt", b"text")
    cached = main(["fingerprint", "--cache", str(tmp_path / "cache"), str(folder)])
    with_cache = capfdbinary.readouterr()
    bulk_code = main(["fingerprint", "--no-cache", str(folder)])
    without = capfdbinary.readouterr()
    assert (bulk_code, without.out, without.err) == (cached, with_cache.out, with_cache.err)
    assert without.out.count(b"\n") == 13 and b"\\x1b[31m\\t\xff\xc3\xa9.mbox#12\n" in without.out
