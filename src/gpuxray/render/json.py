"""The ``gpuxray/v1`` JSON document (CODES.md): one object on stdout, ``findings`` always there.

Extensions (docs/json.md): every finding carries a stable ``id``; ``check`` adds ``incidents``,
whose ``root`` and ``effects`` name findings by that id. No CODES.md key changes meaning.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from typing import Any

import msgspec

from gpuxray.model.finding import Finding, Severity, Status
from gpuxray.model.incident import Incident, finding_ids

SCHEMA = "gpuxray/v1"


def summary(findings: list[Finding]) -> dict[str, Any]:
    by_sev = {s.label: 0 for s in sorted(Severity, reverse=True)}
    unknown = 0
    for f in findings:
        if f.status == Status.FAIL:
            by_sev[f.severity.label] += 1
        else:
            unknown += 1
    return {**by_sev, "unknown": unknown, "total": len(findings)}


def document(findings: Iterable[Finding], extra: Mapping[str, Any] | None = None,
             incidents: Iterable[Incident] | None = None) -> dict[str, Any]:
    fl = list(findings)
    ids = finding_ids(fl)
    doc: dict[str, Any] = {"schema": SCHEMA,
                           "findings": [{"id": i, **f.as_json()} for f, i in zip(fl, ids,
                                                                                 strict=True)],
                           "summary": summary(fl)}
    if incidents is not None:
        by_obj = {id(f): i for f, i in zip(fl, ids, strict=True)}
        doc["incidents"] = [inc.as_json(by_obj) for inc in incidents]
    if extra:
        doc.update(extra)
    return doc


def dumps(doc: Any) -> str:
    """Pretty JSON, fast: msgspec encodes, then indents (stdlib json is ~20× slower on a fleet)."""
    try:
        raw = msgspec.json.encode(doc)
    except TypeError:
        raw = json.dumps(doc, default=str).encode()
    return msgspec.json.format(raw, indent=2).decode() + "\n"


def render(findings: Iterable[Finding], extra: Mapping[str, Any] | None = None,
           incidents: Iterable[Incident] | None = None) -> str:
    return dumps(document(findings, extra, incidents))
