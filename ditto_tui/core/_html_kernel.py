"""The compiled html-distance kernel: Go's x/net/html tokenizer, features, FNV-1, vote.

Imported only through ``ditto_tui.core.kernel``. The tokenizer is a byte-at-a-time port
of golang.org/x/net/html's ``Tokenizer.Next`` (the same structure as the literal test
oracle ``tests/core/go_html_reference.py``: ``re`` is Go's ``z.raw.end``, a read at the
end sets ``eof`` and leaves ``re`` alone). Each token's features (``A:div``,
``G:a:href``, ...) are written to a byte buffer; every window of ``shingle`` features
(padded with empty ones at the start) joined by spaces is hashed with FNV-1 64 and voted
(bit i is 1 iff at least half of the shingle hashes have it). With the default shingle of
3, each feature goes into its three windows as soon as it is written (``_absorb``), so the
hashing runs beside the tokenizer; other shingles hash the written features afterwards.

Faster than byte by byte where it can be, and the same tokens: the ends of text, raw
bodies, quoted values and names are found 64 bytes a step (vector compares); a tag or
attribute name of up to eight bytes is read as one word, lower-cased in it and looked up
in a table of the atoms by their word; array accesses skip numba's wrap-around of
negative indices (``_at``, ``_set``: every index is checked against the size first).

Two rare cases are left to the Python pipeline, which returns ``None`` here: the value of
a ``class``/``name``/``rel`` attribute holding ``&``, CR or NUL (character references and
newline rules apply to it), and a shingle whose hash is 0 (Go stops summing there).
"""

from __future__ import annotations

import hashlib

import numpy as np
from llvmlite import ir
from numba import njit, types
from numba.core import cgutils
from numba.extending import intrinsic

from ditto_tui.core import datafiles
from ditto_tui.core._ditto_kernel import (
    _HIGH,
    _LOW7,
    _borrow,
    _majority,
    _skip_to,
    _vote_block,
    _zero_bytes,
)
from ditto_tui.core._html_tables import (
    _ATTRS,
    _MORE_ATTRS,
    _MORE_ROOM,
    _NEEDS_PYTHON,
    _SLOTS,
    ATOM_FLAT,
    ATOM_STARTS,
    SLOTS_TABLE,
    SPREAD,
    _Scratch,
)

#: SHA-256 of the ``_ditto_kernel.py`` whose helpers this module compiles in. numba keys its
#: cache of a module's functions by that module's source alone, so a change there must
#: change this file too, or numba would keep serving code compiled with the old helpers
#: (``tests/core/test_kernel.py`` checks it).
DITTO_KERNEL_SHA256 = "f72b5ec999bf64cd643043289488e48dc3deb5db2aa1891e0d2e2aa201448255"

_OFFSET = np.uint64(0xCBF29CE484222325)
_PRIME = np.uint64(0x100000001B3)
_BLOCK = 3840

_TEXT, _START, _END, _SELF, _COMMENT, _DOCTYPE = 1, 2, 3, 4, 5, 6
_PREFIX = np.frombuffer(b"?FABCED", dtype=np.uint8).copy()  # type -> prefix letter

# raw-text elements: names in one flat array, (start, length) per name
_RAW_NAMES = (b"iframe", b"noembed", b"noframes", b"noscript", b"plaintext", b"script",
              b"style", b"textarea", b"title", b"xmp")
_RAW_FLAT = np.frombuffer(b"".join(_RAW_NAMES), dtype=np.uint8).copy()
_RAW_STARTS = np.cumsum([0] + [len(x) for x in _RAW_NAMES]).astype(np.int64)
_SCRIPT = _RAW_NAMES.index(b"script")
_PLAINTEXT = _RAW_NAMES.index(b"plaintext")
_DOCTYPE_NAME = np.frombuffer(b"DOCTYPE", dtype=np.uint8).copy()
_VALUED = (b"class", b"name", b"rel")
_VALUED_FLAT = np.frombuffer(b"".join(_VALUED), dtype=np.uint8).copy()
_VALUED_STARTS = np.cumsum([0] + [len(x) for x in _VALUED]).astype(np.int64)


# -- the atoms by their first eight bytes --------------------------------------------------
#: SHA-256 of the atom names (``datafiles.html_atoms()``, one a line): the tables below are
#: built from them and compiled into the cached code as constants, so a change of the
#: names must change this file too (``tests/core/test_kernel.py`` checks it).
ATOMS_SHA256 = "501213c55f0e89af9f9f17d4999c60d68bce18ae3ae43d7a1333a0e8d6788953"
_KEY_SLOTS = 1024  # a power of two, > 3x the atoms of at most eight bytes
_KEY_SHIFT = np.uint64(64 - 10)
_KEY_MULTIPLIER = np.uint64(0x9E3779B97F4A7C15)
_UP_FROM = np.uint64(0x3F3F3F3F3F3F3F3F)  # + a byte: its high bit set from 0x41 ("A")
_UP_PAST = np.uint64(0x2525252525252525)  # + a byte: its high bit set from 0x5B ("Z" + 1)
_ALL = np.uint64(0xFFFFFFFFFFFFFFFF)


def _word(name: bytes) -> int:
    return int.from_bytes(name[:8].ljust(8, b"\0"), "little")


_ATOM_NAMES = datafiles.html_atoms()


