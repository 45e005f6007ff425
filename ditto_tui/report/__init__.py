"""A shareable report: near-duplicate families with their diffs in one HTML file.

:func:`gather_report` collects a :class:`Report` from a corpus and its index (reading the
documents, bounded by :class:`ReportLimits`); :func:`render_report` turns it into one
self-contained, script-optional HTML page; :func:`write_report` puts it on disk without
overwriting anything unless asked; :func:`write_html_report` does all three.
"""

from ditto_tui.report.gather import gather_report
from ditto_tui.report.model import DEFAULT_LIMITS, Report, ReportLimits
from ditto_tui.report.render import render_report
from ditto_tui.report.write import write_html_report, write_report

__all__ = ["DEFAULT_LIMITS", "Report", "ReportLimits", "gather_report", "render_report",
           "write_html_report", "write_report"]
