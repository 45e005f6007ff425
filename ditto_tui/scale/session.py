"""Getting a SparkSession, with one-line explanations when Java or pyspark is missing.

:func:`build_session` is the only place that starts Spark. It checks first that pyspark
imports and that a ``java`` executable exists (``$JAVA_HOME/bin/java`` or on ``PATH``), and
raises :class:`SparkUnavailable` with a human sentence otherwise, so callers can print
``ditto-tui: <sentence>`` and exit 1 instead of showing a Py4J traceback.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import sys
from collections.abc import Iterator, Mapping
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession

__all__ = [
    "SparkUnavailable",
    "build_session",
    "checkpoint",
    "checkpoint_dir",
    "clear_checkpoint_dir",
    "delete_path",
    "list_names",
    "find_java",
    "java_missing_message",
    "qualified_uri",
    "read_small_text",
    "require_pyspark",
]

DEFAULT_MASTER = "local[*]"
CHECKPOINTS = "_checkpoints"
INSTALL_HINT = "pip install 'ditto-tui[spark]'"


class SparkUnavailable(RuntimeError):
    """Spark cannot run here; ``str(exc)`` is one sentence for the user."""


def require_pyspark() -> None:
    """Raise :class:`SparkUnavailable` unless pyspark and pyarrow import."""
    try:
        import pyspark  # noqa: F401
    except ImportError:
        raise SparkUnavailable(f"pyspark is not installed ({INSTALL_HINT})") from None
    try:
        import pyarrow  # noqa: F401
    except ImportError:
        raise SparkUnavailable(f"pyarrow is not installed ({INSTALL_HINT})") from None


def find_java() -> str | None:
    """Path of the ``java`` Spark would start (``$JAVA_HOME/bin/java``, else ``PATH``), or None."""
    home = os.environ.get("JAVA_HOME")
    if home:
        candidate = os.path.join(home, "bin", "java")
        return candidate if os.access(candidate, os.X_OK) else None
    return shutil.which("java")


JAVA_HINT = "install Java 17+ and put `java` on PATH or set JAVA_HOME"


def java_missing_message() -> str:
    """The sentence for a missing Java: the hint, and which JAVA_HOME was looked at if set."""
    home = os.environ.get("JAVA_HOME")
    if home:
        return f"Java was not found: JAVA_HOME={home} has no bin/java ({JAVA_HINT})"
    return f"Java was not found ({JAVA_HINT})"


def _under_spark_submit() -> bool:
    """True when this Python driver was launched by spark-submit (it owns the master URL)."""
    return "PYSPARK_GATEWAY_PORT" in os.environ


def build_session(
    master: str | None = None,
    *,
    app_name: str = "ditto-tui",
    shuffle_partitions: int | None = None,
    conf: Mapping[str, str] | None = None,
    log_level: str = "ERROR",
) -> SparkSession:
    """Start (or reuse) a SparkSession.

    ``master`` is any Spark master URL; None means ``local[*]`` unless spark-submit already
    chose one. Executors run this interpreter when the master is local. Raises
    :class:`SparkUnavailable` when pyspark/pyarrow are missing, Java is missing, or the JVM
    does not start.
    """
    require_pyspark()
    if not _under_spark_submit() and find_java() is None:
        raise SparkUnavailable(java_missing_message())
    from pyspark.sql import SparkSession

    if master is None and not _under_spark_submit():
        master = DEFAULT_MASTER
    if master is not None and master.startswith("local"):
        os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
        os.environ.setdefault("PYSPARK_DRIVER_PYTHON", sys.executable)
    builder: Any = SparkSession.builder.appName(app_name)
    if master is not None:
        builder = builder.master(master)
    settings = {
        "spark.sql.execution.arrow.pyspark.enabled": "true",
        "spark.ui.showConsoleProgress": "false",
        "spark.sql.adaptive.enabled": "true",
        # file: without Hadoop's checksum layer, which builds a Path for ".NAME.crc" on
        # every open and so cannot open a name holding ':' (every maildir message: ":2,S")
        "spark.hadoop.fs.file.impl": "org.apache.hadoop.fs.RawLocalFileSystem",
    }
    if shuffle_partitions is not None:
        settings["spark.sql.shuffle.partitions"] = str(shuffle_partitions)
    settings.update(conf or {})
    for key, value in settings.items():
        builder = builder.config(key, value)
    try:
        spark = builder.getOrCreate()
    except Exception as exc:  # Py4J / JVM start-up failures come in many classes
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise SparkUnavailable(f"Spark did not start: {first}") from exc
    spark.sparkContext.setLogLevel(log_level)
    for key, value in settings.items():
        if not key.startswith("spark.ui") and not key.startswith("spark.master"):
            # static confs of a reused session stay as they are
            with contextlib.suppress(Exception):
                spark.conf.set(key, value)
    return spark


def _hadoop_path(spark: SparkSession, uri: str) -> tuple[Any, Any]:
    """The Hadoop ``(FileSystem, Path)`` of ``uri`` (driver side, through Py4J)."""
    context: Any = spark.sparkContext
    jvm = context._jvm
    conf = context._jsc.hadoopConfiguration()
    path = jvm.org.apache.hadoop.fs.Path(uri)
    return path.getFileSystem(conf), path


def qualified_uri(spark: SparkSession, path: str) -> str:
    """``path`` as Spark's file sources print it (``/a/b`` -> ``file:/a/b``), no trailing ``/``.

    A relative local path is made absolute first.
    """
    if "://" not in path and not path.startswith("file:"):
        path = os.path.abspath(path)
    fs, p = _hadoop_path(spark, path)
    return str(fs.makeQualified(p).toString()).rstrip("/")


def read_small_text(spark: SparkSession, uri: str, limit: int = 1 << 20) -> str | None:
    """The text (UTF-8, errors replaced) of a small file on any Hadoop file system, or
    None when it does not exist. Used for ``.dittoignore``, which Spark's listing hides."""
    fs, p = _hadoop_path(spark, uri)
    if not fs.exists(p) or not fs.isFile(p):
        return None
    stream = fs.open(p)
    try:
        context: Any = spark.sparkContext
        data = bytes(context._jvm.org.apache.commons.io.IOUtils.toByteArray(stream))
    finally:
        stream.close()
    return data[:limit].decode("utf-8", "replace")


