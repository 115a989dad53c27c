"""Operator stack checks (seed §1, §3; facts.md §5; CODES.md GX401–GX411).

The operator's failure modes are quiet: a DaemonSet whose selector or tolerations miss a GPU node
simply has a smaller DESIRED (seed §1), a driver that cannot load leaves every later operand in
Init, and a lost ``nvidia`` handler stops even the device plugin (seed §2). Each check below
computes the expected state from labels, taints, the ClusterPolicy and the operand pods, and
names the link of the chain that broke.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterator
from typing import Any

from gpuxray.checks.registry import check
from gpuxray.checks.runtime import pod_subject
from gpuxray.engines.capacity import is_gpu_node_of, is_gpu_resource
from gpuxray.engines.operator import (
    bound_operand_pods,
    bound_operands,
    node_coverage,
    operand_pod_on,
    operator_may_run,
    pod_matches,
    pod_ready,
    pod_state,
    policy,
)
from gpuxray.engines.podtext import PodMatch, log_tail
from gpuxray.engines.signatures import CauseScore, collect_next, default_matcher, rank
from gpuxray.knowledge import clusterpolicy as cpk
from gpuxray.knowledge import labels as lk
from gpuxray.knowledge import support
from gpuxray.knowledge.operands import (
    BY_DAEMONSET,
    BY_STATE,
    DCGM_EXPORTER,
    DEVICE_PLUGIN,
    DRIVER,
    MIG_MANAGER,
)
from gpuxray.knowledge.signatures import CAUSE_BY_ID, Signature
from gpuxray.model.factory import fail, unknown
from gpuxray.model.finding import CLUSTER, Evidence, Finding, Severity, Subject
from gpuxray.model.incident import short_list
from gpuxray.model.k8s import DaemonSet, Node, Pod
from gpuxray.model.snapshot import HostFacts, Input, Snapshot, memo

MAX_EVIDENCE = 8


def node_subject(name: str) -> Subject:
    return Subject("Node", name)


def ds_subject(ds: DaemonSet) -> Subject:
    return Subject("DaemonSet", ds.metadata.name, ds.metadata.namespace or "default")


def operand_daemonsets(snap: Snapshot) -> list[DaemonSet]:
    ns = snap.operator_namespace
    return [ds for ds in snap.daemonsets if (ds.metadata.namespace or "default") == ns
            and ds.metadata.name in BY_DAEMONSET]


def gpu_nodes(snap: Snapshot) -> list[Node]:
    """Nodes with an NVIDIA device that run container workloads (VM nodes get sandbox operands).
    Several checks walk them: computed once per snapshot."""
    def compute() -> list[Node]:
        out = []
        for n in snap.nodes:
            labels = n.metadata.labels
            if labels.get(lk.WORKLOAD_CONFIG, "container") != "container":
                continue
            if lk.has_nvidia_pci(labels) or is_gpu_node_of(snap, n):
                out.append(n)
        return out

    return list(memo(snap, "gpu-nodes", compute))


def _label_ev(snap: Snapshot, node: Node, key: str) -> Evidence:
    val = node.metadata.labels.get(key)
    return snap.ev(Input.NODES, f"{node.metadata.name} label {key}="
                   + (val if val is not None else "<absent>"))


# ----- GX401 / GX402 -----------------------------------------------------------------------
@check("GX401", needs=(Input.NODES,),
       applies=operator_may_run)
def gpu_node_unlabelled(snap: Snapshot) -> Iterator[Finding]:
    """Seed §1; facts.md §5.2: NFD's ``pci-10de`` label makes the operator add
    ``nvidia.com/gpu.present`` and the deploy labels every operand selects on. A GPU node without
    them gets no operands and no error: the DaemonSets' DESIRED just leaves it out."""
    daemonsets = operand_daemonsets(snap)
    for node in gpu_nodes(snap):
        labels = node.metadata.labels
        name = node.metadata.name
        if labels.get(lk.DEPLOY_OPERANDS) == "false":
            continue
        missing: list[str] = []
        evs: list[Evidence] = []
        for key in lk.NFD_PCI_LABELS:
            if labels.get(key) == "true":
                evs.append(_label_ev(snap, node, key))
                break
        if labels.get(lk.GPU_PRESENT) != "true":
            missing.append(lk.GPU_PRESENT)
            evs.append(_label_ev(snap, node, lk.GPU_PRESENT))
        skipped: list[str] = []
        for ds in daemonsets:
            op = BY_DAEMONSET[ds.metadata.name]
            if not op.default_on:
                continue
            cov = node_coverage(snap, ds, node)
            for key, want, actual in cov.selector_missing:
                if lk.is_opted_out(actual):
                    continue
                if key in dict(op.extra_selector):
                    continue
                if key not in missing:
                    missing.append(key)
                    evs.append(snap.ev(Input.DAEMONSETS, f"{ds.metadata.name} nodeSelector "
                                       f"{key}={want}; node has "
                                       + (actual if actual is not None else "<absent>")))
                skipped.append(ds.metadata.name)
        if not missing:
            continue
        yield fail("GX401", node_subject(name), evs[:MAX_EVIDENCE], node=name,
                   missing="lacks " + ", ".join(missing),
                   labels=missing, skipped=sorted(set(skipped)))


