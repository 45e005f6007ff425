"""Fingerprint a corpus on Spark: ``binaryFile`` in, Parquet ``fingerprints``/``skipped`` out.

Documents are read with Spark's ``binaryFile`` source (recursive, optional
``pathGlobFilter``) and fingerprinted inside Spark by ditto-tui's own pipeline, one Arrow
batch at a time (``mapInArrow``), so a fingerprint is bit-identical to the in-process
one. The skip rules are the in-process walker's, in the same order: ignore rules (the
defaults, ``--ignore`` patterns and the root's ``.dittoignore``: left out silently), names
the pipeline does not accept ("not accepted by the html pipeline"), files over the size
limit (``corpus.reading.too_large``, decided from the listing so their bytes
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
from ditto_tui.corpus.reading import too_large
from ditto_tui.scale.layout import (
    FAMILIES,
    FINGERPRINTS,
    GROUPS,
    PAIRS,
    PAIRS_FP,
    SKIPPED,
    join_uri,
    meta_name,
    write_meta,
)

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
#: ``spark.sql.files.openCostInBytes`` for the fingerprint job. Spark's 4 MiB default
#: packs corpora of small files into far too many tiny tasks (10x slower here).
OPEN_COST = 64 * 1024
BINARY_REASON = "binary file"
HTML_GLOB = "*.{[hH][tT][mM],[hH][tT][mM][lL],[xX][hH][tT][mM][lL]}"
DOC_SCHEMA = (
    "id string, fp long, hex string, size long, offset long, kind string, "
    "pipeline string, reason string"
)
_IGNORED = "\0ignored"
#: Tables computed from the fingerprints: stale once the fingerprints are rewritten.
DOWNSTREAM = (GROUPS, PAIRS_FP, PAIRS, FAMILIES, meta_name("pairs"), meta_name("families"))


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
            return too_large(length, self.max_size)
        return None


def _relative(path: str, prefix: str) -> str | None:
    """Root-relative id of a ``path`` column value, None outside the root."""
    return path[len(prefix) :] if path.startswith(prefix) else None


def _names(
    batches: Iterator[pa.RecordBatch], rules: tuple[Any, ...]
) -> Iterator[pa.RecordBatch]:
    """mapInArrow body over (id, length): the skips decided from names and sizes alone,
    and the documents of empty files (Spark never reads a file of length 0)."""
    judge = _Rules(*rules)
    identity = judge.pipeline.identity
    empty_fp: int | None = None
    for batch in batches:
        rows: list[tuple[str, int, int, int, str, str | None]] = []
        skips: list[tuple[str, str]] = []
        for rel, length in zip(
            batch.column(0).to_pylist(), batch.column(1).to_pylist(), strict=True
        ):
            reason = judge.verdict(rel, length)
            if reason == _IGNORED:
                continue
            if reason is not None:
                skips.append((rel, reason))
            elif length == 0:
                if empty_fp is None:
                    empty_fp = int(judge.pipeline.fingerprint(b""))
                rows.append((rel, empty_fp, 0, 0, _kind(rel), None))
        yield _doc_batch(rows, skips, identity)


def _kind(rel: str) -> str:
    from ditto_tui.corpus.walk import HTML_SUFFIXES

    return "html" if rel.rpartition("/")[2].lower().endswith(HTML_SUFFIXES) else "text"


def _documents(
    batches: Iterator[pa.RecordBatch],
    prefix: str,
    rules: tuple[Any, ...],
    include_binary: bool,
) -> Iterator[pa.RecordBatch]:
    """mapInArrow body over (path, length, content): one row per document or binary skip."""
    from ditto_tui.corpus.mail import looks_like_mbox, split_mbox
    from ditto_tui.corpus.reading import is_binary

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
            kind = _kind(rel)
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


def _listed_ids(spark: SparkSession, base: DataFrame, root_uri: str) -> DataFrame:
    """Every file of the listing as ``id`` -- including empty files, which Spark's scan
    drops -- from the driver's file index (``inputFiles``: URIs, percent-encoded). The
    driver holds this list once, as Spark's file index already does."""
    from urllib.parse import unquote, urlsplit

    import pandas as pd

    root_path = urlsplit(root_uri).path.rstrip("/") + "/"
    ids = []
    for uri in base.inputFiles():
        path = unquote(urlsplit(uri).path)
        if path.startswith(root_path):
            ids.append(path[len(root_path) :])
    return spark.createDataFrame(pd.DataFrame({"id": pd.Series(ids, dtype=object)}), "id string")


