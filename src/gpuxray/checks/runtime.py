"""Gate 2 — runtime checks for pods already bound to a node (seed §2 gate 2, §4; CODES.md 3xx).

GX301 (handler missing) lives with the containerd engine; here: operands waiting in Init
(GX302), containers that never asked for a GPU (GX303), the NVML / CDI / device-access failures
that pod events, container statuses and logs carry (GX304–GX306), and the NVIDIA runtime or its
hook failing at container create although the handler exists (GX307).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass, replace

from gpuxray.checks.registry import check
from gpuxray.engines.capacity import GPU_PREFIXES, is_gpu_node, is_terminal
from gpuxray.engines.nodefacts import containerd_config_collected, runs_containerd
from gpuxray.engines.operator import (
    blocked_init,
    bound_operands,
    matches_by_code,
    operand_of_pod,
    operand_pod_on,
    operator_release,
    pod_matches,
    pod_state,
    policy,
)
from gpuxray.engines.podscan import GPU_VENDOR, runtime_scan
from gpuxray.engines.podtext import PodMatch, log_tail
from gpuxray.engines.signatures import default_matcher
from gpuxray.knowledge import cdi as cdik
from gpuxray.knowledge import clusterpolicy as cpk
from gpuxray.knowledge.operands import DEVICE_PLUGIN, STAGES, stage_of
from gpuxray.knowledge.signatures import CAUSE_BY_ID
from gpuxray.model.factory import fail, unknown
from gpuxray.model.finding import CLUSTER, Evidence, Finding, Subject
from gpuxray.model.k8s import Container, Pod
from gpuxray.model.snapshot import Input, Snapshot, memo

MAX_EVIDENCE = 6
# Images that only make sense with a GPU (CUDA base images, NGC frameworks).
_GPU_IMAGE = re.compile(r"(?:^|/)(?:cuda|pytorch|tensorflow|tritonserver|nemo|cuda-sample|"
                        r"dcgm|nvidia-smi)(?:[:@/-]|$)|nvcr\.io/nvidia/", re.IGNORECASE)
_VISIBLE_OFF = {"", "void", "none"}


def pod_subject(pod: Pod) -> Subject:
    return Subject("Pod", pod.metadata.name, pod.metadata.namespace or "default")


def _matches_for(snap: Snapshot, pod: Pod, code: str) -> list[PodMatch]:
    return matches_by_code(snap, code).get(
        (pod.metadata.namespace or "default", pod.metadata.name), [])


def _dedup(ms: list[PodMatch]) -> list[Evidence]:
    seen: dict[tuple[str, str], Evidence] = {}
    for m in ms:
        ev = m.evidence
        seen.setdefault((ev.source, ev.detail), ev)
    return list(seen.values())[:MAX_EVIDENCE]


# ----- GX302 -----------------------------------------------------------------------------
def upstream_evidence(snap: Snapshot, stage_name: str, node: str,
                      depth: int = 0) -> tuple[str, list[Evidence]]:
    """The earlier stage's pod on ``node``: its state and its telling log lines (seed §4).

    When that pod is itself waiting in Init, follow the chain to the stage it waits for, so the
    evidence ends at the first stage that is really broken (device plugin → toolkit → driver).
    """
    stage = STAGES[stage_name]
    cp = policy(snap)
    if stage_name == "driver" and cp is not None and not cpk.driver_enabled(cp):
        evs = [Evidence(snap.source(Input.CLUSTERPOLICIES),
                        "spec.driver.enabled=false: the host's driver is expected")]
        host = snap.hosts.get(node)
        if host is not None:
            for name in ("dmesg.txt", "nvidia-smi.txt", "lsmod.txt"):
                text = host.cmds.get(name) or host.cmd_errors.get(name)
                if text:
                    for m in default_matcher().scan_text(text)[:3]:
                        evs.append(Evidence(host.source("cmd", name), m.line))
        return "host driver", evs
    if stage_name == "toolkit" and cp is not None and not cpk.component_enabled(cp, "toolkit"):
        return "host container toolkit", [Evidence(
            snap.source(Input.CLUSTERPOLICIES),
            "spec.toolkit.enabled=false: the host must provide the nvidia runtime; the "
            "validator writes toolkit-ready once injection works")]
    if not stage.producer:
        return stage.title, []
    up = operand_pod_on(snap, stage.producer, node)
    if up is None:
        return f"no {stage.producer} pod on {node}", [
            Evidence(snap.source(Input.PODS), f"no pod of {stage.producer} on node {node}")]
    ns = up.metadata.namespace or "default"
    evs = [Evidence(snap.source(Input.PODS), f"{up.metadata.name}: {pod_state(up)}")]
    inner = blocked_init(up)
    inner_stage = stage_of(inner.init) if inner else None
    if inner_stage is not None and depth < 3 and inner_stage.name != stage_name:
        deeper, more = upstream_evidence(snap, inner_stage.name, node, depth + 1)
        return (f"{up.metadata.name} ({pod_state(up)}), itself waiting for "
                f"{inner_stage.title}: {deeper}"), [*evs, *more]
    ms = pod_matches(snap).get((ns, up.metadata.name), [])
    if ms:
        evs.extend(_dedup(ms)[:4])
    else:
        evs.extend(log_tail(snap, ns, up.metadata.name, n=3))
    return f"{up.metadata.name} ({pod_state(up)})", evs


@check("GX302", needs=(Input.OPERATOR_PODS,))
def operand_init_blocked(snap: Snapshot) -> Iterator[Finding]:
    """Seed §1/§4: the operator orders operands only by init containers that wait for a
    validation file; a pod stuck in Init names the stage that is not ready, and the reason is in
    that earlier stage's pod on the same node (facts.md §5.1)."""
    ns = snap.operator_namespace
    for pod, _op in bound_operands(snap):
        b = blocked_init(pod)
        if b is None:
            continue
        stage = stage_of(b.init)
        if stage is None:
            continue
        upstream, evs = upstream_evidence(snap, stage.name, pod.spec.node_name)
        own = [Evidence(snap.source(Input.PODS),
                        f"init container {b.init}: {b.state}"
                        + (f" (waits for {stage.validation_file})"
                           if stage.validation_file else ""))]
        own += log_tail(snap, ns, pod.metadata.name, b.init, n=2)
        yield fail("GX302", pod_subject(pod), [*own, *evs], pod=pod.metadata.name,
                   init=b.init, stage=stage.title, stage_id=stage.name,
                   node=pod.spec.node_name, upstream=upstream,
                   validation_file=stage.validation_file or "")


