"""An HTML5 tokenizer that splits bytes exactly where Go's golang.org/x/net/html does.

The html-distance pipeline fingerprints the token stream of x/net/html's ``Tokenizer``
(``Next`` + ``Token``), so this module reproduces that stream, not an idealised WHATWG
one. What is guaranteed to match Go, token for token:

- token types and boundaries: a text token runs up to the next ``<`` followed by an
  ASCII letter, ``/``, ``!`` or ``?`` (or to the end); ``</`` right at the end of the
  input is a text token of its own; a start or end tag that the input ends inside is
  not a token and ends the stream (Go's ``ErrorToken``);
- raw text after the start tags ``iframe``, ``noembed``, ``noframes``, ``noscript``,
  ``script`` (with its escape states), ``style``, ``textarea``, ``title``, ``xmp`` (up
  to the matching end tag), and ``plaintext`` (to the end); also after ``<script/>``,
  as in Go;
- comments ``<!--...-->`` (also ended by ``--!>``; ``<!-->`` and ``<!--->`` are empty
  comments), bogus comments for ``<?...>``, ``<!...>``, ``<![CDATA[...]]>``, ``</>``
  and ``</`` followed by a non-letter, doctypes (``<!DOCTYPE``, any ASCII case);
- tag names lower-cased (ASCII only), attribute keys lower-cased, attribute values
  with NUL -> U+FFFD, CR/CRLF -> LF and character references decoded (attribute rules);
  a repeated attribute key keeps its first occurrence (as the current x/net/html does;
  releases before its duplicate-attribute fix kept every copy, and the test vectors
  have no repeated key); end tags carry no attributes; ``<br/>`` is self-closing but
  ``<p a=/>`` is a start tag with ``a="/"``.

Text, comment and doctype contents are not decoded (their spans are available). Input
is bytes and never decoded: tag names and attribute values are byte strings.

Design: one regular expression matches a whole token of the data state (a tag with all
its attributes included), so Python runs once per token, and each distinct tag source
is parsed once per page; script text follows a port of Go's state machine. The
fingerprint's fast path, ``token_keys``, goes further: a second expression with one
capture group gives, through ``findall``, one byte string per token (its source, or
nothing for text) without running Python per token at all, and ``describe_key`` turns
a distinct key into its token(s). The tests compare both with a literal byte-at-a-time
port of token.go on random inputs.
"""

from __future__ import annotations

import re
from enum import IntEnum
from itertools import islice
from typing import NamedTuple

from ditto_tui.core.html.entities import unescape

__all__ = [
    "ERROR_INFO",
    "TEXT_INFO",
    "Token",
    "TokenType",
    "describe_key",
    "scan",
    "scan_classes",
    "token_keys",
    "tokenize",
]


class TokenType(IntEnum):
    """Token kinds, numbered like Go's ``html.TokenType`` (0 is Go's ErrorToken)."""

    TEXT = 1
    START_TAG = 2
    END_TAG = 3
    SELF_CLOSING_TAG = 4
    COMMENT = 5
    DOCTYPE = 6


_TEXT = 1
_START = 2
_END = 3
_SELF = 4
_COMMENT = 5
_DOCTYPE = 6

Attr = tuple[bytes, bytes]
RawToken = tuple[int, int, int, bytes, tuple[Attr, ...]]
TagInfo = tuple[int, bytes, tuple[Attr, ...]]

#: The info of every text token (class 0 of ``scan_classes``).
TEXT_INFO: TagInfo = (_TEXT, b"", ())
_COMMENT_INFO: TagInfo = (_COMMENT, b"", ())
_DOCTYPE_INFO: TagInfo = (_DOCTYPE, b"", ())


