"""HTML by name and by first bytes (WHATWG MIME sniffing, the text/html rows)."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from ditto_tui.core.fingerprint.pipeline import make_pipeline
from ditto_tui.core.html.sniff import SNIFF_BYTES, has_html_name, sniff_html

# The standard's table, written out as (pattern, mask) byte strings: a byte matches when
# (input & mask) == pattern; every row is followed by a tag-terminating byte (0x20 or 0x3E).
_ROWS = [
    (b"<!DOCTYPE HTML", b"\xff\xff\xdf\xdf\xdf\xdf\xdf\xdf\xdf\xff\xdf\xdf\xdf\xdf"),
    (b"<HTML", b"\xff\xdf\xdf\xdf\xdf"),
    (b"<HEAD", b"\xff\xdf\xdf\xdf\xdf"),
    (b"<SCRIPT", b"\xff\xdf\xdf\xdf\xdf\xdf\xdf"),
    (b"<IFRAME", b"\xff\xdf\xdf\xdf\xdf\xdf\xdf"),
    (b"<H1", b"\xff\xdf\xff"),
    (b"<DIV", b"\xff\xdf\xdf\xdf"),
    (b"<FONT", b"\xff\xdf\xdf\xdf\xdf"),
    (b"<TABLE", b"\xff\xdf\xdf\xdf\xdf\xdf"),
    (b"<A", b"\xff\xdf"),
    (b"<STYLE", b"\xff\xdf\xdf\xdf\xdf\xdf"),
    (b"<TITLE", b"\xff\xdf\xdf\xdf\xdf\xdf"),
    (b"<B", b"\xff\xdf"),
    (b"<BODY", b"\xff\xdf\xdf\xdf\xdf"),
    (b"<BR", b"\xff\xdf\xdf"),
    (b"<P", b"\xff\xdf"),
    (b"<!--", b"\xff\xff\xff\xff"),
]


def reference(head: bytes) -> bool:
    """The standard's pattern-matching algorithm, byte by byte (plus a UTF-8 BOM)."""
    data = head[:SNIFF_BYTES]
    if data[:3] == b"\xef\xbb\xbf":
        data = data[3:]
    s = 0
    while s < len(data) and data[s] in (0x09, 0x0A, 0x0C, 0x0D, 0x20):
        s += 1
    for pattern, mask in _ROWS:
        n = len(pattern)
        if len(data) - s < n + 1:
            continue
        if all(data[s + i] & mask[i] == pattern[i] for i in range(n)) and data[s + n] in (
            0x20, 0x3E
        ):
            return True
    return False


def test_pages_as_they_are_saved_are_html() -> None:
    for head in (
        b"<!DOCTYPE html>\n<html lang=en>",
        b"<!doctype html PUBLIC \"-//W3C//DTD HTML 4.01//EN\">",
        b"\xef\xbb\xbf<!DOCTYPE HTML>",
        b"\r\n\t  <html>",
        b"<HTML><HEAD>",
        b"<head>\n<title>x</title>",
        b"<table border=1>",
        b"<p>Hello",
        b"<!-- saved from url=(0014)about:internet -->",
        b"<br>",
        b"<h1>Title</h1>",
    ):
        assert sniff_html(head), head


def test_other_files_are_not() -> None:
    for head in (
        b"",
        b"hello <html>",  # not at the start
        b"<?xml version=\"1.0\"?><html>",  # XML to a browser
        b"<html\nlang=en>",  # LF does not end the tag name here
        b"<a-b>",
        b"<abbr>",
        b"<h2>",
        b"<!---->",
        b"<!DOCTYPE svg>",
        b"From alice@example.org Mon Jan  1 00:00:00 2024\n",
        b"\0\0<html>",
        b"\xff\xfe<\0h\0t\0m\0l\0>\0",  # UTF-16: not sniffed
        b"<html",  # cut before its terminator
    ):
        assert not sniff_html(head), head


@given(
    st.lists(st.sampled_from([b" ", b"\t", b"\n", b"\x0c", b"\r", b"\x0b"]), max_size=4),
    st.sampled_from([r[0] for r in _ROWS] + [b"<HTM", b"<BX", b"<?XML", b"<SPAN"]),
    st.sampled_from([b" ", b">", b"/", b"\n", b"x", b""]),
    st.booleans(),
    st.booleans(),
    st.binary(max_size=8),
)
def test_sniffing_equals_the_standard_algorithm(
    spaces, sig, end, lower, bom, tail
) -> None:
    body = sig.lower() if lower else sig
    head = (b"\xef\xbb\xbf" if bom else b"") + b"".join(spaces) + body + end + tail
    assert sniff_html(head) == reference(head)


@given(st.binary(max_size=40))
def test_sniffing_equals_the_standard_algorithm_on_any_bytes(head: bytes) -> None:
    assert sniff_html(head) == reference(head)


def test_names() -> None:
    for name in ("a.html", "A.HTM", "x.xhtml", "ssi.shtml", "b.Html"):
        assert has_html_name(name)
    for name in ("a.txt", "html", "page.html.bak", "a.php", ""):
        assert not has_html_name(name)
    html = make_pipeline("html")
    assert html.accepts("ssi.shtml") and not html.accepts("index")
    assert html.accepts_head(b"<!doctype html>") and not html.accepts_head(b"plain text")
    ditto = make_pipeline("ditto")
    assert ditto.accepts("anything") and ditto.accepts_head(b"")
