"""Fingerprint a corpus on Spark: ``binaryFile`` in, Parquet ``fingerprints``/``skipped`` out.

Documents are read with Spark's ``binaryFile`` source (recursive, optional
``pathGlobFilter``) and fingerprinted inside Spark by ditto-tui's own pipeline, one Arrow
batch at a time (``mapInArrow``), so a fingerprint is bit-identical to the in-process
one. The skip rules are the in-process walker's, in the same order: ignore rules (the
defaults, ``--ignore`` patterns and the root's ``.dittoignore``: left out silently), names
the pipeline does not accept ("not accepted by the html pipeline"), files over the size
limit ("larger than the size limit (N bytes)", decided from the listing so their bytes
are never read), binary files (a NUL in the first 8 KiB, "binary file") unless
``include_binary``; an mbox file becomes one document per message (``name#N``).

Where Spark cannot follow the in-process walk, the difference is stated, not hidden:

* Spark's file listing never returns names starting with ``.`` or ``_`` (Hadoop's
  hidden/metadata convention), at any depth: :func:`hidden_from_spark` says which ids
  the in-process walk would add (``__init__.py``, ``.env``, ``_config.yml``...).
* Symlinks are followed as the file system lists them; maildir folders are not
  recognised (their messages are plain documents, ``tmp/`` is read).
* Non-UTF-8 file names reach Spark already decoded by the JVM.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Any

from ditto_tui.corpus.documents import DEFAULT_OPTIONS, ScanOptions
from ditto_tui.corpus.ignore import DEFAULT_IGNORES, IGNORE_FILE
from ditto_tui.scale.layout import FINGERPRINTS, SKIPPED, join_uri, write_meta

if TYPE_CHECKING:
    import pyarrow as pa
    from pyspark.sql import DataFrame, SparkSession

    from ditto_tui.core.pipeline import Pipeline

__all__ = [
    "FingerprintSummary",
    "PipelineSpec",
    "fingerprint_corpus",
    "hidden_from_spark",
]

#: Rows per Arrow batch handed to the fingerprint function (bounds executor memory:
#: at most this many documents' bytes at once, each at most ``max_size``).
BATCH_ROWS = 64
BINARY_REASON = "binary file"
HTML_GLOB = "*.{[hH][tT][mM],[hH][tT][mM][lL],[xX][hH][tT][mM][lL]}"
DOC_SCHEMA = (
    "id string, fp long, hex string, size long, offset long, kind string, "
    "pipeline string, reason string"
)
_SKIP_SCHEMA = "id string, reason string"
_IGNORED = "\0ignored"


@dataclass(frozen=True)
class PipelineSpec:
    """A picklable recipe for :func:`~ditto_tui.core.pipeline.make_pipeline` (executors
    rebuild the pipeline from it)."""

    name: str = "ditto"
    char_n: int = 4
    word_n: int = 0
    shingle: int = 3

    def build(self) -> Pipeline:
        from ditto_tui.core.pipeline import make_pipeline

        return make_pipeline(
            self.name, char_n=self.char_n, word_n=self.word_n, shingle=self.shingle
        )


@dataclass
class FingerprintSummary:
    """What a fingerprint run did: counts, the pipeline identity and the wall time."""

    root: str
    documents: int
    skipped: int
    identity: str
    seconds: float
    reasons: dict[str, int] = field(default_factory=dict)


def hidden_from_spark(rel: str) -> bool:
    """True when Spark's file listing never returns root-relative ``rel``: some component
    starts with ``.`` or ``_`` (except ``_metadata``/``_common_metadata`` prefixes and ``_``
    names holding ``=``) or ends with ``._COPYING_`` (Hadoop's ``shouldFilterOutPathName``)."""
    for part in rel.split("/"):
        exclude = (
            (part.startswith("_") and "=" not in part)
            or part.startswith(".")
            or part.endswith("._COPYING_")
        )
        if exclude and not part.startswith(("_common_metadata", "_metadata")):
            return True
    return False


class _Rules:
    """The name-level skip rules, rebuilt on each executor from picklable parts."""

    def __init__(self, patterns: tuple[str, ...], spec: PipelineSpec, max_size: int) -> None:
        from ditto_tui.corpus.ignore import IgnoreRules

        self.rules = IgnoreRules(patterns)
        self.pipeline = spec.build()
        self.max_size = max_size
        self._dirs: dict[str, bool] = {}

    def _dir_ignored(self, rel: str) -> bool:
        hit = self._dirs.get(rel)
        if hit is None:
            parent, _, _ = rel.rpartition("/")
            hit = (bool(parent) and self._dir_ignored(parent)) or self.rules.is_ignored(rel, True)
            self._dirs[rel] = hit
        return hit

    def verdict(self, rel: str, length: int) -> str | None:
        """``_IGNORED``, a skip reason, or None for a document to read (walker order)."""
        parent, _, name = rel.rpartition("/")
        if (parent and self._dir_ignored(parent)) or self.rules.is_ignored(rel):
            return _IGNORED
        if not self.pipeline.accepts(name):
            return f"not accepted by the {self.pipeline.name} pipeline"
        if length > self.max_size:
            return f"larger than the size limit ({length} bytes)"
        return None


def _relative(path: str, prefix: str) -> str | None:
    return path[len(prefix) :] if path.startswith(prefix) else None


def _listing_skips(
    batches: Iterator[pa.RecordBatch], prefix: str, rules: tuple[Any, ...]
) -> Iterator[pa.RecordBatch]:
    """mapInArrow body over (path, length): skips decided from names and sizes alone."""
    import pyarrow as pa

    judge = _Rules(*rules)
    for batch in batches:
        ids: list[str] = []
        reasons: list[str] = []
        for path, length in zip(
            batch.column(0).to_pylist(), batch.column(1).to_pylist(), strict=True
        ):
            rel = _relative(path, prefix)
            if rel is None:
                continue
            reason = judge.verdict(rel, length)
            if reason is not None and reason != _IGNORED:
                ids.append(rel)
                reasons.append(reason)
        yield pa.RecordBatch.from_arrays(
            [pa.array(ids, pa.string()), pa.array(reasons, pa.string())], names=["id", "reason"]
        )


def _documents(
    batches: Iterator[pa.RecordBatch],
    prefix: str,
    rules: tuple[Any, ...],
    include_binary: bool,
) -> Iterator[pa.RecordBatch]:
    """mapInArrow body over (path, length, content): one row per document or binary skip."""
    import pyarrow as pa

    from ditto_tui.corpus.mail import looks_like_mbox, split_mbox
    from ditto_tui.corpus.reading import is_binary
    from ditto_tui.corpus.walk import HTML_SUFFIXES

    judge = _Rules(*rules)
    pipeline = judge.pipeline
    identity = pipeline.identity
    many = getattr(pipeline, "fingerprint_many", None)
    for batch in batches:
        rows: list[tuple[str, int, int, str]] = []  # id, size, offset, kind
        datas: list[bytes] = []
        skips: list[tuple[str, str]] = []
        paths = batch.column(0).to_pylist()
        lengths = batch.column(1).to_pylist()
        contents = batch.column(2)
        for i, (path, length) in enumerate(zip(paths, lengths, strict=True)):
            rel = _relative(path, prefix)
            if rel is None or judge.verdict(rel, length) is not None:
                continue  # ignored, or reported by the listing pass
            data: bytes = contents[i].as_py()
            binary = is_binary(data)
            if binary and not include_binary:
                skips.append((rel, BINARY_REASON))
                continue
            name = rel.rpartition("/")[2]
            kind = "html" if name.lower().endswith(HTML_SUFFIXES) else "text"
            if kind == "text" and looks_like_mbox(name, data[:256]):
                for n, (off, size) in enumerate(split_mbox(data), 1):
                    rows.append((f"{rel}#{n}", size, off, "mbox"))
                    datas.append(data[off : off + size])
            else:
                rows.append((rel, len(data), 0, kind))
                datas.append(data)
        fps, failed = _fingerprint_all(pipeline, many, datas)
        out_rows = [
            (rid, fp, size, off, kind, fail)
            for (rid, size, off, kind), fp, fail in zip(rows, fps, failed, strict=True)
        ]
        yield _doc_batch(out_rows, skips, identity)


def _fingerprint_all(
    pipeline: Pipeline, many: Any, datas: list[bytes]
) -> tuple[list[int], list[str | None]]:
    """Fingerprints of ``datas`` (vectorised when the pipeline can), with a failure reason
    per document (None when fingerprinted); one bad document never fails the batch."""
    if not datas:
        return [], []
    try:
        if many is not None:
            return [int(v) for v in many(datas)], [None] * len(datas)
    except Exception:  # noqa: BLE001 - retry one by one to find the culprit
        pass
    fps: list[int] = []
    failed: list[str | None] = []
    for data in datas:
        try:
            fps.append(int(pipeline.fingerprint(data)))
            failed.append(None)
        except Exception as exc:  # noqa: BLE001 - reported as a skip
            fps.append(0)
            failed.append(f"could not fingerprint ({type(exc).__name__}: {exc})")
    return fps, failed


def _doc_batch(
    rows: list[tuple[str, int, int, int, str, str | None]],
    skips: list[tuple[str, str]],
    identity: str,
) -> pa.RecordBatch:
    import numpy as np
    import pyarrow as pa

    ids = [r[0] for r in rows] + [s[0] for s in skips]
    unsigned = np.array([r[1] for r in rows], dtype=np.uint64)
    signed = [int(v) for v in unsigned.view(np.int64)] + [0] * len(skips)
    hexes = [f"{int(v):016x}" for v in unsigned] + [""] * len(skips)
    reasons = [r[5] for r in rows] + [s[1] for s in skips]
    n = len(ids)
    return pa.RecordBatch.from_arrays(
        [
            pa.array(ids, pa.string()),
            pa.array(signed, pa.int64()),
            pa.array(hexes, pa.string()),
            pa.array([r[2] for r in rows] + [0] * len(skips), pa.int64()),
            pa.array([r[3] for r in rows] + [0] * len(skips), pa.int64()),
            pa.array([r[4] for r in rows] + [""] * len(skips), pa.string()),
            pa.array([identity] * n, pa.string()),
            pa.array(reasons, pa.string()),
        ],
        names=["id", "fp", "hex", "size", "offset", "kind", "pipeline", "reason"],
    )


def ignore_patterns(spark: SparkSession, root_uri: str, extra: tuple[str, ...]) -> tuple[str, ...]:
    """The walker's pattern list for a root: defaults, ``extra``, then the root's
    ``.dittoignore`` lines (read through Hadoop, so any file system works)."""
    from ditto_tui.scale.session import read_small_text

    lines = list(DEFAULT_IGNORES) + list(extra)
    text = read_small_text(spark, join_uri(root_uri, IGNORE_FILE))
    if text is not None:
        lines += [ln for ln in text.splitlines() if not ln.startswith("#")]
    return tuple(ln for ln in lines if ln.strip())


def _reader(spark: SparkSession, root_uri: str, glob: str | None) -> DataFrame:
    reader = spark.read.format("binaryFile").option("recursiveFileLookup", "true")
    if glob:
        reader = reader.option("pathGlobFilter", glob)
    return reader.load(root_uri)


def fingerprint_frames(
    spark: SparkSession,
    root: str,
    spec: PipelineSpec = PipelineSpec(),
    options: ScanOptions = DEFAULT_OPTIONS,
    *,
    glob: str | None = None,
    batch_rows: int = BATCH_ROWS,
) -> tuple[DataFrame, DataFrame]:
    """Lazy ``(documents, skipped)`` DataFrames for the folder ``root`` (path or URI).

    ``documents`` has :data:`DOC_SCHEMA` columns (``reason`` set only on binary and failed
    files, which belong in ``skipped``); ``skipped`` holds (id, reason) decided from the
    listing. The html pipeline without ``glob`` reads only html names' bytes.
    """
    import pyspark.sql.functions as F

    from ditto_tui.scale.session import qualified_uri

    root_uri = qualified_uri(spark, root)
    prefix = root_uri + "/"
    rules = (ignore_patterns(spark, root_uri, options.ignore), spec, options.max_size)
    spark.conf.set("spark.sql.execution.arrow.maxRecordsPerBatch", str(batch_rows))
    spark.conf.set("spark.sql.execution.arrow.useLargeVarTypes", "true")

    listing = _reader(spark, root_uri, glob).select("path", "length")
    skipped = listing.mapInArrow(
        lambda it: _listing_skips(it, prefix, rules), _SKIP_SCHEMA
    )
    content_glob = glob if glob or spec.name != "html" else HTML_GLOB
    files = (
        _reader(spark, root_uri, content_glob)
        .where(F.col("length") <= F.lit(options.max_size))
        .select("path", "length", "content")
    )
    include_binary = options.include_binary
    documents = files.mapInArrow(
        lambda it: _documents(it, prefix, rules, include_binary), DOC_SCHEMA
    )
    return documents, skipped


def fingerprint_corpus(
    spark: SparkSession,
    root: str,
    out: str,
    spec: PipelineSpec = PipelineSpec(),
    options: ScanOptions = DEFAULT_OPTIONS,
    *,
    glob: str | None = None,
    batch_rows: int = BATCH_ROWS,
) -> FingerprintSummary:
    """Fingerprint every document under ``root`` and write ``out/fingerprints``,
    ``out/skipped`` and ``out/meta-fingerprint`` (overwriting them).

    Raises the Spark error when ``root`` does not exist or cannot be listed.
    """
    from pyspark import StorageLevel

    started = time.perf_counter()
    documents, listed = fingerprint_frames(
        spark, root, spec, options, glob=glob, batch_rows=batch_rows
    )
    documents = documents.persist(StorageLevel.MEMORY_AND_DISK)
    try:
        documents.where("reason is null").drop("reason").write.mode("overwrite").parquet(
            join_uri(out, FINGERPRINTS)
        )
        late = documents.where("reason is not null").select("id", "reason")
        listed.unionByName(late).write.mode("overwrite").parquet(join_uri(out, SKIPPED))
    finally:
        documents.unpersist()
    fps = spark.read.parquet(join_uri(out, FINGERPRINTS))
    skipped = spark.read.parquet(join_uri(out, SKIPPED))
    n_docs = fps.count()
    reasons = {
        str(r["reason"]): int(r["count"]) for r in skipped.groupBy("reason").count().collect()
    }
    identity = spec.build().identity
    seconds = time.perf_counter() - started
    from ditto_tui.scale.session import qualified_uri

    summary = FingerprintSummary(
        root=qualified_uri(spark, root),
        documents=n_docs,
        skipped=sum(reasons.values()),
        identity=identity,
        seconds=seconds,
        reasons=reasons,
    )
    write_meta(
        spark,
        out,
        "fingerprint",
        {
            "root": summary.root,
            "pipeline": asdict(spec) | {"identity": identity},
            "options": {
                "max_size": options.max_size,
                "include_binary": options.include_binary,
                "ignore": list(options.ignore),
                "glob": glob,
            },
            "documents": n_docs,
            "skipped": summary.skipped,
            "reasons": reasons,
        },
    )
    return summary