class Token(NamedTuple):
    """One token: its type, raw byte span ``data[start:end]``, name and attributes.

    ``name`` is the lower-cased tag name for tag tokens and ``b""`` otherwise; ``attrs``
    holds ``(key, value)`` pairs in source order for start and self-closing tags.
    The spans of consecutive tokens tile the input from offset 0 without gaps.
    """

    type: TokenType
    start: int
    end: int
    name: bytes
    attrs: tuple[Attr, ...]


# One pass of Go's attribute loop in readTag (readTagAttrKey, readTagAttrVal, then
# skipWhiteSpace), starting on a byte that is neither white space nor '>'. It always
# consumes at least one byte. Groups: key, "value", 'value', unquoted value.
_WS = rb"[\t\n\f\r ]"
_ATTR_BODY = (
    rb"(?!\Z)(=?[^\t\n\f\r />=]*+)" + _WS + rb"*+"
    rb"(?:/|=" + _WS + rb"*+"
    rb"(?:\"([^\"]*+)\"?|'([^']*+)'?|([^\t\n\f\r >]++)" + _WS + rb"?)?)?" + _WS + rb"*+"
)
_ATTR = re.compile(_ATTR_BODY)
_ATTR_NC = re.sub(rb"\((?!\?)", rb"(?:", _ATTR_BODY)  # same pattern, no captures
_ATTRS = rb"(?:(?!>)(?>" + _ATTR_NC + rb"))*+"

# One token of the data state per alternative; each alternative's outer group closes
# last, so ``lastindex`` says which matched. Only S and E can fail to match at a '<':
# when the input ends inside the tag, which ends the token stream (Z).
_TOKEN = re.compile(
    rb"(?P<S><(?P<sn>[A-Za-z][^\t\n\f\r />]*+)" + _WS + rb"*+(?P<sa>" + _ATTRS + rb")>)"
    rb"|(?P<T>(?:[^<]|<(?![A-Za-z/!?]))[^<]*+(?:<(?![A-Za-z/!?])[^<]*+)*+)"
    rb"|(?P<E></(?P<en>[A-Za-z][^\t\n\f\r />]*+)" + _WS + rb"*+" + _ATTRS + rb">)"
    rb"|(?P<C><!--(?:-*+>|.*?--!?>|.*+)"  # comment, ended by -->, --!> or the input's end
    rb"|</>"  # "</>": an empty comment
    rb"|</(?=[^A-Za-z>])[^>]*+>?"  # "</ x>": bogus comment
    rb"|<\?[^>]*+>?"  # processing instruction: bogus comment
    rb"|<!(?![Dd][Oo][Cc][Tt][Yy][Pp][Ee])[^>]*+>?)"  # CDATA and other "<!": bogus comment
    rb"|(?P<D><![Dd][Oo][Cc][Tt][Yy][Pp][Ee][^>]*+>?)"
    rb"|(?P<X></\Z)"  # "</" at the very end is text
    rb"|(?P<Z><)",  # a start or end tag the input ends inside
    re.DOTALL,
)

_GROUP = _TOKEN.groupindex
_K_START, _K_TEXT, _K_END = _GROUP["S"], _GROUP["T"], _GROUP["E"]
_K_COMMENT, _K_DOCTYPE, _K_CUT_END = _GROUP["C"], _GROUP["D"], _GROUP["X"]
_K_STOP = _GROUP["Z"]
_G_NAME, _G_ATTRS, _G_END_NAME = _GROUP["sn"], _GROUP["sa"], _GROUP["en"]

_RAW_TAGS = frozenset(
    b"iframe noembed noframes noscript plaintext script style textarea title xmp".split()
)
# The end tag that closes a raw-text element other than script: "</name" then
# white space, '/' or '>' (ASCII case-insensitive, like Go's readRawEndTag).
_RAW_END = {
    name: re.compile(rb"</" + re.escape(name) + rb"[\t\n\f\r />]", re.IGNORECASE)
    for name in _RAW_TAGS
}
_SCRIPT_END_CHARS = b"\t\n\f\r />"
_FFFD = "\ufffd".encode()
_DASH_OR_LT = re.compile(rb"[-<]")


