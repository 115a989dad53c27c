"""Device-plugin sharing config: what each node is configured to advertise (seed §6
"time-slicing"; facts.md §5.2, §6.1, §6.2).

The GPU Operator points the device plugin at a ConfigMap (ClusterPolicy
``spec.devicePlugin.config.name``) in its namespace; the config-manager sidecar picks the key named
by the node label ``nvidia.com/device-plugin.config``, falling back to ``config.default``. The
chosen document (YAML or JSON, ``version: v1``) may ask for time-slicing or MPS:

* ``replicas: N`` registers each GPU N times: a node with 8 GPUs and ``replicas: 10`` advertises
  80 (GFD keeps ``<resource>.count`` physical and writes ``.replicas`` per GPU, facts.md §6.2);
* ``renameByDefault: true`` advertises ``<name>.shared`` (``nvidia.com/gpu.shared``);
* ``failRequestsGreaterThanOne`` defaults to false for time-slicing and to true for MPS;
* strategy: MPS with any replicas > 1 wins, else time-slicing with replicas > 1, else none;
* ``rename`` and custom ``devices`` are ignored by the plugin (with a warning).

The parser never raises on content: structural problems (unknown keys, keys in the wrong place
such as ``renameByDefault`` under ``flags``, a wrong version, bad replicas) come back as
:class:`ConfigIssue` data with a path, for the checks that judge config validity.
"""

from __future__ import annotations

import functools
import json
from dataclasses import dataclass
from typing import Any

from gpuxray.engines.issues import ConfigIssue
from gpuxray.knowledge.plugin_config import MIN_SHARING_REPLICAS, SCHEMA, Group
from gpuxray.model.k8s import ConfigMap, Node
from gpuxray.model.snapshot import Input, Snapshot

LABEL_PLUGIN_CONFIG = "nvidia.com/device-plugin.config"


def _flags_group() -> Group:
    g = SCHEMA.fields["flags"]
    assert isinstance(g, Group)
    return g


_TOP_KEYS = frozenset({"version", "flags", "resources", "sharing", "imex"})
_SHARING_KEYS = frozenset({"timeSlicing", "mps"})
_REPLICATED_KEYS = frozenset({"renameByDefault", "failRequestsGreaterThanOne", "resources"})
_RESOURCE_KEYS = frozenset({"name", "rename", "devices", "replicas"})
# Flags of k8s-device-plugin's config, from the schema table (api/config/v1/flags.go; ``imex``
# is a top-level key, not a flag); others are ignored by the plugin.
_FLAG_KEYS = frozenset(_flags_group().fields)
# Keys users put under ``flags`` that belong to ``sharing.timeSlicing`` (or ``.mps``).
_MISPLACED = _REPLICATED_KEYS | {"timeSlicing", "mps", "replicas", "sharing"}
MIG_STRATEGIES = frozenset({"none", "single", "mixed"})


@dataclass(frozen=True, slots=True)
class SharedResource:
    name: str
    replicas: int
    rename_by_default: bool

    @property
    def advertised(self) -> str:
        """The resource name the plugin registers (``rename`` is ignored, facts.md §6.1)."""
        return f"{self.name}.shared" if self.rename_by_default else self.name


@dataclass(frozen=True, slots=True)
class PluginConfig:
    strategy: str  # none | time-slicing | mps
    resources: tuple[SharedResource, ...]
    fail_requests_gt_one: bool
    fail_requests_explicit: bool
    mig_strategy: str | None
    issues: tuple[ConfigIssue, ...] = ()

    def replicas_for(self, resource: str) -> int:
        """Configured replicas of an advertised (or base) resource name; 1 when not shared."""
        for r in self.resources:
            if resource in (r.advertised, r.name):
                return r.replicas if self.strategy != "none" else 1
        return 1


def _load(text: str) -> tuple[Any, str | None]:
    try:
        return json.loads(text), None
    except (ValueError, RecursionError):
        pass
    import yaml  # on the first config only: its import compiles patterns (~25 ms)

    try:
        return yaml.safe_load(text), None
    except yaml.YAMLError as exc:
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else "YAML error"
        return None, f"unparsable: {first}"
    except RecursionError:  # pathologically nested flow collections
        return None, "unparsable: nested too deeply"


