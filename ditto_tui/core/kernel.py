"""Which engine computes fingerprints: the compiled kernel or the numpy code.

All give bit-identical fingerprints; the compiled kernel is several times faster, the
numpy code needs nothing but numpy. The choice comes from the environment variable
``DITTO_TUI_KERNEL``:

- ``native``: use the compiled kernel from the first document on, as machine code
  saved by an earlier process and run without importing numba (``native``); the first
  process on a machine compiles it with numba and saves it. When that is not possible
  (no numba, another CPU's code, a symbol the process lacks), numba's own dispatchers
  are used and ``status`` says why;
- ``numba``: use the compiled kernel through numba's dispatchers (numba imported);
- ``numpy``: never load numba;
- unset, empty or ``auto`` (the default): as ``native``, once the work done in this
  process is large enough to pay for loading it (``AUTO_THRESHOLD`` bytes, each
  document counting ``AUTO_DOC_COST`` extra), so a command on one small file never
  waits for it. ``warm`` loads it at once (before forking workers, say).

When numba is not installed, or fails to load, the numpy code is used and ``status``
says why. Compiled code is cached on disk: in ``NUMBA_CACHE_DIR`` when set, else in
``<user cache folder>/ditto-tui/numba`` (numba itself falls back to its own user
folder if that one is not writable); the machine code run without numba is in its
``native`` sub-folder. The first use on a machine compiles (several seconds, once);
later processes load it from the cache.
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
KERNELS = ("native", "numba", "numpy")
#: Bytes of documents (auto mode) after which the compiled kernel is loaded.
AUTO_THRESHOLD = 8 * 1024 * 1024
#: What one document counts toward ``AUTO_THRESHOLD`` besides its bytes.
AUTO_DOC_COST = 4096

_MODULES = {"ditto": "ditto_tui.core._ditto_kernel", "html": "ditto_tui.core._html_kernel"}

_lock = threading.Lock()
_forced: str | None = None
_environment: str | None = None
_modules: dict[str, ModuleType] = {}  # kind -> numba's compiled functions
_failure: str | None = None
_native: dict[str, Any] = {}  # kind -> its machine code run without numba
_native_failure: dict[str, str] = {}  # kind -> why its machine code is not run natively
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
    """Force ``"native"``, ``"numba"`` or ``"numpy"`` in this process (``None``: back to
    the environment). Kernels loaded already stay loaded (a new process starts clean)."""
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


def _compiled(kind: str, mode: str) -> Any:
    """What runs ``kind``'s kernel in ``mode`` now (None: nothing loaded yet)."""
    if mode != "numba" and kind in _native:
        return _native[kind]
    if mode == "numba" or kind in _native_failure:
        return _modules.get(kind)
    return None


def _load(kinds: tuple[str, ...] = tuple(_MODULES)) -> bool:
    """Load the compiled kernels of ``kinds`` once: their native machine code unless the
    mode is ``numba``, else (or when that fails) numba's, numba itself with the first;
    False (and ``status`` says why) when that fails."""
    mode = _mode()
    if all(_compiled(kind, mode) is not None for kind in kinds):
        return True
    if _failure is not None and (
        mode == "numba" or all(kind in _native or kind in _native_failure for kind in kinds)
    ):
        return False  # tried everything already
    with _lock:
        if mode != "numba":
            pending = [kind for kind in kinds if kind not in _native and kind not in _native_failure]
            helpers = _build_beside(pending)
            for kind in pending:
                helper = helpers.pop(kind, None)
                if helper is not None:  # its build is done (or failed: then built here)
                    _wait_quietly(helper)
                _load_native(kind)
        missing = tuple(kind for kind in kinds if _compiled(kind, mode) is None)
        if not missing:
            return True
        return _failure is None and _load_numba(missing)


#: How long a helper process may take to build a kernel before this process builds it.
BUILD_TIMEOUT = 600.0


