"""containerd version lines and the behaviours that change between releases (facts.md §1).

The merge rules are chosen by *line*, not by the config's ``version`` key: what a file means
depends on the daemon that reads it. Thresholds are data so a new release is one table edit.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

from gpuxray.sources.parsers.versions import parse_containerd_version, version_tuple

Ver = tuple[int, int, int]

#: Assumed when neither ``containerd --version`` nor the node's runtime version is known: the
#: release the seed measured (§5). The assumption is always reported with the result.
DEFAULT_VERSION = "1.7.27"


class Line(enum.StrEnum):
    """Merge-engine generations (facts.md §1.1, §1.2, §1.3)."""

    V1 = "1.x"        # mergeConfig: plugin sections replaced per key
    V2 = "2.0-2.2"    # deep merge, v2->v3 CRI migration once on the merged config
    V23 = "2.3"       # deep merge after per-file migration to version 4 (2.3 and later)


def line_of(v: Ver) -> Line:
    if v[0] < 2:
        return Line.V1
    if v[:2] < (2, 3):
        return Line.V2
    return Line.V23


#: The highest config ``version`` each line's daemon accepts. 1.6.32+/1.7.17+ reject
#: version > 2 (``ValidateV2``, facts.md §1.1); older 1.x releases accept any number and simply
#: ignore plugin names they do not know (verified: Debian's 1.6.20 loads a ``version = 3`` file).
_MAX_VERSION_FROM: tuple[tuple[Ver, Ver, int], ...] = (
    ((1, 6, 32), (1, 7, 0), 2),
    ((1, 7, 17), (2, 0, 0), 2),
    ((2, 0, 0), (2, 3, 0), 3),
    ((2, 3, 0), (99, 0, 0), 4),
)


def max_config_version(v: Ver) -> int | None:
    for lo, hi, mx in _MAX_VERSION_FROM:
        if lo <= v < hi:
            return mx
    return None


#: 2.3.0–2.3.4 refuse a drop-in whose version is higher than the first version a loaded file
#: stated (``containerd/containerd@v2.3.4:cmd/containerd/server/config/config.go``,
#: ``LoadConfigWithPlugins``); 2.3.5 dropped the check (commit 1125b053f; VERIFIED: 2.3.5,
#: 2.3.6, 2.3.7 and 2.4.2 have no such check, and the 2.3.7/2.4.2 binaries load such trees).
REFUSE_HIGHER_DROPIN = ((2, 3, 0), (2, 3, 4))

#: 2.0.0–2.0.1 migrate a v2 ``grpc.v1.cri`` map over the v3 runtime section wholesale;
#: 2.0.2 (commit 468079c5c) takes only the keys the v3 section lacks (facts.md §0).
MIGRATION_FILLS_FROM: Ver = (2, 0, 2)


def migration_wholesale(v: Ver) -> bool:
    return (2, 0, 0) <= v < MIGRATION_FILLS_FROM


def refuses_higher_dropin(v: Ver) -> bool:
    return REFUSE_HIGHER_DROPIN[0] <= v <= REFUSE_HIGHER_DROPIN[1]


#: Relative *glob* imports: 1.6.20 (Debian 12's package) globs the pattern as written, i.e.
#: relative to the daemon's working directory (``/`` under systemd) — VERIFIED against the
#: binary; literal relative paths are joined to the importing file's directory. The code of
#: 1.6.39/1.7.34 and 2.x (facts.md §1.1) cleans and joins *before* globbing. The first release
#: with the join is not pinned here; we assume it after 1.6.20 on the 1.6 line.
GLOB_RELATIVE_TO_CWD_UNTIL: Ver = (1, 6, 20)


def glob_relative_to_cwd(v: Ver) -> bool:
    return v <= GLOB_RELATIVE_TO_CWD_UNTIL


@dataclass(frozen=True, slots=True)
class ResolvedVersion:
    """The containerd version used for the simulation and where it came from."""

    text: str
    ver: Ver
    source: str          # a bundle path, ``--containerd-version`` or ``assumed``
    assumed: bool

    @property
    def line(self) -> Line:
        return line_of(self.ver)


def parse_version_text(text: str) -> Ver | None:
    """``1.7.27``, ``v2.0.0``, ``1.6.20~ds1``, ``containerd://1.7.27`` or a full
    ``containerd --version`` line."""
    cv = parse_containerd_version(text)
    if cv is not None:
        return cv.tuple
    return version_tuple(text.strip().removeprefix("containerd://"))


def resolve_version(*candidates: tuple[str | None, str]) -> ResolvedVersion:
    """First parseable ``(text, source)`` wins; else :data:`DEFAULT_VERSION`, marked assumed."""
    for text, source in candidates:
        if not text:
            continue
        v = parse_version_text(text)
        if v is not None:
            shown = (parse_containerd_version(text).version  # type: ignore[union-attr]
                     if parse_containerd_version(text) else text.strip().removeprefix(
                         "containerd://"))
            return ResolvedVersion(shown, v, source, False)
    v = version_tuple(DEFAULT_VERSION)
    assert v is not None
    return ResolvedVersion(DEFAULT_VERSION, v, "assumed", True)
