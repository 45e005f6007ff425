"""Named fingerprint pipelines, one-document and many-document fingerprinting, distance."""

from __future__ import annotations

import operator
import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, overload

import numpy as np

from ditto_tui.core.fingerprint import engine as _engines
from ditto_tui.core.fingerprint.featurize import PIPELINE_VERSION, Featurizer
from ditto_tui.core.fingerprint.pipeline import check_ditto_parameters, check_html_parameters
from ditto_tui.core.fingerprint.simhash import (
    Fingerprint,
    as_fingerprint,
    as_fingerprint_array,
    popcount64,
)
from ditto_tui.core.html.structure import HTML_PIPELINE_VERSION, HtmlStructure

if TYPE_CHECKING:
    from concurrent.futures import Future

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

# fingerprint_many encodes the documents in runs of about this many bytes in the
# calling thread while worker threads fingerprint the run before (at most two runs are
# held beyond the caller's documents) ...
_BATCH_BYTES = 16 << 20
# ... cut between threads with at least this much work each (below, a thread costs more
# than it saves); a document counts its bytes plus _DOC_COST for its call
_THREAD_BYTES = 256 << 10
_DOC_COST = 256
# ditto: in each thread, documents shorter than this are packed into one buffer for one
# call of the compiled engine's batch entry; longer ones are fingerprinted where they
# are, one call each. Measured on two cores (bytes, threads): packing below 512 bytes,
# 4, 16 or 64 KB, or everything, runs 1 KB documents in 72/49/48/48/49 ms, 20 KB ones
# in 54/54/54/71/68 ms and 7,054 real text files (275 MB) in 170/165/166/168/182 ms:
# short documents are dominated by the call and its GIL hand-over, long ones by the copy.
_PACK_BELOW = 16 << 10


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
    if type(doc) is bytes:
        return doc
    if isinstance(doc, str):
        try:
            # surrogateescape: text decoded from bytes with it gets its original bytes back
            return doc.encode("utf-8", "surrogateescape")
        except UnicodeEncodeError:
            return doc.encode("utf-8", "surrogatepass")  # other lone surrogates
    if isinstance(doc, bytes | bytearray | memoryview):
        return bytes(doc)
    raise TypeError(f"a document is str or bytes, not {type(doc).__name__}")


def _encoded(documents: Iterable[Document]) -> Iterator[bytes]:
    """Each document's bytes; ``TypeError`` naming the position of a non-document."""
    for position, doc in enumerate(documents):
        try:
            data = _to_bytes(doc)
        except TypeError as exc:
            raise TypeError(f"documents[{position}]: {exc}") from None
        yield data


def _batches(documents: Iterable[Document]) -> Iterator[list[bytes]]:
    """The documents' bytes in runs of about ``_BATCH_BYTES`` (at least one document)."""
    run: list[bytes] = []
    size = 0
    for data in _encoded(documents):
        run.append(data)
        size += len(data)
        if size >= _BATCH_BYTES:
            yield run
            run, size = [], 0
    if run:
        yield run


def _check_threads(threads: int | None) -> int | None:
    if threads is None:
        return None
    if isinstance(threads, bool):
        raise TypeError("threads must be an int or None, not bool")
    try:
        value = operator.index(threads)
    except TypeError:
        raise TypeError(f"threads must be an int or None, not {type(threads).__name__}") from None
    if value < 1:
        raise ValueError(f"threads must be at least 1 (None: one per CPU), got {value}")
    return value


