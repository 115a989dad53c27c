"""Answer "why does this pod get no GPU?" by walking seed §4's tree to its deepest failing leaf.

§4: the pod object does not exist → admission (quota, missing RuntimeClass, invalid quantity);
it exists but ``spec.nodeName`` is empty → gate 1 (``engines/gate1.py``); it is bound → gate 2, the
runtime (``diagnose/runtime.py``). ``deploy/NAME``, ``job/NAME``, ``sts/NAME`` start from the
controller when no pod was created. Every step records pass/fail/unknown with its evidence.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any

from gpuxray.engines import gate1
from gpuxray.engines.admission import spec_gpu_problems
from gpuxray.engines.capacity import gpu_requests, is_terminal
from gpuxray.errors import UsageError
from gpuxray.model.diagnosis import Diagnosis
from gpuxray.model.factory import fail
from gpuxray.model.finding import Finding, Severity, Status, Subject
from gpuxray.model.k8s import Pod, Workload
from gpuxray.model.snapshot import Input, Snapshot

KIND_ALIASES = {
    "deploy": "Deployment", "deployment": "Deployment", "deployments": "Deployment",
    "job": "Job", "jobs": "Job",
    "sts": "StatefulSet", "statefulset": "StatefulSet", "statefulsets": "StatefulSet",
    "rs": "ReplicaSet", "replicaset": "ReplicaSet", "replicasets": "ReplicaSet",
    "pod": "Pod", "pods": "Pod", "po": "Pod",
}


def parse_target(target: str, namespace: str | None) -> tuple[str, str, str]:
    """``NS/POD``, ``POD`` (with -n), ``deploy/NAME``, ``deploy/NS/NAME`` → (kind, ns, name)."""
    parts = [p for p in target.strip().split("/")]
    if not target.strip() or any(not p for p in parts) or len(parts) > 3:
        raise UsageError(f"cannot read target {target!r}: use NS/POD, POD -n NS or deploy/NAME")
    if parts[0].lower() in KIND_ALIASES and len(parts) >= 2:
        kind = KIND_ALIASES[parts[0].lower()]
        rest = parts[1:]
    else:
        kind = "Pod"
        rest = parts
    if len(rest) == 2:
        return kind, rest[0], rest[1]
    if len(rest) == 1:
        return kind, namespace or "default", rest[0]
    raise UsageError(f"cannot read target {target!r}: use NS/POD, POD -n NS or deploy/NAME")


def _related_findings(snap: Snapshot, codes: tuple[str, ...],
                      keep: Callable[[Finding], bool]) -> list[Finding]:
    from gpuxray.checks.registry import all_checks, run_check

    checks = all_checks()
    out: list[Finding] = []
    for code in codes:
        spec = checks.get(code)
        if spec is None or snap.missing(spec.needs):
            continue
        out.extend(f for f in run_check(spec, snap) if keep(f))
    return out


def why(snap: Snapshot, target: str, namespace: str | None = None) -> Diagnosis:
    kind, ns, name = parse_target(target, namespace)
    if kind == "Pod":
        if not snap.has(Input.PODS):
            st = snap.state(Input.PODS)
            raise UsageError(f"cannot look up pod {ns}/{name}: {st.source} {st.reason}")
        pod = snap.find_pod(ns, name)
        if pod is None:
            raise UsageError(f"pod {ns}/{name} not found in {snap.origin}; if no pod was "
                             f"created, ask about its controller (deploy/NAME, job/NAME)")
        return why_pod(snap, pod)
    return why_workload(snap, kind, ns, name)


def log_nodes(snap: Snapshot, target: str, namespace: str | None) -> set[str] | None:
    """The nodes whose operand logs ``why(snap, target)`` can read, from a snapshot without
    logs (a live source then reads only those, not every operand container of the fleet).

    A pod's answer reads logs only where its walk reaches nodes: a bound pod's gate 2 walks its
    own node; a pending pod's GX202/GX203 verdict continues onto the nodes it names
    (``_node_causes``); any other verdict reads none. A controller target, or a snapshot that
    cannot say, gets None: every log. Kept in step with ``why_pod`` by a test comparing the
    answers with every log and with these."""
    try:
        kind, ns, name = parse_target(target, namespace)
    except UsageError:
        return set()
    if kind != "Pod":
        return None
    if not snap.has(Input.PODS):
        return set()
    pod = snap.find_pod(ns, name)
    if pod is None or is_terminal(pod):
        return set()
    if pod.spec.resource_claims:
        return None  # the DRA branch (dra_gate1/dra_gate2) is not scoped here: every log
    if pod.spec.node_name:
        return {pod.spec.node_name}
    verdict = gate1.walk(snap, pod).verdict
    if verdict is None or verdict.code not in ("GX202", "GX203"):
        return set()
    raw = verdict.params.get("node_list") or verdict.params.get("nodes") or []
    return {str(n) for n in raw} if isinstance(raw, (list, tuple, set)) else None


def focus_pod(target: str, namespace: str | None) -> tuple[str, str] | None:
    """(namespace, name) of the pod ``why`` asks about; None for a controller target."""
    try:
        kind, ns, name = parse_target(target, namespace)
    except UsageError:
        return None
    return (ns, name) if kind == "Pod" else None


def core_enough(snap: Snapshot, target: str, namespace: str | None) -> bool:
    """Whether ``why(snap, target)`` reads of the pods other than the target nothing but
    their :class:`~gpuxray.model.k8s.PodCore` fields (names, node, phase, resources), given a
    snapshot whose other pods are only that: decoding 100k whole pods costs ~1.3× their core,
    and a pending pod's gate-1 walk needs each node's sums, not the other pods' statuses.

    True for a terminal pod (its answer stops there) and for a pending pod whose gate-1
    verdict is not GX202/GX203 (those go on to the node checks, which read operand pods
    whole); a pending pod's claims are walked over ResourceClaims and ResourceSlices, which
    read no other pod either. Such an answer reads no log. A bound pod goes on to gate 2,
    which reads whole pods. Kept honest by tests comparing the answers from such a snapshot
    with those from whole pods (every pod of several scenarios, every gate-1 and DRA case)."""
    key = focus_pod(target, namespace)
    if key is None or not snap.has(Input.PODS):
        return False
    pod = snap.find_pod(*key)
    if not isinstance(pod, Pod):
        return False
    if is_terminal(pod):
        return True
    if pod.spec.node_name:
        return False
    if pod.spec.resource_claims and not gpu_requests(pod):
        return True  # the DRA walk's answer is the whole answer (``why_pod``)
    verdict = gate1.walk(snap, pod).verdict
    return verdict is None or verdict.code not in ("GX202", "GX203")


def why_pod(snap: Snapshot, pod: Pod, diag: Diagnosis | None = None) -> Diagnosis:
    ns = pod.metadata.namespace or "default"
    d = diag or Diagnosis(f"{ns}/{pod.metadata.name}", ns, pod.metadata.name)
    subj = Subject("Pod", pod.metadata.name, ns)
    d.phase = pod.status.phase or ""
    d.add("pod object exists", "pass", f"phase {pod.status.phase}",
          [snap.ev(Input.PODS, f"{subj}: phase={pod.status.phase}")])
    if is_terminal(pod):
        d.add("pod is not terminal", "info", f"phase {pod.status.phase}: it holds no GPU")
        d.conclusion = f"the pod has finished ({pod.status.phase}); it holds no GPU now"
        return d
    problems = spec_gpu_problems(pod.spec)
    if problems:
        c, p = problems[0]
        ev = [snap.ev(Input.PODS, f"{subj} container {cn}: {pp}") for cn, pp in problems]
        d.add("GPU quantities valid", "fail", p, ev)
        d.verdict = fail("GX103", subj, ev, container=c, problem=p)
        return d
    if pod.spec.runtime_class_name:
        rc = pod.spec.runtime_class_name
        if not snap.has(Input.RUNTIMECLASSES):
            d.add(f"RuntimeClass {rc!r} defined", "unknown",
                  f"{snap.source(Input.RUNTIMECLASSES)} not collected")
        elif rc not in snap.runtimeclass_by_name:
            ev = [snap.ev(Input.PODS, f"{subj}: runtimeClassName={rc}"),
                  snap.ev(Input.RUNTIMECLASSES,
                          f"defined: {sorted(snap.runtimeclass_by_name) or 'none'}")]
            d.add(f"RuntimeClass {rc!r} defined", "fail", "no RuntimeClass of that name", ev)
            d.verdict = fail("GX102", subj, ev, runtime_class=rc)
            return d
        else:
            d.add(f"RuntimeClass {rc!r} defined", "pass",
                  f"handler {snap.runtimeclass_by_name[rc].handler!r}")
    if pod.spec.resource_claims:
        if _why_claims(snap, pod, d):
            return d
        if not gpu_requests(pod):
            if not pod.spec.node_name:
                return d
            return _after_gate1(snap, pod, d)
    g = gate1.walk(snap, pod)
    d.path.extend(g.steps)
    if g.verdict is not None:
        d.verdict = g.verdict
        _node_causes(snap, d, g.verdict)
        _root_cause(d)
        return d
    if g.conclusion:
        d.conclusion = g.conclusion
    if not pod.spec.node_name:
        return d
    return _after_gate1(snap, pod, d)


def _why_claims(snap: Snapshot, pod: Pod, d: Diagnosis) -> bool:
    """The DRA branch: gate 1 over ResourceSlices, then the driver's prepare step (gate 2).
    True when it reached a verdict or a final conclusion. Its engines (and the CEL they
    load) are imported for a pod with claims only: ~15 ms of a plain pod's answer."""
    from gpuxray.engines import dra_gate1, dra_gate2

    g = dra_gate1.walk(snap, pod)
    d.path.extend(g.steps)
    if g.verdict is not None:
        d.verdict = g.verdict
        _root_cause(d)
        return True
    if not pod.spec.node_name:
        if g.conclusion:
            d.conclusion = g.conclusion
        return not gpu_requests(pod)
    result, detail, verdict = dra_gate2.walk(snap, pod)
    d.add("gate 2: DRA driver prepared the claims (NodePrepareResources, CDI)", result,
          detail, verdict.evidence if verdict else ())
    if verdict is not None:
        d.verdict = verdict
        _root_cause(d)
        return True
    return False


