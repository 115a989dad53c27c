"""The operator's state as the checks need it: operand pods per node, who blocks whom, the
ClusterPolicy in force, and whether a DaemonSet covers a node (selector, taints).

Why an engine: GX302, GX401/402, GX403, GX410, GX411 and ``why`` all ask "which operand pod runs
on this node and is it waiting on an earlier stage" (seed §1, §4; facts.md §5.1).
"""

from __future__ import annotations

import functools
from collections.abc import Hashable
from dataclasses import dataclass

from gpuxray.engines.podscan import runtime_scan
from gpuxray.engines.podtext import PodMatch, scan_pods
from gpuxray.knowledge.operands import BY_DAEMONSET, Operand, operand_for
from gpuxray.knowledge.signatures import CAUSE_BY_ID
from gpuxray.model.k8s import (
    ContainerStatus,
    CustomResource,
    DaemonSet,
    Node,
    Pod,
    Taint,
    Toleration,
)
from gpuxray.model.placement import required_affinity_matches
from gpuxray.model.snapshot import Input, Snapshot, memo

BLOCKING_EFFECTS = ("NoSchedule", "NoExecute")

# The tolerations the DaemonSet controller adds to every daemon pod, on top of the template's,
# and uses when it decides which nodes a DaemonSet covers: a cordoned node or one under memory,
# disk or PID pressure keeps its operands (kubernetes/kubernetes@v1.37.2:
# pkg/controller/daemon/util/daemonset_util.go AddOrUpdateDaemonPodTolerations; measured
# against the real controller in tests/test_controlplane_daemonset.py).
DAEMON_POD_TOLERATIONS: tuple[Toleration, ...] = (
    Toleration(key="node.kubernetes.io/not-ready", operator="Exists", effect="NoExecute"),
    Toleration(key="node.kubernetes.io/unreachable", operator="Exists", effect="NoExecute"),
    Toleration(key="node.kubernetes.io/disk-pressure", operator="Exists", effect="NoSchedule"),
    Toleration(key="node.kubernetes.io/memory-pressure", operator="Exists", effect="NoSchedule"),
    Toleration(key="node.kubernetes.io/pid-pressure", operator="Exists", effect="NoSchedule"),
    Toleration(key="node.kubernetes.io/unschedulable", operator="Exists", effect="NoSchedule"),
)
# added as well when the pod uses the host's network
HOST_NETWORK_TOLERATION = Toleration(key="node.kubernetes.io/network-unavailable",
                                     operator="Exists", effect="NoSchedule")


def owner_daemonset(pod: Pod) -> str | None:
    for ref in pod.metadata.owner_references:
        if ref.kind == "DaemonSet":
            return ref.name
    return None


def operand_of_pod(pod: Pod) -> Operand | None:
    ds = owner_daemonset(pod)
    if ds and ds in BY_DAEMONSET:
        return BY_DAEMONSET[ds]
    return operand_for(pod.metadata.name)


def bound_operands(snap: Snapshot) -> list[tuple[Pod, Operand]]:
    """The operator namespace's pods bound to a node that belong to an operand, with it, in
    snapshot order: computed once, as half a dozen checks walk them (a fleet's 24k operand
    pods were attributed ~5 times over)."""
    def compute() -> list[tuple[Pod, Operand]]:
        out: list[tuple[Pod, Operand]] = []
        for pod in snap.pods_by_namespace.get(snap.operator_namespace, []):
            if pod.spec.node_name:
                op = operand_of_pod(pod)
                if op is not None:
                    out.append((pod, op))
        return out

    return memo(snap, "bound-operands", compute)


def bound_operand_pods(snap: Snapshot, daemonset: str) -> list[Pod]:
    """The pods of :func:`bound_operands` of one operand DaemonSet, in snapshot order."""
    def compute() -> dict[str, list[Pod]]:
        out: dict[str, list[Pod]] = {}
        for pod, op in bound_operands(snap):
            out.setdefault(op.daemonset, []).append(pod)
        return out

    return memo(snap, "bound-operands-by-daemonset", compute).get(daemonset, [])


@functools.lru_cache(maxsize=8)
def operand_pods(snap: Snapshot) -> dict[tuple[str, str], Pod]:
    """(daemonset, node) -> the operand pod there (the newest when several)."""
    out: dict[tuple[str, str], Pod] = {}
    for pod, op in bound_operands(snap):
        key = (op.daemonset, pod.spec.node_name)
        prev = out.get(key)
        if prev is None or (pod.metadata.creation_timestamp or "") > (
                prev.metadata.creation_timestamp or ""):
            out[key] = pod
    return out


