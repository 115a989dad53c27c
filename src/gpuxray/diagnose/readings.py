"""Structural readings of pasted configuration: what a config, a manifest or a values excerpt
says about a cause when no component printed an error line.

A ticket often holds only the object the reporter changed (an NFD ``NodeFeatureDiscovery``, a
tolerations list, a pod spec, a containerd drop-in). Read as structure, each still points at a
cause: the NFD label the operator keys on cannot form, a DaemonSet tolerates no GPU taint, a pod
needs the sum of its containers' GPUs on one node, a drop-in rewrites the CRI plugin's section.
These are votes, never deciding: the object is what the cluster was told, not what it did.
"""

from __future__ import annotations

import json
import re
import textwrap
import tomllib
from collections import deque
from collections.abc import Iterator
from typing import Any

import yaml

from gpuxray.engines.signatures import CauseScore
from gpuxray.errors import InputError
from gpuxray.knowledge.distributions import DISTRIBUTIONS
from gpuxray.knowledge.gpu_generations import (
    GENERATIONS,
    INSTANCE_FAMILIES,
    KEPLER_LAST,
    generation_of,
)
from gpuxray.knowledge.signatures import CAUSE_BY_ID
from gpuxray.knowledge.toolkit_releases import TOOLKIT_START_FIXES
from gpuxray.sources.decode import yaml_docs
from gpuxray.sources.parsers import hostcmds, paste
from gpuxray.sources.parsers.paste import Part

MAX_TEXT = 256 << 10
WALK_BUDGET = 20000

# The NFD labels the operator selects GPU nodes by (NVIDIA/gpu-operator@v26.7.0:controllers/
# state_manager.go ``gpuNodeLabels``). NFD names a PCI label ``pci-<fields joined by _>``
# from its ``sources.pci.deviceLabelFields`` (default ``[class, vendor]``;
# kubernetes-sigs/node-feature-discovery@v0.16.0:source/pci/pci.go), so only ``[vendor]`` and
# ``[class, vendor]`` (class 0300 or 0302) give a label the operator matches.
OPERATOR_PCI_LABELS = ("pci-10de.present", "pci-0302_10de.present", "pci-0300_10de.present")
MATCHING_FIELD_SETS = (("vendor",), ("class", "vendor"))
# The taint GPU nodes carry for GPU-only scheduling, the one operand DaemonSets must tolerate
# (NVIDIA/gpu-operator@v26.7.0:deployments/gpu-operator/values.yaml ``daemonsets.tolerations``).
GPU_TAINT_KEY = "nvidia.com/gpu"
CRI_PLUGIN = "io.containerd.grpc.v1.cri"
_CAT = re.compile(r"^\s*(?:\S*[#$]\s*)?cat\s+(\S+)\s*$")


def vote(cid: str, weight: float, tag: str, line: str, *, kind: str = "reading") -> CauseScore:
    """One vote a structured reading of the paste gives, named ``<kind>:<tag>`` among the
    signatures and citing ``line``."""
    cs = CauseScore(CAUSE_BY_ID[cid], weight)
    cs.signatures.append(f"{kind}:{tag}")
    cs.matched.append(line)
    return cs


def _docs(text: str) -> list[Any]:
    if len(text) > MAX_TEXT:
        return []
    body = "\n".join(ln for ln in text.splitlines() if not _CAT.match(ln)
                     and ln.strip() not in ("`", '"'))
    try:
        return [d for d in yaml_docs(textwrap.dedent(body)) if isinstance(d, dict | list)]
    except (InputError, ValueError, RecursionError, yaml.YAMLError):
        return _leading_json(body)


def _leading_json(body: str) -> list[Any]:
    """The JSON document a part starts with, when the next command's prompt and output were
    pasted after it (``cat daemon.json`` then ``which …``): the object is still whole."""
    text = body.lstrip()
    if not text.startswith(("{", "[")):
        return []
    try:
        doc, _end = json.JSONDecoder().raw_decode(text)
    except (ValueError, RecursionError):  # not JSON either: a fragment, nothing
        return []
    return [doc] if isinstance(doc, dict | list) else []


def _walk(obj: Any) -> Iterator[tuple[str, Any, Any]]:
    """(key, value, parent mapping) over nested mappings and lists, bounded."""
    queue: deque[Any] = deque([obj])
    budget = WALK_BUDGET
    while queue and budget > 0:
        cur = queue.popleft()
        budget -= 1
        if isinstance(cur, dict):
            for k, v in cur.items():
                yield str(k), v, cur
                queue.append(v)
        elif isinstance(cur, list):
            queue.extend(cur)


def nfd_label_fields(docs: list[Any]) -> list[CauseScore]:
    """GX401: an NFD config whose ``deviceLabelFields`` make a PCI label the operator does not
    select on (``[vendor, device]`` gives ``pci-10de_<device>.present``), so no node is seen
    as a GPU node and the operand DaemonSets schedule nowhere."""
    for doc in docs:
        for key, value, _parent in _walk(doc):
            if key == "configData" and isinstance(value, str):
                for inner in _docs(value):
                    got = nfd_label_fields([inner])
                    if got:
                        return got
            if key != "deviceLabelFields" or not isinstance(value, list):
                continue
            fields = tuple(str(v).strip().lower() for v in value)
            if not fields or fields in MATCHING_FIELD_SETS:
                continue
            label = "pci-" + "_".join(f"<{f}>" for f in fields) + ".present"
            return [vote("nodes-unlabelled", 2.0, "nfd-label-fields",
                          f"NFD deviceLabelFields {list(fields)} name GPUs {label}; the operator "
                          f"selects {', '.join(OPERATOR_PCI_LABELS)}")]
    return []


def _tolerates_gpu(tols: list[Any]) -> bool:
    for t in tols:
        if not isinstance(t, dict):
            return True  # not a tolerations list we can read
        key, op = t.get("key"), t.get("operator", "Equal")
        if (key in (None, "") and op == "Exists") or key == GPU_TAINT_KEY:
            return True
    return False


