"""``python -m ditto_tui.core._build_kernel KIND``: build and save KIND's machine code for
this machine (``ditto`` or ``html``); exit status 0 when it is saved.

The helper process ``kernel`` starts to build a second kernel on another core while it
builds the first itself.
"""

from __future__ import annotations

import sys

from ditto_tui.core import kernel, native


def main(arguments: list[str]) -> int:
    """Build the kernel named in ``arguments``; the exit status."""
    if len(arguments) != 1 or arguments[0] not in native.KINDS:
        print("usage: python -m ditto_tui.core._build_kernel ditto|html", file=sys.stderr)
        return 2
    kernel._numba_settings()
    return 0 if native.save_built(kernel.cache_dir(), arguments[0]) is None else 1


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