def _raw_end_tag(data: bytes, p: int, n: int) -> tuple[bool, int]:
    """Go's readRawEndTag for "script" with ``"</"`` consumed and ``p`` just after it.

    Returns (matched, position): on a match, the position is that of the ``<``; on a
    mismatch, the position of the byte to reconsume; at the input's end, ``n``.
    """
    for i in range(6):
        if p >= n:
            return False, n
        c = data[p]
        if c != b"script"[i] and c != b"SCRIPT"[i]:
            return False, p
        p += 1
    if p >= n:
        return False, n
    if data[p] in _SCRIPT_END_CHARS:
        return True, p - 8
    return False, p


def _script_end(data: bytes, pos: int, n: int) -> int:
    """End of the script text starting at ``pos``: Go's readScript state machine.

    Returns the offset of the closing ``</script`` or ``n`` when there is none.
    """
    state = 0  # scriptData
    p = pos
    while True:
        if state == 0:  # scriptData
            p = data.find(b"<", p)
            if p < 0:
                return n
            p += 1
            if p >= n:
                return n
            c = data[p]
            if c == 0x2F:  # '/': scriptDataEndTagOpen
                ok, p = _raw_end_tag(data, p + 1, n)
                if ok or p >= n:
                    return p
            elif c == 0x21:  # '!': scriptDataEscapeStart
                p += 1
                if p >= n:
                    return n
                if data[p] == 0x2D:  # '-'
                    p += 1
                    if p >= n:
                        return n
                    if data[p] == 0x2D:
                        p += 1
                        state = 3  # scriptDataEscapedDashDash
            # anything else is reconsumed in scriptData
        elif state in (1, 2, 3):  # scriptDataEscaped, ...Dash, ...DashDash
            if state == 1:  # only '-' and '<' leave scriptDataEscaped
                m = _DASH_OR_LT.search(data, p)
                if m is None:
                    return n
                p = m.start()
            elif p >= n:
                return n
            c = data[p]
            p += 1
            if c == 0x2D:
                state = 2 if state == 1 else 3
            elif c == 0x3C:  # '<': scriptDataEscapedLessThanSign
                if p >= n:
                    return n
                c = data[p]
                if c == 0x2F:  # '/': scriptDataEscapedEndTagOpen
                    ok, p = _raw_end_tag(data, p + 1, n)
                    if ok or p >= n:
                        return p
                    state = 1
                elif 0x41 <= c <= 0x5A or 0x61 <= c <= 0x7A:  # scriptDataDoubleEscapeStart
                    state = 1
                    for i in range(6):
                        if p >= n:
                            return n
                        c = data[p]
                        if c != b"script"[i] and c != b"SCRIPT"[i]:
                            break
                        p += 1
                    else:
                        if p >= n:
                            return n
                        if data[p] in _SCRIPT_END_CHARS:
                            p += 1
                            state = 4  # scriptDataDoubleEscaped
                else:
                    state = 0  # Go goes back to scriptData here, not scriptDataEscaped
            elif c == 0x3E and state == 3:  # '>'
                state = 0
            else:
                state = 1
        else:  # 4, 5, 6: scriptDataDoubleEscaped, ...Dash, ...DashDash
            if state == 4:
                m = _DASH_OR_LT.search(data, p)
                if m is None:
                    return n
                p = m.start()
            elif p >= n:
                return n
            c = data[p]
            p += 1
            if c == 0x2D:
                state = 5 if state == 4 else 6
            elif c == 0x3C:  # '<': scriptDataDoubleEscapedLessThanSign
                state = 4
                if p >= n:
                    return n
                if data[p] == 0x2F:  # '/': scriptDataDoubleEscapeEnd
                    ok, p = _raw_end_tag(data, p + 1, n)
                    if ok:
                        p += 9  # past "</script" and the byte after it
                        state = 1
                    elif p >= n:
                        return n
            elif c == 0x3E and state == 6:
                state = 0
            else:
                state = 4


