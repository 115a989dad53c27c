"""Run the registered checks over a Snapshot and summarise the outcome for exit codes."""

from __future__ import annotations

from collections.abc import Iterable

from gpuxray.checks.registry import all_checks, run_check
from gpuxray.engines.podscan import fleet_walk
from gpuxray.model.finding import Finding, Severity, Status
from gpuxray.model.snapshot import Snapshot

EXIT_OK, EXIT_FINDINGS, EXIT_USAGE, EXIT_INCOMPLETE = 0, 1, 2, 3


def run_all(snap: Snapshot, codes: Iterable[str] | None = None) -> list[Finding]:
    out: list[Finding] = []
    if codes is None and not snap.core_pods:
        fleet_walk(snap)  # every per-pod screen and grouping the checks read, in one pass
    for spec in all_checks(None if codes is None else set(codes)).values():
        out.extend(run_check(spec, snap))
    return sort_findings(out)


def sort_findings(findings: Iterable[Finding]) -> list[Finding]:
    return sorted(findings, key=lambda f: (-f.severity, f.status != Status.FAIL, f.code,
                                           str(f.subject)))

def exit_code(findings: Iterable[Finding], fail_on: Severity) -> int:
    """CODES.md: 1 for a fail at or above the threshold, 3 for only unknowns there, else 0."""
    fails = unknowns = False
    for f in findings:
        if f.severity >= fail_on:
            if f.status == Status.FAIL:
                fails = True
            else:
                unknowns = True
    if fails:
        return EXIT_FINDINGS
    return EXIT_INCOMPLETE if unknowns else EXIT_OK
