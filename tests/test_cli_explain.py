"""``ditto-tui explain``: two files, two ids in a folder, JSON, and bad input."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ditto_tui.cli.main import main
from ditto_tui.core import Featurizer

TEXT = (
    "The quarterly report shows revenue grew in every region, while costs stayed flat.\n"
    "The board thanked the staff and approved the budget for the coming year.\n"
)


def run(capfdbinary, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
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


def _components(ids: list[str], fps: list[int], k: int, min_size: int = 2) -> list[list[str]]:
    from ditto_tui.core.families.clusters import clusters

    return clusters(ids, fps, k, min_size)


def _diameter(group: list[str], fp: dict[str, int]) -> int:
    return max((fp[a] ^ fp[b]).bit_count() for a in group for b in group)


def test_cluster_sweep_counts_every_k(capfdbinary, chain: Path) -> None:
    code, out, _ = run(capfdbinary, "cluster", "--sweep", "-k", "6", "--json", str(chain))
    assert code == 0
    rows = [json.loads(line) for line in out.splitlines()]
    assert [r["k"] for r in rows] == list(range(7))
    ids = sorted(str(p) for p in chain.iterdir())
    fps = [_fp(Path(i)) for i in ids]
    fp = dict(zip(ids, fps, strict=True))
    for r in rows:
        groups = _components(ids, fps, r["k"])
        assert (r["families"], r["documents"], r["of"]) == (len(groups), sum(map(len, groups)), 5)
        # the new columns, by brute force over every pair
        diams = [_diameter(g, fp) for g in groups]
        assert r["largest"] == max(map(len, groups), default=0)
        assert (r["diameter"], r["diameter_exact"]) == (max(diams, default=0), True)
        assert r["too_wide"] == sum(1 for d in diams if d > 2 * r["k"] and d > r["k"] + 4)
    code, out, _ = run(capfdbinary, "cluster", "--sweep", "-k", "2", str(chain))
    lines = out.splitlines()
    assert lines[1].split() == ["k", "families", "documents", "largest", "diameter", "too", "wide"]
    assert len(lines) == 6 and lines[-1].startswith("largest: documents in the largest family")


def test_cluster_sweep_counts_families_too_wide(capfdbinary, tmp_path: Path) -> None:
    """A drift (each version a small edit of the one before) is flagged too wide at the
    k where its ends are far apart, in the text and in JSON."""
    root = tmp_path / "drift"
    root.mkdir()
    words = (TEXT * 3).split()
    for i in range(12):
        words[2 + 5 * i] = f"changed{i}"
        (root / f"v{i:02d}.txt").write_text(" ".join(words))
    ids = sorted(str(p) for p in root.iterdir())
    fps = [_fp(Path(i)) for i in ids]
    fp = dict(zip(ids, fps, strict=True))
    code, out, _ = run(capfdbinary, "cluster", "--sweep", "-k", "8", "--json", str(root))
    assert code == 0
    rows = [json.loads(line) for line in out.splitlines()]
    for r in rows:
        diams = [_diameter(g, fp) for g in _components(ids, fps, r["k"])]
        assert r["too_wide"] == sum(1 for d in diams if d > 2 * r["k"] and d > r["k"] + 4)
    assert any(r["too_wide"] for r in rows), "the drift is flagged at some k"
    code, out, _ = run(capfdbinary, "cluster", "--sweep", "-k", "8", str(root))
    table = [line.split() for line in out.splitlines()[2:11]]
    assert [int(cells[-1]) for cells in table] == [r["too_wide"] for r in rows]


def _leaves(node: dict) -> list[str]:
    if not node["children"]:
        return list(node["members"])
    return sorted(m for c in node["children"] for m in _leaves(c))


def test_cluster_tree_json_nests_the_families_of_every_lower_k(capfdbinary, chain: Path) -> None:
    ids = sorted(str(p) for p in chain.iterdir())
    fps = [_fp(Path(i)) for i in ids]
    fp = dict(zip(ids, fps, strict=True))
    k = max((fps[i] ^ fps[i + 1]).bit_count() for i in range(4))
    code, out, err = run(capfdbinary, "cluster", "--tree", "-k", str(k), "--json", str(chain))
    assert code == 0, err
    roots = [json.loads(line) for line in out.splitlines()]
    assert [r["cluster"] for r in roots] == list(range(1, len(roots) + 1))
    assert sorted(sorted(_leaves(r)) for r in roots) == sorted(_components(ids, fps, k))

    def check(node: dict) -> None:
        members = _leaves(node)
        assert node["size"] == len(members)
        assert node["diameter"] == _diameter(members, fp) and node["diameter_exact"]
        assert node["representative"] in members
        if not node["children"]:
            assert {fp[m] for m in members} == {int(node["fp"], 16)}
            return
        below = {c["k"] for c in node["children"]}
        assert len(below) == 1 and below.pop() < node["k"]
        # the children are the chain families of the node's members at their k
        got = sorted(sorted(_leaves(c)) for c in node["children"])
        sub = [fp[m] for m in members]
        assert got == sorted(_components(members, sub, node["children"][0]["k"], 1))
        for c in node["children"]:
            check(c)

    for root in roots:
        assert root["k"] == k
        check(root)


def test_cluster_tree_text(capfdbinary, tmp_path: Path) -> None:
    root = tmp_path / "docs"
    root.mkdir()
    words = TEXT.split()
    (root / "a.txt").write_text(TEXT)
    (root / "a copy.txt").write_text(TEXT)
    words[3] = "edited"
    (root / "b\x1b[31mred.txt").write_text(" ".join(words))
    (root / "other.txt").write_text("Something else entirely, with no words in common at all here.")
    code, out, err = run(capfdbinary, "cluster", "--tree", "-k", "8", str(root), "--no-cache")
    assert code == 0, err
    lines = out.splitlines()
    assert lines[0] == "4 document(s), 1 chain family at k=8, each with its sub-families down to k=0:"
    assert lines[2].startswith("[1] k=8  3 members  diameter ")
    d = int(lines[2].split()[5])  # the copies split from b at k = d - 1
    assert lines[3] == f"    k={d - 1}  2 members  identical fingerprints"
    assert f"      {root}/a copy.txt" in lines
    assert "\x1b" not in out and "b\\x1b[31mred.txt" in out  # a name is data, escaped
    code, out, _ = run(capfdbinary, "cluster", "--tree", "-k", "8", "--min", "1", "--json", str(root),
                       "--no-cache")
    objs = [json.loads(line) for line in out.splitlines()]
    assert [o["size"] for o in objs] == [3, 1]
    assert objs[1]["members"] == [str(root / "other.txt")] and objs[1]["children"] == []


def test_cluster_tree_refuses_star_and_sweep(capfdbinary, chain: Path) -> None:
    code, _, err = run(capfdbinary, "cluster", "--tree", "--mode", "star", str(chain))
    assert code == 2 and "--mode star" in err
    code, _, err = run(capfdbinary, "cluster", "--tree", "--sweep", str(chain))
    assert code == 2 and "not allowed" in err
    code, _, err = run(capfdbinary, "cluster", "--tree", "-k", "65", str(chain))
    assert code == 2 and "out of range" in err


def test_passages_are_whole_words_cut_with_an_ellipsis(capfdbinary, pair) -> None:
    """Issue 34: passages were cut mid-word («en Kestrel Labs B.V., h»)."""
    import re

    a, _ = pair
    code, out, _ = run(capfdbinary, "explain", str(a), str(pair[1]))
    assert code == 0
    shown = re.findall(r"^  line \d+: «(.*)»$", out, re.M)
    assert shown
    words = set(re.findall(r"\w+", TEXT + TEXT.replace("grew", "fell").replace("flat", "high")))
    for passage in shown:
        assert all(w in words for w in re.findall(r"\w+", passage.strip("…"))), passage


def test_snippet_widens_to_words_and_cuts_at_a_space() -> None:
    from ditto_tui.core.explain.text import snippet

    text = "The quarterly report shows revenue grew in every region, while costs stayed flat."
    start = text.index("arterly")
    assert snippet(text, start, text.index("grew") + 2) == "quarterly report shows revenue grew"
    long = snippet(text, 0, len(text), width=40)
    assert long.endswith("…") and len(long) <= 40
    assert text.startswith(long[:-1]) and text[len(long) - 1] == " "  # cut before a word
    huge = "x" * 100 + " tail"
    assert snippet(huge, 60, len(huge)).startswith("…x")  # a word too long: cut, and says so
    assert snippet("a\x1b[31mb", 0, 7) == "a\\x1b[31mb"
