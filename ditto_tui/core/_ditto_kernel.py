"""The compiled ditto/2 kernel: decode, strip tags, lowercase, collapse, shingle, hash, vote.

Imported only through ``ditto_tui.core.kernel`` (which sets numba's cache folder first).
One pass over the raw bytes writes the normalized UTF-8 text (same rules, same order as
``normalize``: tags are stripped on the bytes, each byte that does not start a valid
shortest-form sequence becomes one U+FFFD, the code point table maps lowercase and
whitespace to U+0020, spaces collapse). A second pass hashes every window of ``char_n``
code points (and every window of ``word_n`` words) with FNV-1a 64 and votes.

Plain ASCII text (no ``<``, no byte >= 0x80, no whitespace after a space) is normalized
64 bytes a step (``_plain_wide``), the rest byte by byte.

The vote: hashes are gathered in blocks of at most 3,840 and their bits counted
bit-sliced, in carry-save adders (each a few AND/XOR/OR on whole words). From 384 hashes a
block, eight go side by side in one 8 x 64-bit vector step (``_add_lanes128``); the rest,
one word at a time, with packed 8-bit counters for their sixteens. Bit i of the
fingerprint is 1 iff twice its total exceeds the number of windows. The vector steps are
LLVM vector operations written in numba intrinsics: LLVM lowers them to the machine's
registers (AVX-512, AVX2, SSE2, NEON).
"""

from __future__ import annotations

import numpy as np
from llvmlite import ir
from numba import njit, types
from numba.core import cgutils
from numba.cpython.unsafe.numbers import trailing_zeros
from numba.extending import intrinsic

from ditto_tui.core._ditto_tables import ASCII_MAP, PAIRS, SPREAD, TABLE, pair_table, spread_table
from ditto_tui.core._mbox_parts import MboxParts
from ditto_tui.core._mbox_parts import mbox_parts as drive_mbox

__all__ = ["fingerprint", "fingerprint_spans", "mbox_parts", "mbox_split_into", "next_postmark",
           "normalize_utf8", "pair_table", "spread_table"]

_OFFSET = np.uint64(0xCBF29CE484222325)
_PRIME = np.uint64(0x100000001B3)
_BLOCK = 3840  # windows per block: 240 + 15 sixteens per block fit an 8-bit counter
_M8 = np.uint64(0xFF)
_S8, _S16, _S24, _S32, _S40, _S48, _S56 = (np.uint64(8 * k) for k in range(1, 8))
# SWAR constants (eight bytes in a uint64)
_ONES = np.uint64(0x0101010101010101)
_HIGH = np.uint64(0x8080808080808080)
_LOW7 = np.uint64(0x7F7F7F7F7F7F7F7F)
_SPACES = np.uint64(0x2020202020202020)
_LTS = np.uint64(0x3C3C3C3C3C3C3C3C)
_ZERO = np.uint64(0)
_U1, _U2, _U3, _U4, _U8 = (np.uint64(k) for k in (1, 2, 3, 4, 8))
_UBLOCK = np.uint64(_BLOCK)


@njit(cache=True, nogil=True, inline="always")
def _csa(a, b, c):  # pragma: no cover - compiled
    """Carry-save adder on 64 bit lanes: (carries, sums) of a + b + c."""
    u = a ^ b
    return (a & b) | (u & c), u ^ c


_LANES = 8  # hashes side by side in one vector step (8 x 64 bits: a 512-bit vector)
_DIGITS = 9  # each lane's count in nine bit-sliced digits: up to 511 (a block gives 480)
_ROWS = _DIGITS + 3  # and three more digits for the lanes' sum (a block's 3,840 < 4,096)
_LANES_MIN = 384  # fewer hashes go one by one: the lanes' flush would cost more than it saves
_V64 = ir.VectorType(ir.IntType(64), _LANES)


def _ir_csa(b, a, x, y):
    """Carry-save adder on LLVM vectors: (carries, sums) of a + x + y."""
    u = b.xor(a, x)
    return b.or_(b.and_(a, x), b.and_(u, y)), b.xor(u, y)


def _ir_add_eight(b, ones, twos, fours, x):
    """Add the eight vectors ``x`` to the digits ones, twos, fours (a Harley-Seal tree):
    (the eights carry, ones, twos, fours)."""
    twos_a, ones = _ir_csa(b, ones, x[0], x[1])
    twos_b, ones = _ir_csa(b, ones, x[2], x[3])
    fours_a, twos = _ir_csa(b, twos, twos_a, twos_b)
    twos_a, ones = _ir_csa(b, ones, x[4], x[5])
    twos_b, ones = _ir_csa(b, ones, x[6], x[7])
    fours_b, twos = _ir_csa(b, twos, twos_a, twos_b)
    eights, fours = _ir_csa(b, fours, fours_a, fours_b)
    return eights, ones, twos, fours


@intrinsic
def _borrow(typingctx, arr):  # pragma: no cover - compiled
    """The same array without its reference count (a NULL meminfo).

    Passing an array to a compiled helper, or slicing it, costs an atomic increment and
    decrement of its reference count. A borrowed view costs neither, and is only valid
    while the array it came from is alive: use it only on arrays the caller of the
    compiled function holds (the arguments).
    """

    def codegen(context, builder, signature, args):
        view = context.make_array(signature.args[0])(context, builder, value=args[0])
        view.meminfo = cgutils.get_null_value(view.meminfo.type)
        return view._getvalue()

    return arr(arr), codegen


@intrinsic
def _lane_space(typingctx):  # pragma: no cover - compiled
    """A uint64[96] on the stack of the calling function (no allocation, no reference
    count): the lanes' digits, ``lanes[8 * d + l]`` = digit 2**d of lane l."""
    array = types.Array(types.uint64, 1, "C")

    def codegen(context, builder, signature, args):
        size = _LANES * _ROWS
        data = cgutils.alloca_once(builder, ir.IntType(64), size=size)
        view = context.make_array(array)(context, builder)
        itemsize = context.get_constant(types.intp, 8)
        context.populate_array(view, data=data, shape=[context.get_constant(types.intp, size)],
                               strides=[itemsize], itemsize=itemsize, meminfo=None)
        return view._getvalue()

    return array(), codegen


