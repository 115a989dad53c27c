"""Gate 2 for a pod with ResourceClaims: kubelet asks the DRA driver's kubelet plugin to
prepare each claim (NodePrepareResources) and passes the CDI device names it returns to the
runtime. Where that fails, kubelet records ``FailedPrepareDynamicResources`` with
``Failed to prepare dynamic resources: …`` (kubernetes/kubernetes@v1.34.0:pkg/kubelet/
kuberuntime/kuberuntime_manager.go) around the plugin's error — ``NodePrepareResources failed
for claim ns/name: …`` (pkg/kubelet/cm/dra/manager.go) or ``DRA driver X is not registered``
(pkg/kubelet/cm/dra/plugin/registry.go) — and NVIDIA's plugin wraps its own as ``error preparing
devices for claim UID: …`` (NVIDIA/k8s-dra-driver-gpu@v25.8.1:cmd/gpu-kubelet-plugin/driver.go).
A prepared claim whose CDI devices the runtime cannot resolve fails container creation with
``unresolvable CDI devices`` (containerd's CDI injection).
"""

from __future__ import annotations

import re

from gpuxray.engines.gate1 import pod_subject
from gpuxray.model.diagnosis import Result
from gpuxray.model.factory import fail
from gpuxray.model.finding import Finding
from gpuxray.model.k8s import Pod
from gpuxray.model.snapshot import Input, Snapshot

PREPARE_REASON = "FailedPrepareDynamicResources"
_PREPARE = re.compile(r"failed to prepare dynamic resources|nodeprepareresources failed|"
                      r"dra driver \S+ is not registered|"
                      r"not found in the list of registered dra plugins", re.I)
_NOT_REGISTERED = re.compile(r"dra driver (\S+) is not registered|plugin name (\S+) not found "
                             r"in the list of registered dra plugins", re.I)
_CDI = re.compile(r"unresolvable cdi devices?|cdi device injection failed", re.I)


def walk(snap: Snapshot, pod: Pod) -> tuple[Result, str, Finding | None]:
    """(step result, detail, verdict) for a bound pod with claims."""
    subject = pod_subject(pod)
    node = pod.spec.node_name
    if not snap.has(Input.EVENTS):
        return "unknown", f"{snap.source(Input.EVENTS)} not collected", None
    events = snap.events_for("Pod", pod.metadata.namespace, pod.metadata.name)
    running = any(s.state.running for s in pod.status.container_statuses)
    for e in reversed(events):
        if _CDI.search(e.message):
            if running:
                break
            ev = [snap.ev(Input.EVENTS, f"{e.when} {e.reason}: {e.message}")]
            return "fail", e.message, fail("GX309", subject, ev, node=node,
                                           detail=e.message[:400])
        if e.reason == PREPARE_REASON or _PREPARE.search(e.message):
            if running:
                break
            m = _NOT_REGISTERED.search(e.message)
            what = (f"kubelet plugin of {m[1] or m[2]} not registered on the node"
                    if m else "NodePrepareResources failed")
            ev = [snap.ev(Input.EVENTS, f"{e.when} {e.reason}: {e.message}")]
            return "fail", e.message, fail("GX308", subject, ev, node=node,
                                           detail=f"{what}: {e.message[:400]}",
                                           not_registered=bool(m))
    return "pass", "no FailedPrepareDynamicResources or CDI errors in the pod's events", None
