"""``triage``: rank the known causes that pasted text points to (seed §4, §8).

A paste is evidence in two ways. Its parts are parsed into a partial Snapshot (describe node/pod,
events tables, dmesg, lsmod, mokutil, systemctl status, nvidia-smi, a containerd config dump,
object YAML/JSON: ``sources.pasted``) and the bundle's own checks run on it, so a describe node
whose Capacity exceeds Allocatable gives GX203 with the lost device count, a config dump without
the nvidia runtime gives GX301 with the handlers it has, dmesg Xids give GX505. And every line is
scanned against the signature catalog. Both vote; a check's failing finding decides. What the
paste lacks stays ``unknown`` (listed, never a cause). When the top cause has no deciding line —
the classic case is a lone ``Insufficient nvidia.com/gpu`` — the result says so and names what
to collect to tell the top two apart, instead of guessing.

Two orderings follow seed §4's tree. A symptom the paste shows together with its root (the
validator waiting and the driver install that stopped; the sandbox error and the drop-in)
ranks under the root when the root has evidence of its own (``CAUSE_CHAIN``); lines that name
several causes at once never count as that evidence against a deciding symptom. And when no
line names a cause, the components that printed the text still narrow it: their usual
failures get small, undecided votes (``COMPONENTS``), unless their own log shows them ready.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from typing import Any

from gpuxray.checks.engine import run_all
from gpuxray.diagnose.readings import (
    containerd_default_runtime,
    dangling_toolkit_link,
    distro_rendered_config,
    driver_drops_gpu,
    gpu_columns,
    gpu_works_outside_cri,
    host_without_driver,
    nvidia_runtime_shown,
    plugin_envvar_ignored,
    plugin_works_by_hand,
    readings,
    rhel_release_mismatch,
    run_without_gpus,
    runtime_binary_twins,
    toolkit_release_fix,
    unattended_upgrades,
    vote,
)
from gpuxray.engines.capacity import is_gpu_node, node_rows
from gpuxray.engines.plugin_config import validate
from gpuxray.engines.signatures import (
    CauseScore,
    Match,
    collect_next,
    full_matcher,
    is_decided,
    rank,
    ruled_out,
)
from gpuxray.knowledge.codes import CATALOG
from gpuxray.knowledge.signatures import (
    CAUSE_BY_ID,
    CAUSE_CHAIN,
    CAUSES,
    CHECK_CAUSE,
    CLUSTERPOLICY_STATE_ORDER,
    COMPONENTS,
    HOST_STATE_ROOTS,
    OPERAND_STATE_VOTES,
    SIGNATURES,
    TROUBLE,
    Cause,
)
from gpuxray.model.factory import fail
from gpuxray.model.finding import Evidence, Finding, Severity, Status, Subject
from gpuxray.model.snapshot import Snapshot
from gpuxray.sources.parsers import hostcmds, paste, wide
from gpuxray.sources.parsers.cleanup import RFC3339_STAMP, clean_lines
from gpuxray.sources.parsers.paste import Part
from gpuxray.sources.parsers.versions import parse_containerd_version, version_tuple
from gpuxray.sources.pasted import TextInput, paste_evidence

CHECK_WEIGHT = 5.0  # an error-level finding of a bundle check: the paste decides it
CHECK_WARN_WEIGHT = 1.5
MAX_UNKNOWN = 12
MAX_MATCHED = 8  # lines kept per cause: a paste of thousands of failing pods stays linear
# GX403/GX406 ``cause_id`` values of a finding that read a pod's state and no deciding line
STATE_ONLY = frozenset({"not-ready", "crashloop", "undetermined"})
LABEL_CODES = frozenset({"GX401", "GX414"})  # read node labels
STATUS_CODES = frozenset({"GX410"})  # read a ClusterPolicy's status


@dataclass(slots=True)
class TriageResult:
    causes: list[CauseScore]
    collect_next: str
    decided: bool
    findings: list[Finding]
    inputs: list[str]
    lines_scanned: int
    skipped: list[tuple[str, str]] = field(default_factory=list)
    parts: dict[str, int] = field(default_factory=dict)  # part kind -> count
    unknown: list[Finding] = field(default_factory=list)  # checks the paste cannot decide

    def extra(self) -> dict[str, Any]:
        return {"causes": [c.as_json() for c in self.causes],
                "decided": self.decided, "collect_next": self.collect_next,
                "inputs": self.inputs, "lines_scanned": self.lines_scanned,
                "parts": dict(self.parts),
                "unknown": [{"code": f.code, "missing": f.params.get("missing", ""),
                             "reason": f.params.get("reason", "")} for f in self.unknown],
                "skipped": [{"input": n, "reason": r} for n, r in self.skipped]}


def _finding(cs: CauseScore, origin: dict[str, str], subject: Subject) -> Finding:
    info = CATALOG[cs.cause.code]
    evs = tuple(Evidence(origin.get(line, subject.name), line) for line in cs.matched)
    how = "decided by a line only this cause prints" if cs.deciding else \
        "no deciding line: a look-alike is possible"
    return Finding(code=info.code, name=info.name, severity=info.severity, status=Status.FAIL,
                   subject=subject, message=f"{cs.cause.title} (score {cs.score:.2f}; {how})",
                   evidence=evs, remedy=info.remedy,
                   params={"cause": cs.cause.id, "score": round(cs.score, 2),
                           "deciding": cs.deciding})


def _check_cause(f: Finding) -> Cause:
    cid = CHECK_CAUSE.get(f.code)
    if f.code == "GX403":
        # the driver check names the cause its pod's lines decide, else only that the pod fails
        named = str(f.params.get("cause_id") or "")
        cid = named if named in CAUSE_BY_ID and CAUSE_BY_ID[named].code == "GX403" \
            else "driver-failing"
    if f.code == "GX405":
        cid = "fm-version" if "version-mismatch" in (f.params.get("causes") or []) \
            else "fm-missing"
    if cid is not None:
        return CAUSE_BY_ID[cid]
    info = CATALOG[f.code]
    return Cause(f"check-{f.code}", f.code, info.summary.rstrip("."), info.remedy)


def node_arithmetic(snap: Snapshot) -> list[Finding]:
    """Seed §2 gate 1 on a pasted ``kubectl describe node`` with no pending pod to walk:
    capacity > allocatable is devices lost (GX203, with the count); a GPU node advertising 0
    is the plugin gone (GX202); Allocated resources = allocatable is full (GX204). The same
    capacity rows ``capacity`` prints (``engines.capacity.node_rows``)."""
    out: list[Finding] = []
    for node in snap.nodes:
        legacy = _legacy_only(node)
        if legacy is not None:
            out.append(legacy)
            continue
        if not is_gpu_node(node):
            continue
        name = node.metadata.name
        subj = Subject("Node", name)
        described = node.status.described_allocated
        for row in node_rows(snap, node):
            ev = [Evidence(f"describe node {name}",
                           f"{row.resource}: capacity {row.capacity}, allocatable "
                           f"{row.allocatable}"
                           + (f", allocated {described[row.resource]}"
                              if row.resource in described else ""))]
            if row.capacity > row.allocatable:
                out.append(fail("GX203", subj, ev, resource=row.resource, nodes=name,
                                lost=row.unhealthy, capacity=row.capacity,
                                allocatable=row.allocatable,
                                detail=f"{row.unhealthy} of {row.capacity} device(s) not "
                                       f"allocatable (unhealthy, or the plugin just left)"))
            elif row.capacity == 0:
                out.append(fail("GX202", subj, ev, resource=row.resource,
                                detail=f"{name} advertises {row.resource} with capacity 0 "
                                       "(the plugin left more than 5 minutes ago)"))
            elif row.resource in described and row.allocatable > 0 and \
                    row.allocated >= row.allocatable:
                out.append(fail("GX204", subj, ev, resource=row.resource, candidates=1,
                                allocated=row.allocated, allocatable=row.allocatable,
                                requested="more"))
    return out


# The kubelet's in-tree accelerator resource (kubelet --feature-gates=Accelerators, removed in
# Kubernetes 1.11: kubernetes/kubernetes@v1.10.0:pkg/kubelet/gpu/nvidia/nvidia_gpu_manager.go).
# A node that still shows it but no ``nvidia.com/gpu`` has GPUs the device plugin never
# registered: what a pod asking for ``nvidia.com/gpu`` waits on.
LEGACY_GPU = "alpha.kubernetes.io/nvidia-gpu"


def _legacy_only(node: Any) -> Finding | None:
    cap = node.status.capacity
    if LEGACY_GPU not in cap or any(k.startswith("nvidia.com/") for k in cap):
        return None
    name = node.metadata.name
    return fail("GX202", Subject("Node", name),
                [Evidence(f"describe node {name}",
                          f"{LEGACY_GPU}: capacity {cap[LEGACY_GPU]}; no nvidia.com/gpu")],
                resource="nvidia.com/gpu",
                detail=f"{name} shows only the kubelet's legacy {LEGACY_GPU}: the device plugin "
                       "never registered nvidia.com/gpu")


# Seed §4's first branch for a node that shows no GPU resource at all: nothing ever registered
# one, so the device plugin never ran there. Its DaemonSet selects nodes by the labels NFD/GFD
# set (missing labels), or skips a taint it does not tolerate; a plugin that started and failed
# is the next branch. Votes, never deciding: the DaemonSet's DESIRED and the labels tell.
NO_GPU_RESOURCE_VOTES = (("nodes-unlabelled", 1.0), ("not-advertised", 0.9),
                         ("operand-taint", 0.75))


# GKE runs its own device plugin as an add-on on every node labelled
# cloud.google.com/gke-accelerator and taints those nodes nvidia.com/gpu=present:NoSchedule; the
# driver comes from the installer DaemonSet a user applies (or GKE's automatic install), and
# the plugin advertises nothing until it is there. So a GKE GPU node without the resource has
# no driver first (https://cloud.google.com/kubernetes-engine/docs/how-to/gpus;
# GoogleCloudPlatform/container-engine-accelerators@master:nvidia-driver-installer/cos/
# daemonset-preloaded.yaml).
GKE_NO_GPU_RESOURCE_VOTES = (("driver-failing", 1.2), ("not-advertised", 0.9),
                             ("nodes-unlabelled", 0.4))
_GKE_GPU_TAINT = re.compile(r"^\W*nvidia\.com/gpu=present:noschedule\b", re.I | re.M)


def _on_gke(node: Any) -> bool:
    """The node's capacity or labels say GKE (the in-tree GCE PD attach limit, gke- labels)."""
    return ("attachable-volumes-gce-pd" in node.status.capacity
            or any(k.startswith("cloud.google.com/gke-") for k in node.metadata.labels))