# ----- GX303 -----------------------------------------------------------------------------
def _requests_gpu(c: Container) -> bool:
    return (any(k.startswith(GPU_PREFIXES) for k in c.resources.limits)
            or any(k.startswith(GPU_PREFIXES) for k in c.resources.requests))


ENVVAR_KEY = "accept-nvidia-visible-devices-envvar-when-unprivileged"
ENVVAR_ENV = "ACCEPT_NVIDIA_VISIBLE_DEVICES_ENVVAR_WHEN_UNPRIVILEGED"
TOOLKIT_CONFIG = "etc/nvidia-container-runtime/config.toml"
TOOLKIT_DS = "nvidia-container-toolkit-daemonset"


def envvar_policy(snap: Snapshot, node: str) -> tuple[bool | None, Evidence | None]:
    """Whether the toolkit on ``node`` honours NVIDIA_VISIBLE_DEVICES from unprivileged
    containers (facts.md §2; toolkit default true): the host's ``config.toml`` key, else the
    toolkit container's env (operand pod on the node, then ClusterPolicy ``toolkit.env``)."""
    host = snap.hosts.get(node)
    text = host.files.get(TOOLKIT_CONFIG) if host is not None else None
    if host is not None and text:
        import tomllib  # only for a collected toolkit config (~5 ms of imports)

        try:
            val = tomllib.loads(text).get(ENVVAR_KEY)
        except tomllib.TOMLDecodeError:
            val = None
        if isinstance(val, bool):
            return val, Evidence(host.source("files", TOOLKIT_CONFIG), f"{ENVVAR_KEY} = "
                                 + str(val).lower())
    envs: list[tuple[str, str | None]] = []
    pod = operand_pod_on(snap, TOOLKIT_DS, node)
    if pod is not None:
        envs += [(f"pod {pod.metadata.name}", e.value) for c in pod.spec.containers
                 for e in c.env if e.name == ENVVAR_ENV]
    cp = policy(snap)
    tk = cp.spec.get("toolkit") if cp is not None else None
    if isinstance(tk, dict) and isinstance(tk.get("env"), list):
        envs += [("ClusterPolicy toolkit.env", str(e.get("value")))
                 for e in tk["env"] if isinstance(e, dict) and e.get("name") == ENVVAR_ENV]
    for where, value in envs:
        v = (value or "").strip().lower()
        if v in ("false", "true"):
            src = snap.source(Input.PODS if where.startswith("pod") else Input.CLUSTERPOLICIES)
            return v == "true", Evidence(src, f"{where}: {ENVVAR_ENV}={v}")
    return None, None


