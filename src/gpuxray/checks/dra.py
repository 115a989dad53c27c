"""Dynamic Resource Allocation: gate 1 (GX208–GX218, and GX201 where nodes exclude the pod),
gate 2 (GX308, GX309) and the driver's operands (GX415) for pods that get GPUs through
ResourceClaims.

The walks live in ``engines/dra_gate1.py`` and ``engines/dra_gate2.py``; each check reports
the pods whose leaf is its code, so ``check`` and ``why`` agree. Inputs: a cluster that uses no
DRA (no pod names a claim, no driver publishes slices) needs none of the DRA files, so the
checks declare only nodes/pods and say ``unknown`` about a DRA file only where DRA is in use.
"""

from __future__ import annotations

from collections.abc import Iterator

from gpuxray.checks.registry import check
from gpuxray.checks.scheduling import leaves
from gpuxray.model.factory import fail, unknown
from gpuxray.model.finding import CLUSTER, Finding, Subject
from gpuxray.model.snapshot import Input, Snapshot, memo

NEEDS = (Input.NODES, Input.PODS)


def _with_code(snap: Snapshot, code: str) -> Iterator[Finding]:
    if not _pending_claims(snap):
        return iter(())  # no pod asks through a claim: no walk, no engine to import
    from gpuxray.engines import dra_gate1

    return leaves(dra_gate1.verdicts(snap), code)


def _pending_claims(snap: Snapshot) -> bool:
    """Whether any pod ``engines/dra_gate1.py`` ``pending_dra_pods`` would walk exists: the
    DRA engines (the allocator, CEL: ~0.03 s of imports) load only then."""
    return memo(snap, "dra-pending-claims", lambda: any(
        p.status.phase == "Pending" and p.spec.resource_claims
        and not p.metadata.deletion_timestamp for p in snap.unbound_pods))


@check("GX208", needs=NEEDS)
def resource_claim_missing(snap: Snapshot) -> Iterator[Finding]:
    """The pod names a ResourceClaim that does not exist."""
    return _with_code(snap, "GX208")


@check("GX209", needs=NEEDS)
def claim_template_not_instantiated(snap: Snapshot) -> Iterator[Finding]:
    """No claim was created from the pod's ResourceClaimTemplate."""
    return _with_code(snap, "GX209")


@check("GX210", needs=NEEDS)
def device_class_missing(snap: Snapshot) -> Iterator[Finding]:
    """A request names a DeviceClass that does not exist."""
    return _with_code(snap, "GX210")


@check("GX211", needs=NEEDS)
def dra_driver_not_publishing(snap: Snapshot) -> Iterator[Finding]:
    """No current ResourceSlice from the class's driver."""
    return _with_code(snap, "GX211")


@check("GX212", needs=NEEDS)
def dra_selector_matches_nothing(snap: Snapshot) -> Iterator[Finding]:
    """A class or request selector matches no published device."""
    return _with_code(snap, "GX212")


@check("GX213", needs=NEEDS)
def dra_devices_exhausted(snap: Snapshot) -> Iterator[Finding]:
    """Every matching device is allocated; where slices are published but the claims were not
    collected, which devices are taken is unknown."""
    yield from _with_code(snap, "GX213")
    if snap.resourceslices and not snap.has(Input.RESOURCECLAIMS):
        st = snap.state(Input.RESOURCECLAIMS)
        yield unknown("GX213", CLUSTER, st.source, st.reason)


@check("GX214", needs=NEEDS)
def dra_devices_tainted(snap: Snapshot) -> Iterator[Finding]:
    """The free matching devices carry untolerated taints."""
    return _with_code(snap, "GX214")


@check("GX215", needs=NEEDS)
def dra_claim_node_unavailable(snap: Snapshot) -> Iterator[Finding]:
    """The claim is allocated on a node the pod cannot go to."""
    return _with_code(snap, "GX215")


@check("GX216", needs=NEEDS)
def dra_request_exceeds_node(snap: Snapshot) -> Iterator[Finding]:
    """A request needs more matching devices than one node has."""
    return _with_code(snap, "GX216")


