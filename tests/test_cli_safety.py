"""The CLI under hostile input: bounded stdin, escaped names, safe CSV, one-line errors."""

from __future__ import annotations

import argparse
import csv
import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from ditto_tui.cli.main import build_parser, main
from ditto_tui.core.text.display import escape_controls, visible
from ditto_tui.corpus.export import csv_cell, write_families


def run(capfdbinary, *argv: str) -> tuple[int, bytes, str]:
    code = main(list(argv))
    captured = capfdbinary.readouterr()
    return code, captured.out, captured.err.decode("utf-8", "replace")


# -- item 5: standard input obeys --max-size --------------------------------------------
def test_stdin_larger_than_max_size_is_skipped_without_reading_it_all() -> None:
    # /dev/zero never ends: reading it whole would never finish (or exhaust memory).
    with open("/dev/zero", "rb") as zero:
        proc = subprocess.run(
            [sys.executable, "-m", "ditto_tui", "fingerprint", "--max-size", "1M", "--strict"],
            stdin=zero, capture_output=True, timeout=60,
        )
    assert proc.returncode == 1
    assert proc.stdout == b""
    assert proc.stderr.decode().splitlines()[0] == (
        "ditto-tui: skipped stdin: larger than the size limit (more than 1 MiB)"
    )
    proc = subprocess.run([sys.executable, "-m", "ditto_tui", "fingerprint", "--max-size", "10"],
                          input=b"0123456789", capture_output=True, timeout=60)
    assert proc.returncode == 0 and proc.stdout.endswith(b"\tstdin\n")


# -- item 13: C1 controls, raw 0x9B and bidi controls are escaped, CLI and explorer alike --
HOSTILE = ["csi\u009b31mred", "bidi\u202etxt.exe", "iso\u2066late", "lrm\u200emark", "ok"]


def test_text_output_escapes_c1_raw_csi_and_bidi(tmp_path: Path, capfdbinary) -> None:
    for name in HOSTILE:
        (tmp_path / name).write_text(f"text of {name} " * 5)
    raw = os.fsencode(str(tmp_path)) + b"/raw\x9b31m.txt"  # 0x9B alone: not UTF-8, a CSI byte
    with open(raw, "wb") as f:
        f.write(b"raw csi name " * 5)
    code, out, _ = run(capfdbinary, "fingerprint", "--no-cache", str(tmp_path))
    assert code == 0
    for bad in (b"\x9b", "\u009b".encode(), "\u202e".encode(), "\u2066".encode(),
                "\u200e".encode(), b"\x1b"):
        assert bad not in out
    text = out.decode("utf-8", "surrogateescape")
    for shown in ("csi\\x9b31mred", "bidi\\u202etxt.exe", "iso\\u2066late", "lrm\\u200emark",
                  "raw\\x9b31m.txt", "/ok"):
        assert shown in text
    code, out, _ = run(capfdbinary, "cluster", "--no-cache", "--min", "1", str(tmp_path))
    assert "\u202e".encode() not in out and b"\x9b" not in out
    # JSON keeps the exact id (as \u escapes, which decode to the same string).
    code, out, _ = run(capfdbinary, "fingerprint", "--json", "--no-cache", str(tmp_path))
    assert "\u202e".encode() not in out and "\u009b".encode() not in out
    ids = {json.loads(line)["id"].rsplit("/", 1)[-1] for line in out.decode().splitlines()}
    assert set(HOSTILE) <= ids


def test_one_escaping_rule_for_cli_and_explorer() -> None:
    for name in HOSTILE[:-1] + ["esc\x1b[2J", "del\x7f"]:
        assert escape_controls(name) != name
        assert visible(name) == escape_controls(name)  # the explorer's rule is the same
    assert escape_controls("raw\udc9bbyte") == "raw\\x9bbyte"
    assert escape_controls("a\tb\nc") == "a\\tb\\nc"
    assert escape_controls("caf\udce9 é ok") == "caf\udce9 é ok"  # other bytes left as ditto


def test_warnings_escape_names_too(tmp_path: Path, capfdbinary) -> None:
    (tmp_path / "bin\u202eary").write_bytes(b"\0binary")
    code, _, err = run(capfdbinary, "fingerprint", "--no-cache", str(tmp_path))
    assert "\u202e" not in err and "bin\\u202eary: binary file" in err


# -- item 12: CSV export is safe in a spreadsheet and keeps one row per member -------------
class Fam:
    def __init__(self, members: tuple[str, ...]) -> None:
        self.members = members
        self.centre = members[0]
        self.diameter = 0


DANGEROUS = ["=HYPERLINK(\"http://x\",\"y\")", "+1+2", "-3", "@SUM(A1)", "\tx", "\rcr",
             "a\rb.txt", "new\nline", 'q"uote,comma', "'quoted"]


