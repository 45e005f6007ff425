"""The ``spark`` and ``open`` commands parse, and explain a missing Java or pyspark in one
line (no Spark needed to run these)."""

from __future__ import annotations

import argparse
import importlib.util

import pytest

from ditto_tui.scale import cli
from ditto_tui.scale.jobs import build_parser


class _Parser(argparse.ArgumentParser):
    """Like the main CLI's parser: errors raise instead of exiting."""

    def error(self, message: str):  # type: ignore[override]
        raise ValueError(message)


def _main_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="ditto-tui")
    sub = parser.add_subparsers(dest="command", parser_class=_Parser)
    cli.add_spark_parser(sub)
    cli.add_open_parser(sub)
    return parser


def test_spark_commands_parse_under_the_main_parser() -> None:
    args = _main_parser().parse_args(
        ["spark", "run", "/data", "-o", "/out", "-k", "5", "--master", "spark://h:7077",
         "--conf", "spark.executor.memory=4g", "--max-size", "1M", "--glob", "*.txt"]
    )
    assert (args.command, args.spark_command, args.k, args.master) == ("spark", "run", 5, "spark://h:7077")
    assert args.conf == [("spark.executor.memory", "4g")] and args.max_size == 1 << 20
    args = _main_parser().parse_args(["open", "/out", "-k", "2", "--root", "/mnt/copy"])
    assert (args.results, args.k, args.root) == ("/out", 2, "/mnt/copy")


def test_bad_values_are_usage_errors() -> None:
    with pytest.raises(ValueError):
        _main_parser().parse_args(["spark", "pairs", "/out", "-k", "40"])
    with pytest.raises(ValueError):
        _main_parser().parse_args(["spark", "fingerprint", "/d", "-o", "/o", "--conf", "novalue"])
    with pytest.raises(SystemExit):
        build_parser().parse_args(["families"])


def test_missing_java_or_pyspark_is_one_line_and_exit_1(monkeypatch, tmp_path, capsys) -> None:
    monkeypatch.setenv("JAVA_HOME", str(tmp_path / "no-java"))
    monkeypatch.delenv("PYSPARK_GATEWAY_PORT", raising=False)
    args = build_parser().parse_args(["pairs", str(tmp_path), "-k", "2"])
    assert cli.run_spark(args) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("ditto-tui: ")
    if importlib.util.find_spec("pyspark") is None:
        assert "pyspark is not installed" in err
    else:
        assert "Java was not found" in err
        assert "install Java 17+ and put `java` on PATH or set JAVA_HOME" in err
        assert f"JAVA_HOME={tmp_path / 'no-java'} has no bin/java" in err


def test_missing_java_without_java_home_names_path(monkeypatch, tmp_path, capsys) -> None:
    pytest.importorskip("pyspark", reason="pyspark is not installed (extra 'spark')")
    monkeypatch.delenv("JAVA_HOME", raising=False)
    monkeypatch.delenv("PYSPARK_GATEWAY_PORT", raising=False)
    monkeypatch.setenv("PATH", str(tmp_path))  # no java here
    args = build_parser().parse_args(["pairs", str(tmp_path), "-k", "2"])
    assert cli.run_spark(args) == 1
    err = capsys.readouterr().err
    assert err == (
        "ditto-tui: Java was not found "
        "(install Java 17+ and put `java` on PATH or set JAVA_HOME)\n"
    )


def test_open_refuses_a_folder_without_results(tmp_path, capsys) -> None:
    pytest.importorskip("pyarrow", reason="pyarrow is not installed (extra 'spark')")
    args = _main_parser().parse_args(["open", str(tmp_path)])
    assert cli.run_open(args) == 1
    assert "not a ditto-tui Spark results folder" in capsys.readouterr().err


def test_shard_and_manifest_inputs_parse() -> None:
    args = _main_parser().parse_args(
        ["spark", "run", "s3a://b/shard-1.parquet", "s3a://b/shard-2.parquet", "-o", "/out",
         "--input", "parquet", "--id-column", "url", "--text-column", "body"]
    )
    assert args.root == ["s3a://b/shard-1.parquet", "s3a://b/shard-2.parquet"]
    assert (args.input, args.id_column, args.text_column) == ("parquet", "url", "body")
    args = _main_parser().parse_args(["spark", "fingerprint", "/d", "-o", "/o"])
    assert (args.input, args.root) == ("folder", ["/d"])
    with pytest.raises(ValueError):
        _main_parser().parse_args(["spark", "fingerprint", "/d", "-o", "/o", "--input", "csv"])


def test_a_folder_input_is_one_folder() -> None:
    from ditto_tui.scale.fingerprints import Source

    with pytest.raises(ValueError, match="one folder"):
        Source("folder", ("/a", "/b"))
    with pytest.raises(ValueError, match="unknown input kind"):
        Source("csv", ("/a",))
    assert Source("manifest", ("/m.txt",)).paths == ("/m.txt",)