def operand_tolerations(docs: list[Any]) -> list[CauseScore]:
    """GX402: operand tolerations (a DaemonSet, or values outside a workload's pod spec) that
    tolerate no ``nvidia.com/gpu`` taint: on tainted GPU nodes the DaemonSet's DESIRED
    leaves them out, silently."""
    for doc in docs:
        if isinstance(doc, dict) and doc.get("kind") in ("Pod", "Deployment", "Job", "StatefulSet",
                                                         "CronJob", "ReplicaSet"):
            continue
        for key, value, _parent in _walk(doc):
            if key != "tolerations" or not isinstance(value, list) or not value:
                continue
            if _tolerates_gpu(value):
                return []
            keys = sorted({str(t.get("key")) for t in value if isinstance(t, dict)})
            return [vote("operand-taint", 1.0, "tolerations-without-gpu-taint",
                          f"tolerations {keys} tolerate no {GPU_TAINT_KEY} taint")]
    return []


def _gpus(resources: Any) -> int:
    if not isinstance(resources, dict):
        return 0
    best = 0
    for sect in ("limits", "requests"):
        vals = resources.get(sect)
        if isinstance(vals, dict):
            v = vals.get(GPU_TAINT_KEY)
            if isinstance(v, int) or (isinstance(v, str) and v.isdigit()):
                best = max(best, int(v))
    return best


def split_pod_request(docs: list[Any]) -> list[CauseScore]:
    """GX205: a pod whose GPUs are asked for by several containers. A device is given to one
    container, so the pod needs the sum on a single node (kubernetes/kubernetes@v1.34.0:
    pkg/kubelet/cm/devicemanager/manager.go allocates per container)."""
    for doc in docs:
        if not isinstance(doc, dict) or doc.get("kind") != "Pod":
            continue
        spec = doc.get("spec")
        ctrs = spec.get("containers") if isinstance(spec, dict) else None
        if not isinstance(ctrs, list):
            continue
        per = [_gpus(c.get("resources")) for c in ctrs if isinstance(c, dict)]
        asking = [n for n in per if n > 0]
        if len(asking) >= 2:
            return [vote("request-too-large", 1.0, "pod-gpus-summed",
                          f"{len(asking)} containers ask {'+'.join(map(str, asking))} = "
                          f"{sum(asking)} {GPU_TAINT_KEY} on one node")]
    return []


_FRACTION = re.compile(r"\d*\.\d+|\d+m")


def _non_integer(q: Any) -> bool:
    """A quantity that is not a whole number: ``0.5`` (YAML float), ``"0.5"``, ``"500m"``."""
    if isinstance(q, bool):
        return False
    if isinstance(q, float):
        return not q.is_integer()
    if isinstance(q, str) and _FRACTION.fullmatch(q.strip()):
        v = q.strip()
        return int(v[:-1]) % 1000 != 0 if v.endswith("m") else not float(v).is_integer()
    return False


def fractional_gpu_request(docs: list[Any]) -> list[CauseScore]:
    """GX103: a manifest (a pod, or any controller's pod template, a Volcano or Kubeflow job's
    included) whose ``limits``/``requests`` give an ``nvidia.com/*`` resource a fraction. An
    extended resource must be a whole number: the apiserver refuses the pod
    (kubernetes/kubernetes@v1.34.0:pkg/apis/core/validation/validation.go
    ``ValidateResourceRequirements``, "must be an integer"), however the request was meant to
    share a GPU (seed §6: sharing is time-slicing or MIG replicas, never a fraction)."""
    for doc in docs:
        for key, value, _parent in _walk(doc):
            if key not in ("limits", "requests") or not isinstance(value, dict):
                continue
            for name, q in value.items():
                if str(name).startswith("nvidia.com/") and _non_integer(q):
                    return [vote("request-invalid", 2.0, "fractional-gpu-request",
                                 f"{key} {name}: {q} is not a whole number")]
    return []


def cri_dropin(parts: list[tuple[str, Part]]) -> list[CauseScore]:
    """GX501: a pasted containerd file that is a drop-in (not the root config: no ``version``,
    no imports, a name other than config.toml) and writes tables of the CRI plugin without the
    nvidia runtime. On containerd 1.x an import replaces a plugin's whole section, so the
    runtimes the root config set are gone (seed §5)."""
    for _name, part in parts:
        if part.kind not in (paste.CONTAINERD_TOML, paste.TEXT):
            continue
        lines = part.text.splitlines()
        named = next((m.group(1) for ln in lines[:3] if (m := _CAT.match(ln))), part.unit)
        if named.endswith("config.toml") or "dump" in part.command:
            continue
        body = textwrap.dedent("\n".join(ln for ln in lines if not _CAT.match(ln)))
        if len(body) > MAX_TEXT or CRI_PLUGIN not in body:
            continue
        try:
            data = tomllib.loads(body)
        except (tomllib.TOMLDecodeError, ValueError):
            data = {}
        if data and ("version" in data or "imports" in data):
            continue
        cri = (data.get("plugins") or {}).get(CRI_PLUGIN) if data else None
        if data and not isinstance(cri, dict):
            continue
        if re.search(r"runtimes\.\"?nvidia", body):
            continue
        where = named or "a pasted drop-in"
        return [vote("dropin-overwrote", 2.0, "cri-dropin",
                      f"{where} writes [plugins.\"{CRI_PLUGIN}\"] without the nvidia runtime: "
                      "containerd 1.x replaces the whole section on import")]
    return []


def envvar_without_limits(docs: list[Any]) -> list[CauseScore]:
    """GX303: a container that asks for GPUs only through ``NVIDIA_VISIBLE_DEVICES`` (no
    ``nvidia.com/*`` in its resources). Where the toolkit refuses the variable from unprivileged
    containers (``accept-nvidia-visible-devices-envvar-when-unprivileged = false``,
    NVIDIA/nvidia-container-toolkit@v1.20.0:cmd/nvidia-container-runtime-hook/container_config.go)
    or devices come through CDI, such a container gets no GPU. A vote: the toolkit's setting
    tells."""
    for doc in docs:
        for key, value, _parent in _walk(doc):
            if key != "containers" or not isinstance(value, list):
                continue
            for ctr in value:
                if not isinstance(ctr, dict) or not isinstance(ctr.get("env"), list):
                    continue
                asked = [e.get("value") for e in ctr["env"] if isinstance(e, dict)
                         and e.get("name") == "NVIDIA_VISIBLE_DEVICES"]
                if not asked or str(asked[0]).strip().lower() in ("", "void", "none"):
                    continue
                res = ctr.get("resources")
                names = [str(k) for sect in ("limits", "requests")
                         for k in ((res or {}).get(sect) or {})] if isinstance(res, dict) else []
                if any(n.startswith("nvidia.com/") for n in names):
                    continue
                sc = ctr.get("securityContext")
                if isinstance(sc, dict) and sc.get("privileged") is True:
                    continue  # a privileged container may use the variable
                return [vote("envvar-ignored", 1.25, "envvar-without-limits",
                              f"container {ctr.get('name', '?')} sets NVIDIA_VISIBLE_DEVICES="
                              f"{asked[0]} and requests no nvidia.com/* resource")]
    return []


