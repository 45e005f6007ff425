"""The compiled kernels' machine code, run without importing numba.

A process that has numba compiles each kernel's C entry points once into a relocatable
object (``_native_build``) and saves it in ``<cache folder>/native`` beside a record of
what it was built from: the kernel's source files, the numba and llvmlite versions, the
CPU's name and features, the platform, and the entry symbols. Later processes load that
object with ``llvmlite.binding`` alone (LLVM's MCJIT links it in memory; llvmlite ships
it in its wheels, so no compiler is needed) and call the entries through ``ctypes``:
about 0.05 s instead of the 0.5 s of importing numba and its runtime. On Linux x86-64,
once LLVM has linked an object for this host, a ``host`` record names that object by
what Linux says of the CPU (``/proc/cpuinfo``), and later processes link it with
``elf_link``, without importing llvmlite at all (a millisecond instead of about 50).

The entries allocate nothing (the caller passes every array, allocated with numpy) and
raise nothing. Before linking, every symbol the object needs from outside must be one of
the C library functions ``ALLOWED`` lists and must resolve in this process; otherwise,
or on any other surprise, ``load`` raises with the reason (``Missing`` when nothing is
saved for this machine), and the caller uses numba's own path.
"""

from __future__ import annotations

import contextlib
import ctypes
import functools
import hashlib
import json
import os
import platform
import re
import struct
import sys
import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from ditto_tui.core import elf_link

__all__ = ["ABI", "ALLOWED", "KINDS", "LINKED_BY", "Missing", "NativeDitto", "NativeHtml", "host_key",
           "key", "load", "save_built", "saved"]

#: Bump when the entries' arguments change.
ABI = 3
_HERE = Path(__file__).resolve().parent
_SOURCES = {"ditto": ("_ditto_kernel.py", "_native_build.py", "native.py"),
            "html": ("_html_kernel.py", "_ditto_kernel.py", "_native_build.py", "native.py")}
_NAME_SAFE = re.compile(r"[^A-Za-z0-9_.-]")
#: What an object may need from outside: C library functions LLVM emits for its intrinsics.
ALLOWED = frozenset({"memset", "memcpy", "memmove", "__bzero", "bzero", "__chkstk",
                     "__chkstk_darwin", "__stack_chk_fail", "__stack_chk_guard"})


@functools.cache
def _package_version(name: str) -> str:
    """The installed version of package ``name``, read from its files on ``sys.path``
    without importing it ('' when not found)."""
    for entry in sys.path:
        folder = Path(entry or ".") / name
        for candidate in ("_version.py", "__init__.py"):
            try:
                text = (folder / candidate).read_text(encoding="utf-8", errors="replace")
            except OSError:
                continue
            found = re.search(r"""["']?version["']?\s*[:=]\s*["']([0-9][^"']*)["']""", text)
            if found:
                return found.group(1)
    return ""


def _built_from(kind: str) -> dict[str, str]:
    """The parts of an object's key that do not ask LLVM (sources, versions, platform)."""
    digest = hashlib.sha256()
    for name in _SOURCES[kind]:
        digest.update((_HERE / name).read_bytes())
    return {
        "abi": str(ABI),
        "kind": kind,
        "source": digest.hexdigest(),
        "numba": _package_version("numba"),
        "llvmlite": _package_version("llvmlite"),
        "platform": f"{sys.platform} {platform.machine()}",
        "cpu_override": os.environ.get("NUMBA_CPU_NAME", "") + os.environ.get("NUMBA_CPU_FEATURES", ""),
    }


def key(kind: str) -> dict[str, str]:
    """What an object for ``kind`` must have been built from to run here."""
    import llvmlite
    import llvmlite.binding as llvm

    record = _built_from(kind)
    record.update(llvmlite=llvmlite.__version__, cpu=llvm.get_host_cpu_name(),
                  features=llvm.get_host_cpu_features().flatten())
    return record


_CPU_FIELDS = frozenset({"vendor_id", "cpu family", "model", "model name", "stepping", "flags"})


