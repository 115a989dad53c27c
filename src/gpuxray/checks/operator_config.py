"""Operator configuration the nodes depend on (seed §1, §3, §6; CODES.md GX412–GX414, GX419,
GX420).

- GX412: driver-container mode on GPU nodes whose OS (or, precompiled, kernel) no driver spec
  covers — the driver image is built for one ``<os>`` (``<branch>-<kernel>-<os>`` precompiled).
- GX413: the device-plugin/GFD/MPS config a node runs under is missing, unparsable or has keys
  where the plugin ignores them, or config-manager/the plugin says it could not load it.
- GX414: a GPU node without GFD's labels, or with labels that come and go (NFD master denying the
  ``nvidia.com`` namespace, NFD/GFD restarting).
- GX419: the MIG strategy the plugin and GFD run with does not fit the node's applied MIG layout
  (GFD's ``-MIG-INVALID`` product label, or single/none against the mig-parted entry).
- GX420: the operator's CRDs are older than its chart or image (a Helm-rendered ClusterPolicy
  missing keys its chart always writes; NVIDIADriver not served under an operator that watches
  it).
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterator
from typing import TYPE_CHECKING

from gpuxray.checks.known_lines import pod_lines
from gpuxray.checks.operator import gpu_nodes, node_subject, operator_version
from gpuxray.checks.registry import check
from gpuxray.engines.capacity import gpu_resource_names
from gpuxray.engines.migstate import node_mig_states
from gpuxray.engines.operator import (
    gfd_expected,
    operand_pod_on,
    operator_may_run,
    pod_matches,
    policy,
)
from gpuxray.engines.plugin_config import ConfigRef, config_ref, find_configmap, validate
from gpuxray.engines.podscan import other_screens
from gpuxray.engines.signatures import default_matcher
from gpuxray.knowledge import clusterpolicy as cpk
from gpuxray.knowledge import driver_images as di
from gpuxray.knowledge import labels as lk
from gpuxray.knowledge.operands import DEVICE_PLUGIN
from gpuxray.knowledge.signatures import CAUSE_BY_ID
from gpuxray.knowledge.support import parse_version
from gpuxray.model.factory import fail, unknown
from gpuxray.model.finding import Evidence, Finding, Severity, Subject
from gpuxray.model.k8s import CustomResource, Node, Pod
from gpuxray.model.snapshot import Input, Snapshot, memo

if TYPE_CHECKING:
    from gpuxray.engines.mig import NodeMigLayout

#: ``engines/dra.py`` ``DRA_DRIVER_LABEL``: the operator deploys the DRA driver on such a node
DRA_DRIVER_LABEL = "nvidia.com/gpu.deploy.dra-driver"


def serves_gpus_through_dra(snap: Snapshot, node: Node) -> bool:
    """``engines/dra.py``'s answer, the DRA engines (~0.03 s of imports) loaded only where it
    can be yes: with ResourceSlices in the snapshot, or the operator's DRA label on the node
    (without both, that function is false)."""
    if not snap.resourceslices and DRA_DRIVER_LABEL not in node.metadata.labels:
        return False
    from gpuxray.engines.dra import serves_gpus_through_dra as serves

    return serves(snap, node)

MAX_EVIDENCE = 8


def _cp_subject(cp: CustomResource) -> Subject:
    return Subject("ClusterPolicy", cp.metadata.name or "cluster-policy")


def _node_info_ev(snap: Snapshot, node: Node) -> Evidence:
    info = node.status.node_info
    return snap.ev(Input.NODES, f"{node.metadata.name} osImage={info.os_image!r} "
                                f"kernelVersion={info.kernel_version!r}")


# ----- GX412 -------------------------------------------------------------------------------
def _driver_nodes(snap: Snapshot) -> list[Node]:
    """GPU nodes the driver DaemonSet targets (not opted out of the driver)."""
    return [n for n in gpu_nodes(snap)
            if n.metadata.labels.get(lk.DEPLOY_PREFIX + "driver", "true") == "true"
            and n.metadata.labels.get(lk.DEPLOY_OPERANDS) != "false"]


def _selects(selector: object, node: Node) -> bool:
    if not isinstance(selector, dict):
        return True
    labels = node.metadata.labels
    return all(labels.get(str(k)) == str(v) for k, v in selector.items())


@check("GX412", needs=(Input.NODES, Input.CLUSTERPOLICIES),
       applies=operator_may_run)
def driver_os_mismatch(snap: Snapshot) -> Iterator[Finding]:
    """Seed §3: the driver container "needs every GPU node on the same OS version"; precompiled
    images are tagged ``<branch>-<kernel>-<os>`` and need that exact kernel. NVIDIADriver CRs
    (``driver.useNvidiaDriverCRD``) split nodes into pools by ``spec.nodeSelector``, each pool
    built per OS — then every GPU node must be selected by one CR."""
    cp = policy(snap)
    if cp is None or not cpk.driver_enabled(cp):
        return  # host driver: OS may be mixed (seed §3)
    nodes = _driver_nodes(snap)
    if not nodes:
        return
    raw = cp.spec.get("driver")
    driver: dict[str, object] = raw if isinstance(raw, dict) else {}
    cp_ev = snap.ev(Input.CLUSTERPOLICIES,
                    f"{cp.metadata.name}: driver.enabled=true, version="
                    f"{driver.get('version', '<default>')}, usePrecompiled="
                    f"{bool(driver.get('usePrecompiled'))}, useNvidiaDriverCRD="
                    f"{bool(driver.get('useNvidiaDriverCRD'))}")
    if driver.get("useNvidiaDriverCRD") is True:
        yield from _crd_pools(snap, cp, nodes, cp_ev)
        return
    precompiled = driver.get("usePrecompiled") is True
    found = operator_version(snap)
    operator = found[0] if found is not None else None
    groups: dict[str, list[Node]] = defaultdict(list)
    tag_of = {n.metadata.name: di.os_tag(n.status.node_info.os_image, operator,
                                         n.metadata.labels) for n in nodes}
    for n in nodes:
        groups[tag_of[n.metadata.name]].append(n)
    if len(groups) > 1:
        evs = [cp_ev]
        for tag, ns in sorted(groups.items(), key=lambda kv: (-len(kv[1]), kv[0])):
            evs.append(snap.ev(Input.NODES, f"{tag}: " + ", ".join(
                f"{n.metadata.name} ({n.status.node_info.os_image})" for n in ns[:4])
                + (f" and {len(ns) - 4} more" if len(ns) > 4 else "")))
        if snap.nvidiadrivers:
            evs.append(snap.ev(Input.NVIDIADRIVERS, f"{len(snap.nvidiadrivers)} NVIDIADriver "
                                                    "CR(s) exist but driver.useNvidiaDriverCRD "
                                                    "is not true: they are not used"))
        yield fail("GX412", _cp_subject(cp), evs[:MAX_EVIDENCE], policy=cp.metadata.name,
                   os_tags=sorted(groups), nodes=sorted(n.metadata.name for n in nodes),
                   os_by_node=tag_of,
                   detail=f"driver-container mode, but GPU nodes run {len(groups)} OS "
                          f"releases ({', '.join(sorted(groups))}); one driver image covers "
                          "one OS")
    if precompiled:
        yield from _precompiled_tags(snap, nodes, str(driver.get("version") or ""), cp_ev,
                                     operator)


def _crd_pools(snap: Snapshot, cp: CustomResource, nodes: list[Node],
               cp_ev: Evidence) -> Iterator[Finding]:
    if not snap.has(Input.NVIDIADRIVERS):
        st = snap.state(Input.NVIDIADRIVERS)
        yield unknown("GX412", _cp_subject(cp), st.source, st.reason, evidence=(cp_ev,))
        return
    for n in nodes:
        name = n.metadata.name
        selected = [cr for cr in snap.nvidiadrivers if _selects(cr.spec.get("nodeSelector"), n)]
        if len(selected) == 1:
            continue
        if not selected:
            detail = (f"{name} ({n.status.node_info.os_image}, {n.status.node_info.kernel_version})"
                      " is selected by no NVIDIADriver CR: no driver is deployed there")
        else:
            detail = (f"{name} is selected by {len(selected)} NVIDIADriver CRs ("
                      + ", ".join(cr.metadata.name for cr in selected)
                      + "): the operator refuses overlapping pools")
        evs = [_node_info_ev(snap, n), cp_ev]
        evs += [snap.ev(Input.NVIDIADRIVERS, f"{cr.metadata.name} nodeSelector "
                                             f"{cr.spec.get('nodeSelector') or '{}'}")
                for cr in snap.nvidiadrivers[:5]]
        yield fail("GX412", node_subject(name), evs[:MAX_EVIDENCE], node=name, detail=detail,
                   selected_by=[cr.metadata.name for cr in selected])


_TAG = re.compile(r"/driver:(\S+)$")


def _precompiled_tags(snap: Snapshot, nodes: list[Node], version: str,
                      cp_ev: Evidence, operator: str | None = None) -> Iterator[Finding]:
    """Precompiled: the driver pod on each node must run ``<branch>-<kernel>-<os>`` of that
    node's kernel; a pod on another tag means the kernel moved under it (seed §3, GX508)."""
    if not version or not snap.has(Input.OPERATOR_PODS):
        return
    branch = di.driver_branch(version)
    for n in nodes:
        name = n.metadata.name
        want = di.precompiled_tag(branch, n.status.node_info.kernel_version,
                                  n.status.node_info.os_image, operator, n.metadata.labels)
        pod = operand_pod_on(snap, "nvidia-driver-daemonset", name) or _driver_pod(snap, name)
        if pod is None:
            continue
        tags = [m.group(1) for c in pod.spec.containers
                if (m := _TAG.search(c.image)) and c.name == "nvidia-driver-ctr"]
        if not tags or tags[0] == want:
            continue
        yield fail("GX412", node_subject(name), [
            _node_info_ev(snap, n), cp_ev,
            snap.ev(Input.PODS, f"{pod.metadata.name} runs driver image tag {tags[0]}")],
            node=name, expected_tag=want, actual_tag=tags[0],
            detail=f"{name} needs precompiled tag {want} but its driver pod runs {tags[0]}")


