"""One walk over a fleet's pods for the per-pod facts several checks filter on.

A cluster has 100k+ pods, and three questions are asked of every one of them: does it name a
GPU resource (gate-1 accounting, seed §2), does it show GPU intent (the variable or an
annotation, seed §4 "limits missing"), is it in trouble (signature triage, seed §4)? Asked by
three separate walks they cost about half again what one walk answering all three costs, and
the answers narrow each check to a few percent of the fleet. Each list is a screen: the check
that reads it still applies its exact rule.
"""

from __future__ import annotations

from dataclasses import dataclass

from gpuxray.model.k8s import Pod
from gpuxray.model.snapshot import Snapshot, memo

TERMINAL_PHASES = frozenset({"Succeeded", "Failed"})
#: what every GPU resource name (``nvidia.com/gpu``, ``nvidia.com/mig-…``) and every GPU
#: annotation this tool reads starts with
GPU_VENDOR = "nvidia.com/"
#: the toolkit's device selection variable; set without a GPU limit it is intent, not a request
#: (facts.md §2)
VISIBLE_DEVICES = "NVIDIA_VISIBLE_DEVICES"


@dataclass(frozen=True, slots=True)
class PodScan:
    # bound, not terminal, and a container's limits or requests name a ``nvidia.com/`` key (or
    # init containers / overhead, which need the full arithmetic)
    gpu_named: list[Pod]
    # bound, not terminal, and a container sets NVIDIA_VISIBLE_DEVICES or an annotation key
    # contains ``nvidia.com/``
    intent: list[Pod]
    # bound, not Succeeded, and not Running, without container statuses, or with a container
    # not ready or restarted
    troubled: list[Pod]


def pod_scan(snap: Snapshot) -> PodScan:
    """The three screens, in snapshot order, computed once per snapshot. Needs whole pods:
    a snapshot of :class:`~gpuxray.model.k8s.PodCore` has no env or statuses to read."""
    if snap.core_pods:
        raise ValueError("pod_scan needs whole pods; this snapshot holds PodCore")
    return memo(snap, "pod-scan", lambda: _scan(snap.pods))


def _scan(pods: list[Pod]) -> PodScan:
    gpu: list[Pod] = []
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
        named = bool(spec.init_containers or spec.overhead)
        wants = False
        for c in spec.containers:
            if not named:
                res = c.resources
                named = vendor in join(res.limits) or vendor in join(res.requests)
            if not wants:
                for e in c.env:
                    if e.name == env_name:
                        wants = True
                        break
        if named:
            gpu.append(pod)
        if wants or vendor in join(pod.metadata.annotations):
            intent.append(pod)
    return PodScan(gpu, intent, troubled)
