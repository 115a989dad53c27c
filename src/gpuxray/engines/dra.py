"""The DRA allocator's arithmetic over ResourceSlices: gate 1 of seed §2 when GPUs come through
Dynamic Resource Allocation instead of a node's ``nvidia.com/gpu`` numbers.

What the scheduler's allocator does (kubernetes/kubernetes@v1.34.0:staging/src/
k8s.io/dynamic-resource-allocation/structured/internal/stable/allocator_stable.go, pools.go):

* Slices are grouped into pools (driver, pool name). Only the slices of a pool's newest
  ``generation`` count; a pool with fewer of them than ``resourceSliceCount`` is incomplete
  (its driver is republishing, e.g. after a restart). A slice is local to ``nodeName``, or
  serves ``allNodes``, or the nodes its ``nodeSelector`` matches.
* A device is taken when any claim's ``status.allocation`` lists it (admin access aside); a
  device taint with effect NoSchedule or NoExecute excludes it unless the request tolerates it.
* A request (``exactly``, or the first workable of ``firstAvailable``) wants ``count`` devices
  (``allocationMode: ExactCount``) or every matching device of the node's pools
  (``All``, at least one), each device matching the class's and then the request's CEL
  selectors; ``matchAttribute`` constraints need one value across the devices they cover.
* All the pod's pending claims are allocated together on one node, or none is.
"""

from __future__ import annotations

import functools
import re
from collections import defaultdict
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from gpuxray.engines import dra_cel
from gpuxray.model.dra import (
    ALLOCATION_ALL,
    Device,
    DeviceClass,
    DeviceConstraint,
    DeviceToleration,
    ExactDeviceRequest,
    ResourceClaim,
    ResourceSlice,
)
from gpuxray.model.k8s import Node, NodeSelector, Pod
from gpuxray.model.placement import _requirement_matches
from gpuxray.model.quantity import QuantityError, parse_quantity
from gpuxray.model.snapshot import Input, Snapshot, memo

NVIDIA_GPU_DRIVER = "gpu.nvidia.com"
NVIDIA_CD_DRIVER = "compute-domain.nvidia.com"
#: drivers whose devices are GPUs (capacity rows, DRA-only GPU nodes); NVIDIA's GPU driver
GPU_DRIVERS = frozenset({NVIDIA_GPU_DRIVER})
BLOCKING_TAINT_EFFECTS = ("NoSchedule", "NoExecute")
MAX_SEARCH = 20000  # allocateOne invocations before the search gives up (the allocator has none)

DeviceID = tuple[str, str, str]  # driver, pool, device


@dataclass(frozen=True, slots=True)
class PoolDevice:
    """One published device, with where it came from for evidence."""

    driver: str
    pool: str
    slice: str
    node: str | None  # the slice's nodeName; None for allNodes / nodeSelector slices
    device: Device
    index: int
    id: DeviceID = ("", "", "")  # (driver, pool, device), set at construction

    def __post_init__(self) -> None:
        object.__setattr__(self, "id", (self.driver, self.pool, self.device.name))

    @property
    def ref(self) -> str:
        return f"{self.driver}/{self.pool}/{self.device.name}"


@dataclass(slots=True)
class Pool:
    driver: str
    name: str
    generation: int
    expected_slices: int
    slices: list[ResourceSlice] = field(default_factory=list)
    stale: list[ResourceSlice] = field(default_factory=list)

    @property
    def incomplete(self) -> bool:
        return len(self.slices) < self.expected_slices


def selector_matches(sel: NodeSelector | None, node: Node) -> bool:
    if sel is None:
        return False
    labels = node.metadata.labels
    for term in sel.node_selector_terms:
        if not term.match_expressions and not term.match_fields:
            continue
        ok = all(_requirement_matches(e, labels.get(e.key)) for e in term.match_expressions)
        ok = ok and all(_requirement_matches(f, node.metadata.name if f.key == "metadata.name"
                                             else None) for f in term.match_fields)
        if ok:
            return True
    return False


def slice_serves(s: ResourceSlice, node: Node) -> bool:
    sp = s.spec
    if sp.node_name:
        return sp.node_name == node.metadata.name
    if sp.all_nodes:
        return True
    return selector_matches(sp.node_selector, node)