def _gke_gpu_node(node: Any) -> bool:
    return ("cloud.google.com/gke-accelerator" in node.metadata.labels
            or any(t.key == "nvidia.com/gpu" for t in node.spec.taints))


def nodes_without_gpu_resource(snap: Snapshot, text: str = "") -> list[CauseScore]:
    """Votes when every pasted node shows its capacity and none has a GPU resource, a GPU label
    or the legacy resource (a describe node cut to its Capacity block included)."""
    nodes = [n for n in snap.nodes if n.status.capacity]
    if not nodes or len(nodes) != len(snap.nodes) or any(
            is_gpu_node(n) or LEGACY_GPU in n.status.capacity for n in nodes):
        return []
    names = ", ".join(n.metadata.name for n in nodes[:3])
    votes = NO_GPU_RESOURCE_VOTES
    why = f"{names}: capacity shows no nvidia.com/* resource"
    tainted = _GKE_GPU_TAINT.search(text) is not None  # the taint pasted apart from a node
    if any(_on_gke(n) and (tainted or _gke_gpu_node(n)) for n in nodes):
        votes, why = GKE_NO_GPU_RESOURCE_VOTES, why + " on a GKE GPU node"
    return [vote(cid, w, "no-gpu-resource", why, kind="arithmetic") for cid, w in votes]


def plugin_configs(texts: list[tuple[str, str]]) -> list[Finding]:
    """GX413 on a pasted device-plugin config (bare, or a ConfigMap's values): the schema check
    the bundle runs on the ConfigMap a node uses (``engines.plugin_config.validate``)."""
    out: list[Finding] = []
    for name, text in texts:
        issues = [i for i in validate(text)
                  if i.fatal or i.kind in ("misplaced", "unparsable", "required", "invalid")]
        if issues:
            first = issues[0]
            out.append(fail("GX413", Subject("ConfigMap", name),
                            [Evidence(name, f"{i.path}: {i.problem}") for i in issues[:5]],
                            severity=Severity.ERROR if any(i.fatal or i.kind == "misplaced"
                                                           for i in issues)
                            else Severity.WARNING,
                            target=name, problem=f"{first.path}: {first.problem}"))
    return out