def _build_beside(kinds: list[str]) -> dict[str, Any]:
    """When more than one of ``kinds`` has no saved machine code for this machine, start
    a helper process for each but the first (``python -m ditto_tui.core._build_kernel KIND``),
    so that the builds run on several cores: each is numba's compiler, single-threaded
    and about 10 s of CPU. kind -> its process; empty when nothing is to be built beside
    this process or a helper cannot start (the builds then run here, one after another)."""
    if len(kinds) < 2 or getattr(sys, "frozen", False) or not sys.executable:
        return {}
    try:
        from ditto_tui.core import native

        folder = cache_dir()
        missing = [kind for kind in kinds if kind in native.KINDS and not native.saved(folder, kind)]
    except Exception:  # noqa: BLE001 - no llvmlite, an unreadable cache: built here or not at all
        return {}
    if len(missing) < 2:
        return {}
    import subprocess

    environment = {**os.environ, "NUMBA_CACHE_DIR": os.environ.get("NUMBA_CACHE_DIR") or folder}
    helpers: dict[str, Any] = {}
    for kind in missing[1:]:
        try:
            helpers[kind] = subprocess.Popen(
                [sys.executable, "-m", "ditto_tui.core._build_kernel", kind], env=environment,
                stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        except OSError:
            break
    return helpers


def _wait_quietly(process: Any) -> None:
    try:
        process.wait(timeout=BUILD_TIMEOUT)
    except Exception:  # noqa: BLE001 - too slow: stop it, and build here
        process.kill()
        process.wait()


def _load_native(kind: str) -> None:
    """Load ``kind``'s saved machine code (compiling and saving it first if this machine
    has none), or note in ``_native_failure`` why not."""
    from ditto_tui.core import native

    if kind not in native.KINDS:
        _native_failure[kind] = "no native entry points"
        return
    folder = cache_dir()
    try:
        try:
            addresses = native.load(folder, kind)
        except native.Missing:
            _numba_settings()
            failure = native.save_built(folder, kind)
            if failure is not None:
                raise RuntimeError(failure) from None
            addresses = native.load(folder, kind)
        _native[kind] = native.KINDS[kind](addresses)
    except Exception as exc:  # noqa: BLE001 - any failure means: numba's own path
        _native_failure[kind] = f"{type(exc).__name__}: {exc}"


def _numba_settings() -> Any:
    """Import numba with its cache folder set; the module."""
    os.environ.setdefault("NUMBA_CACHE_DIR", cache_dir())
    import numba

    settings = vars(numba.config)
    if not settings.get("CACHE_DIR"):  # numba was imported before the variable was set
        settings["CACHE_DIR"] = os.environ["NUMBA_CACHE_DIR"]
    return numba


def _load_numba(kinds: tuple[str, ...]) -> bool:
    """Import the numba kernels of ``kinds`` (under the lock)."""
    global _failure
    try:
        first = not _modules
        _numba_settings()
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


def _get(kind: str, size: int, docs: int = 1) -> Any:
    global _work
    mode = _mode()
    if mode == "numpy":
        return None
    found = _compiled(kind, mode)
    if found is not None:
        return found
    if mode == "auto" and not (_modules or _native):
        _work += size + docs * AUTO_DOC_COST
        if _work < AUTO_THRESHOLD:
            return None
    return _compiled(kind, mode) if _load((kind,)) else None


def ditto(size: int, docs: int = 1) -> Any:
    """The compiled ditto/2 kernel for ``docs`` documents of ``size`` bytes in all, or
    None for numpy. It has ``fingerprint``, ``fingerprint_spans`` and ``normalize_utf8``."""
    return _get("ditto", size, docs)


def html(size: int) -> Any:
    """The compiled html-distance kernel for a page of ``size`` bytes, or None for numpy.
    It has ``fingerprint`` and ``feature_list``."""
    return _get("html", size)


def active(kind: str | None = None) -> str:
    """What runs ``kind``'s kernel (None: the loaded ones) in this process: ``"native"``
    (machine code without numba), ``"numba"`` (any through numba) or ``"numpy"``."""
    mode = _mode()
    if mode == "numpy":
        return "numpy"
    found = [_compiled(k, mode) for k in ([kind] if kind else _MODULES)]
    found = [compiled for compiled in found if compiled is not None]
    if not found:
        return "numpy"
    return "numba" if any(isinstance(compiled, ModuleType) for compiled in found) else "native"


def status() -> str:
    """One line for humans: the mode, what is loaded, and why numba or the native code
    is not in use, if either failed."""
    text = f"kernel mode {_mode()} ({ENV}), active {active()}"
    if _modules or _native:
        text += " (" + ", ".join(f"{kind} {active(kind)}" for kind in _MODULES) + ")"
    text += f", cache {cache_dir()}"
    linked = getattr(sys.modules.get("ditto_tui.core.native"), "LINKED_BY", None)
    if linked:
        text += ", machine code linked by " + ", ".join(
            f"{kind} {how}" for kind, how in sorted(linked.items()))
    for kind, why in sorted(_native_failure.items()):
        text += f"; {kind} not native: {why}"
    if _failure is not None:
        text += f"; numba unavailable: {_failure}"
    return text
