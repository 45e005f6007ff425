"""The index file: the vectorised writer gives the bytes of the format's first writer, and
every bad input to ``load_index`` is an ``IndexFileError`` found without reading it whole."""

from __future__ import annotations

import errno
import json
import os
import stat
import struct
import threading
import tracemalloc
import zlib
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ditto_tui as dt
from ditto_tui._lib.indexfile import MAGIC, StoredIndex, read_index, write_index
from tests.properties import examples

DATA = Path(__file__).parent.parent / "data"
GOLDEN = DATA / "index-v1.ditto"  # written by the first writer (main at 79edc87)
GOLDEN_IDS = [
    "", "a", "doc-0000001", "café.txt", "日本語/ファイル", "emoji \U0001f600",
    "lone \udc80 surrogate", "nul\x00inside", "tab\tand\nnewline", "z" * 40,
]
GOLDEN_FPS = [
    0, 1, 2**64 - 1, 0x8000000000000000, 0xFF, 0x0123456789ABCDEF, 0xFEDCBA9876543210, 3, 7,
    2**63 - 1,
]


def reference_bytes(pipeline: str, k: int, docs: dict[str, int]) -> bytes:
    """The format as its first writer produced it: one id at a time, no numpy tricks."""
    ids = sorted(docs)
    encoded = [i.encode("utf-8", "surrogatepass") for i in ids]
    offsets = [0]
    for e in encoded:
        offsets.append(offsets[-1] + len(e))
    blob = b"".join(encoded)
    header = json.dumps(
        {"format": 1, "pipeline": pipeline, "k": k, "count": len(ids), "id_bytes": len(blob)},
        sort_keys=True,
    ).encode("utf-8")
    body = b"".join(
        [MAGIC, struct.pack("<I", len(header)), header,
         b"".join(struct.pack("<Q", docs[i]) for i in ids),
         b"".join(struct.pack("<Q", o) for o in offsets), blob]
    )
    return body + struct.pack("<I", zlib.crc32(body))


def test_golden_file_is_read_and_written_again_byte_for_byte(tmp_path: Path) -> None:
    golden = GOLDEN.read_bytes()
    docs = dict(zip(GOLDEN_IDS, GOLDEN_FPS, strict=True))
    assert reference_bytes("ditto/2;char=3;word=1", 5, docs) == golden
    ix = dt.load_index(GOLDEN)
    assert ix.k == 5 and ix.pipeline == dt.ditto(3, 1)
    assert {i: int(ix.fingerprint(i)) for i in ix.ids()} == docs
    again = tmp_path / "again.ditto"
    assert ix.save(again) == len(golden)
    assert again.read_bytes() == golden


# every id a str can be: any code point, lone surrogates, NUL, empty
ids_strategy = st.text(st.characters(codec=None, exclude_categories=()), max_size=12)


@settings(max_examples=examples(120), deadline=None)
@given(
    st.dictionaries(ids_strategy, st.integers(0, 2**64 - 1), max_size=40),
    st.integers(0, 64),
    st.sampled_from(["ditto/2;char=4;word=0", "html-distance/1;shingle=2"]),
)
def test_vectorised_writer_and_reader_equal_the_first_writer(
    tmp_path_factory: pytest.TempPathFactory, docs: dict[str, int], k: int, identity: str
) -> None:
    path = tmp_path_factory.mktemp("f") / "ix.ditto"
    ids = sorted(docs)
    size = write_index(path, StoredIndex(identity, k, ids, np.array([docs[i] for i in ids], np.uint64)))
    want = reference_bytes(identity, k, docs)
    assert path.read_bytes() == want and size == len(want)
    stored = read_index(path)
    assert stored.ids == ids and stored.fingerprints.tolist() == [docs[i] for i in ids]
    assert (stored.pipeline, stored.k) == (identity, k)
    # through the Index too (its ids come out of the index's own id order)
    ix = dt.Index(min(k, 8), dt.pipeline(identity))
    ix.add_many(list(docs), list(docs.values()))
    ix.save(path)
    assert path.read_bytes() == reference_bytes(identity, min(k, 8), docs)


def _valid(tmp_path: Path, n: int = 5) -> Path:
    ix = dt.Index(3)
    ix.add_many([f"doc-{i}" for i in range(n)], np.arange(n, dtype=np.uint64) * 977)
    path = tmp_path / "ix.ditto"
    ix.save(path)
    return path


def _with_header(header: bytes, rest: bytes = b"") -> bytes:
    return MAGIC + struct.pack("<I", len(header)) + header + rest


def _header(**fields: object) -> bytes:
    base = {"format": 1, "pipeline": "ditto/2;char=4;word=0", "k": 3, "count": 0, "id_bytes": 0}
    return json.dumps({**base, **fields}, sort_keys=True).encode()


