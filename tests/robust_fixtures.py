"""Shared helpers for the robustness suites: hypothesis settings (bounded in CI, longer with
``GPUXRAY_FUZZ_EXAMPLES``), text strategies that mutate real samples, and a check that an
error is the documented one-line kind naming its input."""

from __future__ import annotations

import os
from datetime import timedelta
from pathlib import Path

from hypothesis import HealthCheck, settings
from hypothesis import strategies as st

DATA = Path(__file__).parent / "data"

#: examples per property; CI keeps it small, a nightly run sets GPUXRAY_FUZZ_EXAMPLES=5000
EXAMPLES = int(os.environ.get("GPUXRAY_FUZZ_EXAMPLES", "40"))
#: a parser that takes longer than this on one small example is treated as hanging
DEADLINE = timedelta(seconds=float(os.environ.get("GPUXRAY_FUZZ_DEADLINE", "10")))

FUZZ = settings(
    max_examples=EXAMPLES,
    derandomize=os.environ.get("GPUXRAY_FUZZ_RANDOM") is None,
    deadline=DEADLINE,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                           HealthCheck.function_scoped_fixture],
    database=None,
)

# Characters that matter to the formats: separators, quotes, brackets, escapes, NUL, non-ASCII.
_ALPHABET = st.characters(codec="utf-8", exclude_categories=("Cs",))
_SPECIAL = st.sampled_from([*"\n\t :=[]{}\"'#,.\\/<>&;-_0123456789\x00\r",
                            "\u00e9", "\u30b0", "\U0001f600", "\ufeff", "\u2028"])
random_text = st.text(st.one_of(_ALPHABET, _SPECIAL), max_size=400)


def sample(path: str) -> str:
    return (DATA / path).read_text(encoding="utf-8")


@st.composite
def mutated(draw: st.DrawFn, base: str) -> str:
    """``base`` cut, spliced with random text, and with lines dropped or repeated — the shapes
    a pasted or truncated real file takes."""
    lines = base.splitlines(keepends=True)
    ops = draw(st.lists(st.sampled_from(("cut", "splice", "drop", "dup", "swap")), max_size=4))
    for op in ops:
        if not lines:
            break
        i = draw(st.integers(0, len(lines) - 1))
        if op == "cut":
            lines = [*lines[:i], lines[i][:draw(st.integers(0, len(lines[i])))]]
        elif op == "splice":
            lines.insert(i, draw(random_text))
        elif op == "drop":
            del lines[i]
        elif op == "dup":
            lines.insert(i, lines[i] * draw(st.integers(1, 5)))
        else:
            j = draw(st.integers(0, len(lines) - 1))
            lines[i], lines[j] = lines[j], lines[i]
    return "".join(lines)


def text_like(*paths: str) -> st.SearchStrategy[str]:
    """Random text, or a mutation of one of the real samples under ``tests/data``."""
    return st.one_of(random_text, *(mutated(sample(p)) for p in paths))


def assert_one_line(exc: BaseException, *names: str) -> None:
    """A documented error is one line and names its input (one of ``names``)."""
    msg = str(exc)
    assert msg and "\n" not in msg, msg
    if names:
        assert any(n in msg for n in names), (msg, names)
