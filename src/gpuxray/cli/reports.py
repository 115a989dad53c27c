"""Document outputs (``-o markdown``, ``-o html``) for ``check``, ``why`` and ``capacity``.

The CLI layer gathers what a report shows besides findings — capacity rows, the containerd merge
view of nodes where a drop-in lost settings (seed §5) — as plain dicts, so the renderers stay
model-only (DESIGN.md). Report on stdout, nothing else. The renderers (and jinja2) are imported
only when a document is asked for, so every other command starts without them.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import click

from gpuxray.engines.dra_capacity import DraRow
from gpuxray.model.diagnosis import Diagnosis
from gpuxray.model.finding import Finding, Status
from gpuxray.model.incident import Incident
from gpuxray.model.snapshot import Input, Snapshot
from gpuxray.render.report import MERGE_CODES

if TYPE_CHECKING:
    from gpuxray.engines.capacity import GpuRow

DOCUMENT_OUTPUTS = ("markdown", "html")
VALUE_CHARS = 80


def capacity_dicts(snap: Snapshot) -> list[dict[str, Any]] | None:
    """Capacity rows as dicts (:func:`row_json`), None when nodes were not collected."""
    if not snap.has(Input.NODES):
        return None
    from gpuxray.engines.capacity import capacity_rows
    from gpuxray.engines.usage import row_usage, usage_of

    measured = usage_of(snap) is not None  # "used" only when metrics were collected (§6)
    out = []
    for r in capacity_rows(snap):
        row = row_json(r)
        if measured:
            row["used"] = row_usage(snap, r).as_json()
        out.append(row)
    return out


def row_json(r: GpuRow) -> dict[str, Any]:
    return {"node": r.node, "resource": r.resource, "capacity": r.capacity,
            "allocatable": r.allocatable, "allocated": r.allocated, "free": r.free,
            "unhealthy": r.unhealthy, "sharing": r.sharing, "physical": r.physical,
            "physical_gpus": r.physical, "devices": r.physical_gpus, "replicas": r.replicas,
            "advertised_slots": r.advertised_slots,
            "schedulable": r.schedulable, "taints": list(r.taints),
            "name_present": r.name_present, "allocated_source": r.allocated_source,
            "holders": [{"namespace": h.namespace, "pod": h.pod, "amount": h.amount,
                         "phase": h.phase} for h in r.holders],
            **({"dra_devices": [d.as_json() for d in r.devices]} if isinstance(r, DraRow)
               else {})}


def _short(v: Any) -> str:
    text = v if isinstance(v, str) else json.dumps(v, default=str)
    return text if len(text) <= VALUE_CHARS else text[:VALUE_CHARS - 1] + "…"


def merge_dicts(snap: Snapshot, findings: Sequence[Finding]) -> list[dict[str, Any]]:
    """The merge engine's view of every node a GX501 or GX510 finding names: files in merge
    order, the writers of each plugin section, the keys lost and who set them (facts.md §1.1)."""
    nodes = sorted({str(f.params.get("node") or f.subject.name) for f in findings
                    if f.code in MERGE_CODES and f.status == Status.FAIL})
    if not nodes:
        return []
    try:
        from gpuxray.engines.containerd import analyse_host
    except ImportError:  # the engine is optional for reports: fall back to the findings' view
        return []
    out: list[dict[str, Any]] = []
    for name in nodes:
        host = snap.hosts.get(name)
        if host is None:
            continue
        node = snap.node_by_name.get(name)
        hint = node.status.node_info.container_runtime_version if node is not None else ""
        a = analyse_host(host, hint or None)
        out.append({
            "node": name, "containerd_version": a.version.text,
            "files": [{"path": f.path, "version": f.version, "imported_by": f.imported_by}
                      for f in a.files],
            "sections": [{"name": s.name, "writers": list(s.writers),
                          "lost": [{"key": k.key, "file": k.file, "value": _short(k.value),
                                    "reason": k.reason} for k in s.lost]}
                         for s in a.sections.values()],
            "runtimes": list(a.runtimes), "default_runtime": a.default_runtime,
            "lost_runtimes": list(a.lost_runtimes)})
    return out


def emit_findings(findings: list[Finding], output: str, snap: Snapshot, title: str,
                  incidents: Sequence[Incident] = ()) -> None:
    from gpuxray.render import html as render_html
    from gpuxray.render import markdown as render_markdown

    caps = capacity_dicts(snap)
    merge = merge_dicts(snap, findings)
    if output == "markdown":
        click.echo(render_markdown.render_findings(findings, title=title, source=snap.origin,
                                                   capacity=caps, merge=merge,
                                                   incidents=incidents), nl=False)
    else:
        click.echo(render_html.render_report(title=title, source=snap.origin, findings=findings,
                                             capacity=caps, merge=merge, kind="check",
                                             incidents=incidents),
                   nl=False)


def emit_diagnosis(d: Diagnosis, output: str, snap: Snapshot) -> None:
    from gpuxray.render import html as render_html
    from gpuxray.render import markdown as render_markdown

    if output == "markdown":
        click.echo(render_markdown.render_diagnosis(d, source=snap.origin), nl=False)
        return
    fl = [*([d.verdict] if d.verdict else []), *d.related]
    click.echo(render_html.render_report(title=f"gpuxray why {d.target}", source=snap.origin,
                                         findings=fl, diagnosis=d,
                                         merge=merge_dicts(snap, fl), kind="why"), nl=False)


def emit_capacity(rows: Sequence[Mapping[str, Any]], output: str, snap: Snapshot, *,
                  totals: Mapping[str, Mapping[str, int]], allocated_known: bool) -> None:
    from gpuxray.render import html as render_html
    from gpuxray.render import markdown as render_markdown

    if output == "markdown":
        click.echo(render_markdown.render_capacity(rows, source=snap.origin, totals=totals,
                                                   allocated_known=allocated_known), nl=False)
        return
    click.echo(render_html.render_report(title="gpuxray capacity", source=snap.origin,
                                         capacity=rows, kind="capacity"), nl=False)
