"""An incident: one root cause, the findings it explains, and what it costs (seed §4, §5).

A paged engineer reads incidents first: the seed §5 drop-in on two nodes is one incident with a
dozen symptoms (handler gone, plugin not starting, capacity 0, ClusterPolicy not ready, the
training pod Pending), not a dozen errors in layer order. ``diagnose/incidents.py`` builds them
from a run's findings with the causal model of ``knowledge/causal.py``; renderers format them.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from gpuxray.model.finding import Finding, Severity


def finding_ids(findings: Iterable[Finding]) -> list[str]:
    """A stable id per finding: ``code/Kind/[namespace/]name``, with ``#n`` on repeats.

    Derived from what the finding is about, not from its position, so the same problem keeps
    its id from one run to the next (JSON ``findings[].id``, ``incidents[].root``)."""
    seen: dict[str, int] = {}
    out: list[str] = []
    for f in findings:
        base = f"{f.code}/{f.subject}"
        n = seen.get(base, 0) + 1
        seen[base] = n
        out.append(base if n == 1 else f"{base}#{n}")
    return out


@dataclass(frozen=True, slots=True)
class Impact:
    """What the incident costs, in numbers."""

    gpus_lost: int = 0             # GX604: physical × replicas − advertised, summed
    pods_blocked: int = 0          # workload pods (or their controllers) that get no GPU
    operand_pods_blocked: int = 0  # GPU Operator pods waiting in Init (GX302)
    nodes_affected: int = 0        # nodes any finding of the incident is on
    nodes: tuple[str, ...] = ()

    def as_json(self) -> dict[str, Any]:
        return {"gpus_lost": self.gpus_lost, "pods_blocked": self.pods_blocked,
                "operand_pods_blocked": self.operand_pods_blocked,
                "nodes_affected": self.nodes_affected, "nodes": list(self.nodes)}


@dataclass(frozen=True, slots=True)
class Link:
    """One code of the consequence chain: its findings, and the code it follows from."""

    code: str
    name: str
    parent: str | None
    depth: int
    findings: tuple[Finding, ...]


@dataclass(frozen=True, slots=True)
class Incident:
    id: str
    roots: tuple[Finding, ...]       # the same root code, folded over its subjects
    effects: tuple[Finding, ...]     # what the roots explain, nearest first
    chain: tuple[Link, ...]          # roots and effects by code, depth-first from the root
    open_ends: tuple[Finding, ...]   # unknown findings that could lie beneath the root
    impact: Impact
    severity: Severity
    root_nodes: tuple[str, ...] = ()
    gpu_nodes: int | None = None     # GPU nodes in the cluster, for "2 of 4 GPU nodes"
    verify: str = ""                 # a read-only command that confirms the root (seed §7)
    fold: Mapping[str, str] = field(default_factory=dict)

    @property
    def root(self) -> Finding:
        return self.roots[0]

    @property
    def subjects(self) -> list[str]:
        return sorted({str(f.subject) for f in self.roots})

    def headline(self) -> str:
        """``GX501 containerd-dropin-overwrote-cri: … on 2 of 4 GPU nodes (gpu-2, gpu-3)``."""
        r = self.root
        what = ", ".join(self.fold.values())
        text = f"{r.code} {r.name}" + (f": {what}" if what else "")
        if self.root_nodes:
            n = len(self.root_nodes)
            of = f" of {self.gpu_nodes} GPU nodes" if self.gpu_nodes and self.gpu_nodes >= n else (
                " node" if n == 1 else " nodes")
            text += f" on {n}{of} ({short_list(self.root_nodes)})"
        elif len(self.roots) > 1:
            text += f" on {len(self.roots)} subjects"
        else:
            text += f" — {r.subject}"
        return text

    def impact_line(self) -> str:
        i = self.impact
        parts = [f"{i.gpus_lost} GPU(s) lost", f"{i.pods_blocked} pod(s) blocked"]
        if i.operand_pods_blocked:
            parts.append(f"{i.operand_pods_blocked} operand pod(s) waiting")
        parts.append(f"{i.nodes_affected} node(s) affected")
        return ", ".join(parts)

    def as_json(self, ids: Mapping[int, str]) -> dict[str, Any]:
        """``ids`` maps ``id(finding)`` to the finding's id in the same document."""
        return {
            "id": self.id,
            "root_code": self.root.code,
            "severity": self.severity.label,
            "summary": self.headline(),
            "root": [ids[id(f)] for f in self.roots],
            "effects": [ids[id(f)] for f in self.effects],
            "open_ends": [ids[id(f)] for f in self.open_ends],
            "subjects": self.subjects,
            "impact": self.impact.as_json(),
            "chain": [{"code": c.code, "parent": c.parent, "count": len(c.findings)}
                      for c in self.chain],
            "remedy": self.root.remedy,
            "verify": self.verify,
        }


def short_list(names: Sequence[str], limit: int = 8) -> str:
    """``a, b, c`` or ``a, b, … (+40)``: node lists of a 5,000-node fleet stay one line."""
    if len(names) <= limit:
        return ", ".join(names)
    return ", ".join(names[:limit]) + f", … (+{len(names) - limit})"


def short_message(f: Finding, limit: int = 110) -> str:
    """The finding's message without its ``node:`` prefix, cut at a clause boundary near
    ``limit`` characters: the one line a verdict quotes."""
    msg = f.message
    node = f.params.get("node") or (f.subject.name if f.subject.kind == "Node" else "")
    if node and msg.startswith(f"{node}: "):
        msg = msg[len(node) + 2:]
    clauses = msg.split("; ")
    out = clauses[0]
    for c in clauses[1:]:
        if len(out) + 2 + len(c) > limit:
            break
        out += "; " + c
    return out


def root_verdict_text(root: Finding, nodes: Sequence[str], verdict: Finding, phase: str) -> str:
    """``GX501 … on gpu-2, gpu-3 — …; consequence: the pod is Pending as GX202 …``."""
    where = f" on {short_list(nodes)}" if nodes else ""
    return (f"{root.code} {root.name}{where} — {short_message(root)}; consequence: the pod is "
            f"{phase or 'waiting'} as {verdict.code} {verdict.name}")