_WORKLOADS = ("Pod", "Deployment", "Job", "StatefulSet", "CronJob", "ReplicaSet", "DaemonSet")


def _limits_without_gpu(res: Any) -> list[str] | None:
    """The resource names of a resources block that names some but no ``nvidia.com/*``."""
    if not isinstance(res, dict):
        return None
    names = [str(k) for sect in ("limits", "requests") if isinstance(res.get(sect), dict)
             for k in res[sect]]
    if not names or any(n.startswith("nvidia.com/") for n in names):
        return None
    return names


def resources_without_gpu(docs: list[Any]) -> list[CauseScore]:
    """GX303: the workload's resources, pasted alone (``resources:`` and its limits) or in a
    workload object, name CPU or memory and no ``nvidia.com/*``. The device plugin allocates a
    GPU only to a container that asks for it in limits (seed §4, §9); what such a container sees
    is then up to NVIDIA_VISIBLE_DEVICES, which the toolkit may ignore. A vote: the pod's own
    spec and the toolkit's setting tell. Operand manifests and chart values are not read."""
    for doc in docs:
        if not isinstance(doc, dict):
            continue
        if set(doc) == {"resources"} or (set(doc) <= {"limits", "requests"} and doc):
            res = doc.get("resources", doc)
            names = _limits_without_gpu(res)
            where = "the pasted resources"
        elif doc.get("kind") in _WORKLOADS and not str(
                (doc.get("metadata") or {}).get("name", "")).startswith(("nvidia-", "gpu-")):
            names = None
            where = ""
            for key, value, _parent in _walk(doc):
                if key == "containers" and isinstance(value, list):
                    asks = [_limits_without_gpu(c.get("resources")) for c in value
                            if isinstance(c, dict)]
                    if asks and all(a is not None for a in asks):
                        names = [n for a in asks if a for n in a]
                        where = f"{doc.get('kind')} {(doc.get('metadata') or {}).get('name', '')}"
                    break
        else:
            continue
        if names:
            return [vote("envvar-ignored", 1.0, "resources-without-gpu",
                          f"{where} ask for {', '.join(sorted(set(names))[:4])} and no "
                          "nvidia.com/* resource")]
    return []


def docker_default_runtime(docs: list[Any]) -> list[CauseScore]:
    """GX514: a Docker ``daemon.json`` that registers the ``nvidia`` runtime without making it
    the default. kubelet's dockershim (and cri-dockerd) start every pod, the device plugin's
    included, with the default runtime, so the plugin finds no NVML and advertises nothing
    (NVIDIA/k8s-device-plugin@v0.12.3:README.md, "Preparing your GPU Nodes": set
    ``default-runtime`` to ``nvidia``)."""
    for doc in docs:
        if not isinstance(doc, dict):
            continue
        runtimes = doc.get("runtimes")
        if not isinstance(runtimes, dict) or "nvidia" not in runtimes:
            continue
        default = doc.get("default-runtime")
        if default == "nvidia":
            return []
        return [vote("runtime-not-default", 2.0, "docker-default-runtime",
                      "daemon.json registers the nvidia runtime; default-runtime is "
                      f"{default or 'unset (runc)'}")]
    return []


# containerd's CRI default runtime, as a dump or a grep of it prints it (the key is the same in
# the 1.x ``io.containerd.grpc.v1.cri`` and 2.x ``io.containerd.cri.v1.runtime`` sections:
# containerd/containerd@v2.1.9:internal/cri/config/config.go ``DefaultRuntimeName``), and the
# two things that make a default of runc fine: a pod that asks for the nvidia RuntimeClass, and a
# device plugin whose devices come in as CDI devices, which containerd injects without the nvidia
# runtime (NVIDIA/k8s-device-plugin@v0.17.0:README.md, ``--device-list-strategy`` ``cdi-cri`` /
# ``cdi-annotations``; its default ``envvar`` needs the runtime). containerd's own
# ``enable_cdi`` says nothing of that: 2.x turns it on by default.
_DEFAULT_RUNTIME = re.compile(r"^[ \t]*default_runtime_name[ \t]*=[ \t]*[\"']([^\"'\n]*)[\"']",
                              re.M)
_ASKS_CLASS = re.compile(r"[\"']?runtimeclassname[\"']?[ \t]*:[ \t]*[\"']?nvidia")
_CDI_STRATEGY = re.compile(r"device[_-]?list[_-]?strategy\W{0,12}(?:[\w-]+\W{1,4}){0,3}cdi-")
# The operator's toolkit installs its runtime under /usr/local/nvidia/toolkit and leaves runc
# the default exactly when CDI is on (``NVIDIA_RUNTIME_SET_AS_DEFAULT=false`` with
# ``CDI_ENABLED=true``, NVIDIA/gpu-operator@v25.10.1:controllers/object_controls.go), giving
# its operands ``runtimeClassName: nvidia``: runc as the default there is the healthy CDI shape.
_OPERATOR_CDI = re.compile(r"/usr/local/nvidia/toolkit/nvidia-container-runtime|"
                           r"cdi:\s*\n\s*enabled:\s*true|"
                           r"cdi_enabled(?:\W{1,6}|\W{1,30}value\W{1,4})true|"
                           r"nvidia_runtime_set_as_default(?:\W{1,6}|\W{1,30}value\W{1,4})false")
_RUNTIME_TABLE = re.compile(r"runtimes\.(\"?)([\w.-]+)\1\]")