@check("GX402", needs=(Input.NODES, Input.DAEMONSETS))
def operand_taint_untolerated(snap: Snapshot) -> Iterator[Finding]:
    """Seed §1: an operand DaemonSet that does not tolerate a GPU node's taint silently excludes
    it; the device plugin then never runs there and the node advertises nothing."""
    nodes = [n for n in gpu_nodes(snap) if n.spec.taints]
    for ds in operand_daemonsets(snap):
        by_taint: dict[str, list[str]] = {}
        for node in nodes:
            cov = node_coverage(snap, ds, node)
            if not cov.meant_for:
                continue  # not meant for this node (GX401 speaks for labels)
            for t in cov.untolerated:
                by_taint.setdefault(str(t), []).append(node.metadata.name)
        for taint, names in sorted(by_taint.items()):
            evs = [snap.ev(Input.NODES, f"{n} taint {taint}") for n in names[:4]]
            tol = [f"{t.key or '*'}:{t.effect or '*'}" for t in
                   ds.spec.template.spec.tolerations]
            evs.append(snap.ev(Input.DAEMONSETS, f"{ds.metadata.name} tolerations "
                               f"[{', '.join(tol)}]; DESIRED "
                               f"{ds.status.desired_number_scheduled}"))
            # the nodes once, in ``nodes``: the message and ``where`` name one node or count
            # them (a taint on every GPU node of a fleet listed thrice was 200 KB of one finding);
            # ``node`` only where there is one, so it is always a node's name (incidents read it)
            one: dict[str, Any] = {"node": names[0]} if len(names) == 1 else {}
            yield fail("GX402", ds_subject(ds), evs, daemonset=ds.metadata.name, taint=taint,
                       where=names[0] if one else f"{len(names)} GPU nodes "
                                                  f"({short_list(names, 3)})",
                       nodes=names, node_count=len(names), **one)


# ----- GX403 -------------------------------------------------------------------------------
def _cause_of(ms: list[PodMatch], codes: set[str]) -> tuple[str, str, list[Evidence]]:
    """The top-ranked cause among matches voting for ``codes``: (cause id, title, evidence)."""
    relevant = [m for m in ms if any(CAUSE_BY_ID[c].code in codes
                                     for c, _w in m.match.signature.votes)]
    ranked = [r for r in rank(m.match for m in relevant) if r.cause.code in codes]
    if not ranked:
        return "", "", []
    top = ranked[0]
    evs = [m.evidence for m in relevant if m.match.line in top.matched]
    uniq = list({(e.source, e.detail): e for e in evs}.values())
    cid, title = _decided(ranked)
    return cid, title, uniq[:MAX_EVIDENCE]