# RuntimeClasses the operator creates; their handlers run the NVIDIA runtime, which reads
# NVIDIA_VISIBLE_DEVICES (NVIDIA/gpu-operator@v26.7.0:controllers/object_controls.go).
NVIDIA_RUNTIME_CLASSES = frozenset({"nvidia", "nvidia-cdi", "nvidia-legacy"})


def runs_nvidia_runtime(snap: Snapshot, pod: Pod) -> bool | None:
    """Whether the pod's containers run under the NVIDIA runtime (which honours
    NVIDIA_VISIBLE_DEVICES). With CDI on (the default since v25.10) the operator sets
    ``NVIDIA_RUNTIME_SET_AS_DEFAULT=false`` (``transformToolkitCtrForCDI``), so only a pod with an
    NVIDIA RuntimeClass does; with CDI off the toolkit makes ``nvidia`` containerd's default.
    None when it cannot be told (no ClusterPolicy, or the host's own toolkit)."""
    if pod.spec.runtime_class_name in NVIDIA_RUNTIME_CLASSES:
        return True
    cp = policy(snap)
    if cp is None:
        return None
    if cpk.cdi_enabled(cp, operator_release(snap)):
        return False
    return True if cpk.component_enabled(cp, "toolkit") else None


def no_gpu_problem(pod: Pod, c: Container, *, image_hint: bool = True,
                   accept_envvar: bool | None = None,
                   nvidia_runtime: bool | None = None) -> str | None:
    """Why a container looks like a GPU workload that asked for no GPU, or None.

    ``image_hint``: also count a CUDA/NGC image as intent. ``why`` asks about one pod, so the
    hint helps there; fleet-wide ``check`` leaves it out, since CUDA images run CPU work too.
    ``accept_envvar``: the node's toolkit setting (:func:`envvar_policy`), None when unknown.
    ``nvidia_runtime``: :func:`runs_nvidia_runtime`; under runc the variable does nothing."""
    if _requests_gpu(c):
        return None
    env = {e.name: (e.value or "") for e in c.env}
    vis = env.get("NVIDIA_VISIBLE_DEVICES")
    if vis is not None and vis.strip().lower() not in _VISIBLE_OFF:
        privileged = bool(c.security_context and c.security_context.privileged)
        if nvidia_runtime is False:
            how = ("the pod runs under runc (CDI is on and it has no NVIDIA RuntimeClass): "
                   "nothing reads the variable"
                   + ("; being privileged it still sees the host's /dev/nvidia* nodes, "
                      "without the driver libraries" if privileged else
                      ", so the container gets no GPU"))
        elif privileged:
            how = "privileged: it sees GPUs the scheduler never gave it"
        elif accept_envvar is False:
            how = (f"unprivileged, and the node's toolkit sets {ENVVAR_KEY} = false: the "
                   "variable is ignored and the container gets no GPU")
        elif accept_envvar is True:
            how = ("unprivileged, and the node's toolkit honours the variable: it sees GPUs "
                   "the scheduler never gave it")
        else:
            how = f"unprivileged: the toolkit may ignore the variable ({ENVVAR_KEY})"
        return (f"sets NVIDIA_VISIBLE_DEVICES={vis} but requests no GPU in limits ({how})")
    if any(_requests_gpu(x) for x in (*pod.spec.containers, *pod.spec.init_containers)):
        return None
    if image_hint and _GPU_IMAGE.search(c.image):
        return f"runs GPU image {c.image} but requests no GPU in limits"
    if any(k.startswith(GPU_VENDOR) for k in pod.metadata.annotations):
        return "has nvidia.com/* annotations but requests no GPU in limits"
    return None