@intrinsic
def _add_lanes128(typingctx, h, i, lanes):  # pragma: no cover - compiled
    """Add the 128 hashes ``h[i:i + 128]`` to ``lanes`` (as ``_lane_space`` lays it out).

    Written as LLVM vector operations on 8 x 64 bits: hash ``i + 8 m + l`` goes to lane
    l, through a Harley-Seal tree of carry-save adders (16 hashes a lane) into the four
    low digits, and its sixteens ripple into the five above. LLVM lowers the vectors to
    the machine's (two AVX2 or one AVX-512 register, four SSE2 or NEON registers).
    """
    if not (isinstance(h, types.Array) and h.layout == "C" and h.dtype == types.uint64
            and isinstance(lanes, types.Array) and lanes.layout == "C"
            and lanes.dtype == types.uint64):
        return None

    def codegen(context, builder, signature, args):
        b = builder
        hashes = context.make_array(signature.args[0])(context, b, args[0])
        digits = context.make_array(signature.args[2])(context, b, args[2])
        at = b.bitcast(b.gep(hashes.data, [args[1]]), _V64.as_pointer())
        lp = b.bitcast(digits.data, _V64.as_pointer())

        def slot(pointer, k):
            return b.gep(pointer, [ir.Constant(ir.IntType(32), k)])

        x = [b.load(slot(at, k), align=8) for k in range(16)]
        ones, twos, fours, eights = (b.load(slot(lp, d), align=8) for d in range(4))
        eights_a, ones, twos, fours = _ir_add_eight(b, ones, twos, fours, x[:8])
        eights_b, ones, twos, fours = _ir_add_eight(b, ones, twos, fours, x[8:])
        carry, eights = _ir_csa(b, eights, eights_a, eights_b)
        for d, value in enumerate((ones, twos, fours, eights)):
            b.store(value, slot(lp, d), align=8)
        for d in range(4, _DIGITS):  # the sixteens: 480 hashes a lane at most, < 512
            digit = b.load(slot(lp, d), align=8)
            b.store(b.xor(digit, carry), slot(lp, d), align=8)
            carry = b.and_(digit, carry)
        return context.get_dummy_value()

    return types.void(h, i, lanes), codegen


@njit(cache=True, nogil=True, inline="always")
def _unpack_packed(totals, weight, a0, a1, a2, a3, a4, a5, a6, a7):  # pragma: no cover
    """Add ``weight`` times the 8-bit counters packed in a0..a7 (byte k of a_j: bit
    8 j + k) to ``totals``."""
    for k in range(8):
        shift = np.uint64(8 * k)
        totals[k] += weight * np.int64((a0 >> shift) & _M8)
        totals[8 + k] += weight * np.int64((a1 >> shift) & _M8)
        totals[16 + k] += weight * np.int64((a2 >> shift) & _M8)
        totals[24 + k] += weight * np.int64((a3 >> shift) & _M8)
        totals[32 + k] += weight * np.int64((a4 >> shift) & _M8)
        totals[40 + k] += weight * np.int64((a5 >> shift) & _M8)
        totals[48 + k] += weight * np.int64((a6 >> shift) & _M8)
        totals[56 + k] += weight * np.int64((a7 >> shift) & _M8)


@njit(cache=True, nogil=True, inline="always")
def _flush_lanes(lanes, totals):  # pragma: no cover - compiled
    """Add the lanes' counts to ``totals``.

    The eight lanes' nine-digit counts are added pairwise, bit-sliced (a ripple-carry
    adder on whole words): lanes 4-7 into 0-3 (ten digits), 2-3 into 0-1 (eleven), 1
    into 0 (twelve: up to 4,095, a block is 3,840). Then digit 2**d of lane 0 adds 2**d
    to each bit's total where it is set.
    """
    digits = _DIGITS
    half = _LANES // 2
    while half:
        for lane in range(half):
            carry = _ZERO
            for d in range(digits):
                a = lanes[_LANES * d + lane]
                b = lanes[_LANES * d + lane + half]
                u = a ^ b
                lanes[_LANES * d + lane] = u ^ carry
                carry = (a & b) | (u & carry)
            lanes[_LANES * digits + lane] = carry
        digits += 1
        half //= 2
    for d in range(digits):
        word = lanes[_LANES * d]
        for k in range(64):
            totals[k] += np.int64((word >> np.uint64(k)) & np.uint64(1)) << d


@njit(cache=True, nogil=True, inline="always")
def _vote_lanes(h, count, totals):  # pragma: no cover - compiled
    """Add the bits of ``h[:count]`` (a multiple of 128, at most 3,840) to ``totals``:
    eight side by side through vector carry-save adders, counted in the lanes' own
    digits, then added up."""
    lanes = _lane_space()
    for k in range(_LANES * _DIGITS):
        lanes[k] = 0
    for i in range(0, count, 128):
        _add_lanes128(h, i, lanes)
    _flush_lanes(lanes, totals)


@njit(cache=True, nogil=True)
def _vote_block(h, count, spread, planes, totals):  # pragma: no cover - compiled
    """Add the bits of ``h[:count]`` (count <= 3840) to the running per-bit counts.

    Per bit position the count is ``totals + ones + 2 twos + 4 fours + 8 eights`` where
    ``planes`` holds the four bit-sliced digits (carried from block to block). From 384
    hashes on, the first multiple of 128 goes eight side by side through vector
    carry-save adders (``_add_lanes128``), counted in the lanes' own digits and added to
    ``totals`` at the end; the rest, one by one (``_vote_scalar``).
    """
    first = 0
    if count >= _LANES_MIN:
        first = count - count % 128
        _vote_lanes(h, first, totals)
    # bounded, so LLVM knows the indices below are never negative (no wrap-around code)
    rest = min(max(count - first, 0), _BLOCK)
    _vote_scalar(_borrow(h)[first:], rest, spread, planes, totals)


