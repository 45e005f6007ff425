"""The writer thread keeps nothing it handed over: an answer to a question (a near graph
holds a label array per k), or a batch it applied, is freed while the thread waits."""

from __future__ import annotations

import gc
import time
import weakref

from ditto_tui.explore import Explorer, MemorySource


class _Answer:
    """Something large a question returns (weakly referable)."""


def test_the_writer_keeps_no_answer_once_asked() -> None:
    explorer = Explorer(MemorySource({f"d{i}": i << 8 for i in range(40)}, batch=9), max_k=3)
    explorer.start()
    try:
        assert explorer.wait_idle()
        answer = explorer._writer.ask(_Answer)
        assert isinstance(answer, _Answer)
        ref = weakref.ref(answer)
        del answer
        time.sleep(0.3)  # the writer waits for its next operation meanwhile
        gc.collect()
        assert ref() is None
    finally:
        explorer.close()
