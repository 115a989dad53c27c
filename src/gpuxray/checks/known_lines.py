"""Codes a single line decides: a line only one component prints for one cause, wherever the
bundle holds it (pod statuses, events and logs; the node's kernel log, journals and containerd
config). The lines and their upstream sources are the signature catalog's
(``knowledge/signatures.py``); this module only files each match under its code.

- GX310: kubelet's device manager refused a bound pod (``UnexpectedAdmissionError``; the pod's
  ``status.reason`` says so even when no line was kept).
- GX311: the image's CUDA requirement is above the driver's (``requirement error:
  unsatisfied condition: cuda>=…``).
- GX416: the loaded driver cannot drive the GPU (``NVRM: … installed in this system is not
  supported by …``).
- GX417: the plugin/GFD may not monitor MIG devices (NVML ``Insufficient Permissions``).
- GX418: the driver container cannot unload the host's NVIDIA modules (``driver is in use``).
- GX512: the toolkit wrote its runtime to a file containerd does not read.
- GX513: containerd's config disables its CRI plugin (``disabled_plugins = ["cri"]``); kubelet's
  ``unknown service runtime.v1.RuntimeService`` alone does not decide it (a CRI plugin that
  failed to load looks the same).
- GX514: the device plugin runs without the NVIDIA runtime (``Incompatible strategy detected``,
  ``could not load NVML library``).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from gpuxray.checks.containerd import node_root_config, toolkit_config_not_read
from gpuxray.checks.registry import check
from gpuxray.engines.operator import matches_by_code
from gpuxray.engines.podscan import other_screens
from gpuxray.engines.signatures import default_matcher
from gpuxray.knowledge.signatures import CAUSE_BY_ID
from gpuxray.model.factory import fail
from gpuxray.model.finding import Evidence, Finding, Subject
from gpuxray.model.snapshot import HostFacts, Input, Snapshot

MAX_EVIDENCE = 5
ROOT_CONFIG = "etc/containerd/config.toml"
HOST_TEXTS = ("dmesg.txt", "journal-containerd.txt", "journal-kubelet.txt")


def pod_lines(snap: Snapshot, code: str, *, line_param: str = "line",
              max_evidence: int = MAX_EVIDENCE) -> Iterator[Finding]:
    """A finding per pod whose statuses, events or logs hold a line the catalog files under
    ``code``, in pod_matches' order, with up to ``max_evidence`` distinct lines; the first
    goes in ``line_param`` (the codes whose message shows it as ``{detail}`` name that)."""
    for (ns, name), mine in matches_by_code(snap, code).items():
        pod = snap.pod_by_key.get((ns, name))
        if not mine or pod is None:
            continue
        evs = list(dict.fromkeys(m.evidence for m in mine))[:max_evidence]
        line = mine[0].match.line[:300]
        params: dict[str, Any] = {"subject_desc": f"{ns}/{name}", line_param: line,
                                  "node": pod.spec.node_name,
                                  "cause": mine[0].match.signature.primary}
        yield fail(code, Subject("Pod", name, ns), evs, **params)


def _host_code(host: HostFacts, code: str, deciding_only: bool = False,
               config: str = ROOT_CONFIG) -> list[Evidence]:
    evs: list[Evidence] = []
    matcher = default_matcher()
    texts = [("cmd", n, host.cmds.get(n)) for n in HOST_TEXTS] + \
        [("files", config, host.files.get(config))]
    for kind, name, text in texts:
        if not text:
            continue
        for m in matcher.scan_text(text):
            if CAUSE_BY_ID[m.signature.primary].code == code and \
                    (m.signature.deciding or not deciding_only):
                ev = Evidence(host.source(kind, name), f"line {m.lineno}: {m.line[:300]}")
                if ev not in evs:
                    evs.append(ev)
    return evs


def _hosts(snap: Snapshot, code: str) -> Iterator[Finding]:
    for host in sorted(snap.hosts.values(), key=lambda h: h.node):
        evs = _host_code(host, code)
        if evs:
            yield fail(code, Subject("Node", host.node), evs[:MAX_EVIDENCE],
                       subject_desc=host.node, node=host.node, line=evs[0].detail)


@check("GX310", needs=(Input.PODS,))
def device_admission_failed(snap: Snapshot) -> Iterator[Finding]:
    """kubelet ``pkg/kubelet/cm/devicemanager`` refuses a pod whose devices its own
    accounting cannot give; the pod ends ``Failed`` with reason ``UnexpectedAdmissionError``."""
    seen: set[tuple[str, str]] = set()
    for f in pod_lines(snap, "GX310"):
        seen.add((f.subject.namespace or "default", f.subject.name))
        yield f
    for pod in other_screens(snap).with_reason:  # the pods with a status.reason, in order
        key = (pod.metadata.namespace or "default", pod.metadata.name)
        if pod.status.reason == "UnexpectedAdmissionError" and key not in seen:
            msg = pod.status.message or pod.status.reason
            yield fail("GX310", Subject("Pod", key[1], key[0]),
                       [snap.ev(Input.PODS, f"{key[0]}/{key[1]}: status.reason "
                                            f"UnexpectedAdmissionError: {msg[:300]}")],
                       subject_desc=f"{key[0]}/{key[1]}", line=msg[:300],
                       node=pod.spec.node_name)


@check("GX311", needs=(Input.PODS,))
def cuda_requirement_unsatisfied(snap: Snapshot) -> Iterator[Finding]:
    """libnvidia-container checks the image's NVIDIA_REQUIRE_CUDA against the driver."""
    yield from pod_lines(snap, "GX311")


