"""``triage``: rank the known causes that pasted text points to (seed §4, §8).

Text from ``kubectl describe``, events, operand logs, dmesg, journalctl or nvidia-smi is scanned
against the signature catalog; causes are ranked by their votes. When the top cause has no
deciding line — the classic case is a lone ``Insufficient nvidia.com/gpu`` — the result says so
and names what to collect to tell the top two apart, instead of guessing.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from gpuxray.engines.signatures import (
    CauseScore,
    Match,
    collect_next,
    default_matcher,
    is_decided,
    rank,
)
from gpuxray.knowledge.codes import CATALOG
from gpuxray.model.finding import Evidence, Finding, Status, Subject


@dataclass(slots=True)
class TriageResult:
    causes: list[CauseScore]
    collect_next: str
    decided: bool
    findings: list[Finding]
    inputs: list[str]
    lines_scanned: int
    skipped: list[tuple[str, str]] = field(default_factory=list)

    def extra(self) -> dict[str, Any]:
        return {"causes": [c.as_json() for c in self.causes],
                "decided": self.decided, "collect_next": self.collect_next,
                "inputs": self.inputs, "lines_scanned": self.lines_scanned,
                "skipped": [{"input": n, "reason": r} for n, r in self.skipped]}


def _finding(cs: CauseScore, origin: dict[str, str], subject: Subject) -> Finding:
    info = CATALOG[cs.cause.code]
    evs = tuple(Evidence(origin.get(line, subject.name), line) for line in cs.matched)
    how = "decided by a line only this cause prints" if cs.deciding else \
        "no deciding line: a look-alike is possible"
    return Finding(code=info.code, name=info.name, severity=info.severity, status=Status.FAIL,
                   subject=subject, message=f"{cs.cause.title} (score {cs.score:.2f}; {how})",
                   evidence=evs, remedy=info.remedy,
                   params={"cause": cs.cause.id, "score": round(cs.score, 2),
                           "deciding": cs.deciding})


def triage(texts: Iterable[tuple[str, str]],
           skipped: Iterable[tuple[str, str]] = ()) -> TriageResult:
    """Rank causes for ``(name, text)`` inputs; findings for the top cause(s) and every cause
    backed by a deciding line."""
    matcher = default_matcher()
    matches: list[Match] = []
    names: list[str] = []
    lines = 0
    for name, text in texts:
        names.append(name)
        split = text.splitlines()
        lines += len(split)
        matches.extend(matcher.scan(split, name))
    ranked = rank(matches)
    origin: dict[str, str] = {}
    for m in matches:
        origin.setdefault(m.line, f"{m.origin}:{m.lineno}")
    subject = Subject("Text", names[0] if len(names) == 1 else f"{len(names)} inputs")
    findings: list[Finding] = []
    if ranked:
        top = ranked[0].score
        for cs in ranked:
            if cs.deciding or abs(cs.score - top) < 1e-9:
                findings.append(_finding(cs, origin, subject))
    return TriageResult(ranked, collect_next(ranked) if ranked and not is_decided(ranked) else "",
                        is_decided(ranked), findings, names, lines, list(skipped))