def _driver_pod(snap: Snapshot, node: str) -> Pod | None:
    """Precompiled DaemonSets carry the kernel in their name (nvidia-driver-daemonset-<kernel>…)."""
    for pod in snap.pods_by_node.get(node, []):
        if (pod.metadata.namespace or "default") == snap.operator_namespace and \
                pod.metadata.name.startswith("nvidia-driver-daemonset"):
            return pod
    return None


# ----- GX413 -------------------------------------------------------------------------------
CONFIG_READERS = (DEVICE_PLUGIN, "gpu-feature-discovery", "nvidia-device-plugin-mps-control-daemon")


@check("GX413", needs=(Input.NODES, Input.CLUSTERPOLICIES),
       applies=operator_may_run)
def plugin_config_invalid(snap: Snapshot) -> Iterator[Finding]:
    """Seed §6; facts.md §5.2, §6.1: config-manager picks the key named by the node label
    ``nvidia.com/device-plugin.config`` (else ``devicePlugin.config.default``) from the ConfigMap
    ``devicePlugin.config.name``. A missing key, an unparsable document or keys one level off
    (``flags.renameByDefault``) leave the node on another config than intended, silently."""
    cp = policy(snap)
    if cp is None:
        return
    cfg = cpk.device_plugin_config(cp)
    nodes = gpu_nodes(snap)
    refs = [config_ref(cfg, n) for n in nodes]
    yield from _config_problems(snap, cp, refs)
    yield from _config_log_lines(snap, nodes)


