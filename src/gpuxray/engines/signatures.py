"""Matching text against the signature catalog, and ranking the causes it votes for.

Compiled once; every line is cut to ``MAX_LINE`` characters and first tested against each
signature's lower-case needle, so a scan is linear in the input and a pathological line cannot
stall it. Ranking sums each cause's votes (a signature counts once per text, with a small bonus
for repeats), so many copies of one generic line never outvote a single deciding line
(knowledge/signatures.py; seed §8).
"""

from __future__ import annotations

import bisect
import functools
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field

from gpuxray.knowledge.signatures import (
    CAUSE_BY_ID,
    CAUSES,
    DISTINGUISH,
    SIGNATURES,
    Cause,
    Signature,
)

MAX_LINE = 4096
SHORT_TEXT = 1 << 16
MAX_MATCHED_LINES = 5
REPEAT_BONUS = 0.25  # per extra matching line, up to MAX_REPEATS
MAX_REPEATS = 4


@dataclass(frozen=True, slots=True)
class Match:
    signature: Signature
    line: str
    lineno: int
    origin: str = ""


@dataclass(slots=True)
class CauseScore:
    cause: Cause
    score: float = 0.0
    deciding: bool = False
    matched: list[str] = field(default_factory=list)
    signatures: list[str] = field(default_factory=list)

    def as_json(self) -> dict[str, object]:
        return {"code": self.cause.code, "cause": self.cause.id, "title": self.cause.title,
                "score": round(self.score, 2), "deciding": self.deciding,
                "matched": list(self.matched), "signatures": list(self.signatures),
                "collect": self.cause.collect}


_Trie = dict[str, "_Trie"]


def literal_alternation(words: Iterable[str]) -> str:
    """A regex matching any of ``words``, written as a trie of their characters.

    Why not ``a|b|c``: Python's ``re`` tries every alternative at every position of the text,
    so a flat alternation of the catalog's several hundred needles costs O(text × needles);
    the trie shares prefixes, so at each position only the branches of the next character are
    tried. It matches exactly the same set of positions as the flat alternation."""
    trie: _Trie = {}
    for w in words:
        node = trie
        for ch in w:
            node = node.setdefault(ch, {})
        node[""] = {}  # a word ends here

    def emit(node: _Trie) -> str:
        ends = "" in node
        branches = [re.escape(ch) + emit(sub) for ch, sub in sorted(node.items()) if ch]
        if not branches:
            return ""
        body = branches[0] if len(branches) == 1 else "(?:" + "|".join(branches) + ")"
        if ends:
            return "(?:" + body + ")?"
        return body

    return emit(trie)


class _LazyRegex(dict[str, "re.Pattern[str]"]):
    """Signature id -> compiled pattern, compiled on first use: a scan reaches only the few
    signatures whose needle a text holds, and compiling all of them up front was a fixed cost
    on every command (~0.1 s for a catalog of 300)."""

    def __init__(self, patterns: dict[str, str]) -> None:
        super().__init__()
        self._patterns = patterns

    def __missing__(self, key: str) -> re.Pattern[str]:
        rx = self[key] = re.compile(self._patterns[key])
        return rx


class Matcher:
    def __init__(self, signatures: Iterable[Signature]) -> None:
        self.signatures = tuple(signatures)
        self._regex = _LazyRegex({s.id: s.pattern for s in self.signatures})
        by_needle: dict[str, list[Signature]] = {}
        for s in self.signatures:
            for n in s.needle.lower().split("|"):
                if n:
                    by_needle.setdefault(n, []).append(s)
        self._by_needle = by_needle
        self._needles_rx: re.Pattern[str] | None = None
        self._order = {s.id: i for i, s in enumerate(self.signatures)}

    @property
    def _needles(self) -> re.Pattern[str]:
        """One pass over a line tells whether it holds any needle at all; which ones it holds
        (overlapping needles such as "nvidia" inside "nvidia-container-cli") is the
        per-needle check that follows. Built and compiled on the first text scanned: the
        trie of ~700 needles costs ~0.05 s, and a ``check`` whose pods show nothing to scan
        (a pending storm's bundle) never asks for it."""
        rx = self._needles_rx
        if rx is None:
            rx = self._needles_rx = re.compile(literal_alternation(self._by_needle))
        return rx

    def match_line(self, line: str) -> list[Signature]:
        text = line[:MAX_LINE]
        low = text.lower()
        if not self._needles.search(low):
            return []
        cands: dict[str, Signature] = {}
        for needle, sigs in self._by_needle.items():
            if needle in low:
                for s in sigs:
                    cands.setdefault(s.id, s)
        found = [s for s in cands.values() if self._regex[s.id].search(low)]
        found.sort(key=lambda s: self._order[s.id])
        return found

    def scan(self, lines: Iterable[str], origin: str = "") -> Iterator[Match]:
        yield from self.scan_text("\n".join(ln.rstrip("\r\n") for ln in lines), origin)

    def scan_text(self, text: str, origin: str = "") -> list[Match]:
        """Every match in ``text``, by line. Needles are located over the whole lower-cased text
        with ``str.find`` (C speed); only the lines holding a needle run its regexes."""
        low = text.lower()
        if len(low) < SHORT_TEXT and not self._needles.search(low):
            return []  # one regex pass rejects most short texts (statuses, event messages)
        if len(low) != len(text):  # a few Unicode characters change length when lower-cased
            return [m for n, line in enumerate(text.split("\n"), 1)
                    for m in (Match(sig, line[:MAX_LINE].strip(), n, origin)
                              for sig in self.match_line(line))]
        starts = [0]
        pos = low.find("\n")
        while pos >= 0:
            starts.append(pos + 1)
            pos = low.find("\n", pos + 1)
        cands: dict[int, dict[str, Signature]] = {}
        for needle, sigs in self._by_needle.items():
            pos = low.find(needle)
            while pos >= 0:
                idx = bisect.bisect_right(starts, pos) - 1
                if pos - starts[idx] < MAX_LINE:
                    bucket = cands.setdefault(idx, {})
                    for sg in sigs:
                        bucket.setdefault(sg.id, sg)
                nxt = starts[idx + 1] if idx + 1 < len(starts) else len(low)
                pos = low.find(needle, nxt)
        out: list[Match] = []
        for idx in sorted(cands):
            end = starts[idx + 1] - 1 if idx + 1 < len(starts) else len(text)
            line = text[starts[idx]:end].rstrip("\r")
            capped = line[:MAX_LINE]
            capped_low = low[starts[idx]:starts[idx] + len(capped)]
            found = sorted((sg for sg in cands[idx].values()
                            if self._regex[sg.id].search(capped_low)),
                           key=lambda sg: self._order[sg.id])
            out.extend(Match(sg, capped.strip(), idx + 1, origin) for sg in found)
        return out


