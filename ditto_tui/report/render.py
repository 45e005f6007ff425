"""Render a :class:`~ditto_tui.report.model.Report` as one self-contained HTML page.

The page needs nothing but itself: no network, no external script, font or style. It is
plain HTML and CSS (folded parts are ``<details>``), readable with scripts disabled; one
small inline script adds sorting and search to the family list and opens the folded part a
link points at. A Content-Security-Policy allows only that script and that style sheet
(by hash) and nothing else, so even a mistake in escaping could not run anything.

Every string from the corpus goes through :func:`esc` (``html.escape`` with
``quote=True``) and only ever into text or a quoted attribute value; no URL is built from
content (links are ``#fN`` fragments made of numbers). Pure functions: data in, ``str`` out.
"""

from __future__ import annotations

import base64
import hashlib
import re
from collections.abc import Iterator
from html import escape

from ditto_tui.core.families.notes import chain_too_wide
from ditto_tui.report.chart import chart_svg
from ditto_tui.report.model import DiffCell, DiffView, FamilyView, MailLine, MemberView, Report

__all__ = ["CSP", "SCRIPT", "STYLE", "bits_html", "content_security_policy", "esc",
           "render_report"]


# Code points the HTML standard makes a parse error (controls other than tab, LF, FF, CR;
# noncharacters) and lone surrogates (not encodable in UTF-8).
_NOT_IN_HTML = re.compile(
    "[\x00-\x08\x0b\x0e-\x1f\x7f-\x9f\ud800-\udfff\ufdd0-\ufdef"
    + "".join(chr(plane << 16 | low) for plane in range(17) for low in (0xFFFE, 0xFFFF))
    + "]"
)


def _code(match: re.Match[str]) -> str:
    code = ord(match.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}" if code < 0x10000 \
        else f"\\U{code:08x}"


def esc(text: str) -> str:
    """``text`` escaped for HTML text and quoted attribute values (``& < > " '``). Code points
    HTML does not allow (controls, noncharacters, lone surrogates; the corpus layer already
    makes controls visible) become ``\\xNN``/``\\uNNNN`` too, as a second line of defence."""
    text = escape(text, quote=True)
    if not text.isprintable():
        text = _NOT_IN_HTML.sub(_code, text)
    return text