def fingerprint_frames(
    spark: SparkSession,
    root: str,
    spec: PipelineSpec = PipelineSpec(),
    options: ScanOptions = DEFAULT_OPTIONS,
    *,
    glob: str | None = None,
    batch_rows: int = BATCH_ROWS,
    open_cost: int | None = OPEN_COST,
) -> DataFrame:
    """A lazy DataFrame of :data:`DOC_SCHEMA` rows for the folder ``root`` (path or URI):
    one per document (``reason`` null) and one per skipped file (``reason`` set).

    Names and sizes are judged from the listing (bytes of too-large or refused files are
    never read); the html pipeline without ``glob`` reads only html names' bytes. Sets the
    session's Arrow batch size and, unless ``open_cost`` is None, its file open cost.
    """
    import pyspark.sql.functions as F

    from ditto_tui.scale.session import qualified_uri

    root_uri = qualified_uri(spark, root)
    prefix = root_uri + "/"
    rules = (ignore_patterns(spark, root_uri, options.ignore), spec, options.max_size)
    spark.conf.set("spark.sql.execution.arrow.maxRecordsPerBatch", str(batch_rows))
    spark.conf.set("spark.sql.execution.arrow.useLargeVarTypes", "true")
    if open_cost is not None:
        spark.conf.set("spark.sql.files.openCostInBytes", str(open_cost))

    base = _reader(spark, root_uri, glob)
    sized = base.where(F.col("path").startswith(prefix)).select(
        F.expr(f"substring(path, {len(prefix) + 1})").alias("id"), "length"
    )
    names = (
        _listed_ids(spark, base, root_uri)
        .join(sized, "id", "left")
        .select("id", F.coalesce("length", F.lit(0)).cast("long").alias("length"))
        .mapInArrow(lambda it: _names(it, rules), DOC_SCHEMA)
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
    return names.unionByName(documents)


def fingerprint_corpus(
    spark: SparkSession,
    root: str,
    out: str,
    spec: PipelineSpec = PipelineSpec(),
    options: ScanOptions = DEFAULT_OPTIONS,
    *,
    glob: str | None = None,
    batch_rows: int = BATCH_ROWS,
    open_cost: int | None = OPEN_COST,
) -> FingerprintSummary:
    """Fingerprint every document under ``root`` and write ``out/fingerprints``,
    ``out/skipped`` and ``out/meta-fingerprint`` (overwriting them).

    Tables of later stages left in ``out`` by an earlier run (groups, pairs, families)
    are deleted, since they no longer match. ``glob``, ``batch_rows`` and ``open_cost``
    are as for :func:`fingerprint_frames`.
    Raises the Spark error when ``root`` does not exist or cannot be listed.
    """
    from pyspark import StorageLevel

    from ditto_tui.scale.session import delete_path

    started = time.perf_counter()
    for stale in DOWNSTREAM:
        delete_path(spark, join_uri(out, stale))
    rows = fingerprint_frames(
        spark, root, spec, options, glob=glob, batch_rows=batch_rows, open_cost=open_cost
    )
    rows = rows.persist(StorageLevel.MEMORY_AND_DISK)
    try:
        rows.where("reason is null").drop("reason").write.mode("overwrite").parquet(
            join_uri(out, FINGERPRINTS)
        )
        rows.where("reason is not null").select("id", "reason").write.mode(
            "overwrite"
        ).parquet(join_uri(out, SKIPPED))
    finally:
        rows.unpersist()
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