@dataclass(frozen=True)
class DraView:
    """The published inventory, computed once per snapshot."""

    pools: dict[tuple[str, str], Pool]
    devices: list[PoolDevice]  # current-generation devices of every pool
    by_node: dict[str, list[PoolDevice]]  # node-local devices (slice nodeName)
    shared: list[tuple[ResourceSlice, PoolDevice]]  # allNodes / nodeSelector devices
    allocated: dict[DeviceID, list[ResourceClaim]]  # device → claims whose allocation lists it
    drivers: frozenset[str]
    classes: dict[str, DeviceClass]
    claims: dict[tuple[str, str], ResourceClaim]

    # drivers publishing node-local devices, per node: asked of every node by capacity
    # (which nodes serve GPUs through DRA), without walking each node's devices again
    local_drivers: dict[str, frozenset[str]] = field(default_factory=dict)

    def node_devices(self, node: Node) -> list[PoolDevice]:
        out = list(self.by_node.get(node.metadata.name, ()))
        out.extend(d for s, d in self.shared if slice_serves(s, node))
        return out

    def node_drivers(self, node: Node) -> frozenset[str]:
        """The drivers of :meth:`node_devices`."""
        local = self.local_drivers.get(node.metadata.name, frozenset())
        if not self.shared:
            return local
        return local | {d.driver for s, d in self.shared if slice_serves(s, node)}


def view(snap: Snapshot) -> DraView:
    return memo(snap, "dra-view", lambda: _view(snap))


def _view(snap: Snapshot) -> DraView:
    pools: dict[tuple[str, str], Pool] = {}
    for s in snap.resourceslices:
        key = (s.spec.driver, s.spec.pool.name)
        p = pools.get(key)
        gen = s.spec.pool.generation
        if p is None or gen > p.generation:
            old = [*p.slices, *p.stale] if p else []
            p = pools[key] = Pool(key[0], key[1], gen, s.spec.pool.resource_slice_count)
            p.stale.extend(old)
        if gen < p.generation:
            p.stale.append(s)
        else:
            p.slices.append(s)
    devices: list[PoolDevice] = []
    by_node: dict[str, list[PoolDevice]] = defaultdict(list)
    shared: list[tuple[ResourceSlice, PoolDevice]] = []
    for p in pools.values():
        for s in p.slices:
            for i, d in enumerate(s.spec.devices):
                pd = PoolDevice(p.driver, p.name, s.metadata.name, s.spec.node_name, d, i)
                devices.append(pd)
                if s.spec.node_name:
                    by_node[s.spec.node_name].append(pd)
                else:
                    shared.append((s, pd))
    allocated: dict[DeviceID, list[ResourceClaim]] = defaultdict(list)
    for c in snap.resourceclaims:
        a = c.status.allocation
        if a is None:
            continue
        for r in a.devices.results:
            if not r.admin_access:
                allocated[(r.driver, r.pool, r.device)].append(c)
    return DraView(pools, devices, dict(by_node), shared, dict(allocated),
                   frozenset(p.driver for p in pools.values()),
                   {c.metadata.name: c for c in snap.deviceclasses},
                   {(c.metadata.namespace or "default", c.metadata.name): c
                    for c in snap.resourceclaims},
                   {n: frozenset(pd.driver for pd in devs) for n, devs in by_node.items()})


# ----- devices as CEL sees them ------------------------------------------------------------
def _attr_value(a: Any) -> Any:
    if a.version is not None:
        try:
            return dra_cel.semver_value(a.version)
        except ValueError:
            return a.version
    return a.value()


def _split(name: str, driver: str) -> tuple[str, str]:
    if "/" in name:
        dom, _, ident = name.rpartition("/")
        return dom, ident
    return driver, name


@functools.lru_cache(maxsize=65536)
def _quantity(raw: str | int | float) -> Fraction | None:
    try:
        return parse_quantity(raw)
    except QuantityError:
        return None


def cel_device(pd: PoolDevice) -> dict[str, Any]:
    attrs: dict[str, dict[str, Any]] = {}
    for name, a in pd.device.attributes.items():
        dom, ident = _split(name, pd.driver)
        attrs.setdefault(dom, {})[ident] = _attr_value(a)
    caps: dict[str, dict[str, Any]] = {}
    for name, c in pd.device.capacity.items():
        dom, ident = _split(name, pd.driver)
        q = _quantity(c.value)
        caps.setdefault(dom, {})[ident] = dra_cel.quantity_value(q if q is not None
                                                                 else Fraction(0))
    attrs.setdefault(pd.driver, {})
    caps.setdefault(pd.driver, {})
    return {"driver": pd.driver, "attributes": attrs, "capacity": caps,
            "allowMultipleAllocations": False}


