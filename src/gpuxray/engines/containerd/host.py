"""The engine applied to one bundle node (BUNDLE.md ``nodes/<node>/``): which containerd it
runs, and what its config files give.

The root config is ``/etc/containerd/config.toml``, or on k3s/RKE2 the file they render and
their own containerd reads (:mod:`gpuxray.knowledge.distributions`): chosen by the node's
kubelet version where the cluster is known, else by which of the files the host has.

The version comes from ``cmd/containerd-version.txt``, else the node's
``status.nodeInfo.containerRuntimeVersion``, else :data:`versions.DEFAULT_VERSION` — and the
result says which (``ResolvedVersion.source``/``assumed``), so an assumption is never hidden.
"""

from __future__ import annotations

from collections.abc import Callable

from gpuxray.engines.containerd.merge import DROPIN_DIRS, ROOT_CONFIG, analyse
from gpuxray.engines.containerd.model import Analysis
from gpuxray.engines.containerd.reader import FactsReader
from gpuxray.engines.containerd.versions import ResolvedVersion, resolve_version
from gpuxray.knowledge.distributions import DISTRIBUTIONS, Distribution, by_kubelet
from gpuxray.model.snapshot import HostFacts

VERSION_CMD = "containerd-version.txt"

_CACHE: dict[tuple[int, str | None, str | None], tuple[HostFacts, Analysis]] = {}
_CACHE_MAX = 512


def host_version(host: HostFacts, version: str | None = None) -> ResolvedVersion:
    """``version`` may be a node's ``containerRuntimeVersion`` (``containerd://1.7.27``)."""
    cmd = host.cmds.get(VERSION_CMD)
    return resolve_version((cmd, host.source("cmd", VERSION_CMD)),
                           (version, "cluster/nodes.json status.nodeInfo.containerRuntimeVersion"
                            if version and version.startswith("containerd://")
                            else "given version"))


def _present(host: HostFacts, path: str) -> bool:
    key = path.lstrip("/")
    return key in host.files or key in host.unreadable


def distribution(host: HostFacts, kubelet: str | None = None) -> Distribution | None:
    """k3s/RKE2 when the node's kubelet version names it (``v1.30.14+k3s1``); a kubelet that
    names none means the node's containerd reads /etc/containerd. Without a kubelet version,
    the host's files decide: a rendered k3s/RKE2 config exists only where that distribution
    runs its own containerd."""
    if kubelet:
        return by_kubelet(kubelet)
    return rendered_distribution(lambda path: _present(host, path))


def rendered_distribution(exists: Callable[[str], bool]) -> Distribution | None:
    """The distribution whose rendered containerd config ``exists`` (an absolute host path):
    only k3s/RKE2 running their own containerd write it. Shared by the bundle's host facts and
    ``gpuxray containerd --root`` on a host tree."""
    return next((d for d in DISTRIBUTIONS if exists(d.config)), None)


def dropin_dirs(d: Distribution | None) -> tuple[str, ...] | None:
    """Where drop-ins that nothing imports are looked for under ``d``'s containerd: its own
    template's glob and the stock directories the toolkit writes to (None: the stock root's
    default)."""
    return None if d is None else (d.dropins, *DROPIN_DIRS)


def root_config(host: HostFacts, kubelet: str | None = None) -> str:
    """The config file the node's containerd loads first (absolute host path)."""
    d = distribution(host, kubelet)
    return d.config if d is not None else ROOT_CONFIG


def has_config(host: HostFacts, kubelet: str | None = None) -> bool:
    return _present(host, root_config(host, kubelet))


def analyse_host(host: HostFacts, version: str | None = None,
                 kubelet: str | None = None) -> Analysis:
    """Simulate the node's containerd config load (cached per HostFacts object)."""
    ck = (id(host), version, kubelet)
    hit = _CACHE.get(ck)
    if hit is not None and hit[0] is host:
        return hit[1]
    rv = host_version(host, version)
    reader = FactsReader(host.files, host.unreadable, f"nodes/{host.node}/files/")
    d = distribution(host, kubelet)
    a = (analyse(reader, rv) if d is None else
         analyse(reader, rv, d.config, dropin_dirs=dropin_dirs(d)))
    if len(_CACHE) >= _CACHE_MAX:
        _CACHE.clear()
    _CACHE[ck] = (host, a)
    return a


def node_runtime_handlers(host: HostFacts, version: str | None = None,
                          kubelet: str | None = None) -> set[str] | None:
    """The runtime handlers the node's config files give; None when config.toml is not in the
    bundle (not collected — never read as "no handlers")."""
    if not has_config(host, kubelet):
        return None
    return set(analyse_host(host, version, kubelet).runtimes)
