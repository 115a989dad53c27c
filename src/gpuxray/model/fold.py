"""Identical findings on many subjects, folded into one (docs/json.md, "Folded findings").

Why: a pending storm — thousands of identical pods of one job, each refused for the same reason —
gives thousands of findings that differ only in their subject. Listed one per pod, a report
grows with the pods instead of with the problems (5 MB for 2,700 pods of one job). Folding keeps
every subject: the folded finding is the first one (its ``subject`` the representative, in the
report's order) and lists all of them in ``subjects``. Nothing else is merged: two findings fold
only when code, name, severity, status, message, evidence, remedy and params are all equal.

Some findings name things of their subject's own besides the subject — the claim a pod's
template created for it, the one node a DaemonSet-like pod is pinned to and who holds that
node's GPUs — so the pods of one template, or of one DaemonSet on full nodes, would never fold
(5 MB for 400 pods of one template, one entry each). Such a finding says which params are its
subject's own (:attr:`Finding.own`); findings alike in everything but the subject and those
params fold too, the entry listing each subject's own values (``subject_params``): only when
their message and evidence, with the text of those values masked, are equal — they differ in
their words only where they name their own values, and what the own values do not explain
stays apart (a subject's message and evidence are the first one's with its own values put in).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from gpuxray.model.finding import Finding, Subject

_RUN = re.compile("\x00(?:, \x00)+")  # own values listed one after another


def _shared(f: Finding) -> Mapping[str, Any]:
    """The params that hold for every subject of a fold (all of them for most findings)."""
    if not f.own:
        return f.params
    return {k: v for k, v in f.params.items() if k not in f.own}


def own_values(f: Finding) -> dict[str, Any]:
    """The finding's own params (``own``) and their values; absent ones are left out."""
    return {k: f.params[k] for k in f.own if k in f.params}


def _masked(f: Finding) -> tuple[str, tuple[tuple[str, str], ...]]:
    """Message and evidence with every text value of the finding's own params replaced by a
    placeholder (longest first), a list of them written out (``a, b, c``) by one: two findings
    whose masked words are equal differ in their words only where those name their own values
    (a node, who holds it). Numbers are not masked — "8 of 8 allocated" and "4 of 4" stay
    apart."""
    texts: set[str] = set()
    for v in own_values(f).values():
        if isinstance(v, str):
            texts.add(v)
        elif isinstance(v, (list, tuple)):
            texts.update(x for x in v if isinstance(x, str))
        elif isinstance(v, Mapping):
            texts.update(str(k) for k in v)
    order = sorted((t for t in texts if t), key=lambda t: (-len(t), t))

    def mask(text: str) -> str:
        hit = False
        for t in order:
            if t in text:
                text = text.replace(t, "\x00")
                hit = True
        return _RUN.sub("\x00", text) if hit else text

    return mask(f.message), tuple((e.source, mask(e.detail)) for e in f.evidence)


def fold_groups(findings: Sequence[Finding]) -> list[list[int]]:
    """Indices of ``findings`` grouped by everything but their subject (and their own params,
    where they have some), groups in first-seen order, each group's indices ascending."""
    buckets: dict[tuple[object, ...], list[list[int]]] = {}
    groups: list[list[int]] = []
    for i, f in enumerate(findings):
        if f.own:
            key: tuple[object, ...] = (f.code, f.name, f.severity, f.status, f.remedy, f.own,
                                       _masked(f))
        else:
            key = (f.code, f.name, f.severity, f.status, f.message, f.evidence, f.remedy, ())
        bucket = buckets.setdefault(key, [])
        shared = _shared(f)
        for group in bucket:
            if _shared(findings[group[0]]) == shared:  # mappings: compared, not hashed
                group.append(i)
                break
        else:
            group = [i]
            bucket.append(group)
            groups.append(group)
    return groups


def fold(findings: Iterable[Finding]) -> list[tuple[Finding, tuple[Subject, ...]]]:
    """``findings`` grouped by everything but their subject, in first-seen order; each group is
    (its first finding, the subjects of all its findings in order). Where a group's findings
    differ in their own params, :func:`fold_groups` and ``subject_params`` keep those."""
    fl = list(findings)
    return [(fl[g[0]], tuple(fl[i].subject for i in g)) for g in fold_groups(fl)]


def unfold(folded: Iterable[tuple[Finding, tuple[Subject, ...]]]) -> list[Finding]:
    """The findings ``fold`` was given, back in order of their groups (for tests and readers
    that want one finding per subject; exact for groups without own params)."""
    from dataclasses import replace

    return [f if s == f.subject else replace(f, subject=s) for f, subjects in folded
            for s in subjects]