def _decided(ranked: list[CauseScore]) -> tuple[str, str]:
    """The top cause when a deciding line backs it; otherwise say what would decide (seed §8:
    never name a look-alike as the cause)."""
    top = ranked[0]
    if top.deciding:
        return top.cause.id, top.cause.title
    names = " or ".join(r.cause.id for r in ranked[:2])
    return "undetermined", f"no line decides ({names}); collect: {collect_next(ranked)}"


def _host_driver_problem(host: HostFacts) -> tuple[str, str, list[Evidence]] | None:
    """With ``driver.enabled=false`` the host's driver must be loaded (seed §3)."""
    texts: list[tuple[str, str]] = []
    for name in ("dmesg.txt", "nvidia-smi.txt", "lsmod.txt", "mokutil-sb-state.txt"):
        if name in host.cmds:
            texts.append((host.source("cmd", name), host.cmds[name]))
        if name in host.cmd_errors:  # the command failed: its stderr is the evidence
            texts.append((host.source("cmd", name + ".err"), host.cmd_errors[name]))
    loaded = "proc/driver/nvidia/version" in host.files
    smi_ok = "nvidia-smi.txt" in host.cmds and "NVIDIA-SMI" in host.cmds["nvidia-smi.txt"] \
        and "failed" not in host.cmds["nvidia-smi.txt"].lower()
    if loaded or smi_ok:
        return None
    if not texts and not host.files:
        return None
    m = default_matcher()
    matches = []
    evmap: dict[str, Evidence] = {}
    for src, text in texts:
        for mt in m.scan_text(text, src):
            # a line that votes for a driver or NVML cause, whichever host state it names first
            if any(CAUSE_BY_ID[c].code in ("GX403", "GX304") for c, _w in mt.signature.votes):
                matches.append(mt)
                evmap.setdefault(mt.line, Evidence(src, mt.line))
    ranked = [r for r in rank(matches) if r.cause.code == "GX403"]
    evs = [Evidence(host.source("files", "proc/driver/nvidia/version"), "absent: no NVIDIA "
                    "kernel module loaded")]
    if ranked:
        top = ranked[0]
        evs += [evmap[ln] for ln in top.matched if ln in evmap]
        cid, title = _decided(ranked)
        return cid, title, evs
    if "nvidia-smi.txt" not in host.cmds and "nvidia-smi.txt" not in host.cmd_errors:
        return None  # nothing tried the driver: absence of the version file alone is not proof
    return "host-driver", "the host driver is not loaded", evs


@check("GX403", needs=(Input.OPERATOR_PODS,))
def driver_not_ready(snap: Snapshot) -> Iterator[Finding]:
    """Seed §3: the driver is a kernel module; when its pod cannot load it every later stage
    waits. The cause is in the driver pod's log/events: nouveau holding the GPU, Secure Boot
    rejecting the unsigned module, a precompiled image without a tag for the kernel, or missing
    kernel headers. With ``driver.enabled=false`` the host's driver is checked instead."""
    cp = policy(snap)
    ns = snap.operator_namespace
    if cp is None or cpk.driver_enabled(cp):
        for pod in bound_operand_pods(snap, DRIVER):
            if pod_ready(pod):
                continue
            ms = pod_matches(snap).get((ns, pod.metadata.name), [])
            cause_id, title, evs = _cause_of(ms, {"GX403"})
            state = pod_state(pod)
            if not cause_id:
                cause_id, title = "not-ready", f"driver pod {state}"
                evs = [snap.ev(Input.PODS, f"{pod.metadata.name}: {state}"),
                       *log_tail(snap, ns, pod.metadata.name, n=4)]
            else:
                evs = [snap.ev(Input.PODS, f"{pod.metadata.name}: {state}"), *evs]
            yield fail("GX403", node_subject(pod.spec.node_name), evs[:MAX_EVIDENCE],
                       node=pod.spec.node_name, cause=title, cause_id=cause_id,
                       pod=pod.metadata.name)
        return
    if not snap.has(Input.HOSTS):
        st = snap.state(Input.HOSTS)
        yield unknown("GX403", CLUSTER, st.source,
                      f"{st.reason}: driver.enabled=false, so the host driver can only be "
                      "checked from node facts")
        return
    for node in gpu_nodes(snap):
        host = snap.hosts.get(node.metadata.name)
        if host is None:
            continue
        res = _host_driver_problem(host)
        if res is None:
            continue
        cause_id, title, evs = res
        yield fail("GX403", node_subject(node.metadata.name), evs[:MAX_EVIDENCE],
                   node=node.metadata.name, cause=title, cause_id=cause_id, pod="")