def attribute(pd: PoolDevice, domain: str, ident: str, kind: str = "attributes") -> str | None:
    """A device's attribute or capacity as text (``memory`` → ``80Gi``), for evidence."""
    src: Any = pd.device.attributes if kind == "attributes" else pd.device.capacity
    for name in ((ident, f"{domain}/{ident}") if domain == pd.driver else (f"{domain}/{ident}",)):
        if name in src:
            v = src[name]
            return str(v.value) if kind == "capacity" else str(v)
    return None


@dataclass(frozen=True, slots=True)
class SelectorResult:
    matches: bool
    error: str = ""
    selector: str = ""  # the expression that failed or errored
    source: str = ""  # "class NAME" or "request NAME"


def _eval_all(exprs: Iterable[tuple[str, str]], dev: dict[str, Any]) -> SelectorResult:
    for source, e in exprs:
        out = dra_cel.evaluate(e, dev)
        if out.error:
            return SelectorResult(False, out.error, e, source)
        if not out.matches:
            return SelectorResult(False, "", e, source)
    return SelectorResult(True)


def class_selectors(cls: DeviceClass | None) -> list[tuple[str, str]]:
    if cls is None:
        return []
    return [(f"DeviceClass {cls.metadata.name}", s.cel.expression)
            for s in cls.spec.selectors if s.cel is not None]


def request_selectors(name: str, req: ExactDeviceRequest) -> list[tuple[str, str]]:
    return [(f"request {name}", s.cel.expression) for s in req.selectors if s.cel is not None]


_DEVICE_WORD = re.compile(r"\bdevice\b")
_DRIVER_READ = re.compile(r"\bdevice\s*\.\s*driver\b")
_ABSENT = "absent"


def _reads(exprs: tuple[tuple[str, str], ...]) -> tuple[tuple[str, str, str], ...] | None:
    """What of a device a selector set can read, when every use of ``device`` in it is
    ``device.driver`` or ``device.attributes['dom'].id`` / ``device.capacity['dom'].id``:
    then two devices of one driver alike in those values get the same result. None when the
    expressions use ``device`` any other way (a map iterated, an attribute looked up by a
    computed key): each device is then evaluated on its own."""
    refs: list[tuple[str, str, str]] = []
    for _src, e in exprs:
        found = dra_cel.referenced(e)
        if len(_DEVICE_WORD.findall(e)) != len(found) + len(_DRIVER_READ.findall(e)):
            return None
        refs.extend(found)
    return tuple(refs)


def _read_value(pd: PoolDevice, kind: str, dom: str, ident: str) -> object:
    """The raw value of one attribute or capacity as :func:`cel_device` files it (under
    ``dom``/``ident``); a marker when absent, with whether the device has the domain at all;
    None when both spellings are present (which one CEL sees then depends on their order: the
    caller evaluates that device itself)."""
    src: Any = pd.device.attributes if kind == "attributes" else pd.device.capacity
    full = src.get(f"{dom}/{ident}")
    bare = src.get(ident) if dom == pd.driver and "/" not in ident else None
    if full is not None and bare is not None:
        return None
    v = full if full is not None else bare
    if v is None:  # CEL's error then names the key or the domain missing: which one is read
        return (_ABSENT, dom == pd.driver or any(_split(n, pd.driver)[0] == dom for n in src))
    if kind == "capacity":
        return ("capacity", str(v.value))
    return ("attribute", v.int_value, v.bool_value, v.string, v.version)