@check("GX303", needs=(Input.PODS,))
def no_gpu_requested(snap: Snapshot) -> Iterator[Finding]:
    """Seed §4 ("Running but nvidia-smi fails: limits missing"), §9: a GPU is only injected for
    a container that asks for it in limits; NVIDIA_VISIBLE_DEVICES alone is not a request and
    unprivileged containers may have it ignored (facts.md §2). Fleet-wide, only explicit intent
    counts (the variable, ``nvidia.com/*`` annotations); ``why`` also reads the image."""
    ns_op = snap.operator_namespace
    for pod in runtime_scan(snap).intent:  # bound, not terminal, the variable or an annotation
        ns = pod.metadata.namespace or "default"
        if ns == ns_op or ns == "kube-system":
            continue
        if pod.spec.runtime_class_name and operand_of_pod(pod) is not None:
            continue
        annotated = any(k.startswith(GPU_VENDOR) for k in pod.metadata.annotations)
        for c in pod.spec.containers:
            has_var = False
            for e in c.env:
                if e.name == "NVIDIA_VISIBLE_DEVICES":
                    has_var = True
                    break
            if has_var:
                accept, acc_ev = envvar_policy(snap, pod.spec.node_name)
            elif not annotated:
                continue  # no explicit intent: nothing for the fleet-wide check to say
            else:
                accept, acc_ev = None, None
            problem = no_gpu_problem(pod, c, image_hint=False, accept_envvar=accept,
                                     nvidia_runtime=runs_nvidia_runtime(snap, pod))
            if not problem:
                continue
            evs = [Evidence(
                snap.source(Input.PODS),
                f"{ns}/{pod.metadata.name} container {c.name} on {pod.spec.node_name}: limits "
                f"{dict(c.resources.limits) or '{}'}")]
            if acc_ev is not None:
                evs.append(acc_ev)
            yield fail("GX303", pod_subject(pod), evs, container=c.name, problem=problem,
                       node=pod.spec.node_name, envvar_accepted=accept,
                       nvidia_runtime=runs_nvidia_runtime(snap, pod))


# ----- GX304 / GX306 / GX305 -------------------------------------------------------------
# A line that a more specific cause claims is not evidence for a generic one: the toolkit's
# ``nvidia-container-cli: initialization error: load library failed: libnvidia-ml.so.1`` is an
# injection failure at create (GX307), not NVML failing inside a running container (GX304).
CLAIMED_BY: dict[str, tuple[str, ...]] = {"GX304": ("GX307",)}


def _signature_check(snap: Snapshot, code: str) -> Iterator[Finding]:
    for (ns, name), ms in matches_by_code(snap, code).items():  # pod_matches' order
        pod = snap.pod_by_key.get((ns, name))
        if pod is None:
            continue
        if code in CLAIMED_BY:
            claimed = {(m.text.source, m.match.line) for other in CLAIMED_BY[code]
                       for m in _matches_for(snap, pod, other)}
            ms = [m for m in ms if (m.text.source, m.match.line) not in claimed]
        if not ms:
            continue
        first = ms[0]
        cause = CAUSE_BY_ID[first.match.signature.primary]
        yield fail(code, pod_subject(pod), _dedup(ms), subject_desc=f"{ns}/{name}",
                   line=first.match.line[:300], cause=cause.id, node=pod.spec.node_name,
                   detail=f"{ns}/{name}: {first.match.line[:300]}")


@check("GX304", needs=(Input.PODS,))
def nvml_failure(snap: Snapshot) -> Iterator[Finding]:
    """Seed §4: Running but nvidia-smi fails — ``Failed to initialize NVML`` (driver not
    loaded) or ``Driver/library version mismatch`` (module upgraded under running user space)."""
    yield from _signature_check(snap, "GX304")


@check("GX306", needs=(Input.PODS,))
def device_access_lost(snap: Snapshot) -> Iterator[Finding]:
    """Seed §4 "device access lost": ``NVML: Unknown Error`` in a container that had the GPU —
    a systemd daemon-reload rewrote the cgroup device rules under it."""
    yield from _signature_check(snap, "GX306")


@dataclass(frozen=True, slots=True)
class NodeSpec:
    """One CDI spec file found on a node: its kind and device names (or why it is unreadable)."""

    path: str
    kind: str
    devices: frozenset[str]
    error: str = ""


