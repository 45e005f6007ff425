"""Every process-wide change the corpus layer makes to a library, and why.

watchdog 6 drops an inotify queue overflow silently: its inotify parser yields the
``IN_Q_OVERFLOW`` event (watch descriptor -1) and nothing acts on it, so changes the
kernel could not queue would be lost for good. :func:`install_overflow_probe` wraps
``watchdog.observers.inotify_c.Inotify._parse_event_buffer`` (a private method: checked
for at install time, skipped when absent) so such an event calls ``on_overflow`` and logs
``"Inotify queue overflowed"``, and attaches a handler to the ``watchdog.observers``
logger that does the same for the overflows watchdog does report. The watcher then
rescans (``tests/corpus/test_watch.py``: ``test_overflow_triggers_a_rescan`` and
``test_kernel_overflow_event_is_not_dropped``).
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Iterator

OVERFLOW_MESSAGE = "Inotify queue overflowed"
WATCHDOG_LOGGER = "watchdog.observers"

_installed = False
_lock = threading.Lock()


class _OverflowLogHandler(logging.Handler):
    """Turns watchdog's overflow log records into calls of ``on_overflow``."""

    def __init__(self, on_overflow: Callable[[], None]) -> None:
        super().__init__(level=logging.DEBUG)
        self._on_overflow = on_overflow

    def emit(self, record: logging.LogRecord) -> None:
        try:
            message = record.getMessage()
        except Exception:  # noqa: BLE001 - a malformed record must not break logging
            return
        if "overflow" in message.lower():
            self._on_overflow()


def install_overflow_probe(on_overflow: Callable[[], None]) -> None:
    """Make inotify overflows call ``on_overflow`` (once per process; later calls do
    nothing)."""
    global _installed
    with _lock:
        if _installed:
            return
        _installed = True
        logging.getLogger(WATCHDOG_LOGGER).addHandler(_OverflowLogHandler(on_overflow))
        try:
            from watchdog.observers import inotify_c
        except (ImportError, OSError):  # not Linux: no inotify
            return
        inotify_cls = inotify_c.Inotify
        original = inotify_cls.__dict__.get("_parse_event_buffer")
        if not isinstance(original, staticmethod):
            return  # another watchdog: its own handling stands
        parse_buffer = original.__func__
        overflow_mask = inotify_c.InotifyConstants.IN_Q_OVERFLOW
        c_logger = logging.getLogger("watchdog.observers.inotify_c")

        def parse(event_buffer: bytes) -> Iterator[tuple[int, int, int, bytes]]:
            for event in parse_buffer(event_buffer):
                wd, mask = event[0], event[1]
                if wd == -1 and mask & overflow_mask:
                    on_overflow()
                    c_logger.warning(OVERFLOW_MESSAGE)
                yield event

        inotify_cls._parse_event_buffer = staticmethod(parse)  # type: ignore[method-assign, assignment]