class _Matcher:
    """Selector results per (device, selector set), cached like the allocator's
    deviceMatchesRequest: many nodes share a handful of selectors. Where a selector set reads
    only some named attributes (:func:`_reads`), devices alike in those share one evaluation:
    a fleet's thousands of GPUs of one product are one CEL run, not thousands."""

    def __init__(self) -> None:
        self.cel: dict[DeviceID, dict[str, Any]] = {}
        self.cache: dict[tuple[DeviceID, tuple[tuple[str, str], ...]], SelectorResult] = {}
        self.reads: dict[tuple[tuple[str, str], ...], tuple[tuple[str, str, str], ...] | None] = {}
        self.alike: dict[tuple[object, ...], SelectorResult] = {}

    def match(self, pd: PoolDevice, exprs: tuple[tuple[str, str], ...]) -> SelectorResult:
        key = (pd.id, exprs)
        r = self.cache.get(key)
        if r is None:
            if exprs not in self.reads:
                self.reads[exprs] = _reads(exprs)
            refs = self.reads[exprs]
            alike: tuple[object, ...] | None = None
            if refs is not None:
                values = tuple(_read_value(pd, *ref) for ref in refs)
                if None not in values:
                    alike = (exprs, pd.driver, values)
                    r = self.alike.get(alike)
            if r is None:
                dev = self.cel.get(pd.id)
                if dev is None:
                    dev = self.cel[pd.id] = cel_device(pd)
                r = _eval_all(exprs, dev)
                if alike is not None:
                    self.alike[alike] = r
            self.cache[key] = r
        return r


def matcher(snap: Snapshot) -> _Matcher:
    return memo(snap, "dra-matcher", _Matcher)


def tolerated(taint: Any, tols: list[DeviceToleration]) -> bool:
    for t in tols:
        if t.effect and t.effect != taint.effect:
            continue
        if t.operator == "Exists":
            if not t.key or t.key == taint.key:
                return True
        elif t.key == taint.key and t.value == taint.value:
            return True
    return False


def blocking_taints(pd: PoolDevice, tols: list[DeviceToleration]) -> list[str]:
    return [str(t) for t in pd.device.taints
            if t.effect in BLOCKING_TAINT_EFFECTS and not tolerated(t, tols)]


# ----- claims of a pod ---------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class PodClaim:
    """One ``spec.resourceClaims`` entry resolved: the claim, or why there is none."""

    entry: str
    claim_name: str | None
    template: str | None
    claim: ResourceClaim | None


def pod_claims(snap: Snapshot, pod: Pod) -> list[PodClaim]:
    ns = pod.metadata.namespace or "default"
    statuses = {s.name: s.resource_claim_name for s in pod.status.resource_claim_statuses}
    v = view(snap)
    out = []
    for rc in pod.spec.resource_claims:
        if rc.resource_claim_name:
            name: str | None = rc.resource_claim_name
        else:
            name = statuses.get(rc.name)
        claim = v.claims.get((ns, name)) if name else None
        out.append(PodClaim(rc.name, name, rc.resource_claim_template_name, claim))
    return out


def uses_dra(snap: Snapshot) -> bool:
    """DRA is in use where some pod names a claim, or some driver publishes slices: only then
    do missing DRA inputs matter (a cluster without DRA says nothing of them)."""
    return memo(snap, "dra-in-use", lambda: bool(snap.resourceslices) or any(
        p.spec.resource_claims for p in snap.pods))


DRA_INPUTS = (Input.RESOURCECLAIMS, Input.RESOURCECLAIMTEMPLATES, Input.DEVICECLASSES,
              Input.RESOURCESLICES)


# ----- requests and allocation -------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class Request:
    """One request of a claim, with its chosen alternative (``firstAvailable`` tried in order
    by :func:`allocate`)."""

    claim: ResourceClaim
    name: str
    alternatives: tuple[tuple[str, ExactDeviceRequest], ...]

    @property
    def first(self) -> tuple[str, ExactDeviceRequest]:
        return self.alternatives[0]


def requests_of(claim: ResourceClaim) -> list[Request]:
    out = []
    for r in claim.spec.devices.requests:
        if r.exactly is not None:
            out.append(Request(claim, r.name, ((r.name, r.exactly),)))
        elif r.first_available:
            out.append(Request(claim, r.name, tuple((f"{r.name}/{s.name}", s)
                                                    for s in r.first_available)))
    return out


def selectors_for(v: DraView, name: str, req: ExactDeviceRequest) -> tuple[tuple[str, str], ...]:
    return tuple(class_selectors(v.classes.get(req.device_class_name))
                 + request_selectors(name, req))


@dataclass(slots=True)
class Allocation:
    """A node's answer for all of a pod's pending claims: devices picked, or why not."""

    node: str
    ok: bool
    picked: dict[str, list[PoolDevice]] = field(default_factory=dict)  # request → devices
    error: str = ""  # a CEL runtime error or an incomplete pool for "All": allocation aborts