def _replicated(path: str, raw: Any, issues: list[ConfigIssue]
                ) -> tuple[bool, bool | None, list[tuple[str, int]]]:
    if raw is None:
        return False, None, []
    if not isinstance(raw, dict):
        issues.append(ConfigIssue(path, "expected a mapping"))
        return False, None, []
    for k in raw:
        if k not in _REPLICATED_KEYS:
            issues.append(ConfigIssue(f"{path}.{k}", "unknown key (ignored by the plugin)"))
    rbd = raw.get("renameByDefault", False)
    if not isinstance(rbd, bool):
        issues.append(ConfigIssue(f"{path}.renameByDefault", "must be true or false"))
        rbd = False
    frg = raw.get("failRequestsGreaterThanOne")
    if frg is not None and not isinstance(frg, bool):
        issues.append(ConfigIssue(f"{path}.failRequestsGreaterThanOne", "must be true or false"))
        frg = None
    out: list[tuple[str, int]] = []
    resources = raw.get("resources") or []
    if not isinstance(resources, list):
        issues.append(ConfigIssue(f"{path}.resources", "must be a list"))
        resources = []
    for i, r in enumerate(resources):
        rp = f"{path}.resources[{i}]"
        if not isinstance(r, dict):
            issues.append(ConfigIssue(rp, "expected a mapping"))
            continue
        for k in r:
            if k not in _RESOURCE_KEYS:
                issues.append(ConfigIssue(f"{rp}.{k}", "unknown key (ignored by the plugin)"))
        name = r.get("name")
        if not isinstance(name, str) or not name:
            issues.append(ConfigIssue(f"{rp}.name", "required"))
            continue
        if name != "nvidia.com/gpu" and not name.startswith("nvidia.com/mig-"):
            issues.append(ConfigIssue(f"{rp}.name", "only nvidia.com/gpu and nvidia.com/mig-* "
                                                    "can be shared"))
        reps = r.get("replicas")
        if not isinstance(reps, int) or isinstance(reps, bool) or reps < MIN_SHARING_REPLICAS:
            # ReplicatedResource.UnmarshalJSON: "number of replicas must be >= 2", and the
            # whole document fails to load
            issues.append(ConfigIssue(f"{rp}.replicas", f"must be a whole number ≥ "
                                                        f"{MIN_SHARING_REPLICAS}, not {reps!r}"))
            continue
        for ignored in ("rename", "devices"):
            if ignored in r and not (ignored == "devices" and r[ignored] == "all"):
                issues.append(ConfigIssue(f"{rp}.{ignored}", "ignored by the plugin"))
        out.append((name, reps))
    return rbd, frg, out


def parse_plugin_config(text: str) -> PluginConfig:
    """One device-plugin config document → what it makes the plugin advertise."""
    issues: list[ConfigIssue] = []
    doc, err = _load(text)
    if err is not None or not isinstance(doc, dict):
        issues.append(ConfigIssue("", err or "expected a mapping at the top"))
        return PluginConfig("none", (), False, False, None, tuple(issues))
    for k in doc:
        if k not in _TOP_KEYS:
            issues.append(ConfigIssue(str(k), "unknown key (ignored by the plugin)"))
    if doc.get("version") != "v1":
        issues.append(ConfigIssue("version", f"must be \"v1\", not {doc.get('version')!r}"))
    flags = doc.get("flags") or {}
    mig_strategy: str | None = None
    if not isinstance(flags, dict):
        issues.append(ConfigIssue("flags", "expected a mapping"))
        flags = {}
    for k in flags:
        if k in _MISPLACED:
            issues.append(ConfigIssue(f"flags.{k}", "belongs under sharing.timeSlicing (or "
                                                    "sharing.mps), ignored here"))
        elif k not in _FLAG_KEYS:
            issues.append(ConfigIssue(f"flags.{k}", "unknown flag (ignored by the plugin)"))
    if "migStrategy" in flags:
        mig_strategy = str(flags["migStrategy"])
        if mig_strategy not in MIG_STRATEGIES:
            issues.append(ConfigIssue("flags.migStrategy", f"must be none, single or mixed, "
                                                           f"not {mig_strategy!r}"))
    sharing = doc.get("sharing") or {}
    if not isinstance(sharing, dict):
        issues.append(ConfigIssue("sharing", "expected a mapping"))
        sharing = {}
    for k in sharing:
        if k not in _SHARING_KEYS:
            issues.append(ConfigIssue(f"sharing.{k}", "unknown key (ignored by the plugin)"))
    ts = _replicated("sharing.timeSlicing", sharing.get("timeSlicing"), issues)
    mps = _replicated("sharing.mps", sharing.get("mps"), issues)
    if any(n > 1 for _, n in mps[2]):
        strategy, (rbd, frg, res), default_frg = "mps", mps, True
        for name, _ in res:
            if name.startswith("nvidia.com/mig-"):
                issues.append(ConfigIssue("sharing.mps.resources",
                                          "MPS does not support MIG devices"))
    elif any(n > 1 for _, n in ts[2]):
        strategy, (rbd, frg, res), default_frg = "time-slicing", ts, False
    else:
        strategy, (rbd, frg, res), default_frg = "none", ts, False
    shared = tuple(SharedResource(n, r, rbd) for n, r in res)
    return PluginConfig(strategy, shared, default_frg if frg is None else frg, frg is not None,
                        mig_strategy, tuple(issues))


@dataclass(frozen=True, slots=True)
class NodeSharing:
    """The sharing config one node runs under, and where it came from.

    ``config`` is None when no config applies (``missing`` says why: no ClusterPolicy config,
    ConfigMap or key absent); ``key_from`` is ``label`` or ``default``.
    """

    node: str
    configmap: str | None
    key: str | None
    key_from: str | None
    source: str
    config: PluginConfig | None
    missing: str | None = None

    @property
    def strategy(self) -> str:
        return self.config.strategy if self.config else "none"

    def replicas_for(self, resource: str) -> int | None:
        return self.config.replicas_for(resource) if self.config else None


