"""elf_link: objects LLVM compiles, linked without LLVM, compute what LLVM's linking does."""

from __future__ import annotations

import ctypes
import struct

import pytest

from ditto_tui.core import elf_link

pytestmark = pytest.mark.skipif(not elf_link.supported_here(), reason="Linux x86-64 only")

#: A table in read-only data, a local function called by a global one, a loop.
_IR = """
@table = internal unnamed_addr constant [8 x i64] [i64 3, i64 1, i64 4, i64 1, i64 5, i64 9, i64 2, i64 6]

define internal i64 @weigh(i64 %x) noinline {
  %i = and i64 %x, 7
  %p = getelementptr [8 x i64], ptr @table, i64 0, i64 %i
  %v = load i64, ptr %p
  %m = mul i64 %v, %x
  ret i64 %m
}

define i64 @total(ptr %xs, i64 %n) {
entry:
  br label %loop
loop:
  %i = phi i64 [0, %entry], [%next, %body]
  %acc = phi i64 [0, %entry], [%sum, %body]
  %done = icmp sge i64 %i, %n
  br i1 %done, label %exit, label %body
body:
  %p = getelementptr i64, ptr %xs, i64 %i
  %x = load i64, ptr %p
  %w = call i64 @weigh(i64 %x)
  %sum = add i64 %acc, %w
  %next = add i64 %i, 1
  br label %loop
exit:
  ret i64 %acc
}

define i64 @pick(i64 %x) {
  switch i64 %x, label %other [i64 0, label %a  i64 1, label %b  i64 2, label %c
                               i64 3, label %d  i64 4, label %e  i64 5, label %f]
a:
  ret i64 11
b:
  ret i64 23
c:
  ret i64 37
d:
  ret i64 41
e:
  ret i64 53
f:
  ret i64 67
other:
  ret i64 -1
}
"""


def _expected_total(xs: list[int]) -> int:
    table = [3, 1, 4, 1, 5, 9, 2, 6]
    return sum(table[x & 7] * x for x in xs)


def _object(ir: str, codemodel: str, reloc: str = "static") -> bytes:
    llvm = pytest.importorskip("llvmlite.binding")
    llvm.initialize_native_target()
    llvm.initialize_native_asmprinter()
    module = llvm.parse_assembly(ir)
    module.verify()
    machine = llvm.Target.from_default_triple().create_target_machine(
        codemodel=codemodel, reloc=reloc, opt=2)
    return machine.emit_object(module)


def _relocation_types(code: bytes) -> set[int]:
    sections = elf_link._sections(code)
    found = set()
    for section in sections:
        if section.kind == 4 and elf_link._loaded(sections[section.info]):
            for at in range(section.offset, section.offset + section.size, 24):
                found.add(struct.unpack_from("<Q", code, at + 8)[0] & 0xFFFFFFFF)
    return found


@pytest.mark.parametrize(("codemodel", "reloc"), [("large", "static"), ("small", "pic"),
                                                  ("jitdefault", "default")])
def test_a_linked_object_computes_what_its_code_says(codemodel: str, reloc: str) -> None:
    code = _object(_IR, codemodel, reloc)
    assert _relocation_types(code)  # (something to relocate: the table, the call, the switch)
    linked = elf_link.link(code, ["total", "pick"])
    assert set(linked.functions) == {"total", "pick"}  # the local function is not exported
    total = ctypes.CFUNCTYPE(ctypes.c_int64, ctypes.c_void_p, ctypes.c_int64)(linked.functions["total"])
    pick = ctypes.CFUNCTYPE(ctypes.c_int64, ctypes.c_int64)(linked.functions["pick"])
    xs = [0, 1, 2, 7, 8, 15, 1000, 123_456_789, -5]
    array = (ctypes.c_int64 * len(xs))(*xs)
    assert total(ctypes.addressof(array), len(xs)) == _expected_total(xs)
    assert [pick(x) for x in range(-1, 8)] == [-1, 11, 23, 37, 41, 53, 67, -1, -1]


def test_32_bit_absolute_addresses_are_refused_when_the_memory_lies_above_them() -> None:
    # the small static model addresses its table with 32 bits: the code must lie in the
    # lowest 2 GB, and fresh memory on Linux lies far above
    with pytest.raises(elf_link.Unsupported, match="out of range"):
        elf_link.link(_object(_IR, "small", "static"), ["total"])


def test_the_large_code_model_uses_absolute_addresses() -> None:
    # what numba's kernels are compiled with ("jitdefault" is the large model on x86-64)
    assert 1 in _relocation_types(_object(_IR, "large"))  # R_X86_64_64


def test_the_linked_memory_is_executable_and_not_writable() -> None:
    linked = elf_link.link(_object(_IR, "large"), ["total"])
    address = linked.functions["total"]
    with open("/proc/self/maps") as maps:
        for line in maps:
            span, permissions = line.split()[:2]
            low, high = (int(part, 16) for part in span.split("-"))
            if low <= address < high:
                assert permissions.startswith("r-x")
                break
        else:
            pytest.fail("the linked code is not mapped")


def test_an_object_that_needs_a_symbol_from_outside_is_refused() -> None:
    code = _object("declare i64 @strlen(ptr)\n"
                   "define i64 @f(ptr %p) {\n  %n = call i64 @strlen(ptr %p)\n  ret i64 %n\n}\n",
                   "large")
    with pytest.raises(elf_link.Unsupported, match="needs strlen"):
        elf_link.link(code, ["f"])


def test_an_object_with_writable_data_is_refused() -> None:
    code = _object("@counter = internal global i64 0\n"
                   "define i64 @f() {\n  %v = load i64, ptr @counter\n  %w = add i64 %v, 1\n"
                   "  store i64 %w, ptr @counter\n  ret i64 %w\n}\n", "large")
    with pytest.raises(elf_link.Unsupported, match="writable"):
        elf_link.link(code, ["f"])


def test_a_missing_entry_is_refused() -> None:
    with pytest.raises(elf_link.Unsupported, match="no function nowhere"):
        elf_link.link(_object(_IR, "large"), ["total", "nowhere"])


@pytest.mark.parametrize("damage", ["empty", "not elf", "32-bit", "shared object", "truncated",
                                    "relocation type", "relocation offset", "symbol index",
                                    "alignment"])
def test_damaged_or_foreign_objects_are_refused_with_a_reason(damage: str) -> None:
    code = bytearray(_object(_IR, "large"))
    sections = elf_link._sections(bytes(code))
    rela = next(s for s in sections if s.kind == 4 and s.name == ".rela.ltext")
    if damage == "empty":
        code = bytearray()
    elif damage == "not elf":
        code[:4] = b"\x7fELG"
    elif damage == "32-bit":
        code[4] = 1
    elif damage == "shared object":
        code[0x10] = 3  # ET_DYN
    elif damage == "truncated":
        code = code[: len(code) // 2]
    elif damage == "relocation type":
        struct.pack_into("<I", code, rela.offset + 8, 37)  # R_X86_64_GOTPC64
    elif damage == "relocation offset":
        struct.pack_into("<Q", code, rela.offset, 1 << 40)
    elif damage == "symbol index":
        struct.pack_into("<I", code, rela.offset + 12, 10_000)
    elif damage == "alignment":  # the code's section aligned beyond a page
        shoff, = struct.unpack_from("<Q", code, 0x28)
        struct.pack_into("<Q", code, shoff + rela.info * 64 + 0x30, 1 << 16)
    with pytest.raises(elf_link.Unsupported):
        elf_link.link(bytes(code), ["total"])
