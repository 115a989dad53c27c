"""The result of ``why``: the §4 decision-tree steps walked and the leaf reached (CODES.md)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from gpuxray.model.finding import Evidence, Finding

Result = Literal["pass", "fail", "unknown", "info"]


@dataclass(frozen=True, slots=True)
class Step:
    step: str
    result: Result
    detail: str = ""
    evidence: tuple[Evidence, ...] = ()

    def as_json(self) -> dict[str, Any]:
        return {"step": self.step, "result": self.result, "detail": self.detail,
                "evidence": [e.as_json() for e in self.evidence]}


@dataclass(slots=True)
class Diagnosis:
    target: str  # "ns/pod" or "deploy/ns/name"
    namespace: str
    name: str
    kind: str = "Pod"
    path: list[Step] = field(default_factory=list)
    verdict: Finding | None = None
    related: list[Finding] = field(default_factory=list)
    conclusion: str = ""
    #: the root the causal chain reached beneath the verdict (seed §4: never stop at the
    #: event's line), with the nodes it is on; None when the verdict is its own root
    root_cause: Finding | None = None
    root_nodes: list[str] = field(default_factory=list)
    phase: str = ""

    def add(self, step: str, result: Result, detail: str = "",
            evidence: tuple[Evidence, ...] | list[Evidence] = ()) -> Step:
        s = Step(step, result, detail, tuple(evidence))
        self.path.append(s)
        return s

    def as_json(self) -> dict[str, Any]:
        return {
            "pod": {"namespace": self.namespace, "name": self.name},
            "target": {"kind": self.kind, "namespace": self.namespace, "name": self.name},
            "verdict": self.verdict.as_json() if self.verdict else None,
            "path": [s.as_json() for s in self.path],
            "related": [f.as_json() for f in self.related],
            "conclusion": self.conclusion,
            "root_cause": self.root_cause.as_json() if self.root_cause else None,
            "root_cause_nodes": list(self.root_nodes),
        }
