"""Settings shared by every test."""

from __future__ import annotations

import os

from ditto_tui.core import kernel

# Tests that give themselves a private XDG_CACHE_HOME (so they never write to the user's
# fingerprint cache) must still find the compiled kernels: without this, each of them
# compiled both kernels again (about 20 s of CPU each time). Subprocesses inherit it.
os.environ.setdefault("NUMBA_CACHE_DIR", kernel.cache_dir())
