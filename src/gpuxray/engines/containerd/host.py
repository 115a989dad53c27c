"""The engine applied to one bundle node (BUNDLE.md ``nodes/<node>/``): which containerd it
runs, and what its config files give.

The version comes from ``cmd/containerd-version.txt``, else the node's
``status.nodeInfo.containerRuntimeVersion``, else :data:`versions.DEFAULT_VERSION` — and the
result says which (``ResolvedVersion.source``/``assumed``), so an assumption is never hidden.
"""

from __future__ import annotations

from gpuxray.engines.containerd.merge import ROOT_CONFIG, analyse
from gpuxray.engines.containerd.model import Analysis
from gpuxray.engines.containerd.reader import FactsReader
from gpuxray.engines.containerd.versions import ResolvedVersion, resolve_version
from gpuxray.model.snapshot import HostFacts

VERSION_CMD = "containerd-version.txt"

_CACHE: dict[tuple[int, str | None], tuple[HostFacts, Analysis]] = {}
_CACHE_MAX = 512


def host_version(host: HostFacts, version: str | None = None) -> ResolvedVersion:
    """``version`` may be a node's ``containerRuntimeVersion`` (``containerd://1.7.27``)."""
    cmd = host.cmds.get(VERSION_CMD)
    return resolve_version((cmd, host.source("cmd", VERSION_CMD)),
                           (version, "cluster/nodes.json status.nodeInfo.containerRuntimeVersion"
                            if version and version.startswith("containerd://")
                            else "given version"))


def has_config(host: HostFacts) -> bool:
    key = ROOT_CONFIG.lstrip("/")
    return key in host.files or key in host.unreadable


def analyse_host(host: HostFacts, version: str | None = None) -> Analysis:
    """Simulate the node's containerd config load (cached per HostFacts object)."""
    ck = (id(host), version)
    hit = _CACHE.get(ck)
    if hit is not None and hit[0] is host:
        return hit[1]
    rv = host_version(host, version)
    reader = FactsReader(host.files, host.unreadable, f"nodes/{host.node}/files/")
    a = analyse(reader, rv)
    if len(_CACHE) >= _CACHE_MAX:
        _CACHE.clear()
    _CACHE[ck] = (host, a)
    return a


def node_runtime_handlers(host: HostFacts, version: str | None = None) -> set[str] | None:
    """The runtime handlers the node's config files give; None when config.toml is not in the
    bundle (not collected — never read as "no handlers")."""
    if not has_config(host):
        return None
    return set(analyse_host(host, version).runtimes)
