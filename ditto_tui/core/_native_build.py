"""Compile a kernel's C entry points with numba into one relocatable object (``native``).

Imported only by ``ditto_tui.core.native`` when its object cache has nothing for this
machine. The kernel module's compiled functions are compiled again here without numba's
memory runtime (``_nrt=False``: code that would allocate does not compile) and behind
``cfunc`` entry points with explicit pointer + length arguments, so the caller passes
every array. In the linked module everything but the entries is made internal, and
interprocedural constant propagation folds numba's status codes (no kernel function ever
sets them) and with them the exception paths that would call into numba and Python. What
the object still needs from outside is listed (``Built.symbols``); an entry that can
raise, or needs numba's runtime, makes ``build`` fail instead.
"""

from __future__ import annotations

import types
from collections.abc import Callable
from dataclasses import dataclass
from importlib import import_module
from typing import Any

import numba
from numba import carray
from numba import types as nt
from numba.core.dispatcher import Dispatcher
from numba.extending import intrinsic

from ditto_tui.core.native import ALLOWED, HTML_CONTEXT

__all__ = ["ALLOWED", "Built", "build"]

_jit: Any = numba.njit  # numba's own options (``_nrt``) are beyond its type stubs
_cfunc: Any = numba.cfunc
_P = nt.CPointer
_U8, _U32, _U64, _I64 = nt.uint8, nt.uint32, nt.uint64, nt.int64


@dataclass(frozen=True)
class Built:
    """One kernel's object code: entry name -> symbol, and the symbols it needs."""

    object_code: bytes
    entries: dict[str, str]
    symbols: tuple[str, ...]
    cpu_name: str
    cpu_features: str
    triple: str


def _pointer_at(dtype: Any) -> Any:
    """An intrinsic: the integer address ``a`` as a pointer to ``dtype`` (for the addresses
    an entry reads from its context block)."""

    @intrinsic
    def cast(typingctx: Any, address: Any) -> Any:  # pragma: no cover - compiled
        if not isinstance(address, nt.Integer):
            return None

        def codegen(context: Any, builder: Any, signature: Any, args: Any) -> Any:
            return builder.inttoptr(args[0], context.get_value_type(signature.return_type))

        return nt.CPointer(dtype)(address), codegen

    return cast


_uint8_at, _int64_at, _uint64_at = _pointer_at(_U8), _pointer_at(_I64), _pointer_at(_U64)


def _lean_namespace(module: types.ModuleType) -> dict[str, Any]:
    """The module's globals with each of its compiled functions compiled again without
    numba's memory runtime (same options otherwise; no on-disk cache)."""
    namespace = dict(vars(module))
    for name, obj in vars(module).items():
        if isinstance(obj, Dispatcher) and obj.py_func.__module__ == module.__name__:
            func = obj.py_func
            copy = types.FunctionType(func.__code__, namespace, func.__name__,
                                      func.__defaults__, func.__closure__)
            options = {k: v for k, v in obj.targetoptions.items() if k in ("inline", "nogil")}
            namespace[name] = _jit(_nrt=False, boundscheck=False, **options)(copy)
    namespace.update(carray=carray, _uint8_at=_uint8_at, _int64_at=_int64_at,
                     _uint64_at=_uint64_at, HTML_CONTEXT=HTML_CONTEXT)
    return namespace


def _rebind(func: Callable[..., Any], namespace: dict[str, Any]) -> Callable[..., Any]:
    return types.FunctionType(func.__code__, namespace, func.__name__)


# -- ditto/2 -------------------------------------------------------------------------
# Globals resolved in the lean namespace of _ditto_kernel: spans_into, normalize_into,
# mbox_split_into.

def _ditto_spans(data, n, offsets, sizes, count, char_n, word_n, ascii_map, table, table_len,
                 spread, pairs, out, work, work_len, totals, planes, block, states,
                 states_len):  # pragma: no cover - compiled
    spans_into(carray(data, (n,)), carray(offsets, (count,)), carray(sizes, (count,)),  # noqa: F821
               char_n, word_n, carray(ascii_map, (128,)), carray(table, (table_len,)),
               carray(spread, (256,)), carray(pairs, (65536,)), carray(out, (count,)),
               carray(work, (work_len,)), carray(totals, (64,)), carray(planes, (4,)),
               carray(block, (3840,)), carray(states, (states_len,)))
    return 0


def _ditto_normalize(data, n, ascii_map, table, table_len, out, out_len):  # pragma: no cover
    end, ascii = normalize_into(carray(data, (n,)), carray(ascii_map, (128,)),  # noqa: F821
                                carray(table, (table_len,)), carray(out, (out_len,)))
    return 2 * end + (1 if ascii else 0)


def _ditto_mbox(data, n, pos, hi, offsets, sizes, cap, state):  # pragma: no cover - compiled
    return mbox_split_into(carray(data, (n,)), pos, hi, carray(offsets, (cap,)),  # noqa: F821
                           carray(sizes, (cap,)), carray(state, (1,)))


_DITTO_ENTRIES: dict[str, tuple[Any, Any]] = {
    "spans": (_ditto_spans, _I64(_P(_U8), _I64, _P(_I64), _P(_I64), _I64, _I64, _I64, _P(_U8),
                                 _P(_U32), _I64, _P(_U64), _P(_U64), _P(_U64), _P(_U8), _I64,
                                 _P(_I64), _P(_U64), _P(_U64), _P(_U64), _I64)),
    "normalize": (_ditto_normalize, _I64(_P(_U8), _I64, _P(_U8), _P(_U32), _I64, _P(_U8), _I64)),
    "mbox": (_ditto_mbox, _I64(_P(_U8), _I64, _I64, _I64, _P(_I64), _P(_I64), _I64, _P(_I64))),
}