def containerd_default_runtime(text: str) -> list[CauseScore]:
    """GX514: containerd's ``default_runtime_name`` is not ``nvidia`` and nothing in the paste
    makes that fine (no pod asks for the nvidia RuntimeClass, the plugin lists no CDI devices,
    the runtime is not the operator's, which keeps runc the default in CDI mode), so a pod
    without
    ``runtimeClassName`` — the device plugin's included — runs under runc with no driver
    libraries. The line ``triage`` asks for when the plugin sees no NVML (``CAUSES``:
    runtime-not-default); a vote: the pod's runtimeClassName tells. A config whose runtimes
    lack ``nvidia`` altogether is GX301's, not this."""
    low = text[:MAX_TEXT].lower()
    if "default_runtime_name" not in low:
        return []
    names = [m.group(1).strip() for m in _DEFAULT_RUNTIME.finditer(low)]
    if not names or "nvidia" in names or _ASKS_CLASS.search(low) or _CDI_STRATEGY.search(low) \
            or _OPERATOR_CDI.search(low):
        return []
    tables = {m.group(2) for m in _RUNTIME_TABLE.finditer(low)}
    if tables and not any(t.startswith("nvidia") for t in tables):
        return []
    return [vote("runtime-not-default", 1.0, "containerd-default-runtime",
                 f"containerd's default_runtime_name is {names[0] or 'unset (runc)'}: a pod "
                 "without runtimeClassName nvidia runs under it")]


# The paste shows the plugin's pods started under the nvidia runtime: Docker's or containerd's
# default is ``nvidia``, or the plugin's chart is installed with ``runtimeClassName=nvidia``
# (NVIDIA/k8s-device-plugin@v0.17.0:deployments/helm/nvidia-device-plugin/values.yaml
# ``runtimeClassName``). A workload's own ``runtimeClassName`` says nothing of the plugin's pod.
_NVIDIA_RUNTIME_SHOWN = re.compile(
    r"^[ \t]*default_runtime_name[ \t]*=[ \t]*[\"']nvidia[\"']|"
    r"--set[ =][\"']?runtimeclassname=[\"']?nvidia\b", re.M)
_PLUGIN_NO_NVML_LIB = re.compile(r"nvml init failed: error_library_not_found|"
                                 r"could not load nvml library")


# Docker's ``default-runtime`` reaches pods only where kubelet runs them through Docker (k3s
# ``--docker``, dockershim's ``--container-runtime=docker``, cri-dockerd, a node whose runtime
# version reads ``docker://``); under containerd it applies to nothing kubelet starts.
_DOCKER_DEFAULT_NVIDIA = re.compile(r"\"default-runtime\"[ \t]*:[ \t]*\"nvidia\"")
_KUBELET_ON_DOCKER = re.compile(r"(?:^|[ \t])--docker\b|--container-runtime[= ]docker\b|"
                                r"cri-dockerd|dockershim|container runtime version:[ \t]*docker://")


def nvidia_runtime_shown(text: str) -> str | None:
    """The line that shows the device plugin's pods run under the nvidia runtime, which rules
    out GX514 (``runtime-not-default``: the plugin started under runc), or None."""
    low = text[:MAX_TEXT].lower()
    m = _NVIDIA_RUNTIME_SHOWN.search(low)
    if m is None and _KUBELET_ON_DOCKER.search(low):
        m = _DOCKER_DEFAULT_NVIDIA.search(low)
    return m.group(0) if m else None


def plugin_envvar_ignored(text: str) -> list[CauseScore]:
    """GX303: the plugin finds no NVML library although the paste shows it runs under the
    nvidia runtime. The runtime then saw the container and injected nothing: the plugin asks
    for the driver only through ``NVIDIA_VISIBLE_DEVICES=all`` in its env, which the toolkit
    ignores for a container it counts as unprivileged (no CAP_SYS_ADMIN) when
    ``accept-nvidia-visible-devices-envvar-when-unprivileged = false``
    (NVIDIA/nvidia-container-toolkit@v1.17.0:internal/config/image/cuda_image.go
    ``VisibleDevicesFromEnvVar``; cmd/nvidia-container-runtime-hook/main.go). A vote: a
    driver root the plugin cannot see (GX304) gives the same line."""
    shown = nvidia_runtime_shown(text)
    low = text[:MAX_TEXT].lower()
    if shown is None or not _PLUGIN_NO_NVML_LIB.search(low):
        return []
    return [vote("envvar-ignored", 1.0, "plugin-envvar-ignored",
                 f"the plugin runs under the nvidia runtime ({shown}) yet loads no NVML "
                 "library: its NVIDIA_VISIBLE_DEVICES was not honoured")]


# A containerd runtime's options table: the CRI plugin decodes it into runc's options struct by
# re-encoding the map (keys sorted) and decoding it with go-toml, whose keys fall back to a
# case-insensitive match and whose last key wins (containerd/containerd@v2.1.9:internal/cri/
# config/config.go ``GenerateRuntimeOptions``; pelletier/go-toml v2 follows encoding/json here:
# golang/go#11673). Two spellings of ``BinaryName`` therefore fight, and the sorted order puts
# the lowercase one last: Kubespray wrote ``binaryName = runc`` beside the toolkit's
# ``BinaryName`` (kubernetes-sigs/kubespray#12167), so the nvidia handler ran plain runc.
_OPTIONS_HEADER = re.compile(r"^\s*\[[^\]\n]*runtimes\.['\"]?(nvidia[\w.-]*)['\"]?\.options\]\s*$")
_BINARY_NAME = re.compile(r"^\s*(binaryname)\s*=\s*['\"]([^'\"\n]*)['\"]", re.I)


