"""Gate 1 for a pod that asks for devices through ResourceClaims, walked to one leaf.

The scheduler's DynamicResources plugin (kubernetes/kubernetes@v1.34.0:pkg/scheduler/framework/
plugins/dynamicresources/dynamicresources.go) refuses such a pod with a few lines —
``ResourceClaim not created yet``, ``device class … does not exist``, ``cannot allocate all
claims``, ``resourceclaim not available on the node`` — and the last one covers every reason
the allocator found no devices. The walk re-derives which, in the order that, once fixed, lets
the pod schedule:

1. every claim exists (named claim → GX208; template not instantiated → GX209);
2. a claim already allocated must be usable from a node the pod may go to → GX215;
3. for each pending claim's request: its DeviceClass exists → GX210; its driver publishes
   current slices → GX211; the selectors compile and run → GX218; they match some device →
   GX212 (naming the failing condition and attribute); some node has enough matching devices
   → GX216; a node with them admits the pod → GX201; enough of them are free → GX214 (tainted)
   or GX213 (held by other claims);
4. all claims together on one node → GX217.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, replace

import msgspec

from gpuxray.engines import dra, dra_cel
from gpuxray.engines.gate1 import MAX_LISTED, Gate1, _names, _shape, pod_subject
from gpuxray.model.dra import ALLOCATION_ALL, ExactDeviceRequest, ResourceClaim
from gpuxray.model.factory import fail, unknown
from gpuxray.model.finding import Evidence, Finding
from gpuxray.model.k8s import Node, Pod
from gpuxray.model.placement import Admissibility, admissibility
from gpuxray.model.snapshot import Input, Snapshot, memo


def _claim_ev(snap: Snapshot, c: ResourceClaim, detail: str) -> Evidence:
    return snap.ev(Input.RESOURCECLAIMS,
                   f"ResourceClaim {c.metadata.namespace}/{c.metadata.name}: {detail}")


def _slice_ev(snap: Snapshot, pd: dra.PoolDevice, detail: str) -> Evidence:
    return snap.ev(Input.RESOURCESLICES, f"ResourceSlice {pd.slice} device {pd.device.name}: "
                                         f"{detail}")


def claim_nodes(c: ResourceClaim) -> list[str] | None:
    """Nodes an allocated claim is restricted to (its allocation's nodeSelector on
    ``metadata.name``); None when it is usable anywhere."""
    a = c.status.allocation
    if a is None or a.node_selector is None:
        return None
    names: list[str] = []
    for t in a.node_selector.node_selector_terms:
        for f in t.match_fields:
            if f.key == "metadata.name" and f.operator == "In":
                names.extend(f.values)
    return names or None


def walk(snap: Snapshot, pod: Pod) -> Gate1:
    """The pod's walk to its leaf. A verdict naming the claim its template created for this pod
    marks that claim as the subject's own (``Finding.own``): the pods of one template, refused
    alike, fold into one report entry listing each one's claim."""
    g = _walk(snap, pod)
    v = g.verdict
    if v is not None and v.params.get("claim") in _template_claims(pod):
        g.verdict = replace(v, own=("claim",))
    return g


def _template_claims(pod: Pod) -> set[str]:
    """The claims created for this pod from its templates (status.resourceClaimStatuses)."""
    from_template = {e.name for e in pod.spec.resource_claims if e.resource_claim_template_name}
    return {s.resource_claim_name for s in pod.status.resource_claim_statuses
            if s.name in from_template and s.resource_claim_name}


