"""Walks over a fleet's pods for the per-pod facts several checks filter on.

A cluster has 100k+ pods, and three questions are asked of every one of them: does it name a
GPU resource (gate-1 accounting, seed §2), does it show GPU intent (the variable or an
annotation, seed §4 "limits missing"), is it in trouble (signature triage, seed §4)? The first
is asked by every command (``capacity`` and ``why`` included) and only needs a pod's resources;
the other two are gate 2's and read env and container statuses, so they share a walk of their
own. Each list is a screen: the check that reads it still applies its exact rule.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from gpuxray.model.k8s import Pod, PodCore, PodLean, PodSpecCore
from gpuxray.model.snapshot import Snapshot, memo

TERMINAL_PHASES = frozenset({"Succeeded", "Failed"})
#: what every GPU resource name (``nvidia.com/gpu``, ``nvidia.com/mig-…``) and every GPU
#: annotation this tool reads starts with
GPU_VENDOR = "nvidia.com/"
#: the toolkit's device selection variable; set without a GPU limit it is intent, not a request
#: (facts.md §2)
VISIBLE_DEVICES = "NVIDIA_VISIBLE_DEVICES"


@dataclass(frozen=True, slots=True)
class BoundWalk:
    # bound, not terminal: what each node's scheduler arithmetic adds up
    live_by_node: dict[str, list[PodCore]]
    # of those, the pods whose containers', init containers' limits or requests or whose
    # overhead name a ``nvidia.com/`` key (:func:`names_gpu`)
    gpu_named: list[PodCore]


def bound_walk(snap: Snapshot) -> BoundWalk:
    """Gate 1's walk (seed §2), once per snapshot. Reads only PodCore fields, so ``capacity``'s
    core pods and whole pods alike; of whole pods it comes from :func:`fleet_walk`."""
    if snap.core_pods:
        return memo(snap, "bound-walk", lambda: walk_bound(snap.pods))
    return fleet_walk(snap)[0]


def walk_bound(pods: Sequence[PodCore]) -> BoundWalk:
    by_node: dict[str, list[PodCore]] = defaultdict(list)
    named: list[PodCore] = []
    vendor, terminal, join = GPU_VENDOR, TERMINAL_PHASES, "".join
    for pod in pods:
        spec = pod.spec
        node = spec.node_name
        if not node or pod.status.phase in terminal:
            continue
        by_node[node].append(pod)
        if spec.init_containers or spec.overhead:
            if names_gpu(spec):
                named.append(pod)
            continue
        for c in spec.containers:  # names_gpu, inlined for the common case
            res = c.resources
            if vendor in join(res.limits) or vendor in join(res.requests):
                named.append(pod)
                break
    return BoundWalk(dict(by_node), named)


def names_gpu(spec: PodSpecCore) -> bool:
    """Whether a container's (or an init container's) limits or requests, or the overhead, name
    a ``nvidia.com/`` key: screened in C, as most pods of a fleet name no GPU resource at all
    (a key that merely contains the vendor prefix is settled exactly by the caller). A pod
    that names none holds no GPU whatever its init containers ask: a fleet's 24k operand pods
    all have init containers, and ran the full request arithmetic for nothing."""
    vendor, join = GPU_VENDOR, "".join
    if spec.overhead and vendor in join(spec.overhead):
        return True
    for group in (spec.containers, spec.init_containers):
        for c in group:
            res = c.resources
            if vendor in join(res.limits) or vendor in join(res.requests):
                return True
    return False


@dataclass(frozen=True, slots=True)
class RuntimeScan:
    # bound, not terminal, and a container sets NVIDIA_VISIBLE_DEVICES or an annotation key
    # contains ``nvidia.com/``
    intent: list[Pod]
    # bound, not Succeeded, and not Running, without container statuses, or with a container
    # not ready or restarted
    troubled: list[Pod]


def runtime_scan(snap: Snapshot) -> RuntimeScan:
    """Gate 2's two screens, in snapshot order, computed once per snapshot. Needs whole pods:
    a snapshot of :class:`~gpuxray.model.k8s.PodCore` has no env or statuses to read."""
    if snap.core_pods:
        raise ValueError("runtime_scan needs whole pods; this snapshot holds PodCore")
    return fleet_walk(snap)[1]


@dataclass(frozen=True, slots=True)
class OtherScreens:
    # bound (any phase), the name containing ``-worker``: NFD's workers are among them
    workers: list[Pod]
    # any pod whose status.reason is set (kubelet's admission refusals say why there)
    with_reason: list[Pod]


def other_screens(snap: Snapshot) -> OtherScreens:
    """Screens of the same one pass, for the checks that would each walk every pod for a few."""
    return fleet_walk(snap)[2]


def fleet_walk(snap: Snapshot) -> tuple[BoundWalk, RuntimeScan, OtherScreens]:
    """Gate 1's and gate 2's screens, and the Snapshot's pod groupings (per node, namespace,
    key; unbound; naming a RuntimeClass), in one pass over whole pods. ``check`` asks for all
    of them, and on 100k pods each separate pass cost 0.1–0.15 s, mostly in walking the list
    and reaching each pod's spec and status again (measured: one pass 0.25 s, three 0.36 s).
    The groupings are handed to the Snapshot only when it has not built them itself yet."""
    return memo(snap, "fleet-walk", lambda: _fleet_walk(snap))


def _fleet_walk(snap: Snapshot) -> tuple[BoundWalk, RuntimeScan, OtherScreens]:
    groups = "_pod_groups" not in snap.__dict__
    by_node: dict[str, list[Pod]] = defaultdict(list)
    by_ns: dict[str, list[Pod]] = defaultdict(list)
    unbound: list[Pod] = []
    with_rc: list[Pod] = []
    by_key: dict[tuple[str, str], Pod] = {}
    live: dict[str, list[PodCore]] = defaultdict(list)
    named: list[PodCore] = []
    intent: list[Pod] = []
    troubled: list[Pod] = []
    workers: list[Pod] = []
    with_reason: list[Pod] = []
    vendor, env_name, join = GPU_VENDOR, VISIBLE_DEVICES, "".join
    # a snapshot's pods are typed Pod; a bundle read for ``check`` holds PodLean among them
    lean: type[Any] = PodLean
    for pod in snap.pods:
        spec = pod.spec
        if groups:  # exactly Snapshot._pod_groups
            meta = pod.metadata
            ns = meta.namespace or "default"
            by_ns[ns].append(pod)
            by_key[(ns, meta.name)] = pod
            if spec.runtime_class_name:
                with_rc.append(pod)
        if type(pod) is lean:
            # bound, Running with every container ready and never restarted or Succeeded, no
            # status reason, init containers, GPU intent or ``-worker`` name
            # (``sources/leanpods.py``): only the groupings, and for a Running one the node's
            # live pods and the GPU-name screen apply
            node = spec.node_name
            if groups:
                by_node[node].append(pod)
            if pod.status.phase == "Succeeded":  # as below: finished, nothing else applies
                continue
            live[node].append(pod)
            if spec.overhead:
                named.append(pod)
            else:
                for c in spec.containers:
                    res = c.resources
                    if vendor in join(res.limits) or vendor in join(res.requests):
                        named.append(pod)
                        break
            continue
        status = pod.status
        if status.reason:
            with_reason.append(pod)
        node = spec.node_name
        if not node:
            if groups:
                unbound.append(pod)
            continue
        if groups:
            by_node[node].append(pod)
        if "-worker" in pod.metadata.name:
            workers.append(pod)
        phase = status.phase
        if phase == "Succeeded":
            continue
        statuses = status.container_statuses  # troubled: not Running, or a container not
        if phase != "Running" or not statuses:  # ready or restarted
            troubled.append(pod)
        else:
            for st in statuses:
                if not st.ready or st.restart_count:
                    troubled.append(pod)
                    break
        if phase == "Failed":  # terminal: neither counted on its node nor intent
            continue
        live[node].append(pod)
        containers = spec.containers
        if spec.init_containers or spec.overhead:
            if names_gpu(spec):  # as walk_bound
                named.append(pod)
        else:
            for c in containers:  # names_gpu, inlined for the common case
                res = c.resources
                if vendor in join(res.limits) or vendor in join(res.requests):
                    named.append(pod)
                    break
        if vendor in join(pod.metadata.annotations):  # as _runtime_scan
            intent.append(pod)
            continue
        for c in containers:
            for e in c.env:
                if e.name == env_name:
                    intent.append(pod)
                    break
            else:
                continue
            break
    if groups and "_pod_groups" not in snap.__dict__:
        # the Snapshot's cached property, filled from this pass (functools.cached_property
        # reads the instance dict first)
        snap.__dict__["_pod_groups"] = (dict(by_node), dict(by_ns), unbound, with_rc, by_key)
    return (BoundWalk(dict(live), named), RuntimeScan(intent, troubled),
            OtherScreens(workers, with_reason))


def _runtime_scan(pods: list[Pod]) -> RuntimeScan:
    intent: list[Pod] = []
    troubled: list[Pod] = []
    join = "".join
    vendor, env_name, terminal = GPU_VENDOR, VISIBLE_DEVICES, TERMINAL_PHASES
    for pod in pods:
        spec = pod.spec
        if not spec.node_name:
            continue
        status = pod.status
        phase = status.phase
        if phase != "Succeeded":
            statuses = status.container_statuses
            if phase != "Running" or not statuses:
                troubled.append(pod)
            else:
                for st in statuses:
                    if not st.ready or st.restart_count:
                        troubled.append(pod)
                        break
        if phase in terminal:
            continue
        if vendor in join(pod.metadata.annotations):
            intent.append(pod)
            continue
        for c in spec.containers:
            for e in c.env:
                if e.name == env_name:
                    intent.append(pod)
                    break
            else:
                continue
            break
    return RuntimeScan(intent, troubled)
