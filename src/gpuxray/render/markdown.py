"""Markdown for tickets and PR comments: headings, a findings table, evidence as bullets, the
``why`` path as a nested list with ✓/✗/? marks.

Every string that came from a cluster is escaped: a pipe would end a table cell, a backtick
would open a code span, ``<``/``>`` would be taken as HTML by most Markdown hosts, and ``*``,
``_``, ``[`` would restyle or link the text. Renderers import the model only (DESIGN.md).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from gpuxray.model.diagnosis import Diagnosis
from gpuxray.model.finding import Evidence, Finding, Status
from gpuxray.model.incident import Incident, root_verdict_text
from gpuxray.render import report

MARK = {"pass": "✓", "fail": "✗", "unknown": "?", "info": "ℹ"}
BADGE = {"error": "🔴 error", "warning": "🟠 warning", "info": "🔵 info", "unknown": "⚪ unknown"}
_SPECIAL = re.compile(r"([\\`*_\[\]<>|#~])")
EVIDENCE_LIMIT = 8


def esc(text: object) -> str:
    """Escape a cluster string for Markdown text (also safe inside a GFM table cell)."""
    s = str(text).replace("\r", "")
    s = _SPECIAL.sub(r"\\\1", s)
    return " ".join(s.split("\n")).strip() if "\n" in s else s


def code(text: object) -> str:
    """An inline code span that holds any string: a fence longer than its longest backtick run
    (CommonMark), padded when the text starts or ends with a backtick. Pipes are escaped so the
    span is also safe in a table."""
    s = " ".join(str(text).splitlines())
    runs = [len(m) for m in re.findall(r"`+", s)]
    fence = "`" * (max(runs, default=0) + 1)
    pad = " " if s.startswith("`") or s.endswith("`") or not s else ""
    body = s.replace("|", "\\|")
    return f"{fence}{pad}{body}{pad}{fence}"


def _evidence(lines: list[str], evidence: Sequence[Evidence], indent: str) -> None:
    for ev in evidence[:EVIDENCE_LIMIT]:
        lines.append(f"{indent}- {esc(ev.detail)} — {code(ev.source)}")
    if len(evidence) > EVIDENCE_LIMIT:
        lines.append(f"{indent}- … {len(evidence) - EVIDENCE_LIMIT} more")


def _summary(lines: list[str], findings: Sequence[Finding]) -> None:
    c = report.counts(findings)
    lines.append("**Summary:** " + " · ".join(f"{c[b]} {b}" for b in report.BUCKETS))
    lines.append("")
    lines.append("| layer | " + " | ".join(report.BUCKETS) + " |")
    lines.append("|---|" + "---:|" * len(report.BUCKETS))
    for title, lc in report.layer_matrix(findings):
        lines.append(f"| {esc(title)} | " + " | ".join(str(lc[b]) for b in report.BUCKETS)
                     + " |")
    lines.append("")


def finding_section(f: Finding, level: int = 4) -> list[str]:
    lines = [f"{'#' * level} {f.code} {esc(f.name)} — {esc(f.subject)}", "",
             f"**{BADGE[report.bucket(f)]}** · {esc(f.message)}", ""]
    if f.evidence:
        lines.append("Evidence:")
        lines.append("")
        _evidence(lines, f.evidence, "")
        lines.append("")
    if f.remedy and f.status == Status.FAIL:
        lines.append(f"**Remedy:** {esc(f.remedy)}")
        lines.append("")
    return lines


def _findings(lines: list[str], findings: Sequence[Finding]) -> None:
    if not findings:
        lines.append("No findings: every check that ran had the evidence it needed and found "
                     "nothing wrong.")
        lines.append("")
        return
    lines.append("| severity | code | name | subject | message |")
    lines.append("|---|---|---|---|---|")
    groups = report.by_layer(findings)
    for g in groups:
        for f in g.findings:
            lines.append(f"| {report.bucket(f)} | {f.code} | {esc(f.name)} | {esc(f.subject)} "
                         f"| {esc(f.message)} |")
    lines.append("")
    for g in groups:
        lines.append(f"### {esc(g.title)}")
        lines.append("")
        for f in g.findings:
            lines.extend(finding_section(f))


def capacity_table(rows: Sequence[Mapping[str, Any]], title: str = "GPU capacity") -> list[str]:
    cols = report.capacity_columns(rows)
    lines = [f"## {esc(title)}", ""]
    if not rows:
        lines += ["No GPU resources advertised or requested.", ""]
        return lines
    lines.append("| " + " | ".join([*cols, "notes"]) + " |")
    lines.append("|" + "".join("---:|" if c in report.NUMERIC_COLUMNS else "---|"
                               for c in cols) + "---|")
    for r in rows:
        lines.append("| " + " | ".join(esc(report.cell(r, c)) for c in cols)
                     + f" | {esc(report.capacity_notes(r))} |")
    lines.append("")
    return lines


def merge_section(views: Sequence[report.MergeView]) -> list[str]:
    if not views:
        return []
    lines = ["## containerd config merge", ""]
    for v in views:
        ver = f" (containerd {esc(v.containerd_version)})" if v.containerd_version else ""
        lines.append(f"### {esc(v.node)}{ver}")
        lines.append("")
        if v.files:
            lines.append("Files in merge order: " + " → ".join(code(f["path"]) for f in v.files))
            lines.append("")
        for s in v.sections:
            lines.append(f"- section {code(s['name'])} last written by {code(s['writer'])}")
            for k in s["lost"]:
                by = f" (set by {code(k['file'])})" if k["file"] else ""
                lines.append(f"  - lost {code(k['key'])}{by}")
        if v.lost_runtimes:
            lines.append("- runtimes lost: " + ", ".join(code(r) for r in v.lost_runtimes))
        lines.append("")
    return lines


def incidents_section(incidents: Sequence[Incident]) -> list[str]:
    """One block per incident: root, evidence, consequence chain as a nested list, impact,
    remedy, and the read-only command that confirms the root (seed §7)."""
    if not incidents:
        return []
    lines = [f"## Incidents ({len(incidents)}): each a root cause and what it explains", ""]
    for v in report.incident_views(incidents):
        lines += [f"### [{v.number}] {esc(v.headline)}", "",
                  f"**{BADGE[v.severity]}** · **impact:** {esc(v.impact)}", "",
                  esc(v.message), ""]
        for source, detail in v.evidence:
            lines.append(f"- {esc(detail)} — {code(source)}")
        if v.evidence:
            lines.append("")
        if len(v.chain) > 1:
            lines += ["Consequences:", ""]
            for c in v.chain:
                mark = "?" if c.unknown else "→" if c.depth else "●"
                lines.append(f"{'  ' * c.depth}- {mark} {c.code} {esc(c.name)} — "
                             f"{esc(c.subjects)}")
            lines.append("")
        for end in v.open_ends:
            lines.append(f"- ? not evaluated: {esc(end)}")
        if v.open_ends:
            lines.append("")
        if v.remedy:
            lines += [f"**Remedy:** {esc(v.remedy)}", ""]
        lines += [f"**Verify:** {code(v.verify)}", ""]
    return lines


def render_findings(findings: Sequence[Finding], *, title: str, source: str,
                    capacity: Sequence[Mapping[str, Any]] | None = None,
                    merge: Sequence[Mapping[str, Any]] = (),
                    incidents: Sequence[Incident] = ()) -> str:
    lines = [f"# {esc(title)}", "", f"Source: {code(source)}", ""]
    lines.extend(incidents_section(incidents))
    _summary(lines, findings)
    lines.append("## Findings")
    lines.append("")
    _findings(lines, findings)
    if capacity is not None:
        lines.extend(capacity_table(capacity))
    lines.extend(merge_section(report.merge_views(findings, merge)))
    return "\n".join(lines).rstrip() + "\n"


def render_diagnosis(d: Diagnosis, *, source: str) -> str:
    lines = [f"# why {esc(d.target)}", "", f"Source: {code(source)}", "", "## Decision path",
             ""]
    for step in d.path:
        detail = f" — {esc(step.detail)}" if step.detail else ""
        lines.append(f"- {MARK.get(step.result, '?')} **{esc(step.step)}**{detail}")
        _evidence(lines, step.evidence, "  ")
    lines.append("")
    if d.verdict is None:
        lines.append("**Verdict:** " + esc(d.conclusion or "no GPU problem found for this pod"))
        lines.append("")
    else:
        lines.append(f"**Verdict:** {d.verdict.code} {esc(d.verdict.name)} "
                     f"({report.bucket(d.verdict)})")
        lines.append("")
        lines.extend(finding_section(d.verdict, level=3))
    if d.root_cause is not None and d.verdict is not None:
        lines.append("**Root cause:** " + esc(root_verdict_text(d.root_cause, d.root_nodes,
                                                                d.verdict, d.phase)))
        lines.append("")
    if d.related:
        lines.append("## Related findings")
        lines.append("")
        for f in d.related:
            lines.extend(finding_section(f, level=3))
    lines.extend(merge_section(report.merge_views([*d.related,
                                                   *([d.verdict] if d.verdict else [])])))
    return "\n".join(lines).rstrip() + "\n"


def render_capacity(rows: Sequence[Mapping[str, Any]], *, source: str,
                    totals: Mapping[str, Mapping[str, int]] | None = None,
                    allocated_known: bool = True) -> str:
    lines = ["# gpuxray capacity", "", f"Source: {code(source)}", ""]
    if not allocated_known:
        lines += ["Allocated is unknown: pods were not collected.", ""]
    lines.extend(capacity_table(rows, "GPU capacity (allocated = requests of non-terminal pods "
                                      "bound to the node)"))
    for res, t in (totals or {}).items():
        lines.append(f"- total {code(res)}: " + ", ".join(f"{k} {v}" for k, v in t.items()))
    return "\n".join(lines).rstrip() + "\n"