STYLE = """
:root{color-scheme:light dark;--bg:#fff;--fg:#1f2328;--muted:#59636e;--line:#d1d9e0;
--head:#f6f8fa;--accent:#0969da;--del:#ffebe9;--delw:#ffb3b0;--ins:#e6ffec;--insw:#9be9a8;
--chg:#fff8c5;--bit:#cf222e;--bitbg:#ffebe9;--bar:#8c959f;--cur:#0969da}
@media (prefers-color-scheme:dark){:root{--bg:#0d1117;--fg:#e6edf3;--muted:#9198a1;
--line:#3d444d;--head:#151b23;--accent:#4493f8;--del:#3c1618;--delw:#8e1519;--ins:#12261e;
--insw:#1f6f3f;--chg:#2e2a14;--bit:#ff7b72;--bitbg:#3c1618;--bar:#656c76;--cur:#4493f8}}
*{box-sizing:border-box}
body{margin:0 auto;max-width:1400px;padding:1rem 1.5rem 3rem;background:var(--bg);
color:var(--fg);font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif}
h1{font-size:1.6rem;margin:.2rem 0 .8rem}h2{font-size:1.25rem;margin:2rem 0 .6rem;
border-bottom:1px solid var(--line);padding-bottom:.2rem}h3{font-size:1.05rem;margin:0 0 .4rem}
a{color:var(--accent)}code,pre,.mono{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:12px}
dl.summary{display:grid;grid-template-columns:max-content 1fr;gap:.15rem 1rem;margin:0}
dl.summary dt{color:var(--muted)}dl.summary dd{margin:0;overflow-wrap:anywhere}
.note{color:var(--muted);font-style:italic}.warn{color:var(--bit)}
table{border-collapse:collapse}th,td{text-align:left;vertical-align:top;padding:.2rem .5rem;
border-bottom:1px solid var(--line)}th{background:var(--head);position:sticky;top:0}
td.num,th.num{text-align:right;font-variant-numeric:tabular-nums}
.name{overflow-wrap:anywhere}.excerpt{color:var(--muted);overflow-wrap:anywhere}
table.list{width:100%}table.list th[data-sort]{cursor:pointer}
section.family{margin:1.2rem 0;padding:.8rem 1rem;border:1px solid var(--line);border-radius:6px}
table.members{width:100%}tr.rep td{background:var(--head)}
.tag{font-size:11px;border:1px solid var(--line);border-radius:9px;padding:0 .4rem;margin-left:.4rem;color:var(--muted)}
pre.bits{margin:0;line-height:1.2;white-space:pre}pre.bits b{color:var(--bit);background:var(--bitbg)}
details.diff>summary,details.more>summary{cursor:pointer;color:var(--accent)}
.sbs-wrap{overflow-x:auto;margin:.3rem 0 .6rem}
table.sbs{width:100%;table-layout:fixed}table.sbs td{border:0;padding:0 .4rem}
table.sbs col.n{width:4.5em}table.sbs th{font-weight:normal;color:var(--muted);position:static}
table.sbs td:nth-child(odd){color:var(--muted);text-align:right;user-select:none;font-size:11px}
table.sbs td:nth-child(even){white-space:pre-wrap;overflow-wrap:anywhere;
font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:12px}
tr.chg td:nth-child(even){background:var(--chg)}tr.del td:nth-child(2){background:var(--del)}
tr.ins td:nth-child(4){background:var(--ins)}
table.sbs del{background:var(--delw);text-decoration:none}
table.sbs ins{background:var(--insw);text-decoration:none}
section.family{content-visibility:auto;contain-intrinsic-size:auto 600px}
table.sbs tr.skip td,tr.skip td{color:var(--muted);text-align:center;font-style:italic;
background:var(--head);font-size:12px}
.cut{color:var(--muted)}
svg.chart{max-width:100%;height:auto}svg .bar{fill:var(--bar)}svg .bar.cur{fill:var(--cur)}
svg .axis{stroke:var(--line)}svg text{fill:var(--fg);font-size:11px;text-anchor:middle}
svg text.ttl{font-size:13px;font-weight:600;text-anchor:start}svg text.lbl{fill:var(--muted)}
#search{font:inherit;padding:.25rem .5rem;width:min(30rem,100%);margin:.2rem 0 .6rem;
background:var(--bg);color:var(--fg);border:1px solid var(--line);border-radius:4px}
.hidden{display:none}footer{margin-top:2rem;color:var(--muted)}
@media print{#search{display:none}th{position:static}section.family{content-visibility:visible}}
"""

SCRIPT = """
(function(){
"use strict";
document.documentElement.setAttribute("data-js","on");
function openTarget(){
  var id=decodeURIComponent(location.hash.slice(1));if(!id){return;}
  var el=document.getElementById(id);if(!el){return;}
  for(var p=el;p;p=p.parentElement){if(p.tagName==="DETAILS"){p.open=true;}}
  el.scrollIntoView({block:"nearest"});
}
window.addEventListener("hashchange",openTarget);openTarget();
function openAll(){document.querySelectorAll("details").forEach(function(d){d.open=true;});}
window.addEventListener("beforeprint",openAll);
var want=new URLSearchParams(location.search).get("open");
if(want==="all"){openAll();}else if(want){want.split(",").forEach(function(id){
  var d=document.getElementById(id);if(d&&d.tagName==="DETAILS"){d.open=true;}});}
var list=document.getElementById("family-list");if(!list){return;}
var body=list.tBodies[0];
list.querySelectorAll("th[data-sort]").forEach(function(th,col){
  th.setAttribute("title","sort");
  th.addEventListener("click",function(){
    var num=th.getAttribute("data-sort")==="num";
    var dir=th.getAttribute("data-dir")==="asc"?"desc":"asc";
    list.querySelectorAll("th[data-sort]").forEach(function(o){o.removeAttribute("data-dir");});
    th.setAttribute("data-dir",dir);
    var rows=Array.prototype.slice.call(body.rows);
    var idx=th.cellIndex;
    rows.sort(function(a,b){
      var x=a.cells[idx].getAttribute("data-v")||a.cells[idx].textContent;
      var y=b.cells[idx].getAttribute("data-v")||b.cells[idx].textContent;
      var c=num?(parseFloat(x)-parseFloat(y)):x.localeCompare(y);
      return dir==="asc"?c:-c;
    });
    rows.forEach(function(r){body.appendChild(r);});
  });
});
var box=document.createElement("input");
box.type="search";box.id="search";box.placeholder="Search families by member path or excerpt";
box.setAttribute("aria-label","search families");
list.parentNode.insertBefore(box,list);
function search(){
  var q=box.value.trim().toLowerCase();
  Array.prototype.forEach.call(body.rows,function(r){
    r.classList.toggle("hidden",q!==""&&r.textContent.toLowerCase().indexOf(q)<0);
  });
  document.querySelectorAll("section.family").forEach(function(s){
    var names=s.querySelectorAll("td.name");var hit=q==="";
    for(var i=0;!hit&&i<names.length;i++){hit=names[i].textContent.toLowerCase().indexOf(q)>=0;}
    s.classList.toggle("hidden",!hit);
  });
}
box.addEventListener("input",search);
var q0=new URLSearchParams(location.search).get("q");
if(q0){box.value=q0;search();}
})();
"""


