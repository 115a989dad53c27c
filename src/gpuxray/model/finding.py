"""Findings are structured data, not strings (DESIGN.md principles; CODES.md JSON contract).

A finding is either ``fail`` (the evidence shows the problem) or ``unknown`` (the evidence needed
to decide is missing; the finding names the input). A check with nothing wrong yields nothing:
there is no ``pass`` finding, so missing evidence can never be mistaken for health.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from gpuxray.knowledge.severity import Severity as Severity


class Status(enum.StrEnum):
    FAIL = "fail"
    UNKNOWN = "unknown"


class Layer(enum.StrEnum):
    """The layers of CODES.md, numbered by the hundreds digit of the code."""

    ADMISSION = "admission"
    SCHEDULING = "scheduling"
    RUNTIME = "runtime"
    OPERATOR = "operator"
    NODE = "node"
    CAPACITY = "capacity"

    @classmethod
    def of_code(cls, code: str) -> Layer:
        digit = code[2]
        return {
            "1": cls.ADMISSION,
            "2": cls.SCHEDULING,
            "3": cls.RUNTIME,
            "4": cls.OPERATOR,
            "5": cls.NODE,
            "6": cls.CAPACITY,
        }[digit]


@dataclass(frozen=True, slots=True)
class Subject:
    """What a finding is about: a Kubernetes object (or a host, as ``Node``)."""

    kind: str
    name: str
    namespace: str | None = None

    def __str__(self) -> str:
        if self.namespace:
            return f"{self.kind}/{self.namespace}/{self.name}"
        return f"{self.kind}/{self.name}"

    def as_json(self) -> dict[str, str | None]:
        return {"kind": self.kind, "name": self.name, "namespace": self.namespace}


CLUSTER = Subject("Cluster", "cluster")


@dataclass(frozen=True, slots=True)
class Evidence:
    """One fact a finding stands on, with the place it came from.

    ``source`` is a bundle-relative path (``cluster/nodes.json``,
    ``nodes/gpu-2/files/etc/containerd/conf.d/registry.toml``) or ``live:<resource>``;
    ``detail`` is the datum itself (a field and its value, a log line).
    """

    source: str
    detail: str

    def as_json(self) -> dict[str, str]:
        return {"source": self.source, "detail": self.detail}


@dataclass(frozen=True, slots=True)
class Finding:
    code: str
    name: str
    severity: Severity
    status: Status
    subject: Subject
    message: str
    evidence: tuple[Evidence, ...] = ()
    remedy: str = ""
    params: Mapping[str, Any] = field(default_factory=dict)
    # params that name the subject's own things — the claim its template created, the one node
    # it may go to and who holds that node — rather than the problem: findings alike in all
    # else fold into one report entry that lists these per subject (model/fold.py)
    own: tuple[str, ...] = ()

    @property
    def layer(self) -> Layer:
        return Layer.of_code(self.code)

    def as_json(self) -> dict[str, Any]:
        return {
            "code": self.code,
            "name": self.name,
            "severity": self.severity.label,
            "status": self.status.value,
            "layer": self.layer.value,
            "subject": self.subject.as_json(),
            "message": self.message,
            "evidence": [e.as_json() for e in self.evidence],
            "remedy": self.remedy,
            "params": _jsonable(self.params),
        }


def _jsonable(value: Any) -> Any:
    if isinstance(value, Mapping):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple, set, frozenset)):
        items = [_jsonable(v) for v in value]
        return sorted(items, key=str) if isinstance(value, (set, frozenset)) else items
    if isinstance(value, (str, int, float, bool)) or value is None:
        return value
    return str(value)
