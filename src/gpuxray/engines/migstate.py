"""Each node's MIG layout as the cluster asks for it (facts.md §5.2 "MIG", §6.3, §7).

The node label ``nvidia.com/mig.config=<name>`` selects an entry of the mig-parted ConfigMap
(ClusterPolicy ``spec.migManager.config.name``, default ``default-mig-parted-config``); the GPU
model comes from GFD's ``nvidia.com/gpu.product`` (and ``.memory``). The planner then places that
entry on each GPU, giving the waste (GX603) and whether the layout is possible at all.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import TYPE_CHECKING

from gpuxray.model.k8s import ConfigMap, Node
from gpuxray.model.snapshot import Input, Snapshot

if TYPE_CHECKING:
    from gpuxray.engines.mig import MigPartedConfig, NodeMigLayout
    from gpuxray.knowledge.mig import GpuModel

# The planner and the MIG profile tables (~0.02 s of imports) are imported by the functions
# that read a mig-parted document or a GPU model: a fleet without MIG layouts asks neither.

LABEL_MIG_CONFIG = "nvidia.com/mig.config"
LABEL_MIG_STATE = "nvidia.com/mig.config.state"
DEFAULT_MIG_CONFIGMAP = "default-mig-parted-config"
DISABLED = frozenset({"all-disabled", ""})


@dataclass(frozen=True, slots=True)
class NodeMigState:
    node: str
    config: str
    model: GpuModel | None = None
    layout: NodeMigLayout | None = None
    config_source: str = ""
    configmap: str = ""
    key: str = ""
    missing: str | None = None  # why the layout cannot be worked out
    missing_input: str | None = None
    gpus: int | None = None  # physical GPUs, when derivable


def mig_configmap_name(snap: Snapshot) -> str:
    for cp in snap.clusterpolicies:
        mm = cp.spec.get("migManager")
        cfg = mm.get("config") if isinstance(mm, dict) else None
        if isinstance(cfg, dict) and cfg.get("name"):
            return str(cfg["name"])
    return DEFAULT_MIG_CONFIGMAP


@functools.lru_cache(maxsize=32)
def _parse(text: str) -> MigPartedConfig:
    from gpuxray.engines.mig import parse_mig_parted

    return parse_mig_parted(text)


def mig_parted_config(cm: ConfigMap) -> tuple[str, MigPartedConfig] | None:
    """The mig-parted document of a ConfigMap: ``config.yaml`` or the first key with configs."""
    keys = sorted(cm.data, key=lambda k: (k != "config.yaml", k))
    for k in keys:
        cfg = _parse(cm.data[k])
        if cfg.configs or k == "config.yaml":
            return k, cfg
    return None


def _find_cm(snap: Snapshot, name: str) -> ConfigMap | None:
    for cm in snap.configmaps:
        if cm.metadata.name == name:
            return cm
    return None


def model_of(node: Node) -> tuple[GpuModel | None, str]:
    labels = node.metadata.labels
    product = labels.get("nvidia.com/gpu.product", "")
    mem: int | None = None
    if "-MIG-" not in product.upper():
        try:
            mem = int(labels.get("nvidia.com/gpu.memory", ""))
        except ValueError:
            mem = None
    if not product:
        return None, product
    from gpuxray.knowledge.mig import model_for_product

    return model_for_product(product, mem), product


def physical_gpus(node: Node, cfg: MigPartedConfig, name: str, model: GpuModel) -> int | None:
    """Physical GPUs: ``nvidia.com/gpu.count``, except under the single strategy where GFD counts
    MIG devices, so the count is divided by the instances a uniform ``devices: all`` entry makes."""
    labels = node.metadata.labels
    try:
        count = int(labels.get("nvidia.com/gpu.count", ""))
    except ValueError:
        return None
    if labels.get("nvidia.com/mig.strategy") != "single" or "-MIG-" not in labels.get(
            "nvidia.com/gpu.product", "").upper():
        return count
    per = [sum(e.layout.values()) for e in cfg.configs.get(name, ())
           if e.enabled and e.devices is None and e.applies_to(model)]
    if len(per) == 1 and per[0] > 0 and count % per[0] == 0:
        return count // per[0]
    return None


@functools.lru_cache(maxsize=8)
def node_mig_states(snap: Snapshot) -> tuple[NodeMigState, ...]:
    """Every node that asks for a MIG layout (label set, not ``all-disabled``)."""
    out: list[NodeMigState] = []
    cm_name = mig_configmap_name(snap)
    for node in snap.nodes:
        name = node.metadata.name
        want = node.metadata.labels.get(LABEL_MIG_CONFIG, "")
        if want in DISABLED:
            continue
        src = snap.source(Input.CONFIGMAPS)
        if not snap.has(Input.CONFIGMAPS):
            out.append(NodeMigState(name, want, missing=snap.state(Input.CONFIGMAPS).reason,
                                    missing_input=src))
            continue
        cm = _find_cm(snap, cm_name)
        found = mig_parted_config(cm) if cm is not None else None
        if cm is None or found is None:
            out.append(NodeMigState(name, want, missing=f"ConfigMap {cm_name} not found",
                                    missing_input=src))
            continue
        key, cfg = found
        csrc = src
        if want not in cfg.configs:
            out.append(NodeMigState(name, want, config_source=csrc, configmap=cm_name,
                                    missing=f"ConfigMap {cm_name} key {key}: mig-configs "
                                            f"has no entry {want!r}",
                                    missing_input=csrc))
            continue
        model, product = model_of(node)
        if model is None:
            out.append(NodeMigState(name, want, config_source=csrc, configmap=cm_name,
                                    missing=f"no MIG table for GPU product {product!r}",
                                    missing_input=f"{snap.source(Input.NODES)} label "
                                                  "nvidia.com/gpu.product"))
            continue
        gpus = physical_gpus(node, cfg, want, model)
        if gpus is None:
            out.append(NodeMigState(name, want, model, config_source=csrc, configmap=cm_name,
                                    missing="physical GPU count not derivable from labels",
                                    missing_input=f"{snap.source(Input.NODES)} label "
                                                  "nvidia.com/gpu.count"))
            continue
        from gpuxray.engines.mig import layout_for

        out.append(NodeMigState(name, want, model, layout_for(cfg, want, model, gpus), csrc,
                                cm_name, key, gpus=gpus))
    return tuple(out)
