"""Character references in HTML attribute values and text, decoded like Go's x/net/html.

``unescape`` is a byte-exact port of ``unescape``/``unescapeEntity`` from
golang.org/x/net/html/escape.go, the decoder the html-distance pipeline sees through
``Tokenizer.TagAttr``. Its quirks are part of the contract:

- a numeric reference needs at least three bytes after ``&`` (``&#5`` at the very end
  stays literal) and accumulates in a wrapping signed 32-bit integer; 0x80-0x9F map
  through the Windows-1252 table, NUL, surrogates and anything out of range (or
  negative after wrapping) become U+FFFD; ``&#x;`` decodes to U+FFFD;
- a named reference is the longest run of ASCII letters and digits after ``&`` plus an
  optional ``;``; in an attribute value, a name without ``;`` followed by ``=`` stays
  literal, and no shorter prefix is tried; in text, prefixes of up to 6 bytes are tried
  against the legacy names that need no semicolon (``&notit;`` gives ``¬it;``).

The entity table is the WHATWG one, which Python ships as ``html.entities.html5``.
Bytes that are not part of a reference pass through untouched (invalid UTF-8 included).
"""

from __future__ import annotations

from html.entities import html5

__all__ = ["unescape"]

# Go's replacementTable: what numeric references 0x80..0x9F decode to.
_WINDOWS_1252 = (
    "\u20ac\u0081\u201a\u0192\u201e\u2026\u2020\u2021\u02c6\u2030\u0160\u2039\u0152\u008d"
    "\u017d\u008f\u0090\u2018\u2019\u201c\u201d\u2022\u2013\u2014\u02dc\u2122\u0161\u203a"
    "\u0153\u009d\u017e\u0178"
)

# name (with its ';' when the name has one) -> UTF-8 of the one or two code points.
_ENTITY: dict[bytes, bytes] = {k.encode("ascii"): v.encode("utf-8") for k, v in html5.items()}
# Names that need no semicolon (the legacy ones); Go's prefix search only ever hits these.
_LEGACY: dict[bytes, bytes] = {k: v for k, v in _ENTITY.items() if not k.endswith(b";")}
_LONGEST_LEGACY = max(len(k) for k in _LEGACY)  # 6, Go's longestEntityWithoutSemicolon

_ALNUM = frozenset(b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")
_HEX_VALUE = {c: int(chr(c), 16) for c in b"0123456789abcdefABCDEF"}
_DEC_VALUE = {c: c - 48 for c in b"0123456789"}


def _numeric(s: bytes, src: int) -> tuple[bytes, int]:
    """Decode ``&#...`` at ``s[src]``; return (replacement bytes, bytes consumed)."""
    n = len(s) - src
    if n <= 3:  # Go needs at least "&#." to try
        return b"&", 1
    i = 2
    digits = _DEC_VALUE
    if s[src + 2] in b"xX":
        digits = _HEX_VALUE
        i = 3
    base = 16 if digits is _HEX_VALUE else 10
    x = 0
    while i < n:
        c = s[src + i]
        i += 1
        d = digits.get(c)
        if d is not None:
            x = (x * base + d) & 0xFFFFFFFF  # Go's rune is int32 and wraps
            continue
        if c != 0x3B:  # ';'
            i -= 1
        break
    if i <= 3:  # no digit matched
        return b"&", 1
    if x >= 0x80000000:
        x -= 0x100000000
    if 0x80 <= x <= 0x9F:
        ch = _WINDOWS_1252[x - 0x80]
    elif x <= 0 or 0xD800 <= x <= 0xDFFF or x > 0x10FFFF:
        ch = "\ufffd"
    else:
        ch = chr(x)
    return ch.encode("utf-8"), i


def _named(s: bytes, src: int, attribute: bool) -> tuple[bytes, int]:
    """Decode ``&name`` at ``s[src]``; return (replacement bytes, bytes consumed)."""
    n = len(s) - src
    i = 1
    while i < n:
        c = s[src + i]
        i += 1
        if c in _ALNUM:
            continue
        if c != 0x3B:
            i -= 1
        break
    name = s[src + 1 : src + i]
    if not name:
        return b"&", 1
    if attribute and name[-1] != 0x3B and n > i and s[src + i] == 0x3D:  # '='
        return s[src : src + i], i
    value = _ENTITY.get(name)
    if value is not None:
        return value, i
    if not attribute:
        for j in range(min(len(name) - 1, _LONGEST_LEGACY), 1, -1):
            value = _LEGACY.get(name[:j])
            if value is not None:
                return value, j + 1
    return s[src : src + i], i


def unescape(s: bytes, attribute: bool) -> bytes:
    """Decode the character references in ``s`` exactly as Go's ``html.unescape`` does.

    ``attribute`` selects the attribute-value rules (see the module docstring). Returns
    ``s`` itself when it holds no ``&``.
    """
    i = s.find(b"&")
    if i < 0:
        return s
    out = bytearray(s[:i])
    src = i
    n = len(s)
    while src < n:
        if s[src] != 0x26:  # '&'
            j = s.find(b"&", src)
            if j < 0:
                out += s[src:]
                break
            out += s[src:j]
            src = j
        if src + 1 < n and s[src + 1] == 0x23:  # '#'
            piece, used = _numeric(s, src)
        elif src + 1 < n:
            piece, used = _named(s, src, attribute)
        else:
            piece, used = b"&", 1
        out += piece
        src += used
    return bytes(out)
