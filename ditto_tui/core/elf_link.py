"""Link a self-contained relocatable x86-64 ELF object into this process, without LLVM.

The compiled kernels are saved as relocatable objects (``native``). LLVM's MCJIT links
them through llvmlite, whose import and set-up cost a process about 50 ms: more than
the rest of loading. An object that needs nothing from outside (no undefined symbol)
needs little of a linker: lay its allocated sections out in fresh memory, point each
relocation at its symbol, and make the memory executable (and no longer writable).
:func:`link` does that for Linux on x86-64 and the relocation types LLVM emits there
(absolute and PC-relative, 32 and 64 bits); for anything else it raises
:class:`Unsupported`, and the caller links with LLVM as before.

Unwind tables (``.eh_frame``) are left out: the kernels raise nothing and are called
from C through ``ctypes``, so nothing unwinds through them.
"""

from __future__ import annotations

import ctypes
import mmap
import platform
import struct
import sys
from collections.abc import Iterable
from dataclasses import dataclass

__all__ = ["Linked", "Unsupported", "link", "supported_here"]

_SHF_WRITE, _SHF_ALLOC, _SHF_TLS = 0x1, 0x2, 0x400
_SHT_PROGBITS, _SHT_SYMTAB, _SHT_RELA, _SHT_NOBITS, _SHT_REL = 1, 2, 4, 8, 9
_SHT_X86_64_UNWIND = 0x70000001
_SHN_UNDEF, _SHN_ABS, _SHN_LORESERVE = 0, 0xFFF1, 0xFF00
_STT_FUNC = 2
_STB_GLOBAL = 1
_EM_X86_64 = 62
_ET_REL = 1
#: relocation type -> (width in bytes, PC-relative, signed)
_RELOCATIONS = {
    1: (8, False, False),  # R_X86_64_64: S + A
    2: (4, True, True),  # R_X86_64_PC32: S + A - P
    4: (4, True, True),  # R_X86_64_PLT32 (a local function: as PC32)
    10: (4, False, False),  # R_X86_64_32
    11: (4, False, True),  # R_X86_64_32S
    24: (8, True, True),  # R_X86_64_PC64
}

_FORMATS = {(8, False): "<Q", (8, True): "<q", (4, False): "<I", (4, True): "<i"}


class Unsupported(Exception):
    """The object (or this platform) needs a real linker."""


@dataclass(frozen=True)
class Linked:
    """An object linked in memory: its global functions' addresses. The memory stays
    mapped until the process ends (it must outlive every call)."""

    functions: dict[str, int]
    size: int


_mappings: list[mmap.mmap] = []  # what was linked (each also holds a reference of its own)


def supported_here() -> bool:
    """True on the platforms :func:`link` handles (Linux on x86-64)."""
    return sys.platform.startswith("linux") and platform.machine() in ("x86_64", "AMD64")


@dataclass(frozen=True)
class _Section:
    name: str
    kind: int
    flags: int
    offset: int
    size: int
    link: int
    info: int
    align: int
    entsize: int