def _raw_text_end(data: bytes, pos: int, n: int, raw_tag: bytes) -> int:
    """Where the raw text or RCDATA that follows a ``<raw_tag>`` start tag ends."""
    if raw_tag == b"script":
        return _script_end(data, pos, n)
    if raw_tag == b"plaintext":
        return n
    m = _RAW_END[raw_tag].search(data, pos)
    return n if m is None else m.start()


def _start_tag(m: re.Match[bytes]) -> tuple[TagInfo, bool]:
    """The info of the start tag matched by ``m`` and whether raw text follows it.

    Attributes: a repeated key (compared lower-cased) keeps its first occurrence. The
    tag is self-closing when the byte before ``>`` is ``/`` and is not the last byte of
    the last kept attribute's value, which only an unquoted value ending in ``/`` right
    before ``>`` can be (``<p a=/>`` is a start tag with ``a="/"``), as in Go.
    """
    name = m.group(_G_NAME).lower()
    if b"\x00" in name:
        name = name.replace(b"\x00", _FFFD)
    raw = name in _RAW_TAGS
    region = m.group(_G_ATTRS)  # everything between the name and '>'
    if not region:
        return (_START, name, ()), raw
    if region == b"/":
        return (_SELF, name, ()), raw
    passes = _ATTR.findall(region)
    # (lower-cased raw key, raw value); at most one of the three value groups is non-empty.
    items = [(key.lower(), dq or sq or uq) for key, dq, sq, uq in passes if key]
    last_dropped = False
    if len(items) > 1 and len(dict(items)) < len(items):  # a repeated key
        seen: set[bytes] = set()
        kept = []
        for item in items:
            if item[0] not in seen:
                seen.add(item[0])
                kept.append(item)
        last_dropped = kept[-1] is not items[-1]
        items = kept
    if b"\x00" in region or b"\r" in region or b"&" in region:
        items = [(key.replace(b"\x00", _FFFD), _value(value)) for key, value in items]
    kind = _START
    if region[-1] == 0x2F:  # '/' right before '>'
        key, _dq, _sq, uq = passes[-1]
        if not (key and not last_dropped and uq.endswith(b"/")):
            kind = _SELF
    return (kind, name, tuple(items)), raw


def _value(raw: bytes) -> bytes:
    """An attribute value as Go's TagAttr returns it: NUL -> U+FFFD, CR/CRLF -> LF, unescaped."""
    if b"\x00" in raw:
        raw = raw.replace(b"\x00", _FFFD)
    if b"\r" in raw:
        raw = raw.replace(b"\r\n", b"\n").replace(b"\r", b"\n")
    return unescape(raw, True)


