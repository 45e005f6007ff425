"""export_families: CSV and JSON lines of families, never clobbering without permission."""

from __future__ import annotations

import csv
import json
from dataclasses import dataclass

import pytest

from ditto_tui.corpus.export import CSV_HEADER, export_families, write_families


@dataclass(frozen=True)
class Fam:
    members: tuple[str, ...]
    centre: str
    diameter: int

    @property
    def size(self) -> int:
        return len(self.members)


FPS = {"a.txt": 0b0000, "b.txt": 0b0011, "c.txt": 0b0001, "d/e.txt": 0xFFFF_FFFF_FFFF_FFFF}
FAMILIES = [Fam(("a.txt", "b.txt", "c.txt"), "c.txt", 2), Fam(("d/e.txt",), "d/e.txt", 0)]


def test_csv_has_one_row_per_member_sorted_by_distance(tmp_path):
    dest = tmp_path / "out.csv"
    assert export_families(FAMILIES, dest, fmt="csv", k=3, mode="chain", fingerprints=FPS) == 2
    rows = list(csv.reader(dest.open(encoding="utf-8")))
    assert tuple(rows[0]) == CSV_HEADER
    body = rows[1:]
    assert [r[4] for r in body] == ["c.txt", "a.txt", "b.txt", "d/e.txt"]
    assert [r[5] for r in body] == ["0", "1", "1", "0"]
    assert body[0][:4] == ["1", "3", "2", "c.txt"]
    assert body[3][6] == "ffffffffffffffff"
    assert {r[7] for r in body} == {"3"} and {r[8] for r in body} == {"chain"}


def test_jsonl_has_one_object_per_family(tmp_path):
    dest = tmp_path / "out.jsonl"
    export_families(FAMILIES, dest, fmt="jsonl", k=5, mode="star", fingerprints=FPS.__getitem__)
    records = [json.loads(line) for line in dest.read_text(encoding="utf-8").splitlines()]
    assert [r["family"] for r in records] == [1, 2]
    assert records[0]["representative"] == "c.txt"
    assert records[0]["members"][0] == {
        "id": "c.txt",
        "fingerprint": "0000000000000001",
        "distance": 0,
    }
    assert records[1]["size"] == 1 and records[1]["k"] == 5 and records[1]["mode"] == "star"


def test_existing_file_is_kept_unless_overwrite(tmp_path):
    dest = tmp_path / "out.csv"
    dest.write_text("precious", encoding="utf-8")
    with pytest.raises(FileExistsError):
        export_families(FAMILIES, dest, k=3, mode="chain", fingerprints=FPS)
    assert dest.read_text(encoding="utf-8") == "precious"
    export_families(FAMILIES, dest, k=3, mode="chain", fingerprints=FPS, overwrite=True)
    assert dest.read_text(encoding="utf-8").startswith("family,")
    assert [p.name for p in tmp_path.iterdir()] == ["out.csv"]  # no temporary left behind


def test_bad_format_and_missing_fingerprint_leave_nothing(tmp_path):
    with pytest.raises(ValueError):
        export_families(
            FAMILIES, tmp_path / "x.xml", fmt="xml", k=3, mode="chain", fingerprints=FPS
        )
    with pytest.raises(KeyError):
        export_families(FAMILIES, tmp_path / "y.csv", k=3, mode="chain", fingerprints={"a.txt": 0})
    assert list(tmp_path.iterdir()) == []


def test_undecodable_ids_are_written_as_their_bytes(tmp_path):
    name = b"caf\xe9.txt".decode("utf-8", "surrogateescape")
    dest = tmp_path / "out.csv"
    export_families([Fam((name,), name, 0)], dest, k=3, mode="chain", fingerprints={name: 1})
    assert b"caf\xe9.txt" in dest.read_bytes()


def test_write_families_to_a_stream_matches_the_file(tmp_path):
    import io

    stream = io.StringIO()
    assert write_families(FAMILIES, stream, fmt="jsonl", k=3, mode="chain", fingerprints=FPS) == 2
    dest = tmp_path / "f.jsonl"
    export_families(FAMILIES, dest, fmt="jsonl", k=3, mode="chain", fingerprints=FPS)
    assert stream.getvalue() == dest.read_text(encoding="utf-8")