def runtime_binary_twins(text: str) -> list[CauseScore]:
    """GX307: an nvidia runtime's options name its binary twice, in two spellings of
    ``BinaryName`` with different values, one of them not the NVIDIA runtime: containerd runs
    whichever its decoder keeps, the lowercase one in the sorted re-encoding."""
    handler: str | None = None
    seen: dict[str, str] = {}
    out: list[CauseScore] = []

    def judge() -> None:
        if handler and len(seen) > 1 and len(set(seen.values())) > 1 and any(
                "nvidia" not in v for v in seen.values()):
            last = seen[max(seen)]  # "binaryName" sorts after "BinaryName"
            spelled = ", ".join(f"{k} = {v!r}" for k, v in sorted(seen.items()))
            out.append(vote("injection-failed", 2.0, "runtime-binary-twins",
                            f"runtimes.{handler}.options: {spelled}: containerd keeps "
                            f"{last!r}"))

    for line in text[:MAX_TEXT].splitlines():
        if line.lstrip().startswith("["):
            judge()
            m = _OPTIONS_HEADER.match(line)
            handler, seen = (m.group(1) if m else None), {}
            if out:
                break
            continue
        if handler is not None:
            b = _BINARY_NAME.match(line)
            if b:
                seen[b.group(1)] = b.group(2)
    judge()
    return out[:1]


# ``ls -l`` rows: a regular file or a symlink, by its path (coreutils' long format).
_LS_ROW = re.compile(r"^([-l])[rwxsStT-]{9}[.+@]?\s+\d+\s+\S+\s+\S+\s+\d+\s+\w{3}\s+\d+\s+"
                     r"[\d:]+\s+(/\S*nvidia-container[\w.-]*)(?: -> (\S+))?\s*$")


def dangling_toolkit_link(text: str) -> list[CauseScore]:
    """GX307: a pasted ``ls -l /usr/bin/nvidia-container*`` in which a toolkit symlink points
    at a file of the same glob that the listing does not hold: the link dangles, so the hook
    Docker or the runtime calls is gone. The 1.11.0 packages made ``nvidia-container-runtime-
    hook`` the executable and ``nvidia-container-toolkit`` its symlink, while the old RPM's
    ``%postun`` still deleted the hook on upgrade (NVIDIA/nvidia-docker#1682;
    NVIDIA/nvidia-container-toolkit@v1.11.0:CHANGELOG.md)."""
    files: set[str] = set()
    links: list[tuple[str, str]] = []
    for line in text[:MAX_TEXT].splitlines():
        m = _LS_ROW.match(line.strip())
        if not m:
            continue
        if m.group(1) == "l" and m.group(3):
            links.append((m.group(2), m.group(3)))
        else:
            files.add(m.group(2))
    for path, target in links:
        full = target if target.startswith("/") else path.rsplit("/", 1)[0] + "/" + target
        same_glob = full.rsplit("/", 1)[0] == path.rsplit("/", 1)[0] and \
            "nvidia-container" in full.rsplit("/", 1)[-1]
        if files and same_glob and full not in files and full not in {p for p, _ in links}:
            return [vote("injection-failed", 2.0, "dangling-toolkit-link",
                         f"{path} -> {target}: the listing has no {full}")]
    return []


# The host itself without a driver: a login shell (bash names itself "-bash" only as a login
# shell, an SSH session to the node; ``docker exec``/``kubectl exec`` give plain "bash") that
# finds no nvidia-smi, or systemd that has no unit for the OS's driver service (Flatcar's
# ``nvidia.service``: flatcar/scripts@9dd4df78:sdk_container/src/third_party/coreos-overlay/
# x11-drivers/nvidia-drivers/files/units/nvidia.service). The operator's driver
# container keeps nvidia-smi off the host's PATH (under /run/nvidia/driver), so a paste that
# names it says nothing here.
_HOST_NO_DRIVER = re.compile(r"^-bash: nvidia-smi: command not found|"
                             r"unit (?:nvidia|nvidia-driver)\.service (?:not found|could not be "
                             r"found)", re.M | re.I)
_DRIVER_CONTAINER = re.compile(r"nvidia-driver-daemonset|nvidia-driver-ctr|/run/nvidia/driver|"
                               r"gpu-operator", re.I)


def host_without_driver(text: str) -> list[CauseScore]:
    """GX403: the node's own shell or systemd shows no NVIDIA driver installed."""
    body = text[:MAX_TEXT]
    m = _HOST_NO_DRIVER.search(body)
    if m is None or _DRIVER_CONTAINER.search(body):
        return []
    return [vote("host-driver-absent", 2.5, "host-without-driver",
                 f"{m.group(0)}: the node has no NVIDIA driver")]


# ``ctr run`` drives containerd's task API directly: ``--runc-binary`` names the runtime binary
# and ``--gpus`` has ctr call libnvidia-container itself (containerd/containerd@v1.7.27:
# cmd/ctr/commands/run/run_unix.go, ``WithGPUs``), neither through the CRI plugin's runtimes.
# nvidia-smi answering in such a container proves the driver, the toolkit's runtime and its
# hook; what a pod lacks then is in the CRI configuration (seed §5).
_CTR_RUN = re.compile(r"\bctr\b.{0,120}\brun\b.{0,400}(?:--runc-binary[= ]\S*nvidia-container-"
                      r"runtime|--gpus[= ]\S+)")
_SMI_ANSWERS = re.compile(r"nvidia-smi \d+\.\d+.{0,40}driver version: \d+")


def gpu_works_outside_cri(text: str) -> list[CauseScore]:
    """GX512/GX514/GX301: a ``ctr run`` with the nvidia runtime or ``--gpus`` whose nvidia-smi
    answers, in a paste about pods without a GPU: the node's stack works below the CRI, so the
    CRI config is where the nvidia runtime is missing, not default, or not the file containerd
    reads (votes, equal: the config dump tells which)."""
    low = text[:MAX_TEXT].lower()
    if "ctr" not in low or "nvidia-smi" not in low:
        return []
    for m in _CTR_RUN.finditer(low):
        if _SMI_ANSWERS.search(low, m.end(), m.end() + 6000):
            line = "nvidia-smi answers in a container ctr started outside the CRI plugin"
            return [vote(cid, 1.0, "gpu-works-outside-cri", line)
                    for cid in ("runtime-config-not-read", "runtime-not-default",
                                "handler-missing")]
    return []


def toolkit_release_fix(text: str) -> list[CauseScore]:
    """GX307: the paste shows a toolkit release whose own changelog says containers could fail
    to start in it (``knowledge.toolkit_releases``): a vote naming the release with the fix,
    never deciding (the hook's error line tells)."""
    low = text[:MAX_TEXT]
    if "nvidia" not in low.lower():
        return []
    tk = hostcmds.ctk_version(low)
    m = re.match(r"(\d+)\.(\d+)\.(\d+)", tk)
    if m is None:
        return []
    ver = (int(m.group(1)), int(m.group(2)), int(m.group(3)))
    for fix in TOOLKIT_START_FIXES:
        if fix.broken == ver:
            return [vote("injection-failed", 1.0, "toolkit-release-fixed-later",
                         f"toolkit {tk}: {fix.what} (fixed in {fix.fixed})")]
    return []


