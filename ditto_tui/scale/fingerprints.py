"""Fingerprint a corpus on Spark: folders, Parquet/JSONL shards or a manifest in, Parquet out.

Three sources (:class:`Source`):

* ``folder``: Spark's ``binaryFile`` source (recursive, optional ``pathGlobFilter``) with
  the hidden-path filter switched off (``ignoredPathSegmentRegex`` empty, Spark >= 4.3),
  so ``__init__.py``, ``_vendor/`` and ``.env`` are documents as in the local scan. The
  skip rules are the in-process walker's (:mod:`~ditto_tui.scale.skip_rules`), in the
  same order: ignore rules (the defaults, ``--ignore`` patterns and the root's
  ``.dittoignore``: left out silently), files over the size limit (decided from the
  listing, their bytes are never read), names the pipeline does not accept (html: unless
  the first bytes look like a page, so every file's bytes are read), binary files (a NUL
  in the first 8 KiB) unless ``include_binary``; an mbox file becomes one document per
  message (``name#N``). On a local root a walk on the executors
  (:mod:`~ditto_tui.scale.local_tree`) reports what Hadoop's listing cannot show as the
  walker does: names that are not UTF-8, symlinks and second hard links (skips; Spark's
  copies of their targets are left out) and maildir ``tmp`` folders (left out).
* ``parquet`` / ``jsonl``: shards with one document per row (an ``id`` column and a
  ``text`` string or ``bytes`` binary column). Nothing is listed but the shard files.
* ``manifest``: text files with one document path per line (relative to the manifest's
  folder, or absolute / a URI); the executors read the documents with ``pyarrow.fs``.

Every document gets an integer ``doc``: its rank in code-point order of ids, so later
stages work on integers and "the smallest id" is the smallest ``doc``.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Any

from ditto_tui.corpus.documents import DEFAULT_OPTIONS, ScanOptions
from ditto_tui.corpus.ignore import DEFAULT_IGNORES, IGNORE_FILE
from ditto_tui.corpus.reading import refused_reason, too_large
from ditto_tui.scale.layout import (
    DOCS_RANK,
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
from ditto_tui.scale.local_tree import UNDECODABLE_REASON, local_tree
from ditto_tui.scale.skip_rules import IGNORED, SNIFF, SkipRules

if TYPE_CHECKING:
    import pyarrow as pa
    from pyspark.sql import DataFrame, SparkSession

    from ditto_tui.core.fingerprint.pipeline import Pipeline

__all__ = [
    "SOURCES",
    "FingerprintSummary",
    "PipelineSpec",
    "Source",
    "fingerprint_corpus",
    "fingerprint_frames",
    "rank_documents",
    "UNDECODABLE_REASON",
]

BATCH_ROWS = 64
#: ``spark.sql.files.openCostInBytes`` for the fingerprint job. Spark's 4 MiB default
#: packs corpora of small files into far too many tiny tasks (10x slower here).
OPEN_COST = 64 * 1024
BINARY_REASON = "binary file"
DOC_SCHEMA = (
    "id string, fp long, hex string, size long, offset long, kind string, "
    "pipeline string, reason string"
)
MISSING_REASON = "listed in the manifest but not found"
#: Input kinds: a folder of files, Parquet or JSON-lines shards, a manifest of paths.
SOURCES = ("folder", "parquet", "jsonl", "manifest")
#: Tables computed from the fingerprints: stale once the fingerprints are rewritten.
DOWNSTREAM = (GROUPS, PAIRS_FP, PAIRS, FAMILIES, meta_name("pairs"), meta_name("families"))


@dataclass(frozen=True)

class PipelineSpec:
    """A picklable recipe for :func:`~ditto_tui.core.fingerprint.pipeline.make_pipeline` (executors
    rebuild the pipeline from it)."""

    name: str = "ditto"
    char_n: int = 4
    word_n: int = 0
    shingle: int = 3

    def build(self) -> Pipeline:
        from ditto_tui.core.fingerprint.pipeline import make_pipeline

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

@dataclass(frozen=True)
class Source:
    """Where the documents come from: ``kind`` (one of :data:`SOURCES`) and its ``paths``
    (a folder; shard files or folders; manifest files). ``id_column`` and ``text_column``
    name the shard columns; the text column may be a string (UTF-8) or binary column."""

    kind: str
    paths: tuple[str, ...]
    id_column: str = "id"
    text_column: str = "text"

    def __post_init__(self) -> None:
        if self.kind not in SOURCES:
            raise ValueError(f"unknown input kind {self.kind!r} (one of {', '.join(SOURCES)})")
        if not self.paths:
            raise ValueError("no input paths")
        if self.kind == "folder" and len(self.paths) != 1:
            raise ValueError("a folder input is one folder")


def _relative(path: str, prefix: str) -> str | None:
    """Root-relative id of a ``path`` column value, None outside the root."""
    return path[len(prefix) :] if path.startswith(prefix) else None


def _names(
    batches: Iterator[pa.RecordBatch], rules: tuple[Any, ...]
) -> Iterator[pa.RecordBatch]:
    """mapInArrow body over (id, length): the skips decided from names and sizes alone,
    and the documents of empty files (Spark never reads a file of length 0)."""
    judge = SkipRules.of(rules)
    identity = judge.pipeline.identity
    empty_fp: int | None = None
    for batch in batches:
        rows: list[tuple[str, int, int, int, str, str | None]] = []
        skips: list[tuple[str, str]] = []
        for rel, length in zip(
            batch.column(0).to_pylist(), batch.column(1).to_pylist(), strict=True
        ):
            reason = judge.verdict(rel, length)
            if reason in (IGNORED, SNIFF):  # SNIFF: the content pass reads its first bytes
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

def _split_file(
    rel: str,
    data: bytes,
    include_binary: bool,
    rows: list[tuple[str, int, int, str]],
    datas: list[bytes],
    skips: list[tuple[str, str]],
    judge: SkipRules | None = None,
    verdict: str | None = None,
) -> None:
    """One file's documents (or its skip), appended to ``rows``/``datas``/``skips``: a
    name refused by the pipeline (``verdict`` :data:`SNIFF`) is an html page if its first
    bytes say so (``judge``'s pipeline), else a skip; an mbox file gives one document per
    message."""
    from ditto_tui.core.html.sniff import SNIFF_BYTES
    from ditto_tui.corpus.mail import looks_like_mbox, split_mbox
    from ditto_tui.corpus.reading import is_binary

    sniffed = verdict == SNIFF and judge is not None
    if sniffed and judge is not None and not judge.pipeline.accepts_head(data[:SNIFF_BYTES]):
        skips.append((rel, refused_reason(judge.pipeline.name)))
        return
    if not include_binary and is_binary(data):
        skips.append((rel, BINARY_REASON))
        return
    name = rel.rpartition("/")[2]
    kind = "html" if sniffed else _kind(rel)
    if kind == "text" and looks_like_mbox(name, data[:256]):
        for n, (off, size) in enumerate(split_mbox(data), 1):
            rows.append((f"{rel}#{n}", size, off, "mbox"))
            datas.append(data[off : off + size])
    else:
        rows.append((rel, len(data), 0, kind))
        datas.append(data)


def _finish(
    pipeline: Pipeline,
    many: Any,
    rows: list[tuple[str, int, int, str]],
    datas: list[bytes],
    skips: list[tuple[str, str]],
) -> pa.RecordBatch:
    fps, failed = _fingerprint_all(pipeline, many, datas)
    out_rows = [
        (rid, fp, size, off, kind, fail)
        for (rid, size, off, kind), fp, fail in zip(rows, fps, failed, strict=True)
    ]
    return _doc_batch(out_rows, skips, pipeline.identity)


def _documents(
    batches: Iterator[pa.RecordBatch],
    prefix: str,
    rules: tuple[Any, ...],
    include_binary: bool,
) -> Iterator[pa.RecordBatch]:
    """mapInArrow body over (path, length, content): one row per document or binary skip."""
    judge = SkipRules.of(rules)
    pipeline = judge.pipeline
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
            verdict = None if rel is None else judge.verdict(rel, length)
            if rel is None or verdict not in (None, SNIFF):
                continue  # ignored, or reported by the listing pass
            _split_file(rel, contents[i].as_py(), include_binary, rows, datas, skips,
                        judge, verdict)
        yield _finish(pipeline, many, rows, datas, skips)


def _shard_documents(
    batches: Iterator[pa.RecordBatch], spec: PipelineSpec, max_size: int, include_binary: bool
) -> Iterator[pa.RecordBatch]:
    """mapInArrow body over shard rows (id, text or bytes): one row per document or skip.
    Ids are names, not paths: no ignore rules, no mbox splitting; a null text is a skip."""
    from ditto_tui.corpus.reading import is_binary

    pipeline = spec.build()
    many = getattr(pipeline, "fingerprint_many", None)
    kind = "html" if spec.name == "html" else "text"
    for batch in batches:
        rows: list[tuple[str, int, int, str]] = []
        datas: list[bytes] = []
        skips: list[tuple[str, str]] = []
        texts = batch.column(1)
        for i, rel in enumerate(batch.column(0).to_pylist()):
            if rel is None:
                continue  # counted by the caller as rows without an id
            value = texts[i].as_py()
            if value is None:
                skips.append((rel, "no text (null)"))
                continue
            data = value.encode("utf-8", "surrogatepass") if isinstance(value, str) else value
            if len(data) > max_size:
                skips.append((rel, too_large(len(data), max_size)))
            elif not include_binary and is_binary(data):
                skips.append((rel, BINARY_REASON))
            else:
                rows.append((rel, len(data), 0, kind))
                datas.append(data)
        yield _finish(pipeline, many, rows, datas, skips)


def _manifest_documents(
    batches: Iterator[pa.RecordBatch], base: str, rules: tuple[Any, ...], include_binary: bool
) -> Iterator[pa.RecordBatch]:
    """mapInArrow body over manifest lines: each path (relative to ``base``, absolute, or
    a URI) is read here with ``pyarrow.fs``; the folder rules apply to the line as id."""
    from pyarrow import fs as pafs

    judge = SkipRules.of(rules)
    pipeline = judge.pipeline
    many = getattr(pipeline, "fingerprint_many", None)
    local_fs = pafs.LocalFileSystem()
    for batch in batches:
        rows: list[tuple[str, int, int, str]] = []
        datas: list[bytes] = []
        skips: list[tuple[str, str]] = []
        for line in batch.column(0).to_pylist():
            rel = line.strip() if line else ""
            if not rel or rel.startswith("#"):
                continue
            uri = rel if ("://" in rel or rel.startswith(("/", "file:"))) else base + "/" + rel
            try:
                if "://" in uri:
                    filesystem, path = pafs.FileSystem.from_uri(uri)
                else:
                    filesystem, path = local_fs, _local(uri)
                info = filesystem.get_file_info(path)
                if info.type != pafs.FileType.File:
                    skips.append((rel, MISSING_REASON if info.type == pafs.FileType.NotFound
                                  else "not a regular file"))
                    continue
                reason = judge.verdict(rel, int(info.size or 0))
                if reason == IGNORED:
                    continue
                if reason is not None and reason != SNIFF:
                    skips.append((rel, reason))
                    continue
                with filesystem.open_input_stream(path) as stream:
                    data = stream.read()
            except OSError as exc:
                skips.append((rel, f"could not read ({type(exc).__name__}: {exc})"))
                continue
            _split_file(rel, data, include_binary, rows, datas, skips, judge, reason)
        yield _finish(pipeline, many, rows, datas, skips)


def _local(uri: str) -> str:
    """The local path of ``file:`` URIs and plain paths."""
    from urllib.parse import unquote, urlsplit

    return unquote(urlsplit(uri).path) if uri.startswith("file:") else uri


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
    reader = (
        spark.read.format("binaryFile")
        .option("recursiveFileLookup", "true")
        .option("ignoredPathSegmentRegex", "")  # Spark >= 4.3: list _x and .x names too
    )
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

def _arrow_conf(spark: SparkSession, batch_rows: int, open_cost: int | None) -> None:
    spark.conf.set("spark.sql.execution.arrow.maxRecordsPerBatch", str(batch_rows))
    spark.conf.set("spark.sql.execution.arrow.useLargeVarTypes", "true")
    if open_cost is not None:
        spark.conf.set("spark.sql.files.openCostInBytes", str(open_cost))


def fingerprint_frames(
    spark: SparkSession,
    root: str | Source,
    spec: PipelineSpec = PipelineSpec(),
    options: ScanOptions = DEFAULT_OPTIONS,
    *,
    glob: str | None = None,
    batch_rows: int = BATCH_ROWS,
    open_cost: int | None = OPEN_COST,
) -> DataFrame:
    """A lazy DataFrame of :data:`DOC_SCHEMA` rows for ``root`` (a folder path or URI, or
    a :class:`Source`): one per document (``reason`` null) and one per skip (``reason``).

    Folders: names and sizes are judged from the listing (bytes of too-large or refused
    files are never read); the html pipeline without ``glob`` reads only html names'
    bytes. Sets the session's Arrow batch size and, unless ``open_cost`` is None, its
    file open cost.
    """
    source = root if isinstance(root, Source) else Source("folder", (root,))
    _arrow_conf(spark, batch_rows, open_cost)
    if source.kind == "folder":
        return _folder_frames(spark, source.paths[0], spec, options, glob)
    if source.kind == "manifest":
        return _manifest_frames(spark, source, spec, options)
    return _shard_frames(spark, source, spec, options)


def _folder_frames(
    spark: SparkSession,
    root: str,
    spec: PipelineSpec,
    options: ScanOptions,
    glob: str | None,
) -> DataFrame:
    import pandas as pd
    import pyspark.sql.functions as F

    from ditto_tui.scale.session import qualified_uri

    root_uri = qualified_uri(spark, root)
    prefix = root_uri + "/"
    rules: tuple[Any, ...] = (
        ignore_patterns(spark, root_uri, options.ignore), spec, options.max_size
    )
    tree = local_tree(spark, root_uri, rules)  # symlinks, maildir tmp, undecodable names
    rules = (*rules, tree.hidden_files, tree.hidden_dirs)
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
    files = (  # html: every name, since a page without an html name is sniffed
        _reader(spark, root_uri, glob)
        .where(F.col("length") <= F.lit(options.max_size))
        .select("path", "length", "content")
    )
    include_binary = options.include_binary
    documents = files.mapInArrow(
        lambda it: _documents(it, prefix, rules, include_binary), DOC_SCHEMA
    )
    frames = names.unionByName(documents)
    bad = tree.skips
    if bad:
        skips = pd.DataFrame({"id": [b[0] for b in bad], "reason": [b[1] for b in bad]})
        frames = frames.unionByName(
            spark.createDataFrame(skips, "id string, reason string"), allowMissingColumns=True
        )
    return frames


def _shard_frames(
    spark: SparkSession, source: Source, spec: PipelineSpec, options: ScanOptions
) -> DataFrame:
    import pyspark.sql.functions as F

    reader = spark.read.option("ignoredPathSegmentRegex", "^[._].*")
    paths = list(source.paths)
    shards = reader.parquet(*paths) if source.kind == "parquet" else reader.json(paths)
    for column in (source.id_column, source.text_column):
        if column not in shards.columns:
            raise ValueError(
                f"the {source.kind} input has no column {column!r} "
                f"(columns: {', '.join(shards.columns)}; see --id-column/--text-column)"
            )
    text = F.col(source.text_column)
    if dict(shards.dtypes)[source.text_column] not in ("string", "binary"):
        text = text.cast("string")
    rows = shards.select(F.col(source.id_column).cast("string").alias("id"), text.alias("text"))
    max_size, include_binary = options.max_size, options.include_binary
    return rows.mapInArrow(
        lambda it: _shard_documents(it, spec, max_size, include_binary), DOC_SCHEMA
    )


def _manifest_frames(
    spark: SparkSession, source: Source, spec: PipelineSpec, options: ScanOptions
) -> DataFrame:
    from ditto_tui.scale.session import qualified_uri

    first = qualified_uri(spark, source.paths[0])
    base = first.rpartition("/")[0]
    rules = (ignore_patterns(spark, base, options.ignore), spec, options.max_size)
    lines = spark.read.text([qualified_uri(spark, p) for p in source.paths])
    include_binary = options.include_binary
    return lines.mapInArrow(
        lambda it: _manifest_documents(it, base, rules, include_binary), DOC_SCHEMA
    )


def source_root(spark: SparkSession, source: Source) -> str:
    """The URI documents are read relative to: the folder, or the first manifest's
    folder; for shards the first shard path (documents live in the shards)."""
    from ditto_tui.scale.session import qualified_uri

    first = qualified_uri(spark, source.paths[0])
    return first.rpartition("/")[0] if source.kind == "manifest" else first


def rank_documents(docs: DataFrame, partitions: int) -> DataFrame:
    """``docs`` with ``doc`` (long): each row's rank in id order (Spark's UTF-8 byte order,
    which is code-point order), 0-based, dense. A range-partitioned sort, checkpointed,
    then per-partition offsets: no single-partition window. Raises ValueError when two
    rows share an id."""
    import pyspark.sql.functions as F

    from ditto_tui.scale.session import checkpoint

    ordered = checkpoint(
        docs.repartitionByRange(max(1, partitions), "id")
        .sortWithinPartitions("id")
        .withColumn("_p", F.spark_partition_id())
        .withColumn("_m", F.monotonically_increasing_id())
    )
    twice = ordered.groupBy("id").count().where(F.col("count") > 1).limit(1).collect()
    if twice:
        raise ValueError(f"two documents have the id {twice[0]['id']!r}: ids must be unique")
    counts = {int(r["_p"]): int(r["count"]) for r in ordered.groupBy("_p").count().collect()}
    offsets = [0] * (max(counts, default=0) + 1)
    total = 0
    for p in range(len(offsets)):
        offsets[p] = total
        total += counts.get(p, 0)
    start = F.element_at(F.array(*[F.lit(o).cast("long") for o in offsets]), F.col("_p") + 1)
    local = F.col("_m") - F.shiftleft(F.col("_p").cast("long"), 33)
    return ordered.withColumn(DOCS_RANK, start + local).drop("_p", "_m")


def fingerprint_corpus(
    spark: SparkSession,
    root: str | Source,
    out: str,
    spec: PipelineSpec = PipelineSpec(),
    options: ScanOptions = DEFAULT_OPTIONS,
    *,
    glob: str | None = None,
    batch_rows: int = BATCH_ROWS,
    open_cost: int | None = OPEN_COST,
) -> FingerprintSummary:
    """Fingerprint every document of ``root`` (a folder, or a :class:`Source`) and write
    ``out/fingerprints`` (sorted by ``doc``), ``out/skipped`` and ``out/meta-fingerprint``
    (overwriting them).

    Tables of later stages left in ``out`` by an earlier run (groups, pairs, families)
    are deleted, since they no longer match. ``glob``, ``batch_rows`` and ``open_cost``
    are as for :func:`fingerprint_frames`. Checkpoints go to the context's checkpoint
    folder (default ``out/_checkpoints``, removed afterwards).
    Raises the Spark error when ``root`` does not exist or cannot be listed.
    """
    from ditto_tui.scale.session import checkpoint, checkpoint_dir, delete_path

    started = time.perf_counter()
    source = root if isinstance(root, Source) else Source("folder", (root,))
    for stale in DOWNSTREAM:
        delete_path(spark, join_uri(out, stale))
    with checkpoint_dir(spark, out):
        rows = checkpoint(
            fingerprint_frames(
                spark, source, spec, options, glob=glob, batch_rows=batch_rows,
                open_cost=open_cost,
            )
        )
        partitions = int(spark.conf.get("spark.sql.shuffle.partitions") or "200")
        docs = rank_documents(rows.where("reason is null").drop("reason"), partitions)
        docs.select(DOCS_RANK, "id", "fp", "hex", "size", "offset", "kind", "pipeline").write.mode(
            "overwrite"
        ).parquet(join_uri(out, FINGERPRINTS))
        rows.where("reason is not null").select("id", "reason").coalesce(
            max(1, partitions // 8)
        ).write.mode("overwrite").parquet(join_uri(out, SKIPPED))
    fps = spark.read.parquet(join_uri(out, FINGERPRINTS))
    skipped = spark.read.parquet(join_uri(out, SKIPPED))
    n_docs = fps.count()
    reasons = {
        str(r["reason"]): int(r["count"]) for r in skipped.groupBy("reason").count().collect()
    }
    identity = spec.build().identity
    seconds = time.perf_counter() - started
    summary = FingerprintSummary(
        root=source_root(spark, source),
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
            "input": {"kind": source.kind, "paths": list(source.paths)},
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