def scan_classes(
    data: bytes, limit: int | None = None, *, spans: bool = False
) -> tuple[list[int], list[TagInfo], list[int]]:
    """Tokenize ``data`` into token classes: the fingerprint's fast path.

    Returns ``(classes, table, ends)`` with one entry in ``classes`` per token (at most
    ``limit``): token i is ``table[classes[i]]``, a ``(type, name, attrs)`` tuple
    (``type`` a plain int). Tokens with identical source text share a class; class 0
    is text (``TEXT_INFO``), 1 comment, 2 doctype, so consumers can work per class.
    With ``spans``, ``ends[i]`` is the offset where token i ends (it starts at
    ``ends[i - 1]``, 0 for the first); without, ``ends`` is empty.
    """
    n = len(data)
    classes: list[int] = []
    table: list[TagInfo] = [TEXT_INFO, _COMMENT_INFO, _DOCTYPE_INFO]
    ends: list[int] = []
    append = classes.append
    end_append = ends.append
    limit = n + 1 if limit is None else limit
    pos = 0
    # Templated pages repeat the same tags verbatim: parse each distinct one once.
    starts: dict[bytes, tuple[int, bytes | None]] = {}  # source -> (class, raw-text tag)
    end_tags: dict[bytes, int] = {}  # name as written -> class
    finditer = _TOKEN.finditer
    k_text, k_start, k_end = _K_TEXT, _K_START, _K_END
    k_comment, k_doctype, k_cut_end = _K_COMMENT, _K_DOCTYPE, _K_CUT_END
    while pos < n and len(classes) < limit:
        raw_tag = None
        for m in islice(finditer(data, pos), limit - len(classes)):
            k = m.lastindex
            if k == k_text:
                append(0)
            elif k == k_start:
                source = m.group(k_start)
                entry = starts.get(source)
                if entry is None:
                    info, raw = _start_tag(m)
                    entry = starts[source] = (len(table), info[1] if raw else None)
                    table.append(info)
                append(entry[0])
                if entry[1] is not None:
                    pos = m.end()
                    if spans:
                        end_append(pos)
                    raw_tag = entry[1]
                    break
            elif k == k_end:
                source = m.group(_G_END_NAME)
                c = end_tags.get(source)
                if c is None:
                    name = source.lower()
                    if b"\x00" in name:
                        name = name.replace(b"\x00", _FFFD)
                    c = end_tags[source] = len(table)
                    table.append((_END, name, ()))
                append(c)
            elif k == k_comment:
                append(1)
            elif k == k_doctype:
                append(2)
            elif k == k_cut_end:  # "</" at the very end is text
                append(0)
            else:  # the input ends inside a tag: Go's ErrorToken
                return classes, table, ends
            if spans:
                end_append(m.end())
        else:
            return classes, table, ends
        if len(classes) >= limit:
            break
        text_end = _raw_text_end(data, pos, n, raw_tag)
        if text_end > pos:
            append(0)
            if spans:
                end_append(text_end)
            pos = text_end
    return classes, table, ends


# -- token keys: the fingerprint's fast path ----------------------------------------------
#
# The same tokens as _TOKEN, with one capture group, so that ``findall`` returns one byte
# string per token: nothing (b"") for text, the token's whole source otherwise. A start
# tag of a raw-text element also swallows its text, so the key of ``<title>Hi</title>``'s
# first two tokens is ``<title>Hi``. Script text is only swallowed while Go's state
# machine stays in its plain state: script text that holds "<!--" before its end tag
# gives a key ending in "<!--" (``describe_key`` refuses it). A tag that the input ends
# inside takes the rest of the input (Go's ErrorToken: nothing follows). Keys are pure
# functions of their bytes, so consumers can cache what they derive from them.
_NAME_END = rb"[\t\n\f\r />]"
_TAG_REST = _WS + rb"*+" + _ATTRS + rb">"


def _ci(name: bytes) -> bytes:
    return rb"(?i:" + name + rb")"


def _raw_alternative(name: bytes) -> bytes:
    start = rb"<" + _ci(name) + rb"(?=" + _NAME_END + rb")" + _TAG_REST
    if name == b"plaintext":
        return start + rb".*+"
    stop = rb"/" + _ci(name) + _NAME_END
    if name == b"script":  # also stop before "<!--" and take it: the key says "unsure"
        return start + rb"(?:[^<]++|<(?!" + stop + rb"|!--))*+(?:<!--)?"
    return start + rb"(?:[^<]++|<(?!" + stop + rb"))*+"


