"""Gate 1 of seed §2 — can the scheduler place this GPU pod? — walked as §4's tree to one leaf.

The FailedScheduling line is evidence, not the answer: ``Insufficient nvidia.com/gpu`` is printed
alike for a plugin that never registered, devices gone unhealthy, and nodes truly full (§4). The
walk re-derives each node's verdict from node status and the pods bound to it, then names the
leaf that, once fixed, would let the pod schedule:

1. the resource name is advertised nowhere → GX207 when another GPU name is, else GX202;
2. the request is larger than any node can ever offer → GX205;
3. every GPU node is excluded by taints, nodeSelector or affinity → GX201;
4. among admissible nodes none has room: a node not advertising (capacity 0 / name kept after
   kubelet's 5-minute grace, facts.md §3) that would fit → GX202; a node whose capacity exceeds
   allocatable (unhealthy devices, or plugin just disconnected) that would fit → GX203; enough
   free GPUs summed over nodes but not on one → GX206; otherwise truly exhausted → GX204.
"""

from __future__ import annotations

import functools
import itertools
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

import msgspec

from gpuxray.engines.capacity import (
    GPU_PREFIXES,
    Accounting,
    Holder,
    accounting,
    gpu_requests,
    is_gpu_node_of,
    is_gpu_resource,
    label_base,
)
from gpuxray.engines.scheduling import (
    ResourceFit,
    fit_with_used,
    non_gpu_misfits,
    parse_fit_error,
    resource_fit,
)
from gpuxray.model.diagnosis import Step
from gpuxray.model.factory import fail, unknown
from gpuxray.model.finding import Evidence, Finding, Subject
from gpuxray.model.k8s import Node, Pod
from gpuxray.model.placement import (
    AFFINITY_MISMATCH,
    Admissibility,
    admissibility,
    affinity_matches,
    selector_admissibility,
)
from gpuxray.model.quantity import safe_quantity
from gpuxray.model.snapshot import Input, Snapshot, memo

MAX_LISTED = 8
MAX_HOLDERS = 64  # GX204 params.holders: the first ones; holders_total counts them all


@dataclass(slots=True)
class Gate1:
    steps: list[Step] = field(default_factory=list)
    verdict: Finding | None = None
    conclusion: str = ""

    def add(self, step: str, result: str, detail: str = "",
            evidence: list[Evidence] | tuple[Evidence, ...] = ()) -> None:
        self.steps.append(Step(step, result, detail, tuple(evidence)))  # type: ignore[arg-type]


def pod_subject(pod: Pod) -> Subject:
    return Subject("Pod", pod.metadata.name, pod.metadata.namespace or "default")


def _names(nodes: list[str]) -> str:
    shown = ", ".join(nodes[:MAX_LISTED])
    return shown + (f" (+{len(nodes) - MAX_LISTED} more)" if len(nodes) > MAX_LISTED else "")


def _node_ev(snap: Snapshot, node: Node, resource: str) -> Evidence:
    cap = node.status.capacity.get(resource)
    alloc = node.status.allocatable.get(resource)
    if cap is None and alloc is None:
        detail = f"{node.metadata.name}: status.capacity has no {resource}"
    else:
        detail = (f"{node.metadata.name}: status.capacity[{resource}]={cap}, "
                  f"status.allocatable[{resource}]={alloc}")
    return snap.ev(Input.NODES, detail)


def _expected(node: Node, resource: str) -> int | None:
    """What the node should advertise per its GFD labels: count × replicas (facts.md §6.2)."""
    labels = node.metadata.labels
    base = label_base(resource)
    try:
        count = int(labels[f"{base}.count"])
    except (KeyError, ValueError):
        return None
    try:
        replicas = int(labels.get(f"{base}.replicas", "1") or "1")
    except ValueError:
        replicas = 1
    return count * max(replicas, 1)


def _last_scheduling_event(snap: Snapshot, pod: Pod) -> Evidence | None:
    """The pod's last FailedScheduling event (oldest first), as evidence: the one line the walk
    shows; the earlier ones of a pending pod are not turned into evidence only to be dropped."""
    last = None
    for e in snap.events_for("Pod", pod.metadata.namespace, pod.metadata.name):
        if e.reason == "FailedScheduling":
            last = e
    if last is None:
        return None
    return snap.ev(Input.EVENTS, f"{last.when} FailedScheduling: {last.message}")


