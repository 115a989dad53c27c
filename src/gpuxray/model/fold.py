"""Identical findings on many subjects, folded into one (docs/json.md, "Folded findings").

Why: a pending storm — thousands of identical pods of one job, each refused for the same reason —
gives thousands of findings that differ only in their subject. Listed one per pod, a report
grows with the pods instead of with the problems (5 MB for 2,700 pods of one job). Folding keeps
every subject: the folded finding is the first one (its ``subject`` the representative, in the
report's order) and lists all of them in ``subjects``. Nothing else is merged: two findings fold
only when code, name, severity, status, message, evidence, remedy and params are all equal.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from gpuxray.model.finding import Finding, Subject


def fold_groups(findings: Sequence[Finding]) -> list[list[int]]:
    """Indices of ``findings`` grouped by everything but their subject, groups in first-seen
    order, each group's indices ascending."""
    buckets: dict[tuple[object, ...], list[list[int]]] = {}
    groups: list[list[int]] = []
    for i, f in enumerate(findings):
        key = (f.code, f.name, f.severity, f.status, f.message, f.evidence, f.remedy)
        bucket = buckets.setdefault(key, [])
        for group in bucket:
            if findings[group[0]].params == f.params:  # mappings: compared, not hashed
                group.append(i)
                break
        else:
            group = [i]
            bucket.append(group)
            groups.append(group)
    return groups


def fold(findings: Iterable[Finding]) -> list[tuple[Finding, tuple[Subject, ...]]]:
    """``findings`` grouped by everything but their subject, in first-seen order; each group is
    (its first finding, the subjects of all its findings in order)."""
    fl = list(findings)
    return [(fl[g[0]], tuple(fl[i].subject for i in g)) for g in fold_groups(fl)]


def unfold(folded: Iterable[tuple[Finding, tuple[Subject, ...]]]) -> list[Finding]:
    """The findings ``fold`` was given, back in order of their groups (for tests and readers
    that want one finding per subject)."""
    from dataclasses import replace

    return [f if s == f.subject else replace(f, subject=s) for f, subjects in folded
            for s in subjects]