def _config_problems(snap: Snapshot, cp: CustomResource,
                     refs: list[ConfigRef]) -> Iterator[Finding]:
    cm_name = refs[0].configmap if refs else None
    ns = snap.operator_namespace
    if cm_name is None:
        for r in refs:
            if r.label:
                yield fail("GX413", node_subject(r.node), [
                    snap.ev(Input.NODES, f"{r.node} label {lk.DEVICE_PLUGIN_CONFIG}={r.label}"),
                    snap.ev(Input.CLUSTERPOLICIES,
                            f"{cp.metadata.name}: spec.devicePlugin.config is not set")],
                    node=r.node, target=r.node, key=r.label,
                    problem=f"label {lk.DEVICE_PLUGIN_CONFIG}={r.label} names a config but the "
                            "ClusterPolicy sets no devicePlugin.config: the label selects "
                            "nothing")
        return
    used = [r for r in refs if r.key]
    if not used:
        return
    cm_subject = Subject("ConfigMap", cm_name, ns)
    if not snap.has(Input.CONFIGMAPS):
        st = snap.state(Input.CONFIGMAPS)
        yield unknown("GX413", cm_subject, st.source, st.reason)
        return
    cm = find_configmap(snap, cm_name)
    cp_ev = snap.ev(Input.CLUSTERPOLICIES, f"{cp.metadata.name}: spec.devicePlugin.config "
                                           f"name={cm_name}")
    if cm is None:
        yield fail("GX413", cm_subject, [cp_ev, snap.ev(
            Input.CONFIGMAPS, f"no ConfigMap {cm_name} in namespace {ns}")],
            configmap=f"{ns}/{cm_name}", target=f"ConfigMap {ns}/{cm_name}",
            nodes=sorted(r.node for r in used),
            problem="is missing: config-manager cannot start the plugin with the named config")
        return
    by_key: dict[str, list[ConfigRef]] = defaultdict(list)
    for r in used:
        by_key[str(r.key)].append(r)
    for key, rs in sorted(by_key.items()):
        if key not in cm.data:
            labelled = [r for r in rs if r.key_from == "label"]
            for r in labelled:
                yield fail("GX413", node_subject(r.node), [
                    snap.ev(Input.NODES, f"{r.node} label {lk.DEVICE_PLUGIN_CONFIG}={key}"),
                    snap.ev(Input.CONFIGMAPS, f"{ns}/{cm_name} keys: "
                                              + (", ".join(sorted(cm.data)) or "<none>"))],
                    node=r.node, target=r.node, key=key, configmap=f"{ns}/{cm_name}",
                    problem=f"label {lk.DEVICE_PLUGIN_CONFIG}={key} names a key that ConfigMap "
                            f"{ns}/{cm_name} does not have")
            if len(labelled) < len(rs):
                yield fail("GX413", cm_subject, [cp_ev, snap.ev(
                    Input.CONFIGMAPS, f"{ns}/{cm_name} keys: "
                                      + (", ".join(sorted(cm.data)) or "<none>"))],
                    configmap=f"{ns}/{cm_name}", key=key, target=f"ConfigMap {ns}/{cm_name}",
                    nodes=sorted(r.node for r in rs if r.key_from != "label"),
                    problem=f"has no key {key!r}, the ClusterPolicy's devicePlugin.config."
                            "default")
            continue
        issues = validate(cm.data[key])
        if not issues:
            continue
        severe = any(i.fatal or i.kind == "misplaced" for i in issues)
        evs = [snap.ev(Input.CONFIGMAPS, f"{ns}/{cm_name} data.{key}: {i.path}: {i.problem}")
               for i in issues[:MAX_EVIDENCE - 1]]
        evs.append(snap.ev(Input.NODES, f"used by {', '.join(sorted(r.node for r in rs)[:6])}"
                                        f" ({rs[0].key_from})"))
        first = issues[0]
        yield fail("GX413", cm_subject, evs, severity=None if severe else Severity.WARNING,
                   configmap=f"{ns}/{cm_name}", key=key,
                   target=f"ConfigMap {ns}/{cm_name} key {key!r}",
                   nodes=sorted(r.node for r in rs),
                   issues=[{"path": i.path, "kind": i.kind, "problem": i.problem,
                            "fatal": i.fatal, "belongs": list(i.belongs)} for i in issues],
                   problem=f"{first.path}: {first.problem}"
                           + (f" (and {len(issues) - 1} more)" if len(issues) > 1 else ""))