# ----- GX404 -------------------------------------------------------------------------------
@check("GX404", needs=(Input.NODES,))
def driver_upgrade_failed(snap: Snapshot) -> Iterator[Finding]:
    """Seed §3: the driver upgrade state machine labels a node ``upgrade-failed`` and stops;
    the docs say to look for exactly this label (facts.md §5.2)."""
    for node in snap.nodes:
        state = node.metadata.labels.get(lk.UPGRADE_STATE)
        if state != lk.UPGRADE_FAILED:
            continue
        name = node.metadata.name
        evs = [_label_ev(snap, node, lk.UPGRADE_STATE)]
        drv = operand_pod_on(snap, DRIVER, name)
        if drv is not None:
            evs.append(snap.ev(Input.PODS, f"{drv.metadata.name}: {pod_state(drv)}"))
            evs += log_tail(snap, drv.metadata.namespace or "default", drv.metadata.name, n=3)
        yield fail("GX404", node_subject(name), evs, node=name, state=state)


# ----- GX406 -------------------------------------------------------------------------------
@check("GX406", needs=(Input.OPERATOR_PODS,))
def dcgm_exporter_failing(snap: Snapshot) -> Iterator[Finding]:
    """Seed §1: dcgm-exporter crash-loops when it cannot reach a standalone DCGM, or when
    profiling metrics are unsupported or held by another exporter."""
    ns = snap.operator_namespace
    for pod in bound_operand_pods(snap, DCGM_EXPORTER):
        restarts = sum(s.restart_count for s in pod.status.container_statuses)
        if pod_ready(pod) and restarts < 3:
            continue
        if pod.status.phase == "Pending" and not pod.status.container_statuses:
            continue
        state = pod_state(pod)
        if state.startswith("Init") or state in ("PodInitializing", "ContainerCreating"):
            continue  # waiting on an earlier stage (GX302) or the sandbox (GX411)
        ms = pod_matches(snap).get((ns, pod.metadata.name), [])
        cause_id, title, evs = _cause_of(ms, {"GX406"})
        if not cause_id:
            title = f"{state}, {restarts} restarts"
            evs = log_tail(snap, ns, pod.metadata.name, n=3)
        yield fail("GX406", pod_subject(pod),
                   [snap.ev(Input.PODS, f"{pod.metadata.name}: {state}, restarts {restarts}"),
                    *evs][:MAX_EVIDENCE],
                   pod=pod.metadata.name, cause=title, cause_id=cause_id or "crashloop",
                   node=pod.spec.node_name)