def operator_release(snap: Snapshot) -> tuple[int, int, int] | None:
    """The operator release from its Deployment or pod image, else the ClusterPolicy's
    ``app.kubernetes.io/version`` label (the sources ``checks.operator.operator_version``
    reports as evidence)."""
    from gpuxray.knowledge.support import parse_version

    for d in snap.deployments:
        for c in d.spec.template.spec.containers:
            if "/gpu-operator:" in c.image or c.image.startswith("gpu-operator:"):
                return parse_version(c.image)
    for p in snap.pods_by_namespace.get(snap.operator_namespace, []):
        for c in p.spec.containers:
            if "/gpu-operator:" in c.image:
                return parse_version(c.image)
    for cp in snap.clusterpolicies:
        v = cp.metadata.labels.get("app.kubernetes.io/version")
        if v:
            return parse_version(v)
    return None


def operand_pod_on(snap: Snapshot, daemonset: str, node: str) -> Pod | None:
    return operand_pods(snap).get((daemonset, node))


@dataclass(frozen=True, slots=True)
class Blocked:
    init: str
    state: str  # "running" (waiting for a file) or "waiting: <reason>"/"terminated: <reason>"


def blocked_init(pod: Pod) -> Blocked | None:
    """The first init container that has not completed, when the pod has not started."""
    if pod.status.phase not in ("Pending", ""):
        return None
    statuses = {s.name: s for s in pod.status.init_container_statuses}
    for c in pod.spec.init_containers:
        if c.restart_policy == "Always":
            continue
        st = statuses.get(c.name)
        if st is None:
            return None
        t = st.state.terminated
        if t is not None and t.exit_code == 0:
            continue
        return Blocked(c.name, _state_word(st))
    return None


def _state_word(st: ContainerStatus) -> str:
    if st.state.running is not None:
        return "running"
    if st.state.waiting is not None:
        return f"waiting: {st.state.waiting.reason or 'unknown'}"
    if st.state.terminated is not None:
        return f"terminated: {st.state.terminated.reason or st.state.terminated.exit_code}"
    return "no state"


def pod_state(pod: Pod) -> str:
    """One word for ``kubectl get pods`` STATUS: Init:1/2, CrashLoopBackOff, Running…"""
    if pod.metadata.deletion_timestamp:
        return "Terminating"
    b = blocked_init(pod)
    if b is not None:
        done = [s for s in pod.status.init_container_statuses
                if s.state.terminated and s.state.terminated.exit_code == 0]
        if b.state.startswith("waiting: ") and b.state != "waiting: PodInitializing":
            return "Init:" + b.state.split(": ", 1)[1]
        return f"Init:{len(done)}/{len(pod.spec.init_containers)}"
    for st in pod.status.container_statuses:
        if st.state.waiting and st.state.waiting.reason:
            return st.state.waiting.reason
    return pod.status.phase or "Unknown"


def pod_ready(pod: Pod) -> bool:
    return (pod.status.phase == "Running" and bool(pod.status.container_statuses)
            and all(s.ready for s in pod.status.container_statuses))


def policy(snap: Snapshot) -> CustomResource | None:
    """The ClusterPolicy in force: the first one not marked ``ignored`` (facts.md §5.3)."""
    for cp in snap.clusterpolicies:
        if cp.status.state != "ignored":
            return cp
    return snap.clusterpolicies[0] if snap.clusterpolicies else None


def tolerates(tolerations: list[object], taint: Taint) -> bool:
    from gpuxray.model.k8s import Toleration

    for t in tolerations:
        if not isinstance(t, Toleration):
            continue
        if t.effect and t.effect != taint.effect:
            continue
        if t.operator == "Exists":
            if not t.key or t.key == taint.key:
                return True
            continue
        if t.key == taint.key and (t.value or "") == (taint.value or ""):
            return True
    return False


#: owners of the operator's operand DaemonSets: the ClusterPolicy is made their controller
#: (NVIDIA/gpu-operator@v25.10.1:controllers/object_controls.go ``SetControllerReference``),
#: an NVIDIADriver of its driver DaemonSets (same tag, internal/state/driver.go)
OPERATOR_OWNERS = frozenset({"ClusterPolicy", "NVIDIADriver"})
OPERATOR_DEPLOYMENT = "gpu-operator"
DEPLOY_LABEL_PREFIX = "nvidia.com/gpu.deploy."