def _load_in_thread(path: Path, timeout: float = 10.0) -> BaseException | None:
    """``load_index(path)`` in a thread; fails the test if it has not returned in time."""
    outcome: list[BaseException | None] = []

    def run() -> None:
        try:
            dt.load_index(path)
            outcome.append(None)
        except BaseException as exc:  # noqa: BLE001 - handed to the test
            outcome.append(exc)

    worker = threading.Thread(target=run, daemon=True)
    worker.start()
    worker.join(timeout)
    if worker.is_alive():  # release a reader blocked on a FIFO before failing
        fd = os.open(path, os.O_WRONLY | os.O_NONBLOCK)
        os.close(fd)
        pytest.fail(f"load_index({path}) did not return within {timeout} s")
    return outcome[0]


def test_a_fifo_is_refused_without_waiting_for_a_writer(tmp_path: Path) -> None:
    fifo = tmp_path / "pipe.ditto"
    os.mkfifo(fifo)
    error = _load_in_thread(fifo)
    assert isinstance(error, dt.IndexFileError) and "a FIFO" in str(error), error
    assert str(fifo) in str(error)


@pytest.mark.skipif(not os.path.exists("/dev/zero"), reason="no /dev/zero")
def test_dev_zero_is_refused_without_reading() -> None:
    tracemalloc.start()
    try:
        with pytest.raises(dt.IndexFileError, match="/dev/zero: a character device"):
            dt.load_index("/dev/zero")
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 1 << 20


def test_a_folder_a_symlink_loop_and_a_socket_are_index_file_errors(tmp_path: Path) -> None:
    with pytest.raises(dt.IndexFileError, match="a folder"):
        dt.load_index(tmp_path)
    loop = tmp_path / "loop.ditto"
    os.symlink(loop, loop)
    with pytest.raises(dt.IndexFileError, match="loop.ditto: not an index file"):
        dt.load_index(loop)
    a, b = tmp_path / "a", tmp_path / "b"
    os.symlink(b, a)
    os.symlink(a, b)
    with pytest.raises(dt.IndexFileError):
        dt.load_index(a)
    import socket

    sock_path = tmp_path / "s"
    with socket.socket(socket.AF_UNIX) as sock:
        try:
            sock.bind(str(sock_path))
        except OSError:  # a path too long for AF_UNIX
            return
        assert stat.S_ISSOCK(os.stat(sock_path).st_mode)
        with pytest.raises(dt.IndexFileError):
            dt.load_index(sock_path)


def test_missing_and_unreadable_files_stay_os_errors(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError):
        dt.load_index(tmp_path / "missing.ditto")
    broken = tmp_path / "broken.ditto"
    os.symlink(tmp_path / "nowhere", broken)
    with pytest.raises(FileNotFoundError):
        dt.load_index(broken)
    path = _valid(tmp_path)
    path.chmod(0)
    try:
        if os.access(path, os.R_OK):  # root reads anything
            return
        with pytest.raises(PermissionError):
            dt.load_index(path)
    finally:
        path.chmod(0o600)


def test_deeply_nested_header_is_an_index_file_error(tmp_path: Path) -> None:
    path = tmp_path / "nested.ditto"
    for header in (b"[" * 100_000, b"{" * 100_000, b'{"a":' * 50_000, b"[" * 40 + b"]" * 40):
        path.write_bytes(_with_header(header))
        with pytest.raises(dt.IndexFileError, match="corrupted header"):
            dt.load_index(path)
    path.write_bytes(_with_header(b"1" * 100_000))  # Python refuses ints that long
    with pytest.raises(dt.IndexFileError, match="corrupted header"):
        dt.load_index(path)


def test_sizes_are_checked_against_the_file_before_reading(tmp_path: Path) -> None:
    path = tmp_path / "sizes.ditto"
    # a header announcing a huge body: refused from its size, nothing allocated
    path.write_bytes(_with_header(_header(count=10**12, id_bytes=10**12)))
    tracemalloc.start()
    try:
        with pytest.raises(dt.IndexFileError, match=r"truncated: .* expected .* for 1000000000000"):
            dt.load_index(path)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 1 << 20
    # a 3 GB file (sparse: no disk) behind a header announcing 0 documents: refused
    # from fstat, without reading it
    with open(path, "wb") as f:
        f.write(_with_header(_header()))
        f.truncate(3 << 30)
    tracemalloc.start()
    try:
        with pytest.raises(dt.IndexFileError, match="unexpected bytes after the data"):
            dt.load_index(path)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 1 << 20
    # a header length past the end
    path.write_bytes(MAGIC + struct.pack("<I", 5000) + b"{}")
    with pytest.raises(dt.IndexFileError, match="truncated: .* the header alone needs 5012"):
        dt.load_index(path)
    path.write_bytes(MAGIC + struct.pack("<I", 0xFFFFFFFF))
    with pytest.raises(dt.IndexFileError, match="implausible"):
        dt.load_index(path)