def _config_log_lines(snap: Snapshot, nodes: list[Node]) -> Iterator[Finding]:
    """config-manager / plugin / GFD log lines saying the config could not be loaded."""
    matches = pod_matches(snap)
    for n in nodes:
        name = n.metadata.name
        evs: list[Evidence] = []
        for ds in CONFIG_READERS:
            pod = operand_pod_on(snap, ds, name)
            if pod is None:
                continue
            for m in matches.get((pod.metadata.namespace or "default", pod.metadata.name), []):
                if CAUSE_BY_ID[m.match.signature.primary].code == "GX413" and \
                        m.evidence not in evs:
                    evs.append(m.evidence)
        if evs:
            yield fail("GX413", node_subject(name), evs[:MAX_EVIDENCE], node=name, target=name,
                       problem=f"the plugin/config-manager could not load or switch its config: "
                               f"{evs[0].detail[:200]}")


# ----- GX414 -------------------------------------------------------------------------------
GFD_LABELS = ("nvidia.com/gpu.product", "nvidia.com/gpu.count", "nvidia.com/gpu.memory")
CHURN_RESTARTS = 3  # restarts of GFD / nfd-worker on the node that count as churn
_NFD_MASTER = re.compile(r"(?:^|-)(?:nfd-master|node-feature-discovery-master)(?:-|$)")
_NFD_WORKER = re.compile(r"(?:^|-)(?:nfd-worker|node-feature-discovery-worker)(?:-|$)")


