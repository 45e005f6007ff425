"""The command-line contract, exercised in-process and as a real subprocess."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from ditto_tui.cli.main import main

DATA = Path(__file__).parent / "data"


def vectors(char_n: int = 4, word_n: int = 0) -> list[dict]:
    rows = [json.loads(line) for line in (DATA / "ditto2-vectors.jsonl").read_text().split("\n") if line]
    return [r for r in rows if r["charN"] == char_n and r["wordN"] == word_n and r["text"] is not None]


def run(capfdbinary, *argv: str) -> tuple[int, bytes, str]:
    code = main(list(argv))
    captured = capfdbinary.readouterr()
    return code, captured.out, captured.err.decode("utf-8", "replace")


def run_proc(*argv: str, stdin: bytes | None = None, cwd: Path | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "ditto_tui", *argv],
        input=stdin, capture_output=True, cwd=cwd, timeout=120,
    )


@pytest.fixture
def corpus(tmp_path: Path) -> Path:
    """A folder whose files carry texts of the reference vectors, in nested folders."""
    root = tmp_path / "docs"
    (root / "b").mkdir(parents=True)
    (root / "a").mkdir()
    texts = {
        "a/one.txt": "Your Apple ID has been locked. Please verify your account now.",
        "a/two.txt": "Your Apple ID has been locked. Please verify your account now!",
        "b/far.txt": "Minutes of the garden committee: compost, tomatoes and the new shed.",
        "Z.txt": "Quarterly figures were flat; the board asked for a leaner plan.",
    }
    for name, text in texts.items():
        (root / name).write_text(text)
    return root


def test_fingerprint_matches_reference_vectors(tmp_path, capfdbinary):
    rows = vectors()[:40]
    for n, row in enumerate(rows):
        (tmp_path / f"v{n:03d}").write_bytes(row["text"].encode("utf-8", "surrogatepass"))
    code, out, err = run(capfdbinary, "fingerprint", "--no-cache", "--include-binary", str(tmp_path))
    assert code == 0, err
    lines = out.decode().splitlines()
    assert len(lines) == len(rows)
    for n, (line, row) in enumerate(zip(lines, rows, strict=True)):
        fp, doc_id = line.split("\t")
        assert doc_id == f"{tmp_path}/v{n:03d}"
        assert fp == row["fp"], row["id"]


def test_fingerprint_options_word_shingles(tmp_path, capfdbinary):
    rows = [r for r in vectors(0, 3)][:10] or pytest.skip("no char0/word3 vectors")
    for n, row in enumerate(rows):
        (tmp_path / f"w{n:02d}").write_text(row["text"])
    # ditto's single-dash spelling works too
    code, out, _ = run(capfdbinary, "fp", "-char", "0", "-word=3", "--no-cache", str(tmp_path))
    assert code == 0
    assert [line.split("\t")[0] for line in out.decode().splitlines()] == [r["fp"] for r in rows]


def test_fingerprint_ids_and_order_like_ditto(corpus, capfdbinary, monkeypatch):
    monkeypatch.chdir(corpus)
    code, out, _ = run(capfdbinary, "fingerprint", "--no-cache", ".")
    assert code == 0
    ids = [line.split("\t")[1] for line in out.decode().splitlines()]
    assert ids == ["Z.txt", "a/one.txt", "a/two.txt", "b/far.txt"]  # byte order, depth first
    code, out, _ = run(capfdbinary, "fingerprint", "--no-cache", "./a/")
    assert [line.split("\t")[1] for line in out.decode().splitlines()] == ["a/one.txt", "a/two.txt"]


def test_fingerprint_stdin_is_one_document():
    proc = run_proc("fingerprint", stdin=b"")
    assert proc.returncode == 0
    assert proc.stdout == b"cbf29ce484222325\tstdin\n"


def test_fingerprint_json_carries_exact_ids(tmp_path, capfdbinary):
    (tmp_path / "tab\there.txt").write_text("hello there, general")
    code, out, _ = run(capfdbinary, "fingerprint", "--json", "--no-cache", str(tmp_path))
    assert code == 0
    obj = json.loads(out)
    assert obj["id"] == f"{tmp_path}/tab\there.txt"
    assert obj["pipeline"] == "ditto/2;char=4;word=0"
    assert len(obj["fp"]) == 16


def test_text_ids_escape_control_characters(tmp_path, capfdbinary):
    (tmp_path / "evil\x1b[31mname\nx.txt").write_text("some text here")
    code, out, _ = run(capfdbinary, "fingerprint", "--no-cache", str(tmp_path))
    assert code == 0
    assert out.count(b"\n") == 1
    assert b"evil\\x1b[31mname\\nx.txt" in out
    assert b"\x1b" not in out


def test_non_utf8_name_written_as_raw_bytes(tmp_path, capfdbinary):
    name = b"caf\xe9.txt"
    with open(os.path.join(os.fsencode(tmp_path), name), "wb") as fh:
        fh.write(b"a text in latin-1 land")
    code, out, _ = run(capfdbinary, "fingerprint", "--no-cache", str(tmp_path))
    assert code == 0
    assert out.rstrip(b"\n").endswith(b"/" + name)


def test_json_round_trips_non_utf8_names(tmp_path, capfdbinary):
    name = b"caf\xe9.txt"
    with open(os.path.join(os.fsencode(tmp_path), name), "wb") as fh:
        fh.write(b"a text in latin-1 land")
    code, out, _ = run(capfdbinary, "fingerprint", "--json", "--no-cache", str(tmp_path))
    assert code == 0
    out.decode("utf-8")  # valid UTF-8 JSON text
    assert os.fsencode(json.loads(out)["id"]).endswith(b"/" + name)


def test_skipped_documents_reported_and_strict(tmp_path, capfdbinary):
    (tmp_path / "ok.txt").write_text("plain text document")
    (tmp_path / "blob.bin").write_bytes(b"\x00\x01\x02binary")
    code, out, err = run(capfdbinary, "fingerprint", "--no-cache", str(tmp_path))
    assert code == 0
    assert out.decode().count("\n") == 1
    assert "ditto-tui: skipped" in err and "blob.bin" in err and "binary" in err
    code, _, err = run(capfdbinary, "fingerprint", "--no-cache", "--strict", str(tmp_path))
    assert code == 1
    code, out, _ = run(capfdbinary, "fingerprint", "--no-cache", "--include-binary", str(tmp_path))
    assert code == 0 and out.decode().count("\n") == 2


def test_cluster_report_format(corpus, capfdbinary, monkeypatch):
    monkeypatch.chdir(corpus)
    code, out, _ = run(capfdbinary, "cluster", "-k", "3", "--no-cache", ".")
    assert code == 0
    text = out.decode()
    assert text == (
        "4 document(s), 1 near-duplicate cluster(s) at k=3:\n"
        "\n[1] 2 members\n  a/one.txt\n  a/two.txt\n"
    )
    code, out, _ = run(capfdbinary, "cluster", "-k=3", "-min", "1", "--json", "--no-cache", ".")
    objs = [json.loads(line) for line in out.decode().splitlines()]
    assert [o["size"] for o in objs] == [2, 1, 1]
    assert [m["id"] for m in objs[0]["members"]] == ["a/one.txt", "a/two.txt"]


def test_near_by_file_and_by_hex(corpus, capfdbinary, monkeypatch):
    monkeypatch.chdir(corpus)
    code, out, _ = run(capfdbinary, "near", "a/one.txt", "-k", "8", "--no-cache", ".")
    assert code == 0
    rows = [line.split("\t") for line in out.decode().splitlines()]
    assert rows[0][0] == "0" and rows[0][1] == "100.00%" and rows[0][3] == "a/one.txt"
    assert [r[3] for r in rows][:2] == ["a/one.txt", "a/two.txt"]
    dists = [int(r[0]) for r in rows]
    assert dists == sorted(dists)
    code, out2, _ = run(capfdbinary, "near", rows[0][2], "-k", "8", "--no-cache", ".")
    assert out2 == out


def test_compare_wording(corpus, capfdbinary, monkeypatch):
    monkeypatch.chdir(corpus)
    code, out, _ = run(capfdbinary, "compare", "a/one.txt", "a/two.txt")
    assert code == 0
    lines = out.decode().splitlines()
    assert lines[0].startswith("Feature distance is ")
    d = int(lines[0].split()[3].rstrip("."))
    assert lines[0].endswith(f"Similarity is {100 * (1 - d / 64):.2f}%")
    fa, fb = (int(line.split("\t")[0], 16) for line in lines[1:3])
    assert (fa ^ fb).bit_count() == d
    code, out, _ = run(capfdbinary, "compare", "ffffffffffffffff", "fffffffffffffffc")
    assert out.decode().splitlines()[0] == "Feature distance is 2. Similarity is 96.88%"
    assert "differing bits: 1 0" in out.decode()


def test_version(capfdbinary):
    code, out, _ = run(capfdbinary, "version")
    assert code == 0 and b"pipeline=ditto/2" in out


@pytest.mark.parametrize(
    "argv",
    [["fingerprint", "--bogus"], ["cluster"], ["cluster", "-k", "x", "."], ["nosuch", "x", "y"], ["near"]],
)
def test_usage_errors_are_one_line_exit_2(argv, capfdbinary):
    code, out, err = run(capfdbinary, *argv)
    assert code == 2
    assert err.count("\n") == 1 and err.startswith("ditto-tui: ")


def test_missing_path_is_exit_1(capfdbinary, tmp_path):
    code, _, err = run(capfdbinary, "fingerprint", str(tmp_path / "nope"))
    assert code == 1 and err.startswith("ditto-tui: ") and err.count("\n") == 1


def test_help_for_every_subcommand(capfdbinary):
    for sub in ["", "explore", "fingerprint", "cluster", "near", "compare", "export", "version", "spark", "open"]:
        argv = [sub, "--help"] if sub else ["--help"]
        with pytest.raises(SystemExit) as exc:
            main(argv)
        assert exc.value.code == 0
        assert b"usage: ditto-tui" in capfdbinary.readouterr().out


def test_closed_pipe_exits_quietly(tmp_path):
    for n in range(300):
        (tmp_path / f"f{n:04d}.txt").write_text(f"document number {n} " * 20)
    proc = subprocess.run(
        f"{sys.executable} -m ditto_tui fingerprint --no-cache -j 1 {tmp_path} | head -n 1",
        shell=True, capture_output=True, timeout=120,
    )
    assert proc.returncode == 0
    assert proc.stdout.count(b"\n") == 1
    assert b"Traceback" not in proc.stderr and b"BrokenPipe" not in proc.stderr


def test_export_csv_and_jsonl(corpus, tmp_path, capfdbinary, monkeypatch):
    monkeypatch.chdir(corpus)
    dest = tmp_path / "families.jsonl"
    code, _, err = run(capfdbinary, "export", "-k", "3", "--format", "jsonl", "-o", str(dest),
                       "--no-cache", ".")
    assert code == 0, err
    text = dest.read_text()
    assert "a/one.txt" in text and "b/far.txt" in text
    code, _, err = run(capfdbinary, "export", "-o", str(dest), "--no-cache", ".")
    assert code == 1 and "exists" in err  # never overwrites
    code, out, _ = run(capfdbinary, "export", "--format", "csv", "--no-cache", ".")
    assert code == 0 and b"a/two.txt" in out