@functools.lru_cache(maxsize=4096)
def _fit_detail(message: str) -> str:
    """The step's detail for one FailedScheduling message: the pods of one job repeat one
    message, so its reasons are parsed, sorted and joined once per message."""
    fit = parse_fit_error(message)
    return (", ".join(f"{n} × {r}" for r, n in sorted(fit.reasons.items()))
            if fit else message[:200])


@functools.lru_cache(maxsize=1024)
def _requests_text(reqs: tuple[tuple[str, int], ...]) -> str:
    return ", ".join(f"{k}={v}" for k, v in reqs)


def walk(snap: Snapshot, pod: Pod, reqs: dict[str, int] | None = None) -> Gate1:
    """Gate 1 for one pod; ``reqs`` is its :func:`gpu_requests` where the caller has it."""
    g = Gate1()
    subject = pod_subject(pod)
    if reqs is None:
        reqs = gpu_requests(pod)
    if not reqs:
        g.add("pod requests a GPU", "info",
              "no nvidia.com/* GPU resource in requests or limits: gate 1 has nothing to check")
        return g
    ordered = sorted(reqs.items())
    text = _requests_text(tuple(ordered))
    g.add("pod requests a GPU", "pass", text,
          [snap.ev(Input.PODS, f"{subject}: effective request {text}")])
    if pod.spec.node_name:
        g.add("gate 1: scheduled to a node", "pass", f"spec.nodeName={pod.spec.node_name}",
              [snap.ev(Input.PODS, f"{subject}: spec.nodeName={pod.spec.node_name}")])
        return g
    event = _last_scheduling_event(snap, pod)
    if event is not None:
        g.add("FailedScheduling event (one line; ambiguous on its own)", "info",
              _fit_detail(event.detail.split("FailedScheduling: ", 1)[-1]), [event])
    elif snap.has(Input.EVENTS):
        g.add("FailedScheduling event", "info",
              "none found (events expire after about an hour); deciding from node status")
    else:
        g.add("FailedScheduling event", "unknown", f"{snap.source(Input.EVENTS)} not collected")
    if not snap.has(Input.NODES):
        st = snap.state(Input.NODES)
        g.add("node status", "unknown", f"{st.source}: {st.reason}")
        g.verdict = unknown("GX202", subject, st.source, st.reason)
        return g
    if not snap.has(Input.PODS):
        g.add("GPUs already bound to pods", "unknown", f"{snap.source(Input.PODS)} not collected")
    for res, qty in ordered:
        if _walk_resource(snap, pod, res, qty, g, subject):
            return g
    return g


@dataclass(frozen=True, slots=True)
class ResourceView:
    """What every pending pod asking for ``resource`` sees the same: computed once per snapshot,
    so a thousand pending pods cost one pass over the nodes, not a thousand (bench/)."""

    advertising: list[Node]
    gpu_nodes: list[Node]
    largest: int
    others: list[str]  # other GPU resource names advertised somewhere
    dra_only: list[str] = field(default_factory=list)  # GPU nodes serving DRA devices only


def resource_view(snap: Snapshot, res: str) -> ResourceView:
    return memo(snap, ("gate1-view", res), lambda: _resource_view(snap, res))


def _resource_view(snap: Snapshot, res: str) -> ResourceView:
    """One pass over the nodes: a node naming ``res`` in its capacity is a GPU node of it (and
    advertises it when the capacity is above 0); another GPU node is one unless it serves its
    GPUs through DRA only."""
    advertising: list[Node] = []
    gpu_nodes: list[Node] = []
    dra_only: list[str] = []
    for n in snap.nodes:
        cap = n.status.capacity
        if res in cap:
            gpu_nodes.append(n)
            if safe_quantity(cap[res]) > 0:
                advertising.append(n)
        elif is_gpu_node_of(snap, n):
            if _serves_dra_only(snap, n):
                dra_only.append(n.metadata.name)
            else:
                gpu_nodes.append(n)
    largest = 0
    others: set[str] = set()
    for n in gpu_nodes:
        status = n.status
        largest = max(largest, int(_exact(safe_quantity(status.capacity.get(res)))),
                      int(_exact(safe_quantity(status.allocatable.get(res)))),
                      _expected(n, res) or 0)
        for k, v in status.capacity.items():
            if k != res and k.startswith(GPU_PREFIXES) and safe_quantity(v) > 0:
                others.add(k)
    return ResourceView(advertising, gpu_nodes, largest, sorted(others), dra_only)