_KEYED_ALTERNATIVES = [
    rb"(?=<[IiNnPpSsTtXx])(?:" + rb"|".join(map(_raw_alternative, sorted(_RAW_TAGS))) + rb")",
    # Common shapes first (same extent as the general forms below, cheaper to match):
    # single-spaced attributes with double-quoted values, and bare end tags.
    rb"<[A-Za-z][^\t\n\f\r />]*+(?: [^\t\n\f\r />=\"']++(?:=\"[^\"]*+\")?)*+/?>",
    rb"</[A-Za-z][^\t\n\f\r />]*+>",
    rb"<[A-Za-z][^\t\n\f\r />]*+" + _TAG_REST,  # start tag
    rb"</[A-Za-z][^\t\n\f\r />]*+" + _TAG_REST,  # end tag
    rb"<!--(?:-*+>|.*?--!?>|.*+)",  # comment
    rb"</>",  # the bogus comments
    rb"</(?=[^A-Za-z>])[^>]*+>?",
    rb"<\?[^>]*+>?",
    rb"<![Dd][Oo][Cc][Tt][Yy][Pp][Ee][^>]*+>?",  # doctype
    rb"<![^>]*+>?",
    # A start or end tag that the input ends inside (no alternative above matched it),
    # and the rest of the input.
    rb"<(?=[A-Za-z]|/[A-Za-z]).*+",
]
_TEXT_REST = rb"[^<]*+(?:<(?![A-Za-z/!?])[^<]*+)*+"
_KEYED_TOKEN = re.compile(
    rb"|".join(
        [
            rb"[^<]" + _TEXT_REST,  # text; first: most tokens are text, and it fails fast
            rb"(" + rb"|".join(_KEYED_ALTERNATIVES) + rb")",
            rb"<(?![A-Za-z/!?])" + _TEXT_REST,  # text starting with a '<'
            rb"</\Z",  # "</" at the very end is text
        ]
    ),
    re.DOTALL,
)
_TAG_START = re.compile(rb"<[A-Za-z]")
#: ``describe_key``'s info for the key where Go's tokenizer stops: its ErrorToken.
ERROR_INFO: TagInfo = (0, b"", ())
# The first part of a long page read: this many bytes per token wanted.
_BYTES_PER_TOKEN = 8


def token_keys(data: bytes, limit: int) -> list[bytes]:
    """One key per token of ``data``: at least the first ``limit`` tokens, maybe more.

    A key is ``b""`` for a text token and the token's source otherwise; the start tag
    of a raw-text element and its text (when not empty) share one key. Token i of the
    stream is described by ``describe_key``; the tokens are those of ``scan_classes``.
    A long page is read in parts, so that little more than ``limit`` tokens are matched.
    """
    keys: list[bytes] = []
    pos = 0
    step = _BYTES_PER_TOKEN * limit
    while True:
        cut = _TAG_START.search(data, pos + step)
        if cut is None:
            keys += _KEYED_TOKEN.findall(data, pos)
            return keys
        part, end = _keys_before(data, pos, cut.start())
        keys += part
        if len(keys) >= limit:
            return keys
        if end == pos:  # one token longer than the step
            step *= 2
        else:
            step = (end - pos) * (limit - len(keys)) // max(len(part), 1) + 64
        pos = end


def _keys_before(data: bytes, pos: int, cut: int) -> tuple[list[bytes], int]:
    """The keys of the tokens from ``pos`` on that end by ``cut``, and where the next
    token starts: matching ``data[:cut]`` as if the input ended there.

    ``cut`` must be the offset of a ``<`` followed by an ASCII letter, where a text
    token would end anyway: then only the last token matched (which reaches the cut)
    can differ from the tokens of the whole input, and it is left to the next part.
    """
    part = _KEYED_TOKEN.findall(data, pos, cut)
    last = part.pop()
    if last:
        return part, cut - len(last)
    if data.startswith(b"</", cut - 2):  # "</" at the cut: a bogus comment, not text
        return part, cut - 2
    part.append(last)  # text: it ends at the cut in the whole input too
    return part, cut


