"""Is this file an HTML page? By its name, or by its first bytes as browsers decide.

Pure functions over names and bytes (the caller reads the bytes). :func:`sniff_html`
applies the HTML signatures of the WHATWG MIME Sniffing standard ("identifying a resource
with an unknown MIME type", the rows for ``text/html``): after any whitespace bytes
(TAB, LF, FF, CR, SPACE) -- and, beyond the standard, after a UTF-8 byte order mark --
the bytes start, ASCII case-insensitively, with one of ``<!DOCTYPE HTML``, ``<HTML``,
``<HEAD``, ``<SCRIPT``, ``<IFRAME``, ``<H1``, ``<DIV``, ``<FONT``, ``<TABLE``, ``<A``,
``<STYLE``, ``<TITLE``, ``<B``, ``<BODY``, ``<BR``, ``<P`` or ``<!--``, followed by a
tag-terminating byte (a space or ``>``). So ``<html lang="en">`` and ``<!doctype html>``
are HTML; ``<?xml ...?>`` (XML, as browsers see it), ``<html\\n`` and ``<a-b>`` are not.
"""

from __future__ import annotations

__all__ = ["HTML_SUFFIXES", "SNIFF_BYTES", "has_html_name", "sniff_html"]

#: Names taken as HTML without looking inside (compared in lower case).
HTML_SUFFIXES = (".html", ".htm", ".xhtml", ".shtml")
#: How many leading bytes :func:`sniff_html` needs (the standard's resource header size).
SNIFF_BYTES = 1445

_WHITESPACE = b"\t\n\x0c\r "
_BOM = b"\xef\xbb\xbf"
_TERMINATORS = (0x20, 0x3E)  # SPACE, '>'
# Upper-cased signatures; compared against the upper-cased head (ASCII letters only:
# the standard masks exactly the letter bytes with 0xDF).
_SIGNATURES = tuple(
    s.encode("ascii")
    for s in (
        "<!DOCTYPE HTML", "<HTML", "<HEAD", "<SCRIPT", "<IFRAME", "<H1", "<DIV", "<FONT",
        "<TABLE", "<A", "<STYLE", "<TITLE", "<B", "<BODY", "<BR", "<P", "<!--",
    )
)
_LONGEST = max(map(len, _SIGNATURES)) + 1


def has_html_name(name: str) -> bool:
    """True when the file name ends in .html, .htm, .xhtml or .shtml (any case)."""
    return name.lower().endswith(HTML_SUFFIXES)


def sniff_html(head: bytes) -> bool:
    """True when ``head`` (a file's first bytes, ideally ``SNIFF_BYTES`` of them) starts
    like an HTML page by the WHATWG signatures (see the module docstring)."""
    data = bytes(head[:SNIFF_BYTES])
    if data.startswith(_BOM):
        data = data[len(_BOM):]
    data = data.lstrip(_WHITESPACE)
    start = data[:_LONGEST].upper()
    for signature in _SIGNATURES:
        n = len(signature)
        if len(start) > n and start.startswith(signature) and start[n] in _TERMINATORS:
            return True
    return False