def _sha256(text: str) -> str:
    return base64.b64encode(hashlib.sha256(text.encode("utf-8")).digest()).decode("ascii")


def content_security_policy(style: str = STYLE, script: str = SCRIPT) -> str:
    """The page's policy: nothing loads or runs except the inline style and script whose
    hashes it names."""
    return (
        "default-src 'none'; "
        f"style-src 'sha256-{_sha256(style)}'; "
        f"script-src 'sha256-{_sha256(script)}'; "
        "img-src 'none'; base-uri 'none'; form-action 'none'"
    )


CSP = content_security_policy()


# --------------------------------------------------------------------------- pieces


def _plural(n: int, one: str, many: str | None = None) -> str:
    return f"{n:,} {one if n == 1 else (many or one + 's')}"


def bits_html(rep: int, member: int | None = None) -> str:
    """The 64 bits of ``rep`` as 4 rows of 16 (bit 63 first, like the explorer), followed on
    each row by ``member``'s bits when given; bits that differ are wrapped in ``<b>``."""
    rows = []
    xor = 0 if member is None else rep ^ member
    for r in range(4):
        hi = 63 - 16 * r
        sides = [rep] if member is None else [rep, member]
        parts = []
        for value in sides:
            out = []
            open_ = False
            for bit in range(hi, hi - 16, -1):
                differ = bool(xor >> bit & 1)
                if differ and not open_:
                    out.append("<b>")
                elif not differ and open_:
                    out.append("</b>")
                open_ = differ
                out.append("1" if value >> bit & 1 else "0")
            if open_:
                out.append("</b>")
            parts.append("".join(out))
        rows.append("  ".join(parts))
    if member is None:
        return '<pre class="bits">' + "\n".join(rows) + "</pre>"
    diff = [str(b) for b in range(63, -1, -1) if xor >> b & 1]
    label = "differing bits: " + (", ".join(diff) if diff else "none")
    return f'<pre class="bits" title="{label}">' + "\n".join(rows) + "</pre>"


def _cell(cell: DiffCell | None, mark: str) -> str:
    if cell is None:
        return "<td></td><td></td>"
    out = []
    if cell.cut_start:
        out.append(f'<span class="cut" title="{cell.cut_start:,} characters not shown">…</span>')
    text = cell.text
    at = 0
    for start, stop in cell.spans:
        out.append(esc(text[at:start]))
        out.append(f"<{mark}>{esc(text[start:stop])}</{mark}>")
        at = stop
    out.append(esc(text[at:]))
    if cell.cut_end:
        out.append('<span class="cut" title="rest of the line not shown">…</span>')
    return f"<td>{cell.number}</td><td>{''.join(out)}</td>"


_ROW_CLASS = {"equal": "eq", "changed": "chg", "deleted": "del", "inserted": "ins"}