def _cpu_described() -> str | None:
    """A digest of what Linux says of this machine's first processor (vendor, family,
    model, stepping and flags), or None where there is no ``/proc/cpuinfo``."""
    try:
        with open("/proc/cpuinfo", "rb") as handle:
            text = handle.read(1 << 16).decode("utf-8", "replace")
    except OSError:
        return None
    fields = []
    for line in text.split("\n\n", 1)[0].splitlines():
        name, colon, value = line.partition(":")
        if colon and name.strip() in _CPU_FIELDS:
            fields.append(f"{name.strip()}:{value.strip()}")
    if not any(field.startswith("flags:") for field in fields):
        return None
    return hashlib.sha256("\n".join(sorted(fields)).encode()).hexdigest()


def host_key(kind: str) -> dict[str, str] | None:
    """What names ``kind``'s object for this host without asking LLVM: ``key``'s parts
    but the CPU, which is what Linux says of it; None where ``elf_link`` cannot link."""
    if not elf_link.supported_here():
        return None
    described = _cpu_described()
    if described is None:
        return None
    return {**_built_from(kind), "cpuinfo": described}


def _host_path(folder: str, kind: str, record: dict[str, str]) -> Path:
    tag = hashlib.sha256(json.dumps(record, sort_keys=True).encode()).hexdigest()[:20]
    return Path(folder) / "native" / _NAME_SAFE.sub("_", f"{kind}-host-{tag}.json")


def _paths(folder: str, kind: str, record: dict[str, str]) -> tuple[Path, Path]:
    tag = hashlib.sha256(json.dumps(record, sort_keys=True).encode()).hexdigest()[:20]
    base = Path(folder) / "native" / _NAME_SAFE.sub("_", f"{kind}-{tag}")
    return base.with_suffix(".o"), base.with_suffix(".json")