@functools.lru_cache(maxsize=1)
def default_matcher() -> Matcher:
    """The signatures that vote for a cause: what the bundle checks classify lines with."""
    return Matcher(s for s in SIGNATURES if s.votes)


@functools.lru_cache(maxsize=1)
def full_matcher() -> Matcher:
    """Every signature, also those that only rule causes out: what ``triage`` ranks with."""
    return Matcher(SIGNATURES)


def codes_of(matches: Iterable[Match]) -> set[str]:
    return {CAUSE_BY_ID[m.signature.primary].code for m in matches}


def best_line_cause(sigs: list[Signature]) -> Cause | None:
    """The cause a single line points to most strongly (deciding signatures first)."""
    if not sigs:
        return None
    sig = max(sigs, key=lambda s: (s.deciding, max(w for _c, w in s.votes)))
    return CAUSE_BY_ID[sig.primary]


def rank(matches: Iterable[Match]) -> list[CauseScore]:
    """Causes ordered by score; ties keep the catalog's order (CAUSES)."""
    per_sig: dict[str, list[Match]] = {}
    for m in matches:
        per_sig.setdefault(m.signature.id, []).append(m)
    scores: dict[str, CauseScore] = {}
    for ms in per_sig.values():
        sig = ms[0].signature
        distinct = list(dict.fromkeys(m.line for m in ms))
        factor = 1.0 + REPEAT_BONUS * min(len(distinct) - 1, MAX_REPEATS)
        for cause_id, weight in sig.votes:
            cs = scores.setdefault(cause_id, CauseScore(CAUSE_BY_ID[cause_id]))
            cs.score += weight * factor
            cs.deciding = cs.deciding or (sig.deciding and sig.primary == cause_id)
            cs.signatures.append(sig.id)
            for line in distinct:
                if line not in cs.matched and len(cs.matched) < MAX_MATCHED_LINES:
                    cs.matched.append(line)
    # A line that rules a cause out (the module loaded, so Secure Boot did not block it) halves
    # it and takes its "decided" away: the deciding line and the counter-line disagree, so a
    # person must look (the two come from different boots, or the paste mixes nodes).
    ruled_out = {c for ms in per_sig.values() for c in ms[0].signature.against}
    for cause_id in ruled_out:
        hit = scores.get(cause_id)
        if hit is not None:
            hit.score /= 2
            hit.deciding = False
    order = {c.id: i for i, c in enumerate(CAUSES)}
    return sorted(scores.values(), key=lambda c: (-round(c.score, 6), order[c.cause.id]))


def ruled_out(matches: Iterable[Match]) -> set[str]:
    """Causes some matched line rules out (``Signature.against``)."""
    return {c for m in matches for c in m.signature.against}


def collect_next(ranked: list[CauseScore]) -> str:
    """What to collect to tell the top two causes apart (empty when fewer than two)."""
    if len(ranked) < 2:
        return ranked[0].cause.collect if ranked else ""
    a, b = ranked[0].cause, ranked[1].cause
    hint = DISTINGUISH.get(frozenset({a.id, b.id}))
    if hint:
        return hint
    return f"{a.title}: {a.collect}; {b.title}: {b.collect}"


def is_decided(ranked: list[CauseScore]) -> bool:
    """The top cause is backed by a deciding line and clearly ahead of the next."""
    if not ranked:
        return False
    if len(ranked) == 1:
        return ranked[0].deciding
    return ranked[0].deciding and ranked[0].score >= 1.5 * ranked[1].score
