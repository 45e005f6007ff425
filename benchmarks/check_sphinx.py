"""Development check: ditto-tui's CLI against the Go ditto CLI on a real folder (sphinx 8.1.3).

Downloads the sphinx 8.1.3 source distribution from PyPI (needs network; not part of the
test suite), runs ``ditto-tui fingerprint`` and ``ditto-tui cluster -k 3`` inside it and
compares with the Go CLI's output kept in ``tests/data/sphinx-8.1.3/``. Prints one figure
a line as ``name value unit``.

    python benchmarks/check_sphinx.py
"""

from __future__ import annotations

import hashlib
import subprocess
import sys
import tarfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
WORK = HERE / "_work"
EXPECTED = HERE.parent / "tests" / "data" / "sphinx-8.1.3"
SHA256 = "43c1911eecb0d3e161ad78611bc905d1ad0e523e4ddc202a58a821773dc4c927"
CASES = [
    ("ditto-fp.tsv", []),
    ("ditto-fp-char0-word3.tsv", ["-char", "0", "-word", "3"]),
    ("ditto-fp-char5-word2.tsv", ["-char", "5", "-word", "2"]),
]


def sphinx_folder() -> Path:
    """The extracted sdist, downloaded once into benchmarks/_work/."""
    folder = WORK / "sphinx-8.1.3"
    if folder.is_dir():
        return folder
    WORK.mkdir(exist_ok=True)
    archive = WORK / "sphinx-8.1.3.tar.gz"
    if not archive.exists():
        subprocess.run([sys.executable, "-m", "pip", "download", "--quiet", "--no-deps",
                        "--no-binary", ":all:", "sphinx==8.1.3", "-d", str(WORK)], check=True)
    if hashlib.sha256(archive.read_bytes()).hexdigest() != SHA256:
        raise SystemExit(f"{archive}: unexpected sha256")
    with tarfile.open(archive) as tar:
        tar.extractall(WORK, filter="data")
    return folder


def ditto_tui(folder: Path, *argv: str) -> tuple[str, float]:
    start = time.perf_counter()
    proc = subprocess.run([sys.executable, "-m", "ditto_tui", *argv], cwd=folder,
                          capture_output=True, check=True)
    return proc.stdout.decode("utf-8", "surrogateescape"), time.perf_counter() - start


def main() -> int:
    folder = sphinx_folder()
    failures = 0
    for name, flags in CASES:
        expected = dict(line.split("\t")[::-1] for line in (EXPECTED / name).read_text().splitlines())
        out, seconds = ditto_tui(folder, "fingerprint", "--no-cache", *flags, ".")
        got = dict(line.split("\t")[::-1] for line in out.splitlines())
        wrong = [i for i, fp in got.items() if expected.get(i) != fp]
        failures += len(wrong)
        print(f"sphinx_{name.removesuffix('.tsv').replace('-', '_')}_printed {len(got)} docs")
        print(f"sphinx_{name.removesuffix('.tsv').replace('-', '_')}_mismatches {len(wrong)} docs")
        print(f"sphinx_{name.removesuffix('.tsv').replace('-', '_')}_seconds {seconds:.2f} s")
        for i in wrong[:5]:
            print(f"#   mismatch {i}: got {got[i]} want {expected.get(i)}", file=sys.stderr)
    out, seconds = ditto_tui(folder, "fingerprint", "--no-cache", "--include-binary", ".")
    same = out == (EXPECTED / "ditto-fp.tsv").read_text()
    failures += not same
    print(f"sphinx_fp_include_binary_identical {int(same)} bool")
    out, seconds = ditto_tui(folder, "cluster", "-k", "3", "--include-binary", "--no-cache", ".")
    same = out == (EXPECTED / "ditto-cluster-k3.txt").read_text()
    failures += not same
    print(f"sphinx_cluster_k3_identical {int(same)} bool")
    print(f"sphinx_cluster_k3_seconds {seconds:.2f} s")
    return 1 if failures else 0


if __name__ == "__main__":
    raise SystemExit(main())