def _serves_dra_only(snap: Snapshot, node: Node) -> bool:
    """GPU nodes that hand out GPUs through DRA (engines/dra.py) are not nodes whose device
    plugin is missing: a pod asking ``nvidia.com/gpu`` is told they serve ResourceClaims."""
    if not snap.resourceslices and not any(k.endswith("dra-driver") for k in
                                           node.metadata.labels):
        return False
    from gpuxray.engines.dra import serves_gpus_through_dra

    return serves_gpus_through_dra(snap, node)


class AdmissionTable(Mapping[str, Admissibility]):
    """Admissibility of each GPU node for one pod shape, as a mapping in node order, with the
    admissible nodes (``candidates``) known up front.

    Built so that shapes differing only in their required node affinity — DaemonSet-like pods,
    each pinned to its own node — cost O(their nodes), not O(fleet): a pin by
    ``metadata.name`` is looked up instead of matched node by node, and only the pinned nodes
    are put through the cordon, taint and nodeSelector filters; the fleet-wide table of those
    filters (``base``, shared by every shape with the same tolerations and selector) is built
    only for a shape that is not pinned, or when someone iterates the entries (the GX201 path,
    where no node admits the pod). Entries equal ``admissibility(pod, node)``.
    """

    def __init__(self, pod: Pod, nodes: list[Node],
                 base: Callable[[], dict[str, Admissibility]], order: dict[str, int]) -> None:
        self._pod, self._nodes, self._base = pod, nodes, base
        self._entries: dict[str, Admissibility] | None = None
        pinned = _pinned_names(pod)
        if pinned is None:
            table = base()
            self.candidates = [n for n in nodes
                               if table[n.metadata.name].ok and affinity_matches(pod, n)]
        else:
            self.candidates = [nodes[i] for i in sorted(order[x] for x in pinned if x in order)
                               if admissibility(pod, nodes[i], affinity=False).ok]

    def _all(self) -> dict[str, Admissibility]:
        if self._entries is None:
            ok = {n.metadata.name for n in self.candidates}
            table = self._base()
            self._entries = {
                n.metadata.name: (a if not a.ok or n.metadata.name in ok
                                  else Admissibility(n.metadata.name, "affinity",
                                                     AFFINITY_MISMATCH))
                for n in self._nodes for a in (table[n.metadata.name],)}
        return self._entries

    def __getitem__(self, name: str) -> Admissibility:
        return self._all()[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._all())

    def __len__(self) -> int:
        return len(self._nodes)


def _pinned_names(pod: Pod) -> frozenset[str] | None:
    """The node names a required node affinity pins the pod to, when every term is exactly one
    ``metadata.name In [...]`` field requirement (what the DaemonSet controller writes);
    None for any other affinity, which is then matched node by node."""
    aff = pod.spec.affinity
    req = aff.node_affinity.required_during_scheduling_ignored_during_execution \
        if aff and aff.node_affinity else None
    if req is None or not req.node_selector_terms:
        return None
    names: set[str] = set()
    for term in req.node_selector_terms:
        if term.match_expressions or len(term.match_fields) != 1:
            return None
        f = term.match_fields[0]
        if f.key != "metadata.name" or f.operator != "In":
            return None
        names.update(f.values)
    return frozenset(names)


def admissible_nodes(snap: Snapshot, pod: Pod, res: str) -> AdmissionTable:
    """Admissibility of each GPU node for ``res``, computed once per pod shape (tolerations and
    node constraints): the pods of one job or deployment share it."""
    nodes = resource_view(snap, res).gpu_nodes
    order = memo(snap, ("gate1-node-order", res),
                 lambda: {n.metadata.name: i for i, n in enumerate(nodes)})

    def base() -> dict[str, Admissibility]:
        return memo(snap, ("gate1-admit-base", _base_shape(pod), res),
                    lambda: _base_table(pod, _node_groups(snap, res)))

    return memo(snap, ("gate1-admissible", _shape(pod), res),
                lambda: AdmissionTable(pod, nodes, base, order))