def node_cdi_specs(files: dict[str, str]) -> list[NodeSpec]:
    """Every spec under containerd's default ``cdi_spec_dirs`` (``/etc/cdi``, ``/var/run/cdi``),
    JSON (the device plugin's) or YAML (the toolkit's), by the kind it declares."""
    import yaml  # only where a node's CDI dirs were collected (~30 ms of every check's start)

    out: list[NodeSpec] = []
    for path in sorted(files):
        if not path.startswith(cdik.CDI_DIRS) or not path.endswith((".yaml", ".yml", ".json")):
            continue
        text = files[path]
        try:
            doc = json.loads(text) if path.endswith(".json") else yaml.safe_load(text)
        except (ValueError, yaml.YAMLError) as e:
            out.append(NodeSpec(path, "", frozenset(), f"unparsable: {str(e)[:120]}"))
            continue
        if not isinstance(doc, dict) or not isinstance(doc.get("kind"), str):
            out.append(NodeSpec(path, "", frozenset(), "no kind"))
            continue
        devs = doc.get("devices")
        names = frozenset(str(d.get("name")) for d in devs if isinstance(d, dict)
                          and d.get("name") is not None) if isinstance(devs, list) else frozenset()
        out.append(NodeSpec(path, doc["kind"], names))
    return out


# ``unresolvable CDI devices k8s.device-plugin.nvidia.com/gpu=GPU-…, …`` (tags.cncf.io/
# container-device-interface pkg/cdi/cache.go): the fully-qualified names containerd could not
# resolve.
_UNRESOLVED = re.compile(r"unresolvable CDI devices? ([^\s\"',;]+=[^\s\"',;]+"
                         r"(?:,\s*[^\s\"',;]+=[^\s\"',;]+)*)", re.IGNORECASE)


def unresolved_names(snap: Snapshot, node: str) -> dict[str, list[str]]:
    """CDI names (``kind=device``) the pods on ``node`` failed to resolve, by ``ns/pod``: the
    device names those pods were really given."""
    out: dict[str, list[str]] = {}
    for pod in snap.pods_by_node.get(node, []):
        key = f"{pod.metadata.namespace or 'default'}/{pod.metadata.name}"
        for m in _matches_for(snap, pod, "GX305"):
            for hit in _UNRESOLVED.finditer(m.match.line):
                for name in re.split(r",\s*", hit.group(1)):
                    if name not in out.setdefault(key, []):
                        out[key].append(name)
    return {k: v for k, v in out.items() if v}


def _running(pod: Pod | None) -> bool:
    return pod is not None and pod.status.phase == "Running" and all(
        st.ready for st in pod.status.container_statuses)


def expected_cdi_specs(snap: Snapshot, cp_toolkit: bool, node: str) -> list[cdik.CdiSpec]:
    """The specs the operator's components on ``node`` have written by now: the device plugin's
    once its pod runs (it writes the spec at start), the toolkit's once its pod runs (when the
    operator deploys the toolkit). ``/var/run`` is tmpfs, so a pod that has not run since boot
    has written nothing; that is the pod's problem, reported by the operand checks."""
    want: list[cdik.CdiSpec] = []
    if _running(operand_pod_on(snap, DEVICE_PLUGIN, node)):
        want.append(cdik.DEVICE_PLUGIN_SPEC)
    if cp_toolkit and _running(operand_pod_on(snap, TOOLKIT_DS, node)):
        want.append(cdik.TOOLKIT_SPEC)
    return want


CREATE_STUCK = ("ContainerCreating", "CreateContainerError", "RunContainerError")


def _stuck_gpu_pods(snap: Snapshot, node: str) -> list[Pod]:
    """GPU pods on ``node`` whose containers never got created."""
    return memo(snap, "gx305-stuck", lambda: _stuck_by_node(snap)).get(node, [])


def _stuck_by_node(snap: Snapshot) -> dict[str, list[Pod]]:
    """Every node's stuck GPU pods from one look at gate 2's troubled pods (a container waiting
    to be created is not ready, so every stuck pod is among them), not a walk of each GPU
    node's pods."""
    out: dict[str, list[Pod]] = {}
    for pod in runtime_scan(snap).troubled:
        if is_terminal(pod) or not any(_requests_gpu(c) for c in pod.spec.containers):
            continue
        if any(st.state.waiting and st.state.waiting.reason in CREATE_STUCK
               for st in pod.status.container_statuses):
            out.setdefault(pod.spec.node_name, []).append(pod)
    return out