def _plugin_config_ref(snap: Snapshot) -> tuple[str | None, str | None]:
    for cp in snap.clusterpolicies:
        dp = cp.spec.get("devicePlugin")
        cfg = dp.get("config") if isinstance(dp, dict) else None
        if isinstance(cfg, dict) and cfg.get("name"):
            default = cfg.get("default")
            return str(cfg["name"]), (str(default) if default else None)
    return None, None


def _configmap(snap: Snapshot, name: str) -> ConfigMap | None:
    ns = snap.operator_namespace
    for cm in snap.configmaps:
        if cm.metadata.name == name and (cm.metadata.namespace or ns) == ns:
            return cm
    for cm in snap.configmaps:
        if cm.metadata.name == name:
            return cm
    return None


@functools.lru_cache(maxsize=64)
def _parse_cached(text: str) -> PluginConfig:
    return parse_plugin_config(text)


def sharing_for_node(snap: Snapshot, node: Node) -> NodeSharing:
    name = node.metadata.name
    cm_name, default = _plugin_config_ref(snap)
    src = snap.source(Input.CONFIGMAPS)
    if cm_name is None:
        why = ("ClusterPolicy sets no devicePlugin.config" if snap.has(Input.CLUSTERPOLICIES)
               else f"{snap.source(Input.CLUSTERPOLICIES)} not collected")
        return NodeSharing(name, None, None, None, src, None, why)
    label = node.metadata.labels.get(LABEL_PLUGIN_CONFIG)
    key, key_from = (label, "label") if label else (default, "default" if default else None)
    if key is None:
        return NodeSharing(name, cm_name, None, None, src, None,
                           f"no {LABEL_PLUGIN_CONFIG} label and no config.default")
    if not snap.has(Input.CONFIGMAPS):
        return NodeSharing(name, cm_name, key, key_from, src, None,
                           f"{src} not collected")
    cm = _configmap(snap, cm_name)
    if cm is None:
        return NodeSharing(name, cm_name, key, key_from, src, None,
                           f"ConfigMap {cm_name} not found")
    if key not in cm.data:
        return NodeSharing(name, cm_name, key, key_from, src, None,
                           f"ConfigMap {cm_name} has no key {key!r}")
    return NodeSharing(name, cm_name, key, key_from, src, _parse_cached(cm.data[key]))


@functools.lru_cache(maxsize=8)
def node_sharing(snap: Snapshot) -> dict[str, NodeSharing]:
    """Per node: the device-plugin sharing config it runs under (each document parsed once)."""
    return {n.metadata.name: sharing_for_node(snap, n) for n in snap.nodes}


@dataclass(frozen=True, slots=True)
class Expected:
    """What one node should advertise under its sharing config, next to what GFD labelled and
    what the node advertises (facts.md §6.1-§6.2): ``count × replicas`` of the advertised name.
    A difference between config and labels means the plugin/GFD run another config (not yet
    applied); between labels and capacity, devices lost."""

    node: str
    resource: str
    strategy: str
    replicas: int
    physical: int | None
    label_replicas: int | None
    label_strategy: str | None
    advertised: int | None  # status.capacity; None when the name is absent

    @property
    def expected(self) -> int | None:
        return None if self.physical is None else self.physical * self.replicas

    @property
    def labels_agree(self) -> bool:
        rep_ok = self.label_replicas in (None, 0, self.replicas)
        strat_ok = self.label_strategy in (None, "", self.strategy)
        return rep_ok and strat_ok


def _int(v: str | None) -> int | None:
    try:
        return int(v) if v is not None else None
    except ValueError:
        return None


@functools.lru_cache(maxsize=8)
def expected_sharing(snap: Snapshot) -> dict[str, tuple[Expected, ...]]:
    """Per node with a sharing config: the advertisement that config implies."""
    out: dict[str, tuple[Expected, ...]] = {}
    for node in snap.nodes:
        ns = node_sharing(snap).get(node.metadata.name)
        if ns is None or ns.config is None:
            continue
        cfg = ns.config
        labels = node.metadata.labels
        shared = cfg.resources if cfg.strategy != "none" else (
            SharedResource("nvidia.com/gpu", 1, False),)
        rows = []
        for r in shared:
            cap = node.status.capacity.get(r.advertised)
            rows.append(Expected(
                node.metadata.name, r.advertised, cfg.strategy,
                r.replicas if cfg.strategy != "none" else 1,
                _int(labels.get(f"{r.name}.count")), _int(labels.get(f"{r.name}.replicas")),
                labels.get(f"{r.name}.sharing-strategy"),
                None if cap is None else _int(str(cap))))
        out[node.metadata.name] = tuple(rows)
    return out
