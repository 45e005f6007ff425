"""Compile one of the numba kernels into the on-disk cache: ``python -m tests.compile_kernels
ditto`` (or ``html``).

The test session's controller runs both at once before its xdist workers get tests (see
``conftest.py``), so on a fresh machine the kernels are compiled once, in parallel, instead
of once per worker; the workers then load them from the cache. It compiles every
signature the suite uses: read-only byte arrays, the spans form, the normalizer and the
mbox splitter; then
it saves the kernel's machine code for the native path (``ditto_tui.core.native``).
"""

from __future__ import annotations

import sys

from ditto_tui.core import kernel


def compile_kernel(kind: str) -> None:
    kernel.select("numba")
    if not kernel.warm():
        raise SystemExit(f"no compiled kernel: {kernel.status()}")
    if kind == "ditto":
        from ditto_tui.core import _ditto_kernel as ditto

        ditto.fingerprint(b"one two three", 3, 2)
        ditto.fingerprint_spans(b"one two three", [(0, 3), (4, 9)], 3, 2)
        ditto.normalize_utf8(b"One  Two")
        ditto.mbox_parts(b"From a\nbody\n\nFrom b\nmore\n", 3, 2)
    elif kind == "html":
        from ditto_tui.core import _html_kernel as html

        html.fingerprint(b"<p class=a>one</p>", 2, 100)
        html.feature_list(b"<p class=a>one</p>", 100)
    else:
        raise SystemExit(f"unknown kernel {kind!r}")
    kernel.select("native")
    kernel.warm(kind)  # builds and saves the machine code when the cache has none


if __name__ == "__main__":
    for name in sys.argv[1:]:
        compile_kernel(name)