def applied_configs(texts: list[tuple[str, str]]) -> list[CauseScore]:
    """GX408 on a pasted device-plugin config (time-slicing, MPS, MIG strategy) that the schema
    check finds nothing wrong with: what is left of "my config does nothing" is the plugin
    still running on the config it read at start (the operator does not watch the ConfigMap,
    seed §6). A vote, never deciding: the plugin's start time against the edit tells."""
    for name, text in texts:
        if re.search(r"^[ \t]*(?:sharing|flags):", text, re.M) and \
                not any(i.fatal or i.kind in ("misplaced", "unparsable", "required", "invalid")
                        for i in validate(text)):
            return [vote("plugin-config-not-applied", 1.0, "plugin-config-valid",
                         f"{name}: a valid device-plugin config")]
    return []


def insufficient_on_healthy_nodes(snap: Snapshot, matches: list[Match]) -> list[CauseScore]:
    """Seed §4: ``Insufficient nvidia.com/gpu`` while the nodes the paste shows advertise all
    their GPUs healthy (capacity = allocatable > 0): not "unhealthy", not "not advertised";
    left are a request larger than a node's free GPUs (GX205) and a full node (GX204), and
    where the node's allocations are shown with GPUs free, only the first. Never decided:
    the pod's request is what tells them apart."""
    if not any(m.signature.id == "insufficient-gpu" for m in matches):
        return []
    rows = [r for n in snap.nodes if is_gpu_node(n) for r in node_rows(snap, n)]
    if not rows or any(r.capacity != r.allocatable or r.capacity == 0 for r in rows):
        return []
    described = {r.node: snap.node_by_name[r.node].status.described_allocated for r in rows}
    free_shown = [r for r in rows if r.resource in described[r.node]
                  and r.allocated < r.allocatable]
    cs = CauseScore(CAUSE_BY_ID["request-too-large"], 1.5 + (0.75 if free_shown else 0.0))
    cs.signatures.append("arithmetic:insufficient-with-healthy-nodes")
    cs.matched.append("; ".join(f"{r.node}: {r.resource} capacity {r.capacity} = allocatable "
                                f"{r.allocatable}" for r in rows[:3]))
    return [cs]


# The driver container's entrypoint (NVIDIA/gpu-driver-container@06a208ca
# ubuntu22.04/nvidia-driver, rhel9/nvidia-driver; the same stage lines at @22.04.19
# ubuntu20.04/nvidia-driver) prints one line per stage and, on any error,
# runs its shutdown ("Stopping NVIDIA persistence daemon...", "Unloading NVIDIA driver kernel
# modules..."). The stage printed last before that shutdown is where the install failed, even
# when the error itself was not pasted or went to a log file.
DRIVER_STAGES: tuple[tuple[str, dict[str, float]], ...] = (
    # the package cache comes first: the kernel headers (or precompiled packages) are fetched
    # next, from the same repositories
    ("Updating the package cache...", {"kernel-headers": 1.0, "precompiled-kernel": 0.5,
                                       "driver-failing": 0.5}),
    ("Enabling RHOCP and EUS RPM repos...", {"kernel-headers": 1.0}),
    ("Installing elfutils...", {"kernel-headers": 0.75}),
    ("Resolving Linux kernel version...", {"kernel-headers": 1.25}),
    ("Installing Linux kernel headers...", {"kernel-headers": 1.25}),
    ("Installing Linux kernel module files...", {"kernel-headers": 1.25}),
    ("Generating Linux kernel version string...", {"kernel-headers": 1.0}),
    ("Checking NVIDIA driver packages...", {"precompiled-kernel": 1.0, "kernel-headers": 0.5}),
    ("Compiling NVIDIA driver kernel modules...", {"kernel-headers": 1.0}),
    ("Relinking NVIDIA driver kernel modules...", {"kernel-headers": 1.0}),
    ("Signing NVIDIA driver kernel modules...", {"secure-boot": 1.0}),
    ("Installing NVIDIA driver kernel modules...", {"precompiled-kernel": 0.75,
                                                    "kernel-headers": 0.5}),
    ("Loading NVIDIA driver kernel modules...", {"nouveau": 0.75, "secure-boot": 0.75,
                                                 "gpu-init": 0.5}),
    ("Starting NVIDIA fabric manager daemon...", {"fm-missing": 1.0, "fm-version": 0.75}),
)
_DRIVER_START = "Starting installation of NVIDIA driver"
_DRIVER_SHUTDOWN = "Stopping NVIDIA persistence daemon..."
_DRIVER_DONE = ("Done, now waiting for signal", "Done, now waiting for")


def driver_log_stage(text: str) -> list[CauseScore]:
    """Causes voted by the stage a driver-container install stopped at (never decided)."""
    if _DRIVER_START not in text:
        return []
    stage: str | None = None
    failed: str | None = None
    started = False
    for raw in text.splitlines():
        line = raw.strip()[:300]
        if line.startswith(_DRIVER_START):
            started, stage = True, None
        elif not started:
            continue
        elif line.startswith(_DRIVER_DONE):
            stage = failed = None
        elif line == _DRIVER_SHUTDOWN and stage is not None:
            failed, stage = stage, None
        else:
            stage = next((st for st, _v in DRIVER_STAGES if line == st), stage)
    # no shutdown seen: the paste ends inside a stage (cut, or the pod is still in it), a
    # weaker hint of where it stops
    factor = 1.0 if failed is not None else 0.6
    failed = failed or stage
    if failed is None:
        return []
    out = []
    for cid, w in dict(DRIVER_STAGES)[failed].items():
        cs = CauseScore(CAUSE_BY_ID[cid], w * factor)
        cs.signatures.append("driver-stage")
        cs.matched.append(f"driver install stopped after: {failed}")
        out.append(cs)
    return out


_OPERAND_DS = ("nvidia-", "gpu-feature-discovery", "nvdp-", "gpu-operator")
# `kubectl get ds [-A] | grep nvidia` loses the header: [NAMESPACE] NAME DESIRED CURRENT READY
# UP-TO-DATE AVAILABLE …
_DS_ROW = re.compile(r"^(?:\S+\s+)?(?P<name>(?:nvidia-|gpu-feature-discovery|nvdp-)\S*)\s+"
                     r"(?P<desired>\d+)\s+\d+\s+\d+\s+\d+\s+\d+\s")


def _headerless_ds_rows(text: str) -> list[dict[str, str]]:
    out = []
    for line in text.splitlines()[:5000]:
        m = _DS_ROW.match(line[:paste.MAX_LINE])
        if m:
            out.append({"NAME": m.group("name"), "DESIRED": m.group("desired")})
    return out