def _walk(snap: Snapshot, pod: Pod) -> Gate1:
    g = Gate1()
    subject = pod_subject(pod)
    entries = pod.spec.resource_claims
    g.add("pod asks for devices through ResourceClaims", "pass",
          ", ".join(e.name for e in entries),
          [snap.ev(Input.PODS, f"{subject}: spec.resourceClaims "
                   + ", ".join(f"{e.name}→{e.resource_claim_name or 'template ' + str(e.resource_claim_template_name)}"  # noqa: E501
                               for e in entries))])
    if not snap.has(Input.RESOURCECLAIMS):
        st = snap.state(Input.RESOURCECLAIMS)
        g.add("the pod's ResourceClaims exist", "unknown", f"{st.source}: {st.reason}")
        g.verdict = unknown("GX208", subject, st.source, st.reason)
        return g
    claims: list[ResourceClaim] = []
    for pc in dra.pod_claims(snap, pod):
        if pc.claim is not None:
            claims.append(pc.claim)
            continue
        if pc.template is None:
            ev = [snap.ev(Input.PODS, f"{subject}: spec.resourceClaims[{pc.entry}]."
                                      f"resourceClaimName={pc.claim_name}"),
                  snap.ev(Input.RESOURCECLAIMS, f"no ResourceClaim {subject.namespace}/"
                                                f"{pc.claim_name}")]
            g.add("the pod's ResourceClaims exist", "fail",
                  f"ResourceClaim {pc.claim_name} not found", ev)
            g.verdict = fail("GX208", subject, ev, entry=pc.entry, claim=pc.claim_name,
                             namespace=subject.namespace)
            return g
        tmpl_known = snap.has(Input.RESOURCECLAIMTEMPLATES)
        tmpl = next((t for t in snap.resourceclaimtemplates
                     if t.metadata.name == pc.template
                     and (t.metadata.namespace or "default") == subject.namespace), None)
        if pc.claim_name:
            detail = (f"template {pc.template} was instantiated as {pc.claim_name}, "
                      "which no longer exists")
        elif tmpl_known and tmpl is None:
            detail = (f"ResourceClaimTemplate {pc.template} does not exist in "
                      f"{subject.namespace}: no claim can be created")
        else:
            detail = (f"no ResourceClaim created yet from template {pc.template} "
                      "(status.resourceClaimStatuses has no entry)")
        ev = [snap.ev(Input.PODS, f"{subject}: spec.resourceClaims[{pc.entry}]."
                                  f"resourceClaimTemplateName={pc.template}; "
                                  f"status.resourceClaimStatuses="
                                  f"{[s.name for s in pod.status.resource_claim_statuses]}")]
        if tmpl_known:
            ev.append(snap.ev(Input.RESOURCECLAIMTEMPLATES,
                              f"ResourceClaimTemplate {subject.namespace}/{pc.template}: "
                              + ("present" if tmpl else "absent")))
        g.add("the pod's ResourceClaims exist", "fail", detail, ev)
        g.verdict = fail("GX209", subject, ev, entry=pc.entry, template=pc.template,
                         claim=pc.claim_name, detail=detail,
                         template_exists=None if not tmpl_known else tmpl is not None)
        return g
    g.add("the pod's ResourceClaims exist", "pass",
          ", ".join(c.metadata.name for c in claims))
    if pod.spec.node_name:
        g.add("gate 1: scheduled to a node", "pass", f"spec.nodeName={pod.spec.node_name}",
              [snap.ev(Input.PODS, f"{subject}: spec.nodeName={pod.spec.node_name}")])
        return g
    if not snap.has(Input.NODES):
        st = snap.state(Input.NODES)
        g.add("node status", "unknown", f"{st.source}: {st.reason}")
        g.verdict = unknown("GX213", subject, st.source, st.reason)
        return g

    # allocated claims pin the pod to their nodes
    pinned: set[str] | None = None
    for c in claims:
        nodes = claim_nodes(c)
        if c.status.allocation is None or nodes is None:
            continue
        ok = []
        why: list[str] = []
        for n in nodes:
            node = snap.node_by_name.get(n)
            if node is None:
                why.append(f"{n}: node does not exist")
                continue
            a = admissibility(pod, node)
            if a.ok:
                ok.append(n)
            else:
                why.append(f"{n}: {a.reason} ({a.detail})")
        if not ok:
            ev = [_claim_ev(snap, c, f"status.allocation.nodeSelector metadata.name in {nodes}; "
                                     f"reservedFor {[r.name for r in c.status.reserved_for]}")]
            ev += [snap.ev(Input.NODES, w) for w in why[:MAX_LISTED]]
            g.add(f"allocated claim {c.metadata.name} usable from an admissible node", "fail",
                  "; ".join(why), ev)
            g.verdict = fail("GX215", subject, ev, claim=c.metadata.name, nodes=", ".join(nodes),
                             detail="; ".join(why))
            return g
        pinned = set(ok) if pinned is None else pinned & set(ok)
        g.add(f"allocated claim {c.metadata.name} usable from an admissible node", "pass",
              ", ".join(ok))
    pending = [c for c in claims if c.status.allocation is None]
    if not pending:
        g.conclusion = "every claim is allocated and usable; the scheduler has not retried yet"
        return g
    for inp in (Input.DEVICECLASSES, Input.RESOURCESLICES):
        if not snap.has(inp):
            st = snap.state(inp)
            code = "GX210" if inp is Input.DEVICECLASSES else "GX211"
            g.add("DRA inventory", "unknown", f"{st.source}: {st.reason}")
            g.verdict = unknown(code, subject, st.source, st.reason)
            return g
    for c in pending:
        for req in dra.requests_of(c):
            if _walk_alternatives(snap, pod, c, req, pinned, g):
                return g
    # every request alone can be met; together?
    admitted = _admitted(snap, pod, pinned)
    # The scheduler filters every node, and an allocator error on any one (an "All" request
    # whose constraint cannot hold) aborts the attempt: where one is possible, look at all.
    may_error = any(alt.allocation_mode == ALLOCATION_ALL and c.spec.devices.constraints
                    for c in pending for r in dra.requests_of(c) for _n, alt in r.alternatives)
    # Pods of one job (one template: same specs, same admissible nodes) get the same answer
    # from every node: a node where one such pod's claims fit not at all is skipped for the
    # next; a refusal carries nothing the verdict uses, so the outcome is the same.
    fit_key = (_shape(pod), None if pinned is None else tuple(sorted(pinned)),
               tuple(msgspec.json.encode(c.spec) for c in pending))  # allocate reads no name
    # the admitted nodes not refused yet, in order: the next pod of the job walks only these
    # (skipping a full fleet's refusals one by one cost a pass over it per pod)
    alive: list[list[Node]] = memo(snap, ("dra-alive", fit_key), lambda: [admitted])
    refused: set[str] = set()
    results: list[dra.Allocation] = []
    n_ok = 0
    for node in alive[0]:  # otherwise three nodes that take the claims are enough to say so
        r = _allocate(snap, pending, node, fit_key[2])
        if not r.ok and not r.error:
            refused.add(node.metadata.name)
            continue
        results.append(r)
        n_ok += r.ok
        if r.error or (not may_error and n_ok == 3):
            break
    if refused:
        alive[0] = [n for n in alive[0] if n.metadata.name not in refused]
    good = [r for r in results if r.ok]
    errs = [r for r in results if r.error]
    if errs and "CEL runtime error" not in errs[0].error:
        ev = [_claim_ev(snap, c, "constraints "
                        f"{[x.match_attribute for x in c.spec.devices.constraints]}")
              for c in pending]
        ev.append(snap.ev(Input.RESOURCESLICES, f"{errs[0].node}: {errs[0].error}"))
        g.add("all claims allocatable on one node", "fail", errs[0].error, ev)
        g.verdict = fail("GX217", subject, ev, detail=errs[0].error, nodes=len(admitted))
        return g
    if good and not errs:
        picks = "; ".join(f"{k}: {', '.join(p.ref for p in devs)}"
                          for k, devs in sorted(good[0].picked.items()))
        g.add("all claims allocatable on one node", "pass",
              f"{_names([r.node for r in good])}; e.g. {good[0].node} → {picks}")
        g.conclusion = ("the claims can be allocated now; the scheduler has not retried since "
                        "the snapshot, or the devices were freed since")
        return g
    if errs:
        ev = [snap.ev(Input.RESOURCESLICES, f"{r.node}: {r.error}") for r in errs[:MAX_LISTED]]
        g.add("all claims allocatable on one node", "fail", errs[0].error, ev)
        g.verdict = fail("GX218", subject, ev, source=errs[0].error.split(":", 1)[0],
                         error=errs[0].error)
        return g
    detail = (f"{len(admitted)} admissible node(s) have free matching devices per request, but "
              "none for all of "
              + ", ".join(f"{c.metadata.name}" for c in pending)
              + _constraint_text(pending))
    ev = [_claim_ev(snap, c, f"{len(c.spec.devices.requests)} request(s), constraints "
                             f"{[x.match_attribute for x in c.spec.devices.constraints]}")
          for c in pending]
    g.add("all claims allocatable on one node", "fail", detail, ev)
    g.verdict = fail("GX217", subject, ev, detail=detail, nodes=len(admitted))
    return g