@check("GX305", needs=(Input.PODS,))
def cdi_unresolvable(snap: Snapshot) -> Iterator[Finding]:
    """facts.md §5.5: since operator v25.10 CDI injects GPUs; a pod whose CDI names no spec on
    the node resolves fails at create (``unresolvable CDI devices``). With the node's CDI dirs
    collected and CDI on, each operator component that runs there must have written its spec
    under its own kind (knowledge/cdi.py): the device plugin ``k8s.device-plugin.nvidia.com/gpu``
    with devices, the toolkit ``management.nvidia.com/gpu`` with ``all``. A host
    ``nvidia.com/gpu`` spec is no substitute. Without the node's CDI dirs nothing is concluded
    about its specs: the node is reported as unknown, naming them."""
    yield from _signature_check(snap, "GX305")
    cp = policy(snap)
    if cp is None or not snap.has(Input.NODES):
        return
    if not cpk.cdi_enabled(cp, operator_release(snap)):
        return
    toolkit_on = cpk.component_enabled(cp, "toolkit")
    # pods whose own events/statuses already name the create-time cause need no node verdict
    decided = {(f.subject.namespace, f.subject.name) for code in ("GX301", "GX305", "GX307")
               for f in _signature_check(snap, code)}
    gaps: list[tuple[str, str, list[Pod]]] = []
    for node in snap.nodes:
        name = node.metadata.name
        if not is_gpu_node(node):
            continue
        host = snap.hosts.get(name)
        unreadable = [p for p in (host.unreadable if host is not None else {})
                      if p.startswith(("etc/cdi", "var/run/cdi"))]
        # the node's files count as collected when its containerd config is there (the collector
        # mirrors /etc/cdi and /var/run/cdi with it, BUNDLE.md); a node on another runtime has
        # none, so any collected file counts
        collected = host is not None and (
            containerd_config_collected(host) if runs_containerd(snap, name)
            else bool(host.files))
        if host is None or not collected or unreadable:
            stuck = [p for p in _stuck_gpu_pods(snap, name)
                     if (p.metadata.namespace or "default", p.metadata.name) not in decided]
            why = (f"nodes/{name}/files/{unreadable[0]} unreadable" if unreadable
                   else f"nodes/{name}/files/etc/cdi, var/run/cdi not collected")
            gaps.append((name, why, stuck))
            continue
        want = expected_cdi_specs(snap, toolkit_on, name)
        specs = node_cdi_specs(host.files)
        by_kind: dict[str, list[NodeSpec]] = {}
        for sp in specs:
            by_kind.setdefault(sp.kind, []).append(sp)
        missing = [w for w in want
                   if not any(sp.devices for sp in by_kind.get(w.kind, []))
                   or (w is cdik.TOOLKIT_SPEC
                       and not any("all" in sp.devices for sp in by_kind.get(w.kind, [])))]
        # names pods were really given that no spec on the node declares (a stale spec)
        unresolved = {pod: [n for n in names if n.split("=", 1)[1] not in {
            d for sp in by_kind.get(n.split("=", 1)[0], []) for d in sp.devices}]
            for pod, names in unresolved_names(snap, name).items()}
        unresolved = {k: v for k, v in unresolved.items() if v}
        if not missing and not unresolved:
            continue
        if not missing:
            pods_, names_ = next(iter(unresolved.items()))
            yield fail("GX305", Subject("Node", name), [
                *(Evidence(host.source("files", sp.path),
                           f"kind {sp.kind}: {', '.join(sorted(sp.devices)[:8])}")
                  for sp in specs[:3]),
                Evidence(snap.source(Input.PODS), f"{pods_}: unresolvable {', '.join(names_)}")],
                node=name, subject_desc=name, missing_kinds=[], unresolved=unresolved,
                spec_kinds=sorted(by_kind), host_spec_only=False, sources=[],
                detail=f"{name}: pods were given CDI devices no spec on the node declares "
                       f"({', '.join(names_[:3])})")
            continue
        evs = [Evidence(host.source("files", m.path),
                        f"no CDI spec of kind {m.kind} in /etc/cdi or /var/run/cdi "
                        f"(written by the {m.producer}, devices {m.devices})") for m in missing]
        evs += [Evidence(host.source("files", sp.path),
                         f"kind {sp.kind or '?'}: {sp.error or ', '.join(sorted(sp.devices))}")
                for sp in specs[:3]]
        evs.append(Evidence(snap.source(Input.CLUSTERPOLICIES), "spec.cdi.enabled is on"))
        host_only = bool(by_kind.get(cdik.HOST_SPEC.kind))
        yield fail("GX305", Subject("Node", name), evs[:MAX_EVIDENCE], node=name,
                   subject_desc=name, missing_kinds=[m.kind for m in missing],
                   unresolved=unresolved,
                   spec_kinds=sorted(by_kind), host_spec_only=host_only,
                   sources=[m.source for m in missing],
                   detail=f"{name}: CDI is enabled but no spec of kind "
                          f"{', '.join(m.kind for m in missing)} is on the node"
                          + (" (a host nvidia.com/gpu spec does not resolve those names)"
                             if host_only else ""))
    if gaps:
        yield _cdi_gaps(snap, gaps)


