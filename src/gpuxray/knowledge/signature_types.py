"""The types of the signature catalog: a cause, a signature, and the real line that proves it.

Why a module of their own: the catalog is data split by the component that prints the lines
(``signatures.py`` holds the core; ``signatures_*.py`` modules add families read from one
component's source each), and every one of those modules needs the same types without importing
the catalog they are joined into.
"""

from __future__ import annotations

from dataclasses import dataclass

# Input kinds a signature appears in.
EVENT, STATUS, LOG, DMESG, JOURNAL, VALIDATOR, DESCRIBE, SMI, CONFIG = (
    "event", "status", "log", "dmesg", "journal", "validator", "describe", "nvidia-smi",
    "config")


@dataclass(frozen=True, slots=True)
class Cause:
    id: str
    code: str
    title: str
    collect: str  # what confirms this cause


@dataclass(frozen=True, slots=True)
class Example:
    """A line a real component prints, and where: ``owner/repo@tag:path`` of the code that
    prints it, or the public ticket where it was pasted. Wording that changed across releases
    gets one example per variant."""

    line: str
    source: str


@dataclass(frozen=True, slots=True)
class Signature:
    id: str
    needle: str  # lower-case literals ("a|b"): every matching line contains one of them
    pattern: str
    votes: tuple[tuple[str, float], ...]  # (cause id, weight)
    kinds: tuple[str, ...]
    deciding: bool = False  # only one cause prints this line
    examples: tuple[Example, ...] = ()
    # causes this line rules out (e.g. "module verification failed … tainting kernel": the module
    # loaded, so Secure Boot did not block it)
    against: tuple[str, ...] = ()

    @property
    def primary(self) -> str:
        if not self.votes:
            return self.against[0]
        return max(self.votes, key=lambda v: v[1])[0]


def family_signature(id: str, needle: str, pattern: str, votes: dict[str, float],
                     kinds: tuple[str, ...], deciding: bool = False,
                     *examples: tuple[str, str]) -> Signature:
    """A signature written as the family modules spell their entries: votes as a mapping,
    examples as (line, source) pairs after ``deciding``. ``deciding`` is positional there, so
    an example written right after ``kinds`` would land in it and make a deciding signature
    with no example: refused."""
    if type(deciding) is not bool:
        raise TypeError(f"signature {id}: deciding must be True or False, got {deciding!r}")
    return Signature(id, needle, pattern, tuple(votes.items()), kinds, deciding,
                     tuple(Example(line, src) for line, src in examples))