def _labelled_gpu_node(node: Node) -> bool:
    labels = node.metadata.labels
    if labels.get(lk.WORKLOAD_CONFIG, "container") != "container":
        return False
    if labels.get(lk.GPU_PRESENT) == "true":
        return True
    for res in gpu_resource_names(node):
        if res == "nvidia.com/gpu" or res.startswith("nvidia.com/gpu."):
            try:
                if int(str(node.status.capacity.get(res, "0"))) > 0:
                    return True
            except ValueError:
                continue
    return False


def _nfd_denials(snap: Snapshot) -> list[Evidence]:
    out: list[Evidence] = []
    m = default_matcher()
    for (ns, pod, container), log in sorted(snap.logs.items()):
        if not (_NFD_MASTER.search(pod) or container == "nfd-master"):
            continue
        for text, suffix in ((log.current, ".log"), (log.previous, ".previous.log")):
            for match in m.scan_text(text or "")[-200:]:
                if CAUSE_BY_ID[match.signature.primary].code == "GX414":
                    ev = Evidence(f"logs/{ns}/{pod}/{container}{suffix}", match.line[:300])
                    if ev not in out:
                        out.append(ev)
    return out


def _nfd_workers(snap: Snapshot) -> dict[str, list[Pod]]:
    """nfd-worker pods per node, found in one pass (any namespace: NFD is often installed
    apart from the operator); the substring test spares the pattern for nearly every pod."""
    def compute() -> dict[str, list[Pod]]:
        out: dict[str, list[Pod]] = defaultdict(list)
        for p in other_screens(snap).workers:  # bound pods named *-worker*, in snapshot order
            if _NFD_WORKER.search(p.metadata.name):
                out[p.spec.node_name].append(p)
        return dict(out)

    return memo(snap, "nfd-workers", compute)


def _churn(snap: Snapshot, node: str) -> tuple[list[Evidence], dict[str, int]]:
    """Restarts (>= CHURN_RESTARTS) and failure events of GFD and nfd-worker on ``node``."""
    evs: list[Evidence] = []
    restarts: dict[str, int] = {}
    gfd = operand_pod_on(snap, "gpu-feature-discovery", node)
    pods = [gfd] if gfd is not None else []
    pods += _nfd_workers(snap).get(node, [])
    for p in pods:
        for st in p.status.container_statuses:
            if st.restart_count >= CHURN_RESTARTS:
                restarts[f"{p.metadata.name}/{st.name}"] = st.restart_count
                evs.append(snap.ev(Input.PODS, f"{p.metadata.name} container {st.name} "
                                               f"restarted {st.restart_count} times"))
        for e in snap.events_for("Pod", p.metadata.namespace, p.metadata.name):
            if e.type != "Normal" and e.reason in ("BackOff", "Failed", "Killing", "Unhealthy"):
                evs.append(snap.ev(Input.EVENTS, f"{p.metadata.name}: {e.reason}: "
                                                 f"{e.message[:200]}"))
                break
    return evs, restarts