def _vote(scores: dict[str, CauseScore], cid: str, weight: float, reading: str,
          line: str) -> None:
    """Raise cause ``cid`` to ``weight`` (a vote, never deciding), naming the reading once and
    keeping the first three lines that showed it."""
    cs = scores.setdefault(cid, CauseScore(CAUSE_BY_ID[cid]))
    cs.score = max(cs.score, weight)
    if reading not in cs.signatures:
        cs.signatures.append(reading)
    if len(cs.matched) < 3:
        cs.matched.append(line)


def operand_table(parts: list[tuple[str, Part]]) -> list[CauseScore]:
    """Votes from operand pods shown failing in a pasted ``kubectl get pods`` table."""
    scores: dict[str, CauseScore] = {}
    for _name, part in parts:
        if part.kind != paste.GET_TABLE:
            continue
        rows = wide.parse_wide(part.text) or _headerless_ds_rows(part.text)
        for row in rows:
            name = row.get("NAME", "")
            if row.get("DESIRED") == "0" and name.startswith(_OPERAND_DS):
                # a DaemonSet that schedules on no node: no node matches its selector (labels)
                # or every GPU node carries a taint it does not tolerate (seed §1)
                for cid, w in (("nodes-unlabelled", 1.0), ("operand-taint", 0.9)):
                    cs = scores.setdefault(cid, CauseScore(CAUSE_BY_ID[cid]))
                    cs.score = max(cs.score, w)
                    cs.signatures.append("daemonset-desired-0")
                    cs.matched.append(f"DaemonSet {name}: DESIRED 0")
                continue
            pod, status = name, row.get("STATUS", "").lower()
            if not pod or not status:
                continue
            for prefix, states, votes in OPERAND_STATE_VOTES:
                if pod.startswith(prefix) and (prefix or pod.startswith(("nvidia-", "gpu-"))) \
                        and status.startswith(states):
                    for cid, w in votes.items():
                        _vote(scores, cid, w, "operand-table", f"{pod}: {row.get('STATUS', '')}")
                    break
    return list(scores.values())


ROOT_CONFIG_PATH = "/etc/containerd/config.toml"


def dropin_replaced_runtimes(findings: list[Finding]) -> list[CauseScore]:
    """GX501 behind a GX509 ``cri-default-runtime``: when the file that wrote the runtimes
    table last is an imported drop-in, not the root config, the drop-in's table replaced the
    whole one the defaults (or the root) held, and the default runtime went with it. Measured
    with the real 1.6.20 and 1.7.27 binaries: a root config importing a drop-in that defines
    only ``containerd.runtimes.foo`` dumps ``runtimes.foo`` alone, ``runc`` gone, with
    ``default_runtime_name = "runc"`` left behind. The lost handler is the cause; the CRI
    plugin refusing to load is its consequence (GX509 stays, ranked under it)."""
    out: list[CauseScore] = []
    for f in findings:
        culprit = str(f.params.get("file") or "")
        if f.code != "GX509" or f.status != Status.FAIL \
                or f.params.get("kind") != "cri-default-runtime" \
                or not culprit or culprit == ROOT_CONFIG_PATH:
            continue
        cs = CauseScore(CAUSE_BY_ID["dropin-overwrote"], CHECK_WEIGHT + 0.5, deciding=True)
        cs.signatures.append("check:GX509:dropin-replaced-runtimes")
        cs.matched.append(f"{culprit} replaced the runtimes table: {f.params.get('detail', '')}")
        out.append(cs)
    return out[:1]


# kubelet's events for a container it keeps restarting or cannot pull, naming container and
# pod (kubernetes/kubernetes@v1.34.0:pkg/kubelet/kuberuntime/kuberuntime_manager.go, "Back-off
# restarting failed container %s in pod %s"; pkg/kubelet/images/image_manager.go, "Back-off
# pulling image %q"): the operand pod named there votes as its row in a pods table would.
_BACKOFF = re.compile(r"back-off restarting failed container(?: (?P<ctr>[\w.-]+))?"
                      r" in pod (?P<pod>[a-z0-9][a-z0-9.-]{0,252}?)_")


def operand_events(text: str) -> list[CauseScore]:
    """Votes from kubelet's back-off events naming an operand pod (never deciding)."""
    scores: dict[str, CauseScore] = {}
    low = text.lower()
    if "back-off restarting failed container" not in low:
        return []
    for m in _BACKOFF.finditer(low[:FILE_SCAN]):
        pod = m.group("pod")
        for prefix, states, votes in OPERAND_STATE_VOTES:
            if prefix and pod.startswith(prefix) and "crashloopbackoff" in states:
                for cid, w in votes.items():
                    _vote(scores, cid, w, "kubelet-backoff",
                          f"{pod}: back-off restarting {m.group('ctr') or ''}")
                break
    return list(scores.values())


FILE_SCAN = 4 << 20

# The runtime wrapper falling back to plain runc (driver modules not loaded) hurts whichever
# operand it started; when the paste shows which one, that operand's cause goes first. DCGM's
# host engine announces itself on start ("Started host engine version …", pasted in
# https://github.com/NVIDIA/gpu-operator/issues/2854); the operand pods carry their names.
_WRAPPER_OPERANDS: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(r"started host engine version|nv-hostengine|nvidia-dcgm"), "dcgm-connect"),
    (re.compile(r"nvidia-device-plugin|nvidia-operator-validator"), "operand-init"),
)


def wrapper_fallback_operand(text: str, matches: list[Match]) -> list[CauseScore]:
    """A vote for the operand the runc fallback started, when the paste names it."""
    if not any(m.signature.id == "runtime-wrapper-no-driver" for m in matches):
        return []
    low = text[:FILE_SCAN].lower()
    for pat, cid in _WRAPPER_OPERANDS:
        m = pat.search(low)
        if m:
            cs = CauseScore(CAUSE_BY_ID[cid], 0.75)
            cs.signatures.append("runc-fallback-operand")
            cs.matched.append(f"the runc fallback started {m.group(0)}")
            return [cs]
    return []


def containerd_1x_merge(snap: Snapshot, matches: list[Match]) -> list[CauseScore]:
    """Seed §5: ``no runtime for "nvidia"`` from a containerd 1.x (its ``--version`` line in
    the paste). On 1.x an imported file that writes the CRI plugin replaces the whole section,
    the nvidia runtime with it (facts.md §1.1, measured with the 1.6/1.7 binaries); 2.x merges
    imports per key. A vote for the drop-in, never deciding: the dump and conf.d tell."""
    if not any(m.signature.id == "no-runtime-handler" for m in matches):
        return []
    for host in snap.hosts.values():
        cv = parse_containerd_version(host.cmds.get("containerd-version.txt") or "")
        ver = version_tuple(cv.version) if cv else None
        if ver is not None and ver[0] < 2:
            return [vote("dropin-overwrote", 1.0, "containerd-1x-merge",
                         f"containerd {cv.version if cv else ''}: an import replaces the "
                         "whole CRI section on 1.x")]
    return []