def _node_groups(snap: Snapshot, res: str) -> list[list[Node]]:
    """The GPU nodes of ``res`` grouped by what the cordon and taint filters read of a node
    (``spec.unschedulable`` and its taints): a fleet's thousands of GPU nodes carry a handful
    of taint sets, so each tolerations set is matched once per group, not once per node."""
    def compute() -> list[list[Node]]:
        groups: dict[tuple[bool, tuple[tuple[str, str, str], ...]], list[Node]] = {}
        for n in resource_view(snap, res).gpu_nodes:
            spec = n.spec
            key = (spec.unschedulable, tuple((t.key, t.value, t.effect) for t in spec.taints))
            groups.setdefault(key, []).append(n)
        return list(groups.values())

    return memo(snap, ("gate1-node-groups", res), compute)


def _base_table(pod: Pod, groups: list[list[Node]]) -> dict[str, Admissibility]:
    """``admissibility(pod, n, affinity=False)`` of every node, by node name. Nodes of one group
    share the cordon and taint verdicts, their detail included (the same taints printed), so
    one node of the group is matched; the nodeSelector reads each node's labels."""
    out: dict[str, Admissibility] = {}
    selector = bool(pod.spec.node_selector)
    for members in groups:
        first = admissibility(pod, members[0], affinity=False)
        if first.reason == "unschedulable" or first.reason == "taint":
            reason, detail = first.reason, first.detail
            for n in members:
                name = n.metadata.name
                out[name] = Admissibility(name, reason, detail)
        elif selector:  # past the cordon and taints: the nodeSelector decides, node by node
            for n in members:
                out[n.metadata.name] = selector_admissibility(pod, n)
        else:
            for n in members:
                name = n.metadata.name
                out[name] = Admissibility(name, "")
    return out


def _fit_table(snap: Snapshot, res: str) -> dict[str, ResourceFit]:
    """allocatable, capacity and GPUs already bound per GPU node: the same for every pod.
    Each entry equals ``resource_fit(snap, node, res, 0)``, read here without its per-node
    look-ups of the accounting (a GPU resource's bound amount is the accounting's)."""
    def compute() -> dict[str, ResourceFit]:
        nodes = resource_view(snap, res).gpu_nodes
        zero = Fraction(0)
        if not is_gpu_resource(res):
            return {n.metadata.name: resource_fit(snap, n, res, zero) for n in nodes}
        allocated = accounting(snap).allocated
        none: dict[str, Fraction] = {}
        return {n.metadata.name: fit_with_used(
                    n, res, zero, allocated.get(n.metadata.name, none).get(res, zero))
                for n in nodes}

    return memo(snap, ("gate1-fit", res), compute)


def _free_table(snap: Snapshot, res: str) -> dict[str, int]:
    """``int(fit.free)`` per GPU node, in integers where both terms are whole (GPU counts
    are: extended resources are integers), without a Fraction per node."""
    def compute() -> dict[str, int]:
        out = {}
        for k, f in _fit_table(snap, res).items():
            a, u = f.allocatable, f.used
            out[k] = (a.numerator - u.numerator if a.denominator == 1 and u.denominator == 1
                      else int(a - u))
        return out

    return memo(snap, ("gate1-free", res), compute)


def _exact(q: Fraction) -> int | Fraction:
    """``q`` as an int when it is whole (GPU counts are): it compares and sums as ``q`` does,
    without Fraction arithmetic per node."""
    return q.numerator if q.denominator == 1 else q


def _numbers(snap: Snapshot, res: str) -> dict[str, tuple[int | Fraction, int | Fraction,
                                                         int | Fraction]]:
    """capacity, allocatable and bound GPUs (``_fit_table``) per GPU node, exact, for the
    walks that compare or sum them over every admissible node of a shape."""
    return memo(snap, ("gate1-numbers", res), lambda: {
        k: (_exact(f.capacity), _exact(f.allocatable), _exact(f.used))
        for k, f in _fit_table(snap, res).items()})


@dataclass(frozen=True, slots=True)
class _Leaf:
    """One requested resource walked for a pod *shape*: its steps, and the verdict or
    conclusion, as computed for the first pod of the shape."""

    steps: tuple[Step, ...]
    done: bool
    verdict: Finding | None
    conclusion: str
    pod_line: bool  # the verdict's and the last step's first evidence line name the pod (GX201)