def _write(path: Path, data: bytes) -> None:
    import tempfile  # (only when something is saved: it costs a start-up a few ms)

    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=path.name, suffix=".tmp")
    try:
        with os.fdopen(handle, "wb") as out:
            out.write(data)
        os.replace(temporary, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise


def save_built(folder: str, kind: str) -> str | None:
    """Compile ``kind``'s entries with numba and save them for this machine; None when
    saved, else why not (that is saved too, so later processes do not try again)."""
    record = key(kind)
    obj_path, meta_path = _paths(folder, kind, record)
    meta: dict[str, Any] = {"key": record}
    try:
        from ditto_tui.core._native_build import build

        built = build(kind)
        if (built.cpu_name, built.cpu_features) != (record["cpu"], record["features"]):
            raise RuntimeError(f"numba compiles for CPU {built.cpu_name}, not this host's")
    except Exception as exc:  # noqa: BLE001 - any failure: numba's own path is used
        meta["failure"] = f"{type(exc).__name__}: {exc}"
    else:
        _write(obj_path, built.object_code)
        meta.update(entries=built.entries, symbols=list(built.symbols), triple=built.triple,
                    object_sha256=hashlib.sha256(built.object_code).hexdigest())
    _write(meta_path, json.dumps(meta, indent=1, sort_keys=True).encode())
    return meta.get("failure")


def saved(folder: str, kind: str) -> bool:
    """True when machine code (or the reason there is none) is saved for ``kind`` on this
    machine, from these sources. This host's record answers without importing llvmlite."""
    host = host_key(kind)
    if host is not None:
        with contextlib.suppress(OSError, ValueError, KeyError, TypeError):
            named = json.loads(_host_path(folder, kind, host).read_bytes())["meta"]
            if named and (Path(folder) / "native" / _NAME_SAFE.sub("_", str(named))).is_file():
                return True
    record = key(kind)
    _obj_path, meta_path = _paths(folder, kind, record)
    try:
        return json.loads(meta_path.read_bytes()).get("key") == record
    except (OSError, ValueError, AttributeError):
        return False


class Missing(Exception):
    """Nothing saved for this machine yet (build it)."""


def _elf_undefined(code: bytes) -> list[str] | None:
    """Names of the undefined symbols of a 64-bit little-endian ELF object (None: not one)."""
    if code[:4] != b"\x7fELF" or code[4] != 2 or code[5] != 1:
        return None
    shoff, = struct.unpack_from("<Q", code, 0x28)
    shentsize, shnum = struct.unpack_from("<HH", code, 0x3A)
    sections = [struct.unpack_from("<IIQQQQIIQQ", code, shoff + i * shentsize) for i in range(shnum)]
    names: list[str] = []
    for _name, kind, _flags, _addr, offset, size, link, _info, _align, entsize in sections:
        if kind != 2:  # SHT_SYMTAB
            continue
        strings = sections[link]
        str_off = strings[4]
        for at in range(offset + entsize, offset + size, entsize):  # entry 0 is null
            name_at, info, _other, shndx = struct.unpack_from("<IBBH", code, at)
            if shndx == 0 and name_at:  # SHN_UNDEF
                end = code.index(b"\0", str_off + name_at)
                names.append(code[str_off + name_at : end].decode())
    return names


def _process_symbol(name: str) -> int:
    """Address of a C function of this process (0: not found)."""
    libraries: list[Any] = []
    if os.name == "nt":
        libraries += [ctypes.pythonapi]
        with contextlib.suppress(OSError):
            libraries.append(ctypes.CDLL("ucrtbase"))
        with contextlib.suppress(OSError):
            libraries.append(ctypes.CDLL("msvcrt"))
    else:
        libraries.append(ctypes.CDLL(None))
    for library in libraries:
        with contextlib.suppress(AttributeError):
            return ctypes.cast(getattr(library, name), ctypes.c_void_p).value or 0
    return 0


_engines: list[Any] = []  # MCJIT engines stay alive as long as the process
#: kind -> what linked its object in this process: "elf_link" or "llvm"
LINKED_BY: dict[str, str] = {}


def _saved_object(obj_path: Path, meta: dict[str, Any]) -> bytes:
    if "failure" in meta:
        raise RuntimeError(f"not built: {meta['failure']}")
    code = obj_path.read_bytes()
    if hashlib.sha256(code).hexdigest() != meta["object_sha256"]:
        raise RuntimeError("the saved object is damaged")
    return code


def _load_by_host(folder: str, kind: str) -> dict[str, int] | None:
    """The entries of ``kind``'s object linked by ``elf_link``, found through this host's
    record; None when there is no such record or it does not fit."""
    record = host_key(kind)
    if record is None:
        return None
    try:
        host = json.loads(_host_path(folder, kind, record).read_bytes())
        meta_path = Path(folder) / "native" / _NAME_SAFE.sub("_", str(host["meta"]))
        meta = json.loads(meta_path.read_bytes())
        built, entries = meta["key"], meta["entries"]
    except (OSError, ValueError, KeyError, TypeError):
        return None
    same_build = all(built.get(name) == value for name, value in record.items() if name != "cpuinfo")
    if meta.get("symbols") or host.get("host") != record or not same_build:
        return None  # (an object that needs outside symbols goes through LLVM)
    code = _saved_object(meta_path.with_suffix(".o"), meta)
    try:
        linked = elf_link.link(code, entries.values())
    except elf_link.Unsupported:
        return None
    LINKED_BY[kind] = "elf_link"
    return {name: linked.functions[symbol] for name, symbol in entries.items()}


def _remember_host(folder: str, kind: str, meta_path: Path) -> None:
    """Record that ``meta_path`` names this host's object for ``kind``, so that later
    processes find it without asking LLVM."""
    record = host_key(kind)
    if record is None:
        return
    path = _host_path(folder, kind, record)
    entry = {"host": record, "meta": meta_path.name}
    try:
        if json.loads(path.read_bytes()) == entry:
            return
    except (OSError, ValueError):
        pass
    with contextlib.suppress(OSError):
        _write(path, json.dumps(entry, indent=1, sort_keys=True).encode())


def load(folder: str, kind: str, *, linker: str = "any") -> dict[str, int]:
    """Link the saved object of ``kind`` into this process; entry name -> address.

    ``linker="any"`` links with ``elf_link`` when this host's record names an object it
    can link, else with LLVM (and then writes that record); ``"llvm"``: with LLVM only.
    Raises ``Missing`` when nothing is saved for this machine and these sources, and
    ``RuntimeError`` (with the reason) when what is saved cannot be used.
    """
    if linker == "any":
        linked = _load_by_host(folder, kind)
        if linked is not None:
            return linked
    record = key(kind)
    obj_path, meta_path = _paths(folder, kind, record)
    try:
        meta = json.loads(meta_path.read_bytes())
    except FileNotFoundError:
        raise Missing(kind) from None
    if meta.get("key") != record:
        raise Missing(kind)
    code = _saved_object(obj_path, meta)
    needed = set(meta["symbols"])
    found = _elf_undefined(code)
    if found is not None:
        needed |= set(found)
    foreign = sorted(name for name in needed if name not in ALLOWED)
    if foreign:
        raise RuntimeError(f"the object needs {', '.join(foreign)}")
    import llvmlite.binding as llvm

    for name in sorted(needed):
        if not llvm.address_of_symbol(name):
            address = _process_symbol(name)
            if not address:
                raise RuntimeError(f"{name} is not in this process")
            llvm.add_symbol(name, address)
    llvm.initialize_native_target()
    llvm.initialize_native_asmprinter()
    machine = llvm.Target.from_triple(meta["triple"]).create_target_machine(
        cpu=record["cpu"], features=record["features"], codemodel="jitdefault")
    engine = llvm.create_mcjit_compiler(llvm.parse_assembly(""), machine)
    engine.add_object_file(llvm.ObjectFileRef.from_data(code))
    engine.finalize_object()
    addresses = {name: engine.get_function_address(symbol) for name, symbol in meta["entries"].items()}
    if not all(addresses.values()):
        raise RuntimeError("an entry point is missing from the object")
    _engines.append((engine, machine))
    LINKED_BY[kind] = "llvm"
    if linker == "any" and not needed:
        _remember_host(folder, kind, meta_path)
    return addresses


# -- ditto/2 ---------------------------------------------------------------------------

_P, _I = ctypes.c_void_p, ctypes.c_int64
_SPANS = ctypes.CFUNCTYPE(_I, _P, _I, _P, _P, _I, _I, _I, _P, _P, _I, _P, _P, _P, _P, _I,
                          _P, _P, _P, _P, _I)
_NORMALIZE = ctypes.CFUNCTYPE(_I, _P, _I, _P, _P, _I, _P, _I)
_MBOX = ctypes.CFUNCTYPE(_I, _P, _I, _I, _I, _P, _P, _I, _P)
_BLOCK = 3840


def _pointer(array: np.ndarray) -> int:
    return int(array.__array_interface__["data"][0])


#: A thread keeps the normalizer's buffer (three bytes per document byte) for the next
#: document when it is at most this large: a fresh one of several MB costs the page
#: faults of every page the normalized text touches (about 5-15 % of a large document).
_KEEP_BUFFER = 16 << 20
#: ... and html-distance's feature arrays when they are at most this large (``_HtmlWork``).
_KEEP_PAGE = 1 << 20


def _data_pointer(data: bytes) -> tuple[Any, np.ndarray | None]:
    """What to pass for ``data``'s bytes (``bytes`` as they are: ctypes passes their
    buffer; another bytes-like object through a numpy view, returned to keep alive)."""
    if type(data) is bytes:
        return data, None
    view = np.frombuffer(data, dtype=np.uint8)
    return _pointer(view), view


class _Work(threading.local):
    """Each thread's fixed work space for the vote (totals, planes, block, states), and
    for one document (span, result, normalizer's buffer) with their pointers: finding an
    array's address costs about 2 us, which on a small document is a tenth of the call."""

    def __init__(self) -> None:
        self.arrays = (np.empty(64, dtype=np.int64), np.empty(4, dtype=np.uint64),
                       np.empty(_BLOCK, dtype=np.uint64), np.empty(64, dtype=np.uint64))
        self.pointers = tuple(_pointer(a) for a in self.arrays)
        self.offsets, self.sizes = np.zeros(1, dtype=np.int64), np.zeros(1, dtype=np.int64)
        self.out = np.zeros(1, dtype=np.uint64)
        self.span = (_pointer(self.offsets), _pointer(self.sizes), 1)
        self.out_pointer = _pointer(self.out)
        self.buffer = np.empty(0, dtype=np.uint8)
        self.buffer_pointer = _pointer(self.buffer)

    def buffer_args(self, size: int) -> tuple[tuple[int, int], np.ndarray | None]:
        """(pointer, length) of a work buffer of at least ``size`` bytes, and the array
        made for it when it is not kept (keep that alive for the call)."""
        if size <= self.buffer.size:
            return (self.buffer_pointer, self.buffer.size), None
        array = np.empty(size, dtype=np.uint8)
        if size <= _KEEP_BUFFER:
            self.buffer, self.buffer_pointer = array, _pointer(array)
        return (_pointer(array), size), array

    def vote_args(self, windows: int) -> tuple[tuple[int, ...], np.ndarray | None]:
        """(totals, planes, block, states, states_len) pointers for windows of ``windows``
        items, and the larger states array made for them (keep it alive for the call)."""
        totals, planes, block, states = self.pointers
        if windows <= self.arrays[3].size:
            return (totals, planes, block, states, self.arrays[3].size), None
        extra = np.empty(windows, dtype=np.uint64)
        return (totals, planes, block, _pointer(extra), windows), extra


class NativeDitto:
    """The ditto/2 kernel's entries; the same functions as ``_ditto_kernel``'s."""

    kind = "native"

    def __init__(self, addresses: dict[str, int]) -> None:
        from ditto_tui.core._ditto_tables import ASCII_MAP, PAIRS, SPREAD, TABLE

        self._tables = (ASCII_MAP, TABLE, SPREAD, PAIRS)  # alive as long as the pointers
        self._table_args = (_pointer(ASCII_MAP), _pointer(TABLE), TABLE.size)
        self._vote_args = (_pointer(SPREAD), _pointer(PAIRS))
        self._spans: Callable[..., int] = _SPANS(addresses["spans"])
        self._normalize: Callable[..., int] = _NORMALIZE(addresses["normalize"])
        self._mbox: Callable[..., int] = _MBOX(addresses["mbox"])
        self._work = _Work()

    def _run(self, buf: np.ndarray, offsets: np.ndarray, sizes: np.ndarray, char_n: int,
             word_n: int) -> np.ndarray:
        count = offsets.size
        out = np.empty(count, dtype=np.uint64)
        if count == 0:
            return out
        if int(sizes.min()) < 0 or int(offsets.min()) < 0 or int((offsets + sizes).max()) > buf.size:
            raise ValueError("a span lies outside the data")
        work = np.empty(3 * int(sizes.max()) + 2, dtype=np.uint8)
        vote, _extra = self._work.vote_args(char_n)
        ascii_map, table, table_len = self._table_args
        spread, pairs = self._vote_args
        self._spans(_pointer(buf), buf.size, _pointer(offsets), _pointer(sizes), count, char_n,
                    word_n, ascii_map, table, table_len, spread, pairs, _pointer(out),
                    _pointer(work), work.size, *vote)
        return out

    def fingerprint(self, data: bytes, char_n: int, word_n: int) -> int:
        """The ditto/2 fingerprint of a document's raw bytes (any bytes-like object)."""
        pointer, _view = _data_pointer(data)
        size = len(_view) if _view is not None else len(data)
        work = self._work
        work.sizes[0] = size
        (buffer, buffer_len), _buffer = work.buffer_args(3 * size + 2)
        vote, _extra = work.vote_args(char_n)
        ascii_map, table, table_len = self._table_args
        spread, pairs = self._vote_args
        self._spans(pointer, size, *work.span, char_n, word_n, ascii_map, table, table_len,
                    spread, pairs, work.out_pointer, buffer, buffer_len, *vote)
        return int(work.out[0])

    def fingerprint_spans(self, data: bytes, spans: Sequence[tuple[int, int]], char_n: int,
                          word_n: int, threads: int = 1) -> list[int]:
        """Fingerprints of ``data[offset : offset + size]`` for each (offset, size) span;
        ``threads`` > 1 cuts the spans into that many groups of about equal bytes,
        fingerprinted in parallel threads (the entries run without the GIL)."""
        if not spans:
            return []
        buf = np.frombuffer(data, dtype=np.uint8)
        table = np.array(spans, dtype=np.int64).reshape(-1, 2)
        offsets, sizes = table[:, 0].copy(), table[:, 1].copy()
        threads = max(1, min(threads, len(spans)))
        if threads == 1:
            return self._run(buf, offsets, sizes, char_n, word_n).tolist()
        ends = np.cumsum(sizes)
        cuts = [0, *np.searchsorted(ends, ends[-1] * np.arange(1, threads) / threads).tolist(),
                len(spans)]
        from concurrent.futures import ThreadPoolExecutor

        def run(lo: int, hi: int) -> np.ndarray:
            return self._run(buf, offsets[lo:hi], sizes[lo:hi], char_n, word_n)

        with ThreadPoolExecutor(max_workers=threads) as pool:
            parts = list(pool.map(run, cuts[:-1], cuts[1:]))
        return np.concatenate(parts).tolist()

    def mbox_split_into(self, buf: np.ndarray, pos: int, hi: int, offsets: np.ndarray,
                        sizes: np.ndarray, state: np.ndarray) -> int:
        """``_ditto_kernel.mbox_split_into``: the messages of the mbox ``buf`` (uint8)
        whose postmarks start in ``[pos, hi)``, at most ``offsets.size`` of them."""
        if not (0 <= pos <= hi <= buf.size and sizes.size >= offsets.size and state.size >= 1
                and all(a.dtype == np.int64 and a.flags.c_contiguous for a in (offsets, sizes, state))
                and buf.dtype == np.uint8 and buf.flags.c_contiguous):
            raise ValueError("bad arguments for the mbox splitter")
        return self._mbox(_pointer(buf), buf.size, pos, hi, _pointer(offsets), _pointer(sizes),
                          offsets.size, _pointer(state))

    def mbox_parts(self, data: bytes, char_n: int, word_n: int, threads: int = 1) -> Any:
        """The messages of the mbox ``data`` (as ``split_mbox`` finds them) and their
        fingerprints (a ``MboxParts``), in up to ``threads`` threads."""
        from ditto_tui.core._mbox_parts import mbox_parts

        def run(buf: np.ndarray, offsets: np.ndarray, sizes: np.ndarray) -> np.ndarray:
            return self._run(buf, offsets, sizes, char_n, word_n)

        return mbox_parts(np.frombuffer(data, dtype=np.uint8), threads, self.mbox_split_into, run)

    def normalize_utf8(self, data: bytes) -> bytes:
        """The ditto/2 normalized text of a document's raw bytes, as UTF-8."""
        buf = np.frombuffer(data, dtype=np.uint8)
        out = np.empty(3 * buf.size + 2, dtype=np.uint8)
        ascii_map, table, table_len = self._table_args
        result = self._normalize(_pointer(buf), buf.size, ascii_map, table, table_len,
                                 _pointer(out), out.size)
        return out[1 : result >> 1].tobytes()


# -- html-distance -----------------------------------------------------------------------

_HTML_FINGERPRINT = ctypes.CFUNCTYPE(ctypes.c_uint64, _P, _I, _P)
_HTML_FEATURES = ctypes.CFUNCTYPE(_I, _P, _I, _I, _P, _I, _P, _I, _P, _I, _P, _I, _P, _I, _P,
                                  _I, _P, _P, _P, _P, _P, _P)
#: The html fingerprint entry's context block (int64): shingle, max_tokens, then (pointer,
#: size) of the atom slots, names and starts, the spread table, the attrs rows, the feature
#: bytes and starts, the totals, planes, block, (states, size), and the status it returns.
HTML_CONTEXT = 21
_C_SHINGLE, _C_TOKENS, _C_SCRATCH, _C_STATES, _C_STATUS = 0, 1, 9, 18, 20


class _HtmlWork(threading.local):
    """Each thread's context block for the html fingerprint entry, filled once: a call
    then passes three arguments (page, size, block) and converts no array."""

    def __init__(self, tables: tuple[int, ...], spread: int) -> None:
        self.vote = (np.empty(64, dtype=np.int64), np.empty(4, dtype=np.uint64),
                     np.empty(_BLOCK, dtype=np.uint64), np.empty(64, dtype=np.uint64))
        self.context = np.zeros(HTML_CONTEXT, dtype=np.int64)
        self.pointer = _pointer(self.context)
        c = self.context
        c[2:8] = tables
        c[8] = spread
        c[15:18] = [_pointer(a) for a in self.vote[:3]]
        self.shingle = self.tokens = -1  # what the block holds (-1: not filled yet)
        self.scratch: Any = None  # the kept feature arrays (``_Scratch``)
        self.room = -1  # the largest page they take whole
        self.states = self.vote[3]

    def use_scratch(self, scratch: Any) -> None:
        """Point the block at ``scratch``'s arrays (attrs, feature bytes and starts)."""
        attrs, feat, fstart = scratch.arrays
        self.context[_C_SCRATCH:_C_SCRATCH + 6] = (_pointer(attrs), attrs.shape[0],
                                                   _pointer(feat), feat.size, _pointer(fstart),
                                                   fstart.size)

    def use(self, shingle: int, max_tokens: int) -> None:
        """Hold ``shingle`` and ``max_tokens`` (and states room for the shingle)."""
        self.states = self.vote[3] if shingle <= self.vote[3].size else np.empty(shingle, np.uint64)
        c = self.context
        c[_C_SHINGLE], c[_C_TOKENS] = shingle, max_tokens
        c[_C_STATES], c[_C_STATES + 1] = _pointer(self.states), self.states.size
        self.shingle, self.tokens = shingle, max_tokens


class NativeHtml:
    """The html-distance kernel's entries; the same functions as ``_html_kernel``'s."""

    kind = "native"

    def __init__(self, addresses: dict[str, int]) -> None:
        from ditto_tui.core._html_tables import ATOM_FLAT, ATOM_STARTS, SLOTS_TABLE, SPREAD

        self._tables = (SLOTS_TABLE, ATOM_FLAT, ATOM_STARTS, SPREAD)
        self._atoms = (_pointer(SLOTS_TABLE), SLOTS_TABLE.size, _pointer(ATOM_FLAT),
                       ATOM_FLAT.size, _pointer(ATOM_STARTS), ATOM_STARTS.size)
        self._spread = _pointer(SPREAD)
        self._fingerprint: Callable[..., int] = _HTML_FINGERPRINT(addresses["fingerprint"])
        self._features: Callable[..., int] = _HTML_FEATURES(addresses["features"])
        self._html = _HtmlWork(self._atoms, self._spread)

    @staticmethod
    def _scratch_args(arrays: tuple[np.ndarray, np.ndarray, np.ndarray]) -> tuple[int, ...]:
        attrs, feat, fstart = arrays
        return (_pointer(attrs), attrs.shape[0], _pointer(feat), feat.size, _pointer(fstart),
                fstart.size)

    def fingerprint(self, data: bytes, shingle: int, max_tokens: int) -> int | None:
        """The html-distance fingerprint of a page, or None when the Python pipeline must
        do it."""
        work = self._html
        if (type(data) is bytes and shingle == work.shingle and max_tokens == work.tokens
                and (shingle == 3 or len(data) <= work.room)):  # the usual case
            fp: int = self._fingerprint(data, len(data), work.pointer)
            if fp or not work.context[_C_STATUS]:
                return fp
        return self._fingerprint_again(data, shingle, max_tokens)

    def _fingerprint_again(self, data: bytes, shingle: int, max_tokens: int) -> int | None:
        """``fingerprint`` when the block must change first, or the kernel asks for larger
        work arrays. With shingle 3 the kernel holds one feature at a time, so the kept
        arrays serve any page; other shingles hold the page's features (a page larger
        than ``_KEEP_PAGE`` gets arrays of its own for the call)."""
        from ditto_tui.core._html_tables import _Scratch

        work = self._html
        pointer, view = _data_pointer(data)
        size = len(view) if view is not None else len(data)
        if (shingle, max_tokens) != (work.shingle, work.tokens):
            work.use(shingle, max_tokens)
        kept = work.scratch if work.scratch is not None else _Scratch(4096)
        scratch = kept if shingle == 3 or kept.fits(size) else _Scratch(size)
        limit = 512 + _KEEP_PAGE
        try:
            while True:
                work.use_scratch(scratch)
                fp = self._fingerprint(pointer, size, work.pointer)
                status = int(work.context[_C_STATUS])
                if not scratch.grown(status):
                    return None if status else int(fp)
        finally:
            if scratch.arrays[1].size <= limit:
                kept = scratch
            elif kept is scratch:
                kept = _Scratch(4096)
            work.scratch, work.room = kept, kept.arrays[1].size - 512
            work.use_scratch(kept)

    def feature_list(self, data: bytes, max_tokens: int, attrs: int = 64,
                     room: int = 0) -> list[bytes] | None:
        """The page's features in order (for tests), or None when Python must do it."""
        from ditto_tui.core._html_tables import _Scratch

        buf = np.frombuffer(data, dtype=np.uint8)
        scratch = _Scratch(buf.size, attrs, room)
        result = np.zeros(1, dtype=np.int64)
        while True:
            totals, planes, block, states = (_pointer(a) for a in self._html.vote)
            status = self._features(_pointer(buf), buf.size, max_tokens, *self._atoms,
                                    *self._scratch_args(scratch.arrays), self._spread, totals,
                                    planes, block, states, _pointer(result))
            if not scratch.grown(status):
                break
        return None if status else scratch.features(int(result[0]))


#: kind -> the class that wraps its entry points.
KINDS: dict[str, Callable[[dict[str, int]], Any]] = {"ditto": NativeDitto, "html": NativeHtml}
