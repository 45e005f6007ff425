"""Which engine computes fingerprints: the compiled one or the numpy code.

Both give bit-identical fingerprints. The compiled engine (``ditto_tui.core.fingerprint._compiled``, C
built when the package is installed) is several times faster; the numpy code needs nothing
but numpy and is the reference, and the fallback when the extension was not built (no C
compiler at install time). Importing the compiled engine takes about a millisecond: there
is nothing to compile or cache on the user's machine.

``DITTO_TUI_KERNEL`` chooses: ``compiled``, ``numpy``, or unset, empty or ``auto`` (the
compiled engine when it is installed). ``DITTO_TUI_ISA`` (``avx512``, ``avx2``,
``portable``) makes the compiled engine use the kernels of that instruction set instead of
the best this CPU runs (tests and benchmarks; all give the same fingerprints).
"""

from __future__ import annotations

import os
import threading
from types import ModuleType
from typing import Literal, get_args

from ditto_tui.core.fingerprint.compiled import CompiledDitto, CompiledHtml

__all__ = ["ENGINES", "ENV", "ISA_ENV", "Engine", "active", "compiled", "describe", "ditto",
           "html", "isa", "isas", "missing", "select", "use_isa"]

ENV = "DITTO_TUI_KERNEL"
ISA_ENV = "DITTO_TUI_ISA"
Engine = Literal["compiled", "numpy"]
ENGINES: tuple[Engine, ...] = get_args(Engine)

_lock = threading.Lock()
_forced: Engine | None = None
_module: ModuleType | None = None
_failure: str | None = None  # why the compiled engine did not load (None: not tried yet, or fine)
_tried = False
#: What runs each pipeline now (None: numpy); set by ``_refresh``.
_ready = False
_ditto: CompiledDitto | None = None
_html: CompiledHtml | None = None


def _wanted() -> Engine | Literal["auto"]:
    if _forced is not None:
        return _forced
    value = os.environ.get(ENV, "").strip().lower()
    if value == "compiled":
        return "compiled"
    return "numpy" if value == "numpy" else "auto"


def _load() -> ModuleType | None:
    """The compiled extension, imported once (None when it is not installed)."""
    global _module, _failure, _tried
    if _tried:
        return _module
    with _lock:
        if not _tried:
            try:
                from ditto_tui.core.fingerprint import _compiled
            except ImportError as exc:
                _failure = f"{type(exc).__name__}: {exc}"
            else:
                chosen = os.environ.get(ISA_ENV, "").strip().lower()
                if chosen:
                    try:
                        _compiled.use_isa(chosen)
                    except ValueError as exc:
                        _failure = f"{ISA_ENV}={chosen}: {exc}"
                _module = _compiled
            _tried = True
    return _module


def _refresh() -> None:
    global _ditto, _html, _ready
    module = _load() if _wanted() != "numpy" else None
    _ditto = CompiledDitto(module) if module is not None else None
    _html = CompiledHtml(module) if module is not None else None
    _ready = True


def select(name: Engine | None) -> None:
    """Use ``"compiled"`` or ``"numpy"`` in this process (None: back to the environment).
    Choosing ``"compiled"`` where it is not installed raises ``RuntimeError`` with the reason."""
    global _forced
    if name is not None and name not in ENGINES:
        raise ValueError(f"unknown engine {name!r} (expected one of {', '.join(ENGINES)})")
    if name == "compiled" and _load() is None:
        raise RuntimeError(f"the compiled engine is not installed ({_failure})")
    _forced = name
    _refresh()


def ditto() -> CompiledDitto | None:
    """The compiled ditto/2 kernel, or None when numpy computes (``fingerprint``,
    ``fingerprint_spans``, ``normalize_utf8``, ``mbox_parts``)."""
    if not _ready:
        _refresh()
    return _ditto


def compiled() -> ModuleType | None:
    """The compiled extension when it computes in this process (for its other entries:
    ``join_table``, ``argsort``), else None."""
    if not _ready:
        _refresh()
    return _module if _ditto is not None else None


def html() -> CompiledHtml | None:
    """The compiled html-distance kernel, or None when numpy computes."""
    if not _ready:
        _refresh()
    return _html


def active() -> Engine:
    """``"compiled"`` or ``"numpy"``: what computes fingerprints in this process now."""
    return "compiled" if ditto() is not None else "numpy"


def isa() -> str | None:
    """The instruction set of the compiled kernels in use (``avx512``, ``avx2``,
    ``portable``), or None when numpy computes."""
    return _module.isa() if active() == "compiled" and _module is not None else None


def isas() -> tuple[str, ...]:
    """The instruction sets this CPU runs the compiled kernels with, best first (empty when
    the compiled engine is not installed)."""
    module = _load()
    return tuple(module.isas()) if module is not None else ()


def use_isa(name: str) -> None:
    """Run the compiled kernels of instruction set ``name`` (one of ``isas()``)."""
    module = _load()
    if module is None:
        raise RuntimeError(f"the compiled engine is not installed ({_failure})")
    module.use_isa(name)


def missing() -> str | None:
    """Why fingerprints come from numpy although nobody asked for it (the compiled engine
    is not installed, or ``DITTO_TUI_ISA`` named an instruction set this CPU lacks), with
    what to do; None when all is as chosen."""
    if _wanted() == "numpy":
        return None
    _load()
    if _failure is None:
        return None
    if _module is not None:  # loaded, but the chosen instruction set was refused
        return f"{_failure}; the best one this CPU runs is used"
    return ("the compiled engine is not installed (no C compiler when ditto-tui was "
            "installed?): fingerprints come from the numpy engine, several times slower. "
            "Install a C compiler and Python's headers (Debian/Ubuntu: apt install gcc "
            "python3-dev), then reinstall ditto-tui")


def describe() -> str:
    """One line: ``compiled (avx512)`` or ``numpy``, and why numpy when it was not chosen."""
    if active() == "compiled":
        return f"compiled ({isa()})"
    return "numpy" if missing() is None else "numpy (the compiled engine is not installed)"
