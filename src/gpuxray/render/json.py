"""The ``gpuxray/v1`` JSON document (CODES.md): one object on stdout, ``findings`` always there.

Extensions (docs/json.md): every finding carries a stable ``id``; ``check`` adds ``incidents``,
whose ``root`` and ``effects`` name findings by that id. No CODES.md key changes meaning.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from typing import Any

import msgspec

from gpuxray.model.finding import Finding, Severity, Status, _jsonable
from gpuxray.model.fold import fold_groups, own_values
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


def finding_entries(findings: list[Finding], ids: list[str]) -> list[dict[str, Any]]:
    """The ``findings`` array: identical findings on several subjects folded into one entry
    (docs/json.md): ``id`` and ``subject`` stay the first finding's, ``subjects`` and ``ids``
    list every folded finding's, in order, so an incident naming any of them resolves; where
    the folded findings differ in their own params, ``subject_params`` lists each one's."""
    out = []
    for group in fold_groups(findings):
        first = group[0]
        entry = {"id": ids[first], **findings[first].as_json()}
        if len(group) > 1:
            entry["subjects"] = [findings[i].subject.as_json() for i in group]
            entry["ids"] = [ids[i] for i in group]
            f0 = findings[first]
            if f0.own and any(findings[i].params != f0.params for i in group):
                entry["subject_params"] = [_jsonable(own_values(findings[i])) for i in group]
        out.append(entry)
    return out


def document(findings: Iterable[Finding], extra: Mapping[str, Any] | None = None,
             incidents: Iterable[Incident] | None = None) -> dict[str, Any]:
    fl = list(findings)
    ids = finding_ids(fl)
    doc: dict[str, Any] = {"schema": SCHEMA, "findings": finding_entries(fl, ids),
                           "summary": summary(fl)}
    if incidents is not None:
        by_obj = {id(f): i for f, i in zip(fl, ids, strict=True)}
        doc["incidents"] = [inc.as_json(by_obj) for inc in incidents]
    if extra:
        doc.update(extra)
    return doc


def dumps_bytes(doc: Any) -> bytes:
    """Pretty JSON as UTF-8, fast: msgspec encodes, then indents (stdlib json is ~20× slower on
    a fleet). The commands write these bytes as they are: a 5,000-node capacity report is
    15 MB, and decoding it to text only for the stream to encode it again cost ~0.05 s."""
    try:
        raw = msgspec.json.encode(doc)
    except TypeError:
        raw = json.dumps(doc, default=str).encode()
    return msgspec.json.format(raw, indent=2) + b"\n"


def dumps(doc: Any) -> str:
    return dumps_bytes(doc).decode()


def render_bytes(findings: Iterable[Finding], extra: Mapping[str, Any] | None = None,
                 incidents: Iterable[Incident] | None = None) -> bytes:
    return dumps_bytes(document(findings, extra, incidents))


def render(findings: Iterable[Finding], extra: Mapping[str, Any] | None = None,
           incidents: Iterable[Incident] | None = None) -> str:
    return render_bytes(findings, extra, incidents).decode()
