"""``mokutil --sb-state`` output: is UEFI Secure Boot on?

Why: with Secure Boot enforced an unsigned NVIDIA module is refused, so the driver never
loads (seed §3: signed precompiled drivers or a MOK are needed). A machine without EFI
variables cannot enforce it. mokutil prints some of these on stderr, so callers pass the
``.err`` text too.
"""

from __future__ import annotations

import enum
import re

__all__ = ["SecureBoot", "parse_sb_state"]


class SecureBoot(enum.StrEnum):
    ENABLED = "enabled"
    DISABLED = "disabled"
    NOT_EFI = "not-efi"
    UNKNOWN = "unknown"


# Pattern -> state; the first that matches wins (a disabled shim validation beats "enabled").
_STATES: tuple[tuple[re.Pattern[str], SecureBoot], ...] = (
    (re.compile(r"EFI variables are not supported", re.I), SecureBoot.NOT_EFI),
    (re.compile(r"SecureBoot validation is disabled in shim", re.I), SecureBoot.DISABLED),
    (re.compile(r"^\s*SecureBoot\s+disabled", re.I | re.M), SecureBoot.DISABLED),
    (re.compile(r"^\s*SecureBoot\s+enabled", re.I | re.M), SecureBoot.ENABLED),
)


def parse_sb_state(text: str) -> SecureBoot:
    for pat, state in _STATES:
        if pat.search(text):
            return state
    return SecureBoot.UNKNOWN
