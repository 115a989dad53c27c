"""The severity scale of CODES.md: the catalog assigns each code one, findings carry it.

It is the catalog's vocabulary, so it lives with the catalog on the knowledge floor; the model's
findings and the knowledge tables (codes, Xids) both stand on it.
"""

from __future__ import annotations

import enum


class Severity(enum.IntEnum):
    """Ordered so ``--fail-on`` can compare: info < warning < error."""

    INFO = 1
    WARNING = 2
    ERROR = 3

    @property
    def label(self) -> str:
        return self.name.lower()

    @classmethod
    def parse(cls, text: str) -> Severity:
        return cls[text.strip().upper()]