def _allocate(snap: Snapshot, pending: list[ResourceClaim], node: Node,
              specs: tuple[bytes, ...]) -> dra.Allocation:
    """``dra.allocate`` once per node and set of claim specs: the pods of one template walk the
    same nodes to the same picks (an answer names requests, never a claim), so the 400 pods of a
    job allocate on a node once, not 400 times. An error, which names its claim, is not
    shared."""
    answers: dict[str, dra.Allocation] = memo(snap, ("dra-allocate", specs), dict)
    name = node.metadata.name
    r = answers.get(name)
    if r is None:
        r = dra.allocate(snap, pending, node)
        if not r.error:
            answers[name] = r
    return r


def _constraint_text(claims: list[ResourceClaim]) -> str:
    attrs = [x.match_attribute for c in claims for x in c.spec.devices.constraints
             if x.match_attribute]
    return f" (matchAttribute {', '.join(attrs)})" if attrs else ""


@dataclass(frozen=True, slots=True)
class _Failing:
    source: str
    conjunct: str
    attribute: str
    domain: str
    kind: str


def _failing_condition(snap: Snapshot, devices: list[dra.PoolDevice],
                       sels: tuple[tuple[str, str], ...]) -> _Failing:
    """The first selector condition (top-level ``&&`` operand) that no device meets: it names
    the attribute to look at."""
    m = dra.matcher(snap)
    passing = devices
    for source, expr in sels:
        for part in dra_cel.conjuncts(expr):
            ok = [pd for pd in passing if m.match(pd, ((source, part),)).matches]
            if not ok:
                refs = dra_cel.referenced(part)
                kind, dom, ident = refs[0] if refs else ("", "", "driver"
                                                         if "device.driver" in part else "")
                return _Failing(source, part, ident, dom, kind)
            passing = ok
    return _Failing(sels[-1][0] if sels else "", sels[-1][1] if sels else "", "", "", "")


