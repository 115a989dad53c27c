"""A realistic GPU Operator deployment added to a :class:`ClusterBuilder`, healthy by default.

What it writes (facts.md §5): the operator Deployment and pod, ClusterPolicy ``cluster-policy``,
the RuntimeClasses ``nvidia``/``nvidia-cdi``/``nvidia-legacy``, the operand DaemonSets of
``knowledge/operands.py`` (deploy-label nodeSelectors, the ``nvidia.com/gpu`` toleration, init
containers in order, ``runtimeClassName: nvidia`` where the operator sets it), and on every GPU
node one Running pod per operand with completed init containers and a short healthy log.

Knobs (``broken``: knob → value; a *node* value names one of ``gpu_nodes``):

==================  ==========================================================================
``driver``          ``NODE`` or ``NODE:CAUSE`` (CAUSE: nouveau, secure-boot, precompiled,
                    headers; default nouveau): the driver pod crash-loops with that cause's
                    log/event, later operands on the node wait in Init, policy notReady
``toolkit``         ``NODE``: the toolkit pod crash-loops (config dump fails, GX509); operands
                    wait in ``toolkit-validation``; policy notReady
``handler``         ``NODE[,NODE…]``: the ``nvidia`` handler is gone: operand pods with
                    ``runtimeClassName: nvidia`` fail sandbox creation, the plugin never starts,
                    the node advertises ``nvidia.com/gpu: 0``
``dcgm-exporter``   ``NODE``: dcgm-exporter crash-loops, cannot connect to DCGM
``dcgm-profiling``  ``NODE``: dcgm-exporter crash-loops, profiling metrics unsupported
``mig``             ``NODE``: ``nvidia.com/mig.config.state=failed`` and a mig-manager error log
``upgrade``         ``NODE``: ``nvidia.com/gpu-driver-upgrade-state=upgrade-failed``
``labels``          ``NODE``: NFD saw the GPU but ``gpu.present``/deploy labels are missing
``taint``           ``NODE`` or ``NODE:KEY``: the node gets a NoSchedule taint operands do not
                    tolerate (default key ``dedicated``)
``plugin-config``   any value: ``spec.devicePlugin.config`` names ConfigMap
                    ``time-slicing-config`` updated after the plugin pods started
``clusterpolicy``   any value: ClusterPolicy ``notReady`` naming ``state-dcgm-exporter``
                    (combine with a broken operand, or alone for a policy-only failure)
``runtime-hook``    ``NODE`` or ``NODE:CAUSE`` (CAUSE: cli-init, hook, binary; default cli-init):
                    a GPU pod ``ml/cuda-job`` on the node fails at container create in the
                    NVIDIA runtime/hook (GX307); ``binary`` also writes the containerd journal
                    line when the node has host files
``os-mix``          ``NODE`` or ``NODE:OS`` (OS: rocky, rhel, ubuntu24; default rocky): the node
                    runs another OS release; its driver pod cannot pull ``<version>-<os>`` (GX412)
``plugin-config-invalid``
                    ``NODE`` or ``NODE:KIND`` (KIND: misplaced, missing-key, unparsable; default
                    misplaced): ClusterPolicy names ConfigMap ``device-plugin-config``; the node's
                    ``nvidia.com/device-plugin.config`` label selects a broken entry (GX413)
``gfd-labels``      ``NODE`` or ``NODE:CAUSE`` (CAUSE: nfd-denied, restarts; default nfd-denied):
                    the node lacks GFD's product/count/memory labels, because nfd-master denies
                    the nvidia.com namespace or GFD keeps restarting (GX414)
==================  ==========================================================================

GPU nodes that already have host files in the builder when this runs also get the CDI specs the
toolkit and the device plugin write (``var/run/cdi/management.nvidia.com-gpu.yaml``,
``var/run/cdi/k8s.device-plugin.nvidia.com-gpu.json``); call :func:`add_cdi_spec` for nodes
whose host files are added later.
"""

from __future__ import annotations

from typing import Any

from gpuxray.knowledge import cdi as cdik
from gpuxray.knowledge.driver_images import os_tag
from gpuxray.knowledge.operands import OPERANDS, Operand
from gpuxray.scenarios.builder import OPERATOR_NS, ClusterBuilder, meta, uid
from gpuxray.scenarios.cdi import device_plugin_spec, management_spec

Obj = dict[str, Any]