# The toolkit's containerd config engine knew versions 1 and 2 only up to v1.17.3 ("unsupported
# config version: %v", NVIDIA/nvidia-container-toolkit@v1.17.3:pkg/config/engine/containerd/
# containerd.go); v1.17.4 reads containerd 2.x's version 3 (@v1.17.4, same file). The toolkit's
# version as a paste shows it: ``nvidia-ctk --version`` or the toolkit image's tag.
TOOLKIT_READS_V3 = (1, 17, 4)
_TOOLKIT_IMAGE = re.compile(r"\bk8s/container-toolkit:v?(\d+\.\d+\.\d+)")


def toolkit_older_than_containerd(snap: Snapshot, text: str) -> list[CauseScore]:
    """GX409: a containerd 2.x (its ``--version``, or a dump in config version 3) beside a
    toolkit older than v1.17.4, which cannot read that config, so the nvidia runtime is never
    written (a vote: the toolkit's own log says it)."""
    low = text[:FILE_SCAN]
    tk = hostcmds.ctk_version(low)
    if not tk:
        m = _TOOLKIT_IMAGE.search(low)
        tk = m.group(1) if m else ""
    tv = version_tuple(tk) if tk else None
    if tv is None or tv >= TOOLKIT_READS_V3:
        return []
    for host in snap.hosts.values():
        cv = parse_containerd_version(host.cmds.get("containerd-version.txt") or "")
        ver = version_tuple(cv.version) if cv else None
        if ver is not None and ver[0] >= 2:
            return [vote("unsupported-stack", 2.0, "toolkit-older-than-containerd-config",
                         f"toolkit {tk} reads containerd config versions 1 and 2 only; "
                         f"containerd {cv.version if cv else ''} writes version 3")]
    return []


# Distributions whose containerd reads its own file, not /etc/containerd/config.toml: k3s and
# RKE2 render /var/lib/rancher/{k3s,rke2}/agent/etc/containerd/config.toml from a .tmpl, and
# microk8s reads /var/snap/microk8s/current/args/containerd-template.toml (the operator's
# install guide sets CONTAINERD_CONFIG/CONTAINERD_SOCKET for each:
# https://docs.nvidia.com/datacenter/cloud-native/gpu-operator/latest/getting-started.html).
_OWN_CONTAINERD = re.compile(r"\bk3s\b|\brke2\b|microk8s|/var/lib/rancher/|/var/snap/microk8s")
_WROTE_DEFAULT = re.compile(r"wrote updated config to /etc/containerd/config\.toml")


def toolkit_default_path_on_own_containerd(text: str) -> list[CauseScore]:
    """GX512: the toolkit wrote the stock /etc/containerd/config.toml on a node the paste shows
    runs k3s, RKE2 or microk8s, whose containerd never reads that file (a vote)."""
    low = text[:FILE_SCAN].lower()
    m = _WROTE_DEFAULT.search(low)
    d = _OWN_CONTAINERD.search(low) if m else None
    if m is None or d is None:
        return []
    return [vote("runtime-config-not-read", 2.0, "toolkit-default-path-on-own-containerd",
                 f"the toolkit wrote /etc/containerd/config.toml; the paste shows "
                 f"{d.group(0)}, whose containerd reads its own file")]


_STATES_NOT_READY = re.compile(r"states not ready\W{0,6}((?:\W{0,4}[a-z][\w-]*){1,20})")


def clusterpolicy_states(text: str) -> list[CauseScore]:
    """Votes for the earliest operand state the ClusterPolicy status names not ready
    (``knowledge.signatures.CLUSTERPOLICY_STATE_ORDER``; never deciding)."""
    low = text[:FILE_SCAN].lower()
    if "states not ready" not in low:
        return []
    named: set[str] = set()
    for m in _STATES_NOT_READY.finditer(low):
        named.update(re.findall(r"state-[a-z-]+|gpu-feature-discovery", m.group(1)))
    for state, votes in CLUSTERPOLICY_STATE_ORDER:
        if state in named:
            return [vote(cid, w, "clusterpolicy-states",
                         f"ClusterPolicy: {state} not ready (the earliest named)")
                    for cid, w in votes]
    return []


def _score_checks(findings: list[Finding]) -> tuple[list[CauseScore], list[Finding],
                                                     list[Finding]]:
    """Failing findings at warning or above become causes; unknowns are kept apart."""
    scores: dict[str, CauseScore] = {}
    fails: list[Finding] = []
    unknowns: list[Finding] = []
    for f in findings:
        if f.status == Status.UNKNOWN:
            unknowns.append(f)
            continue
        if f.status != Status.FAIL or f.severity < Severity.WARNING:
            continue
        fails.append(f)
        cause = _check_cause(f)
        cs = scores.setdefault(cause.id, CauseScore(cause))
        # an operand check that saw only the pod's state (no line says why: a pods table, a
        # describe without the log) names a stage, not a cause: a vote, never deciding
        state_only = f.params.get("cause_id") in STATE_ONLY
        deciding = f.severity >= Severity.ERROR and not state_only
        weight = CHECK_WEIGHT if deciding else CHECK_WARN_WEIGHT
        cs.score = max(cs.score, weight)
        cs.deciding = cs.deciding or deciding
        cs.signatures.append(f"check:{f.code}")
        if len(cs.matched) < MAX_MATCHED and f.message not in cs.matched:
            cs.matched.insert(0, f.message)
    return list(scores.values()), fails, unknowns


ROOT_MIN_SCORE = 0.5  # a root needs this much evidence of its own (above any component prior)
# ... and to go above a symptom that a deciding line shows, a root that no line decides needs
# this much, and this share of the symptom's score: a weak hint does not outrank a certainty
ROOT_OVER_DECIDED = 1.0
ROOT_OVER_DECIDED_SHARE = 0.25
EFFECT_SHARE = 0.9  # an effect is kept at this share of its root's score


# Lines that name several causes at once (``Insufficient nvidia.com/gpu``, ``couldn't
# communicate with the NVIDIA driver``): they support a root, but never enough to put it
# over a symptom that a deciding line shows.
_SIG_BY_ID = {sg.id: sg for sg in SIGNATURES}
GENERIC_SIGNATURES = frozenset(sg.id for sg in SIGNATURES
                               if len(sg.votes) >= 3 and not sg.deciding)


