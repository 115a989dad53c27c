"""The containerd config engine: import resolution, merge per version line, migration,
defaults, and culprit attribution (seed §5, facts.md §1-§2). No containerd needed at run time.

Public entry points: :func:`analyse` (any reader), :func:`analyse_host` (a bundle node) and
:func:`node_runtime_handlers`.
"""

from __future__ import annotations

from gpuxray.engines.containerd.host import analyse_host, host_version, node_runtime_handlers
from gpuxray.engines.containerd.merge import ROOT_CONFIG, analyse
from gpuxray.engines.containerd.model import (
    Analysis,
    ConfigFile,
    LostKey,
    Problem,
    ProblemKind,
    Section,
)
from gpuxray.engines.containerd.reader import (
    ConfigReader,
    DirReader,
    FactsReader,
    OverlayReader,
)
from gpuxray.engines.containerd.versions import Line, ResolvedVersion, resolve_version

__all__ = [
    "ROOT_CONFIG", "Analysis", "ConfigFile", "ConfigReader", "DirReader", "FactsReader", "Line",
    "LostKey", "OverlayReader", "Problem", "ProblemKind", "ResolvedVersion", "Section",
    "analyse", "analyse_host", "host_version", "node_runtime_handlers", "resolve_version",
]
