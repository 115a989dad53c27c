"""The result of simulating containerd's config load: files in merge order, the effective
config, runtime handlers, and — per plugin section — who wrote it and which settings of earlier
files the effective config lost (seed §5: the drop-in that wiped the CRI section)."""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from typing import Any

from gpuxray.engines.containerd.versions import ResolvedVersion


class ProblemKind(enum.StrEnum):
    PARSE = "parse"                      # malformed TOML / not a table / bad key types
    UNREADABLE = "unreadable"            # present but could not be read
    MISSING_IMPORT = "missing-import"    # a literal import that does not exist
    VERSION_REFUSED = "version-refused"  # config version above what the daemon accepts
    DROPIN_HIGHER = "dropin-higher"      # 2.3.0-2.3.4: drop-in version > root version
    PLUGIN_KEY = "plugin-key"            # v2 plugin key / plugin URI not ``io.containerd.*``
    TOO_MANY_FILES = "too-many-files"    # an import glob beyond the analysis cap
    TOO_DEEP = "too-deep"                # import chain deeper than the analysis cap
    CRI_DEFAULT_RUNTIME = "cri-default-runtime"  # default_runtime_name not among runtimes


@dataclass(frozen=True, slots=True)
class Problem:
    kind: ProblemKind
    path: str          # host path of the file at fault
    source: str        # how evidence cites it
    detail: str
    fatal: bool        # containerd (or its CRI plugin) would not start with this config
    daemon: str | None = None  # the daemon's own error line, where the release prints one


@dataclass(frozen=True, slots=True)
class ConfigFile:
    path: str
    source: str
    data: dict[str, Any]
    version: int              # as written (0 = absent)
    imported_by: str | None
    depth: int


@dataclass(frozen=True, slots=True)
class LostKey:
    """A setting an earlier file made that the effective config no longer has."""

    section: str       # plugin URI (``io.containerd.grpc.v1.cri``) or ``proxy_plugins.<n>``
    key: str           # dotted path inside the section
    value: Any
    file: str          # the file that set it
    culprit: str       # the file whose content or version made it disappear
    reason: str        # replaced | ignored-version | migration-overwrote | migration-kept
    #: migration-kept: the files whose v3 key (``blocking_key``) kept this v2 setting out
    blocked_by: tuple[str, ...] = ()
    blocking_key: str = ""


@dataclass(frozen=True, slots=True)
class Section:
    name: str
    writers: tuple[str, ...]
    lost: tuple[LostKey, ...] = ()

    @property
    def culprit(self) -> str | None:
        return self.writers[-1] if self.writers else None


@dataclass
class Analysis:
    version: ResolvedVersion
    root: str
    root_missing: bool = False
    files: list[ConfigFile] = field(default_factory=list)
    config_version: int = 0
    merged: dict[str, Any] = field(default_factory=dict)         # before plugin defaults
    effective: dict[str, Any] = field(default_factory=dict)      # plugins with defaults
    runtimes: list[str] = field(default_factory=list)
    default_runtime: str | None = None
    cdi: dict[str, Any] = field(default_factory=dict)
    sections: dict[str, Section] = field(default_factory=dict)
    intended_runtimes: list[str] = field(default_factory=list)   # named by any loaded file
    problems: list[Problem] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    unimported: list[str] = field(default_factory=list)  # drop-ins no loaded file imports
    other_sources: dict[str, str] = field(default_factory=dict)  # path -> evidence source

    @property
    def lost(self) -> list[LostKey]:
        return [k for s in self.sections.values() for k in s.lost]

    @property
    def fatal(self) -> list[Problem]:
        return [p for p in self.problems if p.fatal]

    @property
    def complete(self) -> bool:
        """Every reachable file was loaded and merged (no stop before the end)."""
        return not any(p.fatal or p.kind in (ProblemKind.TOO_MANY_FILES, ProblemKind.TOO_DEEP)
                       for p in self.problems if p.kind is not ProblemKind.CRI_DEFAULT_RUNTIME)

    @property
    def lost_runtimes(self) -> list[str]:
        return [r for r in self.intended_runtimes if r not in self.runtimes]

    def source_of(self, path: str) -> str:
        for f in self.files:
            if f.path == path:
                return f.source
        return self.other_sources.get(path, path)