# ----- GX407 -------------------------------------------------------------------------------
@check("GX407", needs=(Input.NODES,))
def mig_config_failed(snap: Snapshot) -> Iterator[Finding]:
    """facts.md §5.2: reconfigure-mig.sh writes ``nvidia.com/mig.config.state``; ``failed``
    means the layout was not applied. ``pending`` with mig-manager errors or no running
    mig-manager on the node is stuck. A requested layout that cannot be placed on the node's GPU
    model (the MIG planner, facts.md §6.3, §7) fails whatever the label says."""
    reported: set[str] = set()
    for node in snap.nodes:
        state = node.metadata.labels.get(lk.MIG_CONFIG_STATE)
        if state not in ("failed", "pending"):
            continue
        name = node.metadata.name
        evs = [_label_ev(snap, node, lk.MIG_CONFIG), _label_ev(snap, node, lk.MIG_CONFIG_STATE)]
        mm = operand_pod_on(snap, MIG_MANAGER, name)
        errors: list[Evidence] = []
        if mm is not None:
            ns = mm.metadata.namespace or "default"
            ms = pod_matches(snap).get((ns, mm.metadata.name), [])
            errors = [m.evidence for m in ms
                      if CAUSE_BY_ID[m.match.signature.primary].code == "GX407"]
        if state == "failed":
            cause = "mig.config.state=failed"
        elif errors:
            cause = "mig.config.state=pending with mig-manager errors"
        elif mm is None or not pod_ready(mm):
            cause = ("mig.config.state=pending and no running mig-manager on the node"
                     + (f" ({pod_state(mm)})" if mm is not None else ""))
        else:
            continue
        cfg = node.metadata.labels.get(lk.MIG_CONFIG, "")
        reported.add(name)
        yield fail("GX407", node_subject(name), [*evs, *errors][:MAX_EVIDENCE], node=name,
                   cause=f"{cause} (config {cfg or '?'})", state=state, config=cfg)
    yield from _invalid_layouts(snap, reported)


def _invalid_layouts(snap: Snapshot, reported: set[str]) -> Iterator[Finding]:
    try:
        from gpuxray.engines.migstate import node_mig_states
    except ImportError:  # the MIG planner is optional here
        return
    for st in node_mig_states(snap):
        if st.node in reported or st.layout is None or st.model is None:
            continue
        bad = st.layout.invalid
        if not bad:
            continue
        idx, lay = bad[0]
        why = "; ".join(p.detail for p in lay.problems[:2])
        yield fail("GX407", node_subject(st.node), [
            snap.ev(Input.NODES, f"{st.node} label {lk.MIG_CONFIG}={st.config}"),
            Evidence(st.config_source or snap.source(Input.CONFIGMAPS),
                     f"{st.configmap} {st.config}: {dict(lay.counts)} on {st.model.name}")],
                   node=st.node, cause=f"layout {st.config} is invalid for {st.model.name} "
                                       f"(GPU {idx}: {why})",
                   state=snap.node_by_name[st.node].metadata.labels.get(lk.MIG_CONFIG_STATE, ""),
                   config=st.config, invalid_gpus=[i for i, _l in bad])


# ----- GX408 -------------------------------------------------------------------------------
def _pod_started(pod: Pod, container: str) -> str | None:
    for st in pod.status.container_statuses:
        if st.name == container and st.state.running and st.state.running.started_at:
            return st.state.running.started_at
    return pod.status.start_time


@check("GX408", needs=(Input.CLUSTERPOLICIES, Input.OPERATOR_PODS),
       applies=operator_may_run)