@check("GX414", needs=(Input.NODES,),
       applies=gfd_expected)
def gfd_labels_missing(snap: Snapshot) -> Iterator[Finding]:
    """Seed §1: GFD publishes the GPU's product, count and memory as node labels, which placement
    (nodeSelector on ``nvidia.com/gpu.product``) and physical counts (capacity = count × replicas,
    facts.md §6.2) rely on. NFD master drops labels outside its allowed namespaces
    (``-extra-label-ns`` / ``-deny-label-ns``), and GFD/NFD restarts make them come and go."""
    denials = _nfd_denials(snap)
    for node in snap.nodes:
        if not _labelled_gpu_node(node):
            continue
        name = node.metadata.name
        labels = node.metadata.labels
        missing = [k for k in GFD_LABELS if not labels.get(k)]
        if (missing and labels.get("nvidia.com/gpu.deploy.gpu-feature-discovery") != "true"
                and serves_gpus_through_dra(snap, node)):
            continue  # GPUs handed out by the DRA driver: no GFD deployed, none needed
        churn, restarts = _churn(snap, name) if snap.has(Input.OPERATOR_PODS) else ([], {})
        if not missing and not churn and not denials:
            continue
        evs = [snap.ev(Input.NODES, f"{name} label {k}=" + (labels.get(k) or "<absent>"))
               for k in GFD_LABELS]
        evs += denials[:3] + churn[:3]
        causes: list[str] = []
        if denials:
            causes.append("nfd-master denies nvidia.com labels")
        if churn:
            causes.append("GFD/NFD restarting")
        gfd = operand_pod_on(snap, "gpu-feature-discovery", name)
        if missing and gfd is None and snap.has(Input.OPERATOR_PODS):
            causes.append("no gpu-feature-discovery pod on the node")
            evs.append(snap.ev(Input.OPERATOR_PODS, f"no gpu-feature-discovery pod on {name}"))
        state = (f"lacks {', '.join(missing)}" if missing
                 else "has the GFD labels, but they come and go")
        yield fail("GX414", node_subject(name), evs[:MAX_EVIDENCE], node=name, missing=missing,
                   causes=causes, restarts=restarts, nfd_denials=len(denials),
                   detail=state + (f" ({'; '.join(causes)})" if causes else ""))


# ----- GX419 -------------------------------------------------------------------------------
def _mig_strategy(snap: Snapshot, node: Node,
                  cp: CustomResource | None) -> tuple[str | None, Evidence | None]:
    """The strategy GFD labels the node with (it is the one GFD and the plugin run with),
    else the ClusterPolicy's ``spec.mig.strategy``."""
    v = node.metadata.labels.get(lk.MIG_STRATEGY)
    if v:
        return v, snap.ev(Input.NODES, f"{node.metadata.name} label {lk.MIG_STRATEGY}={v}")
    s = cpk.mig_strategy(cp) if cp is not None else None
    if s and cp is not None:
        return s, snap.ev(Input.CLUSTERPOLICIES, f"{cp.metadata.name} spec.mig.strategy={s}")
    return None, None