def _walk_resource(snap: Snapshot, pod: Pod, res: str, qty: int, g: Gate1,
                   subject: Subject) -> bool:
    """Walk one requested resource; True when a verdict (or a final conclusion) was reached.

    Nothing of the walk reads the pod beyond its shape (tolerations, selector, affinity) and
    requests, except the subject it names: pods of one shape share one walk, and each gets it
    with its own subject (a job of 2,700 identical pods walks once, not 2,700 times)."""
    leaf = _shared_leaf(snap, pod, res, qty)
    steps, v = leaf.steps, leaf.verdict
    if v is not None and v.subject != subject:
        if leaf.pod_line:
            line = _tolerations_ev(snap, pod, subject)
            last = steps[-1]
            steps = (*steps[:-1], Step(last.step, last.result, last.detail,
                                       (line, *last.evidence[1:])))
            v = _for_subject(v, subject, (line, *v.evidence[1:]))
        else:
            v = _for_subject(v, subject, v.evidence)
    g.steps.extend(steps)
    if v is not None:
        g.verdict = v
    if leaf.conclusion:
        g.conclusion = leaf.conclusion
    return leaf.done


def _shared_leaf(snap: Snapshot, pod: Pod, res: str, qty: int) -> _Leaf:
    """The walk of one requested resource for the pod's shape and requests, once per shape."""
    key = ("gate1-leaf", _shape(pod), _requests_key(pod), res, qty)
    return memo(snap, key, lambda: _leaf(snap, pod, res, qty))


def _verdict(snap: Snapshot, pod: Pod, reqs: dict[str, int]) -> Finding | None:
    """``walk(snap, pod, reqs).verdict``, the same steps taken without writing them down: the
    checks read a pending pod's verdict only, and the steps of 4,900 pending pods (their
    evidence lines, each pod's last FailedScheduling event looked up and worded) were a
    third of gate 1 on a pending storm. ``why`` walks with :func:`walk`."""
    if not reqs or pod.spec.node_name:
        return None
    subject = pod_subject(pod)
    if not snap.has(Input.NODES):
        st = snap.state(Input.NODES)
        return unknown("GX202", subject, st.source, st.reason)
    verdict = None
    for res, qty in sorted(reqs.items()):
        leaf = _shared_leaf(snap, pod, res, qty)
        v = leaf.verdict
        if v is not None:
            if v.subject != subject:
                if leaf.pod_line:
                    v = _for_subject(v, subject, (_tolerations_ev(snap, pod, subject),
                                                  *v.evidence[1:]))
                else:
                    v = _for_subject(v, subject, v.evidence)
            verdict = v
        if leaf.done:
            break
    return verdict


def _for_subject(v: Finding, subject: Subject, evidence: tuple[Evidence, ...]) -> Finding:
    """``dataclasses.replace(v, subject=..., evidence=...)`` spelled out: it runs once per
    pending pod, and ``replace`` costs twice the constructor."""
    return Finding(v.code, v.name, v.severity, v.status, subject, v.message, evidence,
                   v.remedy, v.params, v.own)


def _tolerations_ev(snap: Snapshot, pod: Pod, subject: Subject) -> Evidence:
    return snap.ev(Input.PODS, f"{subject}: tolerations "
                   f"{[f'{t.key}:{t.operator}:{t.effect}' for t in pod.spec.tolerations]}"
                   f", nodeSelector {pod.spec.node_selector or {}}")


def _leaf(snap: Snapshot, pod: Pod, res: str, qty: int) -> _Leaf:
    g = Gate1()
    done = _walk_resource_once(snap, pod, res, qty, g)
    v = g.verdict
    return _Leaf(tuple(g.steps), done, v, g.conclusion, v is not None and v.code == "GX201"
                 and v.subject.kind == "Pod")


