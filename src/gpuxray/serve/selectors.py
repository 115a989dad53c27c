"""Label and field selectors, as the API server accepts them in ``labelSelector``/``fieldSelector``.

Label grammar (k8s.io/apimachinery labels.Parse): comma-separated requirements, each ``k=v``,
``k==v``, ``k!=v``, ``k in (a,b)``, ``k notin (a,b)``, ``k`` (exists) or ``!k`` (does not exist).
Field selectors support ``=``, ``==`` and ``!=`` on the fields listed in :data:`FIELDS`, which
are those kubectl itself sends (``describe node`` asks for the node's non-terminated pods and its
events by ``involvedObject.*``).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any


class SelectorError(ValueError):
    """Malformed selector: the server answers 400 BadRequest."""


@dataclass(frozen=True, slots=True)
class Requirement:
    key: str
    op: str  # "=", "!=", "in", "notin", "exists", "!"
    values: tuple[str, ...] = ()

    def matches(self, labels: dict[str, str]) -> bool:
        has = self.key in labels
        val = labels.get(self.key)
        if self.op == "=":
            return has and val == self.values[0]
        if self.op == "!=":
            return not has or val != self.values[0]
        if self.op == "in":
            return has and val in self.values
        if self.op == "notin":
            return not has or val not in self.values
        if self.op == "exists":
            return has
        return not has  # "!"


_KEY = r"[A-Za-z0-9](?:[-A-Za-z0-9_./]*[A-Za-z0-9])?"
_SET_RE = re.compile(rf"^\s*({_KEY})\s+(in|notin)\s+\((.*)\)\s*$")
_CMP_RE = re.compile(rf"^\s*({_KEY})\s*(==|!=|=)\s*([-A-Za-z0-9_.]*)\s*$")
_EXISTS_RE = re.compile(rf"^\s*(!?)\s*({_KEY})\s*$")


def _split_top(text: str) -> list[str]:
    """Split on commas that are not inside parentheses."""
    parts: list[str] = []
    cur: list[str] = []
    depth = 0
    for ch in text:
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
            if depth < 0:
                raise SelectorError("unbalanced ')'")
        if ch == "," and depth == 0:
            parts.append("".join(cur))
            cur = []
        else:
            cur.append(ch)
    if depth:
        raise SelectorError("unbalanced '('")
    parts.append("".join(cur))
    return parts


def parse_labels(text: str) -> list[Requirement]:
    reqs: list[Requirement] = []
    if not text.strip():
        return reqs
    for part in _split_top(text):
        if not part.strip():
            raise SelectorError(f"empty requirement in {text!r}")
        if m := _SET_RE.match(part):
            vals = tuple(v.strip() for v in m.group(3).split(",") if v.strip())
            reqs.append(Requirement(m.group(1), m.group(2), vals))
        elif m := _CMP_RE.match(part):
            reqs.append(Requirement(m.group(1), "!=" if m.group(2) == "!=" else "=",
                                    (m.group(3),)))
        elif m := _EXISTS_RE.match(part):
            reqs.append(Requirement(m.group(2), "!" if m.group(1) else "exists"))
        else:
            raise SelectorError(f"unable to parse requirement {part.strip()!r}")
    return reqs


def _path(*keys: str) -> Callable[[dict[str, Any]], str]:
    def get(obj: dict[str, Any]) -> str:
        cur: Any = obj
        for k in keys:
            cur = cur.get(k) if isinstance(cur, dict) else None
        return "" if cur is None else str(cur)
    return get


FIELDS: dict[str, Callable[[dict[str, Any]], str]] = {
    "metadata.name": _path("metadata", "name"),
    "metadata.namespace": _path("metadata", "namespace"),
    "spec.nodeName": _path("spec", "nodeName"),
    "status.phase": _path("status", "phase"),
    "involvedObject.kind": _path("involvedObject", "kind"),
    "involvedObject.name": _path("involvedObject", "name"),
    "involvedObject.namespace": _path("involvedObject", "namespace"),
    "involvedObject.uid": _path("involvedObject", "uid"),
    "involvedObject.fieldPath": _path("involvedObject", "fieldPath"),
    "reason": _path("reason"),
    "type": _path("type"),
}


@dataclass(frozen=True, slots=True)
class FieldRequirement:
    field: str
    negate: bool
    value: str

    def matches(self, obj: dict[str, Any]) -> bool:
        return (FIELDS[self.field](obj) == self.value) != self.negate


def parse_fields(text: str) -> list[FieldRequirement]:
    out: list[FieldRequirement] = []
    if not text.strip():
        return out
    for part in text.split(","):
        m = re.match(r"^\s*([A-Za-z.]+)\s*(==|!=|=)\s*(.*?)\s*$", part)
        if not m:
            raise SelectorError(f"invalid field selector {part.strip()!r}")
        if m.group(1) not in FIELDS:
            raise SelectorError(f"field label not supported: {m.group(1)}")
        out.append(FieldRequirement(m.group(1), m.group(2) == "!=", m.group(3)))
    return out


def labels_of(obj: dict[str, Any]) -> dict[str, str]:
    meta = obj.get("metadata")
    labels = meta.get("labels") if isinstance(meta, dict) else None
    return {str(k): str(v) for k, v in labels.items()} if isinstance(labels, dict) else {}
