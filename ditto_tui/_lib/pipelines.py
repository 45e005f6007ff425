"""Named fingerprint pipelines, one-document and many-document fingerprinting, distance."""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import overload

import numpy as np

from ditto_tui.core.featurize import PIPELINE_VERSION, Featurizer
from ditto_tui.core.html_structure import HTML_PIPELINE_VERSION, HtmlStructure
from ditto_tui.core.simhash import Fingerprint, popcount64
from ditto_tui.core.simhash import distance as _distance

__all__ = [
    "Document",
    "Pipeline",
    "PipelineMismatchError",
    "distance",
    "ditto",
    "fingerprint",
    "fingerprint_many",
    "html_distance",
    "pipeline",
    "similarity",
]

#: What a document may be: its raw bytes, or text (encoded to UTF-8 first).
Document = str | bytes | bytearray | memoryview

_DITTO_ID = re.compile(rf"{re.escape(PIPELINE_VERSION)};char=(\d+);word=(\d+)")
_HTML_ID = re.compile(rf"{re.escape(HTML_PIPELINE_VERSION)};shingle=(\d+)")


class PipelineMismatchError(ValueError):
    """Fingerprints of one pipeline met a consumer expecting another.

    Raised when an index file made with one pipeline is loaded for another, and when an
    identity string names no pipeline this version knows. ``expected`` and ``found`` are
    the two identities (``expected`` is ``None`` for an unknown identity).
    """

    def __init__(self, message: str, *, expected: str | None, found: str) -> None:
        super().__init__(message)
        self.expected = expected
        self.found = found


def _to_bytes(doc: Document) -> bytes:
    if isinstance(doc, str):
        try:
            # surrogateescape: text decoded from bytes with it gets its original bytes back
            return doc.encode("utf-8", "surrogateescape")
        except UnicodeEncodeError:
            return doc.encode("utf-8", "surrogatepass")  # other lone surrogates
    if isinstance(doc, bytes | bytearray | memoryview):
        return bytes(doc)
    raise TypeError(f"a document is str or bytes, not {type(doc).__name__}")


@dataclass(frozen=True)
class Pipeline:
    """A named fingerprint pipeline: ``ditto/2`` (text) or ``html-distance/1`` (HTML structure).

    Build one with :func:`ditto`, :func:`html_distance` or :func:`pipeline` (from an
    identity string), never with the constructor. ``identity`` names the pipeline and its
    parameters (``"ditto/2;char=4;word=0"``): store it beside every fingerprint you keep.
    Two pipelines are equal exactly when their identities are, and fingerprints are
    comparable only between equal pipelines.

    Contracts:

    * Deterministic: a fingerprint is a pure function of the document's bytes and the
      identity, bit-identical to the Go library (ditto's ``Featurizer.Of``,
      html-distance's ``Fingerprint``), on every machine and Python version.
    * Thread safety: immutable and safe to share between threads; picklable (so usable
      in process pools and Spark).
    * Complexity: linear in the document's size (the ``html`` pipeline reads at most its
      first 5000 tokens). Identical documents cost the same as different ones.
    """

    identity: str
    _engine: Featurizer | HtmlStructure = field(repr=False, compare=False)

    @property
    def name(self) -> str:
        """``"ditto"`` or ``"html"`` (the family, without parameters)."""
        return self._engine.name

    def accepts(self, name: str) -> bool:
        """Whether a file called ``name`` is a document for this pipeline when walking a
        folder: every file for ``ditto``; ``.html``/``.htm``/``.xhtml``/``.shtml`` for
        ``html`` (other files are then judged by :meth:`accepts_head`)."""
        return self._engine.accepts(name)

    def accepts_head(self, head: bytes) -> bool:
        """Whether a file refused by :meth:`accepts` is a document after all, from its
        first 1445 bytes: for ``html``, when they start like an HTML page (WHATWG MIME
        sniffing); ``ditto`` refuses no name."""
        return self._engine.accepts_head(head)

    def fingerprint(self, document: Document) -> Fingerprint:
        """The fingerprint of one document.

        ``bytes`` are taken as they are (no charset sniffing, as the Go libraries do);
        ``str`` is encoded to UTF-8 first. Raises ``TypeError`` for anything else.
        """
        return self._engine.fingerprint(_to_bytes(document))

    def fingerprint_many(self, documents: Iterable[Document] | np.ndarray) -> np.ndarray:
        """Fingerprints of many documents, in order, as a ``uint64`` numpy array.

        Accepts any iterable of ``str``/``bytes`` and numpy arrays of dtype ``object``,
        ``str_`` (``U``) or ``bytes_`` (``S``; numpy drops trailing NUL bytes from those
        elements). Element ``i`` of the result is ``fingerprint(documents[i])``. One
        process; linear in the total size. Raises ``TypeError`` on a non-document element.
        """
        if isinstance(documents, np.ndarray) and documents.ndim != 1:
            raise ValueError(f"expected a 1-D array of documents, got shape {documents.shape}")
        engine = self._engine
        return np.fromiter(
            (engine.fingerprint(_to_bytes(d)) for d in documents), dtype=np.uint64
        )

    def __reduce__(self) -> tuple[object, tuple[str]]:
        return (pipeline, (self.identity,))


