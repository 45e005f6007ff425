"""Put a report on disk: never over an existing file unless asked, never half."""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence

from ditto_tui.core.families.clusters import Family, Mode
from ditto_tui.corpus.atomic import output_file
from ditto_tui.report.gather import ReportCorpus, ReportIndex, gather_report
from ditto_tui.report.model import DEFAULT_LIMITS, Report, ReportLimits
from ditto_tui.report.render import render_report

__all__ = ["write_html_report", "write_report"]


def write_report(page: str, dest: str | os.PathLike[str], *, overwrite: bool = False) -> int:
    """Write ``page`` (UTF-8) to ``dest``; return the number of bytes written.

    An existing ``dest`` raises ``FileExistsError`` unless ``overwrite``; then it is
    replaced atomically (a failure leaves the old file as it was). A failure while writing
    a new file leaves no file behind.
    """
    data = page.encode("utf-8")
    with output_file(dest, overwrite=overwrite, prefix=".ditto-report-") as handle:
        handle.write(data)
    return len(data)


def write_html_report(
    corpus: ReportCorpus,
    index: ReportIndex,
    dest: str | os.PathLike[str],
    *,
    k: int,
    mode: Mode = "chain",
    min_size: int = 2,
    pattern: str = "",
    families: Sequence[Family] | None = None,
    chart_k: int | None = None,
    absolute_paths: bool = False,
    limits: ReportLimits = DEFAULT_LIMITS,
    overwrite: bool = False,
    decisions: Mapping[str, str] | None = None,
) -> tuple[Report, int]:
    """Gather, render and write a report in one call (for the CLI and the explorer's export,
    which should run it off the UI thread); returns the report and the bytes written.

    Arguments are those of :func:`~ditto_tui.report.gather.gather_report` and
    :func:`write_report`; an existing ``dest`` raises ``FileExistsError`` before any
    document is read unless ``overwrite``.
    """
    if not overwrite and os.path.lexists(dest):
        raise FileExistsError(f"{dest} exists")
    report = gather_report(corpus, index, k=k, mode=mode, min_size=min_size, pattern=pattern,
                           families=families, chart_k=chart_k, absolute_paths=absolute_paths,
                           limits=limits, decisions=decisions)
    return report, write_report(render_report(report), dest, overwrite=overwrite)
