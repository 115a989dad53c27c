"""``why`` gate 2: the bound-pod branch of seed §4's decision tree.

```
└─ bound to a node
   ├─ no runtime for "nvidia" ........ the runtime list of containerd config dump   (GX301)
   ├─ operand stops in Init .......... logs of the earlier stage (driver, toolkit)   (GX302)
   └─ Running but nvidia-smi fails ... limits missing, driver/NVML, device access lost
                                       (GX303, GX304, GX306; create-time GX305, GX307 from the
                                       pod's events, else from the node: no CDI spec, journal)
```

Each branch is a step on the Diagnosis; the verdict is the first failing branch in this order,
because an earlier link explains the later ones (no handler → no sandbox → nothing inside runs).
Other failures found on the way are kept as related findings.
"""

from __future__ import annotations

from collections.abc import Iterable

from gpuxray.checks.registry import all_checks, run_check
from gpuxray.checks.runtime import (
    CLAIMED_BY,
    envvar_policy,
    no_gpu_problem,
    pod_subject,
    runs_nvidia_runtime,
)
from gpuxray.engines.capacity import gpu_requests
from gpuxray.engines.operator import operand_of_pod, pod_matches, policy
from gpuxray.knowledge import clusterpolicy as cpk
from gpuxray.knowledge.signatures import CAUSE_BY_ID
from gpuxray.model.diagnosis import Diagnosis
from gpuxray.model.factory import fail
from gpuxray.model.finding import Evidence, Finding, Status
from gpuxray.model.k8s import Pod
from gpuxray.model.snapshot import Input, Snapshot

MAX_EVIDENCE = 6


def _registered(snap: Snapshot, code: str) -> list[Finding] | None:
    spec = all_checks().get(code)
    if spec is None:
        return None
    return list(run_check(spec, snap))


def _pod_code_evidence(snap: Snapshot, pod: Pod, codes: Iterable[str]) -> dict[str, list[Evidence]]:
    wanted = set(codes)
    out: dict[str, list[Evidence]] = {}
    key = (pod.metadata.namespace or "default", pod.metadata.name)
    ms = pod_matches(snap).get(key, [])
    by_code: dict[str, set[Evidence]] = {}
    for m in ms:
        by_code.setdefault(CAUSE_BY_ID[m.match.signature.primary].code, set()).add(m.evidence)
    for m in ms:
        code = CAUSE_BY_ID[m.match.signature.primary].code
        if code not in wanted:
            continue
        # a line a more specific cause claims is not evidence for this one (checks/runtime.py)
        if any(m.evidence in by_code.get(other, ()) for other in CLAIMED_BY.get(code, ())):
            continue
        evs = out.setdefault(code, [])
        if m.evidence not in evs and len(evs) < MAX_EVIDENCE:
            evs.append(m.evidence)
    return out


def _step_handler(snap: Snapshot, pod: Pod, diag: Diagnosis) -> Finding | None:
    node = pod.spec.node_name
    subj = pod_subject(pod)
    rc = pod.spec.runtime_class_name
    handler = (snap.runtimeclass_by_name[rc].handler if rc and rc in snap.runtimeclass_by_name
               else rc)
    own = _pod_code_evidence(snap, pod, ("GX301",)).get("GX301", [])
    node_findings = [f for f in (_registered(snap, "GX301") or [])
                     if f.subject.kind == "Node" and f.subject.name == node]
    fails = [f for f in node_findings if f.status == Status.FAIL]
    step = "gate 2: sandbox and runtime handler"
    if own:
        diag.add(step, "fail", f"sandbox creation failed on {node}: runtime handler missing", own)
        return fail("GX301", subj, [*own, *(e for f in fails for e in f.evidence)][:MAX_EVIDENCE],
                    handler=handler or "nvidia", node=node)
    if fails and handler:
        f0 = fails[0]
        missing = str(f0.params.get("handler", "nvidia"))
        if missing == handler:
            diag.add(step, "fail", f"{node} has no {handler!r} runtime handler", f0.evidence)
            return fail("GX301", subj, f0.evidence, handler=handler, node=node)
    if fails and not handler:
        diag.add(step, "pass", f"{node} lacks the nvidia handler, but this pod uses the default "
                 "runtime (CDI injection)", fails[0].evidence[:2])
        return None
    unknowns = [f for f in node_findings if f.status == Status.UNKNOWN]
    quiet = not snap.events_for("Pod", pod.metadata.namespace, pod.metadata.name)
    if handler and unknowns and quiet:
        diag.add(step, "unknown", f"cannot tell whether {node} has the {handler!r} handler",
                 unknowns[0].evidence)
        return None
    diag.add(step, "pass", f"no sandbox/handler error for the pod on {node}")
    return None


def _step_operands(snap: Snapshot, pod: Pod, diag: Diagnosis) -> Finding | None:
    node = pod.spec.node_name
    step = "gate 2: operands on the node"
    if not snap.has(Input.PODS):
        diag.add(step, "unknown", "pods not collected")
        return None
    blocked = [f for f in (_registered(snap, "GX302") or [])
               if f.status == Status.FAIL and f.params.get("node") == node]
    if operand_of_pod(pod) is not None:
        blocked = [f for f in blocked if f.subject.name != pod.metadata.name]
    if not blocked:
        diag.add(step, "pass", f"no operand pod on {node} is waiting in Init")
        return None
    f0 = blocked[0]
    names = ", ".join(str(f.params.get("pod")) for f in blocked[:4])
    diag.add(step, "fail", f"{len(blocked)} operand pod(s) on {node} wait in Init ({names}); "
             f"stage not ready: {f0.params.get('stage')}", f0.evidence[:MAX_EVIDENCE])
    return fail("GX302", pod_subject(pod), f0.evidence[:MAX_EVIDENCE],
                **{k: v for k, v in f0.params.items()})


