"""2xx — gate 1: GPU pods the scheduler has not placed, each walked to its §4 leaf.

The walk (``engines/gate1.py``) runs once per snapshot for all pending GPU pods; each code's check
reports the pods whose leaf is that code, so ``check`` and ``why`` always agree.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping

from gpuxray.checks.registry import check
from gpuxray.engines.gate1 import Gate1, verdict_findings
from gpuxray.model.finding import Finding
from gpuxray.model.snapshot import Input, Snapshot

NEEDS = (Input.NODES, Input.PODS)


def leaves(gates: Mapping[tuple[str, str], Gate1], code: str) -> Iterator[Finding]:
    """The verdicts of gate-1 walks (device plugin or DRA) whose leaf is ``code``."""
    for g in gates.values():
        v = g.verdict
        if v is not None and v.code == code:
            yield v


def _with_code(snap: Snapshot, code: str) -> Iterator[Finding]:
    """The pending pods' gate-1 verdicts with leaf ``code``, as :func:`leaves` of
    ``gate1.verdicts`` gives them (without the walks' steps, which no check reads)."""
    return (v for v in verdict_findings(snap).values() if v is not None and v.code == code)


@check("GX201", needs=NEEDS)
def excluded_by_taint_or_selector(snap: Snapshot) -> Iterator[Finding]:
    """Every GPU node is excluded by an untolerated taint, nodeSelector or affinity (§2, §4)."""
    return _with_code(snap, "GX201")


@check("GX202", needs=NEEDS)
def resource_not_advertised(snap: Snapshot) -> Iterator[Finding]:
    """The plugin never registered, or left more than 5 minutes ago (facts.md §3)."""
    return _with_code(snap, "GX202")


@check("GX203", needs=NEEDS)
def devices_unhealthy(snap: Snapshot) -> Iterator[Finding]:
    """capacity > allocatable on nodes that would otherwise fit (seed §2; facts.md §3, §8)."""
    return _with_code(snap, "GX203")


@check("GX204", needs=NEEDS)
def gpus_exhausted(snap: Snapshot) -> Iterator[Finding]:
    """Requests already bound equal allocatable on every candidate: truly full (§4)."""
    return _with_code(snap, "GX204")


@check("GX205", needs=NEEDS)
def request_exceeds_node_size(snap: Snapshot) -> Iterator[Finding]:
    """The pod asks for more GPUs than any single node has (§2)."""
    return _with_code(snap, "GX205")


@check("GX206", needs=NEEDS)
def fragmented(snap: Snapshot) -> Iterator[Finding]:
    """Enough free GPUs in the cluster, none on one fitting node (§6)."""
    return _with_code(snap, "GX206")


@check("GX207", needs=NEEDS)
def resource_name_mismatch(snap: Snapshot) -> Iterator[Finding]:
    """The pod asks for one GPU name while nodes advertise another (facts.md §6)."""
    return _with_code(snap, "GX207")