def diff_table(view: DiffView, left_name: str, right_name: str) -> str:
    """The side-by-side table of a folded diff (no ``<details>`` around it)."""
    out = [
        '<div class="sbs-wrap"><table class="sbs"><colgroup><col class="n"><col>'
        '<col class="n"><col></colgroup>',
        f'<thead><tr><th colspan="2">{esc(left_name)}</th>'
        f'<th colspan="2">{esc(right_name)}</th></tr></thead><tbody>',
    ]
    for row in view.rows:
        if row.kind == "skip":
            out.append(f'<tr class="skip"><td colspan="4">⋯ {_plural(row.hidden, "equal line")} '
                       "⋯</td></tr>")
            continue
        out.append(f'<tr class="{_ROW_CLASS[row.kind]}">{_cell(row.left, "del")}'
                   f'{_cell(row.right, "ins")}</tr>')
    if view.rows_cut:
        left = view.hunks - view.hunks_shown
        more = f"; {_plural(left, 'further change')} not shown" if left > 0 else ""
        out.append(f'<tr class="skip"><td colspan="4">Diff cut at {len(view.rows):,} rows'
                   f"{more}</td></tr>")
    out.append("</tbody></table></div>")
    return "".join(out)


def _diff_summary(view: DiffView) -> str:
    if view.identical:
        return ("Same text as the representative" if view.same_text else
                "Same words as the representative; only spacing or line breaks differ")
    parts = [f"{n:,} {what}" for n, what in ((view.changed, "changed"), (view.inserted, "added"),
                                              (view.deleted, "removed")) if n]
    total = view.changed + view.inserted + view.deleted
    return "Diff: " + " · ".join(parts) + (" line" if total == 1 else " lines")


def _similarity(distance: int) -> str:
    return f"{(1 - distance / 64) * 100:.2f}%"


def _member_rows(family: FamilyView, member: MemberView, index: int, rep_name: str,
                 decisions: bool) -> str:
    anchor = f"f{family.number}-m{index}"
    cls = ' class="member rep"' if member.representative else ' class="member"'
    tag = '<span class="tag">representative</span>' if member.representative else ""
    notes = "".join(f'<br><span class="note">{esc(n)}</span>'
                    for n in (member.text_note, member.diff_note) if n)
    bits = bits_html(family.representative_fp,
                     None if member.representative else member.fingerprint)
    decision = f'<td class="decision">{esc(member.decision)}</td>' if decisions else ""
    row = (
        f'<tr{cls} id="{anchor}"><td class="name">{esc(member.name)}{tag}'
        f"{_mail_html(member.mail)}{notes}</td>"
        f'<td class="num">{member.distance}</td><td class="num">{_similarity(member.distance)}</td>'
        f'<td><code>{member.fingerprint:016x}</code></td><td>{bits}</td>{decision}</tr>'
    )
    if member.diff is None:
        return row
    view = member.diff
    span = 6 if decisions else 5
    if view.identical:
        return row + (f'<tr class="diffrow"><td colspan="{span}"><span class="note">'
                      f"{_diff_summary(view)}</span></td></tr>")
    return row + (
        f'<tr class="diffrow"><td colspan="{span}"><details class="diff" id="f{family.number}-d{index}">'
        f"<summary>{_diff_summary(view)} (representative left, this member right)</summary>"
        f"{diff_table(view, rep_name, member.name)}</details></td></tr>"
    )


def _mail_html(mail: MailLine | None) -> str:
    """A mail message's subject, then its sender and date, under its (file) name."""
    if mail is None:
        return ""
    by = " · ".join(esc(v) for v in (mail.sender, mail.date) if v)
    return (f'<span class="mail"><br><b>{esc(mail.subject)}</b>'
            + (f'<br><span class="note">{by}</span>' if by else "") + "</span>")


def too_wide(family: FamilyView, k: int, mode: str) -> bool:
    """A chain family whose exact diameter is far above k (``chain_too_wide``): a drift,
    A~B~...~Z, whose ends have little in common, not copies of one document."""
    return mode == "chain" and family.diameter_exact and chain_too_wide(family.diameter, k)