def _walk_resource_once(snap: Snapshot, pod: Pod, res: str, qty: int, g: Gate1) -> bool:
    subject = pod_subject(pod)
    nodes = snap.nodes
    view = resource_view(snap, res)
    advertising, gpu_nodes = view.advertising, view.gpu_nodes
    if not advertising:
        others = view.others
        if others:
            ev = [_node_ev(snap, n, o) for o in others for n in nodes
                  if o in n.status.capacity][:MAX_LISTED]
            g.add(f"{res} advertised by some node", "fail", "advertised: " + ", ".join(others), ev)
            g.verdict = fail("GX207", subject, ev, resource=res, advertised=", ".join(others),
                             requested=qty)
            return True
        absent = [n.metadata.name for n in gpu_nodes if res not in n.status.capacity]
        zero = [n.metadata.name for n in gpu_nodes if res in n.status.capacity]
        ev = [_node_ev(snap, n, res) for n in gpu_nodes][:MAX_LISTED]
        detail = (f"no node has {res} with capacity > 0; name absent on {len(absent)} GPU "
                  f"node(s), capacity 0 on {len(zero)} (plugin gone > 5 min; kubelet keeps the "
                  f"name)")
        if not gpu_nodes:
            detail = f"no node has {res} and no node is labelled as a GPU node"
        if view.dra_only:
            detail += (f"; {len(view.dra_only)} GPU node(s) serve GPUs through DRA only "
                       f"({_names(view.dra_only)}): ask for them with a ResourceClaim")
        g.add(f"{res} advertised by some node", "fail", detail, ev)
        g.verdict = fail("GX202", subject, ev, resource=res, detail=detail, absent=absent,
                         zero=zero, nodes=absent + zero, requested=qty)
        return True
    g.add(f"{res} advertised by some node", "pass",
          f"{len(advertising)} node(s) advertise {res}")

    largest = view.largest
    if qty > largest:
        ev = [_node_ev(snap, n, res) for n in advertising][:MAX_LISTED]
        g.add("request fits a single node's size", "fail",
              f"pod requests {qty}, the largest node offers {largest}", ev)
        g.verdict = fail("GX205", subject, ev, resource=res, requested=qty, largest=largest)
        return True
    g.add("request fits a single node's size", "pass", f"largest node offers {largest}")

    sig = _shape(pod)
    # a pod pinned by name (a DaemonSet's) is refused for its own node: what names that node
    # is the subject's own (Finding.own), so the pods of one DaemonSet fold into one entry
    pinned = _pinned_names(pod) is not None
    adm = admissible_nodes(snap, pod, res)
    candidates = adm.candidates
    if not candidates:
        by_reason: dict[str, list[str]] = {}
        for name, a in adm.items():
            by_reason.setdefault(f"{a.reason}: {a.detail}", []).append(name)
        reasons = "; ".join(f"{_names(v)} — {k}" for k, v in sorted(by_reason.items()))
        ev = [snap.ev(Input.NODES, f"{a.node}: {a.reason} ({a.detail})") for a in adm.values()]
        ev.insert(0, _tolerations_ev(snap, pod, subject))
        g.add("GPU nodes admit the pod (taints, nodeSelector, affinity)", "fail", reasons,
              ev[:MAX_LISTED + 1])
        g.verdict = fail("GX201", subject, ev[:MAX_LISTED + 1], resource=res,
                         own=("reasons", "nodes") if pinned else (),
                         excluded=len(adm), reasons=reasons,
                         nodes={k: {"reason": v.reason, "detail": v.detail}
                                for k, v in list(adm.items())[:100]})
        return True
    excluded = len(adm) - len(candidates)
    g.add("GPU nodes admit the pod (taints, nodeSelector, affinity)", "pass",
          f"{len(candidates)} admissible"
          + (f", {excluded} excluded" if excluded else ""))

    fits = _fit_table(snap, res)
    free_now = _free_table(snap, res)
    fitting = memo(snap, ("gate1-fitting", sig, res, qty),
                   lambda: [n for n in candidates if free_now[n.metadata.name] >= qty])
    if fitting:
        free_nodes, what_set = memo(
            snap, ("gate1-whole-fit", sig, res, qty, _requests_key(pod)),
            lambda: _whole_fit(snap, pod, fitting))
        if not free_nodes:
            what = sorted(what_set)
            g.add(f"{res}: room on an admissible node", "pass",
                  f"{_names([n.metadata.name for n in fitting])} have {qty} free")
            g.add("other resources fit", "fail",
                  f"Insufficient {', '.join(what)} on every node with GPUs free — not a GPU cause")
            g.conclusion = (f"the GPU request fits, but {', '.join(what)} does not on the nodes "
                            "with free GPUs")
            return True
        g.add(f"{res}: room on an admissible node", "pass",
              f"fits now on {_names(free_nodes)}",
              [_node_ev(snap, snap.node_by_name[n], res) for n in free_nodes[:3]])
        g.conclusion = ("the pod fits now; the scheduler has not retried since the snapshot, or "
                        "the blocking pods finished")
        return True

    acct = accounting(snap)
    not_adv, unhealthy, full, free_total, max_free = memo(
        snap, ("gate1-classes", sig, res, qty),
        lambda: _classify(snap, candidates, res, qty))
    ev_all = [_node_ev(snap, n, res) for n in candidates[:MAX_LISTED]]
    if not_adv:
        names = [n.metadata.name for n in not_adv]
        absent = [n.metadata.name for n in not_adv if res not in n.status.capacity]
        detail = (f"{len(names)} admissible GPU node(s) that would fit advertise no {res}: "
                  f"{_names(names)}"
                  + (f" (name absent on {len(absent)})" if absent else
                     " (capacity 0: the plugin has been gone more than 5 minutes)"))
        if full:
            detail += f"; the {full} node(s) still advertising are full"
        ev = [_node_ev(snap, n, res) for n in not_adv][:MAX_LISTED]
        g.add(f"{res}: room on an admissible node", "fail", detail, ev)
        g.verdict = fail("GX202", subject, ev, resource=res, detail=detail, nodes=names,
                         own=("detail", "nodes", "absent", "zero") if pinned else (),
                         absent=absent, zero=[x for x in names if x not in absent],
                         requested=qty)
        return True
    if unhealthy:
        names = [n.metadata.name for n in unhealthy]
        parts = []
        for n in unhealthy:
            f = fits[n.metadata.name]
            kind = ("allocatable 0 with capacity kept: the plugin disconnected under 5 minutes "
                    "ago" if f.allocatable == 0 else
                    f"{int(f.capacity - f.allocatable)} device(s) unhealthy")
            parts.append(f"{n.metadata.name} capacity {int(f.capacity)}, allocatable "
                         f"{int(f.allocatable)} — {kind}")
        detail = "; ".join(parts[:MAX_LISTED])
        ev = [_node_ev(snap, n, res) for n in unhealthy][:MAX_LISTED]
        g.add(f"{res}: room on an admissible node", "fail", detail, ev)
        first = fits[names[0]]
        g.verdict = fail("GX203", subject, ev, resource=res, nodes=_names(names), detail=detail,
                         own=("nodes", "detail", "node_list", "capacity", "allocatable", "lost",
                              "disconnected") if pinned else (),
                         node_list=names, capacity=int(first.capacity),
                         allocatable=int(first.allocatable),
                         lost=int(first.capacity - first.allocatable),
                         disconnected=first.allocatable == 0)
        return True
    if free_total >= qty:
        detail = (f"{free_total} free across admissible nodes, at most {max_free} on one; "
                  f"pod needs {qty}")
        g.add(f"{res}: room on an admissible node", "fail", detail, ev_all)
        g.verdict = fail("GX206", subject, ev_all, resource=res, free_total=free_total,
                         max_free=max_free, requested=qty)
        return True
    allocated, allocatable, total, holders = memo(
        snap, ("gate1-exhausted", sig, res), lambda: _exhausted(snap, acct, candidates, res))
    ev = [*ev_all, snap.ev(Input.PODS, "held by " + ", ".join(holders[:12])
                           + (" …" if total > 12 else ""))] if holders else ev_all
    g.add(f"{res}: room on an admissible node", "fail",
          f"{allocated} of {allocatable} allocated on {len(candidates)} node(s)", ev)
    pin: dict[str, Any] = {"nodes": [n.metadata.name for n in candidates]} if pinned else {}
    g.verdict = fail("GX204", subject, ev, resource=res, candidates=len(candidates),
                     allocated=allocated, allocatable=allocatable, requested=qty,
                     holders=holders, holders_total=total, **pin,
                     own=("nodes", "allocated", "allocatable", "holders", "holders_total")
                     if pinned else ())
    return True