def _published_values(devices: list[dra.PoolDevice], f: _Failing) -> str:
    if f.attribute == "driver" and not f.kind:
        c = Counter(pd.driver for pd in devices)
    elif f.kind:
        c = Counter(dra.attribute(pd, f.domain or pd.driver, f.attribute, f.kind) or "(absent)"
                    for pd in devices)
    else:
        return "n/a"
    return ", ".join(f"{val} ×{n}" for val, n in c.most_common(6))


def _request_drivers(v: dra.DraView, req: ExactDeviceRequest) -> list[str]:
    cls = v.classes.get(req.device_class_name)
    names: list[str] = []
    for _src, e in dra.class_selectors(cls):
        names.extend(dra_cel.drivers_named(e))
    return sorted(set(names))


def _matching(snap: Snapshot, drivers: tuple[str, ...], sels: tuple[tuple[str, str], ...]
              ) -> tuple[list[dra.PoolDevice],
                         tuple[dra.PoolDevice, dra.SelectorResult] | None]:
    """Devices of ``drivers`` (all drivers when none is pinned) that the selectors match, or
    the first device they error on; once per selector set, which the pods of a job share."""
    def compute() -> tuple[list[dra.PoolDevice],
                           tuple[dra.PoolDevice, dra.SelectorResult] | None]:
        m = dra.matcher(snap)
        out = []
        for pd in dra.view(snap).devices:
            if drivers and pd.driver not in drivers:
                continue
            r = m.match(pd, sels)
            if r.error:
                return [], (pd, r)
            if r.matches:
                out.append(pd)
        return out, None
    return memo(snap, ("dra-matching", drivers, sels), compute)


def _per_node(snap: Snapshot, drivers: tuple[str, ...], sels: tuple[tuple[str, str], ...]
              ) -> dict[str, list[dra.PoolDevice]]:
    def compute() -> dict[str, list[dra.PoolDevice]]:
        v = dra.view(snap)
        ids = {pd.id for pd in _matching(snap, drivers, sels)[0]}
        out: dict[str, list[dra.PoolDevice]] = {}
        for node in snap.nodes:
            hit = [pd for pd in v.node_devices(node) if pd.id in ids]
            if hit:
                out[node.metadata.name] = hit
        return out
    return memo(snap, ("dra-per-node", drivers, sels), compute)


def _admitted(snap: Snapshot, pod: Pod, pinned: set[str] | None) -> list[Node]:
    """The nodes that admit the pod (and that its allocated claims pin it to), in node order:
    once per pod shape, not once per pod (a pass over the fleet for each pending pod)."""
    key = ("dra-admitted", _shape(pod), None if pinned is None else tuple(sorted(pinned)))
    return memo(snap, key, lambda: [n for n in snap.nodes if _admissible(snap, pod, n).ok
                                    and (pinned is None or n.metadata.name in pinned)])


