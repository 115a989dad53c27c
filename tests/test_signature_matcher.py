"""The matcher's needle prefilter: the trie-shaped alternation finds exactly what the flat
``a|b|c`` alternation of the same literals finds, and signatures compile on first use."""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from gpuxray.engines.signatures import Matcher, default_matcher, literal_alternation
from gpuxray.knowledge.signatures import SIGNATURES

ALPHABET = "abn-/:. ()|*+?[]\\"
words = st.lists(st.text(ALPHABET, min_size=1, max_size=6), min_size=1, max_size=12)


@settings(max_examples=300, deadline=None)
@given(ws=words, text=st.text(ALPHABET, max_size=60))
def test_trie_alternation_matches_the_flat_alternation(ws: list[str], text: str) -> None:
    flat = re.compile("|".join(re.escape(w) for w in sorted(set(ws), key=len, reverse=True)))
    trie = re.compile(literal_alternation(ws))
    a, b = flat.search(text), trie.search(text)
    assert (a is None) == (b is None)
    if a is not None and b is not None:
        assert a.start() == b.start()
    # every word is found inside any text that holds it
    for w in ws:
        assert trie.search(f"x{w}y") is not None


def test_catalog_needles_through_the_trie() -> None:
    """Each needle of the catalog is found by the prefilter in a line made of it alone."""
    m = default_matcher()
    for needle in m._by_needle:
        assert m._needles.search(f"[info] {needle} !") is not None, needle


def test_signatures_compile_on_first_use() -> None:
    m = Matcher(SIGNATURES)
    assert len(m._regex) == 0
    line = "Error: failed to create containerd task: no runtime for \"nvidia\" is configured"
    found = m.match_line(line.lower())
    assert found and 0 < len(m._regex) < len(SIGNATURES) // 4


@settings(max_examples=400, deadline=None)
@given(text=st.text(st.sampled_from(["a", " ", "\n", "\r", "\x0b", "\x85", "\u2028",
                                     "é"]), max_size=40),
       limit=st.integers(min_value=1, max_value=6))
def test_log_body_is_the_tail_of_its_lines(text: str, limit: int) -> None:
    """The fast path of a log's body is exactly the last lines joined by newlines."""
    import gpuxray.engines.podtext as pt

    saved = pt.MAX_LOG_LINES
    pt.MAX_LOG_LINES = limit
    try:
        assert pt.log_body(text) == "\n".join(text.splitlines()[-limit:])
    finally:
        pt.MAX_LOG_LINES = saved
