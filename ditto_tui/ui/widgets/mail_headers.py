"""MailHeaders: the subject, sender and date of the mail messages of a family, for the
member list's Subject and From columns.

Read in a thread worker of the widget that owns them (at most the first 2,000 members of
a family, each message once) through the corpus source (``mail_info``); a message that
cannot be read gets empty headers. The headers read are handed back on the UI thread with
the family they were read for (``read``); those of documents that changed are forgotten.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Any

from textual.widget import Widget

from ditto_tui.corpus.documents import MAIL_KINDS
from ditto_tui.explore.snapshot import Snapshot
from ditto_tui.ui.listing import ShownFamily
from ditto_tui.ui.widgets.member_rows import MailInfo

__all__ = ["MAIL_MEMBERS", "MailHeaders"]

MAIL_MEMBERS = 2000  # members of a family whose headers are read


class MailHeaders:
    """The headers read so far (``infos``, by document id), read by ``owner``'s worker
    through ``reader()`` (the corpus source); ``read(family)`` runs once a family's are in."""

    def __init__(
        self,
        owner: Widget,
        reader: Callable[[], Any],
        read: Callable[[ShownFamily], None],
    ) -> None:
        self._owner = owner
        self._reader = reader
        self._read = read
        self.infos: dict[str, MailInfo] = {}

    def load(self, family: ShownFamily, snapshot: Snapshot | None) -> None:
        """Read the headers of ``family``'s messages not read yet (the worker replaces the
        one running)."""
        self._owner.run_worker(
            partial(self._load, family, snapshot),
            name="load_mail_infos",
            group="mail",
            description="load_mail_infos",
            exclusive=True,
            thread=True,
        )

    def forget(self, doc_ids: frozenset[str] | set[str] | None = None) -> None:
        """Documents changed on disk: their headers are read again (None: every one)."""
        if doc_ids is None:
            self.infos.clear()
            return
        for doc_id in doc_ids:
            self.infos.pop(doc_id, None)

    def _load(self, family: ShownFamily, snapshot: Snapshot | None) -> None:
        if snapshot is None:
            return
        documents = snapshot.documents
        wanted = [
            m
            for m in family.members[:MAIL_MEMBERS]
            if m not in self.infos
            and (doc := documents.get(m)) is not None
            and doc.kind in MAIL_KINDS
        ]
        if not wanted:
            return
        reader = self._reader()
        found: dict[str, MailInfo] = {}
        for doc_id in wanted:
            try:
                info = reader.mail_info(doc_id)
            except Exception:
                info = None
            found[doc_id] = (info.subject, info.sender, info.date) if info else ("", "", "")
        self._owner.app.call_from_thread(self._found, family, found)

    def _found(self, family: ShownFamily, found: dict[str, MailInfo]) -> None:
        self.infos.update(found)
        self._read(family)
