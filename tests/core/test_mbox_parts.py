"""An mbox split and fingerprinted by the compiled kernel: the same messages (offsets,
sizes, order) as ``split_mbox`` and the same fingerprints as one call per message, through
every kernel, with postmark-like lines inside bodies, CRLF, empty messages, no trailing
newline, and the work cut into small chunks and several threads."""

from __future__ import annotations

import mailbox
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ditto_tui.core import Featurizer
from ditto_tui.core.fingerprint import _mbox_parts
from ditto_tui.corpus.mail import split_mbox

pytestmark = pytest.mark.usefixtures("engine_kernel")

POSTMARK = b"From someone@example.org Mon Jan  5 10:00:00 2026"
LINES = (
    POSTMARK,
    b"From ",
    b"From",
    b"From x",
    b">From quoted",
    b" From indented",
    b"from lower",
    b"FromX Mon",
    b"",
    b"\r",
    b"Subject: caf\xc3\xa9",
    b"body text with From inside",
    b"\xff\xfe raw bytes",
    b"<p>tag</p>",
    b"line " * 30,
)
lines = st.lists(st.sampled_from(LINES), max_size=40)


@st.composite
def mboxes(draw: st.DrawFn) -> bytes:
    """Lines (postmarks among them, or not) joined by LF or CRLF, maybe with a final
    newline, maybe with text before the first postmark."""
    eol = draw(st.sampled_from([b"\n", b"\r\n"]))
    parts = draw(lines)
    data = eol.join(parts)
    if draw(st.booleans()):
        data += eol
    if draw(st.booleans()):
        data = POSTMARK + eol + data
    return data


