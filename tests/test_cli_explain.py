"""``ditto-tui explain``: two files, two ids in a folder, JSON, and bad input."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ditto_tui import cli
from ditto_tui.core import Featurizer

TEXT = (
    "The quarterly report shows revenue grew in every region, while costs stayed flat.\n"
    "The board thanked the staff and approved the budget for the coming year.\n"
)


def run(capfdbinary, *argv: str) -> tuple[int, str, str]:
    code = cli.main(list(argv))
    captured = capfdbinary.readouterr()
    return code, captured.out.decode("utf-8"), captured.err.decode("utf-8", "replace")


@pytest.fixture
def pair(tmp_path: Path) -> tuple[Path, Path]:
    root = tmp_path / "docs"
    root.mkdir()
    a, b = root / "a.txt", root / "b.txt"
    a.write_text(TEXT)
    b.write_text(TEXT.replace("grew", "fell").replace("flat", "high"))
    return a, b


def test_explain_two_files(capfdbinary, pair: tuple[Path, Path]) -> None:
    a, b = pair
    code, out, err = run(capfdbinary, "explain", str(a), str(b))
    assert code == 0, err
    d = Featurizer().fingerprint(a.read_bytes()).distance(Featurizer().fingerprint(b.read_bytes()))
    assert f"Distance {d} bit" in out
    assert "SimHash expects" in out and "Shared features" in out
    assert "Only in A" in out and "«" in out
    assert "line 1" in out  # the edited passages are located
    assert "internal error" not in err


def test_explain_json_round_trips(capfdbinary, pair: tuple[Path, Path]) -> None:
    a, b = pair
    code, out, _ = run(capfdbinary, "explain", "--json", str(a), str(b))
    assert code == 0
    obj = json.loads(out)
    fa, fb = Featurizer().fingerprint(a.read_bytes()), Featurizer().fingerprint(b.read_bytes())
    assert obj["a"]["fp"] == fa.hex and obj["b"]["fp"] == fb.hex
    assert obj["a"]["name"] == str(a)
    assert obj["distance"] == fa.distance(fb) == len(obj["differing_bits"]) == len(obj["bits"])
    assert len(obj["a"]["votes"]) == 64
    text_b = b.read_text()
    for s, e in obj["only_b"]["chars"]:
        assert 0 <= s < e <= len(text_b)
    assert any("fell" in text_b[s:e] for s, e in obj["only_b"]["chars"])


def test_explain_ids_in_a_folder(capfdbinary, pair: tuple[Path, Path]) -> None:
    a, _ = pair
    code, out, err = run(capfdbinary, "explain", "a.txt", "b.txt", "--in", str(a.parent), "--no-cache")
    assert code == 0, err
    assert "a.txt" in out
    code, _, err = run(capfdbinary, "explain", "a.txt", "nope.txt", "--in", str(a.parent), "--no-cache")
    assert code == 1 and "nope.txt: no such document" in err


def test_explain_html_pipeline(capfdbinary, tmp_path: Path) -> None:
    a, b = tmp_path / "a.html", tmp_path / "b.html"
    a.write_text("<html><body><div class=x><p>hi</p></div></body></html>")
    b.write_text("<html><body><div class=y><p>hi</p><br></div></body></html>")
    code, out, _ = run(capfdbinary, "explain", "--pipeline", "html", "--json", str(a), str(b))
    assert code == 0
    assert json.loads(out)["pipeline"].startswith("html-distance/1")


def test_explain_bad_input(capfdbinary, pair: tuple[Path, Path]) -> None:
    a, _ = pair
    code, _, err = run(capfdbinary, "explain", str(a))
    assert code == 2 and "two documents" in err
    code, _, err = run(capfdbinary, "explain", str(a), str(a.parent / "missing.txt"))
    assert code == 1 and "no such file" in err
    code, _, err = run(capfdbinary, "explain", str(a), str(a.parent))
    assert code == 1 and "folder" in err


@pytest.fixture
def chain(tmp_path: Path) -> Path:
    """Five versions of a text, each a small edit of the previous one: one chain family."""
    root = tmp_path / "chain"
    root.mkdir()
    words = TEXT.split()
    for i in range(5):
        words[3 + 4 * i] = f"edit{i}"
        (root / f"v{i}.txt").write_text(" ".join(words))
    return root


def _fp(path: Path) -> int:
    return int(Featurizer().fingerprint(path.read_bytes()))


def test_explain_chain_names_every_hop(capfdbinary, chain: Path) -> None:
    fps = [_fp(chain / f"v{i}.txt") for i in range(5)]
    hops = [(fps[i] ^ fps[i + 1]).bit_count() for i in range(4)]
    k = max(hops)
    code, out, err = run(capfdbinary, "explain", "--chain", "v0.txt", "v4.txt", "--in", str(chain),
                         "-k", str(k), "--no-cache", "--json")
    assert code == 0, err
    obj = json.loads(out)
    assert obj["linked"] and obj["joins_at_k"] <= k
    path = obj["path"]
    assert path[0]["id"] == "v0.txt" and path[-1]["id"] == "v4.txt"
    for before, after in zip(path, path[1:], strict=False):
        assert after["hop"] == (int(before["fp"], 16) ^ int(after["fp"], 16)).bit_count() <= obj["joins_at_k"]
    code, out, _ = run(capfdbinary, "explain", "--chain", "v0.txt", "--in", str(chain), "-k", str(k), "--no-cache")
    assert code == 0
    assert "Family of v0.txt" in out and "representative" in out


def test_explain_chain_needs_the_folder(capfdbinary, chain: Path) -> None:
    code, _, err = run(capfdbinary, "explain", "--chain", str(chain / "v0.txt"))
    assert code == 2 and "--in" in err
    code, _, err = run(capfdbinary, "explain", "--chain", "nope", "--in", str(chain), "--no-cache")
    assert code == 1 and "nope" in err


def test_cluster_sweep_counts_every_k(capfdbinary, chain: Path) -> None:
    from ditto_tui.core.clusters import clusters

    code, out, _ = run(capfdbinary, "cluster", "--sweep", "-k", "6", "--json", str(chain))
    assert code == 0
    rows = [json.loads(line) for line in out.splitlines()]
    assert [r["k"] for r in rows] == list(range(7))
    ids = sorted(str(p) for p in chain.iterdir())
    fps = [_fp(Path(i)) for i in ids]
    for r in rows:
        groups = clusters(ids, fps, r["k"], 2)
        assert (r["families"], r["documents"]) == (len(groups), sum(map(len, groups)))
    code, out, _ = run(capfdbinary, "cluster", "--sweep", "-k", "2", str(chain))
    assert out.splitlines()[1].split() == ["k", "families", "documents"]
    assert len(out.splitlines()) == 5
