"""A config's structural problems, shared by the config readers (mig-parted documents,
``engines/mig.py``; the device plugin's config, ``engines/sharing.py``).

Why a module of its own: the device plugin's config is read on every ``check``, the MIG
planner and its profile tables only where a node asks for a MIG layout; the one type both
report with should not make the first import the second.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class ConfigIssue:
    """A structural problem of a config, with the path to it (``mig-configs.x[0].devices``)."""

    path: str
    message: str