def _sections(code: bytes) -> list[_Section]:
    if len(code) < 64 or code[:4] != b"\x7fELF" or code[4] != 2 or code[5] != 1:
        raise Unsupported("not a 64-bit little-endian ELF object")
    e_type, e_machine = struct.unpack_from("<HH", code, 0x10)
    if e_type != _ET_REL or e_machine != _EM_X86_64:
        raise Unsupported(f"not a relocatable x86-64 object (type {e_type}, machine {e_machine})")
    shoff, = struct.unpack_from("<Q", code, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", code, 0x3A)
    if shentsize != 64 or shnum == 0 or shoff + shnum * 64 > len(code) or shstrndx >= shnum:
        raise Unsupported("unexpected section table")
    raw = [struct.unpack_from("<IIQQQQIIQQ", code, shoff + i * 64) for i in range(shnum)]
    names_at = raw[shstrndx][4]
    sections = []
    for name_at, kind, flags, _addr, offset, size, link, info, align, entsize in raw:
        end = code.find(b"\0", names_at + name_at)
        name = code[names_at + name_at : end].decode("ascii", "replace") if end >= 0 else ""
        if kind != _SHT_NOBITS and offset + size > len(code):
            raise Unsupported(f"section {name} lies outside the object")
        sections.append(_Section(name, kind, flags, offset, size, link, info, max(align, 1), entsize))
    return sections


def _loaded(section: _Section) -> bool:
    return bool(section.flags & _SHF_ALLOC) and section.kind != _SHT_X86_64_UNWIND and (
        section.name != ".eh_frame")


def link(code: bytes, wanted: Iterable[str]) -> Linked:
    """Link the object ``code`` in fresh memory; the addresses of its global functions,
    of which ``wanted`` must all be present. Raises :class:`Unsupported` when the object
    or the platform needs more than this linker does."""
    if not supported_here():
        raise Unsupported("this linker runs on Linux x86-64 only")
    sections = _sections(code)
    # layout: each allocated section at its alignment, in one block of pages
    placed: dict[int, int] = {}
    size = 0
    for index, section in enumerate(sections):
        if not _loaded(section) or section.size == 0:
            continue
        if section.flags & (_SHF_WRITE | _SHF_TLS):
            raise Unsupported(f"section {section.name} is writable or thread-local")
        if section.kind not in (_SHT_PROGBITS, _SHT_NOBITS):
            raise Unsupported(f"section {section.name} has type {section.kind:#x}")
        if section.align > mmap.PAGESIZE:
            raise Unsupported(f"section {section.name} is aligned beyond a page")
        size = -(-size // section.align) * section.align
        placed[index] = size
        size += section.size
    if not placed:
        raise Unsupported("nothing to load")
    total = -(-size // mmap.PAGESIZE) * mmap.PAGESIZE
    image = bytearray(total)
    for index, at in placed.items():
        section = sections[index]
        if section.kind == _SHT_PROGBITS:
            image[at : at + section.size] = code[section.offset : section.offset + section.size]

    memory = mmap.mmap(-1, total, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS,
                       prot=mmap.PROT_READ | mmap.PROT_WRITE)
    base = ctypes.addressof(ctypes.c_char.from_buffer(memory))

    symtabs = [i for i, s in enumerate(sections) if s.kind == _SHT_SYMTAB]
    if len(symtabs) != 1:
        raise Unsupported("not one symbol table")
    symtab = sections[symtabs[0]]
    strings = sections[symtab.link]
    if symtab.entsize != 24:
        raise Unsupported("unexpected symbol size")

    def symbol_name(name_at: int) -> str:
        end = code.find(b"\0", strings.offset + name_at)
        return code[strings.offset + name_at : end].decode("ascii", "replace")

    symbols: list[tuple[str, int | None, int]] = []  # name, address (None: not here), info
    for at in range(symtab.offset, symtab.offset + symtab.size, 24):
        name_at, info, _other, shndx, value, _size = struct.unpack_from("<IBBHQQ", code, at)
        if shndx in placed:
            address: int | None = base + placed[shndx] + value
        elif shndx == _SHN_ABS:
            address = value
        else:  # undefined, common, or in a section left out
            address = None
        symbols.append((symbol_name(name_at) if name_at else "", address, info))

    for section in sections:
        if section.kind == _SHT_REL and section.info in placed:
            raise Unsupported("REL relocations")
        if section.kind != _SHT_RELA or section.info not in placed:
            continue
        if section.link != symtabs[0] or section.entsize != 24:
            raise Unsupported(f"unexpected relocation section {section.name}")
        target = sections[section.info]
        target_at = placed[section.info]
        for at in range(section.offset, section.offset + section.size, 24):
            offset, info, addend = struct.unpack_from("<QQq", code, at)
            kind, number = info & 0xFFFFFFFF, info >> 32
            if kind not in _RELOCATIONS:
                raise Unsupported(f"relocation type {kind}")
            if number >= len(symbols):
                raise Unsupported("relocation of an unknown symbol")
            name, address, _info = symbols[number]
            if address is None:
                raise Unsupported(f"the object needs {name or 'a symbol'} from outside")
            width, relative, signed = _RELOCATIONS[kind]
            if offset + width > target.size or target.kind == _SHT_NOBITS:
                raise Unsupported("relocation outside its section")
            value = address + addend - (base + target_at + offset if relative else 0)
            bits = 8 * width
            low, high = (-(1 << (bits - 1)), 1 << (bits - 1)) if signed else (0, 1 << bits)
            if not low <= value < high:
                raise Unsupported(f"relocation type {kind} out of range")
            struct.pack_into(_FORMATS[width, signed], image, target_at + offset, value)

    functions = {
        name: address
        for name, address, info in symbols
        if address is not None and name and info >> 4 == _STB_GLOBAL and info & 0xF == _STT_FUNC
    }
    missing = sorted(set(wanted) - functions.keys())
    if missing:
        raise Unsupported(f"no function {', '.join(missing)} in the object")
    memory[:] = bytes(image)
    libc = ctypes.CDLL(None, use_errno=True)
    libc.mprotect.argtypes = (ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int)
    if libc.mprotect(base, total, mmap.PROT_READ | mmap.PROT_EXEC) != 0:
        raise Unsupported(f"memory cannot be made executable (errno {ctypes.get_errno()})")
    # Never unmapped, not even as the interpreter ends: a thread may still be inside a
    # kernel (they run without the GIL) while modules are torn down.
    ctypes.pythonapi.Py_IncRef(ctypes.py_object(memory))
    _mappings.append(memory)
    return Linked(functions, total)