# apt's history log (/var/log/apt/history.log): one entry per run, ``Commandline:`` naming the
# program and ``Install:``/``Upgrade:`` listing ``pkg:arch (old, new)`` (Debian apt@2.0.2:
# apt-pkg/deb/dpkgpm.cc writes the entry). An entry run by unattended-upgrade that replaced a
# kernel image/modules package or an NVIDIA driver package changed the node under its loaded
# driver without anyone deciding it (seed §3).
_APT_CMD = re.compile(r"^\s*commandline:\s*(?P<cmd>.*)$", re.M)
_APT_PKGS = re.compile(r"^\s*(?:upgrade|install):\s*(?P<pkgs>.*)$", re.M)
_APT_PKG = re.compile(r"(?:^|, )(?P<pkg>[a-z0-9][a-z0-9+.-]*)(?::[a-z0-9]+)? \(")
_UNDER_DRIVER = re.compile(r"^(?:linux-(?:image|modules|headers)-|(?:lib)?nvidia-|"
                           r"libnvidia-|xserver-xorg-video-nvidia)")


def unattended_upgrades(text: str) -> list[CauseScore]:
    """GX508: a pasted apt history entry of unattended-upgrade that replaced kernel or NVIDIA
    driver packages (a vote: the entry's date against when the driver stopped tells)."""
    low = text[:MAX_TEXT].lower()
    if "unattended-upgrade" not in low or "commandline:" not in low:
        return []
    for m in _APT_CMD.finditer(low):
        if "unattended-upgrade" not in m.group("cmd"):
            continue
        nxt = _APT_CMD.search(low, m.end())
        entry = low[m.end():nxt.start() if nxt else len(low)]
        pkgs = [p.group("pkg") for pm in _APT_PKGS.finditer(entry)
                for p in _APT_PKG.finditer(pm.group("pkgs"))]
        hit = [p for p in pkgs if _UNDER_DRIVER.match(p)]
        if hit:
            return [vote("kernel-upgraded", 2.0, "apt-history-unattended",
                          f"unattended-upgrade replaced {', '.join(hit[:3])}"
                          + (f" (+{len(hit) - 3})" if len(hit) > 3 else ""))]
    return []


# The file k3s and RKE2 render at every start (knowledge/distributions.py): their own template
# adds the nvidia runtime it finds on the node, never as containerd's default.
_RENDERED = re.compile(r"^/var/lib/rancher/(?:k3s|rke2)/agent/etc/containerd/config\.toml$")


def toolkit_default_in_rendered_file(docs: list[Any]) -> list[CauseScore]:
    """GX512: toolkit env (a ClusterPolicy's or the chart's values) that has the toolkit make
    ``nvidia`` containerd's default runtime (``CONTAINERD_SET_AS_DEFAULT``) in the config.toml
    k3s/RKE2 render over at the next start, instead of their ``config.toml.tmpl``: the default
    is gone once the distribution restarts, and pods without ``runtimeClassName`` run under
    runc (NVIDIA/nvidia-container-toolkit@v1.20.0:cmd/nvidia-ctk/runtime/configure/configure.go
    writes the one file it is given). A vote: the rendered file's ``default_runtime_name``
    tells."""
    for doc in docs:
        for key, value, _parent in _walk(doc):
            if key != "env" or not isinstance(value, list):
                continue
            env = {str(e.get("name")): str(e.get("value", "")).strip().lower()
                   for e in value if isinstance(e, dict)}
            cfg = env.get("CONTAINERD_CONFIG", "")
            if _RENDERED.match(cfg) and env.get("CONTAINERD_SET_AS_DEFAULT") in ("true", "1"):
                return [vote("runtime-config-not-read", 2.0, "toolkit-default-in-rendered-file",
                              f"CONTAINERD_CONFIG={cfg} with CONTAINERD_SET_AS_DEFAULT: the "
                              "file is rendered again from the template at every start")]
    return []


# The plugin's README recipe for running it outside Kubernetes (NVIDIA/k8s-device-plugin@v0.6.0:
# README.md, "Run locally": ``docker run ... -v /var/lib/kubelet/device-plugins:... nvidia/
# k8s-device-plugin:<tag>``), run with ``--runtime=nvidia`` added, and its registration line
# after it: the plugin works once the nvidia runtime starts it, so the DaemonSet's pods, which
# get the default runtime, do not.
_REGISTERED = re.compile(r"registered device plugin (?:for|with kubelet)")


def plugin_works_by_hand(text: str) -> list[CauseScore]:
    """GX514: the device plugin registers when started by hand under the nvidia runtime."""
    low = text[:MAX_TEXT].lower()
    if "k8s-device-plugin" not in low or "--runtime" not in low:
        return []
    pos = 0
    for line in low.split("\n"):
        pos += len(line) + 1
        cut = line[:4096]
        run = cut.find("docker run")
        if run < 0 or "k8s-device-plugin" not in cut:
            continue
        if any(cut.find(flag, run) > 0 for flag in ("--runtime=nvidia", "--runtime nvidia")) \
                and _REGISTERED.search(low, pos, pos + 4000):
            return [vote("runtime-not-default", 2.0, "plugin-registers-under-nvidia-runtime",
                          "the device plugin registers when docker starts it with "
                          "--runtime=nvidia")]
    return []


# A container started by hand with no GPU asked for: Docker hands a container GPUs only for
# ``--gpus`` (docker/cli@v24.0.0:opts/gpus.go, a DeviceRequest the daemon passes to the
# toolkit's hook) or under the nvidia runtime (``--runtime=nvidia``, NVIDIA_VISIBLE_DEVICES
# read by the runtime); podman and nerdctl by a CDI ``--device nvidia.com/gpu=…`` or
# ``--gpus``. ``nvidia-docker run`` adds the runtime itself. Without any of them the image's
# CUDA finds no driver, which is what the paste then shows.
_RUN_CMD = re.compile(r"^[ \t]*(?:\S*[$#>][ \t]*)?(?:sudo[ \t]+(?:-\S+[ \t]+)*)?"
                      r"(?<![\w-])(?:docker|podman|nerdctl)[ \t]+(?:container[ \t]+)?run\b")
