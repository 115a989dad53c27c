"""One self-contained HTML report: summary by layer and severity, the per-node GPU table, the
``why`` decision path drawn as an inline SVG with the path taken coloured, the containerd merge
view, and every finding with its evidence and sources.

Self-contained means attachable to a ticket and readable offline: CSS, JS and SVG are inline,
nothing is fetched, and a Content-Security-Policy forbids any load from elsewhere. Everything that
came from a cluster is escaped by jinja2's autoescape (a pod may be named ``<script>``).
Renderers import the model only (DESIGN.md).
"""

from __future__ import annotations

import functools
import textwrap
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import jinja2

from gpuxray import __version__
from gpuxray.model.diagnosis import Diagnosis
from gpuxray.model.finding import Finding
from gpuxray.model.incident import Incident, root_verdict_text
from gpuxray.render import report

TEMPLATE = "report.html.j2"

# SVG geometry of the decision path (monospace text, so wrapping by characters is predictable).
SVG_WIDTH = 1160
STEP_X, STEP_W = 20, 720
LEAF_X, LEAF_W = 790, 350
CHAR_W, LINE_H, PAD, GAP = 7.3, 17, 10, 28
MAX_LINES = 5
MARK = {"pass": "✓", "fail": "✗", "unknown": "?", "info": "i"}


@functools.cache
def _env() -> jinja2.Environment:
    return jinja2.Environment(
        loader=jinja2.PackageLoader("gpuxray.render", "templates"),
        autoescape=True, undefined=jinja2.StrictUndefined,
        trim_blocks=True, lstrip_blocks=True)


def _wrap(text: str, width_px: int) -> list[str]:
    chars = max(10, int((width_px - 2 * PAD) / CHAR_W))
    lines = textwrap.wrap(" ".join(text.split()), chars) or [""]
    if len(lines) > MAX_LINES:
        lines = [*lines[:MAX_LINES - 1], lines[MAX_LINES - 1][:chars - 1] + "…"]
    return lines


@dataclass(slots=True)
class Box:
    x: float
    y: float
    w: float
    h: float
    cls: str
    title: list[str]
    lines: list[str] = field(default_factory=list)
    mark: str = ""


@dataclass(slots=True)
class PathDiagram:
    width: int
    height: int
    boxes: list[Box]
    arrows: list[str]            # SVG path ``d`` strings, solid: the path taken
    stubs: list[str]             # dashed: branches not taken
    leaf_arrow: str = ""


def diagram(d: Diagnosis) -> PathDiagram:
    """Lay the walked steps out top to bottom and hang the verdict leaf to the right of the step
    that failed (seed §4: the tree stops at the deepest failing leaf)."""
    boxes: list[Box] = []
    arrows: list[str] = []
    stubs: list[str] = []
    y = 20.0
    leaf_from: Box | None = None
    for step in d.path:
        title = _wrap(f"{MARK.get(step.result, '?')}  {step.step}", STEP_W)
        detail = _wrap(step.detail, STEP_W) if step.detail else []
        h = PAD * 2 + LINE_H * (len(title) + len(detail))
        box = Box(STEP_X, y, STEP_W, h, step.result, title, detail)
        if boxes:
            prev = boxes[-1]
            arrows.append(f"M {STEP_X + 40} {prev.y + prev.h} L {STEP_X + 40} {y - 4}")
        if step.result == "fail":
            leaf_from = box
        elif step.result == "pass":
            mid = y + h / 2
            stubs.append(f"M {STEP_X + STEP_W} {mid} L {STEP_X + STEP_W + 30} {mid}")
        boxes.append(box)
        y += h + GAP
    leaf_arrow = ""
    if d.verdict is not None:
        v = d.verdict
        title = _wrap(f"{v.code} {v.name}", LEAF_W)
        lines = _wrap(str(v.subject), LEAF_W) + _wrap(v.message, LEAF_W)
        h = PAD * 2 + LINE_H * (len(title) + len(lines))
        anchor = leaf_from or (boxes[-1] if boxes else None)
        ly = anchor.y if anchor else 20.0
        leaf = Box(LEAF_X, ly, LEAF_W, h, "verdict " + report.bucket(v), title, lines)
        if anchor is not None:
            mid = anchor.y + min(anchor.h, h) / 2
            leaf_arrow = f"M {STEP_X + STEP_W} {mid} L {LEAF_X - 6} {mid}"
        boxes.append(leaf)
        y = max(y, ly + h + GAP)
    else:
        text = d.conclusion or "no GPU problem found for this pod"
        lines = _wrap(text, STEP_W)
        h = PAD * 2 + LINE_H * (len(lines) + 1)
        if boxes:
            prev = boxes[-1]
            arrows.append(f"M {STEP_X + 40} {prev.y + prev.h} L {STEP_X + 40} {y - 4}")
        boxes.append(Box(STEP_X, y, STEP_W, h, "verdict ok", ["Verdict"], lines))
        y += h + GAP
    return PathDiagram(SVG_WIDTH, int(y), boxes, arrows, stubs, leaf_arrow)


def _capacity(rows: Sequence[Mapping[str, Any]] | None) -> dict[str, Any] | None:
    if rows is None:
        return None
    cols = report.capacity_columns(rows)
    out = []
    for r in rows:
        alloc = r.get("allocatable") or 0
        used = r.get("allocated") or 0
        pct = 0 if not alloc else max(0, min(100, round(100 * used / alloc)))
        out.append({"cells": [(c, report.cell(r, c)) for c in cols], "pct": pct,
                    "full": bool(alloc) and used >= alloc,
                    "dead": not r.get("capacity"), "notes": report.capacity_notes(r)})
    return {"columns": cols, "rows": out, "numeric": report.NUMERIC_COLUMNS}


def render_report(*, title: str, source: str, findings: Sequence[Finding] = (),
                  diagnosis: Diagnosis | None = None,
                  capacity: Sequence[Mapping[str, Any]] | None = None,
                  merge: Sequence[Mapping[str, Any]] = (),
                  kind: str = "check", incidents: Sequence[Incident] = ()) -> str:
    """The whole document. ``findings`` are the report's findings (for ``why``: the verdict and
    related ones), ``capacity`` rows are ``reports.row_json`` dicts, ``merge`` optional
    containerd merge views (``report.from_dict`` shape)."""
    fl = list(findings)
    ctx = {
        "title": title, "source": source, "version": __version__, "kind": kind,
        "counts": report.counts(fl), "buckets": report.BUCKETS,
        "matrix": report.layer_matrix(fl), "groups": report.by_layer(fl),
        "worst": report.worst(fl), "bucket": report.bucket,
        "diagnosis": diagnosis, "diagram": diagram(diagnosis) if diagnosis else None,
        "capacity": _capacity(capacity), "merge": report.merge_views(fl, merge),
        "line_h": LINE_H, "pad": PAD, "incidents": report.incident_views(incidents),
        "root_verdict": (root_verdict_text(diagnosis.root_cause, diagnosis.root_nodes,
                                           diagnosis.verdict, diagnosis.phase)
                         if diagnosis and diagnosis.root_cause and diagnosis.verdict else ""),
    }
    return _env().get_template(TEMPLATE).render(ctx)
