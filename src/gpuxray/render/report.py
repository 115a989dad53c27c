"""Plain data shared by the document renderers (Markdown, HTML): counts by layer and severity,
findings grouped for reading, and the containerd merge view.

The renderers only format; what a report *says* (which counts, which groups, what the merge
view holds) is decided once here so Markdown and HTML never disagree. Only the model is
imported: a report is built from Findings, a Diagnosis and dicts the CLI passes (DESIGN.md,
"Renderers import the model only, never checks").
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from gpuxray.model.finding import Finding, Layer, Status
from gpuxray.model.incident import Incident, short_list

LAYER_TITLE: dict[Layer, str] = {
    Layer.ADMISSION: "Admission (1xx)",
    Layer.SCHEDULING: "Gate 1 — scheduling (2xx)",
    Layer.RUNTIME: "Gate 2 — runtime (3xx)",
    Layer.OPERATOR: "Operator stack (4xx)",
    Layer.NODE: "Node (5xx)",
    Layer.CAPACITY: "Capacity (6xx)",
}

# Columns of the summary: one per severity of a failing finding, then the unknowns, which are
# "could not evaluate" and never count as a pass (CODES.md).
BUCKETS: tuple[str, ...] = ("error", "warning", "info", "unknown")

# The capacity columns a report shows, in order; ``used`` only when some row carries it
# (usage comes from DCGM metrics, which a snapshot may not have: seed §6).
CAPACITY_COLUMNS: tuple[str, ...] = ("node", "resource", "sharing", "physical", "capacity",
                                     "allocatable", "allocated", "free", "used", "unhealthy")
NUMERIC_COLUMNS = frozenset({"physical", "capacity", "allocatable", "allocated", "free", "used",
                             "unhealthy"})

# The findings whose node gets a merge table: a section replaced by a later file (GX501) and a
# v2 drop-in kept out by the 2.0.2-2.2 migration (GX510) (facts.md §0, §1).
MERGE_CODES = frozenset({"GX501", "GX510"})


def bucket(f: Finding) -> str:
    return "unknown" if f.status == Status.UNKNOWN else f.severity.label


def sort_key(f: Finding) -> tuple[int, int, str, str]:
    """Worst first inside a layer: errors, warnings, infos, then unknowns; then by code."""
    unknown = f.status == Status.UNKNOWN
    return (int(unknown), 0 if unknown else -int(f.severity), f.code, str(f.subject))


def counts(findings: Iterable[Finding]) -> dict[str, int]:
    out = dict.fromkeys(BUCKETS, 0)
    for f in findings:
        out[bucket(f)] += 1
    return out


@dataclass(frozen=True, slots=True)
class LayerGroup:
    layer: Layer
    title: str
    findings: tuple[Finding, ...]
    counts: Mapping[str, int]


def by_layer(findings: Sequence[Finding]) -> list[LayerGroup]:
    """Layers in CODES.md order, only those with findings."""
    out: list[LayerGroup] = []
    for layer in Layer:
        fl = sorted((f for f in findings if f.layer == layer), key=sort_key)
        if fl:
            out.append(LayerGroup(layer, LAYER_TITLE[layer], tuple(fl), counts(fl)))
    return out


def layer_matrix(findings: Sequence[Finding]) -> list[tuple[str, dict[str, int]]]:
    """Every layer (empty ones too, so a reader sees what was clean) × bucket."""
    return [(LAYER_TITLE[layer], counts(f for f in findings if f.layer == layer))
            for layer in Layer]


def worst(findings: Iterable[Finding]) -> str:
    """The bucket a report is coloured by: ``ok`` when nothing failed or was unknown."""
    fl = list(findings)
    fails = [f.severity for f in fl if f.status == Status.FAIL]
    if fails:
        return max(fails).label
    return "unknown" if fl else "ok"


def capacity_columns(rows: Sequence[Mapping[str, Any]]) -> list[str]:
    return [c for c in CAPACITY_COLUMNS
            if c != "used" or any(r.get("used") is not None for r in rows)]


def physical_text(row: Mapping[str, Any]) -> str:
    """``2x4`` for 2 GPUs shared 4 ways (time-slicing/MPS: seed §6), else the count or ``-``."""
    phys = row.get("physical")
    devices = row.get("devices", row.get("physical_gpus"))
    replicas = row.get("replicas") or 1
    if replicas > 1 and devices is not None:
        return f"{devices}x{replicas}"
    return "-" if phys is None else str(phys)


def used_text(used: Any) -> str:
    """``used`` is a number, or the usage engine's dict (``status``, ``util_pct``,
    ``fb_used_mib``): measured DCGM use, or unknown with its reason — never a guessed 0."""
    if not isinstance(used, Mapping):
        return "-" if used is None else str(used)
    if used.get("status") != "measured":
        return "unknown"
    parts = []
    if used.get("util_pct") is not None:
        parts.append(f"{used['util_pct']:g}% util")
    if used.get("fb_used_mib") is not None:
        parts.append(f"{used['fb_used_mib']:g} MiB")
    return ", ".join(parts) or "measured"


def cell(row: Mapping[str, Any], col: str) -> str:
    if col == "physical":
        return physical_text(row)
    if col == "used":
        return used_text(row.get("used"))
    v = row.get(col)
    return "-" if v is None else str(v)


def capacity_notes(row: Mapping[str, Any]) -> str:
    """Why a row's numbers look odd, in kubelet's terms (facts.md §3: the name is kept at
    capacity 0 after the 5-minute grace; allocatable 0 with capacity kept = just disconnected)."""
    notes: list[str] = []
    if row.get("schedulable") is False:
        notes.append("cordoned")
    if row.get("taints"):
        notes.append("taints: " + ",".join(str(t) for t in row["taints"]))
    if row.get("name_present") is False:
        notes.append("not advertised")
    elif row.get("capacity") == 0:
        notes.append("capacity 0 (plugin gone > 5 min)")
    elif row.get("allocatable") == 0:
        notes.append("allocatable 0 (plugin just disconnected?)")
    return "; ".join(notes)


# ----- containerd merge view (seed §5) ------------------------------------------------------
@dataclass(slots=True)
class MergeView:
    """Per node: the files in merge order, which file wrote each plugin section last, and which
    settings of earlier files the merge lost (seed §5: the drop-in that wiped the CRI section).

    Built from a dict a caller computed with the merge engine (:func:`from_dict`), else from
    GX501 findings' params (``culprit``, ``plugin``, ``lost_keys``, ``lost_runtimes``,
    ``containerd_version``) and evidence."""

    node: str
    containerd_version: str = ""
    files: list[dict[str, Any]] = field(default_factory=list)     # path, version, writes
    sections: list[dict[str, Any]] = field(default_factory=list)  # name, writer, lost[]
    runtimes: list[str] = field(default_factory=list)
    lost_runtimes: list[str] = field(default_factory=list)
    evidence: list[tuple[str, str]] = field(default_factory=list)


def _as_list(v: Any) -> list[str]:
    if v is None:
        return []
    if isinstance(v, str):
        return [x.strip() for x in v.split(",") if x.strip()]
    return [str(x) for x in v]


def _lost_entry(k: Any) -> dict[str, str]:
    if isinstance(k, Mapping):
        return {"key": str(k.get("key", "")), "file": str(k.get("file") or ""),
                "value": "" if k.get("value") is None else str(k.get("value"))}
    return {"key": str(k), "file": "", "value": ""}


def merge_views(findings: Iterable[Finding],
                given: Iterable[Mapping[str, Any]] = ()) -> list[MergeView]:
    views: dict[str, MergeView] = {from_dict(d).node: from_dict(d) for d in given}
    for f in findings:
        if f.code not in MERGE_CODES or f.status != Status.FAIL:
            continue
        p = f.params
        node = str(p.get("node") or f.subject.name)
        if node in views and not views[node].evidence:
            views[node].evidence.extend((e.source, e.detail) for e in f.evidence)
            continue  # the caller's engine view is the richer one
        v = views.setdefault(node, MergeView(node))
        v.containerd_version = str(p.get("containerd_version") or v.containerd_version)
        culprit = str(p.get("culprit") or "?")
        lost_keys = list(dict.fromkeys(_as_list(p.get("lost_keys"))))
        for plugin in _as_list(p.get("plugin")):
            mine = [_lost_entry(k[len(plugin) + 1:]) for k in lost_keys
                    if k.startswith(plugin + ".")]
            v.sections.append({"name": plugin, "writer": culprit, "lost": mine})
        for r in _as_list(p.get("lost_runtimes")):
            if r not in v.lost_runtimes:
                v.lost_runtimes.append(r)
        if all(x["path"] != culprit for x in v.files):
            v.files.append({"path": culprit, "version": None, "writes": _as_list(p.get("plugin"))})
        v.evidence.extend((e.source, e.detail) for e in f.evidence)
    return sorted(views.values(), key=lambda v: v.node)


def from_dict(d: Mapping[str, Any]) -> MergeView:
    """A merge view the caller computed: ``{"node", "containerd_version", "files": [{"path",
    "version"}], "sections": [{"name", "writers": [...], "lost": [{"key", "file", "value"}]}],
    "runtimes", "lost_runtimes"}``."""
    v = MergeView(str(d.get("node") or "-"), str(d.get("containerd_version") or ""))
    sections = list(d.get("sections") or [])
    for f in d.get("files") or []:
        path = str(f.get("path") if isinstance(f, Mapping) else f)
        version = f.get("version") if isinstance(f, Mapping) else None
        writes = [str(s.get("name")) for s in sections if path in _as_list(s.get("writers"))]
        v.files.append({"path": path, "version": version, "writes": writes})
    for s in sections:
        writers = _as_list(s.get("writers"))
        lost = [_lost_entry(k) for k in s.get("lost") or []]
        v.sections.append({"name": str(s.get("name")), "writer": writers[-1] if writers else "-",
                           "lost": lost})
    v.runtimes = _as_list(d.get("runtimes"))
    v.lost_runtimes = _as_list(d.get("lost_runtimes"))
    return v


# ----- incidents (seed §4: never stop at the event's line) ---------------------------------
def subject_text(f: Finding) -> str:
    """A subject as short as it stays unambiguous: ``gpu-2``, ``ml/train-llm-0``,
    ``ClusterPolicy/cluster-policy``."""
    s = f.subject
    if s.kind == "Node":
        return s.name
    if s.kind == "Pod":
        return f"{s.namespace}/{s.name}" if s.namespace else s.name
    return str(s)[len(s.kind) + 1:] if s.kind in ("Cluster",) else str(s)


def subjects_text(findings: Sequence[Finding], limit: int = 8) -> str:
    return short_list(list(dict.fromkeys(subject_text(f) for f in findings)), limit)


@dataclass(frozen=True, slots=True)
class ChainLine:
    depth: int
    code: str
    name: str
    subjects: str
    unknown: bool


@dataclass(frozen=True, slots=True)
class IncidentView:
    """One incident as the document renderers print it: root, evidence, consequence chain,
    impact, remedy and the command that confirms the root."""

    number: int
    id: str
    severity: str
    headline: str
    message: str
    evidence: tuple[tuple[str, str], ...]
    chain: tuple[ChainLine, ...]
    impact: str
    open_ends: tuple[str, ...]
    remedy: str
    verify: str


def incident_views(incidents: Sequence[Incident], evidence_limit: int = 3) -> list[IncidentView]:
    out: list[IncidentView] = []
    for n, inc in enumerate(incidents, 1):
        r = inc.root
        chain = tuple(ChainLine(c.depth, c.code, c.name, subjects_text(c.findings),
                                all(f.status == Status.UNKNOWN for f in c.findings))
                      for c in inc.chain)
        ends = tuple(f"{f.code} {f.name} ({subject_text(f)}): {f.message}"
                     for f in inc.open_ends)
        out.append(IncidentView(
            n, inc.id, inc.severity.label, inc.headline(), r.message,
            tuple((e.source, e.detail) for e in r.evidence[:evidence_limit]), chain,
            inc.impact_line(), ends, r.remedy, inc.verify))
    return out