def _shape(pod: Pod) -> bytes:
    """What decides admissibility: pods of one job share it, so their node work is shared."""
    return msgspec.json.encode((pod.spec.tolerations, pod.spec.node_selector,
                                pod.spec.affinity))


def _exhausted(snap: Snapshot, acct: Accounting, candidates: list[Node],
               res: str) -> tuple[int, int, int, list[str]]:
    """What every pod of one shape sees on its full admissible nodes: GPUs allocated and
    allocatable summed, how many pods hold them, and the first MAX_HOLDERS of those (listing
    every holder of every candidate made each pending job's finding O(fleet))."""
    nums = _numbers(snap, res)
    allocated = allocatable = total = 0
    holders_of = acct.holders
    none: list[Holder] = []
    for n in candidates:
        name = n.metadata.name
        _cap, alloc, used = nums[name]
        allocated += int(used)
        allocatable += int(alloc)
        total += len(holders_of.get((name, res), none))
    holders = list(itertools.islice((f"{h.namespace}/{h.pod}×{h.amount}@{n.metadata.name}"
                                     for n in candidates
                                     for h in holders_of.get((n.metadata.name, res), none)),
                                    MAX_HOLDERS))
    return allocated, allocatable, total, holders


def _whole_fit(snap: Snapshot, pod: Pod, fitting: list[Node]) -> tuple[list[str], set[str]]:
    """Up to three nodes among ``fitting`` that also take the pod's cpu/memory (those differ
    per pod: look only until three take it whole), and what does not fit on the others."""
    free_nodes: list[str] = []
    what_set: set[str] = set()
    for n in fitting:
        miss = non_gpu_misfits(snap, pod, n)
        if not miss:
            free_nodes.append(n.metadata.name)
            if len(free_nodes) == 3:
                break
        what_set.update(f.resource for f in miss)
    return free_nodes, what_set