def _own_evidence(root: CauseScore, effect: CauseScore, strict: bool = False) -> bool:
    """``root`` stands on a line or reading that does not also vote for ``effect`` (a line
    that votes for both, as ``no runtime for "nvidia"`` weakly names the drop-in, is no
    evidence that the root is there), with enough weight to go above it."""
    # a line counts for the root when it does not vote for the effect, or names the root first
    # (``Wrote updated config to <a path containerd does not read>`` also hints at the missing
    # handler; it is still the misplaced file's line)
    own = {sg for sg in root.signatures if sg not in effect.signatures
           or (sg in _SIG_BY_ID and _SIG_BY_ID[sg].primary == root.cause.id)}
    if strict:  # a line naming the root first, its code's check, or a reading of the paste's
        # structure that names it (readings.py: an apt history replacing driver packages)
        own = {sg for sg in own if (sg in _SIG_BY_ID and _SIG_BY_ID[sg].primary == root.cause.id)
               or sg == f"check:{root.cause.code}" or sg.startswith("reading:")}
    if not own or root.score < ROOT_MIN_SCORE:
        return False
    if effect.deciding and not root.deciding:
        specific = {sg for sg in own if sg not in GENERIC_SIGNATURES
                    and not sg.startswith(("component:", "under:"))}
        return bool(specific) and \
            root.score >= max(ROOT_OVER_DECIDED, ROOT_OVER_DECIDED_SHARE * effect.score)
    return True


def order_by_chain(ranked: list[CauseScore],
                   ruled: frozenset[str] | set[str] = frozenset()) -> list[CauseScore]:
    """Seed §4's tree over the ranked causes: an effect whose root the paste also shows (with
    evidence of its own) ranks under that root and no longer decides, so the validator waiting
    for the driver comes after the driver's failure, the sandbox error after the drop-in
    (``knowledge.signatures.CAUSE_CHAIN``). Roots are settled before their effects; links
    form no circle, so two passes over the table reach every chain of the catalog. A root some
    line rules out (``ruled``: the plugin's NVML loaded, so it was not started under runc)
    explains nothing."""
    by_id = {c.cause.id: c for c in ranked}
    for _ in range(3):
        moved = False
        for link in CAUSE_CHAIN:
            root = by_id.get(link.cause)
            if root is None or link.cause in ruled:
                continue
            for eid in link.effects:
                eff = by_id.get(eid)
                if eff is None or (eff.cause.code == root.cause.code and eff.score <= root.score):
                    continue
                if eff.score <= 0 or not _own_evidence(root, eff, link.strict):
                    continue
                if any(sg in eff.signatures for sg in link.unexplained):
                    continue
                if eff.score >= root.score * EFFECT_SHARE - 1e-9:
                    eff.score = root.score * EFFECT_SHARE - 0.01
                    moved = True
                # already under its root: still explained by it, so no rival that keeps the
                # root undecided
                eff.deciding = False
                if f"under:{root.cause.id}" not in eff.signatures:
                    eff.signatures.append(f"under:{root.cause.id}")
        if not moved:
            break
    return _sorted(list(by_id.values()))


#: what is left of a cause's score when the paste's own structure rules it out (a line that
#: shows the opposite), kept so the cause is still listed with the lines that pointed at it
RULED_SHARE = 0.25

ROOT_MARGIN = 0.01  # a host-state root ranks just above the driver cause it explains


def host_state_first(ranked: list[CauseScore]) -> list[CauseScore]:
    """The host's own code before the driver cause it explains (``HOST_STATE_ROOTS``): a paste
    that names nouveau holding the GPU names GX506 first and GX403 second, whichever component
    printed the line. The root takes the cause's lines and its "decided"; the cause ranks under
    it, explained by it (never a rival that keeps it undecided)."""
    by_id = {c.cause.id: c for c in ranked}
    for cid, root_id in HOST_STATE_ROOTS:
        eff = by_id.get(cid)
        if eff is None or eff.score <= 0:
            continue
        root = by_id.setdefault(root_id, CauseScore(CAUSE_BY_ID[root_id]))
        if root.score < eff.score + ROOT_MARGIN:
            root.score = eff.score + ROOT_MARGIN
        root.deciding = root.deciding or eff.deciding
        root.signatures.extend(sg for sg in eff.signatures if sg not in root.signatures)
        root.matched.extend(m for m in eff.matched if m not in root.matched)
        del root.matched[MAX_MATCHED:]
        if f"under:{root_id}" not in eff.signatures:
            eff.signatures.append(f"under:{root_id}")
    return _sorted(list(by_id.values()))


#: a component's priors where the paste holds its own log lines (``Component.log``), against a
#: mere mention of its name: the text is then what that component printed, a name may only be
#: a pod listed beside the one that fails (still far below any matched line)
OWN_LOG_WEIGHT = 1.15


def component_priors(text: str, ranked: list[CauseScore]) -> list[CauseScore]:
    """Weak votes for what usually breaks in each component the paste comes from
    (``knowledge.signatures.COMPONENTS``), for causes no line or check named yet: when nothing
    decides, the top three still come from the components that printed the text."""
    low = text[:FILE_SCAN].lower()
    have = {c.cause.id for c in ranked}
    out: dict[str, CauseScore] = {}
    # a cause some line, check or reading already names, none deciding, is trouble the paste
    # shows whatever its words (a node's GPU column printing <none> holds none of TROUBLE's),
    # and what the named components usually break in is still open
    trouble: bool | None = True if ranked and not any(c.deciding for c in ranked) else None
    named = {comp.id: re.search(comp.names, low) for comp in COMPONENTS}
    healthy = {comp.id for comp in COMPONENTS
               if named[comp.id] is not None and _only_healthy_rows(low, comp.names)}
    # an operand listed healthy beside one that is not: the failing one is what the paste
    # shows breaking, and the healthy one's usual failures are no vote (gpu-operator-15: the
    # toolkit's pod `1/1 Running 0` beside the crash-looping driver). Alone, a healthy row
    # still votes: a device plugin that advertises nothing runs ready all the same.
    failing = any(m is not None and cid not in healthy for cid, m in named.items())
    for comp in COMPONENTS:
        m = re.search(comp.log, low, re.M) if comp.log else None
        own = m is not None
        if m is None:
            m = named[comp.id]
            if m is None or (failing and comp.id in healthy):
                continue
            if trouble is None:
                trouble = re.search(TROUBLE, low, re.M) is not None
            if not trouble:
                continue
        priors, why = comp.priors, "no line names the cause"
        if own:  # its own start lines: the text is the component's
            priors = tuple((cid, round(w * OWN_LOG_WEIGHT, 3)) for cid, w in priors)
        ready = re.search(comp.ready, low) if comp.ready else None
        if ready is not None:
            if not comp.ready_priors or ranked:  # only where nothing else names a cause
                continue
            priors, why = comp.ready_priors, f"its log shows it ready ({ready.group(0)!r})"
        for cid, w in priors:
            if cid in have:
                continue
            cs = out.setdefault(cid, CauseScore(CAUSE_BY_ID[cid]))
            if w > cs.score:
                cs.score = w
            cs.signatures.append(f"component:{comp.id}")
            if len(cs.matched) < 2:
                cs.matched.append(f"text from {comp.id} ({m.group(0)!r}); {why}")
    return list(out.values())


