"""The freedesktop trash layout ditto-tui writes (and can restore from)."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

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


# -- where the system trash is another thing (macOS, Windows): simulated sys.platform --

FREEDESKTOP = ["linux", "freebsd14", "openbsd7", "netbsd10", "dragonfly6", "sunos5", "gnu0"]
OTHER = [("darwin", "macOS"), ("win32", "Windows"), ("cygwin", "Windows (Cygwin)"),
         ("ios", "iOS"), ("android", "Android"), ("emscripten", "Emscripten"),
         ("wasi", "WASI"), ("plan9", "plan9")]


@pytest.mark.parametrize("platform", FREEDESKTOP)
def test_the_system_trash_is_the_freedesktop_trash_on_linux_and_the_bsds(
    platform: str, tmp_path: Path, monkeypatch
) -> None:
    from ditto_tui.corpus.trash import check_trash, system_trash_refusal, trash_refusal

    monkeypatch.delenv(TRASH_ENV, raising=False)
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    monkeypatch.setattr(sys, "platform", platform)  # read at each call, not at import
    assert system_trash_refusal() is None and trash_refusal() is None
    check_trash()
    f = tmp_path / "f.txt"
    f.write_text("x")
    assert trash_folder_for(str(f)) == tmp_path / "data" / "Trash"


@pytest.mark.parametrize(("platform", "name"), OTHER)
def test_the_system_trash_is_refused_in_one_line_elsewhere_unless_a_folder_is_given(
    platform: str, name: str, tmp_path: Path, monkeypatch
) -> None:
    from ditto_tui.corpus.trash import (
        TrashUnavailable,
        check_trash,
        system_trash_refusal,
        trash_refusal,
    )

    monkeypatch.delenv(TRASH_ENV, raising=False)
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    monkeypatch.setattr(sys, "platform", platform)
    reason = system_trash_refusal()
    assert reason is not None and "\n" not in reason
    assert f"the system trash on {name} " in reason
    assert "--action move DIR" in reason and "--trash-dir DIR" in reason
    assert trash_refusal() == reason
    with pytest.raises(TrashUnavailable, match="--action move DIR"):
        check_trash()
    f = tmp_path / "f.txt"
    f.write_text("x")
    with pytest.raises(TrashUnavailable):  # never the hidden ~/.local/share/Trash
        trash_folder_for(str(f))
    assert not (tmp_path / "data").exists()
    # an explicit folder is ditto-tui's own trash, with undo: fine on every platform
    assert trash_refusal(tmp_path / "own") is None
    check_trash(tmp_path / "own")
    assert trash_folder_for(str(f), tmp_path / "own") == tmp_path / "own"
    monkeypatch.setenv(TRASH_ENV, str(tmp_path / "env-trash"))
    assert trash_refusal() is None and trash_folder_for(str(f)) == tmp_path / "env-trash"