def _step_signatures(snap: Snapshot, pod: Pod, diag: Diagnosis, step: str,
                     codes: tuple[str, ...]) -> Finding | None:
    found = _pod_code_evidence(snap, pod, codes)
    for code in codes:
        evs = found.get(code)
        if not evs:
            continue
        line = evs[0].detail
        diag.add(step, "fail", f"{code}: {line[:200]}", evs)
        ns = pod.metadata.namespace or "default"
        return fail(code, pod_subject(pod), evs, subject_desc=f"{ns}/{pod.metadata.name}",
                    line=line[:300], detail=f"{ns}/{pod.metadata.name}: {line[:300]}",
                    node=pod.spec.node_name)
    if not snap.has(Input.EVENTS) and not snap.has(Input.LOGS):
        diag.add(step, "unknown", "neither events nor logs were collected",
                 [snap.ev(Input.EVENTS, "not collected"), snap.ev(Input.LOGS, "not collected")])
        return None
    diag.add(step, "pass", "no matching error in the pod's events, statuses or logs")
    return None


def _step_limits(snap: Snapshot, pod: Pod, diag: Diagnosis) -> Finding | None:
    step = "gate 2: GPU requested in limits"
    if pod.spec.resource_claims and not gpu_requests(pod):
        diag.add(step, "pass", "the GPU comes through ResourceClaims "
                 + ", ".join(rc.name for rc in pod.spec.resource_claims) + " (DRA)")
        return None
    if gpu_requests(pod):
        diag.add(step, "pass", "requests " + ", ".join(
            f"{k}: {v}" for k, v in sorted(gpu_requests(pod).items())))
        return None
    accept, acc_ev = envvar_policy(snap, pod.spec.node_name)
    for c in pod.spec.containers:
        problem = no_gpu_problem(pod, c, accept_envvar=accept,
                                 nvidia_runtime=runs_nvidia_runtime(snap, pod))
        if problem:
            ev = [snap.ev(Input.PODS, f"container {c.name}: limits "
                          f"{dict(c.resources.limits) or '{}'}")]
            if acc_ev is not None and any(e.name == "NVIDIA_VISIBLE_DEVICES" for e in c.env):
                ev.append(acc_ev)
            diag.add(step, "fail", f"container {c.name!r} {problem}", ev)
            return fail("GX303", pod_subject(pod), ev, container=c.name, problem=problem)
    diag.add(step, "pass", "the pod requests no GPU and shows no sign of wanting one")
    return None


def _waits_for_create(pod: Pod) -> bool:
    return any(st.state.waiting is not None and st.state.waiting.reason != "CrashLoopBackOff"
               for st in pod.status.container_statuses) or pod.status.phase == "Pending"


def _step_node_create(snap: Snapshot, pod: Pod, diag: Diagnosis) -> Finding | None:
    """No pod-level create error, but the node shows why creates fail there: no CDI spec
    generated (GX305) or the NVIDIA runtime failing in containerd's journal (GX307)."""
    node = pod.spec.node_name
    if not gpu_requests(pod) or not _waits_for_create(pod):
        return None
    step = "gate 2: the node's injection path (CDI specs, NVIDIA runtime)"
    for code in ("GX305", "GX307"):
        for f in _registered(snap, code) or []:
            if f.subject.kind != "Node" or f.subject.name != node:
                continue
            if f.status == Status.FAIL:
                if code == "GX305" and pod.spec.runtime_class_name:
                    continue  # the legacy runtime injects without CDI specs
                diag.add(step, "fail", f"{code}: {f.message}", f.evidence)
                return fail(code, pod_subject(pod), f.evidence,
                            **{**f.params, "subject_desc": f"{pod.metadata.namespace}/"
                                                           f"{pod.metadata.name}"})
            diag.add(step, "unknown", f.message, f.evidence)
            return None
    return None


def walk_runtime(snap: Snapshot, pod: Pod, diag: Diagnosis) -> Finding | None:
    """Walk §4's bound-pod branch for ``pod``; return the verdict (subject: the pod) or None."""
    if not pod.spec.node_name:
        return None
    cp = policy(snap)
    if (cp is not None and cpk.cdi_enabled(cp) and not pod.spec.runtime_class_name
            and gpu_requests(pod)):
        diag.add("gate 2: injection path", "info",
                 "CDI is enabled: the device plugin returns CDI names and containerd injects "
                 "them with the default runtime")
    verdicts: list[Finding] = []
    for fn in (_step_handler, _step_operands):
        v = fn(snap, pod, diag)
        if v is not None:
            verdicts.append(v)
    for step, codes in (("gate 2: container create (CDI / NVIDIA runtime)", ("GX305", "GX307")),
                        ("gate 2: inside the container (NVML, device access)",
                         ("GX306", "GX304"))):
        v = _step_signatures(snap, pod, diag, step, codes)
        if v is None and "GX305" in codes:
            v = _step_node_create(snap, pod, diag)
        if v is not None:
            verdicts.append(v)
    v = _step_limits(snap, pod, diag)
    if v is not None:
        verdicts.append(v)
    if not verdicts:
        return None
    diag.related.extend(verdicts[1:])
    return verdicts[0]
