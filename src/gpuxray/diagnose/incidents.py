"""Group a run's findings into incidents: roots, what they explain, and the cost (seed §4, §5).

A finding is *explained* when a ``fail`` finding of a cause code in ``knowledge/causal.py`` meets
it on the edge's join (same node, operand pod on that node, admissible nodes of a pod, the
cluster's ClusterPolicy, the plugin config). A *root* is a ``fail`` finding nothing present
explains; roots of one code (and fold key) are one incident, however many nodes they are on, and
the incident holds everything reachable from them. ``unknown`` findings explain nothing — they
are not evidence — but one that could lie beneath a root is kept as the incident's open end.

Linear in the findings: causes are looked up in an index by (code, node) or by code, never by
comparing every pair, so a 5,000-node fleet with the same drop-in everywhere stays cheap.
"""

from __future__ import annotations

import re
from collections import deque
from collections.abc import Iterable, Mapping, Sequence

from gpuxray.engines.capacity import gpu_nodes_of
from gpuxray.knowledge.causal import FOLD_BY, causes_of, verify_command
from gpuxray.model.finding import Finding, Layer, Severity, Status
from gpuxray.model.incident import Impact, Incident, Link
from gpuxray.model.snapshot import Input, Snapshot

OPERATOR_NAMESPACES = frozenset({"gpu-operator", "nvidia-gpu-operator"})
_LIST_KEYS = ("nodes", "node_list")


def natural(name: str) -> tuple[tuple[int, int | str], ...]:
    """``gpu-2`` before ``gpu-10``: node lists read the way operators number their nodes."""
    return tuple((0, int(p)) if p.isdigit() else (1, p) for p in re.split(r"(\d+)", name))


def home_nodes(f: Finding) -> frozenset[str]:
    """The node a finding is on: its subject, or the single ``node`` it names."""
    if f.subject.kind == "Node":
        return frozenset({f.subject.name})
    n = f.params.get("node")
    return frozenset({n}) if isinstance(n, str) and n else frozenset()


def node_keys(f: Finding) -> frozenset[str]:
    """Every node a finding touches: where it is, and the nodes it names (a DaemonSet's missed
    nodes, a pending pod's admissible nodes, a config's selected nodes)."""
    out = set(home_nodes(f))
    for key in _LIST_KEYS:
        v = f.params.get(key)
        if isinstance(v, (list, tuple, set, frozenset)):
            out.update(str(x) for x in v)
    return frozenset(out)


def _blocked_pod(f: Finding) -> bool:
    """A workload that gets no GPU: admission, gate 1 or gate 2, not an operand, not GX303
    (the pod runs; it asked for no GPU)."""
    if f.layer not in (Layer.ADMISSION, Layer.SCHEDULING, Layer.RUNTIME):
        return False
    if f.code in ("GX302", "GX303") or f.subject.kind in ("Node", "Cluster", "ClusterPolicy"):
        return False
    return f.subject.namespace not in OPERATOR_NAMESPACES


def _missing(f: Finding) -> int:
    v = f.params.get("missing")
    return v if isinstance(v, int) and not isinstance(v, bool) else 0


def _gpus_lost(members: Sequence[Finding]) -> int:
    """GPUs gone per node: GX604's missing count (capacity below physical × replicas, summed
    over the node's resource names), or the GPUs a critical Xid took (GX505: the plugin marks
    them unhealthy, allocatable drops while capacity stays, facts.md §8) — the larger of the
    two per node, never both."""
    advertised: dict[tuple[str, str], int] = {}
    xid: dict[str, int] = {}
    for f in members:
        nodes = sorted(home_nodes(f))
        if not nodes:
            continue
        if f.code == "GX604":
            advertised[(nodes[0], str(f.params.get("resource", "")))] = _missing(f)
        elif f.code == "GX505" and f.params.get("critical") is True:
            gpus = f.params.get("gpus")
            n = len(gpus) if isinstance(gpus, (list, tuple)) else 0
            xid[nodes[0]] = max(xid.get(nodes[0], 0), n)
    by_node: dict[str, int] = {}
    for (node, _), n in advertised.items():
        by_node[node] = by_node.get(node, 0) + n
    return sum(max(by_node.get(n, 0), xid.get(n, 0)) for n in {*by_node, *xid})


class _Index:
    """Findings by (code, node) and by code, split by status, built once per run."""

    def __init__(self, findings: Sequence[Finding]) -> None:
        self.keys = [node_keys(f) for f in findings]
        self.fail_at: dict[tuple[str, str], list[int]] = {}
        self.fail_any: dict[str, list[int]] = {}
        self.unknown_at: dict[tuple[str, str], list[int]] = {}
        self.unknown_wild: dict[str, list[int]] = {}  # unknowns about no node: all nodes
        for i, f in enumerate(findings):
            if f.status == Status.FAIL:
                self.fail_any.setdefault(f.code, []).append(i)
                for n in self.keys[i]:
                    self.fail_at.setdefault((f.code, n), []).append(i)
            elif self.keys[i]:
                for n in self.keys[i]:
                    self.unknown_at.setdefault((f.code, n), []).append(i)
            else:
                self.unknown_wild.setdefault(f.code, []).append(i)

    def causes(self, i: int, f: Finding) -> list[int]:
        out: list[int] = []
        for edge in causes_of(f.code):
            if edge.join.on_nodes:
                for n in self.keys[i]:
                    out.extend(self.fail_at.get((edge.cause, n), ()))
            else:
                out.extend(self.fail_any.get(edge.cause, ()))
        return sorted({j for j in out if j != i})

    def open_ends(self, i: int, f: Finding) -> list[int]:
        out: list[int] = []
        for edge in causes_of(f.code):
            if edge.join.on_nodes:
                for n in self.keys[i]:
                    out.extend(self.unknown_at.get((edge.cause, n), ()))
            out.extend(self.unknown_wild.get(edge.cause, ()))
        return out


