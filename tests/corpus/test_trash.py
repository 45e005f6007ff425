"""The freedesktop trash layout ditto-tui writes (and can restore from)."""

from __future__ import annotations

import os
from pathlib import Path

from ditto_tui.corpus.trash import (
    NAME_MAX,
    TRASH_ENV,
    trash_folder_for,
    trash_name,
    trashinfo_text,
    write_trashinfo,
)


def test_trash_location_precedence(tmp_path: Path, monkeypatch) -> None:
    f = tmp_path / "f.txt"
    f.write_text("x")
    monkeypatch.delenv(TRASH_ENV, raising=False)
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    assert trash_folder_for(str(f)) == tmp_path / "data" / "Trash"  # same filesystem
    monkeypatch.setenv(TRASH_ENV, str(tmp_path / "env-trash"))
    assert trash_folder_for(str(f)) == tmp_path / "env-trash"
    assert trash_folder_for(str(f), tmp_path / "explicit") == tmp_path / "explicit"


def test_trash_names_fit_and_keep_the_extension() -> None:
    long = "/x/" + "n" * 300 + ".txt"
    name = trash_name("ditto-20260101T000000-abcdef-12", long)
    assert len(os.fsencode(name + ".trashinfo")) <= NAME_MAX
    assert name.startswith("ditto-20260101T000000-abcdef-12-") and name.endswith(".txt")
    assert trash_name("t-1", "/a/b c.txt") == "t-1-b c.txt"


def test_trashinfo_percent_encodes_bytes_and_is_exclusive(tmp_path: Path) -> None:
    original = os.fsdecode(b"/data/caf\xe9 and %.txt")
    text = trashinfo_text(original, when=0).decode()
    assert "Path=/data/caf%E9%20and%20%25.txt\n" in text
    assert text.startswith("[Trash Info]\n") and "DeletionDate=19" in text
    info = tmp_path / "x.trashinfo"
    write_trashinfo(str(info), "/a")
    try:
        write_trashinfo(str(info), "/b")
    except FileExistsError:
        pass
    else:  # pragma: no cover
        raise AssertionError("a reserved name was overwritten")
    assert "Path=/a\n" in info.read_text()