def _driver_devices(snap: Snapshot, drivers: tuple[str, ...]) -> list[dra.PoolDevice]:
    """The current pools' devices of ``drivers``, once per driver set."""
    return memo(snap, ("dra-driver-devices", drivers),
                lambda: [pd for pd in dra.view(snap).devices if pd.driver in drivers])


def _admissible(snap: Snapshot, pod: Pod, node: Node) -> Admissibility:
    """Admissibility per pod shape and node, shared by the pods of one job (gate1's shape)."""
    table = _adm_table(snap, pod)
    name = node.metadata.name
    a = table.get(name)
    if a is None:
        a = table[name] = admissibility(pod, node)
    return a


def _adm_table(snap: Snapshot, pod: Pod) -> dict[str, Admissibility]:
    tables: dict[int, dict[str, Admissibility]] = memo(snap, "dra-adm-by-pod", dict)
    t = tables.get(id(pod))
    if t is None:
        t = tables[id(pod)] = memo(snap, ("dra-adm", _shape(pod)), dict)
    return t


def _silent_nodes(snap: Snapshot, pod: Pod, drivers: list[str]) -> list[str]:
    """Admissible nodes the operator deployed the DRA driver on (its deploy label) that
    publish no device of the class's drivers: their kubelet plugin is not running or not
    registered (kubelet deletes a node's slices when the plugin unregisters)."""
    if not drivers:
        return []

    def compute() -> list[str]:
        v = dra.view(snap)
        out = []
        for n in snap.nodes:
            if n.metadata.labels.get(dra.DRA_DRIVER_LABEL) != "true":
                continue
            if any(pd.driver in drivers for pd in v.node_devices(n)):
                continue
            if _admissible(snap, pod, n).ok:
                out.append(n.metadata.name)
        return out
    # a shape's answer: the pods of one job share it
    return list(memo(snap, ("dra-silent", _shape(pod), tuple(drivers)), compute))


def _silent_verdict(snap: Snapshot, pod: Pod, claim: ResourceClaim, rname: str,
                    device_class: str, drivers: list[str], why: str, g: Gate1) -> bool:
    silent = _silent_nodes(snap, pod, drivers)
    if not silent:
        return False
    subject = pod_subject(pod)
    detail = (f"{why} on the nodes that publish; {len(silent)} admissible DRA node(s) publish "
              f"no ResourceSlice from {', '.join(drivers)}: {_names(silent)} (kubelet plugin "
              "not running or not registered there)")
    ev = [snap.ev(Input.NODES, f"{n}: label {dra.DRA_DRIVER_LABEL}=true") for n in
          silent[:MAX_LISTED]]
    ev.append(snap.ev(Input.RESOURCESLICES, f"no slice of {', '.join(drivers)} for "
                                            f"{_names(silent)}"))
    g.add(f"claim {claim.metadata.name} request {rname}: every DRA node publishes its devices",
          "fail", detail, ev)
    g.verdict = fail("GX211", subject, ev, device_class=device_class, driver=", ".join(drivers),
                     detail=detail, claim=claim.metadata.name, request=rname, nodes=silent)
    return True


def _walk_alternatives(snap: Snapshot, pod: Pod, claim: ResourceClaim, req: dra.Request,
                       pinned: set[str] | None, g: Gate1) -> bool:
    """A request with ``firstAvailable`` passes when one of its subrequests does (the
    allocator tries them in order); when none does, the first one's leaf is the answer."""
    if len(req.alternatives) == 1:
        return _walk_request(snap, pod, claim, req, 0, pinned, g)
    first: Gate1 | None = None
    for i in range(len(req.alternatives)):
        trial = Gate1()
        if not _walk_request(snap, pod, claim, req, i, pinned, trial):
            g.steps.extend(trial.steps)
            return False
        first = first or trial
    assert first is not None
    g.steps.extend(first.steps)
    g.verdict = first.verdict
    return True


