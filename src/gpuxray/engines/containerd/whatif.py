"""What-if for a containerd config change: add a drop-in (and/or remove one) and predict, per
node with its own containerd version and files, what the daemon would then run — handlers lost
or gained, settings reset, refusals — and group the fleet by outcome (seed §5: "apply one node at
a time"; a change that is harmless on 2.x can wipe the ``nvidia`` runtime on 1.7).
"""

from __future__ import annotations

import posixpath
from dataclasses import dataclass, field
from fnmatch import fnmatchcase
from typing import Any

from gpuxray.engines.containerd import defaults as D
from gpuxray.engines.containerd.host import (
    distribution,
    dropin_dirs,
    has_config,
    host_version,
    root_config,
)
from gpuxray.engines.containerd.merge import ROOT_CONFIG, analyse, dig, import_patterns
from gpuxray.engines.containerd.model import Analysis, Problem
from gpuxray.engines.containerd.reader import ConfigReader, FactsReader, OverlayReader
from gpuxray.engines.containerd.versions import Line, ResolvedVersion
from gpuxray.model.snapshot import HostFacts

NVIDIA = "nvidia"


class Outcome:
    """Per-node outcomes, worst first (the order of the fleet table)."""

    UNKNOWN = "unknown"                 # the node's config is not in the bundle
    REFUSED = "refused"                 # containerd (or its CRI plugin) would not start
    BREAKS = "loses nvidia"             # the nvidia handler disappears
    LOSES = "loses handlers"
    RESETS = "resets settings"
    GAINS = "gains handlers"
    SAME = "no change"
    ORDER = (UNKNOWN, REFUSED, BREAKS, LOSES, RESETS, GAINS, SAME)


def place_added(before: Analysis, name: str) -> tuple[str, bool]:
    """Where a drop-in named ``name`` lands: in the first import glob whose pattern its name
    matches (then its position is its sort order), else appended to the root's imports."""
    for pat in import_patterns(before):
        cand = posixpath.join(posixpath.dirname(pat), name)
        if fnmatchcase(cand, pat):
            return cand, False
    return posixpath.join(posixpath.dirname(before.root), name), True


def removed_paths(before: Analysis, names: tuple[str, ...]) -> list[str]:
    """The loaded drop-ins ``names`` designate: an absolute path as given, a bare name every
    loaded file (but the root) of that name."""
    out: list[str] = []
    for n in names:
        if posixpath.isabs(n):
            out.append(posixpath.normpath(n))
        else:
            out += [f.path for f in before.files
                    if f.imported_by is not None and posixpath.basename(f.path) == n]
    return list(dict.fromkeys(out))


def settings(a: Analysis) -> dict[str, Any]:
    """The settings a change can reset that GPU pods depend on (facts.md §0's list)."""
    line = a.version.line
    rt = a.effective.get(D.runtime_plugin(line)) or {}
    img = a.effective.get(D.images_plugin(line)) or {}
    out: dict[str, Any] = {
        "default_runtime_name": a.default_runtime,
        "enable_cdi": a.cdi.get("enable_cdi"),
        "sandbox_image": img.get("sandbox_image") if line is Line.V1
        else dig(img, "pinned_images", "sandbox"),
        "registry.config_path": dig(img, "registry", "config_path") or "",
    }
    rts = dig(rt, "containerd", "runtimes")
    for name, r in sorted(rts.items()) if isinstance(rts, dict) else ():
        out[f"runtimes.{name}.SystemdCgroup"] = bool(dig(r, "options", "SystemdCgroup"))
        out[f"runtimes.{name}.BinaryName"] = dig(r, "options", "BinaryName") or ""
    return out


def _fatal(a: Analysis) -> Problem | None:
    return next((p for p in a.problems if p.fatal), None)


@dataclass
class NodeChange:
    node: str
    version: ResolvedVersion | None
    before: Analysis | None = None
    after: Analysis | None = None
    placed_as: str | None = None
    appended: bool = False
    removed: list[str] = field(default_factory=list)
    reason: str = ""                      # why the outcome is unknown

    @property
    def refused(self) -> Problem | None:
        """A fatal problem the change introduces (none when the node was already refused)."""
        if self.before is None or self.after is None or _fatal(self.before) is not None:
            return None
        return _fatal(self.after)

    @property
    def handlers_lost(self) -> list[str]:
        if self.before is None or self.after is None:
            return []
        if self.refused is not None:   # containerd, or its CRI plugin, does not start
            return list(self.before.runtimes)
        return [r for r in self.before.runtimes if r not in self.after.runtimes]

    @property
    def handlers_gained(self) -> list[str]:
        if self.before is None or self.after is None or self.refused is not None:
            return []
        return [r for r in self.after.runtimes if r not in self.before.runtimes]

    @property
    def settings_changed(self) -> list[tuple[str, Any, Any]]:
        if self.before is None or self.after is None or self.refused is not None:
            return []
        b, a = settings(self.before), settings(self.after)
        lost = set(self.handlers_lost)
        return [(k, b[k], a.get(k)) for k in b
                if k in a and b[k] != a[k] and not any(k.startswith(f"runtimes.{r}.")
                                                       for r in lost)]

    @property
    def outcome(self) -> str:
        if self.before is None or self.after is None:
            return Outcome.UNKNOWN
        if self.refused is not None:
            return Outcome.REFUSED
        if NVIDIA in self.handlers_lost:
            return Outcome.BREAKS
        if self.handlers_lost:
            return Outcome.LOSES
        if self.settings_changed:
            return Outcome.RESETS
        if self.handlers_gained:
            return Outcome.GAINS
        return Outcome.SAME

    @property
    def loses_nvidia(self) -> bool:
        return NVIDIA in self.handlers_lost