# the READY and STATUS columns of a `kubectl get pods` row, and its RESTARTS when it is 0
_POD_ROW = re.compile(r"\s(\d+)/(\d+)\s+(running|completed)\s+(0\s|0$)?")


def _only_healthy_rows(low: str, names: str) -> bool:
    """True when the component is mentioned, and every mention is its pod's row in a pod table
    showing the pod healthy: READY n/n Running never restarted, or Completed (a validator's
    workload pods end so; seed §1)."""
    found = False
    for m in re.finditer(names, low):
        found = True
        end = low.find("\n", m.end())
        row = _POD_ROW.search(low, m.end(), len(low) if end < 0 else end)
        if row is None or row.group(4) is None:
            return False
        if row.group(3) == "running" and row.group(1) != row.group(2):
            return False
    return found


FATAL_SCAN = 2000  # lines of a component's log searched for the failure it stopped on


def component_failures(text: str, matches: list[Match]) -> list[CauseScore]:
    """The component's own failure (``Component.failing``) for an error or fatal line its
    logger printed (``Component.fatal``) that no signature reads: a real log ends on an error
    the catalog has never seen more often than on one it has. Only where the component's own
    start lines are in the paste (its ``log``), so the line is its; a vote, never deciding."""
    known = {m.line.strip().lower() for m in matches}
    low = text[:FILE_SCAN].lower()
    out: list[CauseScore] = []
    for comp in COMPONENTS:
        if not comp.fatal or not comp.log:
            continue
        start = re.search(comp.log, low, re.M)
        if start is None:
            continue
        body = low[start.start():]
        fatal = re.compile(comp.fatal)
        line = next((ln.strip() for ln in body.splitlines()[:FATAL_SCAN]
                     if fatal.search(ln) and ln.strip()
                     and not any(ln.strip() in k or k in ln for k in known if k)), None)
        if line is None:
            continue
        for cid, w in comp.failing:
            out.append(vote(cid, w, f"fatal:{comp.id}", line[:300], kind="component-log"))
    return out


def _sorted(causes: list[CauseScore]) -> list[CauseScore]:
    order = {c.id: i for i, c in enumerate(CAUSES)}
    return sorted(causes, key=lambda c: (-round(c.score, 6), order.get(c.cause.id, len(order))))


def _merge(sig: list[CauseScore], checks: list[CauseScore]) -> list[CauseScore]:
    by_id = {c.cause.id: c for c in sig}
    for c in checks:
        have = by_id.get(c.cause.id)
        if have is None:
            by_id[c.cause.id] = c
            continue
        have.score += c.score
        have.deciding = have.deciding or c.deciding
        have.signatures = c.signatures + have.signatures
        have.matched = (c.matched + [m for m in have.matched if m not in c.matched])[:5]
    order = {c.id: i for i, c in enumerate(CAUSES)}
    return sorted(by_id.values(), key=lambda c: (-round(c.score, 6),
                                                 order.get(c.cause.id, len(order))))


# What tickets wrap pasted lines in: markdown quotes, list bullets, inline backticks, and the
# `kubectl logs --prefix` tag. Stripped before the signature scan, so anchored signatures
# (an lsmod row, `disabled_plugins = …`) still see the line as the component printed it.
_WRAPPING = re.compile(r"^(?:[ \t]*>)+[ \t]?|^[ \t]*[-*][ \t]+(?=\S)|^[ \t]*`+|(?<!`)`+[ \t]*$|"
                       r"^\[pod/[^\]\s]{1,300}\][ \t]", re.M)


# The headers a log line gets on its way to the ticket: `kubectl logs --timestamps`' RFC 3339
# stamp (kubernetes/kubernetes@v1.34.0:staging/src/k8s.io/kubectl/pkg/cmd/logs/logs.go), the
# syslog/journald header `Mon DD HH:MM:SS host ident[pid]: ` (systemd/systemd@v255:src/
# journal/journald-syslog.c; `journalctl -k` gives the kernel's lines `kernel: ` as ident) and
# dmesg's `[  12.345678] ` or `dmesg -T`'s `[Wed May  1 10:00:00 2024] `
# (util-linux/util-linux@v2.39:sys-utils/dmesg.c). Stripped, so a signature anchored at the
# start of the component's own words still sees them first.
_LOG_HEADER = re.compile(
    r"^[ \t]*(?:" + RFC3339_STAMP + r"[ \t]+(?:(?:stdout|stderr)[ \t]+[FP][ \t]+)?|"
    r"(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec) [ \d]\d \d\d:\d\d:\d\d "
    r"[^\s:]{1,253} [^\s:\[\]]{1,100}(?:\[\d{1,10}\])?:[ \t]+|"
    r"\[[ \t]*\d{1,10}\.\d{1,9}\][ \t]*|"
    r"\[(?:mon|tue|wed|thu|fri|sat|sun) [a-z]{3} [ \d]\d \d\d:\d\d:\d\d \d{4}\][ \t]*)",
    re.M | re.I)


def unwrap(text: str) -> str:
    """``text`` with ticket wrapping and log headers removed from each line (line count
    unchanged)."""
    if "`" in text or ">" in text or "[pod/" in text or "- " in text or "* " in text:
        text = _WRAPPING.sub("", text)
    return _LOG_HEADER.sub("", text) if (":" in text or "[" in text) else text


_PCI = re.compile(r"\b([0-9a-f]{4,8}:[0-9a-f]{2}:[0-9a-f]{2})(?:\.\d)?\b")


