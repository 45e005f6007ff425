"""Which engine computes fingerprints: the compiled (numba) kernel or the numpy code.

Both give bit-identical fingerprints; the compiled kernel is several times faster, the
numpy code needs nothing but numpy. The choice comes from the environment variable
``DITTO_TUI_KERNEL``:

- ``numba``: use the compiled kernel from the first document on;
- ``numpy``: never load numba;
- unset, empty or ``auto`` (the default): use the compiled kernel once the work done in
  this process is large enough to pay for loading it (``AUTO_THRESHOLD`` bytes, each
  document counting ``AUTO_DOC_COST`` extra), so a command on one small file never
  waits for numba. ``warm`` loads it at once (before forking workers, say).

When numba is not installed, or fails to load, the numpy code is used and ``status``
says why. Compiled functions are cached on disk: in ``NUMBA_CACHE_DIR`` when set, else
in ``<user cache folder>/ditto-tui/numba`` (numba itself falls back to its own user
folder if that one is not writable). The first use on a machine compiles them (a few
seconds, once); later processes load them from the cache.
"""

from __future__ import annotations

import importlib
import os
import sys
import threading
from types import ModuleType
from typing import Any, cast

__all__ = [
    "AUTO_DOC_COST",
    "AUTO_THRESHOLD",
    "ENV",
    "KERNELS",
    "active",
    "cache_dir",
    "ditto",
    "html",
    "select",
    "status",
    "warm",
]

ENV = "DITTO_TUI_KERNEL"
KERNELS = ("numba", "numpy")
#: Bytes of documents (auto mode) after which the compiled kernel is loaded.
AUTO_THRESHOLD = 8 * 1024 * 1024
#: What one document counts toward ``AUTO_THRESHOLD`` besides its bytes.
AUTO_DOC_COST = 4096

_MODULES = {"ditto": "ditto_tui.core._ditto_kernel", "html": "ditto_tui.core._html_kernel"}

_lock = threading.Lock()
_forced: str | None = None
_environment: str | None = None
_modules: dict[str, ModuleType] = {}
_failure: str | None = None
_work = 0


def _env_mode() -> str:
    value = os.environ.get(ENV, "").strip().lower()
    return value if value in KERNELS else "auto"


def _mode() -> str:
    if _forced is not None:
        return _forced
    global _environment
    if _environment is None:  # read once: the variable is looked at on every document
        _environment = _env_mode()
    return _environment


def select(name: str | None) -> None:
    """Force ``"numba"`` or ``"numpy"`` in this process (``None``: back to the environment)."""
    global _forced, _environment
    if name is not None and name not in KERNELS:
        raise ValueError(f"unknown kernel {name!r} (expected one of {', '.join(KERNELS)})")
    _forced = name
    _environment = None  # read the variable again


def cache_dir() -> str:
    """Where compiled functions are cached (``NUMBA_CACHE_DIR`` or the user cache folder)."""
    given = os.environ.get("NUMBA_CACHE_DIR")
    if given:
        return given
    import platformdirs

    return os.path.join(platformdirs.user_cache_dir("ditto-tui", appauthor=False), "numba")


def _load(kinds: tuple[str, ...] = tuple(_MODULES)) -> bool:
    """Import the compiled kernels of ``kinds`` once (numba itself with the first); False
    (and ``status`` says why) when that fails."""
    global _failure
    if all(kind in _modules for kind in kinds):
        return True
    if _failure is not None:
        return False
    with _lock:
        if all(kind in _modules for kind in kinds) or _failure is not None:
            return _failure is None
        try:
            first = not _modules
            os.environ.setdefault("NUMBA_CACHE_DIR", cache_dir())
            import numba

            settings = vars(numba.config)
            if not settings.get("CACHE_DIR"):  # numba was imported before the variable was set
                settings["CACHE_DIR"] = os.environ["NUMBA_CACHE_DIR"]
            loaded = {kind: importlib.import_module(_MODULES[kind]) for kind in kinds}
            cached = all(_load_cached(module) for module in loaded.values())
            if first and not cached:
                _start_numba()
        except Exception as exc:  # noqa: BLE001 - any failure means: use numpy
            _failure = f"{type(exc).__name__}: {exc}"
            return False
        _modules.update(loaded)
        return True