# -- html-distance ----------------------------------------------------------------------
# Globals resolved in the lean namespace of _html_kernel: fingerprint_into, features.
# The fingerprint entry takes its tables and work arrays in one int64 context block (see
# ``native.NativeHtml``): a ctypes call costs about 0.1 us an argument.

def _html_fingerprint(buf, n, ctx):  # pragma: no cover - compiled
    c = carray(ctx, (HTML_CONTEXT,))
    status, fp = fingerprint_into(  # noqa: F821
        carray(buf, (n,)), c[0], c[1], carray(_int64_at(c[2]), (c[3],)),
        carray(_uint8_at(c[4]), (c[5],)), carray(_int64_at(c[6]), (c[7],)),
        carray(_uint64_at(c[8]), (256,)), carray(_int64_at(c[9]), (c[10], 4)),
        carray(_uint8_at(c[11]), (c[12],)), carray(_int64_at(c[13]), (c[14],)),
        carray(_int64_at(c[15]), (64,)), carray(_uint64_at(c[16]), (4,)),
        carray(_uint64_at(c[17]), (3840,)), carray(_uint64_at(c[18]), (c[19],)))
    c[20] = status
    return fp


def _html_features(buf, n, max_tokens, slots, slots_len, flat, flat_len, starts, starts_len,
                   attrs, attrs_rows, feat, feat_len, fstart, fstart_len, spread, totals, planes,
                   block, states, result):  # pragma: no cover - compiled
    # Not hashing: ``n < 0`` is False, passed as a value (a literal False would make numba
    # compile ``features`` a second time).
    status, nf, _ = features(  # noqa: F821
        carray(buf, (n,)), max_tokens, carray(slots, (slots_len,)), carray(flat, (flat_len,)),
        carray(starts, (starts_len,)), carray(attrs, (attrs_rows, 4)), carray(feat, (feat_len,)),
        carray(fstart, (fstart_len,)), n < 0, carray(states, (2,)), carray(block, (3840,)),
        carray(spread, (256,)), carray(planes, (4,)), carray(totals, (64,)))
    carray(result, (1,))[0] = nf
    return status


_HTML_ENTRIES: dict[str, tuple[Any, Any]] = {
    "fingerprint": (_html_fingerprint, _U64(_P(_U8), _I64, _P(_I64))),
    "features": (_html_features, _I64(
        _P(_U8), _I64, _I64, _P(_I64), _I64, _P(_U8), _I64, _P(_I64), _I64, _P(_I64), _I64,
        _P(_U8), _I64, _P(_I64), _I64, _P(_U64), _P(_I64), _P(_U64), _P(_U64), _P(_U64),
        _P(_I64))),
}

_KINDS: dict[str, tuple[str, dict[str, tuple[Any, Any]]]] = {
    "ditto": ("ditto_tui.core._ditto_kernel", _DITTO_ENTRIES),
    "html": ("ditto_tui.core._html_kernel", _HTML_ENTRIES),
}

def build(kind: str) -> Built:
    """Compile ``kind``'s entry points (``"ditto"``, ``"html"``) into one object for this CPU.

    Raises when an entry cannot be compiled without numba's runtime, or when the
    object would need anything but the C library functions in ``ALLOWED``.
    """
    import llvmlite.binding as llvm

    module_name, entries = _KINDS[kind]
    namespace = _lean_namespace(import_module(module_name))
    compiled: dict[str, Any] = {name: _cfunc(signature, boundscheck=False)(_rebind(func, namespace))
                for name, (func, signature) in entries.items()}
    first = next(iter(compiled.values()))
    codegen = first._library.codegen
    module = None
    for entry in compiled.values():  # one module: shared helpers are linkonce_odr
        part = llvm.parse_assembly(str(entry._library._final_module))
        if module is None:
            module = part
        else:
            module.link_in(part)
    assert module is not None
    symbols = {entry.native_name: f"ditto_tui_{kind}_{name}" for name, entry in compiled.items()}
    for func in module.functions:
        if func.is_declaration:
            continue
        if func.name in symbols:
            func.name = symbols[func.name]
        else:
            func.linkage = "internal"
    for var in module.global_variables:
        if not var.is_declaration:
            var.linkage = "internal"
    machine = codegen._tm
    # Fold the status codes (every function body is optimised already: only what the
    # internal linkage newly allows), then drop the dead exception paths and declarations.
    passes = llvm.create_pass_builder(machine, llvm.create_pipeline_tuning_options())
    manager = llvm.create_new_module_pass_manager()
    manager.add_ipsccp_pass()
    manager.add_simplify_cfg_pass()
    manager.add_aggressive_dce_pass()
    manager.add_global_dead_code_eliminate_pass()
    manager.add_strip_dead_prototype_pass()
    manager.run(module, passes)
    needed = sorted(
        {f.name for f in module.functions if f.is_declaration and not f.name.startswith("llvm.")}
        | {v.name for v in module.global_variables if v.is_declaration}
    )
    foreign = [name for name in needed if name not in ALLOWED]
    if foreign:
        raise RuntimeError(f"the {kind} entry points need {', '.join(foreign)}")
    return Built(
        object_code=bytes(machine.emit_object(module)),
        entries={name: symbols[entry.native_name] for name, entry in compiled.items()},
        symbols=tuple(needed),
        cpu_name=codegen._get_host_cpu_name(),
        cpu_features=codegen._tm_features,
        triple=module.triple,
    )