def _after_gate1(snap: Snapshot, pod: Pod, d: Diagnosis) -> Diagnosis:
    walker = _runtime_walker()
    if walker is None:
        d.add("gate 2: runtime injection", "unknown", "runtime checks not available")
        return d
    verdict = walker(snap, pod, d)
    if verdict is not None and verdict.code == "GX303" and pod.spec.resource_claims:
        verdict = None  # a ResourceClaim is the pod's GPU request: DRA needs no GPU limit
    if verdict is not None:
        d.verdict = verdict
        _root_cause(d)
    elif not gpu_requests(pod) and not pod.spec.resource_claims and not d.conclusion:
        d.conclusion = "the pod requests no GPU"
    return d


# Node-level causes that make a node stop advertising or mark devices unhealthy (§2, §3, §5).
NODE_CAUSES = ("GX411", "GX301", "GX307", "GX501", "GX509", "GX502", "GX403", "GX401", "GX402",
               "GX404", "GX405", "GX407", "GX413", "GX505", "GX506", "GX507", "GX604", "GX302",
               "GX412", "GX414")


def _node_causes(snap: Snapshot, d: Diagnosis, verdict: Finding) -> None:
    """Gate 1 says *that* GPUs are missing on some nodes; the node checks say *why*.

    For GX202/GX203 the walk continues onto the nodes the verdict names, so the seed's §5 chain
    (drop-in → handler gone → plugin cannot start → capacity 0) reaches the user in one answer.
    """
    if verdict.code not in ("GX202", "GX203"):
        return
    from gpuxray.diagnose.incidents import node_keys

    raw = verdict.params.get("node_list") or verdict.params.get("nodes") or []
    nodes = {str(n) for n in raw} if isinstance(raw, (list, tuple, set)) else set()
    if not nodes:
        return
    found = _related_findings(
        snap, NODE_CAUSES,
        lambda f: f.status == Status.FAIL and bool(node_keys(f) & nodes))
    if not found:
        d.add("why those nodes lack GPUs (node checks)", "unknown" if not snap.hosts else "pass",
              "no node-level cause found" + ("" if snap.hosts else
                                             "; host files were not collected"))
        return
    order = {c: i for i, c in enumerate(NODE_CAUSES)}
    found.sort(key=lambda f: (order.get(f.code, 99), f.subject.name))
    by_node: dict[str, list[str]] = {}
    first_of_code: dict[str, Finding] = {}
    for f in found:
        for n in sorted(node_keys(f) & nodes):
            codes = by_node.setdefault(n, [])
            if f"{f.code} {f.name}" not in codes:
                codes.append(f"{f.code} {f.name}")
        first_of_code.setdefault(f.code, f)
    d.add("why those nodes lack GPUs (node checks)", "fail",
          "; ".join(f"{n}: {', '.join(c)}" for n, c in sorted(by_node.items())),
          [f.evidence[0] for f in list(first_of_code.values())[:4] if f.evidence])
    d.related.extend(found)