def change_tree(reader: ConfigReader, rv: ResolvedVersion, *, add: tuple[str, str, str] | None,
                remove: tuple[str, ...] = (), root: str = ROOT_CONFIG,
                node: str = "", dropins: tuple[str, ...] | None = None) -> NodeChange:
    """``add`` = (file name, text, how evidence cites it); ``dropins`` as ``analyse``'s
    ``dropin_dirs`` (a k3s/RKE2 root's own glob)."""
    before = analyse(reader, rv, root, dropin_dirs=dropins)
    ch = NodeChange(node, rv, before=before)
    ch.removed = removed_paths(before, remove)
    extra: dict[str, tuple[str, str]] = {}
    extra_imports: tuple[str, ...] = ()
    if add is not None:
        name, text, src = add
        ch.placed_as, ch.appended = place_added(before, name)
        extra[ch.placed_as] = (text, src)
        extra_imports = (ch.placed_as,) if ch.appended else ()
    overlay = OverlayReader(reader, extra, removed=ch.removed)
    ch.after = analyse(overlay, rv, root, extra_imports=extra_imports, dropin_dirs=dropins)
    return ch


def change_host(host: HostFacts, hint: str | None, *, add: tuple[str, str, str] | None,
                remove: tuple[str, ...] = ()) -> NodeChange:
    if not has_config(host):
        return NodeChange(host.node, None, reason="config.toml not in the bundle")
    rv = host_version(host, hint)
    reader = FactsReader(host.files, host.unreadable, f"nodes/{host.node}/files/")
    d = distribution(host)
    return change_tree(reader, rv, add=add, remove=remove, node=host.node,
                       root=root_config(host), dropins=dropin_dirs(d))


@dataclass(frozen=True, slots=True)
class Group:
    outcome: str
    nodes: tuple[str, ...]
    versions: tuple[str, ...]
    handlers_lost: tuple[str, ...]
    handlers_gained: tuple[str, ...]
    settings: tuple[str, ...]
    detail: str


def _detail(ch: NodeChange) -> str:
    p = ch.refused
    if p is not None:
        return p.daemon or p.detail
    return ch.reason


def group(changes: list[NodeChange]) -> list[Group]:
    """Nodes with the same outcome, handlers and settings changed, worst outcome first."""
    keyed: dict[tuple[Any, ...], list[NodeChange]] = {}
    for ch in changes:
        key = (ch.outcome, tuple(ch.handlers_lost), tuple(ch.handlers_gained),
               tuple(k for k, _, _ in ch.settings_changed),
               ch.refused.kind.value if ch.refused else "")
        keyed.setdefault(key, []).append(ch)
    out = []
    for (outcome, lost, gained, sets, _), chs in keyed.items():
        versions = sorted({c.version.text for c in chs if c.version is not None})
        out.append(Group(outcome, tuple(c.node for c in chs), tuple(versions), lost, gained,
                         sets, _detail(chs[0])))
    return sorted(out, key=lambda g: (Outcome.ORDER.index(g.outcome), g.nodes))


def headline(changes: list[NodeChange]) -> str:
    """``would break 12 of 40 nodes: the 1.7.27 ones`` (break = loses the nvidia handler)."""
    total = len(changes)
    broken = [c for c in changes if c.loses_nvidia]
    if not broken:
        unknown = sum(c.outcome == Outcome.UNKNOWN for c in changes)
        tail = f" ({unknown} not judged: config not in the bundle)" if unknown else ""
        return f"breaks none of {total} nodes{tail}"
    versions = sorted({c.version.text for c in broken if c.version is not None})
    same_version = [c for c in changes if c.version is not None and c.version.text in versions]
    if len(same_version) == len(broken):
        who = f"the {', '.join(versions)} ones"
    else:
        names = [c.node for c in broken]
        who = ", ".join(names[:5]) + (f" (+{len(names) - 5} more)" if len(names) > 5 else "")
    return f"would break {len(broken)} of {total} nodes: {who}"