def _candidates(snap: Snapshot, v: DraView, devices: list[PoolDevice], name: str,
                req: ExactDeviceRequest) -> tuple[list[PoolDevice], str]:
    m = matcher(snap)
    sels = selectors_for(v, name, req)
    out = []
    for pd in devices:
        r = m.match(pd, sels)
        if r.error:
            return [], f"{r.source}: selector on device {pd.ref}: CEL runtime error: {r.error}"
        if r.matches:
            out.append(pd)
    return out, ""


def _constraint_ok(cons: list[DeviceConstraint], chosen: list[tuple[str, PoolDevice]]) -> bool:
    for c in cons:
        if not c.match_attribute:
            continue
        dom, _, ident = c.match_attribute.rpartition("/")
        values = set()
        for req_name, pd in chosen:
            base = req_name.split("/", 1)[0]
            if c.requests and base not in c.requests and req_name not in c.requests:
                continue
            val = attribute(pd, dom, ident)
            if val is None:
                return False
            values.add(val)
        if len(values) > 1:
            return False
    return True


def allocate(snap: Snapshot, claims: list[ResourceClaim], node: Node) -> Allocation:
    """Allocate every claim on ``node`` at once, by backtracking like the allocator's
    ``allocateOne``; the first full solution wins."""
    v = view(snap)
    name = node.metadata.name
    devices = v.node_devices(node)
    # slots: one per device to pick, in claim/request order
    plan: list[tuple[ResourceClaim, Request]] = [(c, r) for c in claims for r in requests_of(c)]
    chosen: dict[int, list[tuple[str, PoolDevice]]] = defaultdict(list)  # claim idx → picks
    in_use: set[DeviceID] = set()
    budget = [MAX_SEARCH]
    picked: dict[str, list[PoolDevice]] = {}
    claim_index = {id(c): i for i, c in enumerate(claims)}

    def alternatives(req: Request) -> Iterator[tuple[str, ExactDeviceRequest, list[PoolDevice],
                                                      str]]:
        for alt_name, alt in req.alternatives:
            cands, err = _candidates(snap, v, devices, alt_name, alt)
            if err:
                yield alt_name, alt, [], err
                return
            usable = [pd for pd in cands if pd.id not in v.allocated or alt.admin_access]
            usable = [pd for pd in usable if not blocking_taints(pd, alt.tolerations)]
            if alt.allocation_mode == ALLOCATION_ALL:
                pools = {(pd.driver, pd.pool) for pd in cands}
                if any(v.pools[p].incomplete for p in pools):
                    yield alt_name, alt, [], (f"request {alt_name}: asks for all devices, but a "
                                              "resource pool is currently being updated")
                    return
                if not cands or len(usable) < len(cands):
                    continue
            yield alt_name, alt, usable, ""

    def solve(i: int) -> bool | str:
        if i == len(plan):
            return True
        claim, req = plan[i]
        for alt_name, alt, usable, err in alternatives(req):
            if err:
                return err
            must = alt.allocation_mode == ALLOCATION_ALL
            need = len(usable) if must else alt.count
            r = choose(i, claim, alt_name, usable, need, 0, [], must)
            if r:
                return r
        return False

    def choose(i: int, claim: ResourceClaim, alt_name: str, usable: list[PoolDevice],
               need: int, start: int, acc: list[PoolDevice], must: bool) -> bool | str:
        if len(acc) == need:
            picked[alt_name] = list(acc)
            r = solve(i + 1)
            if r:
                return r
            del picked[alt_name]
            return False
        ci = claim_index[id(claim)]
        for j in range(start, len(usable)):
            budget[0] -= 1
            if budget[0] < 0:
                return False
            pd = usable[j]
            if pd.id in in_use:
                continue
            chosen[ci].append((alt_name, pd))
            if _constraint_ok(claim.spec.devices.constraints, chosen[ci]):
                in_use.add(pd.id)
                acc.append(pd)
                r = choose(i, claim, alt_name, usable, need, j + 1, acc, must)
                if r:
                    return r
                acc.pop()
                in_use.discard(pd.id)
            elif must:
                # every matching device is required: the allocator treats a constraint that
                # cannot take one as an error, not as "try another" (allocator_stable.go)
                return (f"claim {claim.metadata.namespace}/{claim.metadata.name}, request "
                        f"{alt_name}: cannot add device {pd.ref} because a claim constraint "
                        "would not be satisfied")
            chosen[ci].pop()
        return False

    res = solve(0)
    if isinstance(res, str):
        return Allocation(name, False, error=res)
    return Allocation(name, res, dict(picked) if res else {})