def _layout_misfit(strategy: str, layout: NodeMigLayout) -> str | None:
    """Why ``strategy`` cannot serve ``layout``: single needs one MIG profile on every GPU
    (k8s-device-plugin internal/rm/device_map.go ``assertAllMigDevicesAreValid(uniform)``, the
    same migEnabled value on all), none advertises MIG-enabled GPUs whole."""
    enabled = [lay for lay in layout.per_gpu if lay is not None and any(lay.counts.values())]
    profiles = sorted({p for lay in enabled for p, n in lay.counts.items() if n > 0})
    whole = len(layout.per_gpu) - len(enabled)
    shown = f"{layout.config} ({', '.join(profiles)})"
    if strategy == "none" and enabled:
        return (f"mig.strategy=none, but layout {shown} puts {len(enabled)} of "
                f"{len(layout.per_gpu)} GPU(s) in MIG mode: they are advertised as whole "
                "nvidia.com/gpu that no container can use")
    if strategy == "single" and len(profiles) > 1:
        return (f"mig.strategy=single, but layout {shown} has {len(profiles)} MIG profiles: "
                "single serves one profile per node, the plugin refuses the node")
    if strategy == "single" and enabled and whole:
        return (f"mig.strategy=single, but layout {shown} leaves {whole} of "
                f"{len(layout.per_gpu)} GPU(s) whole beside {len(enabled)} in MIG mode: single "
                "needs every GPU in the same mode, the plugin refuses the node")
    return None


@check("GX419", needs=(Input.NODES,))
def mig_strategy_mismatch(snap: Snapshot) -> Iterator[Finding]:
    """Seed §6; k8s-device-plugin's MIG strategies: ``single`` refuses a node with more than one
    MIG profile or MIG-enabled beside whole GPUs (GFD then labels ``<model>-MIG-INVALID``,
    count 0), ``none`` advertises MIG-enabled GPUs whole. The node's layout is the applied
    ``nvidia.com/mig.config`` entry (``mig.config.state=success``) of the mig-parted ConfigMap."""
    cp = policy(snap) if snap.has(Input.CLUSTERPOLICIES) else None
    states = {st.node: st for st in node_mig_states(snap)}
    for node in snap.nodes:
        name = node.metadata.name
        labels = node.metadata.labels
        product = labels.get(lk.GPU_PRODUCT, "")
        strategy, s_ev = _mig_strategy(snap, node, cp)
        if product.upper().endswith("-MIG-INVALID"):
            evs = [snap.ev(Input.NODES, f"{name} label {lk.GPU_PRODUCT}={product}"),
                   snap.ev(Input.NODES, f"{name} label {lk.GPU_COUNT}="
                           + labels.get(lk.GPU_COUNT, "<absent>"))]
            yield fail("GX419", node_subject(name), [*evs, *([s_ev] if s_ev else [])],
                       subject_desc=name, node=name, strategy=strategy or "single",
                       detail=f"GFD labels {lk.GPU_PRODUCT}={product}: mig.strategy=single "
                              "cannot serve this node's MIG layout (more than one profile, or "
                              "MIG-enabled and whole GPUs), so it advertises no GPU")
            continue
        st = states.get(name)
        if st is None or labels.get(lk.MIG_CONFIG_STATE) != "success":
            continue  # no layout asked for, or not applied yet (pending/failed: GX407)
        if strategy is None:
            yield unknown("GX419", node_subject(name),
                          f"{snap.source(Input.NODES)} label {lk.MIG_STRATEGY}",
                          "absent, and no ClusterPolicy spec.mig.strategy read")
            continue
        if strategy == "mixed":
            continue  # mixed serves any layout
        if st.layout is None:
            if st.missing_input == snap.source(Input.CONFIGMAPS) and \
                    not snap.has(Input.CONFIGMAPS):
                yield unknown("GX419", node_subject(name), st.missing_input,
                              st.missing or "not collected")
            continue
        why = _layout_misfit(strategy, st.layout)
        if why is None:
            continue
        evs = [s_ev] if s_ev else []
        per_gpu = "; ".join(f"GPU {i}: " + (str(dict(lay.counts)) if lay else "MIG disabled")
                            for i, lay in enumerate(st.layout.per_gpu[:4]))
        more = " …" if len(st.layout.per_gpu) > 4 else ""
        evs += [snap.ev(Input.NODES, f"{name} label {lk.MIG_CONFIG}={st.config}, "
                                     f"{lk.MIG_CONFIG_STATE}=success"),
                Evidence(st.config_source or snap.source(Input.CONFIGMAPS),
                         f"{st.configmap} {st.config} on {st.gpus} × "
                         f"{st.layout.model.name}: {per_gpu}{more}")]
        yield fail("GX419", node_subject(name), evs, subject_desc=name, node=name,
                   strategy=strategy, config=st.config, detail=why)
    yield from pod_lines(snap, "GX419", line_param="detail",
                         max_evidence=MAX_EVIDENCE)


