"""A slow, literal port of golang.org/x/net/html's Tokenizer (token.go), used as a test oracle.

It follows Go's byte-at-a-time structure (readByte, backing up ``raw_end``) so that it can
be compared line by line with the Go source; ``ditto_tui.core.html.tokenizer`` must give
the same token stream on every input. Only what the tokenizer exposes to html-distance is
ported: token types, raw spans, tag names and attributes (values unescaped).
"""

from __future__ import annotations

from ditto_tui.core.html.entities import unescape

WS = b" \n\r\t\f"
TEXT, START, END, SELF, COMMENT, DOCTYPE = 1, 2, 3, 4, 5, 6
FFFD = "\ufffd".encode()


def _letter(c: int) -> bool:
    return 0x41 <= c <= 0x5A or 0x61 <= c <= 0x7A


class GoTokenizer:
    def __init__(self, data: bytes) -> None:
        self.buf = data
        self.raw_start = self.raw_end = 0
        self.data_start = self.data_end = 0
        self.eof = False
        self.raw_tag = b""
        self.attr: list[tuple[tuple[int, int], tuple[int, int]]] = []
        self.pending = [[0, 0], [0, 0]]
        self.names: set[bytes] = set()

    def read(self) -> int:
        if self.raw_end >= len(self.buf):
            self.eof = True
            return 0
        c = self.buf[self.raw_end]
        self.raw_end += 1
        return c

    def skip_ws(self) -> None:
        if self.eof:
            return
        while True:
            c = self.read()
            if self.eof:
                return
            if c not in WS:
                self.raw_end -= 1
                return

    def read_raw_or_rcdata(self) -> None:
        if self.raw_tag == b"script":
            self.read_script()
            self.raw_tag = b""
            return
        while True:
            c = self.read()
            if self.eof:
                break
            if c != 0x3C:
                continue
            c = self.read()
            if self.eof:
                break
            if c != 0x2F:
                self.raw_end -= 1
                continue
            if self.read_raw_end_tag() or self.eof:
                break
        self.data_end = self.raw_end
        self.raw_tag = b""

    def read_raw_end_tag(self) -> bool:
        for i in range(len(self.raw_tag)):
            c = self.read()
            if self.eof:
                return False
            if c != self.raw_tag[i] and c != self.raw_tag[i] - 32:
                self.raw_end -= 1
                return False
        c = self.read()
        if self.eof:
            return False
        if c in b" \n\r\t\f/>":
            self.raw_end -= 3 + len(self.raw_tag)
            return True
        self.raw_end -= 1
        return False

    def read_script(self) -> None:  # noqa: C901 - a goto state machine
        state = "data"
        while True:
            if state == "data":
                c = self.read()
                if self.eof:
                    break
                state = "lt" if c == 0x3C else "data"
            elif state == "lt":
                c = self.read()
                if self.eof:
                    break
                if c == 0x2F:
                    state = "endopen"
                elif c == 0x21:
                    state = "escstart"
                else:
                    self.raw_end -= 1
                    state = "data"
            elif state == "endopen":
                if self.read_raw_end_tag() or self.eof:
                    break
                state = "data"
            elif state == "escstart":
                c = self.read()
                if self.eof:
                    break
                if c == 0x2D:
                    state = "escstartdash"
                else:
                    self.raw_end -= 1
                    state = "data"
            elif state == "escstartdash":
                c = self.read()
                if self.eof:
                    break
                if c == 0x2D:
                    state = "escdashdash"
                else:
                    self.raw_end -= 1
                    state = "data"
            elif state in ("esc", "escdash", "escdashdash"):
                c = self.read()
                if self.eof:
                    break
                if c == 0x2D:
                    state = "escdash" if state == "esc" else "escdashdash"
                elif c == 0x3C:
                    state = "esclt"
                elif c == 0x3E and state == "escdashdash":
                    state = "data"
                else:
                    state = "esc"
            elif state == "esclt":
                c = self.read()
                if self.eof:
                    break
                if c == 0x2F:
                    state = "escendopen"
                elif _letter(c):
                    state = "dblstart"
                else:
                    self.raw_end -= 1
                    state = "data"
            elif state == "escendopen":
                if self.read_raw_end_tag() or self.eof:
                    break
                state = "esc"
            elif state == "dblstart":
                self.raw_end -= 1
                state = "dbl"
                for i in range(6):
                    c = self.read()
                    if self.eof:
                        break
                    if c != b"script"[i] and c != b"SCRIPT"[i]:
                        self.raw_end -= 1
                        state = "esc"
                        break
                if self.eof:
                    break
                if state == "esc":
                    continue
                c = self.read()
                if self.eof:
                    break
                if c not in b" \n\r\t\f/>":
                    self.raw_end -= 1
                    state = "esc"
            elif state in ("dbl", "dbldash", "dbldashdash"):
                c = self.read()
                if self.eof:
                    break
                if c == 0x2D:
                    state = "dbldash" if state == "dbl" else "dbldashdash"
                elif c == 0x3C:
                    state = "dbllt"
                elif c == 0x3E and state == "dbldashdash":
                    state = "data"
                else:
                    state = "dbl"
            elif state == "dbllt":
                c = self.read()
                if self.eof:
                    break
                if c == 0x2F:
                    state = "dblend"
                else:
                    self.raw_end -= 1
                    state = "dbl"
            elif state == "dblend":
                if self.read_raw_end_tag():
                    self.raw_end += 9
                    state = "esc"
                    continue
                if self.eof:
                    break
                state = "dbl"
        self.data_end = self.raw_end

    def read_comment(self) -> None:
        dash = 0
        beginning = True
        while True:
            c = self.read()
            if self.eof:
                return
            if c == 0x2D:
                dash += 1
                continue
            if c == 0x3E:
                if dash >= 2 or beginning:
                    return
            elif c == 0x21 and dash >= 2:
                c = self.read()
                if self.eof:
                    return
                if c == 0x3E:
                    return
                if c == 0x2D:
                    dash = 1
                    beginning = False
                    continue
            dash = 0
            beginning = False

    def read_until_close_angle(self) -> None:
        while True:
            c = self.read()
            if self.eof or c == 0x3E:
                return

    def read_markup_declaration(self) -> int:
        self.data_start = self.raw_end
        c = [0, 0]
        for i in range(2):
            c[i] = self.read()
            if self.eof:
                return COMMENT
        if c == [0x2D, 0x2D]:
            self.read_comment()
            return COMMENT
        self.raw_end -= 2
        if self.read_doctype():
            return DOCTYPE
        self.read_until_close_angle()
        return COMMENT

    def read_doctype(self) -> bool:
        for ch in b"DOCTYPE":
            c = self.read()
            if self.eof:
                self.raw_end = self.data_start
                self.eof = False
                return False
            if c != ch and c != ch + 32:
                self.raw_end = self.data_start
                return False
        self.skip_ws()
        if self.eof:
            return True
        self.read_until_close_angle()
        return True

    def read_start_tag(self) -> int:
        self.read_tag(True)
        if self.eof:
            return 0
        name = self.buf[self.data_start : self.data_end].lower()
        if name in (
            b"iframe",
            b"noembed",
            b"noframes",
            b"noscript",
            b"plaintext",
            b"script",
            b"style",
            b"textarea",
            b"title",
            b"xmp",
        ):
            self.raw_tag = name
        if self.buf[self.raw_end - 2] == 0x2F and (
            not self.attr or self.raw_end - 2 != self.attr[-1][1][1] - 1
        ):
            return SELF
        return START

    def read_tag(self, save: bool) -> None:
        self.attr = []
        self.names = set()
        self.read_tag_name()
        self.skip_ws()
        if self.eof:
            return
        while True:
            c = self.read()
            if self.eof or c == 0x3E:
                break
            self.raw_end -= 1
            self.read_attr_key()
            self.read_attr_val()
            k0, k1 = self.pending[0]
            key = self.buf[k0:k1].lower()
            if save and k0 != k1 and key not in self.names:
                self.attr.append(((k0, k1), tuple(self.pending[1])))
                self.names.add(key)
            self.skip_ws()
            if self.eof:
                break

    def read_tag_name(self) -> None:
        self.data_start = self.raw_end - 1
        while True:
            c = self.read()
            if self.eof:
                self.data_end = self.raw_end
                return
            if c in WS:
                self.data_end = self.raw_end - 1
                return
            if c in b"/>":
                self.raw_end -= 1
                self.data_end = self.raw_end
                return

    def read_attr_key(self) -> None:
        self.pending[0][0] = self.raw_end
        while True:
            c = self.read()
            if self.eof:
                self.pending[0][1] = self.raw_end
                return
            if c == 0x3D and self.pending[0][0] + 1 == self.raw_end:
                continue
            if c in b"= \n\r\t\f/>":
                self.raw_end -= 1
                self.pending[0][1] = self.raw_end
                return

    def read_attr_val(self) -> None:
        self.pending[1] = [self.raw_end, self.raw_end]
        self.skip_ws()
        if self.eof:
            return
        c = self.read()
        if self.eof:
            return
        if c == 0x2F:
            return
        if c != 0x3D:
            self.raw_end -= 1
            return
        self.skip_ws()
        if self.eof:
            return
        quote = self.read()
        if self.eof:
            return
        if quote == 0x3E:
            self.raw_end -= 1
            return
        if quote in b"'\"":
            self.pending[1][0] = self.raw_end
            while True:
                c = self.read()
                if self.eof:
                    self.pending[1][1] = self.raw_end
                    return
                if c == quote:
                    self.pending[1][1] = self.raw_end - 1
                    return
        self.pending[1][0] = self.raw_end - 1
        while True:
            c = self.read()
            if self.eof:
                self.pending[1][1] = self.raw_end
                return
            if c in WS:
                self.pending[1][1] = self.raw_end - 1
                return
            if c == 0x3E:
                self.raw_end -= 1
                self.pending[1][1] = self.raw_end
                return

    def next(self) -> int:  # noqa: C901 - mirrors Go's Next
        self.raw_start = self.raw_end
        self.data_start = self.data_end = self.raw_end
        self.attr = []
        if self.eof:
            return 0
        if self.raw_tag:
            if self.raw_tag == b"plaintext":
                while not self.eof:
                    self.read()
                self.data_end = self.raw_end
            else:
                self.read_raw_or_rcdata()
            if self.data_end > self.data_start:
                return TEXT
        while True:
            c = self.read()
            if self.eof:
                break
            if c != 0x3C:
                continue
            c = self.read()
            if self.eof:
                break
            if _letter(c):
                kind = START
            elif c == 0x2F:
                kind = END
            elif c in b"!?":
                kind = COMMENT
            else:
                self.raw_end -= 1
                continue
            x = self.raw_end - 2
            if self.raw_start < x:
                self.raw_end = x
                return TEXT
            if kind == START:
                return self.read_start_tag()
            if kind == END:
                c = self.read()
                if self.eof:
                    break
                if c == 0x3E:
                    return COMMENT
                if _letter(c):
                    self.read_tag(False)
                    return 0 if self.eof else END
                self.raw_end -= 1
                self.read_until_close_angle()
                return COMMENT
            if c == 0x21:
                return self.read_markup_declaration()
            self.raw_end -= 1
            self.read_until_close_angle()
            return COMMENT
        if self.raw_start < self.raw_end:
            return TEXT
        return 0

    def token(self, kind: int) -> tuple[int, int, int, bytes, tuple[tuple[bytes, bytes], ...]]:
        name = b""
        attrs: list[tuple[bytes, bytes]] = []
        if kind in (START, END, SELF):
            name = self.buf[self.data_start : self.data_end].replace(b"\x00", FFFD).lower()
            for (k0, k1), (v0, v1) in self.attr:
                key = self.buf[k0:k1].replace(b"\x00", FFFD).lower()
                val = self.buf[v0:v1].replace(b"\x00", FFFD)
                val = val.replace(b"\r\n", b"\n").replace(b"\r", b"\n")
                attrs.append((key, unescape(val, True)))
        return kind, self.raw_start, self.raw_end, name, tuple(attrs)


def go_tokens(data: bytes, limit: int | None = None) -> list[tuple]:
    """All tokens of ``data`` (at most ``limit``) as ``(type, start, end, name, attrs)``."""
    z = GoTokenizer(data)
    out = []
    while limit is None or len(out) < limit:
        kind = z.next()
        if kind == 0:
            break
        out.append(z.token(kind))
    return out