@njit(cache=True, nogil=True, inline="always")
def _vote_scalar(h, count, spread, planes, totals):  # pragma: no cover - compiled
    """Add the bits of ``h[:count]`` (count <= 3840) to the running counts.

    Groups of 16 hashes go through a Harley-Seal carry-save tree into ``planes``, the
    last ``count % 16`` ripple in one by one; each sixteens carry is spread into packed
    8-bit counters (at most 240 + 15), added to ``totals`` (times 16) at the end.
    """
    ones, twos, fours, eights = planes[0], planes[1], planes[2], planes[3]
    a0 = a1 = a2 = a3 = a4 = a5 = a6 = a7 = np.uint64(0)
    full = count - count % 16
    for i in range(0, full, 16):
        twos_a, ones = _csa(ones, h[i], h[i + 1])
        twos_b, ones = _csa(ones, h[i + 2], h[i + 3])
        fours_a, twos = _csa(twos, twos_a, twos_b)
        twos_a, ones = _csa(ones, h[i + 4], h[i + 5])
        twos_b, ones = _csa(ones, h[i + 6], h[i + 7])
        fours_b, twos = _csa(twos, twos_a, twos_b)
        eights_a, fours = _csa(fours, fours_a, fours_b)
        twos_a, ones = _csa(ones, h[i + 8], h[i + 9])
        twos_b, ones = _csa(ones, h[i + 10], h[i + 11])
        fours_a, twos = _csa(twos, twos_a, twos_b)
        twos_a, ones = _csa(ones, h[i + 12], h[i + 13])
        twos_b, ones = _csa(ones, h[i + 14], h[i + 15])
        fours_b, twos = _csa(twos, twos_a, twos_b)
        eights_b, fours = _csa(fours, fours_a, fours_b)
        sixteens, eights = _csa(eights, eights_a, eights_b)
        a0 += spread[sixteens & _M8]
        a1 += spread[(sixteens >> _S8) & _M8]
        a2 += spread[(sixteens >> _S16) & _M8]
        a3 += spread[(sixteens >> _S24) & _M8]
        a4 += spread[(sixteens >> _S32) & _M8]
        a5 += spread[(sixteens >> _S40) & _M8]
        a6 += spread[(sixteens >> _S48) & _M8]
        a7 += spread[(sixteens >> _S56) & _M8]
    for i in range(full, count):  # one hash at a time: a ripple through the digits
        carry = h[i]
        ones, carry = ones ^ carry, ones & carry
        twos, carry = twos ^ carry, twos & carry
        fours, carry = fours ^ carry, fours & carry
        eights, carry = eights ^ carry, eights & carry
        a0 += spread[carry & _M8]
        a1 += spread[(carry >> _S8) & _M8]
        a2 += spread[(carry >> _S16) & _M8]
        a3 += spread[(carry >> _S24) & _M8]
        a4 += spread[(carry >> _S32) & _M8]
        a5 += spread[(carry >> _S40) & _M8]
        a6 += spread[(carry >> _S48) & _M8]
        a7 += spread[(carry >> _S56) & _M8]
    planes[0], planes[1], planes[2], planes[3] = ones, twos, fours, eights
    _unpack_packed(totals, np.int64(16), a0, a1, a2, a3, a4, a5, a6, a7)


@njit(cache=True, nogil=True, inline="always")
def _put(out, o, cp):  # pragma: no cover - compiled
    """UTF-8 encode code point ``cp`` at ``out[o]``; returns the new end."""
    if cp < 0x80:
        out[o] = cp
        return o + 1
    if cp < 0x800:
        out[o] = 0xC0 | (cp >> 6)
        out[o + 1] = 0x80 | (cp & 0x3F)
        return o + 2
    if cp < 0x10000:
        out[o] = 0xE0 | (cp >> 12)
        out[o + 1] = 0x80 | ((cp >> 6) & 0x3F)
        out[o + 2] = 0x80 | (cp & 0x3F)
        return o + 3
    out[o] = 0xF0 | (cp >> 18)
    out[o + 1] = 0x80 | ((cp >> 12) & 0x3F)
    out[o + 2] = 0x80 | ((cp >> 6) & 0x3F)
    out[o + 3] = 0x80 | (cp & 0x3F)
    return o + 4


@njit(cache=True, nogil=True, inline="always")
def _zero_bytes(x):  # pragma: no cover - compiled
    """0x80 in each byte of ``x`` that is zero, 0 in the others (exact for any bytes: the
    low seven bits are added without a carry out of the byte)."""
    return ~(((x & _LOW7) + _LOW7) | x) & _HIGH


@njit(cache=True, nogil=True, inline="always")
def _plain_chunk(data, i, last):  # pragma: no cover - compiled
    """The eight bytes at ``data[i]`` lower-cased, and True, when they are plain text.

    Plain: ASCII, no byte below 0x20 (tabs and newlines take the byte loop), no ``<``,
    no two spaces in a row, and no leading space after ``last`` = 0x20; then the
    normalized text is the bytes with A-Z lower-cased. Else (0, False).
    """
    chunk = data[i : i + 8]  # indexed from 0: no wrap-around of negative indices per byte
    x = np.uint64(chunk[0])
    for k in range(1, 8):
        x |= np.uint64(chunk[k]) << np.uint64(8 * k)
    if x & _HIGH:
        return x, False
    # some byte < 0x20 or == '<': (x - 0x20 ones) borrows into a high bit only there
    if ((x - _SPACES) | _zero_bytes(x ^ _LTS)) & ~x & _HIGH:
        return x, False
    spaces = _zero_bytes(x ^ _SPACES)
    if spaces & ((spaces << _S8) | np.uint64(0x80 if last == 0x20 else 0)):
        return x, False
    upper = (x + np.uint64(0x3F) * _ONES) & ~(x + np.uint64(0x25) * _ONES) & _HIGH
    return x | (upper >> np.uint64(2)), True


@njit(cache=True, nogil=True, inline="always")
def _plain_prefix(data, i, last):  # pragma: no cover - compiled
    """The eight bytes at ``data[i]`` with A-Z lower-cased, and how many of them come
    before the first that is not plain (as ``_plain_chunk`` says; 8: all are plain).

    Only the bytes before that first one are sure to be lower-cased rightly (a borrow or
    a carry may cross from a byte that is not plain into the bytes above it), and only
    the lowest byte marked not plain is sure to be marked rightly.
    """
    chunk = data[i : i + 8]  # indexed from 0: no wrap-around of negative indices per byte
    x = np.uint64(chunk[0])
    for k in range(1, 8):
        x |= np.uint64(chunk[k]) << np.uint64(8 * k)
    # some byte < 0x20 or == '<': (x - 0x20 ones) borrows into a high bit first there
    bad = (x | (((x - _SPACES) | _zero_bytes(x ^ _LTS)) & ~x)) & _HIGH
    spaces = _zero_bytes(x ^ _SPACES)
    bad |= spaces & ((spaces << _S8) | np.uint64(0x80 if last == 0x20 else 0))
    upper = (x + np.uint64(0x3F) * _ONES) & ~(x + np.uint64(0x25) * _ONES) & _HIGH
    plain = np.intp(trailing_zeros(bad) >> np.uint64(3)) if bad else 8
    return x | (upper >> np.uint64(2)), plain