def _atom_key_tables() -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(keys, index, words, raw): open addressing of the atoms of at most eight bytes by
    their name as a little-endian word (0: empty), slot ``(word * multiplier) >> 54``;
    each atom's first eight bytes as a word; each atom's raw-text element number or -1."""
    names = _ATOM_NAMES
    keys = np.zeros(_KEY_SLOTS, dtype=np.uint64)
    index = np.full(_KEY_SLOTS, -1, dtype=np.int64)
    for i, name in enumerate(names):
        if len(name) <= 8:
            word = _word(name)
            slot = ((word * int(_KEY_MULTIPLIER)) & int(_ALL)) >> int(_KEY_SHIFT)
            while keys[slot]:
                slot = (slot + 1) & (_KEY_SLOTS - 1)
            keys[slot], index[slot] = word, i
    words = np.array([_word(name) for name in names], dtype=np.uint64)
    raw = np.full(len(names), -1, dtype=np.int64)
    for t, name in enumerate(_RAW_NAMES):
        raw[names.index(name)] = t
    return keys, index, words, raw


def atoms_digest() -> str:
    """SHA-256 of the atom names, one a line (what ``ATOMS_SHA256`` must be)."""
    return hashlib.sha256(b"\n".join(_ATOM_NAMES)).hexdigest()


_ATOM_KEYS, _ATOM_KEY_INDEX, _ATOM_WORDS, _RAW_OF_ATOM = _atom_key_tables()
_CLASS, _NAME, _REL = (np.uint64(_word(name)) for name in _VALUED)


def _fnv1(data: bytes) -> int:
    h = int(_OFFSET)
    for byte in data:
        h = ((h * int(_PRIME)) & int(_ALL)) ^ byte
    return h


def _fresh_tables() -> tuple[np.ndarray, np.ndarray]:
    """FNV-1 64 of each token feature without attributes (``_TOKEN_FRESH[kind * _ROW +
    atom + 1]``: the prefix letter, ":" and the atom's name, none for -1) and of each
    attribute feature's start (``_ATTR_FRESH[atom + 1]``: "G:", the name, ":")."""
    names = [b"", *_ATOM_NAMES]
    token = [_fnv1(bytes([letter]) + b":" + name) for letter in _PREFIX.tolist() for name in names]
    attr = [_fnv1(b"G:" + name + b":") for name in names]
    return np.array(token, dtype=np.uint64), np.array(attr, dtype=np.uint64)


_ROW = len(_ATOM_NAMES) + 1
_TOKEN_FRESH, _ATTR_FRESH = _fresh_tables()


@intrinsic
def _at(typingctx, arr, i):  # pragma: no cover - compiled
    """``arr[i]`` of a 1-D C array, for 0 <= i < arr.size, without numba's wrap-around of
    negative indices (three more instructions and a register on every access; the
    callers check their bounds)."""
    if not (isinstance(arr, types.Array) and arr.ndim == 1 and arr.layout == "C"
            and isinstance(i, types.Integer)):
        return None

    def codegen(context, builder, signature, args):
        view = context.make_array(signature.args[0])(context, builder, value=args[0])
        return builder.load(builder.gep(view.data, [args[1]], inbounds=True))

    return arr.dtype(arr, i), codegen


@intrinsic
def _set(typingctx, arr, i, value):  # pragma: no cover - compiled
    """``arr[i] = value`` as ``_at`` reads (0 <= i < arr.size)."""
    if not (isinstance(arr, types.Array) and arr.ndim == 1 and arr.layout == "C"
            and isinstance(i, types.Integer) and isinstance(value, (types.Integer, types.Boolean))):
        return None

    def codegen(context, builder, signature, args):
        view = context.make_array(signature.args[0])(context, builder, value=args[0])
        item = context.cast(builder, args[2], signature.args[2], arr.dtype)
        builder.store(item, builder.gep(view.data, [args[1]], inbounds=True))
        return context.get_dummy_value()

    return types.none(arr, i, value), codegen


@intrinsic
def _flat(typingctx, arr):  # pragma: no cover - compiled
    """A 2-D C array as one row (borrowed, as ``_borrow`` makes it): ``attrs[i, k]`` is
    ``_at(_flat(attrs), 4 * i + k)``."""
    if not (isinstance(arr, types.Array) and arr.ndim == 2 and arr.layout == "C"):
        return None
    flat = types.Array(arr.dtype, 1, "C")

    def codegen(context, builder, signature, args):
        source = context.make_array(signature.args[0])(context, builder, value=args[0])
        rows, columns = cgutils.unpack_tuple(builder, source.shape, 2)
        view = context.make_array(flat)(context, builder)
        itemsize = context.get_constant(types.intp, context.get_abi_sizeof(
            context.get_data_type(arr.dtype)))
        context.populate_array(view, data=source.data, shape=[builder.mul(rows, columns)],
                               strides=[itemsize], itemsize=itemsize, meminfo=None)
        return view._getvalue()

    return flat(arr), codegen


@intrinsic
def _load8(typingctx, data, i):  # pragma: no cover - compiled
    """The eight bytes at ``data[i]`` as a little-endian word (``data[i:i + 8]`` must be
    there; any alignment)."""
    if not (isinstance(data, types.Array) and data.layout == "C" and data.dtype == types.uint8):
        return None

    def codegen(context, builder, signature, args):
        view = context.make_array(signature.args[0])(context, builder, value=args[0])
        at = builder.bitcast(builder.gep(view.data, [args[1]], inbounds=True),
                             ir.IntType(64).as_pointer())
        return builder.load(at, align=1)

    return types.uint64(data, i), codegen


@intrinsic
def _store8(typingctx, data, i, word):  # pragma: no cover - compiled
    """Write the little-endian word ``word`` to ``data[i:i + 8]`` (any alignment)."""
    if not (isinstance(data, types.Array) and data.layout == "C" and data.dtype == types.uint8
            and isinstance(word, types.Integer)):
        return None

    def codegen(context, builder, signature, args):
        view = context.make_array(signature.args[0])(context, builder, value=args[0])
        at = builder.bitcast(builder.gep(view.data, [args[1]], inbounds=True),
                             ir.IntType(64).as_pointer())
        builder.store(context.cast(builder, args[2], signature.args[2], types.uint64), at, align=1)
        return context.get_dummy_value()

    return types.none(data, i, word), codegen


def _first_of(stops: bytes):
    """An intrinsic ``(data, i)``: where the first of the 64 bytes at ``data[i]`` that is
    one of ``stops`` is (0-63; 64: none). Needs ``data[i:i + 64]``; one compare per stop
    byte on a 64 x 8-bit vector, which LLVM lowers to the machine's registers."""
    lanes = ir.VectorType(ir.IntType(8), 64)

    @intrinsic
    def first(typingctx, data, i):  # pragma: no cover - compiled
        if not (isinstance(data, types.Array) and data.layout == "C"
                and data.dtype == types.uint8):
            return None

        def codegen(context, builder, signature, args):
            b = builder
            view = context.make_array(signature.args[0])(context, b, value=args[0])
            x = b.load(b.bitcast(b.gep(view.data, [args[1]], inbounds=True),
                                 lanes.as_pointer()), align=1)
            hit = None
            for stop in stops:
                same = b.icmp_unsigned("==", x, ir.Constant(lanes, [ir.Constant(ir.IntType(8), stop)] * 64))
                hit = same if hit is None else b.or_(hit, same)
            bits = b.bitcast(hit, ir.IntType(64))
            cttz = cgutils.get_or_insert_function(
                b.module, ir.FunctionType(ir.IntType(64), [ir.IntType(64), ir.IntType(1)]),
                "llvm.cttz.i64")
            return b.call(cttz, [bits, ir.Constant(ir.IntType(1), 0)])

        return types.int64(data, i), codegen

    return first


_name_stop = _first_of(b" \t\n\x0c\r/>")  # where a tag name ends
_key_stop = _first_of(b" \t\n\x0c\r/>=")  # where an attribute name ends (not at its first byte)


@njit(cache=True, nogil=True)
def _ws(c):  # pragma: no cover - compiled
    return c == 0x20 or c == 0x0A or c == 0x0D or c == 0x09 or c == 0x0C


@njit(cache=True, nogil=True)
def _letter(c):  # pragma: no cover - compiled
    return (0x41 <= c <= 0x5A) or (0x61 <= c <= 0x7A)


@njit(cache=True, nogil=True)
def _lower(c):  # pragma: no cover - compiled
    return c + 32 if 0x41 <= c <= 0x5A else c


@njit(cache=True, nogil=True, inline="always")
def _skip_ws(buf, n, re, eof):  # pragma: no cover - compiled
    if eof:
        return re, eof
    while True:
        if re >= n:
            return re, True
        c = _at(buf, re)
        re += 1
        if not _ws(c):
            return re - 1, False


@njit(cache=True, nogil=True)
def _raw_end_tag(buf, n, re, tag):  # pragma: no cover - compiled
    """Go's readRawEndTag after ``</``: (matched, re, eof)."""
    a = _at(_RAW_STARTS, tag)
    length = _at(_RAW_STARTS, tag + 1) - a
    for i in range(length):
        if re >= n:
            return False, re, True
        c = _at(buf, re)
        re += 1
        t = _at(_RAW_FLAT, a + i)
        if c != t and c != t - 32:
            return False, re - 1, False
    if re >= n:
        return False, re, True
    c = _at(buf, re)
    re += 1
    if _ws(c) or c == 0x2F or c == 0x3E:
        return True, re - 3 - length, False
    return False, re - 1, False


@njit(cache=True, nogil=True)
def _read_script(buf, n, re):  # pragma: no cover - compiled
    """Go's readScript: returns (re, eof) where the script text ends."""
    # states: 0 data, 1 lt, 2 endopen, 3 escstart, 4 escstartdash, 5 esc, 6 escdash,
    # 7 escdashdash, 8 esclt, 9 escendopen, 10 dblstart, 11 dbl, 12 dbldash,
    # 13 dbldashdash, 14 dbllt, 15 dblend
    state = 0
    eof = False
    while True:
        if state == 2 or state == 9:
            ok, re, eof = _raw_end_tag(buf, n, re, _SCRIPT)
            if ok or eof:
                break
            state = 0 if state == 2 else 5
            continue
        if state == 15:
            ok, re, eof = _raw_end_tag(buf, n, re, _SCRIPT)
            if ok:
                re += 9
                state = 5
                continue
            if eof:
                break
            state = 11
            continue
        if state == 10:
            re -= 1
            state = 11
            for i in range(6):
                if re >= n:
                    eof = True
                    break
                c = _at(buf, re)
                re += 1
                t = _at(_RAW_FLAT, _at(_RAW_STARTS, _SCRIPT) + i)
                if c != t and c != t - 32:
                    re -= 1
                    state = 5
                    break
            if eof:
                break
            if state == 5:
                continue
            if re >= n:
                eof = True
                break
            c = _at(buf, re)
            re += 1
            if not (_ws(c) or c == 0x2F or c == 0x3E):
                re -= 1
                state = 5
            continue
        if re >= n:
            eof = True
            break
        c = _at(buf, re)
        re += 1
        if state == 0:
            if c == 0x3C:
                state = 1
        elif state == 1:
            if c == 0x2F:
                state = 2
            elif c == 0x21:
                state = 3
            else:
                re -= 1
                state = 0
        elif state == 3 or state == 4:
            if c == 0x2D:
                state = 4 if state == 3 else 7
            else:
                re -= 1
                state = 0
        elif state == 5 or state == 6 or state == 7:
            if c == 0x2D:
                state = 6 if state == 5 else 7
            elif c == 0x3C:
                state = 8
            elif c == 0x3E and state == 7:
                state = 0
            else:
                state = 5
        elif state == 8:
            if c == 0x2F:
                state = 9
            elif _letter(c):
                state = 10
            else:
                re -= 1
                state = 0
        elif state == 11 or state == 12 or state == 13:
            if c == 0x2D:
                state = 12 if state == 11 else 13
            elif c == 0x3C:
                state = 14
            elif c == 0x3E and state == 13:
                state = 0
            else:
                state = 11
        else:  # 14: dbllt
            if c == 0x2F:
                state = 15
            else:
                re -= 1
                state = 11
    return re, eof


@njit(cache=True, nogil=True)
def _read_raw(buf, n, re, tag):  # pragma: no cover - compiled
    """Go's readRawOrRCDATA for a raw tag other than script: (re, eof)."""
    eof = False
    while True:
        re = _skip_to(buf, n, re, 0x3C)
        if re >= n:
            return re, True
        c = _at(buf, re)
        re += 1
        if c != 0x3C:
            continue
        if re >= n:
            return re, True
        c = _at(buf, re)
        re += 1
        if c != 0x2F:
            re -= 1
            continue
        ok, re, eof = _raw_end_tag(buf, n, re, tag)
        if ok or eof:
            return re, eof


@njit(cache=True, nogil=True)
def _read_comment(buf, n, re):  # pragma: no cover - compiled
    dash = 0
    beginning = True
    while True:
        if re >= n:
            return re, True
        c = _at(buf, re)
        re += 1
        if c == 0x2D:
            dash += 1
            continue
        if c == 0x3E:
            if dash >= 2 or beginning:
                return re, False
        elif c == 0x21 and dash >= 2:
            if re >= n:
                return re, True
            c = _at(buf, re)
            re += 1
            if c == 0x3E:
                return re, False
            if c == 0x2D:
                dash = 1
                beginning = False
                continue
        dash = 0
        beginning = False


@njit(cache=True, nogil=True)
def _until_close_angle(buf, n, re):  # pragma: no cover - compiled
    re = _skip_to(buf, n, re, 0x3E)
    while True:
        if re >= n:
            return re, True
        c = _at(buf, re)
        re += 1
        if c == 0x3E:
            return re, False


@njit(cache=True, nogil=True)
def _markup_declaration(buf, n, re):  # pragma: no cover - compiled
    """Go's readMarkupDeclaration after ``<!``: (kind, re, eof)."""
    data_start = re
    if re + 2 > n:
        return _COMMENT, n, True
    c0 = _at(buf, re)
    c1 = _at(buf, re + 1)
    re += 2
    if c0 == 0x2D and c1 == 0x2D:
        re, eof = _read_comment(buf, n, re)
        return _COMMENT, re, eof
    re -= 2
    # readDoctype
    doctype = True
    for ch in _DOCTYPE_NAME:
        if re >= n:
            re = data_start
            doctype = False
            break
        c = _at(buf, re)
        re += 1
        if c != ch and c != ch + 32:
            re = data_start
            doctype = False
            break
    if doctype:
        re, eof = _skip_ws(buf, n, re, False)
        if eof:
            return _DOCTYPE, re, True
        re, eof = _until_close_angle(buf, n, re)
        return _DOCTYPE, re, eof
    re, eof = _until_close_angle(buf, n, re)
    return _COMMENT, re, eof


@njit(cache=True, nogil=True, inline="always")
def _same_key(buf, a0, a1, b0, b1):  # pragma: no cover - compiled
    if a1 - a0 != b1 - b0:
        return False
    for k in range(a1 - a0):  # noqa: SIM110 - no generators in compiled code
        if _lower(_at(buf, a0 + k)) != _lower(_at(buf, b0 + k)):
            return False
    return True


@njit(cache=True, nogil=True, inline="always")
def _attr_value(buf, n, re, eof):  # pragma: no cover - compiled
    """Go's readTagAttrVal: (value start, value end, re, eof)."""
    v0 = v1 = re
    if eof:
        return v0, v1, re, eof
    re, eof = _skip_ws(buf, n, re, eof)
    if eof:
        return v0, v1, re, eof
    if re >= n:
        return v0, v1, re, True
    c = _at(buf, re)
    re += 1
    if c == 0x2F:
        return v0, v1, re, False
    if c != 0x3D:
        return v0, v1, re - 1, False
    re, eof = _skip_ws(buf, n, re, eof)
    if eof:
        return v0, v1, re, eof
    if re >= n:
        return v0, v1, re, True
    quote = _at(buf, re)
    re += 1
    if quote == 0x3E:
        return v0, v1, re - 1, False
    if quote == 0x27 or quote == 0x22:
        v0 = re
        re = _skip_to(buf, n, re, quote)
        while True:
            if re >= n:
                return v0, re, re, True
            c = _at(buf, re)
            re += 1
            if c == quote:
                return v0, re - 1, re, False
    v0 = re - 1
    while True:
        if re >= n:
            return v0, re, re, True
        c = _at(buf, re)
        re += 1
        if _ws(c):
            return v0, re - 1, re, False
        if c == 0x3E:
            return v0, re - 1, re - 1, False


@njit(cache=True, nogil=True, inline="always")
def _bare_name_end(buf, n, re):  # pragma: no cover - compiled
    """Where the tag name that starts at ``re - 1`` ends when ``>`` follows it at once (a
    tag without attributes, the usual end tag), found 64 bytes a step; else -1."""
    if re + 64 <= n:
        end = re + _name_stop(buf, re)
        if end < re + 64 and _at(buf, end) == 0x3E:
            return end
    return -1


def _read_tag_py(buf, n, re, save, attrs):  # pragma: no cover - compiled
    """Go's readTag (the tag name's first byte read): (re, eof, name_start, name_end, count).

    Kept attributes go to ``attrs[i] = (key start, key end, value start, value end)``; a
    repeated key keeps the first. When ``attrs`` is full, count is -1 (call again with a
    larger one).
    """
    count = 0
    # readTagName
    name_start = re - 1
    eof = False
    if re + 64 <= n:  # to the first byte that ends the name, 64 a step; then as below
        re += _name_stop(buf, re)
    while True:
        if re >= n:
            eof = True
            name_end = re
            break
        c = _at(buf, re)
        re += 1
        if _ws(c):
            name_end = re - 1
            break
        if c == 0x2F or c == 0x3E:
            re -= 1
            name_end = re
            break
    re, eof = _skip_ws(buf, n, re, eof)
    if eof:
        return re, eof, name_start, name_end, count
    while True:
        if re >= n:
            eof = True
            break
        c = _at(buf, re)
        re += 1
        if c == 0x3E:
            break
        re -= 1
        # readTagAttrKey
        k0 = re
        if re + 65 <= n and _at(buf, re) != 0x2F:  # the first byte is the key's (even "=")
            re += 1 + _key_stop(buf, re + 1)
        while True:
            if re >= n:
                eof = True
                k1 = re
                break
            c = _at(buf, re)
            re += 1
            if c == 0x3D and k0 + 1 == re:
                continue
            if c == 0x3D or _ws(c) or c == 0x2F or c == 0x3E:
                re -= 1
                k1 = re
                break
        v0, v1, re, eof = _attr_value(buf, n, re, eof)
        if save and k0 != k1:
            fresh = True
            for j in range(count):
                if _same_key(buf, _at(attrs, 4 * j), _at(attrs, 4 * j + 1), k0, k1):
                    fresh = False
                    break
            if fresh:
                if 4 * count == attrs.size:
                    return re, eof, name_start, name_end, -1
                _set(attrs, 4 * count, k0)
                _set(attrs, 4 * count + 1, k1)
                _set(attrs, 4 * count + 2, v0)
                _set(attrs, 4 * count + 3, v1)
                count += 1
        re, eof = _skip_ws(buf, n, re, eof)
        if eof:
            break
    return re, eof, name_start, name_end, count


_read_tag = njit(cache=True, nogil=True)(_read_tag_py)
#: The same, inlined into its caller (start tags: the most frequent, and the most work).
_read_start_tag = njit(cache=True, nogil=True, inline="always")(_read_tag_py)


@njit(cache=True, nogil=True, inline="always")
def _atom(buf, a, b, slots, flat, starts):  # pragma: no cover - compiled
    """Index of the atom equal to the lower-cased ``buf[a:b]``, or -1."""
    h = _OFFSET
    for k in range(a, b):
        h = (h ^ np.uint64(_lower(_at(buf, k)))) * _PRIME
    s = np.intp(h & np.uint64(_SLOTS - 1))
    while _at(slots, s) != -1:
        i = _at(slots, s)
        lo = _at(starts, i)
        if _at(starts, i + 1) - lo == b - a:
            same = True
            for k in range(b - a):
                if _at(flat, lo + k) != _lower(_at(buf, a + k)):
                    same = False
                    break
            if same:
                return i
        s = (s + 1) & (_SLOTS - 1)
    return -1


@njit(cache=True, nogil=True, inline="always")
def _key_word(buf, n, a, b):  # pragma: no cover - compiled
    """(word, True): ``buf[a:b]`` lower-cased (A-Z only) as a little-endian word, when it
    has 1-8 bytes, none of them NUL, and eight bytes can be read at ``a``; else (0, False)."""
    length = b - a
    if length < 1 or length > 8 or a + 8 > n:
        return np.uint64(0), False
    mask = _ALL >> np.uint64(64 - 8 * length)
    word = _load8(buf, a) & mask
    if _zero_bytes(word | ~mask):
        return np.uint64(0), False
    low = word & _LOW7
    return word | (((low + _UP_FROM) & ~(low + _UP_PAST) & ~word & _HIGH) >> np.uint64(2)), True


@njit(cache=True, nogil=True, inline="always")
def _atom_of(buf, n, a, b, slots, flat, starts):  # pragma: no cover - compiled
    """Index of the atom equal to the lower-cased ``buf[a:b]``, or -1: a name of up to
    eight bytes by its word (``_ATOM_KEYS``), a longer one by ``_atom``."""
    word, whole = _key_word(buf, n, a, b)
    if not whole:
        return _atom(buf, a, b, slots, flat, starts)
    if word & _HIGH:  # not ASCII: no atom
        return -1
    s = np.intp((word * _KEY_MULTIPLIER) >> _KEY_SHIFT)
    while True:
        key = _at(_ATOM_KEYS, s)
        if key == word:
            return _at(_ATOM_KEY_INDEX, s)
        if key == 0:
            return -1
        s = (s + 1) & (_KEY_SLOTS - 1)


@njit(cache=True, nogil=True, inline="always")
def _put_atom(feat, used, atom, atom_len, flat, starts):  # pragma: no cover - compiled
    """Write the atom's name at ``feat[used]`` (eight bytes at once when it is that short;
    ``feat`` has room for them); returns the index after the name."""
    if atom_len <= 8:
        if atom_len:
            _store8(feat, used, _at(_ATOM_WORDS, atom))
    else:
        lo = _at(starts, atom)
        for k in range(atom_len):
            _set(feat, used + k, _at(flat, lo + k))
    return used + atom_len


@njit(cache=True, nogil=True, inline="always")
def _is_valued(key):  # pragma: no cover - compiled
    """True when the lower-cased key word (``_key_word``) is class, name or rel."""
    return key == _CLASS or key == _NAME or key == _REL  # noqa: SIM109 - compiled


@njit(cache=True, nogil=True, inline="always")
def _valued(buf, a, b):  # pragma: no cover - compiled
    """True when lower-cased ``buf[a:b]`` is class, name or rel."""
    for v in range(3):
        lo = _at(_VALUED_STARTS, v)
        if _at(_VALUED_STARTS, v + 1) - lo == b - a:
            same = True
            for k in range(b - a):
                if _at(_VALUED_FLAT, lo + k) != _lower(_at(buf, a + k)):
                    same = False
                    break
            if same:
                return True
    return False


@njit(cache=True, nogil=True, inline="always")
def _absorb(feat, lo, hi, chains, block, filled, spread, planes, totals, fresh,
            known):  # pragma: no cover - compiled
    """Hash the feature ``feat[lo:hi]`` into the two open windows (``chains``: the states
    of the windows opened two and one features ago) and open a new one, whose state after
    the feature's first ``known`` bytes is ``fresh`` (from a table). The window that it
    completes goes to ``block`` (voted when full). Returns ``filled``, or -1 when that
    window's hash is 0 (Go stops summing there: the Python pipeline does it)."""
    space = np.uint64(0x20)
    older = (chains[0] * _PRIME) ^ space
    newer = (chains[1] * _PRIME) ^ space
    for k in range(lo, lo + known):
        c = np.uint64(_at(feat, k))
        older = (older * _PRIME) ^ c
        newer = (newer * _PRIME) ^ c
    for k in range(lo + known, hi):
        c = np.uint64(_at(feat, k))
        older = (older * _PRIME) ^ c
        newer = (newer * _PRIME) ^ c
        fresh = (fresh * _PRIME) ^ c
    if older == 0:
        return -1
    _set(block, filled, older)
    filled += 1
    if filled == _BLOCK:
        _vote_block(block, np.int64(_BLOCK), spread, planes, totals)
        filled = 0
    chains[0] = newer
    chains[1] = fresh
    return filled


@njit(cache=True, nogil=True)
def features(buf, max_tokens, slots, flat, starts, attrs, feat, fstart, hashing, chains,
             block, spread, planes, totals):  # pragma: no cover - compiled
    """(status, count, filled): the page's features in order, written to the scratch
    arrays, or with ``hashing``, hashed as they come (shingle 3).

    Feature i is ``feat[fstart[i]:fstart[i + 1]]`` (uint8 and int64 arrays the caller
    passes in, with ``attrs``, an (m, 4) int64 array). With ``hashing`` each feature is
    instead hashed into the windows as soon as it is written (``_absorb``; ``chains``
    holds the two open windows' states, set by the caller), so its bytes are still in
    registers and cache, and ``feat`` holds one feature at a time; ``filled`` window
    hashes are left in ``block`` for the caller to vote (``fstart`` is not used). Status 1
    means the page needs the Python pipeline (see the module docstring); status 2 that a
    tag has more attributes than ``attrs`` has rows, status 3 that ``feat`` or ``fstart``
    is too small: call again with larger ones.
    """
    # Borrowed views (no reference counting; the arguments live until the function
    # returns): counting references around the per-token helpers took half the time.
    buf = _borrow(buf)
    slots = _borrow(slots)
    flat = _borrow(flat)
    starts = _borrow(starts)
    attrs = _flat(attrs)  # attrs[i, k] is attrs[4 * i + k]
    feat = _borrow(feat)
    fstart = _borrow(fstart)
    chains = _borrow(chains)
    block = _borrow(block)
    spread = _borrow(spread)
    planes = _borrow(planes)
    totals = _borrow(totals)
    n = buf.size
    _set(fstart, 0, 0)
    filled = 0
    nf = 0
    used = 0
    re = 0
    eof = False
    raw_tag = -1
    pending = 0  # the kind of the tag at ``re``, when a text token ended at it
    tokens = 0
    while tokens < max_tokens:
        # -- Go's Next
        raw_start = re
        if eof:
            break
        kind = 0
        count = 0
        name_start = name_end = 0
        atom = -1
        if raw_tag >= 0:
            data_start = re
            if raw_tag == _PLAINTEXT:
                re = n
                eof = True
            elif raw_tag == _SCRIPT:
                re, eof = _read_script(buf, n, re)
            else:
                re, eof = _read_raw(buf, n, re, raw_tag)
            raw_tag = -1
            if re > data_start:
                kind = _TEXT
        if kind == 0:
            while True:
                if pending:  # the tag found at the end of the text token before
                    tag_kind = pending
                    pending = 0
                    re += 2
                    c = _at(buf, re - 1)
                else:
                    re = _skip_to(buf, n, re, 0x3C)  # text: 64 bytes a step up to a '<'
                    if re >= n:
                        eof = True
                        break
                    c = _at(buf, re)
                    re += 1
                    if c != 0x3C:
                        continue
                    if re >= n:
                        eof = True
                        break
                    c = _at(buf, re)
                    re += 1
                    if _letter(c):
                        tag_kind = _START
                    elif c == 0x2F:
                        tag_kind = _END
                    elif c == 0x21 or c == 0x3F:
                        tag_kind = _COMMENT
                    else:
                        re -= 1
                        continue
                    x = re - 2
                    if raw_start < x:
                        re = x
                        kind = _TEXT
                        pending = tag_kind
                        break
                if tag_kind == _START:
                    name_end = _bare_name_end(buf, n, re)
                    if name_end >= 0:  # "<name>": what _read_tag would return, at once
                        name_start, re = re - 1, name_end + 1
                    else:
                        re, eof, name_start, name_end, count = _read_start_tag(
                            buf, n, re, tag_kind == _START, attrs)  # True: a value
                    if count < 0:
                        return _MORE_ATTRS, 0, 0
                    if eof:
                        kind = -1
                        break
                    atom = _atom_of(buf, n, name_start, name_end, slots, flat, starts)
                    if atom >= 0:
                        raw_tag = _at(_RAW_OF_ATOM, atom)  # a raw-text element, or -1
                    kind = _START
                    if _at(buf, re - 2) == 0x2F and (count == 0 or re - 2 != _at(attrs, 4 * count - 1) - 1):
                        kind = _SELF
                    break
                if tag_kind == _END:
                    if re >= n:
                        eof = True
                        break
                    c = _at(buf, re)
                    re += 1
                    if c == 0x3E:
                        kind = _COMMENT
                        break
                    if _letter(c):
                        name_end = _bare_name_end(buf, n, re)
                        if name_end >= 0:
                            name_start, re = re - 1, name_end + 1
                        else:
                            re, eof, name_start, name_end, count = _read_tag(
                                buf, n, re, tag_kind == _START, attrs)  # False: a value
                        kind = -1 if eof else _END
                        atom = _atom_of(buf, n, name_start, name_end, slots, flat, starts)
                        break
                    re -= 1
                    re, eof = _until_close_angle(buf, n, re)
                    kind = _COMMENT
                    break
                if c == 0x21:
                    kind, re, eof = _markup_declaration(buf, n, re)
                    break
                re -= 1
                re, eof = _until_close_angle(buf, n, re)
                kind = _COMMENT
                break
            if kind == 0 and raw_start < re:
                kind = _TEXT
        if kind <= 0:
            break
        tokens += 1
        # -- the token's features (8 bytes of room to spare: words are written whole)
        if kind != _START and kind != _SELF and kind != _END:
            atom = -1
        atom_len = _at(starts, atom + 1) - _at(starts, atom) if atom >= 0 else 0
        if (not hashing and nf + count + 2 > fstart.size) or used + 10 + atom_len > feat.size:
            return _MORE_ROOM, 0, 0
        _set(feat, used, _at(_PREFIX, kind))
        _set(feat, used + 1, 0x3A)
        used = _put_atom(feat, used + 2, atom, atom_len, flat, starts)
        nf += 1
        if hashing:
            fresh = _at(_TOKEN_FRESH, kind * _ROW + atom + 1)
            filled = _absorb(feat, 0, used, chains, block, filled, spread, planes, totals,
                             fresh, used)
            if filled < 0:
                return _NEEDS_PYTHON, 0, 0
            used = 0
        else:
            _set(fstart, nf, used)
        for j in range(count):
            k0, k1 = _at(attrs, 4 * j), _at(attrs, 4 * j + 1)
            v0, v1 = _at(attrs, 4 * j + 2), _at(attrs, 4 * j + 3)
            key, whole = _key_word(buf, n, k0, k1)
            valued = _is_valued(key) if whole else _valued(buf, k0, k1)
            if valued:
                for k in range(v0, v1):
                    c = _at(buf, k)
                    if c == 0x26 or c == 0x0D or c == 0:
                        return _NEEDS_PYTHON, 0, 0
            need = 12 + atom_len + 3 * (k1 - k0) + (v1 - v0)
            if used + need > feat.size:
                return _MORE_ROOM, 0, 0
            _set(feat, used, 0x47)  # G
            _set(feat, used + 1, 0x3A)
            used = _put_atom(feat, used + 2, atom, atom_len, flat, starts)
            _set(feat, used, 0x3A)
            used += 1
            if whole:
                _store8(feat, used, key)
                used += k1 - k0
            else:
                for k in range(k0, k1):  # lower-cased, NUL -> U+FFFD (room for 3 bytes each)
                    c = _at(buf, k)
                    if c == 0:
                        _set(feat, used, 0xEF)
                        _set(feat, used + 1, 0xBF)
                        _set(feat, used + 2, 0xBD)
                        used += 3
                    else:
                        _set(feat, used, _lower(c))
                        used += 1
            if valued:
                _set(feat, used, 0x3A)
                used += 1
                for k in range(v0, v1):
                    _set(feat, used, _at(buf, k))
                    used += 1
            nf += 1
            if hashing:
                fresh = _at(_ATTR_FRESH, atom + 1)
                filled = _absorb(feat, 0, used, chains, block, filled, spread, planes, totals,
                                 fresh, 3 + atom_len)
                if filled < 0:
                    return _NEEDS_PYTHON, 0, 0
                used = 0
            else:
                _set(fstart, nf, used)
    return 0, nf, filled


@njit(cache=True, nogil=True)
def _finish(block, filled, nf, spread, planes, totals):  # pragma: no cover - compiled
    """Vote the ``filled`` hashes left in ``block``; the fingerprint of ``nf`` windows."""
    if filled:
        _vote_block(block, np.int64(filled), spread, planes, totals)
    return _majority(totals, planes, nf)


@njit(cache=True, nogil=True)
def _fingerprint(buf, shingle, max_tokens, slots, flat, starts, spread, attrs, feat,
                 fstart):  # pragma: no cover - compiled
    return fingerprint_into(buf, shingle, max_tokens, slots, flat, starts, spread, attrs,
                            feat, fstart, np.empty(64, dtype=np.int64),
                            np.empty(4, dtype=np.uint64), np.empty(_BLOCK, dtype=np.uint64),
                            np.empty(max(shingle, 1), dtype=np.uint64))


@njit(cache=True, nogil=True)
def fingerprint_into(buf, shingle, max_tokens, slots, flat, starts, spread, attrs, feat,
                     fstart, totals, planes, block, states):  # pragma: no cover - compiled
    """(status, fingerprint) of a page (status as for ``features``); allocates nothing:
    ``totals`` (int64[64]), ``planes`` (uint64[4]), ``block`` (uint64[3840]) and
    ``states`` (uint64[shingle]) are work space, overwritten."""
    for k in range(64):
        totals[k] = 0
    for k in range(4):
        planes[k] = 0
    space = np.uint64(0x20)
    # The default shingle: each feature is hashed as it is read (``_absorb``). A value,
    # not a literal True or False: numba would compile ``features`` once for each.
    fused = shingle == 3
    if fused:
        states[0] = (_OFFSET * _PRIME) ^ space  # the window opened at the two empty
        states[1] = _OFFSET  # features before the first (two spaces and one to come)
    status, nf, filled = features(buf, max_tokens, slots, flat, starts, attrs, feat, fstart,
                                  fused, states, block, spread, planes, totals)
    feat = _borrow(feat)
    fstart = _borrow(fstart)
    if status != 0:
        return status, np.uint64(0)
    if nf == 0:
        return 0, np.uint64(0xFFFFFFFFFFFFFFFF)
    if fused:
        return 0, _finish(block, filled, nf, spread, planes, totals)
    filled = 0
    slot = 0  # the state of the window opening at the current feature
    for j in range(1 - shingle, nf):
        for t in range(shingle):
            if t != slot:
                states[t] = (states[t] * _PRIME) ^ space
        states[slot] = _OFFSET
        if j >= 0:
            for k in range(fstart[j], fstart[j + 1]):
                c = np.uint64(feat[k])
                for t in range(shingle):
                    states[t] = (states[t] * _PRIME) ^ c
        slot += 1
        if slot == shingle:
            slot = 0
        if j >= 0:  # the window that opened at feature j - shingle + 1 is complete
            h = states[slot]
            if h == 0:
                return _NEEDS_PYTHON, np.uint64(0)
            block[filled] = h
            filled += 1
            if filled == _BLOCK:
                _vote_block(block, filled, spread, planes, totals)
                filled = 0
    return 0, _finish(block, filled, nf, spread, planes, totals)


_SLOTS_TABLE, _ATOM_FLAT, _ATOM_STARTS, _SPREAD = SLOTS_TABLE, ATOM_FLAT, ATOM_STARTS, SPREAD


def fingerprint(data: bytes, shingle: int, max_tokens: int) -> int | None:
    """The html-distance fingerprint of a page, or None when the Python pipeline must do it."""
    buf = np.frombuffer(data, dtype=np.uint8)
    scratch = _Scratch(buf.size)
    while True:
        status, fp = _fingerprint(buf, shingle, max_tokens, _SLOTS_TABLE, _ATOM_FLAT,
                                  _ATOM_STARTS, _SPREAD, *scratch.arrays)
        if not scratch.grown(status):
            return None if status else int(fp)


def _no_hashing() -> tuple[np.ndarray, ...]:
    """Arguments for ``features`` without hashing (chains, block, spread, planes, totals)."""
    return (np.zeros(2, dtype=np.uint64), np.zeros(1, dtype=np.uint64), _SPREAD,
            np.zeros(4, dtype=np.uint64), np.zeros(64, dtype=np.int64))


def feature_list(data: bytes, max_tokens: int, attrs: int = _ATTRS,
                 room: int = 0) -> list[bytes] | None:
    """The page's features in order (for tests), or None when Python must do it."""
    buf = np.frombuffer(data, dtype=np.uint8)
    scratch = _Scratch(buf.size, attrs, room)
    while True:
        status, nf, _ = features(buf, max_tokens, _SLOTS_TABLE, _ATOM_FLAT, _ATOM_STARTS,
                                 *scratch.arrays, False, *_no_hashing())
        if not scratch.grown(status):
            break
    return None if status else scratch.features(nf)