def ditto(char: int = 4, word: int = 0) -> Pipeline:
    """The ``ditto/2`` text pipeline with character ``char``-grams and word ``word``-grams.

    The defaults are Go ditto's ``Default()`` (character 4-grams, no word shingles). A
    value <= 0 disables that kind of shingle (stored as 0 in the identity, e.g.
    ``"ditto/2;char=4;word=0"``). Raises ``TypeError`` for non-integers.
    """
    for label, value in (("char", char), ("word", word)):
        if isinstance(value, bool) or not isinstance(value, int):
            raise TypeError(f"{label} must be an int, not {type(value).__name__}")
    engine = Featurizer(char_n=max(char, 0), word_n=max(word, 0))
    return Pipeline(engine.identity, engine)


def html_distance(shingle: int = 3) -> Pipeline:
    """The ``html-distance/1`` structure pipeline (Go html-distance's ``Fingerprint(r, shingle)``).

    Fingerprints the tag structure of a page, not its words. ``shingle`` < 1 means 1, as
    in Go; gryffin uses 3. Identity: ``"html-distance/1;shingle=3"``.
    """
    engine = HtmlStructure(shingle=shingle)
    return Pipeline(engine.identity, engine)


def pipeline(identity: str) -> Pipeline:
    """The pipeline named by an identity string (as stored beside fingerprints).

    ``pipeline(p.identity) == p`` for every pipeline ``p``. Raises
    :class:`PipelineMismatchError` for an identity this version does not know (for
    example a future ``ditto/3``).
    """
    if m := _DITTO_ID.fullmatch(identity):
        return ditto(int(m[1]), int(m[2]))
    if m := _HTML_ID.fullmatch(identity):
        return html_distance(int(m[1]))
    raise PipelineMismatchError(
        f"unknown pipeline identity {identity!r}: this version knows "
        f"'{PIPELINE_VERSION};char=C;word=W' and '{HTML_PIPELINE_VERSION};shingle=S'",
        expected=None,
        found=identity,
    )


_DEFAULT = ditto()


def fingerprint(document: Document, pipeline: Pipeline | None = None) -> Fingerprint:
    """Fingerprint one document with ``pipeline`` (default: ``ditto()``).

    Shortcut for ``pipeline.fingerprint(document)``; see :meth:`Pipeline.fingerprint`.
    """
    return (pipeline or _DEFAULT).fingerprint(document)


def fingerprint_many(
    documents: Iterable[Document] | np.ndarray, pipeline: Pipeline | None = None
) -> np.ndarray:
    """Fingerprints of many documents as a ``uint64`` array (default pipeline: ``ditto()``).

    Shortcut for ``pipeline.fingerprint_many(documents)``; see :meth:`Pipeline.fingerprint_many`.
    """
    return (pipeline or _DEFAULT).fingerprint_many(documents)


@overload
def distance(a: int, b: int) -> int: ...
@overload
def distance(a: np.ndarray, b: int | np.ndarray) -> np.ndarray: ...
@overload
def distance(a: int, b: np.ndarray) -> np.ndarray: ...
def distance(a: int | np.ndarray, b: int | np.ndarray) -> int | np.ndarray:
    """Hamming distance between fingerprints: the number of differing bits, 0..64.

    With two ints (or :class:`Fingerprint` s) returns an ``int``. With a ``uint64`` array
    on either side returns an array of distances (numpy broadcasting), for example the
    distance of one fingerprint to many. Symmetric; ``distance(a, a) == 0``.
    """
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        return popcount64(np.asarray(a, dtype=np.uint64) ^ np.asarray(b, dtype=np.uint64))
    return _distance(a, b)


def similarity(a: int, b: int) -> float:
    """``1 - distance(a, b) / 64``, as html-distance defines it: 1.0 for identical
    fingerprints, 0.0 for complements (``distance 2`` gives 0.96875, shown as 96.88%)."""
    return 1.0 - _distance(a, b) / 64