def operator_evidence(snap: Snapshot) -> str | None:
    """What shows the GPU Operator manages this cluster, or None: a ClusterPolicy or
    NVIDIADriver, a DaemonSet they own, its Deployment, or a node carrying its deploy labels
    (the operator writes them, NVIDIA/gpu-operator@v25.10.1:controllers/state_manager.go)."""
    if snap.clusterpolicies:
        return f"ClusterPolicy {snap.clusterpolicies[0].metadata.name}"
    if snap.nvidiadrivers:
        return f"NVIDIADriver {snap.nvidiadrivers[0].metadata.name}"
    for ds in snap.daemonsets:
        if any(o.kind in OPERATOR_OWNERS for o in ds.metadata.owner_references):
            return f"DaemonSet {ds.metadata.name} owned by the operator"
    for d in snap.deployments:
        if d.metadata.name == OPERATOR_DEPLOYMENT:
            return f"Deployment {d.metadata.namespace}/{d.metadata.name}"
    for n in snap.nodes:
        if any(k.startswith(DEPLOY_LABEL_PREFIX) for k in n.metadata.labels):
            return f"node {n.metadata.name} operand deploy labels"
    return None


def device_plugin_daemonsets(snap: Snapshot) -> list[DaemonSet]:
    """DaemonSets running a device plugin, the operator's or any other (NVIDIA's static
    manifest and helm chart, GKE's ``nvidia-gpu-device-plugin``): by name."""
    return [ds for ds in snap.daemonsets if "device-plugin" in ds.metadata.name]


def operator_absent(snap: Snapshot) -> bool:
    """True only on evidence that the GPU Operator does not run here (seed §1 describes the
    stack it deploys; clusters also run the device plugin alone — its static manifest or helm
    chart, NVIDIA/k8s-device-plugin@v0.17.1:deployments/ — on hosts whose image carries driver
    and toolkit, as EKS's and Bottlerocket's NVIDIA images do): nothing of the operator is
    seen, and either its ClusterPolicy list was read (empty, or its CRD not served: 404) or a
    device plugin DaemonSet it does not own serves the GPUs."""
    def compute() -> bool:
        if operator_evidence(snap) is not None:
            return False
        st = snap.state(Input.CLUSTERPOLICIES)
        if st.collected or "404" in st.reason:
            return True
        return bool(device_plugin_daemonsets(snap))

    return bool(memo(snap, "operator-absent", compute))


def operator_may_run(snap: Snapshot) -> bool:
    """``applies`` for the operator's own checks: everywhere but where it is provably absent."""
    return not operator_absent(snap)


#: NVIDIA's device plugin image (nvcr.io/nvidia/k8s-device-plugin): its containers get their
#: GPUs through the NVIDIA runtime or CDI, so it needs the containerd ``nvidia`` handler
NVIDIA_PLUGIN_IMAGE = "k8s-device-plugin"


def plugins_inject_devices(snap: Snapshot) -> bool:
    """True where GPUs reach containers without any NVIDIA runtime: the operator is absent and
    every device plugin DaemonSet runs a plugin other than NVIDIA's — GKE's answers Allocate
    with the device nodes and the driver's mounts itself
    (GoogleCloudPlatform/container-engine-accelerators@v1.0.20:pkg/gpu/nvidia/beta_plugin.go),
    so its nodes' containerd has no ``nvidia`` handler and needs none."""
    if not operator_absent(snap):
        return False
    plugins = device_plugin_daemonsets(snap)
    return bool(plugins) and not any(NVIDIA_PLUGIN_IMAGE in c.image for ds in plugins
                                     for c in ds.spec.template.spec.containers)


def gfd_expected(snap: Snapshot) -> bool:
    """GPU Feature Discovery's labels are expected where the operator may run (it deploys GFD)
    or a GFD DaemonSet of its own exists (the device plugin's helm chart can deploy one,
    NVIDIA/k8s-device-plugin@v0.17.1:deployments/helm/nvidia-device-plugin/values.yaml
    ``gfd.enabled``)."""
    return operator_may_run(snap) or any("gpu-feature-discovery" in ds.metadata.name
                                         for ds in snap.daemonsets)


@dataclass(frozen=True, slots=True)
class Coverage:
    """Why a DaemonSet does or does not place a pod on a node."""

    selector_missing: tuple[tuple[str, str, str | None], ...]  # (key, wanted, actual)
    untolerated: tuple[Taint, ...]
    affinity_excluded: bool = False  # the template's required node affinity does not match

    @property
    def meant_for(self) -> bool:
        """The template's nodeSelector and required node affinity select the node (the
        controller's ``fitsNodeAffinity``): only then can a taint be what keeps it away."""
        return not self.selector_missing and not self.affinity_excluded

    @property
    def covered(self) -> bool:
        return self.meant_for and not self.untolerated