def _root_cause(d: Diagnosis) -> None:
    """Follow the causal model (``knowledge/causal.py``) from the verdict down through the
    findings the walk gathered, to the root that explains it: the verdict says why the pod
    waits, the root says what to fix."""
    if d.verdict is None or not d.related:
        return
    from gpuxray.diagnose.incidents import build_incidents

    for inc in build_incidents([d.verdict, *d.related], min_severity=Severity.INFO):
        if any(f is d.verdict for f in inc.effects):
            d.root_cause = inc.root
            d.root_nodes = list(inc.root_nodes)
            return


def _runtime_walker() -> Callable[[Snapshot, Pod, Diagnosis], Finding | None] | None:
    try:
        mod = importlib.import_module("gpuxray.diagnose.runtime")
    except ImportError:
        return None
    fn: Any = getattr(mod, "walk_runtime", None)
    return fn  # type: ignore[no-any-return]


def _owned_by(obj_owner_refs: list[Any], w: Workload) -> bool:
    return any(r.kind == w.kind and r.name == w.metadata.name for r in obj_owner_refs)


def why_workload(snap: Snapshot, kind: str, ns: str, name: str) -> Diagnosis:
    """Start from a controller: its pods if any exist, else the admission branch of §4."""
    d = Diagnosis(f"{kind.lower()}/{ns}/{name}", ns, name, kind=kind)
    inp = {"Deployment": Input.DEPLOYMENTS, "Job": Input.JOBS, "StatefulSet": Input.STATEFULSETS,
           "ReplicaSet": Input.REPLICASETS}[kind]
    w = snap.workload(kind, ns, name)
    subj = Subject(kind, name, ns)
    owners: list[Workload] = []
    if w is None:
        if snap.has(inp):
            raise UsageError(f"{kind.lower()} {ns}/{name} not found in {snap.origin}")
        d.add(f"{kind} exists", "unknown", f"{snap.source(inp)} not collected")
    else:
        d.add(f"{kind} exists", "pass", f"replicas {w.spec.replicas}",
              [snap.ev(inp, f"{subj}: spec.replicas={w.spec.replicas}")])
        owners.append(w)
        if kind == "Deployment":
            owners.extend(rs for rs in snap.replicasets
                          if rs.metadata.namespace == ns
                          and _owned_by(rs.metadata.owner_references, w))
    owner_names = {(o.kind, o.metadata.name) for o in owners} | {(kind, name)}
    pods = [p for p in snap.pods if (p.metadata.namespace or "default") == ns
            and any((r.kind, r.name) in owner_names for r in p.metadata.owner_references)]
    live = [p for p in pods if not is_terminal(p)]
    if live:
        pick = next((p for p in live if not p.spec.node_name), None) or next(
            (p for p in live if p.status.phase != "Running"), live[0])
        d.add("pods created", "pass", f"{len(live)} live pod(s); following {pick.metadata.name}")
        return why_pod(snap, pick, d)
    d.add("pods created", "fail" if snap.has(Input.PODS) else "unknown",
          "no live pod owned by it" if snap.has(Input.PODS) else "pods not collected")
    subjects = {Subject(o.kind or kind, o.metadata.name, ns) for o in owners} | {subj}
    template_subjects = {subj}

    def mine(f: Finding) -> bool:
        return f.status == Status.FAIL and (f.subject in subjects or f.subject in template_subjects)

    for code, step in (("GX101", "ResourceQuota admits the pods"),
                       ("GX102", "RuntimeClass defined"),
                       ("GX103", "GPU quantities valid")):
        found = _related_findings(snap, (code,), mine)
        if found:
            d.add(step, "fail", found[0].message, found[0].evidence)
            d.verdict = found[0]
            return d
        d.add(step, "pass" if _inputs_for(snap, code) else "unknown",
              "" if _inputs_for(snap, code) else "evidence not collected")
    creates = [e for o in subjects for e in snap.events_for(o.kind, ns, o.name)
               if e.reason == "FailedCreate"]
    if creates:
        d.add("controller's FailedCreate events", "info", creates[-1].message,
              [snap.ev(Input.EVENTS, f"{creates[-1].when} {creates[-1].message}")])
    d.conclusion = "no admission cause found for the missing pods"
    return d


def _inputs_for(snap: Snapshot, code: str) -> bool:
    from gpuxray.checks.registry import all_checks

    spec = all_checks().get(code)
    return spec is not None and not snap.missing(spec.needs)