@pytest.fixture
def small_work(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Chunks of two messages, a thread per 64 bytes and regions of 64 bytes, so small mboxes
    exercise all three."""
    monkeypatch.setattr(_mbox_parts, "CHUNK", 2)
    monkeypatch.setattr(_mbox_parts, "MIN_THREAD_BYTES", 64)
    monkeypatch.setattr(_mbox_parts, "REGION_BYTES", 64)
    yield


def _expected(featurizer: Featurizer, data: bytes) -> tuple[list[tuple[int, int]], list[int]]:
    spans = split_mbox(data)
    return spans, [int(featurizer.fingerprint(data[off : off + n])) for off, n in spans]


def _check(featurizer: Featurizer, data: bytes, threads: int, engine_kernel: str) -> None:
    got = featurizer.mbox_parts(data, threads)
    if engine_kernel == "numpy":
        assert got is None
        return
    assert got is not None
    spans, fps = _expected(featurizer, data)
    assert list(zip(got.offsets.tolist(), got.sizes.tolist(), strict=True)) == spans
    assert got.fps.tolist() == fps
    assert got.offsets.dtype == np.int64 and got.fps.dtype == np.uint64


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=mboxes(), threads=st.integers(1, 4))
def test_the_kernels_split_equals_split_mbox(engine_kernel: str, small_work: None, data: bytes,
                                             threads: int) -> None:
    _check(Featurizer(char_n=3, word_n=1), data, threads, engine_kernel)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.binary(max_size=300), threads=st.integers(1, 3))
def test_any_bytes_split_as_split_mbox(engine_kernel: str, small_work: None, data: bytes,
                                       threads: int) -> None:
    _check(Featurizer(), b"From " + data.replace(b"\x00", b"\nFrom "), threads, engine_kernel)


@pytest.mark.parametrize(
    "data",
    [
        b"",
        b"From ",
        b"From x",
        b"From x\n",
        b"From x\n\n",
        b"From x\r\n\r\n",
        b"From a\nFrom b\nFrom c",
        b"From a\n\nFrom b\r\n\r\nFrom c\n",
        b"no postmark at all\nFrom",
        b"text first\nFrom a\nbody\n\n",
        b"From a\nX\n\nbody\nFrom b\nY\n",
    ],
)
def test_edges(engine_kernel: str, small_work: None, data: bytes) -> None:
    for threads in (1, 2, 5):
        _check(Featurizer(), data, threads, engine_kernel)


def test_a_large_mbox_in_two_threads_and_the_standard_library_agrees(
    engine_kernel: str, tmp_path: Path
) -> None:
    """Default chunk and thread sizes; the messages are those Python's ``mailbox`` reads."""
    rng = np.random.default_rng(5)
    words = [b"alpha", b"From", b"beta", b"\xc3\xa9t\xc3\xa9", b"gamma", b"<b>"]
    messages = []
    for i in range(3000):
        body = b"\n".join(b" ".join(rng.choice(words, rng.integers(0, 30)))
                          for _ in range(rng.integers(0, 12)))
        body = b"\n".join(b">" + line if line.startswith(b"From ") else line
                          for line in body.split(b"\n"))
        messages.append(b"Subject: %d\n\n%s\n" % (i, body))
    data = b"".join(POSTMARK + b"\n" + m + b"\n" for m in messages)
    assert len(data) >= _mbox_parts.MIN_THREAD_BYTES and len(messages) > 2 * _mbox_parts.CHUNK
    _check(Featurizer(), data, 2, engine_kernel)
    path = tmp_path / "box.mbox"
    path.write_bytes(data)
    box = mailbox.mbox(str(path), create=False)
    try:
        stored = [box.get_bytes(key, from_=False) for key in box.iterkeys()]
    finally:
        box.close()
    assert [data[off : off + n] for off, n in split_mbox(data)] == stored



def test_a_thread_held_up_leaves_the_other_regions_to_the_other_thread(
    engine_kernel: str, small_work: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The threads take regions as they come free: while the calling thread is held up in
    its first region (another process has its core, say), the other thread does all the
    rest, and the result is still the messages in file order."""
    if engine_kernel == "numpy":
        pytest.skip("the numpy engine has no kernel splitter")
    data = b"".join(POSTMARK + b"\nSubject: %d\n\nbody %d\n\n" % (i, i) for i in range(40))
    region = _mbox_parts._region
    done: list[tuple[bool, int]] = []  # (in the calling thread, region start)
    caller_started, last_done = threading.Event(), threading.Event()
    caller = threading.get_ident()

    def held_up(buf: np.ndarray, lo: int, hi: int, *rest: Any) -> Any:
        here = threading.get_ident() == caller
        if here and not caller_started.is_set():
            caller_started.set()
            assert last_done.wait(30), "the other thread never reached the last region"
        elif not here:
            assert caller_started.wait(30), "the calling thread never took a region"
        result = region(buf, lo, hi, *rest)
        done.append((here, lo))
        if hi == buf.size:
            last_done.set()
        return result

    monkeypatch.setattr(_mbox_parts, "_region", held_up)
    _check(Featurizer(), data, 2, engine_kernel)
    assert len(done) >= 10
    assert sum(here for here, _lo in done) == 1


def _next_postmark(data: bytes, pos: int, hi: int) -> int:
    """The obvious search: the first line start in [pos, hi) that begins with ``From ``."""
    for q in range(pos, hi):
        if (q == 0 or data[q - 1] == 0x0A) and data.startswith(b"From ", q):
            return q
    return hi


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.lists(st.sampled_from([b"\n", b"From ", b"F", b"x", b"\n\n", b"From", b"abcdefghi"]),
                     max_size=30).map(b"".join))
def test_the_next_postmark_from_every_start_to_every_end(engine_kernel: str, data: bytes) -> None:
    """Where a thread's region starts: the splitter with no room only finds the next
    postmark; newlines anywhere in an 8-byte word, several in one, at its edges."""
    if engine_kernel == "numpy":
        pytest.skip("the numpy engine has no kernel splitter")
    from ditto_tui.core.fingerprint import engine

    split = engine.ditto().mbox_split_into
    buf = np.frombuffer(data, dtype=np.uint8)
    none = np.empty(0, dtype=np.int64)
    state = np.zeros(1, dtype=np.int64)
    for pos in range(len(data) + 1):
        for hi in range(pos, len(data) + 1):
            assert split(buf, pos, hi, none, none, state) == 0
            assert int(state[0]) == _next_postmark(data, pos, hi), (pos, hi)
