"""What the user is told about actions, in one place: the hard-link warning, the mail
refusal, and the phrases for a folder moved while acting and for a failed write."""

from __future__ import annotations

import errno

from ditto_tui.corpus.actions.folders import At

__all__ = ["LINK_WARNING", "MAIL_REASON", "moved_reason", "write_reason"]

#: Why a mail message is never acted on (mailboxes are export-only).
MAIL_REASON = "a mail message: mailboxes are never modified in place (export it instead)"
#: What a hard link means for the user's files, said in the dry run, the confirmation and
#: the README (as fclones and rdfind say it).
LINK_WARNING = (
    "Hard links share one content: after linking, editing either copy in place changes "
    "both, and undo can only bring back the bytes the file had when it was linked."
)


def write_reason(exc: OSError) -> str:
    """A short phrase for an error met while *writing* (never "unreadable")."""
    code = exc.errno
    if code == errno.ENOSPC:
        return "no space left on the device"
    if code == getattr(errno, "EDQUOT", -1):
        return "disk quota exceeded"
    if code == errno.EROFS:
        return "read-only filesystem"
    if code in (errno.EACCES, errno.EPERM):
        return "permission denied"
    return str(exc.strerror or type(exc).__name__)


def moved_reason(at: At) -> str:
    """Why a step stopped: the folder ``at`` is in is no longer where it was."""
    return f"the folder {at.rel or '.'} of {at.show} was replaced or moved while acting"
