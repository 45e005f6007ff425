"""Build of the compiled engine (``ditto_tui.core.fingerprint._compiled``, C, from ``csrc/``).

Everything else is declared in ``pyproject.toml``. The extension is optional: without a
C compiler the install still succeeds, with one line saying so, and fingerprints come from
the numpy engine (``ditto-tui version`` says which engine runs).
"""

from __future__ import annotations

import os
import sys
import sysconfig

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

#: A build without the GIL cannot use the stable ABI (CPython 3.13t).
FREE_THREADED = bool(sysconfig.get_config_var("Py_GIL_DISABLED"))
#: One build for CPython 3.11 and every later release (the stable ABI).
LIMITED_API = not FREE_THREADED and sys.implementation.name == "cpython"

NOTICE = (
    "ditto-tui: the compiled engine could not be built ({why}); the install goes on with "
    "the numpy engine (same fingerprints, several times slower). To get it, install a C "
    "compiler and Python's headers (Debian/Ubuntu: apt install gcc python3-dev; macOS: "
    "xcode-select --install; Windows: Visual Studio Build Tools) and install ditto-tui again."
)


class BuildEngine(build_ext):
    """``build_ext`` with the compiler's optimisation flags, and one clear line when the
    optional engine cannot be built."""

    def build_extension(self, ext: Extension) -> None:
        if self.compiler.compiler_type == "msvc":
            ext.extra_compile_args = ["/O2"]
        else:
            ext.extra_compile_args = ["-O3", "-fno-strict-aliasing", "-Wall", "-Wextra",
                                      "-Wno-unused-parameter", "-Wno-unused-function"]
        try:
            super().build_extension(ext)
        except Exception as exc:  # noqa: BLE001 - any failure: the numpy engine serves
            if not ext.optional:
                raise
            why = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
            print(NOTICE.format(why=why), file=sys.stderr)

    def run(self) -> None:
        try:
            super().run()
        except Exception as exc:  # noqa: BLE001 - no compiler found at all
            if os.environ.get("DITTO_TUI_REQUIRE_COMPILED"):
                raise
            print(NOTICE.format(why=str(exc).splitlines()[0] or type(exc).__name__),
                  file=sys.stderr)


HEADERS = ["engine.h", "shared.h", "data.h", "kernel.h", "kernel_vote.h", "kernel_ditto.h",
           "kernel_html.h"]

engine = Extension(
    "ditto_tui.core.fingerprint._compiled",
    sources=["csrc/module.c"],
    depends=[f"csrc/{name}" for name in HEADERS],
    define_macros=[("Py_LIMITED_API", "0x030B0000")] if LIMITED_API else [],
    py_limited_api=LIMITED_API,
    optional=not os.environ.get("DITTO_TUI_REQUIRE_COMPILED"),
)

setup(
    ext_modules=[engine],
    cmdclass={"build_ext": BuildEngine},
    options={"bdist_wheel": {"py_limited_api": "cp311"}} if LIMITED_API else {},
)