# ----- GX420 -------------------------------------------------------------------------------
def _chart_release(cp: CustomResource) -> tuple[str, tuple[int, int, int]] | None:
    """(chart label, release) of a ClusterPolicy the operator's chart rendered, None for one
    made by hand or by OLM (no ``helm.sh/chart: gpu-operator-…`` label from Helm)."""
    labels = cp.metadata.labels
    chart = labels.get(cpk.HELM_CHART_LABEL, "")
    if not chart.startswith("gpu-operator-") or labels.get(cpk.MANAGED_BY_LABEL) != "Helm":
        return None
    # a development chart is versioned v1.0.0-devel: its app version says the release
    ver = parse_version(labels.get(cpk.APP_VERSION_LABEL, "")) or \
        parse_version(chart.removeprefix("gpu-operator-"))
    return (chart, ver) if ver else None


@check("GX420", needs=(Input.CLUSTERPOLICIES,), applies=operator_may_run)
def clusterpolicy_crd_stale(snap: Snapshot) -> Iterator[Finding]:
    """Helm installs a chart's ``crds/`` on first install only
    (https://helm.sh/docs/chart_best_practices/custom_resource_definitions/). The bundle holds
    no CRDs (BUNDLE.md), so the stale schema shows by what it did: a Helm-rendered ClusterPolicy
    lacking a top-level key its chart release always writes was pruned by it; an operator from
    v23.9.0 with ``nvidiadrivers.nvidia.com`` not served (404) runs a controller whose kind the
    cluster lacks. And the lines helm, kubectl or the operator print about it."""
    for cp in snap.clusterpolicies:
        rel = _chart_release(cp)
        if rel is None:
            continue
        chart, ver = rel
        lost = [k for k in cpk.CHART_SPEC_KEYS if ver >= k.since and k.key not in cp.spec]
        if not lost:
            continue
        oldest = min(k.since for k in lost)
        app = cp.metadata.labels.get(cpk.APP_VERSION_LABEL, "")
        evs = [snap.ev(Input.CLUSTERPOLICIES, f"{cp.metadata.name} label "
                       f"{cpk.HELM_CHART_LABEL}={chart}"
                       + (f", {cpk.APP_VERSION_LABEL}={app}" if app else ""))]
        evs += [snap.ev(Input.CLUSTERPOLICIES, f"{cp.metadata.name} spec.{k.key}: absent "
                        f"(the chart writes it from v{'.'.join(map(str, k.since))})")
                for k in lost]
        keys = ", ".join(f"spec.{k.key}" for k in lost)
        yield fail("GX420", _cp_subject(cp), evs[:MAX_EVIDENCE],
                   subject_desc=f"ClusterPolicy {cp.metadata.name}", lost=[k.key for k in lost],
                   detail=f"rendered by {chart}, whose template always writes {keys}; the "
                          "stored object lacks them, so the clusterpolicies.nvidia.com CRD "
                          f"predates v{'.'.join(map(str, oldest))} and pruned them")
    drivers = snap.state(Input.NVIDIADRIVERS)
    found = operator_version(snap) if "404" in drivers.reason else None
    release = parse_version(found[0]) if found else None
    if found and release and release >= cpk.NVIDIADRIVER_WATCHED_SINCE:
        image, ev, subject = found
        yield fail("GX420", subject, [ev, Evidence(drivers.source, drivers.reason)],
                   subject_desc=f"{subject.kind} {subject.name}", operator=image,
                   detail=f"operator {image} watches NVIDIADriver (from v23.9.0), but "
                          "nvidiadrivers.nvidia.com is not served: its CRD was never installed "
                          "(helm installs CRDs only on a fresh install)")
    if snap.has(Input.PODS):
        yield from pod_lines(snap, "GX420", line_param="detail",
                         max_evidence=MAX_EVIDENCE)