_GPU_FLAGS = ("--gpus", "--runtime=nvidia", "--runtime nvidia", "nvidia.com/gpu",
              "--device=/dev/nvidia", "--device /dev/nvidia", "nvidia_visible_devices",
              "--cdi-device")
_NO_GPU_INSIDE = ("the nvidia driver was not detected", "cuda driver version is insufficient",
                  "no cuda-capable device", "no cuda gpus are available",
                  "found no nvidia driver on your system", "nvidia-smi: command not found",
                  "nvidia-smi: not found", "libcuda.so.1: cannot open shared object file")


def run_without_gpus(text: str) -> list[CauseScore]:
    """GX303: every container run command the paste shows asks for no GPU, and what runs in
    it finds none."""
    low = text[:MAX_TEXT].lower()
    if " run" not in low or not any(s in low for s in _NO_GPU_INSIDE):
        return []
    lines = low.split("\n")
    shown = ""
    for i, line in enumerate(lines):
        if not _RUN_CMD.match(line[:4096]):
            continue
        cmd, nxt = line, i + 1
        while cmd.rstrip().endswith("\\") and nxt < len(lines):  # continued lines
            cmd = cmd.rstrip()[:-1] + " " + lines[nxt]
            nxt += 1
        if any(flag in cmd for flag in _GPU_FLAGS):
            return []
        shown = shown or cmd.strip()[:200]
    if not shown:
        return []
    return [vote("envvar-ignored", 3.0, "run-without-gpus",
                 f"{shown}: no --gpus, nvidia runtime or CDI device asked for")]


# ``kubectl get no -o custom-columns=NAME:.metadata.name,GPU:.status.allocatable.nvidia\.com/gpu``
# the check GPU platform guides tell users to run after installing the stack (e.g.
# https://docs.opennebula.io/7.4/platform_services/oneks/catalog/nvidia_gpu_operator/). kubectl
# prints each column's header as the spec names it and ``<none>`` for a field the object lacks
# (kubernetes/kubernetes@v1.34.0:staging/src/k8s.io/kubectl/pkg/cmd/get/customcolumn.go). The
# spec says which of capacity and allocatable a column shows; a table pasted without its
# command is read by a header naming GPUs.
_COLUMN_SPEC = re.compile(r"(?P<head>[\w-]{1,40}):\.status\.(?P<field>capacity|allocatable)"
                          r"\.\\?'?\"?nvidia\\?\\?\.com/(?:gpu|mig-[\w.-]+)")
_GPU_HEAD = re.compile(r"^[ \t]*NAME[ \t]+(?P<cols>(?:[\w.-]{1,40}[ \t]*){1,4})$")
_GPU_ROW = re.compile(r"^[ \t]*(?P<name>[a-z0-9](?:[a-z0-9.-]{0,251}[a-z0-9])?)[ \t]+"
                      r"(?P<vals>(?:(?:\d{1,4}|\\?<none\\?>)[ \t]*){1,4})$")
MAX_GPU_ROWS = 2000


def _gpu_column_rows(text: str) -> tuple[dict[str, str], list[tuple[str, list[int | None]]]]:
    """The GPU columns of a pasted custom-columns table (header → ``capacity``/``allocatable``
    or ``""`` when the spec was not pasted) and its rows (``None`` for ``<none>``)."""
    fields = {m.group("head"): m.group("field") for m in _COLUMN_SPEC.finditer(text)}
    lines = text.splitlines()
    for i, line in enumerate(lines):
        head = _GPU_HEAD.match(line)
        if head is None:
            continue
        cols = head.group("cols").split()
        gpu_cols = [c for c in cols if c in fields or "gpu" in c.lower()]
        if not gpu_cols or len(gpu_cols) != len(cols):
            continue
        rows: list[tuple[str, list[int | None]]] = []
        for row_line in lines[i + 1:i + 1 + MAX_GPU_ROWS]:
            row = _GPU_ROW.match(row_line)
            if row is None:
                break
            vals = row.group("vals").split()
            if len(vals) != len(cols):
                break
            rows.append((row.group("name"), [None if "none" in v else int(v) for v in vals]))
        if rows:
            return {c: fields.get(c, "") for c in cols}, rows
    return {}, []


def gpu_columns(text: str) -> list[CauseScore]:
    """GX202 / GX203 from a pasted custom-columns table of the nodes' GPU resource: a node
    printed ``<none>`` (or 0) has no GPU the scheduler can use: the device plugin never
    registered the resource, or it did and kubelet dropped it (seed §2, gate 1's input). A
    capacity column above the allocatable one is devices the plugin reported unhealthy (seed
    §2: the arithmetic). Votes: the plugin's own log tells which."""
    if "NAME" not in text[:MAX_TEXT]:
        return []
    cols, rows = _gpu_column_rows(text[:MAX_TEXT])
    if not rows:
        return []
    heads = list(cols)
    cap = next((i for i, h in enumerate(heads) if cols[h] == "capacity"), None)
    alloc = next((i for i, h in enumerate(heads) if cols[h] == "allocatable"), None)
    if cap is not None and alloc is not None:
        lost = [(n, v[cap], v[alloc]) for n, v in rows
                if v[cap] is not None and (v[alloc] or 0) < (v[cap] or 0)]
        if lost:
            n, c, a = lost[0]
            return [vote("unhealthy", 2.0, "gpu-columns-lost",
                         f"{n}: nvidia.com/gpu capacity {c}, allocatable {a or 0}",
                         kind="arithmetic")]
    empty = [n for n, v in rows if all(x is None or x == 0 for x in v)]
    if not empty or len(empty) < len(rows):
        return []  # some node advertises GPUs: the table alone names no cause
    shown = ", ".join(empty[:3]) + (f" and {len(empty) - 3} more" if len(empty) > 3 else "")
    return [vote("not-advertised", 1.5, "gpu-columns-none",
                 f"{shown}: the nodes' {'/'.join(heads)} column shows no nvidia.com/gpu",
                 kind="arithmetic"),
            vote("nodes-unlabelled", 0.75, "gpu-columns-none",
                 f"{shown}: no nvidia.com/gpu; the plugin may never have been scheduled there",
                 kind="arithmetic")]