def list_names(spark: SparkSession, uri: str) -> list[str]:
    """Names of the entries of the folder ``uri`` on any Hadoop file system (empty when it
    does not exist)."""
    fs, p = _hadoop_path(spark, uri)
    if not fs.exists(p):
        return []
    return sorted(str(status.getPath().getName()) for status in fs.listStatus(p))


def delete_path(spark: SparkSession, uri: str) -> None:
    """Delete a file or folder (recursively) on any Hadoop file system; missing is fine."""
    fs, p = _hadoop_path(spark, uri)
    if fs.exists(p):
        fs.delete(p, True)


def clear_checkpoint_dir(spark: SparkSession) -> None:
    """Forget the SparkContext's checkpoint folder (PySpark has no public way), so later
    checkpoints need a folder again; does nothing if the JVM refuses."""
    context: Any = spark.sparkContext
    with contextlib.suppress(Exception):
        setter = getattr(context._jsc.sc(), "checkpointDir_$eq")
        setter(context._jvm.scala.Option.apply(None))


def checkpoint(df: DataFrame) -> DataFrame:
    """Materialise ``df`` and cut its lineage with a *reliable* checkpoint (files in the
    context's checkpoint folder, so a lost executor costs a retry, not the job).
    RuntimeError when the context has no checkpoint folder (see :func:`checkpoint_dir`)."""
    if df.sparkSession.sparkContext.getCheckpointDir() is None:
        raise RuntimeError("no checkpoint folder: use checkpoint_dir(spark, out)")
    return df.checkpoint(eager=True)


@contextlib.contextmanager
def checkpoint_dir(spark: SparkSession, out: str) -> Iterator[None]:
    """Within the block the context has a checkpoint folder: its own when it has one
    (``--checkpoint-dir``), else ``out/_checkpoints``, deleted on the way out (and
    forgotten by the context)."""
    from ditto_tui.scale.layout import join_uri

    context = spark.sparkContext
    if context.getCheckpointDir() is not None:
        yield
        return
    folder = join_uri(out, CHECKPOINTS)
    context.setCheckpointDir(folder)
    try:
        yield
    finally:
        clear_checkpoint_dir(spark)
        delete_path(spark, folder)