STARTED = "2026-11-29T10:00:00Z"
GPU_TOLERATION: Obj = {"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}

HEALTHY_LOGS: dict[str, str] = {
    "nvidia-driver-ctr": "Starting installation of NVIDIA driver version 580.95.05 for Linux "
                         "kernel version 5.15.0-126-generic\nLoading NVIDIA driver kernel "
                         "modules...\nDone, now waiting for signal\n",
    "nvidia-container-toolkit-ctr": "time=\"2026-11-29T10:01:02Z\" level=info msg=\"Loading "
                                    "config from /runtime/config-dir/config.toml\"\n"
                                    "time=\"2026-11-29T10:01:03Z\" level=info msg=\"Sending "
                                    "SIGHUP signal to containerd\"\n",
    "nvidia-device-plugin": "I1129 10:02:10.000000       1 main.go:317] Retrieving plugins.\n"
                            "I1129 10:02:11.000000       1 server.go:216] Starting GRPC server "
                            "for 'nvidia.com/gpu'\nI1129 10:02:11.000000       1 server.go:154] "
                            "Registered device plugin for 'nvidia.com/gpu' with Kubelet\n",
    "nvidia-dcgm-exporter": "time=\"2026-11-29T10:03:00Z\" level=info msg=\"Starting webserver\"\n",
}

DRIVER_FAILURES: dict[str, tuple[str, str]] = {
    # cause -> (driver container log, event message on the driver pod)
    "nouveau": (
        "Starting installation of NVIDIA driver version 580.95.05 for Linux kernel version "
        "5.15.0-126-generic\nInstalling NVIDIA driver kernel modules...\nERROR: The Nouveau "
        "kernel driver is currently in use by your system.  This driver is incompatible with "
        "the NVIDIA driver, and must be disabled before proceeding.\nERROR: Installation has "
        "failed.\n", "Back-off restarting failed container nvidia-driver-ctr"),
    "secure-boot": (
        "Loading NVIDIA driver kernel modules...\nmodprobe: ERROR: could not insert 'nvidia': "
        "Key was rejected by service\n", "Back-off restarting failed container nvidia-driver-ctr"),
    "precompiled": (
        "", "Failed to pull image \"nvcr.io/nvidia/driver:580-5.15.0-130-generic-ubuntu22.04\": "
            "rpc error: code = NotFound desc = failed to pull and unpack image: "
            "nvcr.io/nvidia/driver:580-5.15.0-130-generic-ubuntu22.04: not found"),
    "headers": (
        "Installing Linux kernel headers...\nE: Unable to locate package "
        "linux-headers-5.15.0-130-generic\nCould not resolve Linux kernel version\n",
        "Back-off restarting failed container nvidia-driver-ctr"),
}


def _split(value: str) -> tuple[str, str]:
    node, _, extra = value.partition(":")
    return node, extra


def _done(name: str) -> Obj:
    return {"name": name, "ready": True, "restartCount": 0, "image": "", "imageID": "",
            "state": {"terminated": {"exitCode": 0, "reason": "Completed",
                                     "startedAt": STARTED, "finishedAt": STARTED}}}


def _running(name: str, restarts: int = 0) -> Obj:
    return {"name": name, "ready": True, "restartCount": restarts, "started": True,
            "image": "", "imageID": "", "state": {"running": {"startedAt": STARTED}}}


def _waiting(name: str, reason: str, message: str = "", restarts: int = 0,
             last: Obj | None = None) -> Obj:
    st: Obj = {"name": name, "ready": False, "restartCount": restarts, "image": "",
               "imageID": "", "state": {"waiting": {"reason": reason, **(
                   {"message": message} if message else {})}}}
    if last:
        st["lastState"] = {"terminated": last}
    return st


def _crash(name: str, message: str = "") -> Obj:
    return _waiting(name, "CrashLoopBackOff",
                    f"back-off 5m0s restarting failed container={name}", 7,
                    {"exitCode": 1, "reason": "Error", "message": message,
                     "startedAt": "2026-11-29T11:50:00Z", "finishedAt": "2026-11-29T11:50:09Z"})


def _image(op: Operand, version: str) -> str:
    if op.image.endswith("gpu-operator"):
        return f"nvcr.io/nvidia/cloud-native/gpu-operator-validator:{version}"
    return f"{op.image}:{version}"


def _daemonset(op: Operand, version: str, desired: int, ready: int,
               runtime_class: bool) -> Obj:
    sel = {"app": op.daemonset}
    init = [{"name": c, "image": f"nvcr.io/nvidia/cloud-native/gpu-operator-validator:{version}"}
            for c in op.init]
    containers = [{"name": c, "image": _image(op, version)} for c in op.containers]
    tmpl: Obj = {"nodeSelector": op.node_selector, "tolerations": [dict(GPU_TOLERATION)],
                 "priorityClassName": "system-node-critical", "containers": containers,
                 "serviceAccountName": op.daemonset.replace("-daemonset", "")}
    if init:
        tmpl["initContainers"] = init
    if op.runtime_class and runtime_class:
        tmpl["runtimeClassName"] = "nvidia"
    labels = {"app": op.daemonset, "app.kubernetes.io/managed-by": "gpu-operator",
              "helm.sh/chart": f"gpu-operator-{version}"}
    return {"apiVersion": "apps/v1", "kind": "DaemonSet",
            "metadata": meta("DaemonSet", op.daemonset, OPERATOR_NS, labels=labels),
            "spec": {"selector": {"matchLabels": sel},
                     "template": {"metadata": {"labels": {**sel, "app.kubernetes.io/part-of":
                                                          "gpu-operator"}}, "spec": tmpl}},
            "status": {"desiredNumberScheduled": desired, "currentNumberScheduled": desired,
                       "numberReady": ready, "numberAvailable": ready,
                       "numberUnavailable": desired - ready,
                       "updatedNumberScheduled": desired, "numberMisscheduled": 0,
                       "observedGeneration": 1}}


def _covers(op: Operand, node: Obj) -> bool:
    labels = node["metadata"].get("labels", {})
    if any(labels.get(k) != v for k, v in op.node_selector.items()):
        return False
    for t in node.get("spec", {}).get("taints", []):
        if t.get("effect") in ("NoSchedule", "NoExecute") and t.get("key") != "nvidia.com/gpu":
            return False
    return True


def add_cdi_spec(b: ClusterBuilder, node: str, *, toolkit: bool = True,
                 device_plugin: bool = True, mig_per_gpu: int = 0) -> None:
    """The CDI specs the operator's components write on a node when CDI is enabled
    (knowledge/cdi.py): the toolkit's ``management.nvidia.com/gpu`` and the device plugin's
    ``k8s.device-plugin.nvidia.com/gpu``, sized from the node's GPU count label."""
    labels = b.find("nodes", node)["metadata"]["labels"]
    gpus = int(labels.get("nvidia.com/gpu.count", "0") or 0) or 1
    if mig_per_gpu:
        gpus = max(1, gpus // max(1, mig_per_gpu)) if labels.get("nvidia.com/mig.strategy") \
            == "single" else gpus
    if toolkit:
        b.host_file(node, cdik.TOOLKIT_SPEC.path, management_spec(gpus))
    if device_plugin:
        b.host_file(node, cdik.DEVICE_PLUGIN_SPEC.path,
                    device_plugin_spec(node, gpus, mig_per_gpu=mig_per_gpu))


def add_gpu_operator(b: ClusterBuilder, gpu_nodes: list[str], *, version: str = "v25.10.1",
                     broken: dict[str, str] | None = None) -> None:
    """Add the operator and its operands for ``gpu_nodes`` (already added with ``b.node``)."""
    broken = dict(broken or {})
    for knob in broken:
        if knob not in KNOBS:
            raise ValueError(f"unknown knob {knob!r}; known: {', '.join(sorted(KNOBS))}")
    nodes = {n: b.find("nodes", n) for n in gpu_nodes}
    _apply_node_knobs(b, nodes, broken)
    for n in gpu_nodes:  # nodes whose host files are in the bundle get the toolkit's CDI spec
        if any(k.startswith(f"nodes/{n}/") for k in b.files):
            add_cdi_spec(b, n)

    driver_node, _cause = _split(broken.get("driver", ""))
    toolkit_node = broken.get("toolkit", "")
    handler_node = broken.get("handler", "")
    blocked_at: dict[str, str] = {}  # node -> stage that is not ready
    if driver_node:
        blocked_at[driver_node] = "driver"
    if toolkit_node:
        blocked_at.setdefault(toolkit_node, "toolkit")

    # operator deployment and pod
    tmpl = {"containers": [{"name": "gpu-operator",
                            "image": f"nvcr.io/nvidia/gpu-operator:{version}"}],
            "serviceAccountName": "gpu-operator"}
    dep = b.workload("Deployment", OPERATOR_NS, "gpu-operator", template=tmpl)
    dep["metadata"]["labels"]["app.kubernetes.io/version"] = version
    dep["status"] = {"replicas": 1, "readyReplicas": 1, "availableReplicas": 1}
    b.pod(OPERATOR_NS, "gpu-operator-6d8c9b6f7d-x2lqp", node="cpu-0" if "cpu-0" in {
        n["metadata"]["name"] for n in b.cluster.get("nodes", [])} else gpu_nodes[0],
          containers=[{"name": "gpu-operator", "image": f"nvcr.io/nvidia/gpu-operator:{version}",
                       "resources": {"requests": {"cpu": "200m", "memory": "100Mi"}}}],
          labels={"app": "gpu-operator", "app.kubernetes.io/component": "gpu-operator"},
          owner=dep, created=STARTED)

    for rc in ("nvidia", "nvidia-cdi", "nvidia-legacy"):
        b.runtimeclass(rc)

    # ClusterPolicy
    not_ready: list[str] = []
    if driver_node:
        not_ready.append("state-driver")
    if toolkit_node or driver_node:
        not_ready.append("state-container-toolkit")
    if handler_node:
        not_ready.append("state-device-plugin")
    if "dcgm-exporter" in broken or "dcgm-profiling" in broken or "clusterpolicy" in broken:
        not_ready.append("state-dcgm-exporter")
    spec: Obj = {"operator": {"defaultRuntime": "containerd", "runtimeClass": "nvidia"},
                 "driver": {"enabled": True, "version": "580.95.05"},
                 "toolkit": {"enabled": True}, "devicePlugin": {"enabled": True},
                 "dcgmExporter": {"enabled": True}, "gfd": {"enabled": True},
                 "migManager": {"enabled": True}, "cdi": {"enabled": True},
                 "daemonsets": {"tolerations": [dict(GPU_TOLERATION)]}}
    if "plugin-config" in broken:
        spec["devicePlugin"]["config"] = {"name": "time-slicing-config", "default": "any"}
        cm = b.configmap(OPERATOR_NS, "time-slicing-config", {"any": (
            "version: v1\nsharing:\n  timeSlicing:\n    resources:\n    - name: nvidia.com/gpu\n"
            "      replicas: 4\n")})
        cm["metadata"]["creationTimestamp"] = "2026-11-20T08:00:00Z"
        cm["metadata"]["managedFields"] = [
            {"manager": "kubectl-client-side-apply", "operation": "Update",
             "apiVersion": "v1", "time": "2026-11-20T08:00:00Z", "fieldsType": "FieldsV1"},
            {"manager": "kubectl-edit", "operation": "Update", "apiVersion": "v1",
             "time": "2026-11-29T11:30:00Z", "fieldsType": "FieldsV1"}]
    if "plugin-config-invalid" in broken:
        spec["devicePlugin"]["config"] = {"name": "device-plugin-config", "default": "default"}
        b.configmap(OPERATOR_NS, "device-plugin-config", dict(PLUGIN_CONFIGS))
    if "os-mix" in broken:
        not_ready.append("state-driver")
    if not_ready:
        status: Obj = {"state": "notReady", "namespace": OPERATOR_NS, "conditions": [
            {"type": "Ready", "status": "False", "reason": "OperandNotReady",
             "message": "ClusterPolicy is not ready, states not ready: ["
                        + " ".join(not_ready) + "]",
             "lastTransitionTime": "2026-11-29T11:00:00Z"},
            {"type": "Error", "status": "True", "reason": "OperandNotReady",
             "message": "ClusterPolicy is not ready, states not ready: ["
                        + " ".join(not_ready) + "]",
             "lastTransitionTime": "2026-11-29T11:00:00Z"}]}
    else:
        status = {"state": "ready", "namespace": OPERATOR_NS, "conditions": [
            {"type": "Ready", "status": "True", "reason": "Reconciled",
             "message": "ClusterPolicy is ready as all resources have been successfully "
                        "reconciled", "lastTransitionTime": "2026-11-29T10:05:00Z"},
            {"type": "Error", "status": "False", "reason": "Ready", "message": "",
             "lastTransitionTime": "2026-11-29T10:05:00Z"}]}
    cp = b.custom("clusterpolicies", "ClusterPolicy", "cluster-policy", spec, status)
    cp["metadata"]["labels"] = {"app.kubernetes.io/managed-by": "Helm",
                                "app.kubernetes.io/version": version}

    _extra_pods(b, gpu_nodes, version, broken)

    # DaemonSets and their pods
    for op in OPERANDS:
        covered = [n for n, obj in nodes.items() if _covers(op, obj)]
        if op.daemonset in ("nvidia-dcgm", "nvidia-node-status-exporter",
                            "nvidia-device-plugin-mps-control-daemon") and not covered:
            continue
        ready = 0
        ds = _daemonset(op, version, len(covered), 0, True)
        b.add("daemonsets", ds)
        for n in covered:
            if _operand_pod(b, ds, op, n, version, blocked_at, broken):
                ready += 1
        ds["status"]["numberReady"] = ds["status"]["numberAvailable"] = ready
        ds["status"]["numberUnavailable"] = len(covered) - ready


KNOBS = frozenset({"driver", "toolkit", "handler", "dcgm-exporter", "dcgm-profiling", "mig",
                   "upgrade", "labels", "taint", "plugin-config", "clusterpolicy",
                   "runtime-hook", "os-mix", "plugin-config-invalid", "gfd-labels"})

# os-mix: osImage and kernelVersion of the odd node
OS_MIX: dict[str, tuple[str, str]] = {
    "rocky": ("Rocky Linux 9.4 (Blue Onyx)", "5.14.0-427.13.1.el9_4.x86_64"),
    "rhel": ("Red Hat Enterprise Linux 9.4 (Plow)", "5.14.0-427.42.1.el9_4.x86_64"),
    "ubuntu24": ("Ubuntu 24.04.1 LTS", "6.8.0-49-generic"),
}

# runtime-hook: what the kubelet reports for the GPU pod (containerd 1.7 + runc wording)
RUNTIME_HOOK_FAILURES: dict[str, str] = {
    "cli-init": (
        "Error: failed to create containerd task: failed to create shim task: OCI runtime "
        "create failed: runc create failed: unable to start container process: error during "
        "container init: error running hook #0: error running hook: exit status 1, stdout: , "
        "stderr: Auto-detected mode as 'legacy'\nnvidia-container-cli: initialization error: "
        "load library failed: libnvidia-ml.so.1: cannot open shared object file: no such file "
        "or directory: unknown"),
    "hook": (
        "Error: failed to create containerd task: failed to create shim task: OCI runtime "
        "create failed: runc create failed: unable to start container process: error during "
        "container init: error running hook #0: error running hook: exit status 1, stdout: , "
        "stderr: : unknown"),
    "binary": (
        "Error: failed to create containerd task: failed to start shim: failed to create shim "
        "task: OCI runtime create failed: unable to retrieve OCI runtime error (open "
        "/run/containerd/io.containerd.runtime.v2.task/k8s.io/3f0c/log.json: no such file or "
        "directory): fork/exec /usr/local/nvidia/toolkit/nvidia-container-runtime: no such "
        "file or directory: unknown"),
}

PLUGIN_CONFIGS: dict[str, str] = {
    "default": "version: v1\nflags:\n  migStrategy: none\n",
    "a100-ts4": ("version: v1\nflags:\n  migStrategy: none\nsharing:\n  timeSlicing:\n"
                 "    renameByDefault: false\n    resources:\n    - name: nvidia.com/gpu\n"
                 "      replicas: 4\n"),
    # renameByDefault one level off: the plugin ignores it under flags
    "a100-ts-misplaced": ("version: v1\nflags:\n  migStrategy: none\n  renameByDefault: true\n"
                          "sharing:\n  timeSlicing:\n    resources:\n"
                          "    - name: nvidia.com/gpu\n      replicas: 4\n"),
    "a100-ts-unparsable": ("version: v1\nsharing:\n  timeSlicing:\n    resources:\n"
                           "    - name: nvidia.com/gpu\n     replicas: 4\n"),
}
PLUGIN_CONFIG_LABEL = {"misplaced": "a100-ts-misplaced", "unparsable": "a100-ts-unparsable",
                       "missing-key": "a100-ts8"}
CONFIG_MANAGER_FAILURES: dict[str, str] = {
    "missing-key": (
        "I1129 11:31:00.000000       1 main.go:246] Waiting for change to "
        "'nvidia.com/device-plugin.config' label\nI1129 11:31:01.000000       1 main.go:262] "
        "Label change detected: nvidia.com/device-plugin.config=a100-ts8\n"
        "E1129 11:31:01.000000       1 main.go:138] Error: specified config a100-ts8 does not "
        "exist\n"),
    "unparsable": (
        "E1129 11:31:05.000000       1 main.go:173] error starting plugins: unable to load "
        "config: unable to finalize config: unable to parse config file: error parsing config "
        "file: unmarshal error: error converting YAML to JSON: yaml: line 6: did not find "
        "expected key\n"),
}
NFD_MASTER_DENIED = (
    "I1129 11:20:01.000000       1 nfd-master.go:1285] \"will process NodeFeature\" "
    "nodeFeatureNames=[\"gpu-1-gpu-feature-discovery\"]\n"
    # kubernetes-sigs/node-feature-discovery@v0.16.0 pkg/nfd-master/nfd-master.go (klog.ErrorS)
    + "".join(f"E1129 11:20:03.5123{i}5       1 nfd-master.go:642] \"ignoring label\" "
              f"err=\"namespace \\\"nvidia.com\\\" is not allowed\" "
              f"labelKey=\"nvidia.com/gpu.{k}\" labelValue=\"x\"\n"
              for i, k in enumerate(("product", "count", "memory"))))


def _knob_values(broken: dict[str, str]) -> list[tuple[str, str]]:
    """``handler`` may name several nodes (``gpu-2,gpu-3``); other knobs name one."""
    return [(k, one) for k, v in broken.items()
            for one in (v.split(",") if k == "handler" else [v])]


def _apply_node_knobs(b: ClusterBuilder, nodes: dict[str, Obj], broken: dict[str, str]) -> None:
    for knob, value in _knob_values(broken):
        node_name, extra = _split(value)
        if knob in ("plugin-config", "clusterpolicy") or node_name not in nodes:
            continue
        node = nodes[node_name]
        labels = node["metadata"].setdefault("labels", {})
        if knob == "os-mix":
            os_image, kernel = OS_MIX.get(extra or "rocky", OS_MIX["rocky"])
            node["status"]["nodeInfo"]["osImage"] = os_image
            node["status"]["nodeInfo"]["kernelVersion"] = kernel
        elif knob == "plugin-config-invalid":
            labels["nvidia.com/device-plugin.config"] = PLUGIN_CONFIG_LABEL.get(
                extra or "misplaced", PLUGIN_CONFIG_LABEL["misplaced"])
        elif knob == "gfd-labels":
            for k in ("nvidia.com/gpu.product", "nvidia.com/gpu.count", "nvidia.com/gpu.memory"):
                labels.pop(k, None)
        if knob == "labels":
            for k in [k for k in labels if k == "nvidia.com/gpu.present"
                      or k.startswith("nvidia.com/gpu.deploy.")]:
                del labels[k]
        elif knob == "taint":
            node["spec"].setdefault("taints", []).append(
                {"key": extra or "dedicated", "value": "ml", "effect": "NoSchedule"})
        elif knob == "upgrade":
            labels["nvidia.com/gpu-driver-upgrade-state"] = "upgrade-failed"
        elif knob == "mig":
            labels["nvidia.com/mig.config"] = "all-1g.10gb"
            labels["nvidia.com/mig.config.state"] = "failed"
        if knob in ("handler", "driver", "toolkit"):
            # the plugin stopped: kubelet keeps the name at 0 after its grace (facts.md §3)
            st = node["status"]
            for res in [r for r in st["capacity"] if r.startswith("nvidia.com/")]:
                st["capacity"][res] = "0"
                st["allocatable"][res] = "0"
        elif knob in ("labels", "taint"):
            # the plugin never ran on the node: the resource name was never advertised
            st = node["status"]
            for res in [r for r in st["capacity"] if r.startswith("nvidia.com/")]:
                del st["capacity"][res]
                st["allocatable"].pop(res, None)


def _extra_pods(b: ClusterBuilder, gpu_nodes: list[str], version: str,
                broken: dict[str, str]) -> None:
    """Pods the knobs add besides operands: NFD master, a GPU job failing at create."""
    if "gfd-labels" in broken:
        node, cause = _split(broken["gfd-labels"])
        if (cause or "nfd-denied") == "nfd-denied":
            name = "gpu-operator-node-feature-discovery-master-5d8f7b9c4-k2x7p"
            host = "cpu-0" if any(n["metadata"]["name"] == "cpu-0"
                                  for n in b.cluster.get("nodes", [])) else gpu_nodes[0]
            b.pod(OPERATOR_NS, name, node=host, containers=[{
                "name": "master", "image": "registry.k8s.io/nfd/node-feature-discovery:v0.17.3",
                "args": ["-deny-label-ns=nvidia.com"],
                "resources": {"requests": {"cpu": "100m"}}}],
                  labels={"app.kubernetes.io/name": "node-feature-discovery", "role": "master"},
                  created=STARTED)
            b.log(OPERATOR_NS, name, "master", NFD_MASTER_DENIED.replace("gpu-1", node))
    if "runtime-hook" in broken:
        node, cause = _split(broken["runtime-hook"])
        line = RUNTIME_HOOK_FAILURES.get(cause or "cli-init", RUNTIME_HOOK_FAILURES["cli-init"])
        pod = b.pod("ml", "cuda-job", node=node, gpus=1, phase="Pending",
                    tolerations=[dict(GPU_TOLERATION)],
                    container_statuses=[{"name": "main", "ready": False, "restartCount": 3,
                                         "image": "", "imageID": "",
                                         "state": {"waiting": {"reason": "RunContainerError",
                                                               "message": line}}}])
        b.event(pod, "Failed", line, component="kubelet", host=node)
        if cause == "binary" and any(k.startswith(f"nodes/{node}/") for k in b.files):
            b.host_cmd(node, "journal-containerd.txt", (
                "2026-11-29T11:42:10+0000 " + node + " containerd[1187]: time=\"2026-11-29T11:"
                "42:10.112Z\" level=error msg=\"RunPodSandbox for &PodSandboxMetadata{Name:"
                "cuda-job,Namespace:ml,} failed\" error=\"failed to create containerd task: "
                "fork/exec /usr/local/nvidia/toolkit/nvidia-container-runtime: no such file or "
                "directory: unknown\"\n"))


def _operand_pod(b: ClusterBuilder, ds: Obj, op: Operand, node: str, version: str,
                 blocked_at: dict[str, str], broken: dict[str, str]) -> bool:
    """Add ``op``'s pod on ``node``; return whether it is ready."""
    suffix = uid(op.daemonset, node)[:5]
    name = f"{op.daemonset}-{suffix}"
    ns = OPERATOR_NS
    inits = [{"name": c, "image": f"nvcr.io/nvidia/cloud-native/gpu-operator-validator:{version}"}
             for c in op.init]
    containers = [{"name": c, "image": _image(op, version),
                   "env": [{"name": "NVIDIA_VISIBLE_DEVICES", "value": "all"}]}
                  for c in op.containers]
    rc = "nvidia" if op.runtime_class else None
    init_st: list[Obj] = [_done(c) for c in op.init]
    cont_st: list[Obj] = [_running(c) for c in op.containers]
    phase = "Running"
    ready = True
    events: list[tuple[str, str, str]] = []  # (type, reason, message)
    logs: dict[str, str] = {}

    driver_node, driver_cause = _split(broken.get("driver", ""))
    stage = blocked_at.get(node)
    if op.daemonset == "nvidia-driver-daemonset" and node == driver_node:
        cause = driver_cause or "nouveau"
        log, event = DRIVER_FAILURES.get(cause, DRIVER_FAILURES["nouveau"])
        if cause == "precompiled":
            cont_st = [_waiting("nvidia-driver-ctr", "ImagePullBackOff",
                                "Back-off pulling image \"nvcr.io/nvidia/driver:580-5.15.0-130-"
                                "generic-ubuntu22.04\"")]
            events.append(("Warning", "Failed", event))
        else:
            cont_st = [_crash("nvidia-driver-ctr")]
            logs["nvidia-driver-ctr"] = log
            events.append(("Warning", "BackOff", event))
        phase, ready = "Running", False
    elif op.daemonset == "nvidia-container-toolkit-daemonset" and node == broken.get("toolkit"):
        cont_st = [_crash("nvidia-container-toolkit-ctr")]
        logs["nvidia-container-toolkit-ctr"] = (
            "time=\"2026-11-29T11:50:01Z\" level=info msg=\"Loading config from "
            "/runtime/config-dir/config.toml\"\ntime=\"2026-11-29T11:50:01Z\" level=error "
            "msg=\"unable to load config: failed to load config: failed to run command chroot "
            "[/host containerd config dump]: exit status 1\"\n")
        phase, ready = "Running", False
    elif stage and any(op.waits_for):
        # the first init container that waits for the blocked stage (or a later one)
        order = ["driver", "toolkit", "cuda", "plugin"]
        blocked_idx = None
        for i, s in enumerate(op.waits_for):
            if s in order and order.index(s) >= order.index(stage):
                blocked_idx = i
                break
        if blocked_idx is not None:
            init_st = [_done(c) for c in op.init[:blocked_idx]]
            blocked = op.init[blocked_idx]
            init_st.append({"name": blocked, "ready": False, "restartCount": 0, "started": True,
                            "image": "", "imageID": "",
                            "state": {"running": {"startedAt": STARTED}}})
            init_st += [_waiting(c, "PodInitializing") for c in op.init[blocked_idx + 1:]]
            cont_st = [_waiting(c, "PodInitializing") for c in op.containers]
            phase, ready = "Pending", False
            logs[blocked] = ("waiting for nvidia container stack to be setup\n" * 3
                             if op.waits_for[blocked_idx] != "driver" else
                             "running command chroot with args [/run/nvidia/driver nvidia-smi]\n"
                             "nvidia driver is not ready yet, retrying\n" * 2)
    if (node in broken.get("handler", "").split(",") and rc
            and op.daemonset != "nvidia-driver-daemonset"):
        cont_st = [_waiting(c, "ContainerCreating") for c in op.containers]
        init_st = []
        phase, ready = "Pending", False
        events.append(("Warning", "FailedCreatePodSandBox",
                       "Failed to create pod sandbox: rpc error: code = Unknown desc = failed to "
                       "get sandbox runtime: no runtime for \"nvidia\" is configured"))
    if op.daemonset == "nvidia-dcgm-exporter" and node in (broken.get("dcgm-exporter"),
                                                          broken.get("dcgm-profiling")):
        cont_st = [_crash("nvidia-dcgm-exporter")]
        ready = False
        if node == broken.get("dcgm-exporter"):
            logs["nvidia-dcgm-exporter"] = (
                "time=\"2026-11-29T11:55:00Z\" level=info msg=\"Attempting to connect to remote "
                "hostengine at nvidia-dcgm:5555\"\ntime=\"2026-11-29T11:55:05Z\" level=fatal "
                "msg=\"Error connecting to nv-hostengine: Host engine connection invalid/"
                "disconnected\"\n")
        else:
            logs["nvidia-dcgm-exporter"] = (
                "time=\"2026-11-29T11:55:00Z\" level=info msg=\"DCGM successfully initialized!\"\n"
                "time=\"2026-11-29T11:55:01Z\" level=fatal msg=\"Failed to watch metrics: "
                "Error watching fields: Profiling is not supported for this group of GPUs or GPU\""
                "\n")
    os_node, os_kind = _split(broken.get("os-mix", ""))
    if op.daemonset == "nvidia-driver-daemonset" and node == os_node:
        # the tag the operator of ``version`` builds (knowledge/driver_images.py); the odd
        # node's image is missing, since the pool's image is for the majority OS
        tag = os_tag(OS_MIX.get(os_kind or "rocky", OS_MIX["rocky"])[0], version)
        image = f"nvcr.io/nvidia/driver:580.95.05-{tag}"
        cont_st = [_waiting("nvidia-driver-ctr", "ImagePullBackOff",
                            f"Back-off pulling image \"{image}\"")]
        events.append(("Warning", "Failed", (
            f"Failed to pull image \"{image}\": rpc error: code = NotFound desc = failed to "
            f"pull and unpack image \"{image}\": failed to resolve reference \"{image}\": "
            f"{image}: not found")))
        ready = False
    gfd_node, gfd_cause = _split(broken.get("gfd-labels", ""))
    if op.daemonset == "gpu-feature-discovery" and node == gfd_node and gfd_cause == "restarts":
        cont_st = [_crash("gpu-feature-discovery"), _running("config-manager")]
        events.append(("Warning", "BackOff",
                       "Back-off restarting failed container gpu-feature-discovery in pod "
                       f"gpu-feature-discovery-{uid(op.daemonset, node)[:5]}"))
        logs["gpu-feature-discovery"] = (
            "I1129 11:44:00.000000       1 main.go:163] Start running\n"
            "E1129 11:44:03.000000       1 main.go:131] error: failed to write labels: "
            "error creating NodeFeature object: nodefeatures.nfd.k8s-sigs.io "
            f"\"{node}-gpu-feature-discovery\" already exists\n")
        ready = False
    pc_node, pc_kind = _split(broken.get("plugin-config-invalid", ""))
    if (op.daemonset == "nvidia-device-plugin-daemonset" and node == pc_node
            and (pc_kind or "misplaced") in CONFIG_MANAGER_FAILURES):
        # config-manager reports a failed switch; the plugin itself a document it cannot parse
        container = "nvidia-device-plugin" if pc_kind == "unparsable" else "config-manager"
        logs[container] = CONFIG_MANAGER_FAILURES[pc_kind]
    if op.daemonset == "nvidia-mig-manager" and node == broken.get("mig"):
        logs["nvidia-mig-manager"] = (
            "time=\"2026-11-29T11:40:00Z\" level=info msg=\"Updating to MIG config: "
            "all-1g.10gb\"\nError applying MIG configuration with hooks: error setting MIG mode: "
            "In use by another client\ntime=\"2026-11-29T11:40:09Z\" level=info msg=\"Changing "
            "the 'nvidia.com/mig.config.state' node label to 'failed'\"\n")

    pod = b.pod(ns, name, node=node, containers=containers, init_containers=inits or None,
                phase=phase, runtime_class=rc, owner=ds, container_statuses=cont_st,
                init_statuses=init_st if op.init else None,
                tolerations=[dict(GPU_TOLERATION)],
                labels={"app": op.daemonset, "pod-template-generation": "1"}, created=STARTED)
    pod["metadata"]["ownerReferences"][0]["kind"] = "DaemonSet"
    for typ, reason, msg in events:
        b.event(pod, reason, msg, type=typ, component="kubelet", host=node)
    for c in op.containers:
        text = logs.get(c, HEALTHY_LOGS.get(c) if ready else None)
        if text:
            b.log(ns, name, c, text)
    for c in op.init:
        if c in logs:
            b.log(ns, name, c, logs[c])
    return ready