@check("GX217", needs=NEEDS)
def dra_claims_not_jointly_satisfiable(snap: Snapshot) -> Iterator[Finding]:
    """No node satisfies all the pod's claims together."""
    return _with_code(snap, "GX217")


@check("GX218", needs=NEEDS)
def dra_selector_error(snap: Snapshot) -> Iterator[Finding]:
    """A selector fails to compile or errors on a device."""
    return _with_code(snap, "GX218")


# ----- gate 2 -----------------------------------------------------------------------------
def _gate2(snap: Snapshot) -> list[Finding]:
    def compute() -> list[Finding]:
        out = []
        for node_pods in snap.pods_by_node.values():
            for p in node_pods:
                if p.spec.resource_claims and p.status.phase == "Pending":
                    from gpuxray.engines import dra_gate2  # a claim-based pod: the engine

                    _r, _d, v = dra_gate2.walk(snap, p)
                    if v is not None:
                        out.append(v)
        return out
    return memo(snap, "dra-gate2", compute)


@check("GX308", needs=(Input.PODS, Input.EVENTS))
def dra_prepare_failed(snap: Snapshot) -> Iterator[Finding]:
    """kubelet could not have the DRA driver prepare the pod's claims."""
    return (f for f in _gate2(snap) if f.code == "GX308")


@check("GX309", needs=(Input.PODS, Input.EVENTS))
def dra_cdi_unresolvable(snap: Snapshot) -> Iterator[Finding]:
    """The runtime cannot resolve the CDI devices a DRA claim was prepared with."""
    return (f for f in _gate2(snap) if f.code == "GX309")


# ----- operands ---------------------------------------------------------------------------
KUBELET_PLUGIN_MARKERS = ("dra-driver", "kubelet-plugin")


@check("GX415", needs=(Input.DAEMONSETS,))
def dra_driver_not_ready(snap: Snapshot) -> Iterator[Finding]:
    """NVIDIA's DRA driver ships a kubelet-plugin DaemonSet (chart nvidia-dra-driver-gpu,
    NVIDIA/k8s-dra-driver-gpu@v25.8.1:deployments/helm); a node whose plugin pod is not ready
    stops publishing or preparing. ComputeDomains report Ready/NotReady in status.status
    (api/nvidia.com/resource/v1beta1/computedomain.go)."""
    for ds in snap.daemonsets:
        name = ds.metadata.name
        if not all(m in name for m in KUBELET_PLUGIN_MARKERS):
            continue
        st = ds.status
        if st.desired_number_scheduled and st.number_ready < st.desired_number_scheduled:
            subj = Subject("DaemonSet", name, ds.metadata.namespace)
            detail = (f"{st.number_ready} of {st.desired_number_scheduled} kubelet-plugin "
                      "pods ready: nodes without a ready plugin publish no (or stale) "
                      "ResourceSlices and cannot prepare claims")
            yield fail("GX415", subj,
                       [snap.ev(Input.DAEMONSETS, f"{ds.metadata.namespace}/{name}: "
                                f"desired {st.desired_number_scheduled}, ready "
                                f"{st.number_ready}")],
                       subject_desc=f"DaemonSet {ds.metadata.namespace}/{name}", detail=detail,
                       ready=st.number_ready, desired=st.desired_number_scheduled)
    for cd in snap.computedomains:
        if cd.status.status == "Ready":
            continue
        ns = cd.metadata.namespace or "default"
        ready = sum(1 for n in cd.status.nodes if n.status == "Ready")
        detail = (f"status {cd.status.status or 'unset'}; {ready} of {cd.spec.num_nodes} "
                  f"node(s) ready ({', '.join(n.name for n in cd.status.nodes) or 'none'})")
        yield fail("GX415", Subject("ComputeDomain", cd.metadata.name, ns),
                   [snap.ev(Input.COMPUTEDOMAINS, f"ComputeDomain {ns}/{cd.metadata.name}: "
                                                  f"{detail}")],
                   subject_desc=f"ComputeDomain {ns}/{cd.metadata.name}", detail=detail,
                   ready=ready, desired=cd.spec.num_nodes)
