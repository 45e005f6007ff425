"""A user opens a mail folder: one document per message, with subject, sender and date."""

from __future__ import annotations

from pathlib import Path

from ditto_tui.corpus.documents import Skipped
from ditto_tui.corpus.mail import looks_like_mbox, mail_info, split_mbox
from ditto_tui.corpus.session import CorpusSession
from ditto_tui.corpus.stream import iter_fingerprints

from .conftest import TEXT_A, TEXT_B, write

MSG_1 = (
    b"From: =?utf-8?q?Ren=C3=A9e?= <renee@example.org>\n"
    b"Subject: =?utf-8?b?Q2Fmw6kgbWVldGluZw==?=\n"
    b"Date: Tue, 3 Sep 2024 10:00:00 +0000\n"
    b"\n" + TEXT_A.encode() + b"\n"
)
MSG_2 = (
    b"From: bob@example.org\nSubject: Second\nDate: Wed, 4 Sep 2024 11:00:00 +0000\n\n"
    + TEXT_B.encode() + b"\n>From the quoted line\n"
)
MSG_3 = b"From: carol@example.org\nSubject: Third\n\nshort body\n"


def make_mbox(root: Path, rel: str = "archive.mbox") -> Path:
    data = b"".join(
        b"From sender@example.org Tue Sep  3 10:00:00 2024\n" + m + b"\n"
        for m in (MSG_1, MSG_2, MSG_3)
    )
    return write(root, rel, data)


def make_maildir(root: Path) -> None:
    write(root, "box/cur/1700000000.1.host:2,S", MSG_1)
    write(root, "box/new/1700000001.2.host", MSG_2)
    write(root, "box/tmp/1700000002.3.host", MSG_3)  # delivery in progress: not a document


def test_mbox_yields_one_document_per_message(root: Path, pipeline, cache_path: Path) -> None:
    make_mbox(root)
    write(root, "note.txt", "From here on, this is a note, not a mailbox.\n" + TEXT_A)
    with CorpusSession(root, pipeline, cache=cache_path) as session:
        session.scan()
        docs = session.documents
        assert sorted(docs) == ["archive.mbox#1", "archive.mbox#2", "archive.mbox#3", "note.txt"]
        assert docs["note.txt"].kind == "text"
        for i, msg in enumerate((MSG_1, MSG_2, MSG_3), 1):
            ident = f"archive.mbox#{i}"
            assert docs[ident].kind == "mbox"
            assert session.read_bytes(ident) == msg  # the message as stored, quoting kept
            assert session.fingerprints[ident] == pipeline.fingerprint(msg)
        info = session.mail_info("archive.mbox#1")
        assert info is not None
        assert info.subject == "Café meeting"
        assert info.sender == "Renée <renee@example.org>"
        assert info.date == "Tue, 3 Sep 2024 10:00:00 +0000"
        assert session.mail_info("note.txt") is None
    # Reopened from the cache, message offsets still locate the bytes.
    with CorpusSession(root, pipeline, cache=cache_path) as session:
        session.scan()
        assert session.read_bytes("archive.mbox#2") == MSG_2


def test_mbox_detected_by_postmark_without_extension(root: Path, pipeline) -> None:
    make_mbox(root, "Inbox")
    ids = [o[0] for o in iter_fingerprints([str(root)], pipeline, use_cache=False)]
    assert ids == [f"{root}/Inbox#1", f"{root}/Inbox#2", f"{root}/Inbox#3"]
    # A file argument that is an mbox gives arg#N ids.
    ids = [o[0] for o in iter_fingerprints([str(root / "Inbox")], pipeline, use_cache=False)]
    assert ids == [f"{root}/Inbox#1", f"{root}/Inbox#2", f"{root}/Inbox#3"]


def test_maildir_messages(root: Path, pipeline, cache_path: Path) -> None:
    make_maildir(root)
    with CorpusSession(root, pipeline, cache=cache_path) as session:
        session.scan()
        docs = session.documents
        assert sorted(docs) == ["box/cur/1700000000.1.host:2,S", "box/new/1700000001.2.host"]
        assert {d.kind for d in docs.values()} == {"maildir"}
        assert session.read_bytes("box/new/1700000001.2.host") == MSG_2
        info = session.mail_info("box/new/1700000001.2.host")
        assert info is not None and (info.subject, info.sender) == ("Second", "bob@example.org")
        assert session.skipped == []


def test_a_cur_folder_outside_a_maildir_is_plain_text(root: Path, pipeline) -> None:
    write(root, "project/cur/readme.txt", TEXT_A)
    out = list(iter_fingerprints([str(root)], pipeline, use_cache=False))
    assert not any(isinstance(o, Skipped) for o in out)
    assert [o[0] for o in out] == [f"{root}/project/cur/readme.txt"]


def test_split_mbox_edges() -> None:
    assert split_mbox(b"") == []
    data = b"From a Mon Jan  1 00:00:00 2024\r\nX: 1\r\n\r\nbody\r\n\r\nFrom b Mon Jan  1 00:00:00 2024\r\nY: 2\r\n"
    spans = split_mbox(data)
    assert [data[o : o + n] for o, n in spans] == [b"X: 1\r\n\r\nbody\r\n", b"Y: 2\r\n"]
    assert looks_like_mbox("x.MBOX", b"From anything")
    assert not looks_like_mbox("notes.txt", b"From here on")
    assert looks_like_mbox("Inbox", b"From someone@example.org Sat Jan  1 00:00:00 2000\n")


def test_broken_headers_never_raise() -> None:
    info = mail_info(b"Subject: =?bogus?q?x?=\nFrom: <<<\n\nbody")
    assert info.sender == "<<<"
    assert "x" in info.subject or "bogus" in info.subject
    assert mail_info(b"no headers at all").subject == ""


def test_raw_8bit_headers_are_read_as_utf8_or_latin1() -> None:
    assert mail_info("Subject: Café\nFrom: Zoë <z@x>\n\n".encode()).sender == "Zoë <z@x>"
    assert mail_info(b"Subject: caf\xe9\n\n").subject == "café"