def test_a_size_mismatch_either_way(tmp_path: Path) -> None:
    data = _valid(tmp_path).read_bytes()
    bad = tmp_path / "bad.ditto"
    bad.write_bytes(data[:-1])
    with pytest.raises(dt.IndexFileError, match=r"truncated: \d+ bytes, expected \d+ for 5 documents"):
        dt.load_index(bad)
    bad.write_bytes(data + b"\0\0")
    with pytest.raises(dt.IndexFileError, match="2 unexpected bytes"):
        dt.load_index(bad)


@pytest.mark.parametrize(
    ("fields", "needle"),
    [
        ({"k": "3"}, "bad field 'k'"),
        ({"k": True}, "bad field 'k'"),
        ({"k": 3.0}, "bad field 'k'"),
        ({"count": None}, "bad field 'count'"),
        ({"pipeline": 7}, "bad field 'pipeline'"),
        ({"count": -1}, "negative"),
        ({"format": 2}, "format 2 is not supported"),
    ],
)
def test_header_fields_have_exact_types(tmp_path: Path, fields: dict, needle: str) -> None:
    path = tmp_path / "fields.ditto"
    path.write_bytes(_with_header(_header(**fields), b"\0" * 12))
    with pytest.raises(dt.IndexFileError, match=needle):
        dt.load_index(path)


def test_ids_cut_inside_a_character_or_repeated_are_refused(tmp_path: Path) -> None:
    """Offsets that split a UTF-8 sequence (each half invalid on its own, the whole blob
    valid) and a repeated id are damage, even with a correct checksum."""
    path = tmp_path / "ids.ditto"

    def write(blob: bytes, offsets: list[int], fps: list[int]) -> None:
        header = _header(count=len(fps), id_bytes=len(blob))
        body = _with_header(
            header,
            np.array(fps, "<u8").tobytes() + np.array(offsets, "<u8").tobytes() + blob,
        )
        path.write_bytes(body + struct.pack("<I", zlib.crc32(body)))

    write("é".encode(), [0, 1, 2], [1, 2])
    with pytest.raises(dt.IndexFileError, match="not valid UTF-8"):
        dt.load_index(path)
    write(b"\xff", [0, 1], [1])
    with pytest.raises(dt.IndexFileError, match="not valid UTF-8"):
        dt.load_index(path)
    write(b"abab", [0, 2, 4], [1, 2])
    with pytest.raises(dt.IndexFileError, match="appears twice"):
        dt.load_index(path)
    write(b"ab", [0, 2, 1], [1, 2])
    with pytest.raises(dt.IndexFileError, match="offsets are inconsistent"):
        dt.load_index(path)
    write("éa".encode(), [0, 2, 3], [5, 6])  # the same, cut where it should be: fine
    assert dt.load_index(path).ids() == ["a", "é"]


# -- save names the path it was given ---------------------------------------------------
def test_save_errors_name_the_path_given(tmp_path: Path) -> None:
    ix = dt.Index(3)
    ix.add("a", 1)
    missing = tmp_path / "no-such-folder" / "ix.ditto"
    with pytest.raises(FileNotFoundError) as info:
        ix.save(missing)
    assert info.value.filename == str(missing) and info.value.errno == errno.ENOENT
    assert str(missing) in str(info.value) and ".tmp" not in str(info.value)
    folder = tmp_path / "a-folder"
    folder.mkdir()
    with pytest.raises(IsADirectoryError) as info2:
        ix.save(folder)
    assert info2.value.filename == str(folder) and ".tmp" not in str(info2.value)
    assert os.listdir(tmp_path) == ["a-folder"] and os.listdir(folder) == []  # no temporary left
    readonly = tmp_path / "readonly"
    readonly.mkdir()
    readonly.chmod(0o500)
    try:
        if not os.access(readonly, os.W_OK):  # (root writes anywhere)
            with pytest.raises(PermissionError) as info3:
                ix.save(readonly / "ix.ditto")
            assert info3.value.filename == str(readonly / "ix.ditto")
    finally:
        readonly.chmod(0o700)
    assert ix.save(os.fsencode(tmp_path / "bytes.ditto")) > 0  # type: ignore[arg-type]
    assert dt.load_index(tmp_path / "bytes.ditto").ids() == ["a"]
