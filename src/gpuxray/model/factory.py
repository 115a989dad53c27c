"""Building findings from the catalog: checks and engines give a code, a subject, evidence and
parameters; the name, default severity, words and remedy come from :mod:`gpuxray.knowledge.codes`.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from gpuxray.knowledge.codes import CATALOG
from gpuxray.model.finding import Evidence, Finding, Severity, Status, Subject


class _SafeDict(dict[str, Any]):
    def __missing__(self, key: str) -> str:
        return "{" + key + "}"


def render_message(code: str, params: Mapping[str, Any]) -> str:
    return CATALOG[code].message.format_map(_SafeDict(params))


def fail(code: str, subject: Subject, evidence: Iterable[Evidence] = (), *,
         severity: Severity | None = None, own: tuple[str, ...] = (),
         **params: Any) -> Finding:
    """A ``fail`` finding for ``code``: words and default severity come from the catalog.
    ``own`` names the params that are the subject's own (:attr:`Finding.own`)."""
    info = CATALOG[code]
    return Finding(code=code, name=info.name, severity=severity or info.severity,
                   status=Status.FAIL, subject=subject, message=render_message(code, params),
                   evidence=tuple(evidence), remedy=info.remedy, params=dict(params),
                   own=own)


def unknown(code: str, subject: Subject, missing: str, reason: str = "", *,
            evidence: Iterable[Evidence] = ()) -> Finding:
    """An ``unknown`` finding: ``missing`` names the input that would have decided it."""
    info = CATALOG[code]
    why = f"cannot evaluate {info.name}: {missing} {reason or 'not collected'}".strip()
    return Finding(code=code, name=info.name, severity=info.severity, status=Status.UNKNOWN,
                   subject=subject, message=why,
                   evidence=tuple(evidence) or (Evidence(missing, reason or "not collected"),),
                   remedy=f"Collect {missing} and run again.",
                   params={"missing": missing, "reason": reason or "not collected"})