def _cuts(sizes: np.ndarray, threads: int) -> list[int]:
    """Where to cut a run of documents of ``sizes`` bytes between ``threads`` threads:
    contiguous groups of about equal work, fewer when there is little."""
    work = np.cumsum(sizes + _DOC_COST)
    total = int(work[-1]) if len(work) else 0
    n = max(1, min(threads, len(sizes), total // _THREAD_BYTES))
    inner = np.searchsorted(work, total * np.arange(1, n) / n).tolist() if n > 1 else []
    return [0, *inner, len(sizes)]


#: ``make(run, sizes, out)`` gives the function that fingerprints ``run[lo:hi]`` into
#: ``out[lo:hi]`` (one thread's share of a run)
_Share = Callable[[int, int], None]


def _drive(
    documents: Iterable[Document],
    make: Callable[[list[bytes], np.ndarray, np.ndarray], _Share],
    threads: int | None,
) -> np.ndarray:
    """Fingerprints of every document: runs are encoded in this thread while the run
    before is fingerprinted by worker threads (the engine releases the GIL), each
    taking a contiguous share. No thread for a batch too small to pay for one."""
    if threads is None:
        from ditto_tui.corpus.scan import default_jobs

        threads = default_jobs()
    parts: list[np.ndarray] = []
    pool = None
    in_flight: list[Future[None]] = []
    try:
        for run in _batches(documents):
            sizes = np.fromiter(map(len, run), np.int64, len(run))
            out = np.empty(len(run), np.uint64)
            share = make(run, sizes, out)
            cuts = _cuts(sizes, threads)
            last = int(sizes.sum()) < _BATCH_BYTES  # (only the last run is short)
            if threads == 1 or (last and len(cuts) == 2):  # one share: no thread for it
                share(0, len(run))
            else:
                if pool is None:
                    from concurrent.futures import ThreadPoolExecutor

                    pool = ThreadPoolExecutor(max_workers=threads)
                for future in in_flight:  # the run before: done before the next starts
                    future.result()
                in_flight = [
                    pool.submit(share, lo, hi) for lo, hi in zip(cuts, cuts[1:], strict=False)
                ]
            parts.append(out)
        for future in in_flight:
            future.result()
    finally:
        if pool is not None:
            pool.shutdown(wait=True, cancel_futures=True)
    return np.concatenate(parts) if parts else np.empty(0, np.uint64)


def _many_ditto(
    engine: Featurizer, documents: Iterable[Document], threads: int | None
) -> np.ndarray:
    """ditto/2 fingerprints with the compiled engine: each thread packs its short
    documents into one buffer for one call and fingerprints the others where they are."""
    compiled = _engines.ditto()
    if compiled is None:  # the numpy engine: one document at a time
        return np.fromiter(map(engine.fingerprint, _encoded(documents)), np.uint64)
    char_n, word_n = engine.char_n, engine.word_n

    def make(run: list[bytes], sizes: np.ndarray, out: np.ndarray) -> _Share:
        def share(lo: int, hi: int) -> None:
            short = sizes[lo:hi] < _PACK_BELOW
            packed = np.flatnonzero(short) + lo
            if len(packed):
                size = sizes[packed]
                data = b"".join([run[i] for i in packed.tolist()])
                out[packed] = compiled.fingerprint_array(
                    data, np.cumsum(size) - size, size, char_n, word_n
                )
            for i in (np.flatnonzero(~short) + lo).tolist():
                out[i] = compiled.fingerprint(run[i], char_n, word_n)

        return share

    return _drive(documents, make, threads)


def _many_each(
    fingerprint: Callable[[bytes], int], documents: Iterable[Document], threads: int | None
) -> np.ndarray:
    """One call of ``fingerprint`` a document (html: the compiled engine has no batch
    entry), in threads when the compiled engine computes (it releases the GIL)."""

    def make(run: list[bytes], sizes: np.ndarray, out: np.ndarray) -> _Share:
        def share(lo: int, hi: int) -> None:
            out[lo:hi] = np.fromiter(map(fingerprint, run[lo:hi]), np.uint64, hi - lo)

        return share

    return _drive(documents, make, threads if _engines.html() is not None else 1)


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

    def fingerprint_many(
        self, documents: Iterable[Document] | np.ndarray, *, threads: int | None = None
    ) -> np.ndarray:
        """Fingerprints of many documents, in order, as a ``uint64`` numpy array.

        Accepts a list (or any iterable) of ``str``/``bytes`` and numpy arrays of dtype
        ``object``, ``str_`` (``U``) or ``bytes_`` (``S``; numpy drops trailing NUL bytes
        from those elements). Element ``i`` of the result is ``fingerprint(documents[i])``.
        A single ``str`` or ``bytes`` is refused with ``TypeError`` (it would be taken as
        one document per character): pass ``[document]``, or call :meth:`fingerprint`.
        A non-document element raises ``TypeError`` naming its position.

        Speed: with the compiled engine (which releases the GIL) the documents are cut
        between ``threads`` threads (``None``, the default: one per CPU this process may
        use, fewer for small batches; ``1``: the calling thread only), in runs of 16 MB
        encoded by the calling thread while the run before is fingerprinted. In each
        thread ``ditto`` packs the short documents (under 16 KB) into one buffer for a
        single call of the engine's batch entry, and fingerprints longer ones where they
        are (copying them would cost more than a call); ``html`` calls the engine once a
        page. Linear in the total size; extra memory: two runs' encoded text at most.
        """
        if isinstance(documents, str | bytes | bytearray | memoryview):
            raise TypeError(
                "fingerprint_many takes many documents (a list, an iterable, an array), "
                f"not one {type(documents).__name__}: pass [document], or use fingerprint()"
            )
        if isinstance(documents, np.ndarray) and documents.ndim != 1:
            raise ValueError(f"expected a 1-D array of documents, got shape {documents.shape}")
        count = _check_threads(threads)
        engine = self._engine
        if isinstance(engine, Featurizer):
            return _many_ditto(engine, documents, count)
        return _many_each(engine.fingerprint, documents, count)

    def __reduce__(self) -> tuple[object, tuple[str]]:
        return (pipeline, (self.identity,))


def ditto(char: int = 4, word: int = 0) -> Pipeline:
    """The ``ditto/2`` text pipeline with character ``char``-grams and word ``word``-grams.

    The defaults are Go ditto's ``Default()`` (character 4-grams, no word shingles).
    ``0`` turns that kind of shingle off (identity ``"ditto/2;char=0;word=3"``); at
    least one of the two must be above 0, and they go up to 4096 characters and 2**20
    words. Go clamps a negative length to 0 silently; here it raises ``ValueError``, as
    do ``char=0, word=0`` and a length above its limit (the command line's ``--char``
    and ``--word`` follow the same rule). ``TypeError`` for a non-integer.
    """
    char, word = check_ditto_parameters(char, word)
    engine = Featurizer(char_n=char, word_n=word)
    return Pipeline(engine.identity, engine)


def html_distance(shingle: int = 3) -> Pipeline:
    """The ``html-distance/1`` structure pipeline (Go html-distance's ``Fingerprint(r, shingle)``).

    Fingerprints the tag structure of a page, not its words. ``shingle`` is 1 to 4096
    features (gryffin uses 3). Go takes a value below 1 as 1 silently; here it raises
    ``ValueError`` (as ``--shingle`` does on the command line), ``TypeError`` for a
    non-integer. Identity: ``"html-distance/1;shingle=3"``.
    """
    engine = HtmlStructure(shingle=check_html_parameters(shingle))
    return Pipeline(engine.identity, engine)


def pipeline(identity: str) -> Pipeline:
    """The pipeline named by an identity string (as stored beside fingerprints).

    ``pipeline(p.identity) == p`` for every pipeline ``p``. Raises
    :class:`PipelineMismatchError` for an identity this version does not know (for
    example a future ``ditto/3``) or whose parameters :func:`ditto` or
    :func:`html_distance` refuse (``"ditto/2;char=0;word=0"``).
    """
    try:
        if m := _DITTO_ID.fullmatch(identity):
            return ditto(int(m[1]), int(m[2]))
        if m := _HTML_ID.fullmatch(identity):
            return html_distance(int(m[1]))
    except ValueError as exc:
        raise PipelineMismatchError(
            f"unsupported pipeline identity {identity!r}: {exc}", expected=None, found=identity
        ) from None
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
    documents: Iterable[Document] | np.ndarray,
    pipeline: Pipeline | None = None,
    *,
    threads: int | None = None,
) -> np.ndarray:
    """Fingerprints of many documents as a ``uint64`` array (default pipeline: ``ditto()``).

    Shortcut for ``pipeline.fingerprint_many(documents, threads=threads)``; see
    :meth:`Pipeline.fingerprint_many`.
    """
    return (pipeline or _DEFAULT).fingerprint_many(documents, threads=threads)


#: One fingerprint as the public functions take it: an int in ``[0, 2**64)`` (a
#: :class:`Fingerprint`, a numpy integer) or 16 hex digits as printed.
FingerprintLike = int | str | np.integer


@overload
def distance(a: FingerprintLike, b: FingerprintLike) -> int: ...
@overload
def distance(a: np.ndarray, b: FingerprintLike | np.ndarray) -> np.ndarray: ...
@overload
def distance(a: FingerprintLike, b: np.ndarray) -> np.ndarray: ...
def distance(a: FingerprintLike | np.ndarray, b: FingerprintLike | np.ndarray) -> int | np.ndarray:
    """Hamming distance between fingerprints: the number of differing bits, 0..64.

    With two fingerprints returns an ``int``. A fingerprint is an int in ``[0, 2**64)``
    (a :class:`Fingerprint`, a numpy integer) or a string of 16 hex digits as printed
    (``"00000000000000ff"``; ``Fingerprint.from_hex`` parses other spellings). With a
    numpy array on either side returns an array of distances (numpy broadcasting), for
    example the distance of one fingerprint to many. Symmetric; ``distance(a, a) == 0``.

    Values are checked, never wrapped: ``ValueError`` for an int outside
    ``[0, 2**64)`` (``-1``, ``2**64``) or another string, ``TypeError`` for another
    type (``float``, ``bool``, ``bytes``; a list: make it an array).
    """
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        return popcount64(np.bitwise_xor(_operand(a, "a"), _operand(b, "b")))
    return (as_fingerprint(a, "a") ^ as_fingerprint(b, "b")).bit_count()


def _operand(value: FingerprintLike | np.ndarray, what: str) -> np.ndarray | np.uint64:
    if isinstance(value, np.ndarray):
        return as_fingerprint_array(value, what)
    return np.uint64(as_fingerprint(value, what))


@overload
def similarity(a: FingerprintLike, b: FingerprintLike) -> float: ...
@overload
def similarity(a: np.ndarray, b: FingerprintLike | np.ndarray) -> np.ndarray: ...
@overload
def similarity(a: FingerprintLike, b: np.ndarray) -> np.ndarray: ...
def similarity(
    a: FingerprintLike | np.ndarray, b: FingerprintLike | np.ndarray
) -> float | np.ndarray:
    """``1 - distance(a, b) / 64``, as html-distance defines it: 1.0 for identical
    fingerprints, 0.0 for complements (``distance 2`` gives 0.96875, shown as 96.88%).
    Takes and checks what :func:`distance` takes; with an array, returns a ``float64``
    array."""
    d = distance(a, b)
    if isinstance(d, np.ndarray):
        return 1.0 - d.astype(np.float64) / 64
    return 1.0 - d / 64
