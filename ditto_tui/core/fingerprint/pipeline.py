"""The fingerprint pipelines a corpus can be scanned with, behind one small protocol."""

from __future__ import annotations

import operator
from typing import Protocol, runtime_checkable

from ditto_tui.core.fingerprint.featurize import Featurizer
from ditto_tui.core.fingerprint.simhash import Fingerprint

__all__ = [
    "MAX_CHAR",
    "MAX_SHINGLE",
    "MAX_WORD",
    "PIPELINE_NAMES",
    "Pipeline",
    "check_ditto_parameters",
    "check_html_parameters",
    "make_pipeline",
]

PIPELINE_NAMES = ("ditto", "html")
#: The largest shingle lengths (the compiled engine's limits, the same for numpy).
MAX_CHAR = 4096
MAX_WORD = 1 << 20
MAX_SHINGLE = 4096


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

    Raises ValueError for any other name. The parameters are taken as Go takes them
    (stored settings are rebuilt with it); what a user types is checked first with
    :func:`check_ditto_parameters` / :func:`check_html_parameters`.
    """
    if name == "ditto":
        return Featurizer(char_n=char_n, word_n=word_n)
    if name == "html":
        from ditto_tui.core.html.structure import HtmlStructure

        return HtmlStructure(shingle=shingle)
    raise ValueError(f"unknown pipeline {name!r} (expected one of {', '.join(PIPELINE_NAMES)})")


def pipeline_choices(pipeline: Pipeline) -> dict[str, Pipeline]:
    """The pipelines the explorer toggles between, by name: ditto and html.

    ``pipeline`` (the one the user started with) is kept as it is; the other one takes its
    parameters from it when it has them (the ditto pipeline's ``char_n``/``word_n``, the
    html one's ``shingle``) and the defaults otherwise. Empty when ``pipeline`` is none of
    the known kinds."""
    from ditto_tui.core.html.structure import HtmlStructure

    if pipeline.name not in PIPELINE_NAMES:
        return {}
    ditto = pipeline if isinstance(pipeline, Featurizer) else make_pipeline("ditto")
    html = pipeline if isinstance(pipeline, HtmlStructure) else make_pipeline("html")
    return {"ditto": ditto, "html": html, pipeline.name: pipeline}


# The one rule for pipeline parameters, shared by the library (``ditto_tui.ditto``,
# ``ditto_tui.html_distance``) and the command lines (``--char``, ``--word``,
# ``--shingle``). Go clamps silently (a length <= 0 disables, a shingle < 1 means 1);
# here such values are refused, since they are always a slip.


def _length(name: str, value: object, low: int, high: int, cli: bool) -> int:
    spelt = f"--{name}" if cli else name
    if isinstance(value, bool):
        raise TypeError(f"{spelt} must be an int, not bool")
    try:
        number = operator.index(value)  # type: ignore[arg-type]
    except TypeError:
        raise TypeError(f"{spelt} must be an int, not {type(value).__name__}") from None
    if not low <= number <= high:
        shown = f"{spelt} {number}" if cli else f"{name}={number}"
        what = "0 (off) to" if low == 0 else f"{low} to"
        raise ValueError(f"{shown} is out of range: it must be {what} {high}")
    return number


def check_ditto_parameters(char: object, word: object, *, cli: bool = False) -> tuple[int, int]:
    """``(char, word)`` as ints when they make a ditto/2 pipeline, else a clear error.

    Each is a shingle length from 0 (that kind of shingle off) to ``MAX_CHAR`` /
    ``MAX_WORD``, and not both 0 (no shingles at all: every fingerprint would be the hash
    of the whole text). ``TypeError`` for a non-integer, ``ValueError`` otherwise; with
    ``cli`` the messages name the flags (``--char``).
    """
    c = _length("char", char, 0, MAX_CHAR, cli)
    w = _length("word", word, 0, MAX_WORD, cli)
    if c == 0 and w == 0:
        both = "--char 0 --word 0" if cli else "char=0 and word=0"
        give = "--char or --word" if cli else "char or word"
        raise ValueError(f"{both} leaves no features to fingerprint: give {give} a length above 0")
    return c, w


def check_html_parameters(shingle: object, *, cli: bool = False) -> int:
    """``shingle`` as an int when it makes an html-distance pipeline (1 to
    ``MAX_SHINGLE`` features), else ``TypeError``/``ValueError``, as
    :func:`check_ditto_parameters`."""
    return _length("shingle", shingle, 1, MAX_SHINGLE, cli)