# A start tag that needs none of _start_tag's care: a name without NUL, then attributes
# separated by white space, each a key alone or with a quoted value free of NUL, CR and
# '&' (so the raw value is the value), and no '/' but right before '>'.
_PLAIN_KEY = rb"[^\t\n\f\r />=\"'\x00]++"
_PLAIN_EQ = _WS + rb"*+=" + _WS + rb"*+"
_PLAIN_START = re.compile(
    rb"<([A-Za-z][^\t\n\f\r />\x00]*+)"  # name
    rb"((?:" + _WS + rb"++" + _PLAIN_KEY  # attributes
    + rb"(?:" + _PLAIN_EQ + rb"(?:\"[^\"\x00\r&]*+\"|'[^'\x00\r&]*+'))?)*+)"
    + _WS + rb"*+(/?)>"
)  # fmt: skip
# One attribute of a _PLAIN_START match: key, "value", 'value'.
_PLAIN_ATTR = re.compile(
    rb"(" + _PLAIN_KEY + rb")(?:" + _PLAIN_EQ + rb"(?:\"([^\"]*+)\"|'([^']*+)'))?"
)


def _plain_start_tag(m: re.Match[bytes]) -> TagInfo:
    """The info of a start tag matched by ``_PLAIN_START`` (as ``_start_tag`` gives it)."""
    name = m[1].lower()
    kind = _SELF if m[3] else _START
    if not m[2]:
        return kind, name, ()
    items = [(key.lower(), dq or sq) for key, dq, sq in _PLAIN_ATTR.findall(m[2])]
    if len(items) > 1 and len(dict(items)) < len(items):  # a repeated key: keep the first
        first: dict[bytes, bytes] = {}
        for key, value in items:
            first.setdefault(key, value)
        items = list(first.items())
    return kind, name, tuple(items)


def describe_key(key: bytes) -> tuple[TagInfo, bool] | None:
    """What a key of ``token_keys`` stands for: ``(info, text follows)``.

    ``info`` is the ``(type, name, attrs)`` of the key's (first) token, as in
    ``scan_classes``, or ``ERROR_INFO`` where the token stream ends (then no token
    follows); ``text follows`` is True when the key also holds a raw-text element's
    text token. None when the key cannot be read on its own (script text that needs
    Go's full script state machine): tokenize the page with ``scan_classes`` then.
    """
    if not key:
        return TEXT_INFO, False
    m = _PLAIN_START.fullmatch(key)
    if m is not None:
        return _plain_start_tag(m), False
    m = _TOKEN.match(key)
    if m is None:
        return None
    k = m.lastindex
    if k == _K_START:
        info, raw = _start_tag(m)
        rest = key[m.end() :]
        if (rest and not raw) or (raw and info[1] == b"script" and b"<!--" in rest):
            return None
        return info, bool(rest)
    if k == _K_STOP:
        return ERROR_INFO, False
    if m.end() != len(key):
        return None
    if k == _K_END:
        name = m.group(_G_END_NAME).lower()
        if b"\x00" in name:
            name = name.replace(b"\x00", _FFFD)
        return (_END, name, ()), False
    if k == _K_COMMENT:
        return _COMMENT_INFO, False
    if k == _K_DOCTYPE:
        return _DOCTYPE_INFO, False
    return None


def scan(data: bytes, limit: int | None = None) -> list[RawToken]:
    """Tokenize ``data``; return up to ``limit`` tokens (all when None) as plain tuples.

    Each tuple is ``(type, start, end, name, attrs)`` with the meaning of ``Token``'s
    fields (``type`` a plain int).
    """
    classes, table, ends = scan_classes(data, limit, spans=True)
    infos = [table[c] for c in classes]
    starts = [0, *ends][: len(ends)]
    return [
        (kind, start, end, name, attrs)
        for (kind, name, attrs), start, end in zip(infos, starts, ends, strict=True)
    ]


def tokenize(data: bytes, limit: int | None = None) -> list[Token]:
    """Tokenize ``data`` like Go's ``Tokenizer`` (see the module docstring).

    Returns at most ``limit`` tokens (all when None); stops early where Go returns its
    ErrorToken (the end of input, or the input ending inside a tag).
    """
    return [Token(TokenType(t), s, e, nm, a) for t, s, e, nm, a in scan(data, limit)]