def family_section(family: FamilyView, *, decisions: bool = False, k: int = 0,
                   mode: str = "star") -> str:
    """The detail section of one family: header, members with bits and folded diffs; a
    chain family far wider than ``k`` is flagged."""
    approx = "" if family.diameter_exact else " (upper bound)"
    rep_name = family.representative_name
    out = [
        f'<section class="family" id="f{family.number}">',
        f"<h3>Family {family.number} · {_plural(family.size, 'member')} · "
        f"diameter {family.diameter}{approx}</h3>",
        f'<p>Representative: <span class="name mono">{esc(rep_name)}</span> '
        f"<code>{family.representative_fp:016x}</code>"
        f"{_mail_html(family.members[0].mail if family.members else None)}</p>",
    ]
    if too_wide(family, k, mode):
        out.append(
            f'<p class="note warn">◆ Flagged: diameter {family.diameter} is above 2k={2 * k}. '
            "Its members are joined through one another (single linkage), and its ends have "
            "little in common: a drift, not copies of one document. Keep rules act only on "
            "members within k of a kept copy; star grouping (<code>--mode star</code>) or a "
            "smaller k shows tighter families.</p>")
    if family.text_note:
        out.append(f'<p class="note">{esc(family.text_note)}</p>')
    out.append(
        '<table class="members"><thead><tr><th>Member</th><th class="num">Distance</th>'
        '<th class="num">Similarity</th><th>Fingerprint</th>'
        "<th>Bits (representative · member)</th>"
        + ("<th>Decision</th>" if decisions else "") + "</tr></thead><tbody>"
    )
    for index, member in enumerate(family.members):
        out.append(_member_rows(family, member, index, rep_name, decisions))
    out.append("</tbody></table>")
    if family.omitted:
        out.append(f'<p class="note warn">{_plural(family.omitted, "more member")} not listed '
                   f"(a family lists at most {len(family.members):,}).</p>")
    out.append("</section>")
    return "\n".join(out)


def _summary(report: Report) -> str:
    shown = sum(1 for f in report.families)
    rows = [
        ("Folder", report.root),
        ("Documents", f"{report.documents:,}"),
        ("Skipped", f"{len(report.skipped):,}"),
        ("Pipeline", report.pipeline),
        ("Distance k", str(report.k)),
        ("Grouping", "chain (single linkage, as ditto)" if report.mode == "chain"
         else "star (every member within k of the representative)"),
        ("Smallest family", str(report.min_size)),
        ("Filter", report.pattern or "none"),
        ("Families", f"{shown:,} with {report.documents_in_families:,} documents"),
        ("Created", report.created),
        ("Made by", report.version),
    ]
    out = ['<dl class="summary">']
    for term, value in rows:
        if term == "Skipped" and report.skipped:
            out.append(f'<dt>{term}</dt><dd><a href="#skipped">{esc(value)}</a></dd>')
        else:
            out.append(f"<dt>{term}</dt><dd>{esc(value)}</dd>")
    out.append("</dl>")
    return "".join(out)


def _limits(report: Report) -> str:
    lim = report.limits
    return (
        '<p class="note">Size bounds: a family lists at most '
        f"{lim.members:,} members and shows a diff for at most {lim.diffs:,} of them; "
        f"documents are read up to {lim.doc_bytes // 1024:,} KiB; a diff shows at most "
        f"{lim.diff_rows:,} rows of at most {lim.line_chars:,} characters; all diffs together "
        f"take at most about {lim.diff_budget / 1e6:g} MB; at most "
        f"{lim.families:,} families are detailed and {lim.listed:,} listed. Whatever is cut says so where it "
        "happens. HTML documents are compared as their text, as the explorer shows them.</p>"
    )


def _chart(report: Report) -> str:
    if not report.chart:
        return ""
    top = report.chart[-1].k
    out = [
        '<section id="chart-section"><h2>Families by distance</h2>',
        f'<p class="note">Whole corpus, {report.mode} grouping, families of at least two '
        "documents: how many, the documents in them, the largest one and the largest "
        f"diameter, at each k from 0 to {top} (k = {report.k} highlighted).</p>",
        chart_svg(report.chart, report.k),
        '<details class="more"><summary>Chart data</summary><table class="chart-data">'
        '<thead><tr><th class="num">k</th><th class="num">Families</th>'
        '<th class="num">Documents in families</th><th class="num">Largest family</th>'
        '<th class="num">Largest diameter</th></tr></thead><tbody>',
    ]
    for p in report.chart:
        about = "" if p.diameter_exact else "≤"
        out.append(f'<tr><td class="num">{p.k}</td><td class="num">{p.families:,}</td>'
                   f'<td class="num">{p.documents:,}</td><td class="num">{p.largest:,}</td>'
                   f'<td class="num">{about}{p.diameter}</td></tr>')
    out.append("</tbody></table></details></section>")
    return "\n".join(out)


