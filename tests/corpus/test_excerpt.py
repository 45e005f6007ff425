"""Excerpts: mail shows its Subject and sender, empty documents say so, text its first words."""

from __future__ import annotations

from pathlib import Path

import pytest

from ditto_tui.core.text.display import mail_excerpt
from ditto_tui.corpus.session import CorpusSession

from .conftest import TEXT_A, write

RECEIVED = (
    b"Return-Path: <list-bounces@example.org>\n"
    b"Received: from mx.example.org (mx.example.org [192.0.2.1])\n"
    b"\tby mail.example.net with ESMTPS id 42\n"
)
MSG = RECEIVED + (
    b"From: =?iso-8859-1?q?Andr=E9_Ma=EEtre?= <andre@example.org>\n"
    b"Subject: =?utf-8?q?Caf=C3=A9_menu_for?=\n =?utf-8?q?_Friday?=\n"
    b"Date: Fri, 6 Sep 2024 09:00:00 +0000\n\nThe menu is attached.\n"
)
NO_SUBJECT = RECEIVED + b"From: bob@example.org\n\nbody only\n"
HOSTILE = RECEIVED + b"From: x@example.org\nSubject: =?utf-8?q?pay_=1B[31mnow?=\n\nhi\n"


@pytest.fixture
def corpus(root: Path) -> Path:
    write(root, "box/cur/1.host:2,S", MSG)
    write(root, "box/new/2.host", NO_SUBJECT)
    write(root, "box/new/3.host", HOSTILE)
    (root / "box/tmp").mkdir()
    write(root, "box/new/4.host", b"")
    write(root, "archive.mbox",
          b"From a@b Fri Sep  6 09:00:00 2024\n" + MSG + b"\n"
          b"From a@b Fri Sep  6 09:00:00 2024\n\n"
          b"From a@b Fri Sep  6 09:00:00 2024\nnot a header line at all\n")
    write(root, "notes.txt", "  First line\n\n of the   notes. " + TEXT_A)
    write(root, "empty.txt", b"")
    write(root, "page.html", b"<html><head><style>p{}</style></head><body><p>Hello &amp; bye")
    return root


def test_mail_shows_subject_and_sender_not_received_lines(corpus: Path, pipeline) -> None:
    with CorpusSession(corpus, pipeline, use_cache=False, jobs=1) as s:
        s.scan()
        assert s.excerpt("box/cur/1.host:2,S") == "Café menu for Friday — André Maître"
        assert s.excerpt("archive.mbox#1") == "Café menu for Friday — André Maître"
        assert s.excerpt("box/new/2.host") == "(no subject) — bob@example.org"
        assert s.excerpt("box/new/3.host") == "pay \\x1b[31mnow — x@example.org"
        assert s.excerpt("box/new/4.host") == "empty file"
        assert s.excerpt("archive.mbox#2") == "empty message"
        assert s.excerpt("archive.mbox#3") == "not a header line at all"  # no headers: text


def test_plain_documents_keep_their_first_words(corpus: Path, pipeline) -> None:
    with CorpusSession(corpus, pipeline, use_cache=False, jobs=1) as s:
        s.scan()
        assert s.excerpt("notes.txt", 30) == "First line of the notes. The q"
        assert s.excerpt("empty.txt") == "empty file"
        assert s.excerpt("page.html") == "Hello & bye"
        with pytest.raises(KeyError):
            s.excerpt("nope")
        (corpus / "notes.txt").unlink()
        with pytest.raises(OSError, match="notes.txt"):
            s.excerpt("notes.txt")


def test_mail_excerpt_keeps_the_sender_when_the_subject_is_long() -> None:
    assert mail_excerpt("Quarterly figures", "Ann Lee <ann@example.org>") == (
        "Quarterly figures — Ann Lee"
    )
    long = "A very long subject line that goes on and on about the budget"
    got = mail_excerpt(long, "Ann Lee <ann@example.org>", 40)
    assert got == "A very long subject line that… — Ann Lee" and len(got) == 40
    assert mail_excerpt("Hi", "", 40) == "Hi"
    assert mail_excerpt("", "", 40) == "(no subject)"
    assert mail_excerpt("x" * 50, "", 10) == "xxxxxxxxx…"
    sender = "someone-with-a-very-long-address@example.org"
    assert len(mail_excerpt("Subject here", sender, 30)) == 30
    assert mail_excerpt("a\u202ebc", "e\x1b[2Jvil <e@x>", 60) == "a\\u202ebc — e\\x1b[2Jvil"
