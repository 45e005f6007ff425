"""The tool as a user installs it: a built wheel in a fresh virtual environment.

Builds the wheel (``pip wheel --no-deps .``), installs it with its dependencies into a new
virtual environment outside the source tree, and prints one figure a line
(``name value unit``):

- ``installed_size_mb``: the runtime dependencies and ditto-tui as installed (the
  environment's site-packages without pip itself), and ``installed_size_<package>_mb`` for
  the largest ones;
- ``engine``: what ``ditto-tui version`` says runs the fingerprints;
- ``first_run_licenses_s`` / ``second_run_licenses_s`` / ``first_run_licenses_ratio``:
  ``ditto-tui fingerprint --no-cache`` over the license and copyright texts of this
  machine (``/usr/share/doc``, ``/usr/share/common-licenses``, and the licence files of
  the installed Python packages: about a thousand real texts here), run twice with an empty user cache
  folder (``XDG_CACHE_HOME``) the first time: whatever the first run on a machine must
  build or load is in the ratio (a median over ``--runs`` fresh caches);
- ``engine_import_ms``: importing the compiled engine (numpy already loaded), median;
- ``fingerprint_cli_one_file_s``: the installed command on one small file (median).

    python benchmarks/bench_install.py [--runs 5]
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SKIP = ("pip", "_distutils_hack", "setuptools", "pkg_resources", "distutils-precedence.pth")


def _size(path: Path) -> int:
    if path.is_file():
        return path.stat().st_size
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file() and not p.is_symlink())


def license_texts(folder: Path) -> int:
    """Copy this machine's license and copyright texts into ``folder``; how many."""
    sources: list[Path] = []
    bases = {Path("/usr/share/doc"), Path("/usr/share/common-licenses"), Path(sys.prefix),
             Path(sys.base_prefix)}
    for base in sorted(bases):
        if base.is_dir():
            sources += [p for p in base.rglob("*") if p.is_file() and not p.is_symlink()
                        and ("licen" in p.name.lower() or p.name in ("copyright", "COPYING"))
                        and p.suffix != ".gz"]
    for i, path in enumerate(sorted(sources)):
        shutil.copyfile(path, folder / f"{i:05d}-{path.name}")
    return len(sources)


def _timed(command: list[str], env: dict[str, str]) -> float:
    start = time.perf_counter()
    subprocess.run(command, env=env, check=True, stdout=subprocess.DEVNULL)
    return time.perf_counter() - start


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as work_dir:
        work = Path(work_dir)
        subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w",
                        str(work / "dist"), str(ROOT)], check=True)
        wheel = next((work / "dist").glob("*.whl"))
        print(f"wheel {wheel.name}")
        venv = work / "venv"
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
        python = venv / "bin" / "python"
        subprocess.run([str(python), "-m", "pip", "install", "-q", str(wheel)], check=True)
        site = Path(subprocess.run(
            [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
            capture_output=True, text=True, check=True).stdout.strip())
        sizes: dict[str, int] = {}
        for entry in site.iterdir():
            if entry.name.startswith(SKIP) or entry.name.endswith(".dist-info"):
                continue
            name = entry.name.split(".")[0].split("-")[0]
            sizes[name] = sizes.get(name, 0) + _size(entry)
        print(f"installed_size_mb {sum(sizes.values()) / 1e6:.1f} MB")
        for name, size in sorted(sizes.items(), key=lambda item: -item[1])[:6]:
            print(f"installed_size_{name}_mb {size / 1e6:.1f} MB")
        command = str(venv / "bin" / "ditto-tui")
        env = {k: v for k, v in os.environ.items() if not k.startswith("DITTO_TUI_")}
        version = subprocess.run([command, "version"], capture_output=True, text=True,
                                 env=env, check=True).stdout.strip()
        print(f"engine {version.rsplit('engine=', 1)[-1]}")
        corpus = work / "licenses"
        corpus.mkdir()
        count = license_texts(corpus)
        print(f"licenses_docs {count} docs")
        print(f"licenses_size {_size(corpus) / 1e6:.1f} MB")
        firsts, seconds = [], []
        for run in range(args.runs):
            cache = work / f"cache-{run}"
            cache.mkdir()
            run_env = {**env, "XDG_CACHE_HOME": str(cache)}
            fingerprint = [command, "fingerprint", "--no-cache", str(corpus)]
            firsts.append(_timed(fingerprint, run_env))
            seconds.append(_timed(fingerprint, run_env))
        first, second = statistics.median(firsts), statistics.median(seconds)
        print(f"first_run_licenses_s {first:.3f} s")
        print(f"second_run_licenses_s {second:.3f} s")
        print(f"first_run_licenses_ratio {statistics.median(a / b for a, b in zip(firsts, seconds, strict=True)):.2f}")
        imports = []
        for _ in range(max(args.runs, 5)):
            done = subprocess.run(
                [str(python), "-c", "import time, numpy; t = time.perf_counter(); "
                 "import ditto_tui.core.fingerprint._compiled; print(time.perf_counter() - t)"],
                capture_output=True, text=True, env=env, check=True)
            imports.append(float(done.stdout))
        print(f"engine_import_ms {statistics.median(imports) * 1e3:.2f} ms")
        one = next(iter(sorted(corpus.iterdir())))
        times = [_timed([command, "fingerprint", "--no-cache", str(one)], env)
                 for _ in range(max(args.runs, 5))]
        print(f"fingerprint_cli_one_file_s {statistics.median(times):.3f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