def _family_list(report: Report) -> str:
    if not report.families:
        return ('<section id="families"><h2>Families</h2><p class="note" id="no-families">'
                "No family matches these settings.</p></section>")
    out = [
        '<section id="families"><h2>Families</h2>',
        '<table class="list" id="family-list"><thead><tr>'
        '<th class="num" data-sort="num">#</th><th class="num" data-sort="num">Size</th>'
        '<th class="num" data-sort="num">Diameter</th><th data-sort="text">Representative</th>'
        "<th>Excerpt</th></tr></thead><tbody>",
    ]
    for f in report.families[: report.limits.listed]:
        name = esc(f.representative_name)
        link = f'<a href="#f{f.number}">{name}</a>' if f.detailed else name
        diameter = str(f.diameter) if f.diameter_exact else f"≤{f.diameter}"
        if too_wide(f, report.k, report.mode):
            diameter = f'<span class="warn" title="above 2k: a drift, not copies">◆ {diameter}</span>'
        out.append(
            f'<tr class="fam"><td class="num">{f.number}</td><td class="num">{f.size}</td>'
            f'<td class="num" data-v="{f.diameter}">{diameter}</td><td class="name">{link}</td>'
            f'<td class="excerpt">{esc(f.excerpt)}</td></tr>'
        )
    out.append("</tbody></table>")
    more = len(report.families) - report.limits.listed
    if more > 0:
        out.append(f'<p class="note warn">{_plural(more, "more family", "more families")} '
                   "not listed.</p>")
    out.append("</section>")
    return "\n".join(out)


def _skipped(report: Report) -> str:
    if not report.skipped:
        return ""
    limit = 5000
    out = [
        f'<section id="skipped"><h2>Skipped ({len(report.skipped):,})</h2>',
        f'<details class="more"{" open" if len(report.skipped) <= 20 else ""}>'
        "<summary>Paths not fingerprinted, with the reason</summary>"
        '<table class="skips"><thead><tr><th>Path</th><th>Reason</th></tr></thead><tbody>',
    ]
    for skip in report.skipped[:limit]:
        out.append(f'<tr><td class="name">{esc(skip.name)}</td><td>{esc(skip.reason)}</td></tr>')
    out.append("</tbody></table>")
    if len(report.skipped) > limit:
        out.append(f'<p class="note warn">{len(report.skipped) - limit:,} more not listed.</p>')
    out.append("</details></section>")
    return "\n".join(out)


def iter_report(report: Report) -> Iterator[str]:
    """The page in pieces (joined, they are :func:`render_report`'s result)."""
    title = f"Near duplicates in {report.title}"
    yield (
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
        f'<meta http-equiv="Content-Security-Policy" content="{esc(CSP)}">\n'
        '<meta name="referrer" content="no-referrer">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        '<meta name="color-scheme" content="light dark">\n'
        f'<meta name="generator" content="{esc(report.version)}">\n'
        f"<title>{esc(title)}</title>\n<style>{STYLE}</style>\n</head>\n<body>\n"
    )
    yield f"<header><h1>{esc(title)}</h1>{_summary(report)}{_limits(report)}"
    for note in report.notes:
        yield f'<p class="note warn">{esc(note)}</p>'
    yield "</header>\n<main>\n"
    yield _chart(report)
    yield _family_list(report)
    detailed = [f for f in report.families if f.detailed]
    if detailed:
        yield '\n<section id="details"><h2>Family details</h2>\n'
        for family in detailed:
            yield family_section(family, decisions=report.decisions, k=report.k,
                                 mode=report.mode)
            yield "\n"
        yield "</section>\n"
    yield _skipped(report)
    yield (f"\n</main>\n<footer>{esc(report.version)} · {esc(report.pipeline)} · "
           f"{esc(report.created)}</footer>\n<script>{SCRIPT}</script>\n</body>\n</html>\n")


def render_report(report: Report) -> str:
    """The whole page as one string."""
    return "".join(iter_report(report))
