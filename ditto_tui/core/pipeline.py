"""The fingerprint pipelines a corpus can be scanned with, behind one small protocol."""

from __future__ import annotations

from typing import Protocol, runtime_checkable

from ditto_tui.core.featurize import Featurizer
from ditto_tui.core.simhash import Fingerprint

__all__ = ["PIPELINE_NAMES", "Pipeline", "make_pipeline"]

PIPELINE_NAMES = ("ditto", "html")


@runtime_checkable
class Pipeline(Protocol):
    """Anything that turns a document's bytes into a Fingerprint.

    ``identity`` names the pipeline and its parameters; fingerprints are comparable only
    between equal identities, so caches key on it. ``accepts`` says whether a file name
    is a document for this pipeline; for a name it refuses, ``accepts_head`` decides from
    the file's first ``html_sniff.SNIFF_BYTES`` bytes (the corpus reads them).
    Implementations are immutable and picklable.
    """

    @property
    def identity(self) -> str: ...

    @property
    def name(self) -> str: ...

    def fingerprint(self, data: bytes) -> Fingerprint: ...

    def accepts(self, name: str) -> bool: ...

    def accepts_head(self, head: bytes) -> bool: ...


def make_pipeline(name: str = "ditto", *, char_n: int = 4, word_n: int = 0, shingle: int = 3) -> Pipeline:
    """Build a pipeline by name: ``"ditto"`` (uses char_n, word_n) or ``"html"`` (uses shingle).

    Raises ValueError for any other name.
    """
    if name == "ditto":
        return Featurizer(char_n=char_n, word_n=word_n)
    if name == "html":
        from ditto_tui.core.html_structure import HtmlStructure

        return HtmlStructure(shingle=shingle)
    raise ValueError(f"unknown pipeline {name!r} (expected one of {', '.join(PIPELINE_NAMES)})")