def plugin_config_not_applied(snap: Snapshot) -> Iterator[Finding]:
    """Seed §6: the operator does not watch the device-plugin ConfigMap. A ConfigMap updated
    after the plugin pods started is not in effect until they restart. A bundle shows the last
    update as the newest ``metadata.managedFields[].time`` (or the creation time)."""
    cp = policy(snap)
    if cp is None:
        return
    cm_name, _default = cpk.device_plugin_config(cp)
    if not cm_name:
        return
    ns = snap.operator_namespace
    if not snap.has(Input.CONFIGMAPS):
        st = snap.state(Input.CONFIGMAPS)
        yield unknown("GX408", Subject("ConfigMap", cm_name, ns), st.source, st.reason)
        return
    cm = next((c for c in snap.configmaps if c.metadata.name == cm_name
               and (c.metadata.namespace or "default") == ns), None)
    if cm is None:
        return  # a missing ConfigMap is GX413's (plugin-config-invalid)
    times = [m.time for m in cm.metadata.managed_fields if m.time]
    updated = max([*times, cm.metadata.creation_timestamp or ""])
    if not updated:
        return
    stale: list[tuple[str, str]] = []
    for (dsname, _node), pod in sorted(_plugin_pods(snap).items()):
        started = _pod_started(pod, "nvidia-device-plugin")
        if started and started < updated:
            stale.append((pod.metadata.name, started))
        del dsname
    if not stale:
        return
    evs = [snap.ev(Input.CONFIGMAPS, f"{ns}/{cm_name} last updated {updated}"
                   + (" (managedFields)" if times else " (creationTimestamp)"))]
    evs += [snap.ev(Input.PODS, f"{p} started {t}") for p, t in stale[:6]]
    yield fail("GX408", Subject("ConfigMap", cm_name, ns), evs, configmap=f"{ns}/{cm_name}",
               pod=", ".join(p for p, _t in stale[:3]) + (" …" if len(stale) > 3 else ""),
               pods=[p for p, _t in stale], updated=updated)


def _plugin_pods(snap: Snapshot) -> dict[tuple[str, str], Pod]:
    from gpuxray.engines.operator import operand_pods

    return {k: p for k, p in operand_pods(snap).items() if k[0] == DEVICE_PLUGIN}


# ----- GX409 -------------------------------------------------------------------------------
def operator_version(snap: Snapshot) -> tuple[str, Evidence, Subject] | None:
    """The operator release from its Deployment image, its pod image, or the ClusterPolicy's
    ``app.kubernetes.io/version`` label."""
    ns = snap.operator_namespace
    for d in snap.deployments:
        for c in d.spec.template.spec.containers:
            if "/gpu-operator:" in c.image or c.image.startswith("gpu-operator:"):
                return c.image, snap.ev(Input.DEPLOYMENTS,
                                        f"deployment {d.metadata.namespace}/{d.metadata.name} "
                                        f"image {c.image}"), Subject(
                    "Deployment", d.metadata.name, d.metadata.namespace or "default")
    for p in snap.pods_by_namespace.get(ns, []):
        for c in p.spec.containers:
            if "/gpu-operator:" in c.image:
                ev = snap.ev(Input.PODS, f"pod {ns}/{p.metadata.name} image {c.image}")
                return c.image, ev, Subject("Pod", p.metadata.name, ns)
    for cp in snap.clusterpolicies:
        v = cp.metadata.labels.get("app.kubernetes.io/version")
        if v:
            return v, snap.ev(Input.CLUSTERPOLICIES,
                              f"{cp.metadata.name} label app.kubernetes.io/version={v}"), \
                Subject("ClusterPolicy", cp.metadata.name)
    return None


@check("GX409", needs=(Input.NODES,))
def unsupported_stack(snap: Snapshot) -> Iterator[Finding]:
    """Seed §3: 26.3.x is Deprecated and 26.7.x Supported; older lines are end of life (both
    reported as info: a release that runs is a planning item); consumer GPUs are not on the
    supported product list (a warning) (knowledge/support.py)."""
    found = operator_version(snap)
    if found is not None:
        text, ev, subject = found
        ver = support.parse_version(text)
        if ver is not None:
            status = support.operator_status(ver)
            if status != support.SUPPORTED:
                vs = "v" + ".".join(map(str, ver))
                # Info, not a warning: an out-of-support release that runs is a planning item,
                # not a fault, and a healthy cluster stays quiet (the healthy shapes
                # include 25.10, End of Support on the platform-support page).
                yield fail("GX409", subject, [ev], severity=Severity.INFO,
                           detail=f"GPU Operator {vs} is {status}", version=vs, status=status)
    for node in snap.nodes:
        product = node.metadata.labels.get(lk.GPU_PRODUCT)
        if not product:
            continue
        rule = support.product_rule(product)
        if rule is None or rule.supported:
            continue
        yield fail("GX409", node_subject(node.metadata.name),
                   [_label_ev(snap, node, lk.GPU_PRODUCT)],
                   detail=f"{node.metadata.name}: {product} is a {rule.family} GPU, not on the "
                          "supported product list", product=product, family=rule.family)