def build_incidents(findings: Sequence[Finding], *, gpu_nodes: int | None = None,
                    min_severity: Severity = Severity.WARNING) -> list[Incident]:
    """Incidents of ``findings``, highest impact first. An incident whose findings are all
    below ``min_severity`` (e.g. an info-level sharing note) is not one: a healthy cluster has
    none."""
    idx = _Index(findings)
    children: list[list[int]] = [[] for _ in findings]
    explained = [False] * len(findings)
    for i, f in enumerate(findings):
        for j in idx.causes(i, f):
            children[j].append(i)
            explained[i] = True

    groups: dict[tuple[str, tuple[str, ...]], list[int]] = {}
    for i, f in enumerate(findings):
        if f.status == Status.FAIL and not explained[i]:
            fold = tuple(str(f.params.get(k, "")) for k in FOLD_BY.get(f.code, ()))
            groups.setdefault((f.code, fold), []).append(i)

    out: list[Incident] = []
    for (code, fold), roots in groups.items():
        inc = _incident(findings, idx, children, code, fold, roots, gpu_nodes)
        if inc.severity >= min_severity:
            out.append(inc)
    out.sort(key=lambda x: (-x.impact.gpus_lost, -x.impact.pods_blocked, -x.severity,
                            -x.impact.nodes_affected, -x.impact.operand_pods_blocked, x.id))
    return out


def _incident(findings: Sequence[Finding], idx: _Index, children: list[list[int]], code: str,
              fold: tuple[str, ...], roots: list[int], gpu_nodes: int | None) -> Incident:
    # breadth-first from the roots: nearest effects first; each code hangs under the code it
    # was first reached from, which is the chain the reports draw
    seen = set(roots)
    order: list[int] = []
    code_parent: dict[str, str | None] = {code: None}
    code_depth: dict[str, int] = {code: 0}
    queue = deque(roots)
    while queue:
        j = queue.popleft()
        for k in children[j]:
            if k in seen:
                continue
            seen.add(k)
            order.append(k)
            queue.append(k)
            c = findings[k].code
            if c not in code_parent:
                code_parent[c] = findings[j].code
                code_depth[c] = code_depth[findings[j].code] + 1
    root_f = tuple(findings[i] for i in roots)
    effects = tuple(findings[k] for k in order)
    ends: list[int] = []
    for i in roots:
        ends.extend(idx.open_ends(i, findings[i]))
    open_ends = tuple(findings[i] for i in sorted(set(ends)))

    by_code: dict[str, list[Finding]] = {}
    for f in (*root_f, *effects):
        by_code.setdefault(f.code, []).append(f)
    chain = _chain(by_code, code_parent, code_depth, code)

    members = [f for f in (*root_f, *effects) if f.status == Status.FAIL]
    nodes: set[str] = set()
    for f in members:
        nodes |= home_nodes(f)
    impact = Impact(
        gpus_lost=_gpus_lost(members),
        pods_blocked=len({f.subject for f in members if _blocked_pod(f)}),
        operand_pods_blocked=len({f.subject for f in members if f.code == "GX302"}),
        nodes_affected=len(nodes), nodes=tuple(sorted(nodes, key=natural)))
    root_nodes: set[str] = set()
    for i in roots:
        root_nodes |= idx.keys[i]
    fold_map = dict(zip(FOLD_BY.get(code, ()), fold, strict=True))
    return Incident(
        id=code + "".join(f":{v}" for v in fold if v), roots=root_f, effects=effects,
        chain=chain, open_ends=open_ends, impact=impact,
        severity=max(f.severity for f in members),
        root_nodes=tuple(sorted(root_nodes, key=natural)),
        gpu_nodes=gpu_nodes, verify=verify_command(code),
        fold={k: v for k, v in fold_map.items() if v})


def _chain(by_code: Mapping[str, list[Finding]], parent: Mapping[str, str | None],
           depth: Mapping[str, int], root: str) -> tuple[Link, ...]:
    kids: dict[str | None, list[str]] = {}
    for c, p in parent.items():
        if c != root:
            kids.setdefault(p, []).append(c)
    out: list[Link] = []

    def visit(c: str) -> None:
        fs = by_code[c]
        out.append(Link(c, fs[0].name, parent[c], depth[c], tuple(fs)))
        for k in sorted(kids.get(c, ())):
            visit(k)

    visit(root)
    return tuple(out)


def incident_of(incidents: Iterable[Incident], finding: Finding) -> Incident | None:
    """The first incident that holds ``finding`` as a root or an effect."""
    for inc in incidents:
        if any(f is finding for f in inc.roots) or any(f is finding for f in inc.effects):
            return inc
    return None


def snapshot_incidents(snap: Snapshot, findings: Sequence[Finding]) -> list[Incident]:
    """:func:`build_incidents` with the cluster's GPU node count (``2 of 4 GPU nodes``)."""
    gpu = len(gpu_nodes_of(snap)) if snap.has(Input.NODES) else None
    return build_incidents(findings, gpu_nodes=gpu)
