"""MkDocs hook: publish files that live elsewhere in the repository, without copies.

The screenshots stay in ``assets/`` (the README shows them too) and the pipeline data
tables stay in ``ditto_tui/core/fingerprint/data/`` (the code reads them); the guide links to them as
``assets/<name>`` and ``spec/<name>``.
"""

from __future__ import annotations

from pathlib import Path

from mkdocs.structure.files import File, Files

ROOT = Path(__file__).resolve().parent.parent
EXTRA = {
    "assets": (ROOT / "assets", ("main-screen.png", "compare-screen.png", "serve.png")),
    "spec": (
        ROOT / "ditto_tui" / "core" / "fingerprint" / "data",
        ("ditto2-lowercase.tsv", "ditto2-whitespace.txt", "html-distance-atoms.txt"),
    ),
}


def on_files(files: Files, config) -> Files:  # type: ignore[no-untyped-def]
    for dest, (folder, names) in EXTRA.items():
        for name in names:
            files.append(
                File.generated(config, f"{dest}/{name}", abs_src_path=str(folder / name))
            )
    return files