_WIDE = 64  # bytes a step in ``_plain_wide``
_V8 = ir.VectorType(ir.IntType(8), _WIDE)


@intrinsic
def _plain_wide(typingctx, data, i, out, o, last):  # pragma: no cover - compiled
    """Normalize the plain prefix of the 64 bytes at ``data[i]`` into ``out[o]``; returns
    how many bytes that prefix holds (0-64). Needs ``data[i:i + 64]`` and ``out[o:o + 64]``.

    Plain: ASCII, no ``<``, and no whitespace byte (tab, newline, vertical tab, form feed,
    carriage return, space) right after another (or, for the first byte, after ``last``
    = 0x20). On plain bytes the normalized text is one byte for one: A-Z lower-cased,
    whitespace made a space. All 64 mapped bytes are stored, only the prefix counts.
    Written as LLVM operations on a 64 x 8-bit vector, which LLVM lowers to the
    machine's registers.
    """
    if not (isinstance(data, types.Array) and data.layout == "C" and data.dtype == types.uint8
            and isinstance(out, types.Array) and out.layout == "C"
            and out.dtype == types.uint8 and isinstance(last, types.Integer)):
        return None

    def codegen(context, builder, signature, args):
        b = builder
        i8, i64 = ir.IntType(8), ir.IntType(64)

        def splat(value):
            return ir.Constant(_V8, [ir.Constant(i8, value)] * _WIDE)

        source = context.make_array(signature.args[0])(context, b, args[0])
        target = context.make_array(signature.args[2])(context, b, args[2])
        x = b.load(b.bitcast(b.gep(source.data, [args[1]]), _V8.as_pointer()), align=1)
        high = b.icmp_signed("<", x, splat(0))
        tag = b.icmp_unsigned("==", x, splat(0x3C))
        # whitespace: 0x20, or 0x09-0x0D (x - 9 < 5 unsigned)
        space = b.or_(b.icmp_unsigned("==", x, splat(0x20)),
                      b.icmp_unsigned("<", b.sub(x, splat(9)), splat(5)))
        upper = b.icmp_unsigned("<", b.sub(x, splat(0x41)), splat(26))
        mapped = b.select(space, splat(0x20), b.select(upper, b.or_(x, splat(0x20)), x))
        # the byte before each: ``last`` for the first, then the vector shifted by one
        previous = args[4] if args[4].type == i8 else b.trunc(args[4], i8)
        before = b.insert_element(ir.Constant(_V8, ir.Undefined), previous,
                                  ir.Constant(ir.IntType(32), 0))
        before = b.shuffle_vector(before, mapped,
                                  ir.Constant(ir.VectorType(ir.IntType(32), _WIDE),
                                              [0] + list(range(_WIDE, 2 * _WIDE - 1))))
        twice = b.and_(space, b.icmp_unsigned("==", before, splat(0x20)))
        bad = b.or_(b.or_(high, tag), twice)
        bits = b.bitcast(bad, i64)
        cttz = cgutils.get_or_insert_function(
            b.module, ir.FunctionType(i64, [i64, ir.IntType(1)]), "llvm.cttz.i64")
        count = b.call(cttz, [bits, ir.Constant(ir.IntType(1), 0)])  # 64 when all are plain
        b.store(mapped, b.bitcast(b.gep(target.data, [args[3]]), _V8.as_pointer()), align=1)
        return count

    return types.int64(data, i, out, o, last), codegen


@intrinsic
def _first_byte(typingctx, data, i, byte):  # pragma: no cover - compiled
    """Where the first byte equal to ``byte`` is among the 64 at ``data[i]`` (0-63; 64:
    none). Needs ``data[i:i + 64]``; one 64 x 8-bit vector compare."""
    if not (isinstance(data, types.Array) and data.layout == "C" and data.dtype == types.uint8
            and isinstance(byte, types.Integer)):
        return None

    def codegen(context, builder, signature, args):
        b = builder
        i8, i64 = ir.IntType(8), ir.IntType(64)
        source = context.make_array(signature.args[0])(context, b, args[0])
        x = b.load(b.bitcast(b.gep(source.data, [args[1]]), _V8.as_pointer()), align=1)
        value = args[2] if args[2].type == i8 else b.trunc(args[2], i8)
        lane = b.insert_element(ir.Constant(_V8, ir.Undefined), value, ir.Constant(ir.IntType(32), 0))
        splat = b.shuffle_vector(lane, ir.Constant(_V8, ir.Undefined),
                                 ir.Constant(ir.VectorType(ir.IntType(32), _WIDE), [0] * _WIDE))
        bits = b.bitcast(b.icmp_unsigned("==", x, splat), i64)
        cttz = cgutils.get_or_insert_function(
            b.module, ir.FunctionType(i64, [i64, ir.IntType(1)]), "llvm.cttz.i64")
        return b.call(cttz, [bits, ir.Constant(ir.IntType(1), 0)])

    return types.int64(data, i, byte), codegen


@njit(cache=True, nogil=True, inline="always")
def _skip_to(data, n, i, byte):  # pragma: no cover - compiled
    """The first index from ``i`` whose byte is ``byte``, 64 bytes a step; once fewer than
    64 bytes are left, the index where the search stopped (the caller's byte loop goes on
    from there)."""
    while i + _WIDE <= n:
        k = _first_byte(data, i, byte)
        i += k
        if k < _WIDE:
            break
    return i