# ----- nodes and capacity -------------------------------------------------------------------
DRA_DRIVER_LABEL = "nvidia.com/gpu.deploy.dra-driver"  # operator v26.7 (facts.md: deploy labels)


def gpu_drivers_on(snap: Snapshot, node: Node) -> list[str]:
    """GPU DRA drivers publishing devices for ``node``."""
    if not snap.resourceslices:
        return []
    return sorted(d for d in view(snap).node_drivers(node) if d in GPU_DRIVERS)


def serves_gpus_through_dra(snap: Snapshot, node: Node) -> bool:
    """The node hands out GPUs through DRA: a GPU driver publishes its devices, or the
    operator deployed the DRA driver there. Such a node without ``nvidia.com/gpu`` in its
    capacity is not a node whose device plugin is missing."""
    return bool(gpu_drivers_on(snap, node)) or \
        node.metadata.labels.get(DRA_DRIVER_LABEL) == "true"


@dataclass(frozen=True, slots=True)
class DraDevice:
    """One published device as ``capacity`` lists it."""

    name: str
    pool: str
    slice: str
    type: str
    product: str
    memory: str
    profile: str
    uuid: str
    parent_uuid: str
    taints: tuple[str, ...]
    claims: tuple[str, ...]  # ns/name of claims whose allocation lists it
    pods: tuple[str, ...]  # ns/name of pods those claims are reserved for

    def as_json(self) -> dict[str, Any]:
        return {"device": self.name, "pool": self.pool, "slice": self.slice, "type": self.type,
                "product": self.product, "memory": self.memory, "profile": self.profile or None,
                "uuid": self.uuid or None, "tainted": bool(self.taints),
                "taints": list(self.taints), "claims": list(self.claims),
                "pods": list(self.pods)}


#: the attributes ``capacity`` shows of a device, in DraDevice's order
_LISTED_ATTRIBUTES = ("type", "productName", "profile", "uuid", "parentUUID")


@functools.lru_cache(maxsize=64)
def _attribute_keys(driver: str) -> tuple[tuple[str, str], ...]:
    """Each listed attribute's plain identifier and its name qualified by the driver, the two
    ways :func:`attribute` looks it up, spelled once per driver rather than per device."""
    return tuple((ident, f"{driver}/{ident}") for ident in _LISTED_ATTRIBUTES)


def node_dra_devices(snap: Snapshot, node: Node) -> dict[str, list[DraDevice]]:
    """Every device ``capacity`` lists for one node, by driver, in one walk of the node's
    devices: a fleet has thousands of devices, six attributes each, looked up directly (the
    plain identifier first, then qualified by the driver, as :func:`attribute` reads them)."""
    v = view(snap)
    out: dict[str, list[DraDevice]] = {}
    allocated = v.allocated
    for pd in v.node_devices(node):
        driver = pd.driver
        dev = pd.device
        attrs, caps = dev.attributes, dev.capacity
        texts = []
        for ident, qualified in _attribute_keys(driver):
            a = attrs.get(ident)
            if a is None:
                a = attrs.get(qualified)
            texts.append("" if a is None else a.string if a.string is not None else str(a))
        mem = caps.get("memory")
        if mem is None:
            mem = caps.get(f"{driver}/memory")
        holders = allocated.get(pd.id)
        if holders:
            claims = tuple(sorted(f"{c.metadata.namespace or 'default'}/{c.metadata.name}"
                                  for c in holders))
            pods = tuple(sorted({f"{c.metadata.namespace or 'default'}/{r.name}"
                                 for c in holders for r in c.status.reserved_for
                                 if r.resource in ("pods", "")}))
        else:
            claims = pods = ()
        taints = tuple(str(t) for t in dev.taints if t.effect in BLOCKING_TAINT_EFFECTS) \
            if dev.taints else ()
        out.setdefault(driver, []).append(DraDevice(
            dev.name, pd.pool, pd.slice, texts[0], texts[1],
            "" if mem is None else str(mem.value), texts[2], texts[3], texts[4],
            taints, claims, pods))
    return out