def xids_of_uninitialised_gpus(matches: list[Match]) -> list[Match]:
    """An Xid on a GPU whose ``RmInitAdapter failed`` in the same paste is no device the plugin
    marked unhealthy: a GPU that never initialised is not enumerated by NVML, so the plugin
    never listed it (NVIDIA/k8s-device-plugin@v0.17.0:internal/rm/health.go watches the
    devices it serves). Such an Xid keeps its own vote and loses the allocation one."""
    failed = {p for m in matches if m.signature.id == "nvrm-init-adapter"
              for p in _PCI.findall(m.line.lower())}
    if not failed:
        return matches
    out: list[Match] = []
    for m in matches:
        if m.signature.id == "xid-kernel" and set(_PCI.findall(m.line.lower())) & failed:
            sig = replace(m.signature, votes=tuple(v for v in m.signature.votes
                                                   if v[0] != "unhealthy"))
            m = Match(sig, m.line, m.lineno, m.origin)
        out.append(m)
    return out


def triage(texts: Iterable[tuple[str, str]],
           skipped: Iterable[tuple[str, str]] = ()) -> TriageResult:
    """Rank causes for ``(name, text)`` inputs; findings for the top cause(s) and every cause
    backed by a deciding line."""
    matcher = full_matcher()
    matches: list[Match] = []
    names: list[str] = []
    inputs: list[TextInput] = []
    # each input without the ticket's wrapping (quote markers, HTML, tables), for the readings:
    # a config or log quoted with ``> `` reads as the component wrote it
    cleaned: list[str] = []
    lines = 0
    for name, text in texts:
        names.append(name)
        # the ticket's wrapping (ANSI colours, HTML tags, markdown tables, line numbers) comes
        # off first, once: the part parsers read the same cleaned text, so a line is matched
        # and parsed as the component printed it
        cleaned.append("\n".join(clean_lines(text.splitlines())))
        inputs.append(TextInput(name, cleaned[-1]))
        split = unwrap(cleaned[-1]).splitlines()
        lines += len(split)
        matches.extend(matcher.scan(split, name))
    matches = xids_of_uninitialised_gpus(matches)
    evidence = paste_evidence(inputs, cleaned=True)
    checked = run_all(evidence.snapshot) + node_arithmetic(evidence.snapshot) + \
        plugin_configs(evidence.plugin_configs)
    checked = [f for f in checked if not (f.code in LABEL_CODES and f.subject.kind == "Node"
                                          and f.subject.name in evidence.labels_unknown)
               and not (f.code in STATUS_CODES and f.subject.kind == "ClusterPolicy"
                        and f.subject.name in evidence.status_unknown)
               and not (f.code == "GX301" and f.params.get("from_files")
                        and not f.params.get("from_events")
                        and f.subject.name in evidence.imports_unpasted)
               and not evidence.reads_unpasted(f)]
    check_scores, check_fails, unknowns = _score_checks(checked)
    joined = "\n".join(cleaned)  # every input, for the readings of the whole paste
    stage = [cs for text in cleaned
             for cs in driver_log_stage(text) + operand_events(text) + clusterpolicy_states(text)
             + toolkit_default_path_on_own_containerd(text)
             + wrapper_fallback_operand(text, matches) + unattended_upgrades(text)
             + gpu_columns(unwrap(text)) + distro_rendered_config(text)
             + rhel_release_mismatch(text)
             + plugin_works_by_hand(text) + containerd_default_runtime(text)
             + toolkit_release_fix(text) + gpu_works_outside_cri(text)
             + plugin_envvar_ignored(text) + driver_drops_gpu(text)
             + runtime_binary_twins(text) + dangling_toolkit_link(text)
             + host_without_driver(text) + run_without_gpus(text)]
    ranked = _merge(rank(matches), check_scores + dropin_replaced_runtimes(checked)
                    + insufficient_on_healthy_nodes(evidence.snapshot, matches)
                    + nodes_without_gpu_resource(evidence.snapshot, joined)
                    + toolkit_older_than_containerd(evidence.snapshot, joined)
                    + containerd_1x_merge(evidence.snapshot, matches) + stage
                    + operand_table(evidence.parts) + readings(evidence.parts)
                    + applied_configs(evidence.plugin_configs))
    ranked = _merge(ranked, component_failures(joined, matches))
    ruled = ruled_out(matches)
    shown = nvidia_runtime_shown(joined)
    if shown is not None:  # the plugin's pods run under the nvidia runtime: not GX514
        ruled.add("runtime-not-default")
        for cs in ranked:
            if cs.cause.id == "runtime-not-default" and not any(
                    sg.startswith("reading:") for sg in cs.signatures):
                cs.score *= RULED_SHARE
                cs.signatures.append("ruled:nvidia-runtime-shown")
    ranked = host_state_first(order_by_chain(ranked, ruled))
    ranked = _sorted(ranked + component_priors(joined, ranked))
    for cs in ranked:  # a line that rules a cause out also takes a check's "decided" away
        if cs.cause.id in ruled:
            cs.deciding = False
    origin: dict[str, str] = {}
    for m in matches:
        origin.setdefault(m.line, f"{m.origin}:{m.lineno}")
    subject = Subject("Text", names[0] if len(names) == 1 else f"{len(names)} inputs")
    findings: list[Finding] = []
    if ranked:
        top = ranked[0].score
        for cs in ranked:
            prior_only = all(sg.startswith("component:") for sg in cs.signatures)
            if not prior_only and (cs.deciding or abs(cs.score - top) < 1e-9):
                findings.append(_finding(cs, origin, subject))
                findings.extend(f for f in check_fails if _check_cause(f).id == cs.cause.id)
    rivals = _rivals(ranked)
    decided = is_decided(rivals)
    return TriageResult(ranked, collect_next(rivals) if ranked and not decided else "",
                        decided, findings, names, lines, list(skipped), evidence.kinds,
                        _relevant_unknowns(unknowns, evidence.kinds))


def _rivals(ranked: list[CauseScore]) -> list[CauseScore]:
    """The top cause and the causes that compete with it: a symptom ranked under the top cause
    (``order_by_chain``) is explained by it, not a look-alike that keeps it undecided."""
    if not ranked:
        return ranked
    mark = f"under:{ranked[0].cause.id}"
    return [ranked[0]] + [c for c in ranked[1:] if mark not in c.signatures]


def _relevant_unknowns(unknowns: list[Finding], kinds: dict[str, int]) -> list[Finding]:
    """Unknowns of checks whose input the paste partly holds (a describe node without its
    pods, dmesg without lsmod): what to paste next. A paste of one log does not list every
    check of the tool."""
    if not kinds:
        return []
    seen: set[str] = set()
    out: list[Finding] = []
    for f in unknowns:
        if f.code in seen:
            continue
        seen.add(f.code)
        out.append(f)
    return out[:MAX_UNKNOWN]