@njit(cache=True, nogil=True)
def normalize_into(data, ascii_map, table, out):  # pragma: no cover - compiled
    """Write the ditto/2 normalized UTF-8 text of ``data`` to ``out[1:end]``.

    Returns ``(end, ascii)``: ``ascii`` is True when the text is all ASCII. ``ascii_map``
    (uint8[128]) maps A-Z to a-z and ASCII whitespace to 0x20; ``table`` (uint32) maps
    code points below its length (lowercase; whitespace to 0x20), others map to
    themselves. ``out`` must hold ``3 * len(data) + 2`` bytes (one U+FFFD per byte).
    A space is written only after a non-space (``out[0]`` is a space sentinel), so
    runs collapse and none leads; a trailing one is cut before returning.
    """
    n = data.size
    out[0] = 0x20
    o = 1
    last = np.uint8(0x20)  # the byte at out[o - 1]
    depth = 0
    high = np.uint8(0)  # 0x80 once a non-ASCII code point is written
    i = 0
    limit = table.size
    # Plain text goes eight bytes at a time, up to the first byte that is not plain; from
    # there ``skip`` bytes go one by one: one after a chunk that began plain, twice as
    # many after each chunk that fails at once, up to 64 (text in other scripts rarely
    # has a plain byte).
    skip = 8
    while i < n:
        if depth == 0:
            first = i
            while i + _WIDE <= n:  # 64 bytes a step while they are plain
                k = _plain_wide(data, i, out, o, last)
                if k == 0:
                    break
                o += k
                i += k
                last = out[o - 1]
                if k < _WIDE:
                    break
            while i + 8 <= n:
                y, plain = _plain_chunk(data, i, last)
                if not plain:
                    break
                dst = out[o : o + 8]
                for k in range(8):
                    dst[k] = np.uint8((y >> np.uint64(8 * k)) & _M8)
                o += 8
                i += 8
                last = np.uint8(y >> _S56)
            if i + 8 <= n:  # a chunk that is not all plain: its plain bytes before the first other
                y, k = _plain_prefix(data, i, last)
                if k:
                    dst = out[o : o + 8]
                    for j in range(8):
                        dst[j] = np.uint8((y >> np.uint64(8 * j)) & _M8)
                    o += k
                    i += k
                    last = np.uint8((y >> np.uint64(8 * k - 8)) & _M8)
            skip = min(2 * skip, 64) if i == first else 1
        stop = min(n, i + (skip if depth == 0 else 64))  # a tag: up to its end, 64 at a time
        # The indices below are cast to unsigned (they never are negative): numba then
        # adds no wrap-around of negative indices to each access.
        while i < stop:
            b = data[np.uintp(i)]
            if b == 0x3C and i + 1 < n:  # '<' opens a tag before a letter or / ! ?
                nb = data[np.uintp(i + 1)]
                if (0x61 <= (nb | 0x20) <= 0x7A) or nb == 0x2F or nb == 0x21 or nb == 0x3F:
                    depth += 1
                    i += 1
                    continue
            if depth > 0:
                if b == 0x3E:
                    depth -= 1
                    out[np.uintp(o)] = 0x20
                    o += last != 0x20
                    last = np.uint8(0x20)
                    if depth == 0:  # back to eight bytes at a time
                        stop = i + 1
                i += 1
                continue
            if b < 0x80:  # branch-free collapse: a space advances only after a non-space
                c = ascii_map[b]
                out[np.uintp(o)] = c
                o += (c != 0x20) | (last != 0x20)
                last = c
                i += 1
                continue
            # Fast paths: a valid 2- or 3-byte sequence whose mapping has the same length.
            if 0xC2 <= b <= 0xDF:
                if i + 1 < n:
                    b1 = data[np.uintp(i + 1)]
                    if (b1 & 0xC0) == 0x80:
                        m = table[(np.intp(b & 0x1F) << 6) | (b1 & 0x3F)]
                        if 0x80 <= m < 0x800:
                            out[np.uintp(o)] = 0xC0 | (m >> 6)
                            out[np.uintp(o + 1)] = 0x80 | (m & 0x3F)
                            o += 2
                            last = np.uint8(0x80)
                            high = np.uint8(0x80)
                            i += 2
                            continue
            elif 0xE1 <= b <= 0xEF and b != 0xED and i + 2 < n:
                b1 = data[np.uintp(i + 1)]
                b2 = data[np.uintp(i + 2)]
                if (b1 & 0xC0) == 0x80 and (b2 & 0xC0) == 0x80:
                    cp = (np.intp(b & 0x0F) << 12) | (np.intp(b1 & 0x3F) << 6) | (b2 & 0x3F)
                    m = table[cp] if cp < limit else np.uint32(cp)
                    if 0x800 <= m < 0x10000:
                        out[np.uintp(o)] = 0xE0 | (m >> 12)
                        out[np.uintp(o + 1)] = 0x80 | ((m >> 6) & 0x3F)
                        out[np.uintp(o + 2)] = 0x80 | (m & 0x3F)
                        o += 3
                        last = np.uint8(0x80)
                        high = np.uint8(0x80)
                        i += 3
                        continue
            # Go's decoding: a valid shortest-form sequence, else one U+FFFD for this byte
            cp = 0xFFFD
            size = 1
            if 0xC2 <= b <= 0xDF:
                if i + 1 < n and (data[np.uintp(i + 1)] & 0xC0) == 0x80:
                    cp = (np.int64(b & 0x1F) << 6) | (data[np.uintp(i + 1)] & 0x3F)
                    size = 2
            elif 0xE0 <= b <= 0xEF:
                if i + 2 < n:
                    b1 = data[np.uintp(i + 1)]
                    b2 = data[np.uintp(i + 2)]
                    lo = 0xA0 if b == 0xE0 else 0x80
                    hi = 0x9F if b == 0xED else 0xBF
                    if lo <= b1 <= hi and (b2 & 0xC0) == 0x80:
                        cp = (np.int64(b & 0x0F) << 12) | (np.int64(b1 & 0x3F) << 6) | (b2 & 0x3F)
                        size = 3
            elif 0xF0 <= b <= 0xF4 and i + 3 < n:
                b1 = data[np.uintp(i + 1)]
                b2 = data[np.uintp(i + 2)]
                b3 = data[np.uintp(i + 3)]
                lo = 0x90 if b == 0xF0 else 0x80
                hi = 0x8F if b == 0xF4 else 0xBF
                if lo <= b1 <= hi and (b2 & 0xC0) == 0x80 and (b3 & 0xC0) == 0x80:
                    cp = (
                        (np.int64(b & 0x07) << 18)
                        | (np.int64(b1 & 0x3F) << 12)
                        | (np.int64(b2 & 0x3F) << 6)
                        | (b3 & 0x3F)
                    )
                    size = 4
            i += size
            mapped = np.int64(table[cp]) if cp < limit else np.int64(cp)
            if mapped == 0x20:
                out[np.uintp(o)] = 0x20
                o += last != 0x20
                last = np.uint8(0x20)
                continue
            o = _put(out, o, mapped)
            last = out[np.uintp(o - 1)]
            if mapped >= 0x80:
                high = np.uint8(0x80)
    if last == 0x20 and o > 1:
        o -= 1
    return o, high == 0