@check("GX514", needs=(Input.PODS,))
def nvidia_runtime_not_default(snap: Snapshot) -> Iterator[Finding]:
    """The device plugin finds no NVML when nothing injected the driver into its container."""
    yield from pod_lines(snap, "GX514")


@check("GX512", needs=(Input.PODS,))
def runtime_config_not_read(snap: Snapshot) -> Iterator[Finding]:
    """The toolkit logs where it wrote the runtime; a path containerd does not import is lost.
    On k3s/RKE2 the ClusterPolicy's toolkit env says it before any log does."""
    yield from pod_lines(snap, "GX512")
    yield from toolkit_config_not_read(snap)


@check("GX416", needs=(Input.HOSTS,))
def driver_gpu_unsupported(snap: Snapshot) -> Iterator[Finding]:
    """The kernel driver names the GPU it will not drive (open-gpu-kernel-modules osapi.c)."""
    yield from _hosts(snap, "GX416")


@check("GX513", needs=(Input.HOSTS,))
def containerd_cri_disabled(snap: Snapshot) -> Iterator[Finding]:
    """``disabled_plugins`` holding the CRI plugin, read from the parsed root config (any
    layout) or from a deciding line of the host's texts."""
    for host in sorted(snap.hosts.values(), key=lambda h: h.node):
        evs: list[Evidence] = []
        # the file this node's containerd loads: on k3s/RKE2 Docker's /etc/containerd one
        # (which disables cri) belongs to another daemon
        config = node_root_config(snap, host)
        text = host.files.get(config)
        if text:
            import tomllib  # only for a collected containerd config (~5 ms of imports)

            try:
                doc = tomllib.loads(text)
            except tomllib.TOMLDecodeError:
                doc = {}
            disabled = doc.get("disabled_plugins")
            if isinstance(disabled, list) and any(
                    d in ("cri", "io.containerd.grpc.v1.cri") for d in disabled):
                evs.append(Evidence(host.source("files", config),
                                    f"disabled_plugins = {disabled}"))
        # kubelet's "unknown service runtime.v1.RuntimeService" alone is also what a CRI
        # plugin that failed to load gives (GX509): only a deciding line counts here
        evs += [e for e in _host_code(host, "GX513", deciding_only=True, config=config)
                if "disabled_plugins" not in e.detail]
        if evs:
            yield fail("GX513", Subject("Node", host.node), evs[:MAX_EVIDENCE],
                       subject_desc=host.node, node=host.node, line=evs[0].detail)


@check("GX417", needs=(Input.PODS,))
def mig_monitor_permission(snap: Snapshot) -> Iterator[Finding]:
    """NVML refuses MIG queries to a container without NVIDIA_MIG_MONITOR_DEVICES."""
    yield from pod_lines(snap, "GX417")


@check("GX418", needs=(Input.PODS,))
def host_driver_conflict(snap: Snapshot) -> Iterator[Finding]:
    """The driver container's ``_unload_driver`` finds the host's modules in use."""
    yield from pod_lines(snap, "GX418")