def _requests_key(pod: Pod) -> bytes:
    """What ``pod_requests`` (and so ``non_gpu_misfits``) reads of a pod: its containers'
    resources, init containers' with their restart policy, and the overhead — as written, so
    two pods with one key have the same effective requests (a cheap key: a pending storm
    computes it per pod)."""
    spec = pod.spec
    return msgspec.json.encode(([c.resources for c in spec.containers],
                                [(c.resources, c.restart_policy) for c in spec.init_containers],
                                spec.overhead))


def _base_shape(pod: Pod) -> bytes:
    """What decides the cordon, taint and nodeSelector filters (not the affinity)."""
    return msgspec.json.encode((pod.spec.tolerations, pod.spec.node_selector))


def _classify(snap: Snapshot, candidates: list[Node], res: str,
              qty: int) -> tuple[list[Node], list[Node], int, int, int]:
    """Admissible nodes without room, by why: not advertising (would fit by its GFD count),
    unhealthy devices (would fit if healthy), or full (counted); plus free GPUs summed and the
    most on one node."""
    not_adv: list[Node] = []
    unhealthy: list[Node] = []
    full = 0
    nums = _numbers(snap, res)
    free_now = _free_table(snap, res)
    free_total = max_free = 0
    for n in candidates:
        name = n.metadata.name
        free = free_now[name]
        if free > 0:
            free_total += free
            if free > max_free:
                max_free = free
        cap, alloc, used = nums[name]  # used: the accounting's GPUs bound to the node
        if cap == 0:
            exp = _expected(n, res)
            if exp is None or exp - used >= qty:
                not_adv.append(n)
                continue
        if cap > alloc and cap - used >= qty:
            unhealthy.append(n)
            continue
        full += 1
    return not_adv, unhealthy, full, free_total, max_free


def pending_gpu_pods(snap: Snapshot) -> list[Pod]:
    """Pods gate 1 has not let through: not terminal, no node, asking for a GPU."""
    return [p for p, _reqs in _pending_requests(snap)]


def _pending_requests(snap: Snapshot) -> list[tuple[Pod, dict[str, int]]]:
    """:func:`pending_gpu_pods` with each pod's GPU requests, computed once for the walk."""
    out = []
    for p in snap.unbound_pods:
        if p.status.phase == "Pending" and not p.metadata.deletion_timestamp:
            reqs = gpu_requests(p)
            if reqs:
                out.append((p, reqs))
    return out


@functools.lru_cache(maxsize=8)
def verdicts(snap: Snapshot) -> dict[tuple[str, str], Gate1]:
    """Gate-1 walks of every pending GPU pod."""
    return {(p.metadata.namespace or "default", p.metadata.name): walk(snap, p, reqs)
            for p, reqs in _pending_requests(snap)}


@functools.lru_cache(maxsize=8)
def verdict_findings(snap: Snapshot) -> dict[tuple[str, str], Finding | None]:
    """The verdicts of :func:`verdicts` alone (:func:`_verdict`), computed once for all the
    2xx checks."""
    return {(p.metadata.namespace or "default", p.metadata.name): _verdict(snap, p, reqs)
            for p, reqs in _pending_requests(snap)}