@njit(cache=True, nogil=True, inline="always")
def _utf8_size(lead):  # pragma: no cover - compiled
    """Length of the valid UTF-8 sequence starting with byte ``lead``."""
    if lead < 0x80:
        return 1
    if lead < 0xE0:
        return 2
    return 3 if lead < 0xF0 else 4


@njit(cache=True, nogil=True, inline="always")
def _ascii_run_end(text, p, n):  # pragma: no cover - compiled
    """The first index ``q >= p`` of ``text`` (size ``n``) with a byte >= 0x80, or ``n``;
    eight bytes at a time."""
    q = p
    while q + _U8 <= n:
        x = np.uint64(text[q])
        for k in range(1, 8):
            x |= np.uint64(text[q + np.uint64(k)]) << np.uint64(8 * k)
        high = x & _HIGH
        if high:
            return q + (trailing_zeros(high) >> _U3)
        q += _U8
    while q < n and text[q] < 0x80:
        q += _U1
    return q


@njit(cache=True, nogil=True)
def _code_point_windows4(text, spread, pairs, planes, totals, block):  # pragma: no cover - compiled
    """Vote every window of four code points of the valid UTF-8 ``text`` (FNV-1a 64 of its
    bytes); returns how many there were. ``block`` is work space, empty on return.

    One running FNV state per open window, in registers: each code point goes into all
    four at once (one branch on its length per code point, not per window); the window
    opened at a code point of two or more bytes starts from the two-byte table. A run of
    four or more ASCII bytes goes at once: the three open windows take its first bytes,
    the windows inside it are hashed as in ASCII text (two-byte table, two steps), and
    the last three bytes open the next windows. Indices are unsigned, so numba adds no
    wrap-around of negative indices to each access.
    """
    n = np.uint64(text.size)
    windows = 0
    filled = _ZERO
    w0 = w1 = w2 = w3 = _OFFSET  # w0 is the oldest open window; w3 the one opening here
    seen = 0
    p = _ZERO
    while p < n:
        b0 = text[p]
        if b0 < 0x80 and seen >= 3 and p + _U4 <= n and text[p + _U1] < 0x80:
            q = _ascii_run_end(text, p, n)
            if q - p >= _U4:
                b1 = text[p + _U1]
                b2 = text[p + _U2]
                if filled > _UBLOCK - _U4:  # room for these three and the next window
                    _vote_block(block, np.int64(filled), spread, planes, totals)
                    windows += np.int64(filled)
                    filled = _ZERO
                block[filled] = (w0 ^ b0) * _PRIME
                block[filled + _U1] = (((w1 ^ b0) * _PRIME) ^ b1) * _PRIME
                block[filled + _U2] = (((((w2 ^ b0) * _PRIME) ^ b1) * _PRIME) ^ b2) * _PRIME
                filled += _U3
                run = text[p:q]  # indexed from 0
                inside = q - p - _U3  # windows wholly inside the run
                j = _ZERO
                while j < inside:
                    count = min(inside - j, _UBLOCK - filled)
                    part = run[j : j + count + _U3]
                    dst = block[filled : filled + count]
                    for k in range(count):
                        h = pairs[(np.intp(part[k]) << 8) | part[k + 1]]
                        h = (h ^ part[k + 2]) * _PRIME
                        dst[k] = (h ^ part[k + 3]) * _PRIME
                    filled += count
                    j += count
                    if filled == _UBLOCK:
                        _vote_block(block, np.int64(_BLOCK), spread, planes, totals)
                        windows += _BLOCK
                        filled = _ZERO
                c1 = text[q - _U3]
                c2 = text[q - _U2]
                c3 = text[q - _U1]
                w0 = (pairs[(np.uint64(c1) << _U8) | c2] ^ c3) * _PRIME
                w1 = pairs[(np.uint64(c2) << _U8) | c3]
                w2 = (_OFFSET ^ c3) * _PRIME
                seen += np.int64(q - p)
                p = q
                continue
        if b0 < 0x80:
            w0 = (w0 ^ b0) * _PRIME
            w1 = (w1 ^ b0) * _PRIME
            w2 = (w2 ^ b0) * _PRIME
            w3 = (w3 ^ b0) * _PRIME
            p += _U1
        else:
            b1 = text[p + _U1]
            w0 = (((w0 ^ b0) * _PRIME) ^ b1) * _PRIME
            w1 = (((w1 ^ b0) * _PRIME) ^ b1) * _PRIME
            w2 = (((w2 ^ b0) * _PRIME) ^ b1) * _PRIME
            w3 = pairs[(np.uint64(b0) << _U8) | b1]
            if b0 < 0xE0:
                p += _U2
            else:
                stop = p + (_U3 if b0 < 0xF0 else _U4)
                p += _U2
                while True:  # one more byte (three-byte code points: once), or two
                    c = text[p]
                    w0 = (w0 ^ c) * _PRIME
                    w1 = (w1 ^ c) * _PRIME
                    w2 = (w2 ^ c) * _PRIME
                    w3 = (w3 ^ c) * _PRIME
                    p += _U1
                    if p == stop:
                        break
        seen += 1
        if seen >= 4:
            block[filled] = w0
            filled += _U1
            if filled == _UBLOCK:
                _vote_block(block, np.int64(_BLOCK), spread, planes, totals)
                windows += _BLOCK
                filled = _ZERO
        w0, w1, w2, w3 = w1, w2, w3, _OFFSET
    if filled:
        _vote_block(block, np.int64(filled), spread, planes, totals)
        windows += np.int64(filled)
    return windows


@njit(cache=True, nogil=True, inline="always")
def _majority(totals, planes, need):  # pragma: no cover - compiled
    """The fingerprint whose bit i is 1 iff twice the count of bit i is at least ``need``:
    the counts are ``totals`` plus the four bit-sliced digits left in ``planes``."""
    fp = np.uint64(0)
    one = np.uint64(1)
    for bit in range(64):
        shift = np.uint64(bit)
        count = totals[bit]
        count += np.int64((planes[0] >> shift) & one)
        count += 2 * np.int64((planes[1] >> shift) & one)
        count += 4 * np.int64((planes[2] >> shift) & one)
        count += 8 * np.int64((planes[3] >> shift) & one)
        if 2 * count >= need:
            fp |= one << shift
    return fp