# ----- GX410 -------------------------------------------------------------------------------
@check("GX410", needs=(Input.CLUSTERPOLICIES,),
       applies=operator_may_run)
def clusterpolicy_not_ready(snap: Snapshot) -> Iterator[Finding]:
    """facts.md §5.3: ``status.state`` is ready / notReady / ignored; the Ready/Error conditions
    list the states not ready; failing that, the operand DaemonSets that are not ready name the
    culprit (seed §1)."""
    for cp in snap.clusterpolicies:
        state = cp.status.state or ""
        info = cpk.STATES.get(state)
        if info is not None and info.healthy:
            continue
        evs = [snap.ev(Input.CLUSTERPOLICIES, f"{cp.metadata.name} status.state="
                       + (state or "<empty>"))]
        operands: list[str] = []
        reasons: list[str] = []
        for cond in cp.status.conditions:
            failing = ((cond.type == "Error" and cond.status == "True")
                       or (cond.type == "Ready" and cond.status == "False"))
            if cond.message and failing:
                evs.append(snap.ev(Input.CLUSTERPOLICIES,
                                   f"condition {cond.type}={cond.status} {cond.reason}: "
                                   f"{cond.message}"))
                reasons += [r for r in cpk.not_ready_reasons(cond.message) if r not in reasons]
                for s in cpk.states_not_ready(cond.message):
                    op = BY_STATE.get(s)
                    label = op.daemonset if op else s
                    if label not in operands:
                        operands.append(label)
        for ds in operand_daemonsets(snap):
            st = ds.status
            if st.desired_number_scheduled and st.number_ready < st.desired_number_scheduled:
                evs.append(snap.ev(Input.DAEMONSETS, f"{ds.metadata.name} ready "
                                   f"{st.number_ready}/{st.desired_number_scheduled}"))
                if ds.metadata.name not in operands:
                    operands.append(ds.metadata.name)
        sev = Severity.INFO if state == "ignored" else None
        desc = (f": not ready: {', '.join(operands)}" if operands
                else f": {'; '.join(reasons)}" if reasons else "")
        yield fail("GX410", Subject("ClusterPolicy", cp.metadata.name), evs[:MAX_EVIDENCE],
                   severity=sev, name=cp.metadata.name, state=state or "<empty>",
                   operand_desc=desc, operands=operands,
                   **({"reasons": reasons} if reasons else dict[str, Any]()))


# ----- GX411 -------------------------------------------------------------------------------
def _handlers_fn() -> Callable[[HostFacts], Any] | None:
    """``gpuxray.engines.containerd.node_runtime_handlers`` when that engine is installed."""
    try:
        mod = importlib.import_module("gpuxray.engines.containerd")
    except ImportError:
        return None
    fn = getattr(mod, "node_runtime_handlers", None)
    return fn if callable(fn) else None


def _advertised(node: Node) -> str:
    caps = {k: v for k, v in node.status.capacity.items() if is_gpu_resource(k)}
    if not caps:
        return "advertises no nvidia.com/gpu resource"
    return "advertises " + ", ".join(f"{k}: {v}" for k, v in sorted(caps.items()))