def _walk_request(snap: Snapshot, pod: Pod, claim: ResourceClaim, req: dra.Request,
                  index: int, pinned: set[str] | None, g: Gate1) -> bool:
    """One request alternative; True on a verdict."""
    subject = pod_subject(pod)
    v = dra.view(snap)
    cname = claim.metadata.name
    rname, alt = req.alternatives[index]
    label = f"claim {cname} request {rname}"
    cls = v.classes.get(alt.device_class_name)
    if cls is None:
        ev = [_claim_ev(snap, claim, f"request {rname}: deviceClassName="
                                     f"{alt.device_class_name}"),
              snap.ev(Input.DEVICECLASSES, f"defined: {sorted(v.classes) or 'none'}")]
        g.add(f"{label}: DeviceClass {alt.device_class_name} exists", "fail",
              "no such DeviceClass", ev)
        g.verdict = fail("GX210", subject, ev, claim=cname, request=rname,
                         device_class=alt.device_class_name,
                         defined=", ".join(sorted(v.classes)) or "none")
        return True
    g.add(f"{label}: DeviceClass {alt.device_class_name} exists", "pass")
    drivers = _request_drivers(v, alt)
    pool_devices = v.devices
    if drivers:
        missing = [d for d in drivers if d not in v.drivers]
        if len(missing) == len(drivers):
            stale = [p for p in v.pools.values() if p.driver in drivers]
            detail = (f"no ResourceSlice from {', '.join(drivers)} (published drivers: "
                      f"{', '.join(sorted(v.drivers)) or 'none'}): the driver is not deployed "
                      "or its kubelet plugin has not registered on any node")
            del stale
            ev = [snap.ev(Input.DEVICECLASSES, f"DeviceClass {cls.metadata.name} selectors: "
                          + " && ".join(e for _s, e in dra.class_selectors(cls))),
                  snap.ev(Input.RESOURCESLICES,
                          f"{len(snap.resourceslices)} slice(s), drivers "
                          f"{sorted(v.drivers) or 'none'}")]
            g.add(f"{label}: driver publishes ResourceSlices", "fail", detail, ev)
            g.verdict = fail("GX211", subject, ev, device_class=cls.metadata.name,
                             driver=", ".join(drivers), detail=detail, claim=cname,
                             request=rname)
            return True
        pool_devices = _driver_devices(snap, tuple(drivers))
        if not pool_devices:
            pools = [p for p in v.pools.values() if p.driver in drivers]
            detail = (f"{len(pools)} pool(s) of {', '.join(drivers)} publish no device in their "
                      "current generation (" + "; ".join(
                          f"{p.name}: generation {p.generation}, {len(p.slices)} of "
                          f"{p.expected_slices} slice(s), {len(p.stale)} stale"
                          for p in pools[:MAX_LISTED]) + ")")
            ev = [snap.ev(Input.RESOURCESLICES, detail)]
            g.add(f"{label}: driver publishes ResourceSlices", "fail", detail, ev)
            g.verdict = fail("GX211", subject, ev, device_class=cls.metadata.name,
                             driver=", ".join(drivers), detail=detail, claim=cname,
                             request=rname)
            return True
        g.add(f"{label}: driver publishes ResourceSlices", "pass",
              f"{len(pool_devices)} device(s) from {', '.join(drivers)}")
    sels = dra.selectors_for(v, rname, alt)
    matching, bad = _matching(snap, tuple(drivers), sels)
    if bad is not None:
        pd, r = bad
        ev = [_slice_ev(snap, pd, f"{r.source} selector {r.selector!r}: {r.error}")]
        g.add(f"{label}: selectors evaluate", "fail", r.error, ev)
        g.verdict = fail("GX218", subject, ev, source=r.source,
                         error=f"selector {r.selector!r} on device {pd.ref}: CEL runtime "
                               f"error: {r.error}", claim=cname, request=rname)
        return True
    if not matching:
        f = _failing_condition(snap, pool_devices, sels)
        values = _published_values(pool_devices, f)
        driver = ", ".join(drivers) or ", ".join(sorted(v.drivers))
        slices = sorted({pd.slice for pd in pool_devices})
        where = (f"ResourceClaim {claim.metadata.namespace}/{cname} " if
                 f.source.startswith("request") else "")
        ev = [snap.ev(Input.DEVICECLASSES if f.source.startswith("DeviceClass")
                      else Input.RESOURCECLAIMS, f"{where}{f.source}: {f.conjunct}"),
              snap.ev(Input.RESOURCESLICES, f"{f.attribute or 'devices'} published: {values} "
                      f"(ResourceSlices {_names(slices)})")]
        g.add(f"{label}: selectors match a published device", "fail",
              f"{f.source}: {f.conjunct!r} matches none of {len(pool_devices)} device(s)", ev)
        g.verdict = fail("GX212", subject, ev, source=f.source, failing=f.conjunct,
                         attribute=f.attribute or "device", values=values,
                         published=len(pool_devices), driver=driver, claim=cname,
                         request=rname)
        return True
    g.add(f"{label}: selectors match a published device", "pass",
          f"{len(matching)} matching device(s)")

    per_node = _per_node(snap, tuple(drivers), sels)
    wanted = alt.count if alt.allocation_mode != ALLOCATION_ALL else 1
    largest = memo(snap, ("dra-per-node-largest", tuple(drivers), sels),
                   lambda: max((len(x) for x in per_node.values()), default=0))
    if largest < wanted and _silent_verdict(snap, pod, claim, rname, alt.device_class_name,
                                            drivers, f"at most {largest} matching device(s)",
                                            g):
        return True
    if largest < wanted:
        total = sum(len(x) for x in per_node.values())
        ev = [_claim_ev(snap, claim, f"request {rname}: allocationMode "
                                     f"{alt.allocation_mode}, count {alt.count}")]
        ev += [snap.ev(Input.RESOURCESLICES, f"{n}: {len(x)} matching device(s)")
               for n, x in sorted(per_node.items())[:MAX_LISTED]]
        g.add(f"{label}: one node has enough matching devices", "fail",
              f"wants {wanted}, at most {largest} on one node", ev)
        g.verdict = fail("GX216", subject, ev, claim=cname, request=rname, wanted=wanted,
                         largest=largest, total=total, nodes=len(per_node))
        return True
    g.add(f"{label}: one node has enough matching devices", "pass",
          f"up to {largest} on one node")

    scan = _scan(snap, pod, tuple(drivers), sels, pinned, alt, per_node)
    adm, cands = scan.adm, scan.cands
    if not cands:
        big = [n for n in per_node if len(per_node[n]) >= wanted]
        by_reason: dict[str, list[str]] = {}
        for n in big:
            a = adm.get(n)
            why = (f"{a.reason}: {a.detail}" if a is not None and not a.ok
                   else "another claim of the pod is allocated elsewhere")
            by_reason.setdefault(why, []).append(n)
        reasons = "; ".join(f"{_names(ns)} — {k}" for k, ns in sorted(by_reason.items()))
        ev = [snap.ev(Input.NODES, f"{n}: {adm[n].reason} ({adm[n].detail})")
              for n in big if n in adm and not adm[n].ok][:MAX_LISTED]
        g.add(f"{label}: a node with the devices admits the pod", "fail", reasons, ev)
        g.verdict = fail("GX201", subject, ev, resource=f"DRA class {alt.device_class_name}",
                         excluded=len(big), reasons=reasons,
                         nodes={n: {"reason": adm[n].reason, "detail": adm[n].detail}
                                for n in big[:100] if n in adm})
        return True
    g.add(f"{label}: a node with the devices admits the pod", "pass",
          f"{len(cands)} admissible")

    free_any, tainted, held = scan.free_any, scan.tainted, scan.held
    if free_any:
        g.add(f"{label}: enough matching devices free", "pass")
        return False
    if _silent_verdict(snap, pod, claim, rname, alt.device_class_name, drivers,
                       "no free matching device", g):
        return True
    if tainted and scan.enough_untaken:
        taints = sorted({t for pd in tainted for t in dra.blocking_taints(pd, alt.tolerations)})
        ev = [_slice_ev(snap, pd, "taints " + ", ".join(dra.blocking_taints(pd, alt.tolerations)))
              for pd in tainted[:MAX_LISTED]]
        g.add(f"{label}: enough matching devices free", "fail",
              f"{len(tainted)} free device(s) tainted: {', '.join(taints)}", ev)
        g.verdict = fail("GX214", subject, ev, claim=cname, request=rname,
                         tainted=len(tainted), taints=", ".join(taints))
        return True
    def holding() -> list[str]:
        out: list[str] = []
        for pd in held[:100]:  # evidence names the first hundred; the count is complete
            for hc in v.allocated.get(pd.id, []):
                users = ",".join(r.name for r in hc.status.reserved_for) or "no pod"
                out.append(f"{hc.metadata.namespace}/{hc.metadata.name}({users})→{pd.ref}")
        return out
    # the scan is the shape's (memoized): its holders are listed once for the pods of a job
    holders = memo(snap, ("dra-holders", id(scan)), holding)
    matching_n, max_free = scan.matching, scan.max_free
    ev = [snap.ev(Input.RESOURCECLAIMS, "held by " + ", ".join(holders[:12])
                  + (" …" if len(holders) > 12 else ""))]
    g.add(f"{label}: enough matching devices free", "fail",
          f"{len(held)} of {matching_n} matching device(s) allocated; at most {max_free} free "
          "on one node", ev)
    g.verdict = fail("GX213", subject, ev, claim=cname, request=rname, matching=matching_n,
                     allocated=len(held), holders=", ".join(holders[:12]) or "none",
                     holder_list=holders[:100], holders_total=len(held),
                     wanted=("all" if alt.allocation_mode == ALLOCATION_ALL else alt.count),
                     max_free=max_free)
    return True