@njit(cache=True, nogil=True)
def vote_into(buf, start, end, ascii, char_n, word_n, spread, pairs, totals, planes, block,
              states):  # pragma: no cover - compiled
    """Fingerprint (uint64) of the normalized text ``buf[start:end]``: Charikar's sum over
    every char_n-code-point window and every word_n-word window, FNV-1a 64 each; the
    hash of the whole text when there is no window at all. ``ascii``: no byte >= 0x80.

    Allocates nothing: ``totals`` (int64[64]), ``planes`` (uint64[4]), ``block``
    (uint64[3840]) and ``states`` (uint64[char_n]) are work space, overwritten.
    """
    for k in range(64):
        totals[k] = 0
    for k in range(4):
        planes[k] = 0
    filled = 0
    windows = 0
    length = end - start
    if char_n > 0 and length >= char_n:
        if ascii and char_n == 4:
            # A block of windows at a time over a slice, indexed from 0: the indices are then
            # known to be non-negative, and numba's wrap-around of negative indices (a
            # compare and a select per access) goes: about twice as fast.
            text = buf[start:end]
            total = length - 3
            done = 0
            while done < total:
                count = min(total - done, _BLOCK)
                part = text[done : done + count + 3]
                for j in range(count):
                    h = pairs[(np.intp(part[j]) << 8) | part[j + 1]]
                    h = (h ^ part[j + 2]) * _PRIME
                    block[j] = (h ^ part[j + 3]) * _PRIME
                _vote_block(block, count, spread, planes, totals)
                windows += count
                done += count
        elif ascii:
            for s in range(start, end - char_n + 1):
                h = _OFFSET
                for k in range(s, s + char_n):
                    h = (h ^ buf[k]) * _PRIME
                block[filled] = h
                filled += 1
                if filled == _BLOCK:
                    _vote_block(block, filled, spread, planes, totals)
                    windows += filled
                    filled = 0
        else:
            # One running FNV state per open window: each code point goes into all of
            # them at once (one branch on its length per code point, not per window).
            if char_n == 4:  # the default
                windows += _code_point_windows4(buf[start:end], spread, pairs, planes, totals,
                                                block)
            else:
                slot = 0  # the state of the window starting at the current code point
                seen = 0
                p = start
                while p < end:
                    states[slot] = _OFFSET
                    stop = p + _utf8_size(buf[p])
                    for k in range(p, stop):
                        c = buf[k]
                        for t in range(char_n):
                            states[t] = (states[t] ^ c) * _PRIME
                    p = stop
                    seen += 1
                    slot += 1
                    if slot == char_n:
                        slot = 0
                    if seen >= char_n:  # the window that started char_n - 1 code points ago
                        block[filled] = states[slot]
                        filled += 1
                        if filled == _BLOCK:
                            _vote_block(block, filled, spread, planes, totals)
                            windows += filled
                            filled = 0
    if word_n > 0:
        spaces = 0
        for k in range(start, end):
            spaces += buf[k] == 0x20
        words = spaces + 1  # strings.Split: k separators give k + 1 fields
        if words >= word_n:
            # The window of words first .. first + word_n - 1 is buf[s:e]: s starts its
            # first word, e is the space (or the end) after its last; both only move on.
            s = start
            e = start
            for w in range(word_n):
                if w:
                    e += 1
                while e < end and buf[e] != 0x20:
                    e += 1
            for first in range(words - word_n + 1):
                if first:
                    while buf[s] != 0x20:
                        s += 1
                    s += 1
                    e += 1
                    while e < end and buf[e] != 0x20:
                        e += 1
                k = s
                h = _OFFSET
                if e - k >= 2:
                    h = pairs[(np.intp(buf[k]) << 8) | buf[k + 1]]
                    k += 2
                while k < e:
                    h = (h ^ buf[k]) * _PRIME
                    k += 1
                block[filled] = h
                filled += 1
                if filled == _BLOCK:
                    _vote_block(block, filled, spread, planes, totals)
                    windows += filled
                    filled = 0
    if filled:
        _vote_block(block, filled, spread, planes, totals)
        windows += filled
    if windows == 0:
        h = _OFFSET
        for k in range(start, end):
            h = (h ^ buf[k]) * _PRIME
        return h
    return _majority(totals, planes, windows + 1)


@njit(cache=True, nogil=True)
def vote(buf, start, end, ascii, char_n, word_n, spread, pairs):  # pragma: no cover - compiled
    """``vote_into`` with its own work space."""
    return vote_into(buf, start, end, ascii, char_n, word_n, spread, pairs,
                     np.empty(64, dtype=np.int64), np.empty(4, dtype=np.uint64),
                     np.empty(_BLOCK, dtype=np.uint64), np.empty(max(char_n, 1), dtype=np.uint64))


@njit(cache=True, nogil=True)
def spans_into(data, offsets, sizes, char_n, word_n, ascii_map, table, spread, pairs,
               out, work, totals, planes, block, states):  # pragma: no cover - compiled
    """Write the fingerprint of ``data[offsets[i] : offsets[i] + sizes[i]]`` to ``out[i]``
    for each span; allocates nothing (``work`` holds ``3 * max(sizes) + 2`` bytes, the
    others as for ``vote_into``)."""
    for i in range(offsets.size):
        part = data[offsets[i] : offsets[i] + sizes[i]]
        end, ascii = normalize_into(part, ascii_map, table, work)
        out[i] = vote_into(work, 1, end, ascii, char_n, word_n, spread, pairs,
                           totals, planes, block, states)


_NEWLINES = np.uint64(0x0A0A0A0A0A0A0A0A)


@njit(cache=True, nogil=True, inline="always")
def _postmark_at(data, q):  # pragma: no cover - compiled
    """Whether ``data[q:]`` starts with ``From `` (an mbox postmark when a line starts there)."""
    return (q + 5 <= data.size and data[q] == 0x46 and data[q + 1] == 0x72
            and data[q + 2] == 0x6F and data[q + 3] == 0x6D and data[q + 4] == 0x20)