def _cdi_gaps(snap: Snapshot, gaps: list[tuple[str, str, list[Pod]]]) -> Finding:
    """One unknown for every CDI-on GPU node whose CDI dirs were not read (docs/json.md,
    "Unknowns about many nodes"). Without any host files the missing input is ``nodes/`` itself,
    and the unknown says so once, as every node-file check does: it holds for every node and
    counts them (``node_count``) instead of listing the cluster's GPU nodes — a list that grew
    with the fleet (4,000 names, 80 KB of one finding) and said nothing the count does not.
    With host files there, the nodes lacking their CDI dirs are what to go and collect: listed,
    once, in ``nodes``. Pods stuck at create are the evidence either way."""
    names = [n for n, _w, _s in gaps]
    stuck_ev = [Evidence(snap.source(Input.PODS), f"{p.metadata.namespace}/"
                         f"{p.metadata.name} waits for container create")
                for _n, _w, ps in gaps for p in ps][:4]
    subject = Subject("Node", names[0]) if len(names) == 1 else CLUSTER
    st = snap.state(Input.HOSTS)
    if not snap.has(Input.HOSTS):  # no host files at all: name that input, as others do
        f = unknown("GX305", subject, st.source, st.reason or "not collected",
                    evidence=[*stuck_ev, Evidence(st.source, st.reason or "not collected")])
        return replace(f, params={**f.params, "node_count": len(names)})
    path = (f"nodes/{names[0]}/files/etc/cdi, var/run/cdi" if len(names) == 1
            else "nodes/*/files/etc/cdi, var/run/cdi")
    f = unknown("GX305", subject, path, st.reason or "not collected",
                evidence=[*stuck_ev, *(Evidence(f"nodes/{n}/files/var/run/cdi", w)
                                       for n, w, _s in gaps[:10])])
    return replace(f, params={**f.params, "nodes": names, "node_count": len(names)})


# ----- GX307 -----------------------------------------------------------------------------
JOURNALS = ("journal-containerd.txt", "journal-kubelet.txt")


@check("GX307", needs=(Input.PODS,))
def runtime_injection_failed(snap: Snapshot) -> Iterator[Finding]:
    """Seed §2 gate 2, §4: the ``nvidia`` handler exists (else GX301) but container create fails
    in the NVIDIA runtime or its hook — ``OCI runtime create failed … error running hook #0``,
    ``nvidia-container-cli: initialization error: load library failed: libnvidia-ml.so.1``
    (driver libraries missing), or the runtime binary the config names is gone
    (``fork/exec …/nvidia-container-runtime: no such file or directory``). Pods say it in events
    and statuses; a node says it in containerd's journal. A bundle does not list host binaries,
    so a missing BinaryName is only concluded from those error lines, never from the config."""
    yield from _signature_check(snap, "GX307")
    if not any(host.cmds.get(name) for host in snap.hosts.values() for name in JOURNALS):
        return  # no journal to scan: the matcher (a hundred-odd regexes) is not built for none
    matcher = default_matcher()
    for host in sorted(snap.hosts.values(), key=lambda h: h.node):
        evs: list[Evidence] = []
        for name in JOURNALS:
            text = host.cmds.get(name)
            if not text:
                continue
            for m in matcher.scan_text(text):
                if CAUSE_BY_ID[m.signature.primary].code != "GX307":
                    continue
                ev = Evidence(host.source("cmd", name), m.line[:300])
                if ev not in evs:
                    evs.append(ev)
        if evs:
            yield fail("GX307", Subject("Node", host.node), evs[-MAX_EVIDENCE:],
                       subject_desc=host.node, node=host.node, line=evs[-1].detail,
                       detail=f"{host.node}: {evs[-1].detail}")