def distro_rendered_config(text: str) -> list[CauseScore]:
    """GX512: the containerd config a k3s or RKE2 node renders (``agent/etc/containerd/
    config.toml``) pasted without an ``nvidia`` runtime. The distribution rewrites that file
    from its template on every start (``knowledge.distributions``: a runtime reaches it only
    through ``config.toml.tmpl`` or the distribution's own detection of the NVIDIA runtime
    binaries), so a runtime added by hand or by a toolkit writing to another file is not in the
    config its containerd reads. A vote: the template and the toolkit's log tell."""
    low = text[:MAX_TEXT]
    for dist in DISTRIBUTIONS:
        at = low.find(dist.config)
        while at >= 0 and low.startswith(".tmpl", at + len(dist.config)):
            at = low.find(dist.config, at + 1)
        if at < 0:
            continue
        body = low[at + len(dist.config):at + len(dist.config) + 20000]
        if not re.search(r"^\s*(?:version\s*=\s*\d|\[plugins)", body, re.M):
            continue  # the path named, its content not pasted
        if re.search(r"runtimes\.['\"]?nvidia|nvidia-container-runtime", body):
            return []
        return [vote("runtime-config-not-read", 1.5, "distro-rendered-config",
                     f"{dist.config} ({dist.name} renders it from its template on every start) "
                     "holds no nvidia runtime")]
    return []


# The RHEL driver container installs the running kernel's headers with dnf pinned to the release
# it was told (NVIDIA/gpu-driver-container rhel8/nvidia-driver and rhel9/nvidia-driver:
# ``dnf ... --releasever=${DNF_RELEASEVER}``, from RHEL_VERSION / OPENSHIFT_VERSION); the kernel's
# own ``.el<major>_<minor>`` says which release it belongs to
_RELEASEVER = re.compile(r"--releasever[= ](?P<major>\d{1,2})\.(?P<minor>\d{1,2})\b")
_EL_KERNEL = re.compile(r"\bkernel-(?:headers|devel|core|modules)-[\d.]+-[\d.]+\.el"
                        r"(?P<major>\d{1,2})_(?P<minor>\d{1,2})\b")


def rhel_release_mismatch(text: str) -> list[CauseScore]:
    """GX412: dnf pinned to one RHEL minor release asked for the kernel packages of another
    (``--releasever=8.2`` and ``kernel-devel-…el8_3``): the driver container was set up for
    another release than the node runs (after an OS upgrade the DaemonSet keeps the old
    RHEL_VERSION), so the headers are not in the repositories it reads. A vote."""
    low = text[:MAX_TEXT]
    rel = _RELEASEVER.search(low)
    if rel is None:
        return []
    for k in _EL_KERNEL.finditer(low):
        if k.group("major") == rel.group("major") and k.group("minor") != rel.group("minor"):
            return [vote("driver-os-mismatch", 2.0, "rhel-release-mismatch",
                         f"dnf pinned to release {rel.group('major')}.{rel.group('minor')} asks "
                         f"for {k.group(0)} (release {k.group('major')}.{k.group('minor')})")]
    return []


# A driver branch as the paste shows it: nvidia-smi's header, a driver version setting (the
# ClusterPolicy's or a values file's ``version:``, kops' ``nvidiaGPU.driverPackage``), the
# installer's .run file, a distribution's driver package.
_DRIVER_BRANCH = re.compile(
    r"driver version:?\s*(\d{3})\.\d+|nvidia-linux-\w+-(\d{3})\.\d+|"
    r"nvidia-(?:driver|headless|utils|kernel-source|dkms|tesla)-(\d{3})\b|"
    r"\bdriver(?:package|_version|version)?\W{1,4}(?:version\W{1,4})?\"?(\d{3})\.\d+\.\d+", re.I)


def driver_drops_gpu(text: str) -> list[CauseScore]:
    """GX416: the paste names a GPU of a generation whose last driver branch is older than every
    driver the paste shows (a K80 with R525), or, with no driver shown, a Kepler GPU or
    instance type: every driver an installer picks today is newer than R470, Kepler's last
    branch (``knowledge.gpu_generations``). A vote: a paste rarely shows which node ran which
    driver."""
    body = text[:MAX_TEXT]
    named = [(gen, m.group(0)) for fam in INSTANCE_FAMILIES
             if (m := fam.pattern.search(body)) and (gen := generation_of(fam.gpu))]
    named += [(gen, m.group(0)) for gen in GENERATIONS if (m := gen.products.search(body))]
    if not named:
        return []
    branches = [int(next(g for g in m.groups() if g)) for m in _DRIVER_BRANCH.finditer(body)]
    for gen, where in named:
        if branches:
            if min(branches) > gen.last_branch:
                return [vote("gpu-unsupported", 2.0, "driver-drops-gpu",
                             f"{where}: a {gen.name} GPU, whose last driver branch is "
                             f"R{gen.last_branch}, with driver R{max(branches)}")]
        elif gen.last_branch <= KEPLER_LAST:
            return [vote("gpu-unsupported", 1.0, "driver-drops-gpu",
                         f"{where}: a {gen.name} GPU; no driver newer than "
                         f"R{gen.last_branch} drives it")]
    return []


def readings(parts: list[tuple[str, Part]]) -> list[CauseScore]:
    """Every structural reading over the paste's YAML-like parts and containerd files."""
    docs: list[Any] = []
    for _name, part in parts:
        if part.kind in (paste.K8S_OBJECTS, paste.TEXT, paste.PLUGIN_CONFIG,
                         paste.HELM_VALUES) and ":" in part.text:
            docs.extend(_docs(part.text))
    return [*nfd_label_fields(docs), *operand_tolerations(docs), *split_pod_request(docs),
            *docker_default_runtime(docs), *envvar_without_limits(docs), *cri_dropin(parts),
            *toolkit_default_in_rendered_file(docs), *resources_without_gpu(docs),
            *fractional_gpu_request(docs)]