@njit(cache=True, nogil=True)
def next_postmark(data, pos, hi):  # pragma: no cover - compiled
    """The first line start ``q`` in ``[pos, hi)`` where a postmark line begins (``From ``
    at the start of the buffer or after a newline), or ``hi`` when there is none.

    Newlines are looked for eight bytes at a time: a word with no 0x0A byte is skipped,
    and in one with some, the first is found at once (the lowest zero byte of the word
    xor newlines is exact; only bytes above it can be false).
    """
    if pos == 0 and hi > 0 and _postmark_at(data, 0):
        return 0
    j = max(pos, 1) - 1  # a newline at j starts a line at j + 1 >= pos
    end = hi - 1  # ... and that line must start before hi
    while j + 8 <= end:
        x = np.uint64(data[j])
        for k in range(1, 8):
            x |= np.uint64(data[j + k]) << np.uint64(8 * k)
        y = x ^ _NEWLINES
        found = (y - _ONES) & ~y & _HIGH
        if found == 0:
            j += 8
            continue
        j += np.intp(trailing_zeros(found) >> np.uint64(3))  # the first newline's byte
        if _postmark_at(data, j + 1):
            return j + 1
        j += 1
    while j < end:
        if data[j] == 0x0A and _postmark_at(data, j + 1):
            return j + 1
        j += 1
    return hi


@njit(cache=True, nogil=True)
def mbox_split_into(data, pos, hi, offsets, sizes, state):  # pragma: no cover - compiled
    """The messages of the mbox buffer ``data`` whose postmark lines start in ``[pos, hi)``
    (``hi``: the buffer's end, or a postmark's line start), as ``split_mbox`` gives them:
    each message is the bytes after its postmark line up to the next postmark (or ``hi``),
    less the blank line that ends it (``\\n`` or ``\\r\\n``).

    Writes at most ``offsets.size`` (offset, size) pairs to ``offsets`` and ``sizes`` and
    returns how many; ``state[0]`` is then the line start of the first postmark not
    written (``hi`` when none is left): the next call starts there.
    """
    cap = offsets.size
    count = 0
    q = next_postmark(data, pos, hi)
    while q < hi and count < cap:
        nxt = next_postmark(data, q + 1, hi)
        body = q
        while body < nxt and data[body] != 0x0A:
            body += 1
        if body < nxt:  # past the newline (none before nxt: the buffer ends first)
            body += 1
        end = nxt
        size = end - body
        if (size >= 4 and data[end - 4] == 0x0D and data[end - 3] == 0x0A and data[end - 2] == 0x0D
                and data[end - 1] == 0x0A) or (size == 2 and data[body] == 0x0D and data[body + 1] == 0x0A):
            end -= 2
        elif (size >= 2 and data[end - 2] == 0x0A and data[end - 1] == 0x0A) or (
                size == 1 and data[body] == 0x0A):
            end -= 1
        offsets[count] = body
        sizes[count] = end - body
        count += 1
        q = nxt
    state[0] = q
    return count


@njit(cache=True, nogil=True)
def _fingerprint(data, char_n, word_n, ascii_map, table, spread, pairs):  # pragma: no cover
    out = np.empty(3 * data.size + 2, dtype=np.uint8)
    end, ascii = normalize_into(data, ascii_map, table, out)
    return vote(out, 1, end, ascii, char_n, word_n, spread, pairs)


@njit(cache=True, nogil=True)
def _fingerprint_spans(data, offsets, sizes, char_n, word_n, ascii_map, table, spread, pairs):  # pragma: no cover
    out = np.empty(offsets.size, dtype=np.uint64)
    for i in range(offsets.size):
        part = data[offsets[i] : offsets[i] + sizes[i]]
        out[i] = _fingerprint(part, char_n, word_n, ascii_map, table, spread, pairs)
    return out


@njit(cache=True, nogil=True)
def _normalize(data, ascii_map, table):  # pragma: no cover - compiled
    out = np.empty(3 * data.size + 2, dtype=np.uint8)
    end, _ascii = normalize_into(data, ascii_map, table, out)
    return out[1:end].copy()


_ASCII_MAP, _TABLE, _SPREAD, _PAIRS = ASCII_MAP, TABLE, SPREAD, PAIRS


def fingerprint(data: bytes, char_n: int, word_n: int) -> int:
    """The ditto/2 fingerprint of a document's raw bytes (any bytes-like object)."""
    return int(_fingerprint(np.frombuffer(data, dtype=np.uint8), char_n, word_n,
                            _ASCII_MAP, _TABLE, _SPREAD, _PAIRS))


def fingerprint_spans(
    data: bytes, spans: list[tuple[int, int]], char_n: int, word_n: int, threads: int = 1
) -> list[int]:
    """Fingerprints of ``data[offset : offset + size]`` for each (offset, size) span.

    One compiled call per group of spans; with ``threads`` > 1 the spans are cut into
    that many groups of about equal bytes, fingerprinted in parallel threads (the
    kernel releases the GIL).
    """
    if not spans:
        return []
    buf = np.frombuffer(data, dtype=np.uint8)
    table = np.array(spans, dtype=np.int64).reshape(-1, 2)
    offsets, sizes = table[:, 0].copy(), table[:, 1].copy()

    def run(lo: int, hi: int) -> np.ndarray:
        return _fingerprint_spans(buf, offsets[lo:hi], sizes[lo:hi], char_n, word_n,
                                  _ASCII_MAP, _TABLE, _SPREAD, _PAIRS)

    threads = max(1, min(threads, len(spans)))
    if threads == 1:
        return run(0, len(spans)).tolist()
    ends = np.cumsum(sizes)
    cuts = [0, *np.searchsorted(ends, ends[-1] * np.arange(1, threads) / threads).tolist(),
            len(spans)]
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(max_workers=threads) as pool:
        parts = list(pool.map(run, cuts[:-1], cuts[1:]))
    return np.concatenate(parts).tolist()


def mbox_parts(data: bytes, char_n: int, word_n: int, threads: int = 1) -> MboxParts:
    """The messages of the mbox ``data`` (as ``split_mbox`` finds them) and their
    fingerprints, in up to ``threads`` threads (see ``_mbox_parts``)."""

    def run(buf: np.ndarray, offsets: np.ndarray, sizes: np.ndarray) -> np.ndarray:
        return _fingerprint_spans(buf, offsets, sizes, char_n, word_n,
                                  _ASCII_MAP, _TABLE, _SPREAD, _PAIRS)

    return drive_mbox(np.frombuffer(data, dtype=np.uint8), threads, mbox_split_into, run)


def normalize_utf8(data: bytes) -> bytes:
    """The ditto/2 normalized text of a document's raw bytes, as UTF-8."""
    return _normalize(np.frombuffer(data, dtype=np.uint8), _ASCII_MAP, _TABLE).tobytes()