@check("GX411", needs=(Input.OPERATOR_PODS,))
def operand_runtime_chain(snap: Snapshot) -> Iterator[Finding]:
    """Seed §2 gate 2: operands get ``runtimeClassName: nvidia`` (facts.md §5.4); when the node's
    containerd lost the handler, their sandboxes fail (``no runtime for "nvidia" is
    configured``), the device plugin never starts, and the node stops advertising GPUs."""
    cp = policy(snap)
    if cp is not None and cpk.nri_plugin_enabled(cp):
        return
    handler = cpk.runtime_class(cp) if cp is not None else "nvidia"
    ns = snap.operator_namespace
    # the engine only where there are host files to read: it is ~0.03 s of imports
    fn = _handlers_fn() if snap.hosts or snap.has(Input.HOSTS) else None
    if not snap.has(Input.EVENTS) and (fn is None or not snap.has(Input.HOSTS)):
        st = snap.state(Input.EVENTS)
        yield unknown("GX411", CLUSTER, st.source,
                      f"{st.reason}; node containerd configs not collected either")
        return
    m = default_matcher()
    by_node: dict[str, list[Evidence]] = {}
    pod_of: dict[Evidence, str] = {}  # an event line's operand pod
    # the operands of many nodes repeat one event message: each distinct one matched once
    sigs_of: dict[str, list[Signature]] = {}
    for pod, _op in bound_operands(snap):
        if pod.spec.runtime_class_name != handler:
            continue
        for e in snap.events_for("Pod", ns, pod.metadata.name):
            sigs = sigs_of.get(e.message)
            if sigs is None:
                sigs = sigs_of[e.message] = m.match_line(e.message)
            for sig in sigs:
                if sig.id in ("no-runtime-handler", "cri-handler-unknown"):
                    ev = snap.ev(Input.EVENTS,
                                 f"{pod.metadata.name}: {e.reason}: {e.message[:300]}")
                    pod_of[ev] = pod.metadata.name
                    by_node.setdefault(pod.spec.node_name, []).append(ev)
    if fn is not None:
        uses_rc = any(ds.spec.template.spec.runtime_class_name == handler
                      for ds in operand_daemonsets(snap))
        for node in gpu_nodes(snap):
            host = snap.hosts.get(node.metadata.name)
            if host is None or not uses_rc:
                continue
            try:
                handlers = fn(host)
            except Exception:  # the engine reports its own failures (GX509)
                continue
            if handlers is None or handler in handlers:
                continue
            by_node.setdefault(node.metadata.name, []).append(Evidence(
                host.source("files", "etc/containerd/"),
                f"effective containerd runtimes: {sorted(handlers) or 'none'} (no {handler!r})"))
    for name, all_evs in sorted(by_node.items()):
        # the device plugin's own event first: it is the link that stops advertising
        all_evs.sort(key=lambda e: DEVICE_PLUGIN not in e.detail)
        evs = all_evs[:4]
        gnode = snap.node_by_name.get(name)
        plugin = operand_pod_on(snap, DEVICE_PLUGIN, name)
        state = pod_state(plugin) if plugin is not None else None
        advertised = _advertised(gnode) if gnode is not None else None
        links = [f"containerd on {name} has no {handler!r} handler"]
        if plugin is not None:
            links.append(f"device plugin {plugin.metadata.name} cannot start ({state})")
        else:
            links.append("no device plugin pod running on the node")
        if advertised is not None:
            links.append(f"node {advertised}")
            evs.append(snap.ev(Input.NODES, f"{name} {advertised}"))
        # the chain is the node's, its plugin pod's and its operand pods' names around what
        # is compared (handler, plugin_state, advertised): those names are the finding's own,
        # so the handler gone on many nodes is one JSON entry listing each node (docs/json.md)
        pods = list(dict.fromkeys(pod_of[e] for e in evs if e in pod_of))
        yield fail("GX411", node_subject(name), evs[:MAX_EVIDENCE], node=name,
                   chain=" → ".join(links), handler=handler,
                   plugin=plugin.metadata.name if plugin is not None else None,
                   plugin_state=state, advertised=advertised, pods=pods,
                   own=("node", "chain", "plugin", "pods"))
