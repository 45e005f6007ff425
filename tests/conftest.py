"""Settings shared by every test."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest
from hypothesis import settings

from tests.properties import DEFAULT, examples

# Each test process keeps the bytecode of what it compiles (in the ignored __pycache__
# folders) even where PYTHONDONTWRITEBYTECODE is set: without it every xdist worker
# rewrites the asserts of every test module again at each run (about 4-5 s of CPU per
# worker), and every command-line test's subprocess compiles the package again. Python
# and pytest write these files atomically, so parallel workers can share them.
sys.dont_write_bytecode = False

# No per-example time limit: on a loaded machine (xdist runs a worker more than there are
# cores) a fast example can take longer than hypothesis's default 200 ms once, and the
# deadline then fails a correct test. A test that sets no count draws hypothesis's default
# in the full run and its quick share in the README's run (tests/properties.py).
settings.register_profile("ditto-tui", deadline=None, max_examples=examples(DEFAULT))
settings.load_profile("ditto-tui")


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Mark every property test ``property``: CI runs them again with all their examples.

    Then the UI tests and the served-explorer tests (a server, its tabs and Chromium) go
    first (each module's tests keep their order): xdist hands out tests in this order, a
    chunk at a time, and the run ends when the slowest worker's last tests end. Those are
    now short engine tests rather than apps of 1-4 s each."""
    for item in items:
        if getattr(getattr(item, "obj", None), "is_hypothesis_test", False):
            item.add_marker(pytest.mark.property)
    items.sort(key=lambda item: not item.nodeid.startswith(("tests/ui/", "tests/serve/")))

_ROOT = Path(__file__).resolve().parent.parent


try:  # pytest's own key; it is there for pytester to set, and so for us
    from _pytest.unraisableexception import gc_collect_iterations_key
except ImportError:  # another pytest: its default then
    gc_collect_iterations_key = None


@pytest.hookimpl(trylast=True)
def pytest_configure(config: pytest.Config) -> None:
    """One full garbage collection at the end of each test process, not five; and in the
    controller of an xdist run, compile the bytecode once.

    pytest collects five times at the end to find exceptions raised in finalizers. Over a
    worker's heap (Textual apps, compiled kernels) each pass took 0.1-1 s, and the last
    worker to end must be gone within 5 s of the controller's goodbye (execnet then sends
    it SIGINT, which a loaded machine turned into a failed run). One pass still runs every
    finalizer of the cyclic garbage left."""
    if gc_collect_iterations_key is not None:
        config.stash[gc_collect_iterations_key] = 1
    if hasattr(config, "workerinput") or not config.pluginmanager.hasplugin("dsession"):
        return
    compile_bytecode_once(config, _ROOT / "ditto_tui", _ROOT / "tests")


def compile_bytecode_once(config: pytest.Config, package: Path, tests: Path) -> None:
    """In the controller, before the workers start: write the bytecode of the ``package``
    and the assert-rewritten bytecode of the test modules under ``tests``, where it is
    missing or stale.

    Otherwise, on a fresh clone, each of the five workers rewrote every test module itself
    (about 20 s of the first run's wall time on two cores), and each command-line test's
    subprocess compiled the modules it imported (they inherit PYTHONDONTWRITEBYTECODE where
    it is set). With the bytecode there, this only reads each file's header. It uses
    pytest's own functions (pytest is pinned to 8.4); if they are not there, the workers
    compile as before."""
    import compileall

    compileall.compile_dir(package, quiet=1)
    try:
        from _pytest.assertion import rewrite

        state = config.stash[rewrite.assertstate_key]
        read, write, tail = rewrite._read_pyc, rewrite._write_pyc, rewrite.PYC_TAIL
    except (ImportError, AttributeError, KeyError):  # assert rewriting is off, or moved
        return
    for source in sorted(tests.rglob("*.py")):
        if not (source.name.startswith("test_") or source.name == "conftest.py"):
            continue
        cache = rewrite.get_cache_dir(source)
        pyc = cache / (source.name[:-3] + tail)
        if read(source, pyc) is None and rewrite.try_makedirs(cache):
            source_stat, code = rewrite._rewrite_test(source, config)
            write(state, code, source_stat, pyc)


def pytest_xdist_auto_num_workers(config: pytest.Config) -> int:
    """``-n auto``: two workers per core, and one more. A UI test waits on Textual's frame
    timer and the app's worker threads for more than half of its wall time; the other
    workers run while it waits. On two cores (quiet machine, warm caches, tests handed out
    at most four at a time, ``--maxschedchunk 4``) the quick suite took 105.0 s with 4
    workers, 104.1 s with 5 and 105.3 s with 6."""
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    return 2 * (cores or 1) + 1

