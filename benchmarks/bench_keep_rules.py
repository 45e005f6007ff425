"""Keep rules on a copy of a real tree: nothing marked farther than k from its keeper.

Builds (once, in ``benchmarks/_work/``) a folder of this machine's real license and
copyright texts (``/usr/share/doc``, ``/usr/share/common-licenses``, the licence files of
installed Python packages) plus edited copies of a third of them (a few words changed,
lines moved), fingerprints it, and runs ``ditto-tui dedupe``'s selection (the keep rule
``newest``) on every family at k=3, in chain and in star grouping. Prints one figure a line
(``name value unit``):

- ``keep_docs``, ``keep_families_<mode>``, ``keep_largest_family_<mode>`` and
  ``keep_largest_diameter_<mode>``: the corpus and its families at k;
- ``keep_planned_<mode>``: members marked for action; ``keep_planned_beyond_k_<mode>``: of
  them, how many are farther than k from their keeper (must be 0);
- ``keep_old_rule_beyond_k_<mode>``: the same count for the rule before the fix (one
  reference per family, every other member marked), for comparison;
- ``keep_split_<mode>`` / ``keep_flagged_<mode>``: families split into tight groups, and
  flagged wider than 2k;
- ``keep_select_<mode>_s``: the selection's wall time.

    python benchmarks/bench_keep_rules.py [-k 3] [--corpus DIR]
"""

from __future__ import annotations

import argparse
import random
import shutil
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from ditto_tui.core.fingerprint.pipeline import make_pipeline  # noqa: E402
from ditto_tui.core.fingerprint.simhash import popcount64  # noqa: E402
from ditto_tui.core.review.keep import DocumentTable, keepers  # noqa: E402
from ditto_tui.corpus.dedupe import select  # noqa: E402
from ditto_tui.corpus.session import CorpusSession  # noqa: E402

WORK = Path(__file__).resolve().parent / "_work"


def build_tree(folder: Path, seed: int = 5) -> None:
    """Real license texts, and edited copies of a third of them."""
    rng = random.Random(seed)
    sources: list[Path] = []
    for base in sorted({Path("/usr/share/doc"), Path("/usr/share/common-licenses"),
                        Path(sys.prefix), Path(sys.base_prefix)}):
        if base.is_dir():
            sources += [p for p in base.rglob("*") if p.is_file() and not p.is_symlink()
                        and ("licen" in p.name.lower() or p.name in ("copyright", "COPYING"))
                        and p.suffix != ".gz"]
    folder.mkdir(parents=True)
    for i, path in enumerate(sorted(sources)):
        data = path.read_bytes()
        target = folder / f"{i:05d}-{path.parent.name}-{path.name}"
        target.write_bytes(data)
        if rng.random() < 1 / 3:
            words = data.split(b" ")
            for _ in range(rng.randint(1, 4)):  # a few words changed
                if words:
                    words[rng.randrange(len(words))] = b"edited%d" % rng.randrange(1000)
            lines = b" ".join(words).split(b"\n")
            if len(lines) > 4 and rng.random() < 0.5:  # a line moved
                lines.insert(rng.randrange(len(lines)), lines.pop(rng.randrange(len(lines))))
            (folder / f"{target.name}.edited").write_bytes(b"\n".join(lines))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-k", type=int, default=3)
    parser.add_argument("--corpus", type=Path)
    args = parser.parse_args(argv)
    folder = args.corpus or WORK / "keep-rules-licenses-v1"
    if args.corpus is None and not (WORK / f"{folder.name}.complete").exists():
        shutil.rmtree(folder, ignore_errors=True)
        build_tree(folder)
        (WORK / f"{folder.name}.complete").write_text("ok")
    k = args.k
    with CorpusSession(folder, make_pipeline(), use_cache=False) as session:
        session.scan()
        documents, fingerprints = session.documents, session.fingerprints
    print(f"keep_docs {len(documents)} docs")
    for mode in ("chain", "star"):
        start = time.perf_counter()
        selection = select(documents, fingerprints, k, ["newest"], mode=mode)
        seconds = time.perf_counter() - start
        ids = selection.ids
        fps = np.fromiter((int(fingerprints[i]) for i in ids), np.uint64, len(ids))
        labels = selection.labels
        families = selection.family_count
        sizes = np.bincount(labels[labels >= 0], minlength=families) if families else np.zeros(1)
        marked = np.flatnonzero(selection.marked)
        beyond = int((popcount64(fps[marked] ^ fps[selection.keeper[marked]]) > k).sum())
        # the rule before: one reference per family (its first by the rules), all others marked
        table = DocumentTable.from_documents(ids, [documents[i].mtime_ns for i in ids],
                                             [documents[i].size for i in ids])
        first = keepers(labels, fps, table, ["newest"], 64).keeper  # k=64: one group each
        members = np.flatnonzero((labels >= 0) & (first != np.arange(len(ids))))
        old_beyond = int((popcount64(fps[members] ^ fps[first[members]]) > k).sum())
        widest = 0
        for lab in np.argsort(-sizes)[:5].tolist():  # the largest families' diameters
            group = fps[labels == lab]
            widest = max(widest, int(max(popcount64(group ^ g).max() for g in group)))
        print(f"keep_families_{mode} {families} families")
        print(f"keep_largest_family_{mode} {int(sizes.max())} docs")
        print(f"keep_largest_diameter_{mode} {widest} bits (of the 5 largest families)")
        print(f"keep_planned_{mode} {len(marked)} docs")
        print(f"keep_planned_beyond_k_{mode} {beyond} docs")
        print(f"keep_old_rule_beyond_k_{mode} {old_beyond} docs")
        print(f"keep_split_{mode} {len(selection.split)} families")
        print(f"keep_flagged_{mode} {len(selection.too_wide)} families")
        print(f"keep_select_{mode}_s {seconds:.3f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