@dataclass(frozen=True, slots=True)
class _Scan:
    """What every pod of one shape sees on the nodes with a request's matching devices."""

    adm: dict[str, Admissibility]
    cands: list[str]
    free_any: bool
    tainted: list[dra.PoolDevice]
    held: list[dra.PoolDevice]
    enough_untaken: bool  # some candidate has enough unallocated devices (taints aside)
    matching: int
    max_free: int


def _scan(snap: Snapshot, pod: Pod, drivers: tuple[str, ...], sels: tuple[tuple[str, str], ...],
          pinned: set[str] | None, alt: ExactDeviceRequest,
          per_node: dict[str, list[dra.PoolDevice]]) -> _Scan:
    """Candidates and free devices for one request alternative, once per pod shape (its
    admissibility, its pinned nodes) and request spec: the pods of one job share it, and
    nothing in it names the pod or its claim."""
    def compute() -> _Scan:
        v = dra.view(snap)
        nodes_by_name = snap.node_by_name
        wanted = alt.count if alt.allocation_mode != ALLOCATION_ALL else 1
        adm = {n: _admissible(snap, pod, nodes_by_name[n]) for n in per_node
               if n in nodes_by_name}
        cands = [n for n, a in adm.items() if a.ok and (pinned is None or n in pinned)
                 and len(per_node[n]) >= wanted]
        free_any = False
        tainted: list[dra.PoolDevice] = []
        held: list[dra.PoolDevice] = []
        for n in cands:
            devs = per_node[n]
            free = [pd for pd in devs if pd.id not in v.allocated]
            untainted = [pd for pd in free if not dra.blocking_taints(pd, alt.tolerations)]
            need = len(devs) if alt.allocation_mode == ALLOCATION_ALL else alt.count
            if len(untainted) >= need:
                free_any = True
                break
            tainted.extend(pd for pd in free if dra.blocking_taints(pd, alt.tolerations))
            held.extend(pd for pd in devs if pd.id in v.allocated)
        enough = free_any or any(
            len([pd for pd in per_node[n] if pd.id not in v.allocated])
            >= (len(per_node[n]) if alt.allocation_mode == ALLOCATION_ALL else alt.count)
            for n in cands)
        matching = sum(len(per_node[n]) for n in cands)
        max_free = max((sum(1 for pd in per_node[n] if pd.id not in v.allocated
                            and not dra.blocking_taints(pd, alt.tolerations)) for n in cands),
                       default=0)
        return _Scan(adm, cands, free_any, tainted, held, enough, matching, max_free)
    key = ("dra-scan", _shape(pod), None if pinned is None else tuple(sorted(pinned)), drivers,
           sels, msgspec.json.encode(alt))
    return memo(snap, key, compute)


def pending_dra_pods(snap: Snapshot) -> list[Pod]:
    return [p for p in snap.unbound_pods
            if p.status.phase == "Pending" and p.spec.resource_claims
            and not p.metadata.deletion_timestamp]


def verdicts(snap: Snapshot) -> dict[tuple[str, str], Gate1]:
    """DRA gate-1 walks of every pending claim-based pod, once per snapshot."""
    return memo(snap, "dra-gate1", lambda: {
        (p.metadata.namespace or "default", p.metadata.name): walk(snap, p)
        for p in pending_dra_pods(snap)})


def node_is_dra_only(snap: Snapshot, node: Node) -> bool:
    """A node serving GPUs through DRA and advertising no device-plugin GPU resource: not a
    node whose plugin is missing."""
    from gpuxray.engines.capacity import gpu_resource_names

    return bool(dra_gpu_drivers_on(snap, node)) and not gpu_resource_names(node)


def dra_gpu_drivers_on(snap: Snapshot, node: Node) -> list[str]:
    v = dra.view(snap)
    return sorted({pd.driver for pd in v.node_devices(node) if pd.driver in dra.GPU_DRIVERS})


__all__ = ["Finding", "node_is_dra_only", "pending_dra_pods", "verdicts", "walk"]
