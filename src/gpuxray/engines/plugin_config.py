"""Validating a device-plugin / GFD / MPS config document against the plugin's schema (seed §6;
facts.md §6.1), and resolving which document each node runs under.

The schema is data (:mod:`gpuxray.knowledge.plugin_config`); this walker reports every key the
plugin would not read, with its path, and says where a misplaced key belongs. Parsing is shared
with :mod:`gpuxray.engines.sharing` (JSON first, then YAML, never raising on content).
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from typing import Any

from gpuxray.engines.sharing import LABEL_PLUGIN_CONFIG, _configmap, _load
from gpuxray.knowledge import plugin_config as pk
from gpuxray.model.k8s import ConfigMap, Node
from gpuxray.model.snapshot import Snapshot

_DURATION = re.compile(r"^(?:\d+(?:\.\d+)?(?:ns|us|µs|ms|s|m|h))+$")  # Go time.Duration
MAX_ISSUES = 50


@dataclass(frozen=True, slots=True)
class Issue:
    """One problem of a config document. ``fatal``: the plugin refuses the document (it fails
    to start or keeps the old config); otherwise the plugin silently ignores the key."""

    path: str
    problem: str
    fatal: bool = False
    kind: str = "invalid"  # invalid | unparsable | required | unknown-key | misplaced | ignored
    belongs: tuple[str, ...] = ()  # for misplaced keys: where the plugin reads them


def _kind_ok(leaf: pk.Leaf, value: Any) -> bool:
    if leaf.kind == "bool":
        return isinstance(value, bool)
    if leaf.kind == "int":
        return isinstance(value, int) and not isinstance(value, bool)
    if leaf.kind == "duration":
        return (isinstance(value, int) and not isinstance(value, bool)) or (
            isinstance(value, str) and bool(_DURATION.match(value)))
    if leaf.kind == "str-or-list":
        return isinstance(value, str) or (isinstance(value, list)
                                          and all(isinstance(v, str) for v in value))
    if leaf.kind == "devices":
        return (value == "all" or (isinstance(value, int) and not isinstance(value, bool))
                or isinstance(value, list))
    return isinstance(value, str)


def _walk(node: pk.Node, value: Any, path: str, homes: dict[str, list[str]],
          out: list[Issue]) -> None:
    if isinstance(node, pk.AnyValue):
        return
    if isinstance(node, pk.Leaf):
        if value is None:
            return
        if not _kind_ok(node, value):
            out.append(Issue(path, f"must be {node.kind}, not {value!r}"[:200], True))
            return
        vals = value if isinstance(value, list) else [value]
        if node.choices and any(v not in node.choices for v in vals):
            out.append(Issue(path, f"must be one of {', '.join(node.choices)}, not {value!r}"[:200],
                             True))
        return
    if isinstance(node, pk.ListOf):
        if value is None:
            return
        if not isinstance(value, list):
            out.append(Issue(path, "must be a list", True))
            return
        for i, item in enumerate(value):
            _walk(node.item, item, f"{path}[{i}]", homes, out)
        return
    if value is None:
        return
    if not isinstance(value, dict):
        out.append(Issue(path or "<top>", "must be a mapping", True))
        return
    for k, v in value.items():
        key = str(k)
        sub = f"{path}.{key}" if path else key
        child = node.fields.get(key)
        if child is not None:
            _walk(child, v, sub, homes, out)
            continue
        elsewhere = [h for h in homes.get(key, []) if h != (path or "<top>")]
        if elsewhere:
            homes_ = tuple(sorted(set(elsewhere)))
            out.append(Issue(sub, "misplaced: the plugin ignores it here; it belongs under "
                                  + " or ".join(homes_), kind="misplaced", belongs=homes_))
        elif path == "flags.plugin" and key in pk.FLAG_ONLY_KEYS:
            out.append(Issue(sub, "not a config-file key: the plugin reads it only as "
                                  f"{pk.FLAG_ONLY_KEYS[key]}; here it is ignored",
                             kind="unknown-key"))
        else:
            out.append(Issue(sub, "unknown key: the plugin ignores it", kind="unknown-key"))


def _sharing_rules(doc: dict[str, Any], out: list[Issue]) -> None:
    res = doc.get("resources")
    if isinstance(res, dict) and any(res.get(k) for k in ("gpus", "mig")):
        out.append(Issue("resources", "ignored by the plugin (customizing resources in the "
                                      "config is disabled)", kind="ignored"))
    sharing = doc.get("sharing")
    if not isinstance(sharing, dict):
        return
    for mode in ("timeSlicing", "mps"):
        rep = sharing.get(mode)
        if not isinstance(rep, dict) or not isinstance(rep.get("resources"), list):
            continue
        for i, r in enumerate(rep["resources"]):
            if not isinstance(r, dict):
                continue
            p = f"sharing.{mode}.resources[{i}]"
            name = r.get("name")
            if not isinstance(name, str) or not name:
                out.append(Issue(f"{p}.name", "required", True, "required"))
            elif not (name == pk.SHAREABLE_PREFIXES[0]
                      or name.startswith(pk.SHAREABLE_PREFIXES[1])):
                out.append(Issue(f"{p}.name", f"{name!r} cannot be shared: only nvidia.com/gpu "
                                              "and nvidia.com/mig-* can", True))
            elif mode == "mps" and name.startswith(pk.SHAREABLE_PREFIXES[1]):
                out.append(Issue(f"{p}.name", pk.MPS_NO_MIG, True))
            reps = r.get("replicas")
            if reps is None:
                out.append(Issue(f"{p}.replicas", "required", True, "required"))
            elif isinstance(reps, int) and not isinstance(reps, bool) and \
                    reps < pk.MIN_SHARING_REPLICAS:
                out.append(Issue(f"{p}.replicas", f"{reps}: the plugin refuses the whole "
                                                  "document (number of replicas must be >= "
                                                  f"{pk.MIN_SHARING_REPLICAS})", True))
            default_rename = f"{name}.shared" if isinstance(name, str) else None
            for k in pk.IGNORED_RESOURCE_KEYS:
                if k not in r:
                    continue
                if k == "devices" and r[k] == "all":
                    continue
                if k == "rename" and rep.get("renameByDefault") is True \
                        and r[k] == default_rename:
                    continue
                out.append(Issue(f"{p}.{k}", "ignored by the plugin (custom resource names and "
                                             "device lists in the config are disabled)",
                                 kind="ignored"))


@functools.lru_cache(maxsize=64)
def validate(text: str) -> tuple[Issue, ...]:
    """Every problem of one config document, in document order (capped at MAX_ISSUES)."""
    doc, err = _load(text)
    if err is not None:
        return (Issue("<document>", err, True, "unparsable"),)
    if not isinstance(doc, dict):
        return (Issue("<document>", "not a mapping: the plugin cannot decode it", True,
                      "unparsable"),)
    out: list[Issue] = []
    if "version" not in doc:
        out.append(Issue("version", "required (v1)", True, "required"))
    _walk(pk.SCHEMA, doc, "", _homes(), out)
    _sharing_rules(doc, out)
    return tuple(out[:MAX_ISSUES])


@functools.lru_cache(maxsize=1)
def _homes() -> dict[str, list[str]]:
    return pk.key_homes()


@dataclass(frozen=True, slots=True)
class ConfigRef:
    """Which config document a node runs under, and why (ClusterPolicy default or node label)."""

    node: str
    configmap: str | None  # ClusterPolicy spec.devicePlugin.config.name
    key: str | None
    key_from: str  # "label", "default" or "" (none)
    label: str | None


def config_ref(cp_config: tuple[str | None, str | None], node: Node) -> ConfigRef:
    cm_name, default = cp_config
    label = node.metadata.labels.get(LABEL_PLUGIN_CONFIG)
    if label:
        return ConfigRef(node.metadata.name, cm_name, label, "label", label)
    if default:
        return ConfigRef(node.metadata.name, cm_name, default, "default", None)
    return ConfigRef(node.metadata.name, cm_name, None, "", None)


def find_configmap(snap: Snapshot, name: str) -> ConfigMap | None:
    return _configmap(snap, name)