def daemon_pod_tolerations(ds: DaemonSet) -> list[object]:
    """The template's tolerations plus those the DaemonSet controller adds to daemon pods."""
    spec = ds.spec.template.spec
    extra: tuple[Toleration, ...] = DAEMON_POD_TOLERATIONS
    if spec.host_network:
        extra = (*extra, HOST_NETWORK_TOLERATION)
    return [*spec.tolerations, *extra]


def coverage(ds: DaemonSet, node: Node) -> Coverage:
    labels = node.metadata.labels
    spec = ds.spec.template.spec
    missing = tuple((k, v, labels.get(k)) for k, v in spec.node_selector.items()
                    if labels.get(k) != v)
    tols = daemon_pod_tolerations(ds)
    taints = tuple(t for t in node.spec.taints if t.effect in BLOCKING_EFFECTS
                   and not tolerates(tols, t))
    return Coverage(missing, taints, not required_affinity_matches(spec.affinity, node))


def node_coverage(snap: Snapshot, ds: DaemonSet, node: Node) -> Coverage:
    """:func:`coverage`, computed once per DaemonSet for the nodes that look the same to it:
    the same values of its nodeSelector's keys and the same taints (and, where its template
    has an affinity, which may read any label or the name, only for the node itself). A
    fleet's GPU nodes look alike to each operand DaemonSet, and the label and taint checks
    asked every one of ~8 DaemonSets about every GPU node (52k calls on 4k nodes)."""
    by_node: dict[str, Coverage] = memo(snap, ("ds-coverage-node", id(ds)), dict)
    name = node.metadata.name
    cov = by_node.get(name)
    if cov is not None and node is snap.node_by_name.get(name):
        return cov  # asked before (GX401 and GX402 both ask)
    spec = ds.spec.template.spec
    table: dict[Hashable, Coverage] = memo(snap, ("ds-coverage", id(ds)), dict)
    labels = node.metadata.labels
    key = (tuple([labels.get(k) for k in spec.node_selector]),
           tuple([(t.key, t.value, t.effect) for t in node.spec.taints]),
           name if spec.affinity else None)
    cov = table.get(key)
    if cov is None:
        cov = table[key] = coverage(ds, node)
    if node is snap.node_by_name.get(name):
        by_node[name] = cov
    return cov


def matches_by_code(snap: Snapshot, code: str) -> dict[tuple[str, str], list[PodMatch]]:
    """:func:`pod_matches` of the pods with a match whose primary cause has ``code``, only
    those matches, in the same order: computed for every code in one pass (the signature
    checks each filtered every pod's matches for their own code)."""
    def compute() -> dict[str, dict[tuple[str, str], list[PodMatch]]]:
        out: dict[str, dict[tuple[str, str], list[PodMatch]]] = {}
        for key, ms in pod_matches(snap).items():
            for m in ms:
                out.setdefault(CAUSE_BY_ID[m.match.signature.primary].code, {}).setdefault(
                    key, []).append(m)
        return out

    return memo(snap, "pod-matches-by-code", compute).get(code, {})


@functools.lru_cache(maxsize=8)
def pod_matches(snap: Snapshot) -> dict[tuple[str, str], list[PodMatch]]:
    """Signature matches per bound pod, for pods that show any trouble or have logs collected.

    A Running, ready pod without events or logs has nothing to scan, which keeps this linear
    in what the bundle actually holds about failures.
    """
    keys = {(ns, p) for (ns, p, _c) in snap.logs}
    keys |= {(ns, name) for (kind, ns, name), evs in snap.events_by_object.items()
             if kind == "Pod" and any(e.type != "Normal" for e in evs)}
    pods = list(runtime_scan(snap).troubled)  # bound, not Succeeded, not ready or restarted
    seen = {id(p) for p in pods}
    for key in sorted(keys):
        pod = snap.pod_by_key.get(key)
        # gate 2 only concerns pods bound to a node (seed §4)
        if pod is not None and pod.spec.node_name and id(pod) not in seen:
            pods.append(pod)
            seen.add(id(pod))
    out: dict[tuple[str, str], list[PodMatch]] = {}
    for pod, ms in zip(pods, scan_pods(snap, pods), strict=True):
        if ms:
            out[(pod.metadata.namespace or "default", pod.metadata.name)] = ms
    return out