def test_csv_cells_never_start_a_formula_and_rows_never_split() -> None:
    buf = io.StringIO(newline="")
    write_families([Fam(tuple(DANGEROUS))], buf, fmt="csv", k=3, mode="chain",
                   fingerprints=dict.fromkeys(DANGEROUS, 0))
    rows = list(csv.reader(io.StringIO(buf.getvalue(), newline="")))
    assert len(rows) == 1 + len(DANGEROUS)  # a CR or LF inside a name never makes a row
    members = [r[4] for r in rows[1:]]
    for cell in members + [r[3] for r in rows[1:]]:
        assert not cell.startswith(("=", "+", "-", "@", "\t", "\r"))
    assert {m[1:] if m[:1] == "'" and m[1:2] in "=+-@\t\r" else m for m in members} == set(
        DANGEROUS
    )
    assert "'=HYPERLINK(\"http://x\",\"y\")" in members and "'-3" in members
    assert "a\rb.txt" in members and 'q"uote,comma' in members
    # the raw text: every neutralised cell is quoted, CR only inside quotes
    for line in buf.getvalue().split("\n")[1:]:
        if line.startswith("1,"):
            assert "\r" not in line.split('"')[0]
    assert csv_cell("=1") == "\"'=1\"" and csv_cell("plain") == "plain"


# -- item 14 and 16: one-line errors, no traceback ----------------------------------------
@pytest.mark.parametrize(
    ("argv", "needle"),
    [
        (["export", "-k", "99", "{root}"], "-k 99 is out of range"),
        (["cluster", "-k", "99", "--mode", "star", "{root}"], "-k 99 is out of range"),
        (["explore", "--max-k", "99", "-k", "99", "{root}"], "is out of range"),
        (["fingerprint", "--cache", "{root}/cache", "{root}"], "must not be inside"),
        (["explore", "--cache", "{root}/cache", "{root}"], "must not be inside"),
        (["serve", "--cache", "{root}/cache", "{root}"], "must not be inside"),
        (["fingerprint", "--char", "0", "--word", "0", "{root}"], "no features"),
    ],
)
def test_bad_arguments_give_one_line_errors(tmp_path: Path, argv: list[str], needle: str) -> None:
    root = tmp_path / "corpus"
    root.mkdir()
    (root / "a.txt").write_text("some words to fingerprint here")
    env = dict(os.environ, XDG_CACHE_HOME=str(tmp_path / "xdg"))
    proc = subprocess.run(
        [sys.executable, "-m", "ditto_tui", *(a.format(root=root) for a in argv)],
        capture_output=True, timeout=60, env=env, stdin=subprocess.DEVNULL,
    )
    err = proc.stderr.decode()
    assert proc.returncode in (1, 2), err
    assert "Traceback" not in err
    assert len(err.strip().splitlines()) == 1 and needle in err, err


def test_cache_help_says_it_takes_a_folder(capsys) -> None:
    with pytest.raises(SystemExit):
        build_parser().parse_args(["fingerprint", "--help"])
    help_text = " ".join(capsys.readouterr().out.split())
    assert "--cache DIR folder for the fingerprint cache databases" in help_text
    readme = (Path(__file__).parent.parent / "README.md").read_text()
    assert "--cache PATH" not in readme and "--cache DIR" in readme


def _commands_with_k() -> list[str]:
    parser = build_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return sorted(name for name, p in sub.choices.items()
                  if any("-k" in a.option_strings for a in p._actions)
                  and name not in ("spark", "open"))  # their k is 0..32, checked by argtypes


@pytest.mark.parametrize("value", ["99", "65", "-1"])
def test_every_command_refuses_k_outside_0_to_64(tmp_path: Path, capfd, value: str) -> None:
    """Issue 34: ``dedupe -k 99`` and ``near -k 99`` were accepted (and cluster, explain);
    one check now covers every command that takes a distance."""
    root = tmp_path / "corpus"
    root.mkdir()
    (root / "a.txt").write_text("some words to fingerprint here")
    argv = {
        "near": ["near", str(root / "a.txt"), str(root)],
        "cluster": ["cluster", str(root)],
        "export": ["export", str(root)],
        "explore": ["explore", str(root)],
        "serve": ["serve", str(root)],
        "dedupe": ["dedupe", "--dry-run", str(root)],
        "explain": ["explain", "--chain", "--in", str(root), "a.txt"],
        "report": ["report", str(root), "-o", str(tmp_path / "r.html")],
    }
    commands = _commands_with_k()
    assert set(commands) == set(argv), "a command with -k is not covered here"
    for command in commands:
        assert main([*argv[command], "-k", value]) == 2, command
        err = capfd.readouterr().err
        assert f"-k {value} is out of range: a distance is 0..64" in err, (command, err)
        assert len(err.strip().splitlines()) == 1
    assert not (tmp_path / "r.html").exists()
    assert main(["explore", "--max-k", "65", str(root)]) == 2
    assert "--max-k 65 is out of range" in capfd.readouterr().err
