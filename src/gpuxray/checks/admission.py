"""1xx — admission: the GPU pod object was never created, or would be refused (seed §4)."""

from __future__ import annotations

from collections.abc import Iterator

from gpuxray.checks.registry import check
from gpuxray.engines.admission import (
    invalid_gpu_value,
    is_failed_create,
    parse_quota_refusal,
    runtimeclass_refused,
    spec_gpu_problems,
)
from gpuxray.model.factory import fail, unknown
from gpuxray.model.finding import CLUSTER, Finding, Subject
from gpuxray.model.k8s import PodSpec
from gpuxray.model.snapshot import Input, Snapshot

OWNER_KINDS = ("ReplicaSet", "Job", "StatefulSet", "DaemonSet", "Deployment")


def _templates(snap: Snapshot) -> Iterator[tuple[Subject, PodSpec, Input]]:
    for inp, items in ((Input.DEPLOYMENTS, snap.deployments), (Input.JOBS, snap.jobs),
                       (Input.STATEFULSETS, snap.statefulsets),
                       (Input.DAEMONSETS, snap.daemonsets)):
        for w in items:
            yield (Subject(w.kind or "Workload", w.metadata.name, w.metadata.namespace),
                   w.spec.template.spec, inp)


def _latest_failed_create(snap: Snapshot) -> Iterator[tuple[Subject, str, str]]:
    """The newest FailedCreate message per owner (older ones are history)."""
    latest: dict[Subject, tuple[str, str]] = {}
    for e in snap.events:
        if not is_failed_create(e) or e.involved_object.kind not in OWNER_KINDS:
            continue
        o = e.involved_object
        subj = Subject(o.kind, o.name, o.namespace)
        if subj not in latest or e.when >= latest[subj][0]:
            latest[subj] = (e.when, e.message)
    for subj, (when, msg) in sorted(latest.items(), key=lambda kv: str(kv[0])):
        yield subj, when, msg


@check("GX101", needs=(Input.EVENTS,))
def quota_exceeded(snap: Snapshot) -> Iterator[Finding]:
    """FailedCreate ``exceeded quota`` naming a GPU resource on a controller (seed §4)."""
    for subj, when, msg in _latest_failed_create(snap):
        q = parse_quota_refusal(msg)
        if q is None:
            continue
        gpu = q.gpu_resources()
        if not gpu:
            continue
        res = gpu[0]
        ev = [snap.ev(Input.EVENTS, f"{when} FailedCreate on {subj}: {msg}")]
        for rq in snap.resourcequotas:
            if rq.metadata.name == q.quota and rq.metadata.namespace == subj.namespace:
                ev.append(snap.ev(Input.RESOURCEQUOTAS,
                                  f"{rq.metadata.namespace}/{q.quota}: hard {res}="
                                  f"{rq.status.hard.get(res)}, used {res}="
                                  f"{rq.status.used.get(res)}"))
        yield fail("GX101", subj, ev, owner=str(subj), quota=q.quota, resource=res,
                   requested=q.requested.get(res, "?"), used=q.used.get(res, "?"),
                   limit=q.limited.get(res, "?"))


@check("GX102", needs=(Input.PODS,))
def runtimeclass_missing(snap: Snapshot) -> Iterator[Finding]:
    """A ``runtimeClassName`` that no RuntimeClass defines: the API server refuses the pod (§4).

    Without the RuntimeClass list the check can only decide when nothing names a class.
    """
    # the names no RuntimeClass defines (a fleet's pods name ``nvidia`` by the ten thousand:
    # a subject is made only for those that fail), and whether any name one at all
    has_classes = snap.has(Input.RUNTIMECLASSES)
    defined = snap.runtimeclass_by_name if has_classes else {}
    any_named = False
    named: list[tuple[Subject, str, Input]] = []
    for pod in snap.runtime_class_pods:
        rc = pod.spec.runtime_class_name
        if rc and pod.status.phase not in ("Succeeded", "Failed"):
            any_named = True
            if has_classes and rc not in defined:
                named.append((Subject("Pod", pod.metadata.name, pod.metadata.namespace), rc,
                              Input.PODS))
    for subj, spec, inp in _templates(snap):
        if spec.runtime_class_name:
            any_named = True
            if has_classes and spec.runtime_class_name not in defined:
                named.append((subj, spec.runtime_class_name, inp))
    refused = [(subj, when, msg, name) for subj, when, msg in _latest_failed_create(snap)
               for name in [runtimeclass_refused(msg)] if name]
    if not has_classes:
        if any_named or refused:
            st = snap.state(Input.RUNTIMECLASSES)
            yield unknown("GX102", CLUSTER, st.source, st.reason)
        return
    defined_ev = snap.ev(Input.RUNTIMECLASSES, f"defined: {sorted(defined) or 'none'}")
    seen: set[Subject] = set()
    for subj, rc, inp in named:
        seen.add(subj)
        yield fail("GX102", subj, [snap.ev(inp, f"{subj}: runtimeClassName={rc}"),
                                   defined_ev], runtime_class=rc)
    for subj, when, msg, name in refused:
        if subj not in seen and name not in defined:
            yield fail("GX102", subj, [snap.ev(Input.EVENTS, f"{when} FailedCreate: {msg}")],
                       runtime_class=name)


@check("GX103", needs=(Input.PODS,))
def gpu_request_invalid(snap: Snapshot) -> Iterator[Finding]:
    """GPU quantities the API server refuses: fractions, requests ≠ limits (seed §2, §9).

    The API server validates a pod when it is created and its resources cannot change after,
    so a pod a scheduler has bound cannot carry one; the scan covers the pods not yet bound
    (a hand-made or webhook-mutated object), every controller's template and the refusals the
    controllers recorded as FailedCreate events.
    """
    for pod in snap.unbound_pods:
        subj = Subject("Pod", pod.metadata.name, pod.metadata.namespace)
        for container, problem in spec_gpu_problems(pod.spec):
            yield fail("GX103", subj, [snap.ev(Input.PODS, f"{subj}: {problem}")],
                       container=container, problem=problem)
    for subj, spec, inp in _templates(snap):
        for container, problem in spec_gpu_problems(spec):
            yield fail("GX103", subj, [snap.ev(inp, f"{subj} template: {problem}")],
                       container=container, problem=problem)
    if snap.has(Input.EVENTS):
        for subj, when, msg in _latest_failed_create(snap):
            for res, val, why in invalid_gpu_value(msg):
                yield fail("GX103", subj, [snap.ev(Input.EVENTS, f"{when} FailedCreate: {msg}")],
                           container="?", problem=f"{res}={val!r}: {why}")