def _load_cached(module: ModuleType) -> bool:
    """Load the compiled functions of ``module`` from numba's on-disk cache, without
    numba's compiler start-up; True when the cache held them (any was loaded).

    numba's own cache load first initialises everything its compiler needs (about 0.2 s of
    CPU: every typing and lowering registry), although running machine code from the cache
    needs none of it but the memory runtime. This reads the same cache entries (same keys:
    signature, CPU and source code) through the dispatcher's cache object and registers
    them as numba's compile path does on a cache hit. Helpers compiled only into their
    callers have no entries of their own. A cold cache or another numba version returns
    False; whatever is not loaded here numba loads or compiles at its first call, the usual
    way (its compiler then starts as it always does).
    """
    try:
        from numba.core.compiler_lock import global_compiler_lock
        from numba.core.dispatcher import Dispatcher
        from numba.core.registry import cpu_target
        from numba.core.runtime.nrt import rtsys

        compiled: list[Any] = [obj for obj in vars(module).values() if isinstance(obj, Dispatcher)]
        dispatchers = [dispatcher for dispatcher in compiled if dispatcher._cache is not None]
        with global_compiler_lock:
            rtsys.initialize(cpu_target.target_context)
            return sum(_load_overloads(dispatcher) for dispatcher in dispatchers) > 0
    except Exception:  # noqa: BLE001 - numba internals differ: its own path loads them
        return False


def _load_overloads(dispatcher: Any) -> int:
    """Register every cached overload of ``dispatcher`` for this CPU and this source code
    (what ``Dispatcher.compile`` does on a cache hit); how many."""
    cache = dispatcher._cache
    context = dispatcher.targetctx
    codegen = context.codegen()
    loaded = 0
    for key in cache._cache_file._load_index():
        signature = key[0]
        if tuple(signature) in dispatcher.overloads or cache._index_key(signature, codegen) != key:
            continue  # loaded already, or compiled for another CPU or an older source
        result = cache._load_overload(signature, context)
        if result is None or result.objectmode:
            continue
        dispatcher._cache_hits[signature] += 1
        context.insert_user_function(result.entry_point, result.fndesc, [result.library])
        dispatcher.add_overload(result)
        loaded += 1
    return loaded


_BLAS_PROBE = "scipy.linalg.cython_blas"


def _start_numba() -> None:
    """Initialise numba's CPU target (its first use) without importing ``scipy.linalg``.

    numba's first compile or cache load imports ``numba.np.arraymath``, which probes for
    BLAS by importing ``scipy.linalg.cython_blas``: about 0.2 s of CPU, half of that first
    load. The kernels use no BLAS, so the probe is made to fail (numba then refuses
    ``np.dot`` in code compiled in this process; ``scipy.linalg`` itself imports as usual
    afterwards). Only while no other thread runs (an import of scipy.linalg in another
    thread would fail in that moment) and when scipy.linalg is not loaded already;
    otherwise numba starts the usual way at first use.
    """
    if _BLAS_PROBE in sys.modules or threading.active_count() > 1:
        return
    from numba.core.registry import cpu_target

    # None in sys.modules makes "import" raise ImportError (the typeshed says modules only)
    sys.modules[_BLAS_PROBE] = cast(ModuleType, None)
    try:
        cpu_target.target_context.refresh()
    finally:
        if _BLAS_PROBE in sys.modules and sys.modules[_BLAS_PROBE] is None:
            del sys.modules[_BLAS_PROBE]


def warm(*kinds: str) -> bool:
    """Load the compiled kernels of ``kinds`` (``"ditto"``, ``"html"``; none named: both)
    now unless numpy is forced; True when they are in use."""
    return _mode() != "numpy" and _load(kinds or tuple(_MODULES))


def _get(kind: str, size: int, docs: int = 1) -> ModuleType | None:
    global _work
    mode = _mode()
    if mode == "numpy":
        return None
    module = _modules.get(kind)
    if module is not None:
        return module
    if mode == "auto" and not _modules:
        _work += size + docs * AUTO_DOC_COST
        if _work < AUTO_THRESHOLD:
            return None
    return _modules.get(kind) if _load((kind,)) else None


def ditto(size: int, docs: int = 1) -> ModuleType | None:
    """The compiled ditto/2 kernel for ``docs`` documents of ``size`` bytes in all, or
    None for numpy."""
    return _get("ditto", size, docs)


def html(size: int) -> ModuleType | None:
    """The compiled html-distance kernel for a page of ``size`` bytes, or None for numpy."""
    return _get("html", size)


def active() -> str:
    """``"numba"`` when the compiled kernel is loaded in this process, else ``"numpy"``."""
    return "numba" if _modules and _mode() != "numpy" else "numpy"


def status() -> str:
    """One line for humans: the mode, what is loaded, and why numba is not, if it failed."""
    text = f"kernel mode {_mode()} ({ENV}), active {active()}, cache {cache_dir()}"
    if _failure is not None:
        text += f"; numba unavailable: {_failure}"
    return text
