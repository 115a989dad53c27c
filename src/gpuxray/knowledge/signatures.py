"""The signature catalog: error lines real components print, mapped to causes and codes.

Why a catalog and not string checks in each function: the same line shows up in operand logs,
pod events, container statuses, dmesg, validator output and pasted ``kubectl describe`` text, and
several causes print look-alike lines (seed §8: one ``Insufficient nvidia.com/gpu`` for three
causes). Each signature therefore *votes* for one or more causes with a weight; a *deciding*
signature is a line only one cause prints, and each cause names what to collect next to tell it
from its look-alikes (``COLLECT`` / ``DISTINGUISH``).

Patterns are written in lower case and matched against the lower-cased line, one line at a time
(case-sensitive matching of lower-cased text is several times faster than ``re.IGNORECASE``);
``needle`` lists lower-case
literals (``a|b``) one of which every match contains, used as a cheap prefilter so a scan stays
linear in the input. Every signature carries ``examples``: lines a real component prints, each
with the upstream file that prints it or the public ticket it was pasted in (one per wording
variant across releases); a test keeps each signature matching all of them. A signature may
also speak *against* causes (a line that shows the module loaded rules out Secure Boot).
Sources: facts.md §2–§5, §8 (scheduler strings, kubelet/device-plugin texts, operator states,
Xid catalog); seed §1 (component failure table), §3, §4, §8. Each signature is keyed on the
shape of a message the cited component formats (format verbs as wildcards, one alternative
per wording a release changed), read from that component's source at the cited tag.

Below the signatures: ``CAUSE_CHAIN`` (which cause explains which, seed §4's tree between the
finer causes), ``COMPONENTS`` (the line shapes each component prints on every start, and what
usually breaks in it) and ``CLUSTERPOLICY_STATE_ORDER`` (the operand states in the order they
wait for each other).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from gpuxray.knowledge.signature_types import (
    CONFIG,
    DESCRIBE,
    DMESG,
    EVENT,
    JOURNAL,
    LOG,
    SMI,
    STATUS,
    VALIDATOR,
    Cause,
    Example,
    Signature,
)
from gpuxray.knowledge.signatures_config import CONFIG_CAUSES, CONFIG_SIGNATURES
from gpuxray.knowledge.signatures_devices import DEVICES_SIGNATURES
from gpuxray.knowledge.signatures_runtime import RUNTIME_SIGNATURES
from gpuxray.knowledge.signatures_stack import STACK_SIGNATURES
from gpuxray.knowledge.signatures_workload import WORKLOAD_SIGNATURES

# the types are re-exported: every reader of the catalog imports them from here
__all__ = ["CONFIG", "DESCRIBE", "DMESG", "EVENT", "JOURNAL", "LOG", "SMI", "STATUS",
           "VALIDATOR", "Cause", "Example", "Signature"]


CAUSES: tuple[Cause, ...] = (
    Cause("quota", "GX101", "a ResourceQuota refuses the GPU request",
          "`kubectl describe resourcequota -n <ns>` (used vs hard for requests.nvidia.com/gpu)"),
    Cause("runtimeclass-missing", "GX102", "the pod names a RuntimeClass that does not exist",
          "`kubectl get runtimeclass`"),
    Cause("request-invalid", "GX103", "the GPU request is fractional or requests != limits",
          "`kubectl get pod <p> -o jsonpath='{.spec.containers[*].resources}'` (GPU limits "
          "must be whole numbers, requests equal to limits)"),
    Cause("taint-selector", "GX201", "GPU nodes are excluded by taints or the node selector",
          "`kubectl get nodes -o json | jq '.items[].spec.taints'` and the pod's tolerations"),
    Cause("not-advertised", "GX202",
          "no node advertises the GPU resource (plugin not registered, or gone > 5 min)",
          "`kubectl get nodes -o custom-columns=N:.metadata.name,"
          "CAP:.status.capacity.nvidia\\.com/gpu,ALLOC:.status.allocatable.nvidia\\.com/gpu` "
          "(absent or 0) and the device-plugin pod logs"),
    Cause("unhealthy", "GX203",
          "devices marked unhealthy (Xid) or the plugin just disconnected: capacity > allocatable",
          "capacity vs allocatable on the node, and `dmesg -T | grep -iE 'NVRM|Xid'`"),
    Cause("exhausted", "GX204", "every GPU is already allocated to running pods",
          "`kubectl describe node <n>` 'Allocated resources' nvidia.com/gpu vs allocatable"),
    Cause("request-too-large", "GX205",
          "the pod asks for more GPUs than one node has free, though the nodes shown advertise "
          "them all healthy",
          "the pod's nvidia.com/gpu limit (`kubectl get pod <p> -o jsonpath="
          "'{.spec.containers[*].resources.limits}'`) vs the largest node's allocatable"),
    Cause("handler-missing", "GX301", "containerd has no `nvidia` runtime handler",
          "`containerd config dump | grep -c runtimes.nvidia` on the node and "
          "`ls /etc/containerd/conf.d`"),
    Cause("operand-init", "GX302", "an operand waits in Init for an earlier stage",
          "`kubectl -n gpu-operator get pods -o wide` and the driver/toolkit pod logs on the node"),
    Cause("nvml-init", "GX304", "NVML cannot initialise: the driver is not loaded or unreachable",
          "`nvidia-smi` on the host and `lsmod | grep nvidia`"),
    Cause("nvml-gpu-error", "GX304",
          "NVML initialises but the GPU fails its queries with Unknown Error (GSP firmware, a "
          "GPU in a bad state)",
          "`nvidia-smi -q` on the host (fields reading Unknown Error), `dmesg | grep -iE "
          "'NVRM|Xid|GSP'`, and whether NVreg_EnableGpuFirmware=0 changes it"),
    Cause("nvml-mismatch", "GX304",
          "driver/library version mismatch: the loaded kernel module differs from user space",
          "`cat /proc/driver/nvidia/version` vs the user-space library version "
          "(reboot or reload after a driver upgrade)"),
    Cause("cdi-unresolvable", "GX305", "CDI device names that no CDI spec on the node resolves",
          "`ls /etc/cdi /var/run/cdi` and `nvidia-ctk cdi list` on the node"),
    Cause("device-lost", "GX306",
          "GPU access lost inside a running container (cgroup device rules reset)",
          "the container's start time vs `journalctl | grep -i daemon-reload` on the node"),
    Cause("injection-failed", "GX307",
          "the NVIDIA runtime or its hook fails at container create",
          "the containerd/kubelet error for the container and `nvidia-container-cli info` "
          "on the node"),
    Cause("envvar-ignored", "GX303",
          "the toolkit ignores NVIDIA_VISIBLE_DEVICES from unprivileged containers, and the pod "
          "asked for no GPU in limits",
          "the pod's resources.limits and `grep accept-nvidia-visible-devices "
          "/etc/nvidia-container-runtime/config.toml` on the node"),
    Cause("nouveau", "GX403", "the nouveau module holds the GPU, so the NVIDIA driver cannot load",
          "`lsmod | grep nouveau` on the node"),
    Cause("secure-boot", "GX403",
          "Secure Boot rejects the unsigned NVIDIA kernel module",
          "`mokutil --sb-state` and `dmesg | grep -iE 'key was rejected|module verification'`"),
    # the host's own state behind those two (GX506/GX507, the roots of GX403 in
    # knowledge/causal.py): what a pasted lsmod, the kernel's log or mokutil shows. Voted
    # beside the GX403 cause, a step under it, so both codes are named
    Cause("nouveau-loaded", "GX506", "the nouveau module is loaded on the GPU node",
          "`lsmod | grep nouveau` and `lspci -k -d 10de:` (Kernel driver in use) on the node"),
    Cause("secure-boot-enforced", "GX507",
          "Secure Boot is on and the kernel enforces module signatures",
          "`mokutil --sb-state` and `dmesg | grep -iE 'lockdown|module verification'`"),
    Cause("nodes-unlabelled", "GX401",
          "GPU nodes lack the labels the operand DaemonSets select on (NFD's pci-10de, "
          "nvidia.com/gpu.present, the deploy labels)",
          "`kubectl get nodes --show-labels | tr , '\\n' | grep -E 'pci-10de|nvidia.com/gpu'`"),
    Cause("operand-taint", "GX402",
          "an operand DaemonSet does not tolerate the GPU nodes' taints",
          "`kubectl get nodes -o json | jq '.items[].spec.taints'` vs the DaemonSet's "
          "tolerations (`kubectl -n gpu-operator get ds <ds> -o jsonpath='{.spec.template.spec."
          "tolerations}'`)"),
    Cause("driver-failing", "GX403",
          "the driver pod fails (crash loop or image pull) and every later operand waits for it",
          "`kubectl -n gpu-operator logs <driver pod> -c nvidia-driver-ctr --previous` and its "
          "events"),
    Cause("gpu-init", "GX403",
          "the NVIDIA module loaded but could not initialise the GPU (RmInitAdapter failed)",
          "`dmesg | grep -E 'NVRM|Xid'` and `nvidia-smi -q` on the node (firmware, power, PCIe)"),
    Cause("gpu-unsupported", "GX416",
          "the installed driver does not support this GPU (open vs proprietary modules, or too "
          "old a branch)",
          "`lspci -nn | grep -i nvidia` vs the driver's supported-GPU list, and the "
          "ClusterPolicy driver.kernelModuleType"),
    Cause("host-driver-absent", "GX403",
          "the host has no NVIDIA driver installed (no driver service, no nvidia-smi), and "
          "nothing else provides one",
          "`lsmod | grep nvidia` and `ls /proc/driver/nvidia` on the node; the OS release's "
          "driver support (or the operator's driver.enabled)"),
    Cause("driver-install-leftover", "GX403",
          "an earlier driver install left its module files on the host, so the driver "
          "container's reinstall (--kernel-modules-only) stops before it builds anything",
          "`ls /lib/modules/$(uname -r)/kernel/drivers/video/` on the node and the driver "
          "container's log from its first start"),
    Cause("driver-in-use", "GX418",
          "the driver container cannot unload the NVIDIA modules: a host driver or a GPU client "
          "holds them",
          "`lsmod | grep nvidia` and whether the host has a driver installed "
          "(then set driver.enabled=false)"),
    Cause("precompiled-kernel", "GX403",
          "the precompiled driver image has no tag for this kernel (<branch>-<kernel>-<os>)",
          "`uname -r` on the node vs the driver image tag"),
    Cause("kernel-headers", "GX403", "kernel headers for the running kernel are missing",
          "`uname -r` and whether linux-headers-$(uname -r) is installable on the node"),
    Cause("kernel-upgraded", "GX508",
          "the kernel was upgraded under the driver: no NVIDIA module is built for the running "
          "kernel (unattended upgrades)",
          "`uname -r` vs `ls /lib/modules/$(uname -r)/updates /lib/modules/$(uname -r)/kernel/"
          "drivers/video` and `grep -h linux-image /var/log/apt/history.log "
          "/var/log/unattended-upgrades/unattended-upgrades.log`"),
    Cause("driver-os-mismatch", "GX412",
          "no driver image for this node's OS: driver-container mode needs GPU nodes on one OS "
          "(or NVIDIADriver CRs per OS)",
          "`kubectl get nodes -o wide` (OS-IMAGE, KERNEL-VERSION of GPU nodes) and "
          "`kubectl get nvidiadrivers`"),
    Cause("upgrade-failed", "GX404", "the driver upgrade state machine stopped (upgrade-failed)",
          "`kubectl get nodes -L nvidia.com/gpu-driver-upgrade-state`"),
    Cause("fm-missing", "GX405",
          "Fabric Manager absent or stopped on an NVSwitch system",
          "`systemctl status nvidia-fabricmanager` on the node"),
    Cause("fm-version", "GX405",
          "Fabric Manager version differs from the driver version",
          "`nv-fabricmanager --version` vs `cat /proc/driver/nvidia/version`"),
    Cause("dcgm-connect", "GX406", "dcgm-exporter cannot reach the DCGM host engine",
          "`kubectl -n gpu-operator get pods,svc -o wide | grep -i dcgm` and the exporter's "
          "DCGM_REMOTE_HOSTENGINE_INFO (`kubectl -n gpu-operator get ds nvidia-dcgm-exporter -o "
          "yaml | grep -A1 HOSTENGINE`)"),
    Cause("dcgm-pod-resources", "GX406",
          "dcgm-exporter cannot read kubelet's pod-resources socket (a kubelet with another root "
          "directory, or the socket not mounted)",
          "`ls -l /var/lib/kubelet/pod-resources/` on the node and the exporter's "
          "--pod-resources-kubelet-socket (`kubectl -n gpu-operator get ds nvidia-dcgm-exporter "
          "-o yaml | grep -B2 -A2 pod-resources`)"),
    Cause("dcgm-profiling", "GX406",
          "profiling metrics unsupported on this GPU or held by another exporter",
          "`nvidia-smi -L` (the GPU model) and `kubectl get pods -A -o wide | grep -i dcgm` "
          "(another DCGM or exporter on the node)"),
    Cause("mig-failed", "GX407", "mig-manager failed to apply the MIG layout",
          "`kubectl get node <n> -L nvidia.com/mig.config,nvidia.com/mig.config.state` and the "
          "mig-manager log"),
    Cause("plugin-config-invalid", "GX413",
          "the device-plugin sharing/time-slicing config is unreadable or invalid",
          "`kubectl -n gpu-operator get cm <devicePlugin.config.name> -o yaml` and "
          "`kubectl get node <n> -L nvidia.com/device-plugin.config`"),
    Cause("gfd-labels", "GX414",
          "NFD drops GFD's nvidia.com labels (label namespace not allowed), so they come and go",
          "`kubectl get node <n> --show-labels | tr , '\\n' | grep nvidia.com/gpu.` and the "
          "nfd-master arguments (-extra-label-ns / -deny-label-ns)"),
    Cause("gfd-nodefeature", "GX414",
          "GFD cannot write its NodeFeature object (NFD's CRD absent or no RBAC), so the node "
          "gets no GFD labels",
          "`kubectl get crd nodefeatures.nfd.k8s-sigs.io` and `kubectl auth can-i create "
          "nodefeatures.nfd.k8s-sigs.io -n <ns> --as=system:serviceaccount:<ns>:<gfd sa>`"),
    Cause("shared-request", "GX602",
          "a request > 1 of a shared (time-sliced/MPS) resource with failRequestsGreaterThanOne",
          "`kubectl -n gpu-operator get cm <config> -o yaml | grep -n "
          "failRequestsGreaterThanOne` and the pod's nvidia.com/gpu request"),
    Cause("shared-memory", "GX602",
          "replicas of a time-sliced (or MPS) GPU share its memory: one pod's allocations "
          "starve the others (no memory isolation between replicas)",
          "`nvidia-smi` on the node (processes of several pods on one GPU) and the device-plugin "
          "config's `sharing.timeSlicing` / `sharing.mps` replicas"),
    Cause("xid", "GX505", "the kernel reported Xid errors for a GPU",
          "`dmesg -T | grep -i xid` on the node (critical Xids make the plugin mark it unhealthy)"),
    Cause("containerd-restart", "GX504", "containerd was stopped by a signal and restarted",
          "`journalctl -u containerd | grep -E 'Started|Stopped|signal'`"),
    Cause("containerd-config", "GX509", "containerd could not load its configuration",
          "`containerd config dump` on the node"),
    Cause("admission-failed", "GX310",
          "kubelet's device manager refused the bound pod at admission (UnexpectedAdmissionError)",
          "`kubectl get pod <p> -o jsonpath='{.status.reason} {.status.message}'` and the device "
          "plugin's registration time vs the kubelet restart on the node"),
    Cause("cuda-requirement", "GX311",
          "the image requires a newer CUDA than the node's driver supports",
          "the image's NVIDIA_REQUIRE_CUDA vs `nvidia-smi` 'CUDA Version' on the node"),
    Cause("runtime-config-not-read", "GX512",
          "the nvidia runtime was written to a containerd config file the daemon never reads",
          "the toolkit's `Wrote updated config to <path>` vs containerd's `--config` and the "
          "`imports` globs of its config.toml (k3s/RKE2: the config.toml.tmpl)"),
    Cause("cri-disabled", "GX513",
          "containerd's config disables the CRI plugin (`disabled_plugins = [\"cri\"]`)",
          "`grep disabled_plugins /etc/containerd/config.toml` on the node"),
    Cause("runtime-not-default", "GX514",
          "the plugin (or pod) runs under runc: nothing injects the driver libraries into it",
          "the pod's runtimeClassName and containerd's `default_runtime_name` "
          "(`containerd config dump | grep default_runtime_name`)"),
    Cause("mig-monitor", "GX417",
          "the plugin/GFD may not monitor MIG devices (NVML: Insufficient Permissions)",
          "`kubectl -n gpu-operator get ds nvidia-device-plugin-daemonset -o yaml | grep -A1 "
          "NVIDIA_MIG_MONITOR_DEVICES` and `nvidia-smi -L` (MIG devices)"),
    Cause("plugin-config-not-applied", "GX408",
          "the device plugin still runs on the config it read at start (the ConfigMap changed "
          "after; nothing restarts it)",
          "the plugin pods' start time vs the ConfigMap's last change (`kubectl -n gpu-operator "
          "get pods -l app=nvidia-device-plugin-daemonset -o wide`), then a rollout restart"),
    Cause("operator-reconcile", "GX410",
          "the operator's ClusterPolicy controller stops before it finishes (a panic in a "
          "reconcile step): the ClusterPolicy never becomes ready and later states are never "
          "deployed",
          "`kubectl -n gpu-operator logs deploy/gpu-operator | grep -i -e 'observed a panic' -e "
          "'reconciler error'` and `kubectl get clusterpolicy -o jsonpath='{.items[0].status}'`"),
    Cause("unsupported-stack", "GX409",
          "the platform is outside what the component supports (a Jetson/Tegra iGPU in CSV "
          "mode: DCGM and the operator's operands do not run there; a GPU not on the list)",
          "`nvidia-ctk info` / the hook's `Auto-detected mode` on the node, and the GPU product "
          "(`nvidia-smi -L`) against the component's supported platforms"),
    Cause("dropin-overwrote", "GX501",
          "a later containerd config file replaced the section holding the nvidia runtime",
          "`containerd config dump | grep -A3 runtimes.nvidia` and the files in "
          "/etc/containerd/conf.d (which one writes the cri plugin last)"),
    # seed §1's component table: the exporter stopping on an error of its own at start
    Cause("dcgm-exporter-failing", "GX406",
          "dcgm-exporter stops on an error at start (its DCGM bindings, a metrics file, the "
          "GPUs it queries)",
          "`kubectl -n gpu-operator logs ds/nvidia-dcgm-exporter` (the fatal line) and the "
          "exporter image's version against the DCGM and driver on the node"),
    # seed §6: what the node advertises against what it has; a GPU the kernel driver could not
    # bring up (its probe failed) is on the bus and in no count the scheduler sees
    Cause("gpus-missing", "GX604",
          "the node advertises fewer GPUs than it physically has (a GPU failed the driver's "
          "probe, fell off the bus, or is held by another driver)",
          "`lspci -nn -d 10de:` (GPUs on the bus) against `nvidia-smi -L` and the node's "
          "nvidia.com/gpu capacity, and `dmesg | grep NVRM` for the GPU that did not probe"),
)
CAUSE_BY_ID: dict[str, Cause] = {c.id: c for c in CAUSES}


def _s(id: str, needle: str, pattern: str, votes: dict[str, float], kinds: tuple[str, ...],
       deciding: bool = False, *, examples: tuple[Example, ...] = (),
       against: tuple[str, ...] = ()) -> Signature:
    return Signature(id, needle, pattern, tuple(votes.items()), kinds, deciding, examples,
                     against)


def _x(line: str, source: str) -> Example:
    return Example(line, source)


K = "kubernetes/kubernetes@v1.34.0:"
# a taint key that is not one the control plane or the node lifecycle sets (kubeadm's
# node-role.kubernetes.io/*, node.kubernetes.io/* and the cloud provider's uninitialized)
_POOL_TAINT = (r"(?!node-role\.kubernetes\.io/|node\.kubernetes\.io/|"
               r"node\.cloudprovider\.kubernetes\.io/)[^}:]+:[^}]*\}")
DP = "NVIDIA/k8s-device-plugin@v0.20.0:"
DP12 = "NVIDIA/k8s-device-plugin@v0.12.3:"
DP15 = "NVIDIA/k8s-device-plugin@v0.15.0:"
CTK = "NVIDIA/nvidia-container-toolkit@v1.20.0:"
CD = "containerd/containerd@v2.1.4:"
OGKM = "NVIDIA/open-gpu-kernel-modules@595.45.04:"
DRV = "NVIDIA/gpu-driver-container@06a208ca:"
OP = "NVIDIA/gpu-operator@v26.7.0:"
MIG = "NVIDIA/mig-parted@v0.15.0:"
NFD = "kubernetes-sigs/node-feature-discovery@v0.16.0:pkg/nfd-master/nfd-master.go"
NFD12 = "kubernetes-sigs/node-feature-discovery@v0.12.1:pkg/nfd-master/nfd-master.go"
INST = "NVIDIA/nvidia-installer@590.48.01:"
GH = "https://github.com/"

SIGNATURES: tuple[Signature, ...] = (
    # ---- admission / scheduling (facts.md §4; CODES.md 1xx/2xx) ---------------------------------
    _s("exceeded-quota", "exceeded quota",
       r"exceeded quota:?\s*\S+", {"quota": 4.0}, (EVENT, DESCRIBE), True,
       examples=(_x('Error creating: pods "a-1" is forbidden: exceeded quota: gpu-quota, '
                    "requested: requests.nvidia.com/gpu=2, used: requests.nvidia.com/gpu=8, "
                    "limited: requests.nvidia.com/gpu=8",
                    K + "staging/src/k8s.io/apiserver/pkg/admission/plugin/resourcequota/"
                    "controller.go"),)),
    # the same admission plugin refusing a pod that names no value for a resource the quota
    # tracks (limits without requests.nvidia.com/gpu), or a quota whose usage is not known yet
    _s("quota-constraint", "failed quota|status unknown for quota",
       r"failed quota: \S+: must specify|status unknown for quota: ",
       {"quota": 3.5}, (EVENT, DESCRIBE), True,
       examples=(_x('Error creating: pods "gpu-job-x2k" is forbidden: failed quota: gpu-quota: '
                    "must specify requests.nvidia.com/gpu",
                    K + "staging/src/k8s.io/apiserver/pkg/admission/plugin/resourcequota/"
                    "controller.go"),
                 _x('pods "gpu-job-x2k" is forbidden: status unknown for quota: gpu-quota, '
                    "resources: requests.nvidia.com/gpu",
                    K + "staging/src/k8s.io/apiserver/pkg/admission/plugin/resourcequota/"
                    "controller.go"))),
    _s("runtimeclass-not-found", "runtimeclass",
       r"runtimeclass\W+\S+\W+not found|runtimeclass\.node\.k8s\.io \S+ not found",
       {"runtimeclass-missing": 4.0}, (EVENT, DESCRIBE), True,
       examples=(_x('pods "x" is forbidden: pod rejected: RuntimeClass "nvidia" not found',
                    K + "plugin/pkg/admission/runtimeclass/admission.go"),
                 _x('Failed to create pod sandbox: runtimeclass.node.k8s.io "nvidia" not found',
                    K + "pkg/kubelet/runtimeclass/runtimeclass_manager.go"))),
    _s("extended-not-integer", "must be an integer",
       r"nvidia\.com/[\w.-]+\]?:? invalid value.*must be an integer", {"request-invalid": 4.0},
       (EVENT, DESCRIBE), True,
       examples=(_x('spec.containers[0].resources.limits[nvidia.com/gpu]: Invalid value: '
                    '"0.5": must be an integer', K + "pkg/apis/core/validation/validation.go"),)),
    _s("extended-requests-limits", "must be equal to|limit must be set",
       r"nvidia\.com/[\w.-]+\]?:? invalid value.*must be equal to .*limit|"
       r"invalid value: \S+: must be equal to nvidia\.com/[\w.-]+ limit|"
       r"nvidia\.com/[\w.-]+\]?:? required value: limit must be set|"
       # a controller's template (Job, MPIJob launcher) names no resource in the path: the
       # apiserver says "resources.limits: Required value" for any extended resource
       r"resources\.limits: required value: limit must be set for non overcommitable",
       {"request-invalid": 4.0}, (EVENT, DESCRIBE), True,
       examples=(_x('spec.containers[0].resources.requests[nvidia.com/gpu]: Invalid value: '
                    '"1": must be equal to nvidia.com/gpu limit of 2',
                    K + "pkg/apis/core/validation/validation.go"),
                 _x('spec.containers[0].resources.requests[nvidia.com/gpu]: Invalid value: '
                    '"1": must be equal to nvidia.com/gpu limit',
                    "kubernetes/kubernetes@v1.27.0:pkg/apis/core/validation/validation.go"),
                 _x('spec.template.spec.containers[0].resources.requests: Invalid value: "1": '
                    "must be equal to nvidia.com/gpu limit",
                    "kubernetes/kubernetes@v1.10.0:pkg/apis/core/validation/validation.go"),
                 _x("spec.containers[0].resources.limits[nvidia.com/gpu]: Required value: "
                    "Limit must be set for non overcommitable resources",
                    K + "pkg/apis/core/validation/validation.go"),
                 _x('Job.batch "train-launcher" is invalid: spec.template.spec.containers[0].'
                    "resources.limits: Required value: Limit must be set for non "
                    "overcommitable resources",
                    "kubernetes/kubernetes@v1.17.0:pkg/apis/core/validation/validation.go"))),
    # Filters run taints/affinity before NodeResourcesFit (facts.md §4): when the same message
    # also says "Insufficient nvidia.com/…", some node passed them, so the taint is not the cause.
    # ... but a node the taint rejected was never counted for resources either (facts.md §4:
    # "counted under that earlier reason"): beside "Insufficient", a taint that is no control-
    # plane or node-lifecycle taint is usually the GPU pool's own, on the nodes that have GPUs,
    # so it stays a candidate above the "Insufficient" readings, never deciding
    _s("untolerated-pool-taint", "insufficient nvidia.com/",
       r"insufficient nvidia\.com/.*had (?:untolerated )?taint \{" + _POOL_TAINT + "|"
       r"had (?:untolerated )?taint \{" + _POOL_TAINT + r".*insufficient nvidia\.com/",
       {"taint-selector": 1.5}, (EVENT, DESCRIBE),
       examples=(_x("0/13 nodes are available: 3 Insufficient nvidia.com/gpu, 3 node(s) had "
                    "taint {node-role.kubernetes.io/master: }, that the pod didn't tolerate, 4 "
                    "node(s) had taint {odh/notebook: true}, that the pod didn't tolerate.",
                    "kubernetes/kubernetes@v1.21.0:pkg/scheduler/framework/plugins/"
                    "tainttoleration/taint_toleration.go"),
                 _x("0/5 nodes are available: 2 Insufficient nvidia.com/gpu, 3 node(s) had "
                    "untolerated taint {nvidia.com/gpu: present}. preemption: 0/5 nodes are "
                    "available: 5 Preemption is not helpful for scheduling.",
                    K + "pkg/scheduler/framework/plugins/tainttoleration/taint_toleration.go"))),
    _s("untolerated-taint", "node(s) had|podtoleratesnodetaints",
       r"^(?!.*insufficient nvidia\.com/).*(?:node\(s\) had (?:untolerated )?taint|"
       r"\d+ podtoleratesnodetaints|podtoleratesnodetaints \(\d+\))",
       {"taint-selector": 2.5}, (EVENT, DESCRIBE),
       examples=(_x("0/3 nodes are available: 3 node(s) had untolerated taint "
                    "{nvidia.com/gpu: present}.",
                    K + "pkg/scheduler/framework/plugins/tainttoleration/taint_toleration.go"),
                 _x("0/3 nodes are available: 3 node(s) had taint {nvidia.com/gpu: present}, "
                    "that the pod didn't tolerate.",
                    "kubernetes/kubernetes@v1.24.0:pkg/scheduler/framework/plugins/"
                    "tainttoleration/taint_toleration.go"),
                 # the scheduler up to 1.10 named the failed predicate
                 _x("0/2 nodes are available: 2 PodToleratesNodeTaints.",
                    GH + "NVIDIA/k8s-device-plugin/issues/36"),
                 _x("pod (vsphere-e2e-j11sb) failed to fit in any node - fit failure summary on "
                    "nodes : PodToleratesNodeTaints (3)", GH + "kubernetes/kops/issues/2730"))),
    _s("selector-mismatch", "didn't match pod's node affinity|didn't match node selector|"
       "matchnodeselector",
       r"^(?!.*insufficient nvidia\.com/).*(?:didn't match (?:pod's node affinity|node selector)|"
       r"\d+ matchnodeselector|matchnodeselector \(\d+\))",
       {"taint-selector": 2.5}, (EVENT, DESCRIBE),
       examples=(_x("0/3 nodes are available: 3 node(s) didn't match Pod's node "
                    "affinity/selector.",
                    K + "pkg/scheduler/framework/plugins/nodeaffinity/node_affinity.go"),
                 _x("0/3 nodes are available: 3 node(s) didn't match node selector.",
                    "kubernetes/kubernetes@v1.17.0:pkg/scheduler/algorithm/predicates/"
                    "error.go"),
                 _x("0/4 nodes are available: 4 MatchNodeSelector.",
                    GH + "kubernetes/kubernetes/issues/57574"),
                 _x("No nodes are available that match all of the following predicates:: "
                    "MatchNodeSelector (18).", GH + "argoproj/argo-workflows/issues/190"))),
    _s("insufficient-gpu", "insufficient nvidia.com/",
       r"insufficient nvidia\.com/[\w.-]+",
       {"not-advertised": 1.0, "unhealthy": 1.0, "exhausted": 1.0}, (EVENT, DESCRIBE),
       examples=(_x("0/2 nodes are available: 2 Insufficient nvidia.com/gpu.",
                    K + "pkg/scheduler/framework/plugins/noderesources/fit.go"),)),
    _s("describe-gpu-zero", "nvidia.com/",
       r"^\s*nvidia\.com/(?:gpu|mig-[\w.]+):\s+0\s*$",
       {"not-advertised": 1.5, "unhealthy": 0.5}, (DESCRIBE,),
       examples=(_x("  nvidia.com/gpu:     0",
                    K + "staging/src/k8s.io/kubectl/pkg/describe/describe.go"),)),
    _s("shared-too-large", "maximum request size for shared resources",
       r"maximum request size for shared resources is 1", {"shared-request": 4.0},
       (EVENT, STATUS, DESCRIBE), True,
       examples=(_x("UnexpectedAdmissionError: Allocate failed due to rpc error: code = Unknown "
                    "desc = invalid request: maximum request size for shared resources is 1; "
                    "found 2, which is unexpected", DP + "internal/rm/rm.go"),)),
    _s("admission-devices-unavailable", "allocate failed due to|requested number of gpus",
       r"allocate failed due to (?:requested number of devices unavailable|no healthy devices "
       r"present)|requested number of gpus unavailable\. requested: \d+",
       {"admission-failed": 3.5, "unhealthy": 0.5}, (EVENT, STATUS, DESCRIBE), True,
       examples=(_x("Pod Allocate failed due to requested number of devices unavailable for "
                    "nvidia.com/gpu. Requested: 1, Available: 0, which is unexpected",
                    K + "pkg/kubelet/cm/devicemanager/manager.go"),
                 _x("Allocate failed due to no healthy devices present; cannot allocate unhealthy "
                    "devices nvidia.com/gpu, which is unexpected",
                    K + "pkg/kubelet/cm/devicemanager/manager.go"),
                 _x("requested number of GPUs unavailable. Requested: 4, Available: 0",
                    "kubernetes/kubernetes@v1.9.0:pkg/kubelet/gpu/nvidia/nvidia_gpu_manager.go"),
                 )),
    # kubelet's own admission re-checks a pod's requests against the node's allocatable: a pod
    # bound (or running, re-admitted after a kubelet restart before the plugin re-registered)
    # that does not fit fails with reason OutOf<resource>; the scheduler never prints this.
    _s("kubelet-admission-outof", "outofnvidia.com|node didn't have enough resource: nvidia",
       r"\boutofnvidia\.com/[\w.-]+|node didn't have enough resource: nvidia\.com/",
       {"admission-failed": 3.0, "not-advertised": 0.5}, (EVENT, STATUS, DESCRIBE, LOG), True,
       examples=(_x("Node didn't have enough resource: nvidia.com/gpu, requested: 1, used: 0, "
                    "capacity: 0", K + "pkg/kubelet/lifecycle/predicate.go"),
                 _x("Warning  OutOfnvidia.com/gpu  12s  kubelet  Node didn't have enough "
                    "resource: nvidia.com/gpu, requested: 1, used: 0, capacity: 0",
                    K + "pkg/kubelet/lifecycle/predicate.go"))),
    # The reason alone: any Allocate error (the plugin's too) ends the pod this way.
    # the device manager's other refusals, wrapped by the kubelet's admission handler: the
    # plugin not (re)registered after a kubelet restart, or its Allocate-side RPCs failing
    _s("admission-allocate-other", "allocate failed due to",
       r"allocate failed due to cannot allocate unregistered device",
       {"admission-failed": 3.5}, (EVENT, STATUS, DESCRIBE), True,
       examples=(_x("Allocate failed due to cannot allocate unregistered device nvidia.com/gpu, "
                    "which is unexpected", K + "pkg/kubelet/cm/devicemanager/manager.go"),)),
    # the plugin's own RPC failed inside admission: what failed in the plugin (often NVML on a
    # broken GPU) is the cause, named by the rest of the line or other lines
    _s("admission-plugin-rpc-failed", "rpc failed with err",
       r"device plugin (?:getpreferredallocation|prestartcontainer) rpc failed with err",
       {"admission-failed": 1.5, "unhealthy": 1.0}, (EVENT, STATUS, DESCRIBE),
       examples=(_x("Warning  UnexpectedAdmissionError  3m25s  kubelet  Allocate failed due to "
                    "device plugin GetPreferredAllocation rpc failed with err: rpc error: code = "
                    "Unknown desc = error getting list of preferred allocation devices, which is "
                    "unexpected", K + "pkg/kubelet/cm/devicemanager/manager.go"),
                 _x("Allocate failed due to device plugin PreStartContainer rpc failed with err: "
                    "rpc error: code = Unavailable desc = connection error, which is unexpected",
                    K + "pkg/kubelet/cm/devicemanager/manager.go"))),
    # the plugin's aligned allocation reads the NVLink topology of every GPU on the node, the
    # lost or faulted one included (it filters to the available ones only afterwards): one bad
    # GPU fails the preferred allocation, and with it the admission of every GPU pod there
    # (NVIDIA/k8s-device-plugin issue 2038), whatever NVML error ends the line
    _s("plugin-link-info-failed", "unable to get device link information",
       r"unable to get device link information",
       {"xid": 2.25, "unhealthy": 1.0}, (EVENT, STATUS, DESCRIBE, LOG),
       examples=(_x("Allocate failed due to device plugin GetPreferredAllocation rpc failed with "
                    "err: rpc error: code = Unknown desc = error getting list of preferred "
                    "allocation devices: unable to get device link information: error getting "
                    "NVLink for devices (0, 1): failed to get nvlink remote pci info: failed to "
                    "get nvlink state: Unknown Error, which is unexpected",
                    "NVIDIA/k8s-device-plugin@v0.17.0:internal/rm/allocate.go"),)),
    # a restarted pod whose devices went unhealthy since: the refusal follows the health change
    _s("admission-devices-no-longer-healthy", "no longer healthy",
       r"previously allocated devices are no longer healthy",
       {"unhealthy": 2.0, "admission-failed": 1.5}, (EVENT, STATUS, DESCRIBE),
       examples=(_x("Allocate failed due to previously allocated devices are no longer healthy; "
                    "cannot allocate unhealthy devices nvidia.com/gpu, which is unexpected",
                    K + "pkg/kubelet/cm/devicemanager/manager.go"),)),
    # kubelet's Topology Manager refusing a bound pod whose GPUs (with its CPUs) cannot be
    # aligned on one NUMA node under single-numa-node/restricted: admission, not scheduling
    _s("admission-topology", "topology locality|topologyaffinityerror",
       r"resources cannot be allocated with topology locality|\btopologyaffinityerror\b",
       {"admission-failed": 3.0}, (EVENT, STATUS, DESCRIBE), True,
       examples=(_x("Warning  TopologyAffinityError  10m   kubelet, dell8  Resources cannot be "
                    "allocated with Topology locality",
                    "https://kubernetes.io/docs/tasks/administer-cluster/memory-manager/"),
                 _x("Message:  Pod was rejected: Resources cannot be allocated with Topology "
                    "locality", K + "pkg/kubelet/cm/topologymanager/topology_manager.go"))),
    _s("admission-error-status", "unexpectedadmissionerror",
       r"\bunexpectedadmissionerror\b", {"admission-failed": 1.5}, (STATUS, DESCRIBE),
       examples=(_x("Reason:            UnexpectedAdmissionError",
                    K + "pkg/kubelet/lifecycle/predicate.go"),
                 _x("job-9s7jw   0/1   UnexpectedAdmissionError   0   5m1s",
                    K + "pkg/printers/internalversion/printers.go"))),
    # ---- device plugin (facts.md §3, §6, §8) ----------------------------------------------------
    _s("plugin-xid-unhealthy", "xidcriticalerror",
       r"xidcriticalerror:?\s*xid=\d+", {"unhealthy": 4.0, "xid": 1.0}, (LOG,), True,
       examples=(_x("I1129 10:02:51.000000 1 health.go:169] XidCriticalError: Xid=48 on "
                    "Device=GPU-5c0f2a11-aaaa-bbbb-cccc-0123456789ab; marking device as "
                    "unhealthy.", DP + "internal/rm/health.go"),
                 _x("2022/03/01 10:02:51 XidCriticalError: Xid=79 on Device=GPU-5c0f, the "
                    "device will go unhealthy.", DP12 + "internal/rm/health.go"))),
    _s("plugin-marking-unhealthy", "unhealthy",
       r"marking (?:device )?\S* ?as unhealthy|marking all devices as unhealthy|"
       r"device marked unhealthy|(?:the device|all devices) will go unhealthy",
       {"unhealthy": 3.0}, (LOG,), True,
       examples=(_x("'nvidia.com/gpu' device marked unhealthy: GPU-5c0f",
                    DP + "internal/plugin/server.go"),
                 _x("Marking device GPU-5c0f as unhealthy: ERROR_GPU_IS_LOST",
                    DP + "internal/rm/health.go"),
                 _x("Error waiting for event: ERROR_UNKNOWN; Marking all devices as unhealthy",
                    DP + "internal/rm/health.go"),
                 _x("XidCriticalError: Xid=79, All devices will go unhealthy.",
                    DP12 + "internal/rm/health.go"))),
    _s("plugin-no-devices", "no devices found",
       r"no devices found\.? waiting indefinitely", {"not-advertised": 3.0, "nvml-init": 0.5},
       (LOG,), True,
       examples=(_x("I1129 10:02:10.000000 1 main.go:416] No devices found. Waiting "
                    "indefinitely.", DP + "cmd/nvidia-device-plugin/main.go"),)),
    _s("plugin-no-nvml", "incompatible strategy|incompatible platform|did you configure|"
       "did you set the docker default runtime|invalid device discovery strategy|"
       "platform detection failed",
       r"incompatible (?:strategy|platform) detected|if this is a gpu node, did you (?:configure "
       r"the nvidia container toolkit|set the docker default runtime)|"
       r"invalid device discovery strategy|"
       r"unable to create plugin manager: platform detection failed",
       {"runtime-not-default": 3.0, "not-advertised": 1.5, "injection-failed": 0.5}, (LOG,), True,
       examples=(_x("E1129 10:02:10.000000 1 factory.go:118] Incompatible strategy detected "
                    "auto", DP + "internal/plugin/factory.go"),
                 _x("E1129 10:02:10.000000 1 main.go:173] error starting plugins: error "
                    "creating plugin manager: unable to create plugin manager: invalid device "
                    "discovery strategy", DP + "internal/plugin/factory.go"),
                 _x("E0312 10:02:10.000000 1 factory.go:112] Incompatible platform detected",
                    DP15 + "internal/plugin/manager/factory.go"),
                 _x("E1129 10:02:10.000000 1 factory.go:119] If this is a GPU node, did you "
                    "configure the NVIDIA Container Toolkit?", DP + "internal/plugin/factory.go"),
                 _x("2020/03/01 10:02:10 If this is a GPU node, did you set the docker default "
                    "runtime to `nvidia`?", "NVIDIA/k8s-device-plugin@v0.9.0:main.go"),
                 # v0.13-v0.14 end the same refusal with the plugin manager's error
                 _x("E0312 10:02:10.000000 1 main.go:123] error starting plugins: error "
                    "creating plugin manager: unable to create plugin manager: platform "
                    "detection failed",
                    "NVIDIA/k8s-device-plugin@v0.14.5:internal/plugin/manager/factory.go"))),
    # The plugin's container found no NVML: the driver libraries were not injected into it
    # (no nvidia runtime for it, or its CDI/volume-mount strategy without the privileges it needs).
    _s("plugin-nvml-not-found", "error_library_not_found|nvml not detected",
       r"(?:unable to create plugin manager: nvml init failed|error initializing nvml): "
       r"error_library_not_found|nvml not detected: could not load nvml library",
       {"runtime-not-default": 2.0, "not-advertised": 1.0, "injection-failed": 0.5}, (LOG,),
       examples=(_x("error starting plugins: error creating plugin manager: unable to create "
                    "plugin manager: nvml init failed: ERROR_LIBRARY_NOT_FOUND",
                    GH + "NVIDIA/k8s-device-plugin/issues/856"),
                 _x("W0819 07:02:54.757556       1 rm.go:109] NVML not detected: could not load "
                    "NVML library: libnvidia-ml.so.1: cannot open shared object file: No such "
                    "file or directory", GH + "NVIDIA/k8s-device-plugin/issues/1371"))),
    # the plugin could not reach kubelet's registration socket: a kubelet with another root
    # directory (k3s, microk8s) or the feature gate off; nothing is ever advertised
    _s("plugin-kubelet-unreachable", "could not contact kubelet",
       r"could not contact kubelet",
       {"not-advertised": 3.0}, (LOG,), True,
       examples=(_x("2021/03/01 10:02:10 Could not contact Kubelet, retrying. Did you enable the "
                    "device plugin feature gate?", "NVIDIA/k8s-device-plugin@v0.9.0:main.go"),
                 _x("E0312 10:02:10.000000 1 main.go:278] Could not contact Kubelet. Did you "
                    "enable the device plugin feature gate?",
                    "NVIDIA/k8s-device-plugin@v0.14.0:cmd/nvidia-device-plugin/main.go"))),
    # the plugin cannot watch kubelet's device-plugins directory (not mounted where it looks:
    # a kubelet with another root dir; or inotify limits) or its gRPC server will not stay up
    _s("plugin-cannot-serve", "fs watcher|grpc server|could not start device plugin",
       r"failed to created? fs watcher|grpc server (?:for '[^']*' )?(?:has repeatedly crashed|"
       r"crashed with error)|could not start device plugin",
       {"not-advertised": 2.5}, (LOG,),
       examples=(_x("2019/10/30 11:16:23 Failed to created FS watcher.",
                    "NVIDIA/k8s-device-plugin@1.0.0-beta4:main.go"),
                 _x("error starting plugins: failed to create FS watcher for "
                    "/var/lib/kubelet/device-plugins/: too many open files",
                    DP + "cmd/nvidia-device-plugin/main.go"),
                 _x("GRPC server has repeatedly crashed recently. Quitting",
                    "NVIDIA/k8s-device-plugin@1.0.0-beta4:server.go"),
                 _x("I0312 10:02:10.000000 1 server.go:113] Could not start device plugin for "
                    "'nvidia.com/gpu': listen unix /var/lib/kubelet/device-plugins/"
                    "nvidia-gpu.sock: bind: address already in use",
                    "NVIDIA/k8s-device-plugin@v0.14.0:internal/plugin/server.go"))),
    # kubelet asks for a device the plugin does not know (its IDs changed under a restart or a
    # config change: the pod is refused at admission)
    _s("plugin-unknown-device", "unknown device",
       r"invalid allocation request(?: for (?:'[^']*'|\\?\"[^\"\\]*\\?\"))?: unknown device",
       {"admission-failed": 2.5, "plugin-config-not-applied": 0.5}, (LOG, EVENT, STATUS), True,
       examples=(_x("invalid allocation request for 'nvidia.com/gpu': unknown device: "
                    "GPU-5c0f::3", "NVIDIA/k8s-device-plugin@v0.14.0:internal/plugin/server.go"),
                 _x('invalid allocation request for "nvidia.com/gpu": unknown device: GPU-5c0f',
                    "NVIDIA/k8s-device-plugin@v0.17.0:internal/plugin/server.go"),
                 _x("invalid allocation request: unknown device: GPU-5c0f",
                    "NVIDIA/k8s-device-plugin@1.0.0-beta4:server.go"))),
    # printed beside the NVML failure when the plugin runs where no driver reaches it
    _s("plugin-not-gpu-node", "if this is not a gpu node",
       r"if this is not a gpu node, you should set up a toleration or nodeselector",
       {"runtime-not-default": 1.5, "not-advertised": 1.0, "nodes-unlabelled": 0.5}, (LOG,),
       examples=(_x("If this is not a GPU node, you should set up a toleration or nodeSelector to "
                    "only deploy this plugin on GPU nodes",
                    "NVIDIA/k8s-device-plugin@v0.14.0:internal/plugin/manager/factory.go"),)),
    # MIG mode on with no MIG devices created (the layout was never applied), per the plugin's
    # device map
    _s("plugin-mig-not-configured", "migenabled=true was not configured correctly",
       r"at least one device with migenabled=true was not configured correctly",
       {"mig-failed": 3.0, "plugin-config-invalid": 0.5}, (LOG,), True,
       examples=(_x("error starting plugins: error getting plugins: unable to load resource "
                    "managers to manage plugin devices: failed to construct NVML resource "
                    "managers: error building device map: error building device map from "
                    "config.resources: error building GPU device map: at least one device with "
                    "migEnabled=true was not configured correctly: error visiting device: device "
                    "0 has an invalid MIG configuration",
                    "NVIDIA/k8s-device-plugin@v0.15.0:internal/rm/device_map.go"),
                 _x("At least one device with migEnabled=true was not configured correctly: "
                    "error visiting device", "NVIDIA/k8s-device-plugin@v0.9.0:mig-strategy.go"))),
    # the sharing/resources config the plugin cannot build devices from, or ignores in part
    _s("plugin-config-rejected", "invalid resource name|invalid strategy|device map with replicas|"
       "not yet supported in the config",
       r"invalid resource name: |invalid strategy: |"
       r"error updating device map with replicas from|"
       r"is not yet supported in the config\. ignoring",
       {"plugin-config-invalid": 3.0}, (LOG,), True,
       examples=(_x("unable to load config: unable to parse config file: invalid resource name: "
                    "a lowercase RFC 1123 label must consist of lower case alphanumeric "
                    "characters", DP + "api/config/v1/resources.go"),
                 _x("invalid strategy: round-robin", DP + "api/config/v1/strategy.go"),
                 _x("error updating device map with replicas from replicatedResources config: "
                    "number of replicas must be >= 2", DP + "internal/rm/device_map.go"),
                 _x("W0312 10:02:10.000000 1 replicas.go:63] Customizing the 'devices' field in "
                    "sharing.timeSlicing.resources is not yet supported in the config. "
                    "Ignoring...", DP + "api/config/v1/replicas.go"))),
    # (up to v0.9 the plugin marked such a GPU unhealthy; later ones only skip its checks)
    _s("plugin-health-too-old", "too old to support healthchecking",
       r"is too old to support healthchecking: .*marking it unhealthy",
       {"unhealthy": 2.5}, (LOG,),
       examples=(_x("Warning: GPU-5c0f is too old to support healthchecking: Not Supported. "
                    "Marking it unhealthy.", "NVIDIA/k8s-device-plugin@v0.9.0:nvidia.go"),)),
    # The toolkit container signals containerd over the socket it was given: a socket that is
    # not there is a containerd at another path (k3s, RKE2, microk8s run their own), whose
    # config the toolkit did not write either.
    _s("toolkit-containerd-dial", "unable to dial",
       r"(?:unable to restart containerd|error signaling containerd, attempt \d+/\d+): "
       r"unable to dial: dial unix \S+: connect: "
       r"(?:no such file or directory|connection refused)",
       {"runtime-config-not-read": 2.5, "containerd-restart": 0.5}, (LOG,),
       examples=(_x('level=fatal msg="error running nvidia-toolkit: unable to setup runtime: '
                    'unable to restart containerd: unable to dial: dial unix /runtime/sock-dir/'
                    'containerd.sock: connect: no such file or directory"',
                    "NVIDIA/nvidia-container-toolkit@v1.17.0:tools/container/runtime/containerd/"
                    "containerd_linux.go"),
                 _x("unable to restart containerd: unable to dial: dial unix "
                    "/run/containerd/containerd.sock: connect: connection refused",
                    CTK + "cmd/nvidia-ctk-installer/container/runtime/containerd/"
                    "containerd_linux.go"),
                 _x('level=warning msg="Error signaling containerd, attempt 1/6: unable to dial: '
                    'dial unix /runtime/sock-dir/containerd.sock: connect: no such file or '
                    'directory"', "NVIDIA/nvidia-container-toolkit@v1.18.2:cmd/nvidia-ctk-"
                    "installer/container/runtime/containerd/containerd_linux.go"))),
    # the toolkit found no config at the path it was told to edit and starts from an empty
    # one: on a node whose containerd reads another file (k3s, RKE2, microk8s) the runtime it
    # writes there is never read
    _s("toolkit-config-absent", "config file does not exist; using empty config",
       r"config file does not exist; using empty config",
       {"runtime-config-not-read": 1.5, "handler-missing": 0.5}, (LOG,),
       examples=(_x('time="2025-01-16T00:38:30Z" level=info msg="Config file does not exist; '
                    'using empty config"', "NVIDIA/nvidia-container-toolkit@v1.14.0:pkg/config/"
                    "engine/containerd/option.go"),)),
    # (no spec for the node's GPUs: what matters only where containers ask for CDI devices)
    _s("toolkit-cdi-generate", "generating cdi specification",
       r"error generating cdi specification", {"cdi-unresolvable": 2.0}, (LOG,),
       examples=(_x('level=error msg="error generating CDI specification: failed to create '
                    'discoverer for common entities: failed to locate driver libraries"',
                    "NVIDIA/nvidia-container-toolkit@v1.15.0:tools/container/toolkit/"
                    "toolkit.go"),
                 _x('level=error msg="Ignoring error: error generating CDI specification: '
                    'failed to initialize NVML: ERROR_LIBRARY_NOT_FOUND"',
                    CTK + "cmd/nvidia-ctk-installer/toolkit/toolkit.go"))),
    # the validator's plugin stage gave up, or is still retrying long after a plugin would have
    # registered (30 tries 5 s apart, each logging "GPU resources are not yet discovered by the
    # node, retry: %d"; the first few are a normal start, from the tenth on, 50 s have passed):
    # the node has not advertised a GPU resource
    _s("validator-no-gpu-resource",
       "gpu resources are not discovered|gpu resources are not yet discovered|"
       "allocatable gpu resource",
       r"gpu resources are not discovered by the node|"
       r"gpu resources are not yet discovered by the node, retry: [1-9]\d|"
       r"unable to find any allocatable gpu resource",
       {"not-advertised": 3.0, "unhealthy": 1.0}, (LOG, VALIDATOR),
       examples=(_x('level=info msg="Error: error validating plugin installation: GPU resources '
                    'are not discovered by the node"',
                    "NVIDIA/gpu-operator@v25.10.1:cmd/nvidia-validator/main.go"),
                 _x('time="2023-02-08T14:19:01Z" level=info msg="GPU resources are not yet '
                    'discovered by the node, retry: 24"',
                    "NVIDIA/gpu-operator@v25.10.1:cmd/nvidia-validator/main.go"),
                 _x("error validating cuda workload: unable to find any allocatable GPU resource",
                    "NVIDIA/gpu-operator@v25.10.1:cmd/nvidia-validator/main.go"))),
    # the validator's driver stage: the driver container is not ready or its libraries are not
    # where the validator looks; upstream of every later operand (seed §4)
    # (the wrapper "error validating driver installation" alone also wraps routine retries)
    # ("driver is not ready: %v" after the validator's wait loop gave up; "nvidia-fs driver is
    # not ready" and the other add-ons print no colon)
    _s("validator-driver-not-ready", "driver is not ready|driver libraries|"
       "driver container status|failed to locate nvidia-smi",
       r"\bdriver is not ready: |^\W*driver is not ready\W*$|failed to locate driver libraries|"
       r"error checking driver container status|failed to locate nvidia-smi: ",
       {"driver-failing": 1.5, "operand-init": 0.75}, (LOG, VALIDATOR),
       examples=(_x('level=error msg="driver is not ready: error checking driver container '
                    'status: exit status 1"', OP + "cmd/nvidia-validator/main.go"),
                 _x("error validating driver installation: failed to locate driver libraries: "
                    "error locating \"libnvidia-ml.so.1\"", OP + "internal/driver/root.go"),
                 _x("driver is not ready", "NVIDIA/gpu-operator@v1.9.0:validator/main.go"),
                 # v24.9 on: the driver root holds no nvidia-smi (the driver pod has not
                 # installed it there yet)
                 _x('level=info msg="Error: error validating driver installation: error '
                    'validating driver: failed to locate nvidia-smi: error locating '
                    '\\"nvidia-smi\\""', "NVIDIA/gpu-operator@v24.9.0:validator/main.go"))),
    # the validator's toolkit stage runs nvidia-smi through the nvidia runtime: failing there
    # means the runtime the toolkit set up is not what containerd runs (seed §5)
    _s("validator-toolkit-not-ready", "toolkit is not ready|validating toolkit installation",
       r"toolkit is not ready|error validating toolkit installation",
       {"runtime-config-not-read": 1.25, "handler-missing": 1.0, "containerd-config": 0.75,
        "operand-init": 0.5}, (LOG, VALIDATOR),
       examples=(_x("error validating toolkit installation: toolkit is not ready",
                    OP + "cmd/nvidia-validator/main.go"),)),
    # the toolkit's mode detection on a Tegra-based (Jetson) system: CSV mode, where DCGM and
    # the operator's operands are not supported
    _s("toolkit-csv-mode", "auto-detected mode as",
       r"auto-detected mode as '?csv'?", {"unsupported-stack": 2.5},
       (LOG, EVENT, STATUS),
       examples=(_x("stderr: Auto-detected mode as 'csv'", CTK + "internal/info/auto.go"),
                 _x("Auto-detected mode as 'csv'",
                    "NVIDIA/nvidia-container-toolkit@v1.10.0:internal/info/auto.go"))),
    _s("plugin-register-failed", "could not register device plugin",
       r"could not register device plugin", {"not-advertised": 3.0}, (LOG,), True,
       examples=(_x("E1129 10:02:10.000000 1 server.go:146] Could not register device plugin: "
                    "rpc error: code = Unavailable desc = connection error",
                    DP + "internal/plugin/server.go"),)),
    # the plugin builds each GPU's device node from NVML's minor number (/dev/nvidia<minor>);
    # under WSL2 the GPU is /dev/dxg and NVML has no minor number to give, so plugins before
    # v0.15.0 stop with "Not Supported" (NVIDIA/k8s-device-plugin@v0.12.2:internal/rm/nvml.go
    # "error getting GPU device minor number: %v"); v0.15.0 detects WSL and hands out /dev/dxg
    # instead (@v0.15.0:internal/rm/wsl_devices.go): a platform the plugin did not support
    _s("plugin-minor-not-supported", "device minor number",
       r"error getting gpu device minor number: not supported",
       {"unsupported-stack": 3.0, "not-advertised": 1.0}, (LOG,), True,
       examples=(_x("panic: Unable to load resource managers to manage plugin devices: error "
                    "building device map: error building device map from config.resources: "
                    "error building GPU device map: error building GPU Device: error getting "
                    "device paths: error getting GPU device minor number: Not Supported",
                    GH + "NVIDIA/k8s-device-plugin/issues/332"),)),
    # the kubelet's registration socket answers, but serves no Registration service of the
    # plugin's API version (a plugin built for another device-plugin API than the kubelet:
    # k8s.io/kubelet pkg/apis/deviceplugin, v1alpha ``deviceplugin.Registration`` before 1.10,
    # ``v1beta1.Registration`` since): version skew, not a kubelet that is down
    _s("plugin-api-unimplemented", "unknown service",
       r"code = unimplemented desc = unknown service (?:deviceplugin|v1alpha|v1beta1)?\.?"
       r"registration",
       {"unsupported-stack": 5.0}, (LOG,), True,
       examples=(_x("2020/02/09 00:20:15 Could not register device plugin: rpc error: code = "
                    "Unimplemented desc = unknown service deviceplugin.Registration",
                    GH + "NVIDIA/k8s-device-plugin/issues/156"),
                 _x("rpc error: code = Unimplemented desc = unknown service v1beta1.Registration",
                    GH + "kubernetes/kubelet/issues/17"))),
    # The toolkit installer prints the same words about the *containerd* config (knowledge
    # audit §9): those lines name the runtime config and are left to containerd-config.
    _s("plugin-load-config", "unable to load config",
       r"unable to load config: (?:unable to finalize config|unable to parse config file|"
       r"error parsing config file|unknown version|.*replicas must be)",
       {"plugin-config-invalid": 4.0}, (LOG,), True,
       examples=(_x("E1129 10:02:10.129601 1 main.go:123] error starting plugins: unable to "
                    "load config: unable to finalize config: unable to parse config file: "
                    "error parsing config file: unmarshal error",
                    DP + "cmd/nvidia-device-plugin/main.go"),
                 _x("unable to load config: unable to finalize config: number of replicas "
                    "must be >= 2", DP + "cmd/gpu-feature-discovery/main.go"))),
    _s("config-manager-switch", "does not exist|error creating symlink|all fallbacks failed|"
       "configuration files|unknown fallback strategy",
       r"specified config \S+ does not exist|error creating symlink:(?!.*: file exists)|"
       r"no config was set, no default was provided, and all fallbacks failed|"
       r"error getting list of configuration files: |\bno configuration files available\b|"
       r"unknown fallback strategy: ",
       {"plugin-config-invalid": 3.5}, (LOG,), True,
       examples=(_x("E1129 11:31:01.000000 1 main.go:138] Error: specified config a100-ts8 "
                    "does not exist", DP + "cmd/config-manager/main.go"),
                 _x("Error: error creating symlink: symlink /available-configs/x /config/config."
                    "yaml: permission denied", DP + "cmd/config-manager/main.go"),
                 _x("Error: no config was set, no default was provided, and all fallbacks "
                    "failed", DP + "cmd/config-manager/main.go"),
                 # the ConfigMap mounted at the sources directory is empty or not mounted
                 _x("E0312 10:02:10.000000 1 main.go:208] error getting list of configuration "
                    "files: open /available-configs: no such file or directory",
                    "NVIDIA/k8s-device-plugin@v0.17.0:cmd/config-manager/main.go"),
                 _x("2022/06/01 10:00:00 Error: no configuration files available",
                    DP12 + "cmd/config-manager/main.go"),
                 _x("E0312 10:02:10.000000 1 main.go:208] unknown fallback strategy: first",
                    "NVIDIA/k8s-device-plugin@v0.17.0:cmd/config-manager/main.go"))),
    # config-manager in its init container waits for the node's config label before the plugin
    # starts: an init container whose log ends there never chose a config (the label absent
    # and no default, or the label read raced the informer: NVIDIA/k8s-device-plugin issue
    # 1540). A vote, not a decision: the line is also printed on every healthy start.
    _s("config-manager-label-wait", "waiting for change to",
       r"waiting for change to 'nvidia\.com/device-plugin\.config' label",
       {"plugin-config-invalid": 1.0, "plugin-config-not-applied": 0.75}, (LOG,),
       examples=(_x("nvidia-device-plugin-init I1127 22:37:28.838748       7 main.go:246] Waiting "
                    "for change to 'nvidia.com/device-plugin.config' label",
                    "NVIDIA/k8s-device-plugin@v0.17.0:cmd/config-manager/main.go"),)),
    # config-manager's switch stats the current link (following it) before replacing it: when
    # the ConfigMap was edited under the running plugin and the config the link names is gone,
    # the stale link is never removed and the new one cannot be made
    _s("config-manager-stale-link", "error creating symlink",
       r"error creating symlink: symlink \S+ \S+: file exists",
       {"plugin-config-not-applied": 3.5, "plugin-config-invalid": 1.0}, (LOG,), True,
       examples=(_x('config-manager time="2022-12-23T13:54:55Z" level=info msg="Error: error '
                    'creating symlink: symlink /available-configs/config-3 /config/config.yaml: '
                    'file exists"', DP + "cmd/config-manager/main.go"),)),
    _s("plugin-invalid-sharing", "config file|validate flags|replicas must be|invalid --",
       r"^(?!.*(?:fata\[\d+\]|mig-config|mig-devices|mig-enabled|for 'devices'))"
       r".*error parsing config file|unable to parse config file|"
       r"unable to validate flags(?!: cdi --device-list-strategy options are only supported)|"
       r"number of replicas must be >= 2|invalid --(?:device-list-strategy|"
       r"shared-devices-allocation-policy|device-id-strategy) option",
       {"plugin-config-invalid": 3.5}, (LOG,), True,
       examples=(_x("unable to parse config file: error parsing config file: unmarshal error",
                    DP + "api/config/v1/config.go"),
                 _x("number of replicas must be >= 2", DP + "api/config/v1/replicas.go"),
                 _x("unable to validate flags: invalid --device-list-strategy option: "
                    "volume-mount", DP + "cmd/nvidia-device-plugin/main.go"))),
    # ---- gate 2 runtime (facts.md §2.3, §5.5) ---------------------------------------------------
    _s("no-runtime-handler", "no runtime for",
       r"no runtime for \\?\"?[\w.-]+\\?\"? is configured",
       {"handler-missing": 4.0, "dropin-overwrote": 1.0, "runtime-config-not-read": 1.0},
       (EVENT, DESCRIBE), True,
       examples=(_x('Failed to create pod sandbox: rpc error: code = Unknown desc = failed to '
                    'get sandbox runtime: no runtime for "nvidia" is configured',
                    CD + "internal/cri/config/config.go"),
                 _x('failed to get sandbox runtime: no runtime for "nvidia" is configured',
                    "containerd/containerd@v1.7.0:pkg/cri/sbserver/sandbox_run.go"),
                 # the daemon's own log line, the error a quoted field (journald, logrus)
                 _x('level=error msg="RunPodSandbox for &PodSandboxMetadata{Name:gpu-pod,'
                    'Namespace:default,Attempt:0,} failed, error" error="failed to get sandbox '
                    'runtime: no runtime for \\"nvidia\\" is configured"',
                    "containerd/containerd@v1.7.0:pkg/cri/instrument/instrumented_service.go"))),
    _s("cri-handler-unknown", "runtimehandler|runtime handler",
       r"runtimehandler \\?\"?[\w.-]+\\?\"? not supported|"
       r"failed to find runtime handler \\?\"?[\w.-]+",
       {"handler-missing": 3.5}, (EVENT, DESCRIBE), True,
       examples=(_x("Failed to create pod sandbox: rpc error: code = Unknown desc = failed to "
                    "find runtime handler nvidia from runtime list map[crun:0xc00047e300 "
                    "runc:0xc00047ef00]", GH + "NVIDIA/NVSentinel/issues/442"),
                 _x('Failed create pod sandbox: rpc error: code = Unknown desc = RuntimeHandler '
                    '"nvidia" not supported',
                    "kubernetes/kubernetes@v1.21.0:pkg/kubelet/dockershim/docker_sandbox.go"),
                 _x('level=error msg="CreateContainer within sandbox \\"4f1c\\" for '
                    '&ContainerMetadata{Name:cuda,Attempt:0,} failed" error="failed to find '
                    'runtime handler \\"nvidia\\""',
                    "containerd/containerd@v2.1.4:internal/cri/instrument/"
                    "instrumented_service.go"))),
    _s("cdi-unresolvable", "cdi device",
       r"unresolvable cdi devices?|failed to inject cdi devices|cdi device injection failed",
       {"cdi-unresolvable": 4.0}, (EVENT, STATUS, DESCRIBE), True,
       examples=(_x("CDI device injection failed: unresolvable CDI devices "
                    "k8s.device-plugin.nvidia.com/gpu=GPU-5c0f", CD + "pkg/cdi/oci_opt.go"),
                 _x("failed to inject CDI devices: unresolvable CDI devices "
                    "management.nvidia.com/gpu=all", CTK + "internal/modifier/cdi/registry.go"))),
    # containerd could not (re)load the CDI specs on the node (a spec it cannot parse, two
    # specs naming one device): the devices they define do not resolve
    _s("cdi-registry-refresh", "cdi registry refresh failed",
       r"cdi registry refresh failed", {"cdi-unresolvable": 1.5}, (LOG, JOURNAL),
       examples=(_x('level=warning msg="CDI registry refresh failed: failed to load CDI Spec '
                    'open /var/run/cdi/nvidia.yaml: permission denied"',
                    CD + "pkg/cdi/oci_opt.go"),)),
    _s("cdi-none-generated", "cdi devices",
       r"found 0 cdi devices", {"cdi-unresolvable": 3.0}, (LOG, CONFIG), True,
       examples=(_x("INFO[0000] Found 0 CDI devices", CTK + "cmd/nvidia-ctk/cdi/list/list.go"),)),
    _s("envvar-unprivileged-refused", "insufficient privileges to read device list",
       r"insufficient privileges to read device list from nvidia_visible_devices",
       {"envvar-ignored": 3.5}, (EVENT, STATUS, DESCRIBE, LOG), True,
       examples=(_x("error: insufficient privileges to read device list from "
                    "NVIDIA_VISIBLE_DEVICES envvar",
                    "NVIDIA/nvidia-container-toolkit@v1.3.0:pkg/container_config.go"),)),
    _s("envvar-unprivileged", "when-unprivileged|when_unprivileged",
       r"accept[-_]nvidia[-_]visible[-_]devices[-_]envvar[-_]when[-_]unprivileged\W*[=:]\s*"
       r"\"?false", {"envvar-ignored": 3.0}, (CONFIG, DESCRIBE), True,
       examples=(_x("accept-nvidia-visible-devices-envvar-when-unprivileged = false",
                    CTK + "api/config/v1/config.go"),)),
    # The CLI's NVML init finding no loaded kernel module (libnvidia-container's driver_init
    # wraps NVML's own "Driver Not Loaded"): the hook fails at container create, before any
    # process of the container runs. Where it was confirmed, the runtime's hook was applied to
    # a container on a host with no GPU or no driver (a CPU-only instance from a GPU image, a
    # launcher that sets --runtime=nvidia whenever the runtime is installed): the injection is
    # what fails; a GPU host whose driver is not up also shows its driver's own lines
    _s("nvidia-cli-driver-not-loaded", "nvidia-container-cli",
       r"nvidia-container-cli(?:\.real)?:? initialization error: nvml error: driver not loaded",
       {"injection-failed": 4.5, "nvml-init": 2.0, "driver-failing": 0.75},
       (EVENT, STATUS, DESCRIBE, LOG), True,
       examples=(_x("stderr: nvidia-container-cli: initialization error: nvml error: driver not "
                    "loaded: unknown", GH + "NVIDIA/nvidia-container-toolkit/issues/260"),)),
    # ... and its dlopen of NVML failing in the driver root it was given: no driver there (the
    # host has none, or the toolkit's root points elsewhere, e.g. /run/nvidia/driver without
    # the driver container)
    _s("nvidia-cli-nvml-missing", "nvidia-container-cli",
       r"nvidia-container-cli(?:\.real)?:? initialization error: load library failed: "
       r"libnvidia-ml\.so",
       {"injection-failed": 3.0, "nvml-init": 1.5}, (EVENT, STATUS, DESCRIBE, LOG), True,
       examples=(_x("nvidia-container-cli.real: initialization error: load library failed: "
                    "libnvidia-ml.so.1: cannot open shared object file: no such file or "
                    "directory: unknown", GH + "canonical/microk8s-core-addons/issues/251"),)),
    _s("nvidia-cli-init", "nvidia-container-cli",
       r"nvidia-container-cli(?:\.real)?:? (?:initialization|mount|ldcache|detection|"
       r"device|container|permission) error(?!: nvml error: (?:driver not loaded|unknown error))"
       r"(?!: load library failed: libnvidia-ml)",
       {"injection-failed": 3.5, "nvml-init": 0.5}, (EVENT, STATUS, DESCRIBE), True,
       examples=(_x("stderr: nvidia-container-cli: initialization error: driver error: failed "
                    "to process request", GH + "NVIDIA/nvidia-container-toolkit/issues/183"),
                 # the CLI's other stages (src/cli/configure.c: "container error: %s" when the
                 # container's cgroup or rootfs cannot be set up, "permission error: %s" when
                 # it cannot take the capabilities a stage needs)
                 _x("stderr: nvidia-container-cli: container error: cgroup subsystem devices "
                    "not found: unknown", GH + "NVIDIA/nvidia-docker/issues/1447"),
                 _x("nvidia-container-cli: permission error: capability change failed",
                    "NVIDIA/libnvidia-container@09df17a2:src/cli/configure.c"))),
    # the same CLI's container stage with the program's name cut off (a runtime that prints
    # only the hook's last error, or a ticket that quotes only it): libnvidia-container's
    # cgroup lookup reads /proc/<pid>/cgroup and mountinfo for the v1 ``devices`` controller,
    # which a cgroup-v2-only host does not have (the library learnt cgroup v2 in v1.8.0)
    _s("nvidia-cli-cgroup-devices", "cgroup subsystem devices not found",
       r"(?<!nvidia-container-cli: )container error: cgroup subsystem devices not found",
       {"injection-failed": 3.0}, (EVENT, STATUS, DESCRIBE, LOG), True,
       examples=(_x("container error: cgroup subsystem devices not found: unknown",
                    GH + "canonical/microk8s/issues/3231"),)),
    # the library's ldcache stage running the container's ldconfig and seeing it fail, as the
    # CLI reports it under any runtime's wrapping (a runc without seccomp support, an image's
    # broken ldconfig)
    # ... and the same stage failing to start the ldconfig it was given at all (the host's,
    # ``@/sbin/ldconfig`` in the toolkit's config, missing at that path): the library logs it
    # from the forked child and exits 0 on ENOENT, so the container starts with the driver
    # libraries mounted but absent from its ld cache, and NVML "cannot be found" follows
    # (``log_errf("could not start %s: %s", ...)`` in src/nvc_ldcache.c's nvc_ldcache_update)
    _s("nvc-ldcache-not-started", "could not start",
       r"nvc_ldcache\.c:\d+\] could not start \S*ldconfig\S*:",
       {"injection-failed": 3.0}, (EVENT, STATUS, DESCRIBE, LOG), True,
       examples=(_x("E0216 16:10:49.982844 1 nvc_ldcache.c:393] could not start "
                    "/usr/sbin/ldconfig: process execution failed: no such file or directory",
                    "NVIDIA/libnvidia-container@0f8e13d6:src/nvc_ldcache.c"),)),
    _s("nvidia-cli-ldcache", "ldcache error",
       r"ldcache error\s*:\s*process \S*ldconfig\S* failed with error code",
       {"injection-failed": 3.0}, (EVENT, STATUS, DESCRIBE, LOG), True,
       examples=(_x("oci runtime error ,ldcache error : process /sbin/ldconfig failed with "
                    "error code 1", GH + "NVIDIA/nvidia-docker/issues/552"),)),
    _s("oci-create-failed", "oci runtime create failed",
       r"oci runtime create failed", {"injection-failed": 1.5}, (EVENT, STATUS, DESCRIBE),
       examples=(_x("failed to create shim task: OCI runtime create failed: runc create failed: "
                    "unable to start container process: error during container init",
                    GH + "NVIDIA/nvidia-docker/issues/1780"),)),
    _s("hook-failed", "hook",
       r"error running (?:prestart|createcontainer) hook|error running hook",
       {"injection-failed": 2.5}, (EVENT, STATUS, DESCRIBE), True,
       examples=(_x("error during container init: error running hook #0: error running hook: "
                    "exit status 1, stdout: , stderr: Auto-detected mode as 'legacy'",
                    GH + "NVIDIA/nvidia-docker/issues/1780"),)),
    # runc refusing a mount the runtime or a CDI spec asked for (a host path that is not there)
    _s("mount-source-missing", "failed to fulfil mount request",
       r"failed to fulfil mount request: open \S+: no such file or directory",
       {"injection-failed": 2.5, "cdi-unresolvable": 0.5}, (EVENT, STATUS, DESCRIBE), True,
       examples=(_x("failed to fulfil mount request: open /bin/nvidia-cuda-mps-control: no such "
                    "file or directory", GH + "nicolerenee/infra/pull/2394"),)),
    # The container got no driver utilities: nothing injected them (runc, not the nvidia runtime).
    _s("smi-not-injected", "nvidia-smi",
       r"nvidia-smi: (?:command )?not found|exec: \"nvidia-smi\": executable file not found",
       {"runtime-not-default": 2.0, "injection-failed": 0.5}, (LOG, STATUS, EVENT),
       examples=(_x("/usr/local/bin/dcgm-exporter: line 55: nvidia-smi: command not found",
                    GH + "NVIDIA/gpu-monitoring-tools/issues/2"),)),
    # containerd's go-runc wrapping the nvidia runtime's non-zero exit at create
    _s("nvidia-runtime-exit", "did not terminate successfully",
       r"nvidia-container-runtime\S* did not terminate successfully",
       {"injection-failed": 2.5}, (EVENT, STATUS, DESCRIBE), True,
       examples=(_x("failed to create shim task: OCI runtime create failed: "
                    "/usr/local/nvidia/toolkit/nvidia-container-runtime did not terminate "
                    "successfully: exit status 1: unknown",
                    "containerd/containerd@v1.7.0:vendor/github.com/containerd/go-runc/runc.go"),)),
    _s("runtime-modifier-failed", "failed to construct oci spec modifier",
       r"failed to construct oci spec modifier", {"injection-failed": 3.0}, (EVENT, STATUS, LOG),
       True,
       examples=(_x("failed to create NVIDIA Container Runtime: failed to construct OCI spec "
                    "modifier: failed to construct discoverer: failed to create mounts discoverer",
                    CTK + "internal/runtime/runtime_factory.go"),)),
    # The legacy hook refuses to run alone (CSV mode, e.g. Jetson): docker --gpus without the
    # nvidia runtime.
    _s("hook-invoked-directly", "invoking the nvidia container runtime hook directly",
       r"invoking the nvidia container runtime hook directly",
       {"runtime-not-default": 2.0, "injection-failed": 1.5}, (EVENT, STATUS, LOG), True,
       examples=(_x("invoking the NVIDIA Container Runtime Hook directly (e.g. specifying the "
                    "docker --gpus flag) is not supported. Please use the NVIDIA Container Runtime "
                    "(e.g. specify the --runtime=nvidia flag) instead",
                    CTK + "cmd/nvidia-container-runtime-hook/hook_config.go"),)),
    # Docker without the nvidia runtime registered (daemon.json) or without the toolkit.
    _s("docker-runtime-unknown", "invalid runtime name|could not select device driver",
       r"unknown or invalid runtime name: nvidia|"
       r"could not select device driver \S* ?with capabilities: \[\[gpu\]\]",
       {"handler-missing": 2.5, "runtime-not-default": 1.0}, (EVENT, STATUS, LOG), True,
       examples=(_x("docker: Error response from daemon: unknown or invalid runtime name: nvidia.",
                    GH + "NVIDIA/nvidia-container-toolkit/issues/150"),
                 _x('docker: Error response from daemon: could not select device driver "" with '
                    "capabilities: [[gpu]].", GH + "NVIDIA/nvidia-docker/issues/1352"))),
    _s("runtime-binary-missing", "nvidia-container-runtime",
       r"nvidia-container-runtime[\w.-]*\"?:? (?:executable file not found|no such file)",
       {"injection-failed": 4.0}, (EVENT, STATUS, DESCRIBE), True,
       examples=(_x('failed to create shim task: OCI runtime create failed: exec: '
                    '"nvidia-container-runtime": executable file not found in $PATH',
                    GH + "NVIDIA/gpu-operator/issues/1323"),)),
    _s("cuda-requirement", "requirement error|unsupported cuda version",
       r"requirement error: (?:unsatisfied condition: (?:cuda|driver|brand|arch)|"
       r"invalid expression)|"
       r"unsupported cuda version: driver [\d.]+ < image [\d.]+",
       {"cuda-requirement": 4.0},
       (EVENT, STATUS, DESCRIBE, LOG), True,
       examples=(_x("nvidia-container-cli: requirement error: unsatisfied condition: cuda>=12.8, "
                    "please update your driver to a newer version, or use an earlier cuda "
                    "container: unknown", GH + "NVIDIA/nvidia-container-toolkit/issues/152"),
                 # the image's other NVIDIA_REQUIRE_* conditions (driver branch, brand)
                 _x("nvidia-container-cli: requirement error: unsatisfied condition: driver >= "
                    "410", GH + "docker/for-linux/issues/846"),
                 _x("nvidia-container-cli: requirement error: unsatisfied condition: brand = "
                    "tesla", GH + "osrf/subt/issues/96"),
                 # a CLI older than the image's requirement syntax (brand=, arch=) cannot parse
                 # it: "requirement error: %s" of the DSL's error
                 # (NVIDIA/libnvidia-container src/cli/configure.c)
                 _x("nvidia-container-cli: requirement error: invalid expression: unknown.",
                    GH + "mudler/LocalAI/issues/4789"),
                 # nvidia-docker 1.x compared the image's com.nvidia.cuda.version label itself
                 _x("nvidia-docker | 2017/11/21 00:48:39 Error: unsupported CUDA version: "
                    "driver 8.0 < image 9.0.176",
                    "NVIDIA/nvidia-docker@3422bca2:src/nvidia-docker/utils.go"))),
    # the CUDA runtime's cudaErrorInsufficientDriver: a driver older than the runtime, and also
    # what a container gets when nothing mounted the driver's libcuda at all (the pod ran under
    # runc), so a look-alike of the two, deciding neither
    _s("cuda-insufficient-driver", "cuda driver version is insufficient",
       r"cuda driver version is insufficient for cuda runtime version",
       {"cuda-requirement": 2.0, "runtime-not-default": 1.5}, (EVENT, STATUS, DESCRIBE, LOG),
       examples=(_x("Failed to allocate device vector A (error code CUDA driver version is "
                    "insufficient for CUDA runtime version)!",
                    "NVIDIA/cuda-samples@v12.4:Samples/0_Introduction/vectorAdd/vectorAdd.cu"),)),
    # the CUDA runtime's cudaErrorInitializationError in the validator's vectorAdd (or any CUDA
    # program): a GPU in MIG mode handed to the container whole, with no MIG device in it (MIG
    # strategy none over MIG-enabled GPUs: CUDA cannot create a context on the parent GPU,
    # wilicc/gpu-burn#122), and also a driver too old for the program's CUDA; a vote for both
    _s("cuda-initialization-error", "initialization error",
       r"\(error code initialization error\)|cudaerrorinitializationerror",
       {"mig-strategy": 1.0, "cuda-requirement": 0.75}, (LOG, STATUS),
       examples=(_x("[Vector addition of 50000 elements] Failed to allocate vector A (error code "
                    "initialization error)!", GH + "NVIDIA/gpu-operator/issues/382"),)),
    # a framework's allocation failing for lack of GPU memory: on a shared GPU, the other
    # replicas' pods hold it (time-slicing isolates no memory); a weak vote, never deciding
    _s("cuda-out-of-memory", "out of memory",
       r"cuda out of memory\. tried to allocate|cuda_error_out_of_memory: out of memory",
       {"shared-memory": 1.0}, (LOG,),
       examples=(_x("RuntimeError: CUDA out of memory. Tried to allocate 20.00 MiB (GPU 0; "
                    "14.76 GiB total capacity; 4.37 GiB already allocated; 14.75 MiB free)",
                    "pytorch/pytorch@v1.10.0:c10/cuda/CUDACachingAllocator.cpp"),
                 _x("torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. "
                    "GPU 0 has a total capacity of 79.15 GiB of which 1.06 GiB is free.",
                    "pytorch/pytorch@v2.3.0:c10/cuda/CUDACachingAllocator.cpp"),
                 _x("E tensorflow/stream_executor/cuda/cuda_driver.cc:806] failed to allocate "
                    "3.00G (3221225472 bytes) from device: CUDA_ERROR_OUT_OF_MEMORY: out of memory",
                    "tensorflow/tensorflow@v2.4.0:tensorflow/stream_executor/cuda/"
                    "cuda_driver.cc"))),
    # ---- what a workload in the container prints (the CUDA runtime's error strings) ----------
    # No GPU reached the container: the pod asked for none in limits, or nothing injected one
    # (runc), or it was lost after start; which one, the pod spec and runtime class tell.
    _s("cuda-no-device", "no cuda-capable device|no cuda gpus are available|"
       "cudagetdevicecount returned 100",
       r"no cuda-capable device is detected|no cuda gpus are available|"
       r"cudagetdevicecount returned 100\b",
       {"envvar-ignored": 1.5, "runtime-not-default": 1.25, "device-lost": 0.5}, (LOG, STATUS),
       examples=(_x("cudaGetDeviceCount returned 100",
                    "NVIDIA/cuda-samples@v12.4:Samples/1_Utilities/deviceQuery/deviceQuery.cpp"),
                 _x("-> no CUDA-capable device is detected",
                    "https://docs.nvidia.com/cuda/cuda-runtime-api/group__CUDART__TYPES.html"),
                 _x("RuntimeError: No CUDA GPUs are available",
                    "pytorch/pytorch@1d8b3cca:torch/csrc/api/src/cuda.cpp"))),
    # cudaErrorSystemDriverMismatch (803): the libcuda the process loaded is not the kernel
    # module's version, "a mismatch between the versions of the display driver and the CUDA
    # driver" (the runtime API's error table): an image's CUDA compat libcuda found before the
    # host's injected one (ld.so.conf, LD_LIBRARY_PATH), or user space upgraded under a loaded
    # module; an image needing a newer driver is the weaker reading
    _s("cuda-driver-combination", "unsupported display driver",
       r"system has unsupported display driver / cuda driver combination",
       {"nvml-mismatch": 2.5, "cuda-requirement": 1.0}, (LOG, STATUS),
       examples=(_x("-> system has unsupported display driver / cuda driver combination",
                    "https://docs.nvidia.com/cuda/cuda-runtime-api/group__CUDART__TYPES.html"),)),
    # cudaErrorCompatNotSupportedOnDevice (804): the image's forward-compatibility libraries on
    # a GPU that forward compatibility does not cover: the image needs a newer driver
    _s("cuda-compat-unsupported", "forward compatibility was attempted",
       r"forward compatibility was attempted on non supported hw",
       {"cuda-requirement": 2.5, "nvml-mismatch": 0.5}, (LOG, STATUS),
       examples=(_x("RuntimeError: Unexpected error from cudaGetDeviceCount(). Error 804: forward "
                    "compatibility was attempted on non supported HW",
                    "https://docs.nvidia.com/deploy/cuda-compatibility/"),)),
    # ---- NVML / driver in containers (facts.md §8; seed §4) -------------------------------------
    _s("nvml-version-mismatch", "version mismatch|api mismatch",
       r"driver/library version mismatch|nvrm: api mismatch", {"nvml-mismatch": 4.0},
       (LOG, STATUS, SMI, DMESG), True,
       examples=(_x("Failed to initialize NVML: Driver/library version mismatch",
                    "https://github.com/madgraph5/madgraph4gpu/issues/996"),
                 _x("nvidia-container-cli: initialization error: nvml error: driver/library "
                    "version mismatch: unknown", GH + "NVIDIA/gpu-operator/issues/898"),
                 _x("NVRM: API mismatch: the client 'nvidia-smi' (pid 4242)",
                    OGKM + "src/nvidia/arch/nvalloc/unix/src/osapi.c"))),
    # The device plugin's NVML init at its start failing with Unknown Error: NVML loaded (the
    # libraries were injected; runc alone gives ERROR_LIBRARY_NOT_FOUND) but the fresh
    # container cannot use the device nodes, so the runtime did not grant them at create. Not
    # access lost later in a running container, and the help lines the plugin prints after any
    # init failure ("did you set the docker default runtime") do not name the cause here.
    _s("plugin-nvml-init-unknown", "failed to initialize nvml: unknown error",
       r"(?:factory|main)\.go:\d+\] failed to initialize nvml: unknown error",
       {"nvml-init": 3.0}, (LOG,), True, against=("runtime-not-default",),
       examples=(_x("E0627 10:12:47.588061       1 factory.go:68] Failed to initialize NVML: "
                    "Unknown Error.", DP + "internal/plugin/factory.go"),)),
    # nvidia-smi -q on the host answering a field with NVML's Unknown Error: NVML initialised
    # there, and the GPU itself fails its queries (GSP firmware, a GPU in a bad state). The
    # host failing as the container does is not the container's device rules reset.
    _s("smi-field-unknown-error", "unknown error",
       # nvidia-smi pads every field's name to the value column, so a space stands before its
       # colon; "Failed to initialize NVML: Unknown Error" indented in a ticket has none
       r"^\s{2,}[a-z][\w ./()-]{1,60}?\s+: unknown error\s*$",
       {"nvml-gpu-error": 2.5}, (SMI,), True, against=("device-lost",),
       examples=(_x("        Current                           : Unknown Error",
                    GH + "awslabs/amazon-eks-ami/issues/1523"),)),
    # (not the device plugin's per-device query after NVML came up, "error creating
    # nvml.Device 0: nvml: Unknown Error": that one is plugin-nvml-device-query; nor its
    # init at start, plugin-nvml-init-unknown)
    _s("nvml-unknown-error", "unknown error",
       r"^(?!.*error creating nvml\.device \d+: nvml: unknown error)"
       r"(?!.*(?:factory|main)\.go:\d+\] failed to initialize nvml: unknown error)"
       r".*nvml: unknown error",
       {"device-lost": 4.0}, (LOG, STATUS, SMI), True,
       examples=(_x("Failed to initialize NVML: Unknown Error",
                    GH + "NVIDIA/nvidia-container-toolkit/issues/48"),)),
    _s("nvml-init-failed", "failed to initialize nvml",
       r"failed to initialize nvml(?!: unknown error)(?!: driver/library)(?!: error_library)",
       {"nvml-init": 2.0, "nouveau": 0.25, "secure-boot": 0.25}, (LOG, STATUS, SMI),
       examples=(_x("E1129 10:02:10.000000 1 factory.go:99] Failed to initialize NVML: "
                    "ERROR_DRIVER_NOT_LOADED.", DP + "internal/plugin/factory.go"),)),
    _s("nvml-lib-missing", "libnvidia-ml|could not load nvml library|error_library_not_found",
       r"^(?!.*nvidia-container-cli).*libnvidia-ml\.so\.1: cannot open shared object|"
       r"could not load nvml library|"
       r"failed to initialize nvml: error_library_not_found",
       {"runtime-not-default": 2.0, "nvml-init": 1.5, "not-advertised": 0.5}, (LOG, STATUS),
       examples=(_x("error while loading shared libraries: libnvidia-ml.so.1: cannot open "
                    "shared object file: No such file or directory",
                    GH + "NVIDIA/nvidia-container-toolkit/issues/251"),
                 _x("Failed to start nvml with error:  could not load NVML library",
                    "NVIDIA/k8s-device-plugin@v0.9.0:vendor/github.com/NVIDIA/"
                    "gpu-monitoring-tools/bindings/go/nvml/bindings.go"),
                 _x("E1129 10:02:10.000000 1 factory.go:99] Failed to initialize NVML: "
                    "ERROR_LIBRARY_NOT_FOUND.", DP + "internal/plugin/factory.go"))),
    _s("smi-no-driver", "couldn't communicate with the nvidia driver",
       r"couldn't communicate with the nvidia driver",
       # a host's driver that worked until a reboot most often lost its module to a kernel
       # upgrade nothing rebuilt it for (DKMS absent or failed): the tickets that confirm a
       # cause for this line name that first (GoogleCloudPlatform/compute-gpu-installation
       # issue 25, and the unattended-upgrade ones)
       {"kernel-upgraded": 1.5, "driver-failing": 1.4, "nvml-init": 1.2, "nouveau": 0.5,
        "secure-boot": 0.5, "kernel-headers": 0.25},
       (SMI, LOG, VALIDATOR),
       examples=(_x("NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA "
                    "driver. Make sure that the latest NVIDIA driver is installed and running.",
                    GH + "NVIDIA/gpu-operator/issues/250"),)),
    # nvidia-smi with the module loaded but no GPU it could bring up (RmInitAdapter failed,
    # a GPU the branch does not drive, another driver bound to it)
    _s("smi-no-devices", "no devices were found|unable to determine the device handle",
       r"^\W*(?:nvidia-smi:\s*)?no devices were found\W*$|"
       r"unable to determine the device handle for gpu\s*[0-9a-f:.]+: (?:not found|unknown error)",
       {"gpu-init": 1.5, "gpu-unsupported": 1.0, "nouveau": 0.5, "xid": 0.5}, (SMI, LOG),
       examples=(_x("No devices were found", GH + "NVIDIA/open-gpu-kernel-modules/issues/1104"),
                 _x("Unable to determine the device handle for GPU 0000:D8:00.0: Not Found",
                    GH + "NVIDIA/open-gpu-kernel-modules/issues/259"))),
    _s("nvml-gpu-lost", "gpu is lost|error_gpu_is_lost",
       # NVML's string for NVML_ERROR_GPU_IS_LOST ("GPU is lost"), as go-nvml's Error() puts
       # it at the end of whatever call failed (a device plugin's topology or health query)
       r"gpu is lost\.?\s+reboot the system to recover|error_gpu_is_lost|"
       r"(?:nvlink|device|handle|state|info|count)[^:]{0,40}: gpu is lost\b",
       {"xid": 3.0, "unhealthy": 1.5}, (SMI, LOG, STATUS), True,
       examples=(_x("Unable to determine the device handle for GPU 0000:C1:00.0: GPU is lost.  "
                    "Reboot the system to recover this GPU",
                    GH + "NVIDIA/k8s-device-plugin/issues/231"),
                 _x("Marking device GPU-5c0f as unhealthy: ERROR_GPU_IS_LOST",
                    DP + "internal/rm/health.go"),
                 _x("error getting list of preferred allocation devices: unable to get device "
                    "link information: error getting NVLink for devices (0, 1): failed to get "
                    "nvlink remote pci info: failed to get nvlink state: GPU is lost",
                    # go-gpuallocator's "failed to get nvlink state: %v" over NVML's
                    # NVML_ERROR_GPU_IS_LOST (vendor/github.com/NVIDIA/go-nvml/pkg/nvml/
                    # nvml.h), wrapped by internal/rm/nvml_manager.go and
                    # internal/plugin/server.go
                    DP + "vendor/github.com/NVIDIA/go-gpuallocator/internal/links/device.go"))),
    # ---- driver container / host driver (seed §3; CODES.md GX403) -------------------------------
    # kmod finds no module built for the running kernel (tools/modprobe.c): the driver was
    # never built for it (a kernel upgraded under it, or the build failed), not a refusal
    _s("module-not-built", "not found in directory",
       r"module nvidia(?:[_-](?:uvm|modeset|drm))? not found in directory",
       {"kernel-upgraded": 2.0, "kernel-headers": 1.0, "driver-failing": 0.5}, (LOG, DMESG),
       examples=(_x("modprobe: FATAL: Module nvidia not found in directory "
                    "/lib/modules/5.15.0-1034-aws", "kmod-project/kmod@v31:tools/modprobe.c"),)),
    # the GPUDirect RDMA module alone missing: the driver itself loaded, and the install that
    # ran did not build or place nvidia-peermem for this kernel (the operator's peermem sidecar
    # modprobes it from the driver's /lib/modules: NVIDIA/gpu-operator@v24.9.0:assets/
    # state-driver/0500_daemonset.yaml ``nvidia-peermem-ctr``): the driver install's path,
    # not a kernel that changed under it
    _s("peermem-not-built", "not found in directory",
       r"module nvidia[_-]peermem not found in directory",
       {"driver-failing": 1.5, "kernel-upgraded": 0.5}, (LOG, DMESG),
       examples=(_x("modprobe: FATAL: Module nvidia-peermem not found in directory "
                    "/lib/modules/6.8.0-1059-azure", "kmod-project/kmod@v31:tools/modprobe.c"),)),
    # the kernel refusing a module built against another kernel's symbols
    _s("module-symbol-mismatch", "disagrees about version of symbol|unknown symbol",
       r"nvidia[\w-]*: (?:disagrees about version of symbol|unknown symbol \S+ \(err)",
       {"kernel-upgraded": 2.0, "kernel-headers": 1.0}, (DMESG, LOG),
       examples=(_x("nvidia: disagrees about version of symbol module_layout",
                    "torvalds/linux@v6.8:kernel/module/version.c"),
                 _x("nvidia: Unknown symbol drm_gem_object_free (err -2)",
                    "torvalds/linux@v6.8:kernel/module/main.c"))),
    # a new kernel arriving: unattended-upgrades' own log, and DKMS's kernel hook finding no
    # headers to rebuild the module for it
    _s("kernel-upgrade-log", "packages that will be upgraded|postinst.d/dkms",
       r"packages that will be upgraded: .*\blinux-(?:image|modules|headers|generic|aws|azure|"
       r"gcp|oracle)|run-parts: executing /etc/kernel/postinst\.d/dkms \S+",
       {"kernel-upgraded": 2.5}, (LOG, JOURNAL),
       examples=(_x("2024-05-02 06:25:11,032 INFO Packages that will be upgraded: linux-aws "
                    "linux-headers-aws linux-image-aws",
                    "mvo5/unattended-upgrades@2.9:unattended-upgrade"),
                 _x("run-parts: executing /etc/kernel/postinst.d/dkms 5.15.0-91-generic "
                    "/boot/vmlinuz-5.15.0-91-generic",
                    "dell/dkms@v3.0.10:kernel_postinst.d_dkms"))),
    _s("dkms-headers-missing", "your kernel headers for kernel",
       r"your kernel headers for kernel \S+ cannot be found",
       {"kernel-headers": 2.5, "kernel-upgraded": 1.0}, (LOG, JOURNAL),
       examples=(_x("Error! Your kernel headers for kernel 5.15.0-91-generic cannot be found at "
                    "/lib/modules/5.15.0-91-generic/build or /lib/modules/5.15.0-91-generic/"
                    "source.", "dell/dkms@v3.0.10:dkms.in"),)),
    _s("insert-nvidia-failed", "nvidia|unable to load the kernel module",
       r"could not insert '?nvidia|modprobe: (?:fatal|error): (?!module \S+ not found)"
       r"(?!module \S+ is in use).*nvidia|"
       r"unable to load the kernel module\b|unable to load the '?nvidia(?:\.ko)?'?",
       {"nouveau": 1.0, "secure-boot": 1.0, "kernel-headers": 0.25}, (LOG, DMESG, VALIDATOR),
       examples=(_x("modprobe: ERROR: could not insert 'nvidia': No such device",
                    "kmod-project/kmod@v31:tools/modprobe.c"),
                 _x("ERROR: Unable to load the kernel module 'nvidia.ko'.  This happens most "
                    "frequently when this kernel module was built against the wrong or "
                    "improperly configured kernel sources", INST + "kernel.c"))),
    _s("nvrm-probe-failed", "nvrm",
       r"nvrm: no nvidia devices probed",
       {"nouveau": 1.0, "secure-boot": 0.5, "gpu-init": 0.5}, (DMESG, LOG),
       examples=(_x("NVRM: No NVIDIA devices probed.", OGKM + "kernel-open/nvidia/nv.c"),)),
    # the count of devices whose probe failed: the module loaded, and that many GPUs stay out
    # of every count the node advertises (seed §6); why they failed, the lines before tell
    _s("nvrm-probe-failed-count", "probe routine failed",
       r"nvrm: the nvidia probe routine failed for \d+ device",
       {"gpus-missing": 1.25, "nouveau": 1.0, "secure-boot": 0.5, "gpu-init": 0.5},
       (DMESG, LOG),
       examples=(_x("NVRM: The NVIDIA probe routine failed for 1 device(s).",
                    OGKM + "kernel-open/nvidia/nv.c"),)),
    # Another driver (nouveau, vfio-pci) owns the device, so nvidia's probe is never called.
    _s("nvrm-probe-not-called", "probe routine was not called",
       r"nvrm: the nvidia probe routine was not called", {"nouveau": 2.5}, (DMESG, LOG),
       examples=(_x("NVRM: The NVIDIA probe routine was not called for 1 device(s).",
                    OGKM + "kernel-open/nvidia/nv.c"),)),
    # the module names the driver that holds the GPU (since 550.40.07): nouveau, or its
    # successor nova-core, claimed it at boot
    _s("nvrm-bound-to-nouveau", "is already bound to",
       r"nvrm: gpu [0-9a-f:.]+ is already bound to (?:nouveau|nova)",
       {"nouveau": 4.0, "nouveau-loaded": 2.5}, (DMESG, LOG), True,
       examples=(_x("NVRM: GPU 0000:01:00.0 is already bound to nouveau.",
                    OGKM + "kernel-open/nvidia/nv-pci.c"),
                 _x("[  201.910514] NVRM: GPU 0000:01:00.0 is already bound to NovaCore.",
                    GH + "beclab/Olares/pull/3963"))),
    # lspci -k: the kernel driver bound to each device
    _s("lspci-nouveau-in-use", "kernel driver in use",
       r"^\W*kernel driver in use:\s*nouveau\b",
       {"nouveau": 4.0, "nouveau-loaded": 2.5}, (LOG,), True,
       examples=(_x("\tKernel driver in use: nouveau", "pciutils/pciutils@v3.10.0:ls-kernel.c"),)),
    _s("nvrm-init-adapter", "rminitadapter failed",
       r"rminitadapter failed", {"gpu-init": 3.5}, (DMESG, LOG), True,
       examples=(_x("NVRM: GPU 0000:3b:00.0: RmInitAdapter failed! (0x22:0x56:884)",
                    OGKM + "src/nvidia/arch/nvalloc/unix/src/osinit.c"),
                 _x("NVRM: RmInitAdapter failed! (0x26:0xffff:1227)",
                    GH + "NVIDIA/open-gpu-kernel-modules/issues/19"))),
    # the open module refusing a GPU without GSP (or, in 515, any non-data-center GPU), and the
    # proprietary module refusing a GPU that needs the open one (Blackwell)
    # and a GPU the branch dropped to a legacy one (dmesg re-wraps the lines, so each line of
    # the message is matched on its own)
    _s("nvrm-gpu-unsupported", "installed in this system|only ready for use on data center|"
       "legacy drivers|driver will ignore|driver release",
       r"installed in this system is not supported by (?:open|the)|"
       r"installed in this system requires use of the nvidia open kernel modules|"
       r"open nvidia\.ko is only ready for use on data center gpus|"
       r"supported through the nvidia [\d.x]+ legacy drivers|"
       r"the [\d.]+ nvidia driver will ignore|"
       r"^\W*(?:nvrm:\s*)?is not supported by the nvidia [\d.]+ driver release|"
       r"^\W*nvrm: nvidia [\d.]+ driver release\.",
       {"gpu-unsupported": 4.0}, (DMESG, LOG), True,
       examples=(_x("NVRM: installed in this system is not supported by open",
                    OGKM + "src/nvidia/arch/nvalloc/unix/src/osapi.c"),
                 _x("[   38.034696] NVRM: installed in this system is not supported by the",
                    GH + "NVIDIA/nvtrust/issues/55"),
                 _x("NVRM: installed in this system requires use of the NVIDIA open kernel "
                    "modules.", GH + "awslabs/amazon-eks-ami/pull/2769"),
                 _x("[    3.513141] NVRM: Open nvidia.ko is only ready for use on Data Center "
                    "GPUs.", "NVIDIA/open-gpu-kernel-modules@515.43.04:src/nvidia/arch/nvalloc/"
                    "unix/src/osinit.c"),
                 _x("NVRM:  supported through the NVIDIA 580.xx Legacy drivers. Please",
                    GH + "NixOS/nixos-hardware/issues/1880"),
                 _x("[    7.322368] NVRM:  information.  The 346.47 NVIDIA driver will ignore",
                    GH + "OpenELEC/OpenELEC.tv/pull/3969"),
                 _x("      is not supported by the NVIDIA 580.126.09 driver release.",
                    GH + "NVIDIA/aicr/issues/1858"),
                 _x("NVRM: NVIDIA 595.45.04 driver release.",
                    OGKM + "src/nvidia/arch/nvalloc/unix/src/osapi.c"))),
    # the installer (in the driver container) refusing to go on while nouveau holds the GPU
    _s("nouveau-in-use", "nouveau",
       r"nouveau kernel driver is (?:currently )?in use",
       {"nouveau": 4.0}, (LOG, DMESG, DESCRIBE), True,
       examples=(_x("WARNING: The Nouveau kernel driver is currently in use by your system.",
                    INST + "misc.c"),)),
    # the host showing nouveau loaded: lsmod's row, nouveau's own probe line
    _s("nouveau-module-loaded", "nouveau",
       r"^\s*nouveau\s+\d+\s+\d+|\bnouveau \d{4}:[0-9a-f]{2}:",
       {"nouveau": 4.0, "nouveau-loaded": 2.5}, (LOG, DMESG, DESCRIBE), True,
       examples=(_x("nouveau              2359296  0", "kmod-project/kmod@v31:tools/lsmod.c"),
                 _x("[    4.123456] nouveau 0000:3b:00.0: NVIDIA GA100 (170000a1)",
                    "torvalds/linux@v6.8:drivers/gpu/drm/nouveau/nvkm/engine/device/base.c"))),
    # ENOKEY / EKEYREJECTED from the kernel's module signature check under enforcement.
    _s("secure-boot-key", "key was rejected|required key not available",
       r"key was rejected by service|could not insert '?nvidia\S*'?: required key not available",
       {"secure-boot": 4.0}, (LOG, DMESG), True,
       examples=(_x("modprobe: ERROR: could not insert 'nvidia': Key was rejected by service",
                    "kmod-project/kmod@v31:tools/modprobe.c"),
                 _x("modprobe: ERROR: could not insert 'nvidia': Required key not available",
                    "https://en.opensuse.org/SDB:NVIDIA_drivers"))),
    # nvidia-installer's own account of a module that would not load (kernel.c
    # ignore_kernel_module_load_error): unsigned or untrusted under enforcement
    _s("installer-module-unsigned", "not signed by a key|does not trust any key|"
       "secure boot is enabled on this system|also has uefi secure boot enabled",
       r"was not signed by a key that is trusted by the kernel|"
       r"kernel does not trust any key which is capable of verifying|"
       r"secure boot is enabled on this system, so this is likely|"
       r"this system also has uefi secure boot enabled",
       {"secure-boot": 4.0}, (LOG,), True,
       examples=(_x("ERROR: The kernel module failed to load. Secure boot is enabled on this "
                    "system, so this is likely because it was not signed by a key that is "
                    "trusted by the kernel. Please try installing the driver again, and sign "
                    "the kernel module when prompted to do so.", INST + "kernel.c"),
                 _x("The signed kernel module failed to load, because the kernel does not trust "
                    "any key which is capable of verifying the module signature.",
                    "NVIDIA/nvidia-installer@470.57.02:kernel.c"),
                 _x("The target kernel has CONFIG_MODULE_SIG set, which means that it supports "
                    "cryptographic signatures on kernel modules. On some systems, the kernel may "
                    "refuse to load modules without a valid signature from a trusted key. This "
                    "system also has UEFI Secure Boot enabled; many distributions enforce module "
                    "signature verification on UEFI systems when Secure Boot is enabled.",
                    INST + "install-from-cwd.c"))),
    # the installer's "Kernel module load error: <strerror>": the errno says which look-alike
    # (EPERM/ENOKEY/EKEYREJECTED under signature enforcement, ENODEV when another driver holds
    # the GPU or none is supported, ENOEXEC/EINVAL for a module built against other sources,
    # EEXIST for modules already loaded)
    _s("installer-load-errno-signature", "kernel module load error",
       r"kernel module load error: (?:operation not permitted|required key not available|"
       r"key was rejected by service)",
       {"secure-boot": 2.5, "driver-in-use": 0.25}, (LOG,),
       examples=(_x("Kernel module load error: Operation not permitted", INST + "kernel.c"),
                 _x("Kernel module load error: Required key not available",
                    "NVIDIA/nvidia-installer@470.57.02:kernel.c"))),
    # modprobe's own words for the same errnos (kmod prints the kernel's strerror after the
    # module name): EPERM is a kernel that refuses unsigned modules (lockdown=integrity, or
    # signature enforcement), ENODEV a module loaded with no GPU it could take
    _s("modprobe-errno-signature", "could not insert",
       r"could not insert '?nvidia[\w-]*'?: operation not permitted",
       {"secure-boot": 2.5, "driver-in-use": 0.25}, (LOG, DMESG, JOURNAL),
       examples=(_x("modprobe: ERROR: could not insert 'nvidia': Operation not permitted",
                    "kmod-project/kmod@v31:tools/modprobe.c"),)),
    _s("modprobe-errno-nodev", "could not insert",
       r"could not insert '?nvidia'?: no such device",
       {"nouveau": 1.5, "gpu-unsupported": 1.0, "gpu-init": 0.5}, (LOG, DMESG, JOURNAL),
       examples=(_x("modprobe: ERROR: could not insert 'nvidia': No such device",
                    "kmod-project/kmod@v31:tools/modprobe.c"),)),
    _s("installer-load-errno-nodev", "kernel module load error",
       r"kernel module load error: no such device",
       {"nouveau": 1.5, "gpu-unsupported": 1.0, "gpu-init": 0.5}, (LOG,),
       examples=(_x("Kernel module load error: No such device", INST + "kernel.c"),)),
    _s("installer-load-errno-build", "kernel module load error",
       r"kernel module load error: (?:exec format error|invalid argument|"
       r"invalid module format|unknown symbol)",
       {"kernel-headers": 2.0}, (LOG,),
       examples=(_x("Kernel module load error: Exec format error", INST + "kernel.c"),)),
    _s("installer-load-errno-exists", "kernel module load error",
       r"kernel module load error: file exists",
       {"driver-in-use": 2.0}, (LOG,),
       examples=(_x("Kernel module load error: File exists", INST + "kernel.c"),)),
    _s("secure-boot-lockdown", "lockdown|unsigned module is rejected",
       r"lockdown: .*unsigned module loading is restricted|loading of unsigned module is rejected",
       {"secure-boot": 4.0, "secure-boot-enforced": 2.5}, (DMESG,), True,
       examples=(_x("Lockdown: modprobe: unsigned module loading is restricted; see man "
                    "kernel_lockdown.7", "torvalds/linux@v6.8:security/lockdown/lockdown.c"),
                 _x("Loading of unsigned module is rejected",
                    "torvalds/linux@v6.8:kernel/module/signing.c"))),
    _s("secure-boot-enabled", "secureboot enabled",
       r"secureboot enabled", {"secure-boot": 2.0, "secure-boot-enforced": 1.25}, (SMI, LOG),
       examples=(_x("SecureBoot enabled", "lcp/mokutil@0.7.2:src/mokutil.c"),)),
    # The module was *loaded* unsigned: signature enforcement is off, so Secure Boot did not
    # block it; and a loaded module rules out nouveau and missing headers (knowledge audit §0.2).
    _s("module-loaded-unsigned", "module verification failed",
       r"nvidia\S*: module verification failed:? signature", {}, (DMESG,),
       against=("secure-boot", "secure-boot-enforced", "nouveau", "kernel-headers"),
       examples=(_x("nvidia: module verification failed: signature and/or required key "
                    "missing - tainting kernel", "torvalds/linux@v6.8:kernel/module/main.c"),)),
    _s("nvrm-loaded", "nvrm: loading nvidia",
       r"nvrm: loading nvidia unix", {}, (DMESG,),
       against=("secure-boot", "secure-boot-enforced", "nouveau", "kernel-headers"),
       examples=(_x("NVRM: loading NVIDIA UNIX x86_64 Kernel Module  570.124.06  Tue Feb 11 "
                    "2025", GH + "NVIDIA/gpu-operator/issues/544"),)),
    _s("precompiled-missing", "linux-objects-nvidia|linux-signatures-nvidia|linux-modules-nvidia",
       r"unable to locate package linux-(?:objects|signatures|modules)-nvidia-",
       {"precompiled-kernel": 3.5}, (LOG,), True,
       examples=(_x("E: Unable to locate package linux-objects-nvidia-535-server-5.10.0-23-amd64",
                    GH + "NVIDIA/gpu-operator/issues/557"),)),
    # Ubuntu names its kernels <version>-<abi>-<flavour> (5.15.0-1034-aws, 6.8.0-35-generic);
    # the Ubuntu driver image asking apt for a kernel without that shape (6.1.51-talos,
    # 5.14.0-362.el9) runs on a node of another OS, for which no package will ever exist
    _s("driver-foreign-kernel-package", "unable to locate package linux-",
       r"unable to locate package linux-(?:objects|signatures|modules|headers|image)"
       r"[\w.+~-]*?-\d+\.\d+\.\d+(?!-\d+-[a-z])(?!\d)",
       {"driver-os-mismatch": 4.5, "precompiled-kernel": 0.5}, (LOG,), True,
       examples=(_x("E: Unable to locate package linux-objects-nvidia-535-server-6.1.51-talos",
                    DRV + "ubuntu22.04/precompiled/nvidia-driver"),
                 _x("E: Unable to locate package linux-headers-5.14.0-362.8.1.el9_3.x86_64",
                    DRV + "ubuntu22.04/nvidia-driver"))),
    _s("driver-image-kernel-tag", "nvidia/driver:",
       r"nvidia/driver:[\w.]+-\d+\.\d+\.\d+-[\w.-]+.*(?:not ?found|manifest unknown)",
       {"precompiled-kernel": 4.0}, (EVENT, DESCRIBE), True,
       examples=(_x('Failed to pull image "nvcr.io/nvidia/driver:570-5.15.0-130-generic-'
                    'ubuntu22.04": rpc error: code = NotFound desc = failed to pull and unpack '
                    'image: not found', OP + "controllers/object_controls.go"),)),
    _s("driver-image-os-tag", "nvidia/driver:",
       r"nvidia/driver:\d+\.\d+(?:\.\d+)?-[a-z]+[\d.]+\S*\s.*(?:not ?found|manifest unknown)",
       {"driver-os-mismatch": 4.0}, (EVENT, DESCRIBE), True,
       examples=(_x('Failed to pull image "nvcr.io/nvidia/driver:580.95.05-rocky9.4": rpc error: '
                    "code = NotFound desc = nvcr.io/nvidia/driver:580.95.05-rocky9.4: not found",
                    OP + "controllers/object_controls.go"),
                 _x('Failed to pull image "nvcr.io/nvidia/driver:515.65.01-buildroot2021.02.12": '
                    "rpc error: code = NotFound desc = failed to pull and unpack image",
                    GH + "NVIDIA/gpu-operator/issues/418"))),
    # The driver image's apt/yum repository cannot be trusted or reached: the install stops at
    # "Updating the package cache..." before any kernel work.
    _s("driver-repo-key", "no_pubkey|is no longer signed|public key is not available",
       r"no_pubkey [0-9a-f]{8,}|the repository '[^']*' is no longer signed|"
       r"signatures couldn't be verified because the public key is not available",
       {"driver-failing": 3.0}, (LOG,), True,
       examples=(_x("W: GPG error: https://developer.download.nvidia.com/compute/cuda/repos/"
                    "ubuntu2004/x86_64  InRelease: The following signatures couldn't be verified "
                    "because the public key is not available: NO_PUBKEY A4B469963BF863CC",
                    GH + "NVIDIA/gpu-operator/issues/344"),
                 _x("E: The repository 'https://developer.download.nvidia.com/compute/cuda/repos/"
                    "ubuntu2004/x86_64  InRelease' is no longer signed.",
                    GH + "NVIDIA/gpu-operator/issues/344"))),
    _s("kernel-source-missing", "kernel source",
       r"unable to find the kernel source tree", {"kernel-headers": 4.0}, (LOG,), True,
       examples=(_x("ERROR: Unable to find the kernel source tree for the currently running "
                    "kernel.", INST + "kernel.c"),)),
    _s("kernel-headers-missing", "linux-headers|kernel-headers|kernel-devel",
       r"unable to locate package linux-headers|linux-headers-\S+.*no installation candidate|"
       r"no package kernel-(?:headers|devel)-\S+ available|"
       r"unable to find a match: kernel-(?:headers|devel)",
       {"kernel-headers": 4.0}, (LOG,), True,
       examples=(_x("E: Unable to locate package linux-headers-5.3.0-1029-gcp",
                    GH + "GoogleCloudPlatform/container-engine-accelerators/issues/140"),
                 _x("Error: Unable to find a match: kernel-headers-4.18.0-193.29.1.el8_2.x86_64",
                    GH + "NVIDIA/gpu-operator/issues/110"))),
    _s("kernel-version-unresolved", "could not resolve linux kernel version|"
       "could not locate linux kernel version|unable to resolve rhel version",
       r"could not (?:resolve|locate) linux kernel version|"
       r"unable to resolve rhel version from kernel version", {"kernel-headers": 2.0,
                                                               "precompiled-kernel": 1.0}, (LOG,),
       examples=(_x("Could not resolve Linux kernel version", DRV + "rhel8/nvidia-driver"),
                 _x("Could not locate Linux kernel version string",
                    DRV + "ubuntu22.04/nvidia-driver"),
                 _x("Unable to resolve RHEL version from kernel version",
                    DRV + "rhel9/nvidia-driver"))),
    # ---- the API server refusing the device plugin's DaemonSet --------------------------------
    # creating or updating it is forbidden (RBAC, Pod Security admission, an admission policy
    # such as a managed cluster's protected system namespaces): the plugin never runs, so no
    # node registers nvidia.com/gpu (apimachinery's Forbidden: `%s "%s" is forbidden: %v`;
    # the ValidatingAdmissionPolicy dispatcher's "... with binding '%s' denied request: %s")
    _s("plugin-daemonset-forbidden", "is forbidden",
       r'daemonsets(?:\.apps)? \\?"[\w.-]*device-plugin[\w.-]*\\?" is forbidden: ',
       {"not-advertised": 2.5}, (LOG, EVENT, STATUS, DESCRIBE), True,
       examples=(_x('Error from server (Forbidden): error when creating "/tmp/dp.yaml": '
                    'daemonsets.apps "nvidia-device-plugin-daemonset" is forbidden: '
                    "ValidatingAdmissionPolicy 'aks-managed-protect-system-namespaces' with "
                    "binding 'aks-managed-protect-system-namespaces-binding' denied request: "
                    "Modification of resources in managed system namespaces is not allowed",
                    GH + "GoogleCloudPlatform/PerfKitBenchmarker/pull/6795"),
                 _x('Error from server (Forbidden): daemonsets.apps '
                    '"nvidia-device-plugin-daemonset" is forbidden: User "dev" cannot create '
                    'resource "daemonsets" in API group "apps" in the namespace "kube-system"',
                    K + "staging/src/k8s.io/apiserver/pkg/endpoints/handlers/responsewriters/"
                    "errors.go"))),
    # the driver container starting on an Amazon Linux 2 kernel: NVIDIA/gpu-driver-container
    # has images for Ubuntu, RHEL/CentOS, SLES, Photon, Debian and Amazon Linux 2023 (its
    # directories over its whole history, 06a208ca) and never one for Amazon Linux 2, whose
    # kernels carry ".amzn2." (2023's carry ".amzn2023."), so no driver image fits the node
    _s("driver-kernel-amzn2", "amzn2",
       r"starting installation of nvidia driver version \S+ for linux kernel version "
       r"\S+\.amzn2\.",
       {"driver-os-mismatch": 2.0, "kernel-headers": 0.5}, (LOG,),
       examples=(_x("Starting installation of NVIDIA driver version 460.73.01 for Linux kernel "
                    "version 4.14.232-177.418.amzn2.x86_64",
                    GH + "NVIDIA/gpu-operator/issues/227"),)),
    # the driver container cannot reach its package repositories: the kernel headers (or the
    # precompiled packages) it needs cannot be fetched
    _s("driver-package-cache", "failed to update package cache",
       r"error: failed to update (?:the )?package cache",
       {"kernel-headers": 2.0, "precompiled-kernel": 1.0, "driver-failing": 1.0}, (LOG,),
       examples=(_x("ERROR: Failed to update package cache. Ensure that the cluster can access "
                    "the proper networks.", DRV + "ubuntu22.04/nvidia-driver"),)),
    # the RHEL/OpenShift flavours of the same: the repositories (or the entitlement that opens
    # them) are out of reach, so kernel-devel/elfutils for the running kernel cannot be had
    # apt/dnf in the driver container cannot reach a repository (DNS, proxy, firewall): the
    # headers or packages never arrive
    _s("driver-repo-unreachable", "temporary failure resolving|resolve host|failed to fetch http",
       r"temporary failure resolving '|could not resolve host|couldn't resolve host name|"
       r"^\W*(?:e|w|err):?\s*failed to fetch https?://",
       {"driver-failing": 1.5, "kernel-headers": 0.5}, (LOG,),
       examples=(_x("Temporary failure resolving 'archive.ubuntu.com'",
                    "Debian/apt@2.4.5:methods/connect.cc"),
                 _x("E: Failed to fetch http://archive.ubuntu.com/ubuntu/dists/jammy/InRelease  "
                    "Temporary failure resolving 'archive.ubuntu.com'",
                    "Debian/apt@2.4.5:apt-pkg/update.cc"),
                 _x("Curl error (6): Couldn't resolve host name for https://cdn.redhat.com/",
                    "curl/curl@curl-8_5_0:lib/strerror.c"))),
    _s("driver-rhel-repos", "rhel package repositories|rhel entitlement|dnf metadata cache",
       r"failed to reach rhel package repositories|rhel entitlement may be improperly deployed|"
       r"failed to update the dnf metadata cache",
       {"kernel-headers": 2.5, "driver-failing": 1.0}, (LOG,),
       examples=(_x("FATAL: failed to reach RHEL package repositories. Ensure that the cluster "
                    "can access the proper networks.", DRV + "rhel8/nvidia-driver"),
                 _x("FATAL: failed to install elfutils packages. RHEL entitlement may be "
                    "improperly deployed.", "NVIDIA/gpu-driver-container@22.04.19:rhel8/"
                    "nvidia-driver"),
                 _x("FATAL: failed to install elfutils-libel-devel. RHEL entitlement may be "
                    "improperly deployed.", DRV + "rhel8/nvidia-driver"),
                 _x("FATAL: failed to update the dnf metadata cache after multiple attempts with "
                    "releasevers 9.4, 9", DRV + "rhel8/nvidia-driver"))),
    # vGPU guests: the manager finds no vGPU devices or no driver that matches the host's
    _s("driver-vgpu-match", "vgpu devices on host|compatible vgpu driver",
       r"cannot find vgpu devices on host|cannot find match for compatible vgpu driver",
       {"driver-failing": 2.5}, (LOG,), True,
       examples=(_x("cannot find vgpu devices on host, pleae check /var/log/vgpu-util.log for "
                    "more details...", DRV + "rhel8/nvidia-driver"),
                 _x("cannot find match for compatible vgpu driver from available list, please "
                    "check /var/log/vgpu-util.log for more details...",
                    DRV + "ubuntu22.04/nvidia-driver"))),
    # a daemon that holds the modules would not stop (the step before the unload attempt)
    _s("driver-daemon-wont-stop", "could not stop",
       r"could not stop (?:the )?(?:nvidia (?:persistence|fabric manager|grid|topology) daemon|"
       r"nvlink subnet manager daemon)",
       {"driver-in-use": 3.0}, (LOG,), True,
       examples=(_x("Could not stop NVIDIA persistence daemon", DRV + "ubuntu22.04/nvidia-driver"),
                 _x("Could not stop NVIDIA fabric manager daemon", DRV + "rhel9/nvidia-driver"),
                 _x("Could not stop NVLink Subnet Manager daemon",
                    DRV + "ubuntu22.04/nvidia-driver"))),
    _s("fm-config-missing", "cannot configure fabric manager",
       r"not found; cannot configure fabric manager", {"fm-missing": 2.5}, (LOG,),
       examples=(_x("WARNING: /usr/share/nvidia/nvswitch/fabricmanager.cfg not found; cannot "
                    "configure Fabric Manager", DRV + "ubuntu22.04/nvidia-driver"),)),
    _s("driver-in-use", "driver is in use",
       r"could not unload nvidia driver kernel modules, driver is in use",
       {"driver-in-use": 4.0}, (LOG,), True,
       examples=(_x("Could not unload NVIDIA driver kernel modules, driver is in use",
                    DRV + "rhel8/nvidia-driver"),)),
    # nvidia-installer finding an NVIDIA module still loaded after it tried to unload it (the
    # wording swapped "already be" for "be already" in 545.23.06)
    _s("installer-module-loaded", "appears to already be loaded|appears to be already loaded",
       r"an nvidia kernel module '[\w-]+' appears to (?:already be|be already) loaded",
       {"driver-in-use": 3.5}, (LOG,), True,
       examples=(_x("ERROR: An NVIDIA kernel module 'nvidia-uvm' appears to already be loaded in",
                    "NVIDIA/nvidia-installer@418.56:kernel.c"),
                 _x("WARNING: An NVIDIA kernel module 'nvidia' appears to be already loaded in "
                    "your kernel.", INST + "kernel.c"))),
    # systemd with no unit for the OS's own driver service (Flatcar's nvidia.service, which
    # older releases, 3033 among them, do not ship): nothing installs a driver on the host
    _s("driver-service-absent", "unit nvidia",
       r"unit (?:nvidia|nvidia-driver)\.service (?:not found|could not be found)",
       {"host-driver-absent": 2.0}, (LOG, JOURNAL), False,
       examples=(_x("Failed to restart nvidia.service: Unit nvidia.service not found.",
                    GH + "flatcar/Flatcar/issues/1162"),)),
    # nvidia-installer --kernel-modules-only (what the driver container runs) finding a module
    # file its own earlier install registered: a restarted driver container whose cleanup
    # missed the previous install's files (NVIDIA/gpu-driver-container#1)
    _s("installer-file-exists", "already exists as part of this driver installation",
       r"the file '[^']+' already exists as part of this driver installation",
       {"driver-install-leftover": 4.0}, (LOG,), True,
       examples=(_x("ERROR: The file '/lib/modules/5.19.0-32-generic/kernel/drivers/video/"
                    "nvidia.ko' already exists as part of this driver installation.",
                    INST + "command-list.c"),)),
    # k8s-driver-manager (the driver pod's init container) preparing the node: nouveau it cannot
    # unload, NVIDIA modules it cannot remove while GPU clients hold them
    _s("driver-manager-nouveau", "unload nouveau driver",
       r"failed to unload nouveau driver",
       {"nouveau": 3.5}, (LOG,), True,
       examples=(_x("Failed to unload nouveau driver",
                    "NVIDIA/k8s-driver-manager@v0.6.0:driver-manager"),
                 _x("failed to unload nouveau driver: exit status 1",
                    "NVIDIA/k8s-driver-manager@v0.12.0:cmd/driver-manager/main.go"))),
    _s("driver-manager-cleanup", "driver modules|nvidia driver components|gpu pods are drained|"
       "drain node of gpu pods",
       r"unable to cleanup driver modules|failed to uninstall nvidia driver components|"
       r"cannot proceed until all gpu pods are drained|failed to drain node of gpu pods",
       {"driver-in-use": 2.5, "upgrade-failed": 0.5}, (LOG,),
       examples=(_x("Unable to cleanup driver modules, attempting again with node drain...",
                    "NVIDIA/k8s-driver-manager@v0.6.0:driver-manager"),
                 _x("Failed to uninstall nvidia driver components",
                    "NVIDIA/k8s-driver-manager@v0.12.0:cmd/driver-manager/main.go"),
                 _x("Cannot proceed until all GPU pods are drained from the node. Exiting.",
                    "NVIDIA/k8s-driver-manager@v0.6.0:driver-manager"))),
    # kmod refusing to remove a module a client holds (the host's display stack, a GPU pod)
    _s("rmmod-nvidia-in-use", "is in use",
       r"(?:rmmod|modprobe): (?:error|fatal): module nvidia\w* is in use",
       {"driver-in-use": 3.0}, (LOG,), True,
       examples=(_x("rmmod: ERROR: Module nvidia is in use by: nvidia_uvm nvidia_modeset",
                    "kmod-project/kmod@v31:tools/rmmod.c"),
                 _x("modprobe: FATAL: Module nvidia_modeset is in use.",
                    "kmod-project/kmod@v31:tools/modprobe.c"))),
    # the operator's upgrade controller (k8s-operator-libs) moving a node towards
    # upgrade-failed: the new driver pod keeps restarting, the node will not drain, the
    # validation after the upgrade times out
    _s("upgrade-controller-stuck", "repeated restarts|failed to drain node|drain pod failed|"
       "cannot delete all required pods|timeout exceeded for validation",
       r"driver pod is failing on node with repeated restarts|failed to drain node|"
       r"drain pod failed|cannot delete all required pods|"
       r"timeout exceeded for (?:validation|job completions), updated the node state",
       {"upgrade-failed": 2.5, "driver-failing": 0.5, "driver-in-use": 0.5}, (LOG,),
       examples=(_x('INFO upgrade Driver pod is failing on node with repeated restarts '
                    '{"node": "gpu-node-1", "pod": "nvidia-driver-daemonset-x8k2p"}',
                    OP + "vendor/github.com/NVIDIA/k8s-operator-libs/pkg/upgrade/"
                    "common_manager.go"),
                 _x('ERROR upgrade Failed to drain node {"node": "gpu-node-1", "error": "error '
                    'when evicting pods/\"train-0\" -n \"ml\": global timeout reached: 5m0s"}',
                    OP + "vendor/github.com/NVIDIA/k8s-operator-libs/pkg/upgrade/"
                    "drain_manager.go"),
                 _x('INFO upgrade Timeout exceeded for validation, updated the node state '
                    '{"node": "gpu-node-1", "state": "upgrade-failed"}',
                    OP + "vendor/github.com/NVIDIA/k8s-operator-libs/pkg/upgrade/"
                    "validation_manager.go"))),
    _s("upgrade-failed-label", "upgrade-failed",
       r"gpu-driver-upgrade-state[=:]\s*\"?upgrade-failed", {"upgrade-failed": 4.0},
       (DESCRIBE, LOG), True,
       examples=(_x("nvidia.com/gpu-driver-upgrade-state=upgrade-failed",
                    OP + "vendor/github.com/NVIDIA/k8s-operator-libs/pkg/upgrade/consts.go"),)),
    # ---- Fabric Manager (seed §1, §3) -----------------------------------------------------------
    _s("system-not-initialized", "system not yet initialized",
       r"system not yet initialized", {"fm-missing": 1.5, "fm-version": 1.0},
       (VALIDATOR, LOG, SMI),
       examples=(_x("Error 802: system not yet initialized",
                    GH + "dstackai/dstack/issues/2348"),)),
    _s("fm-unit-missing", "fabricmanager",
       r"unit nvidia-fabricmanager\.service (?:could not be found|not found)|"
       r"nvidia-fabricmanager\.service: (?:unit|loaded: not-found)",
       {"fm-missing": 4.0}, (JOURNAL, LOG, SMI), True,
       examples=(_x("Unit nvidia-fabricmanager.service could not be found.",
                    "systemd/systemd@v255:src/systemctl/systemctl-show.c"),
                 _x("Failed to start nvidia-fabricmanager.service: Unit "
                    "nvidia-fabricmanager.service not found.",
                    "systemd/systemd@v255:src/systemctl/systemctl-start-unit.c"))),
    # The driver container starts Fabric Manager through the package's start script; options the
    # script does not know make it print its usage and exit, so Fabric Manager never runs.
    _s("fm-start-script-usage", "nvidia-fabricmanager-start.sh",
       r"usage: \S*nvidia-fabricmanager-start\.sh", {"fm-missing": 2.5}, (LOG, JOURNAL),
       examples=(_x("Usage: /usr/bin/nvidia-fabricmanager-start.sh [script options] --args "
                    "[arguments to run fabric manager]",
                    GH + "NVIDIA/gpu-operator/issues/1595"),)),
    # systemd's lines for a Fabric Manager unit that ran and exited (a bad config, a driver
    # it does not match): stopped is "absent" to the GPUs, the version check tells which.
    _s("fm-unit-failed", "nvidia-fabricmanager.service|nvidia fabric manager",
       r"nvidia-fabricmanager\.service: (?:(?:main|control) process exited, "
       r"code=(?:exited|killed|dumped), status=[1-9]|failed with result)|"
       r"failed to start nvidia fabric ?manager|"
       r"job for nvidia-fabricmanager\.service failed",
       {"fm-missing": 2.5, "fm-version": 1.0}, (JOURNAL, LOG, SMI),
       examples=(_x("nvidia-fabricmanager.service: Main process exited, code=exited, "
                    "status=1/FAILURE", "systemd/systemd@v255:src/core/service.c"),
                 _x("nvidia-fabricmanager.service: Failed with result 'exit-code'.",
                    "systemd/systemd@v255:src/core/service.c"),
                 _x("Failed to start NVIDIA fabric manager service.",
                    "systemd/systemd@v255:src/core/job.c"),
                 _x("nvidia-fabricmanager.service: Control process exited, code=exited, "
                    "status=1/FAILURE", "systemd/systemd@v255:src/core/service.c"),
                 _x("Job for nvidia-fabricmanager.service failed because the control process "
                    "exited with error code.",
                    "systemd/systemd@v255:src/systemctl/systemctl-start-unit.c"))),
    # Fabric Manager's own exit: started where its NVSwitch driver reports nothing to manage
    # (no NVSwitch, or the wrong FM flavour for the system), or its start script giving up
    _s("fm-start-failed", "nvswitch device information|nv-fabricmanager",
       r"request to query nvswitch device information from nvswitch driver failed|"
       r"nv-fabricmanager [^\n]{0,200}\bfailed! exit code: [1-9]",
       {"fm-missing": 2.5, "fm-version": 0.75}, (JOURNAL, LOG),
       examples=(_x("nv-fabricmanager[4177]: request to query NVSwitch device information from "
                    "NVSwitch driver failed with error:WARNING Nothing to do "
                    "[NV_WARN_NOTHING_TO_DO]", GH + "NVIDIA/gpu-operator/issues/610"),
                 _x('nvidia-fabricmanager-start.sh[4753]: "/usr/bin/nv-fabricmanager -c '
                    '/usr/share/nvidia/nvswitch/fabricmanager.cfg" failed! Exit code: 1',
                    GH + "data-infra/cube-studio/issues/29"))),
    # NVLink5+ systems run the NVLink subnet manager (nvlsm) beside Fabric Manager; it needs the
    # ib_umad module (the driver container waits for it) and stops at libibumad's init without
    _s("fm-nvlsm-umad", "umad_init",
       r"umad_init: can't read abi version from .*is ib_umad module loaded",
       {"fm-missing": 2.5}, (JOURNAL, LOG),
       examples=(_x("ibwarn: [15] umad_init: can't read ABI version from /sys/class/"
                    "infiniband_mad/abi_version (No such file or directory): is ib_umad module "
                    "loaded?", "linux-rdma/rdma-core@v50.0:libibumad/umad.c"),)),
    # NCCL's NVLink SHARP transport failing a CUDA call: NVLS builds multicast objects over the
    # NVSwitches, which Fabric Manager sets up; one stopped, or restarted without the GPUs
    # being reset, leaves the multicast calls failing (NVIDIA/nccl issue 1488)
    _s("fm-nccl-nvls-cuda", "nvls.cc",
       r"transport/nvls\.cc:\d+ nccl warn cuda failure",
       {"fm-missing": 1.5}, (LOG,),
       examples=(_x("node23:12098:12141 [2] transport/nvls.cc:244 NCCL WARN Cuda failure 1 "
                    "'invalid argument'", "NVIDIA/nccl@v2.21.5-1:src/include/checks.h"),
                 _x("gpu47:4962:5097 [1] transport/nvls.cc:223 NCCL WARN Cuda failure 999 "
                    "'unknown error'", "NVIDIA/nccl@v2.21.5-1:src/transport/nvls.cc"))),
    _s("fm-state-inactive", "activestate=",
       r"^activestate=(?:inactive|failed)", {"fm-missing": 1.5}, (SMI,),
       examples=(_x("ActiveState=inactive",
                    "systemd/systemd@v255:src/systemctl/systemctl-show.c"),)),
    _s("fm-version-mismatch", "driver interface version",
       r"driver interface version \S+ (?:don'?t|doesn'?t|don’t|do not|does not) match with "
       r"driver version",
       {"fm-version": 4.0}, (JOURNAL, LOG), True,
       examples=(_x("nv-fabricmanager[3228]: fabric manager NVIDIA GPU driver interface version "
                    "530.30.02 don't match with driver version 530.41.03. Please update with "
                    "matching NVIDIA driver package.", GH + "NVIDIA/gpu-operator/issues/544"),
                 _x("fabric manager NVIDIA GPU driver interface version 590.48.01 don't match "
                    "with driver version 580.126.09.",
                    GH + "NVIDIA/gpu-driver-container/issues/735"))),
    # ---- DCGM exporter (seed §1) ----------------------------------------------------------------
    _s("dcgm-cannot-connect", "hostengine",
       r"error connecting to nv-hostengine|failed to connect to remote hostengine|"
       r"unable to connect to the remote hostengine",
       {"dcgm-connect": 4.0}, (LOG,), True,
       examples=(_x('level=fatal msg="Error connecting to nv-hostengine: Host engine connection '
                    'invalid/disconnected"', "NVIDIA/go-dcgm@v0.0.0-20240118:pkg/dcgm/admin.go"),
                 _x('level=ERROR msg="Failed to connect to remote hostengine" '
                    'address=nvidia-dcgm:5555',
                    "NVIDIA/dcgm-exporter@4.5.3-4.8.2:internal/pkg/dcgmprovider/dcgm.go"))),
    # the exporter maps GPUs to pods through kubelet's pod-resources API; without the socket it
    # exits (or drops the pod labels)
    _s("dcgm-pod-resources", "failure connecting to|failure getting pod resources",
       r"failure connecting to '?\S*pod-resources|failure getting pod resources",
       {"dcgm-pod-resources": 3.5}, (LOG,), True,
       examples=(_x('level=ERROR msg="failure connecting to \'/var/lib/kubelet/pod-resources/'
                    'kubelet.sock\'; err: context deadline exceeded"',
                    "NVIDIA/dcgm-exporter@4.5.3-4.8.2:internal/pkg/transformation/"
                    "kubernetes.go"),
                 _x("failure connecting to /var/lib/kubelet/pod-resources/kubelet.sock: context "
                    "deadline exceeded",
                    "NVIDIA/dcgm-exporter@2.3.1-2.6.0:pkg/dcgmexporter/kubernetes.go"),
                 _x("failure getting pod resources rpc error: code = Unimplemented desc = unknown "
                    "service v1alpha1.PodResourcesLister",
                    "NVIDIA/dcgm-exporter@2.3.1-2.6.0:pkg/dcgmexporter/kubernetes.go"))),
    # dcgm-exporter's smart init tried the embedded engine and the remote one; neither came up
    _s("dcgm-both-failed", "both embedded and remote dcgm failed",
       r"both embedded and remote dcgm failed", {"dcgm-connect": 3.5}, (LOG,), True,
       examples=(_x('level=ERROR msg="Both embedded and remote DCGM failed: libdcgm.so not '
                    'Found"',
                    "NVIDIA/dcgm-exporter@4.5.3-4.8.2:internal/pkg/dcgmprovider/smart_init.go"),)),
    _s("dcgm-exporter-nvml", "init nvml library",
       r"cannot init nvml library; err:|can not init nvml library",
       {"nvml-init": 2.0, "runtime-not-default": 1.0}, (LOG,),
       examples=(_x('level=ERROR msg="Cannot init NVML library; err: ERROR_LIBRARY_NOT_FOUND"',
                    "NVIDIA/dcgm-exporter@4.5.3-4.8.2:internal/pkg/nvmlprovider/provider.go"),
                 _x('level=error msg="Can not init NVML library."',
                    "NVIDIA/dcgm-exporter@3.3.5-3.4.1:internal/pkg/nvmlprovider/provider.go"))),
    _s("dcgm-profiling", "profiling|not collecting dcp metrics",
       r"profiling is not supported for this group of gpus|"
       r"not collecting dcp metrics: .*module of dcgm that is not currently loaded",
       {"dcgm-profiling": 3.5}, (LOG,), True,
       examples=(_x('level=fatal msg="Error watching fields: Profiling is not supported for '
                    'this group of GPUs or GPU"',
                    GH + "NVIDIA/gpu-monitoring-tools/issues/119"),
                 _x('level=INFO msg="Not collecting DCP metrics: This request is serviced by a '
                    'module of DCGM that is not currently loaded"',
                    "NVIDIA/dcgm-exporter@4.5.3-4.8.2:pkg/cmd/app.go"))),
    _s("dcgm-watch-unsupported", "error watching fields",
       r"error watching fields: (?:feature not supported|profiling is not supported|"
       r"this request is serviced by a module of dcgm that is not currently loaded)",
       {"dcgm-profiling": 3.0}, (LOG,), True,
       examples=(_x('level=fatal msg="Error watching fields: Feature not supported"',
                    "NVIDIA/dcgm-exporter@a6f742d5:bindings/go/dcgm/fields.go"),
                 _x('level=fatal msg="Error watching fields: This request is serviced by a module '
                    'of DCGM that is not currently loaded"',
                    GH + "NVIDIA/gpu-monitoring-tools/issues/141"))),
    # DCGM_ST_PROFILING_LIBRARY_ERROR: the profiling library itself failed on the GPU, not a GPU
    # it does not support; a GPU whose queries fail (the GSP firmware faults of some driver
    # branches) is one way there, so the exporter's failure may be the driver's
    _s("dcgm-profiling-library-error", "profiling module returned an unrecoverable error",
       r"third-party profiling module returned an unrecoverable error",
       {"dcgm-profiling": 2.0, "nvml-gpu-error": 1.25}, (LOG,),
       examples=(_x('level=fatal msg="Failed to watch metrics: Error watching fields: The '
                    'third-party Profiling module returned an unrecoverable error"',
                    GH + "NVIDIA/dcgm-exporter/issues/126"),)),
    _s("dcgm-fr", "dcgm_st_",
       r"dcgm_st_(?:in_use|profiling_not_supported|not_supported)",
       {"dcgm-profiling": 2.5}, (LOG,), True,
       examples=(_x("DCGM_ST_PROFILING_NOT_SUPPORTED", "NVIDIA/DCGM@v4.2.3:dcgmlib/dcgm_errors.h")
                 ,)),
    # The toolkit's runtime wrapper falls back to plain runc while the driver is not loaded: an
    # operand started then (dcgm, the plugin) runs without NVML until it is restarted.
    _s("runtime-wrapper-no-driver", "not yet loaded, invoking",
       r"nvidia driver modules are not yet loaded, invoking \S+ directly",
       {"dcgm-connect": 1.0, "operand-init": 1.0, "nvml-init": 1.0}, (LOG, EVENT, STATUS),
       examples=(_x("nvidia driver modules are not yet loaded, invoking runc directly",
                    "NVIDIA/nvidia-container-toolkit@v1.17.8:tools/container/toolkit/runtime.go"),
                 _x("nvidia driver modules are not yet loaded, invoking /usr/local/bin/runc "
                    "directly", CTK + "cmd/nvidia-ctk-installer/toolkit/installer/"
                    "executables.go"))),
    # ---- MIG (facts.md §5.2, §6.3) --------------------------------------------------------------
    # NVML_ERROR_NO_PERMISSION on MIG queries: the container lacks NVIDIA_MIG_MONITOR_DEVICES.
    _s("mig-monitor-permission", "insufficient permissions|insufficient p",
       r"(?:error getting device(?: memory info| handle)?|error getting device|nvml|"
       r"error getting mig mode): insufficient permissions|"
       r"error getting device memory info: insufficient p",
       {"mig-monitor": 3.5}, (LOG,), True,
       examples=(_x("error starting plugins: unable to add default resources to config: error "
                    "visiting devices: error visiting device: error getting device memory info: "
                    "Insufficient Permissions",
                    "NVIDIA/k8s-device-plugin@v0.15.0:vendor/github.com/NVIDIA/go-nvlib/pkg/"
                    "nvlib/device/device.go"),
                 _x("Unexpected error: Error generating NVML labels: Error generating common "
                    "labels: Error getting device: nvml: Insufficient Permissions",
                    GH + "NVIDIA/gpu-operator/issues/322"),
                 _x("error getting mig capability: error getting MIG mode: Insufficient "
                    "Permissions", "NVIDIA/gpu-feature-discovery@v0.8.2:internal/lm/nvml.go"))),
    # GFD's "Invalid configuration detected for mig-strategy=single: …" lines are the MIG
    # strategy against the layout (GX419): knowledge/signatures_config.py
    _s("mig-apply-error", "mig",
       r"error applying mig configuration|failed to (?:apply|validate) mig configuration|"
       r"unable to apply mig config|"
       r"mig mode is currently enabled, but the configuration specifies|"
       r"error applying mig (?:config|mode)\b|mig mode change did not take effect|"
       r"unable to validate the selected mig configuration|"
       r"error clearing mig config on gpu \d+|mig profile \S+ not found on this gpu",
       {"mig-failed": 4.0}, (LOG,), True,
       examples=(_x("Error applying MIG config", MIG + "deployments/systemd/service.sh"),
                 _x("Error applying MIG mode", MIG + "deployments/systemd/service.sh"),
                 _x("MIG mode change did not take effect after rebooting",
                    MIG + "deployments/container/reconfigure-mig.sh"),
                 _x("Unable to validate the selected MIG configuration",
                    MIG + "deployments/container/reconfigure-mig.sh"),
                 _x('level=error msg="Error clearing MIG config on GPU 3, erroneous devices may '
                    'persist"', MIG + "pkg/mig/config/config.go"),
                 _x('MIG profile "1g.10gb" not found on this GPU',
                    MIG + "pkg/mig/config/config.go"),
                 _x("Error applying MIG configuration with hooks: error enabling MIG mode",
                    MIG + "cmd/nvidia-mig-parted/apply/apply.go"),
                 _x("failed to apply MIG configuration: error setting MIG mode",
                    MIG + "pkg/mig/reconfigure/reconfigure.go"),
                 _x("failed to validate MIG configuration: unknown config 'all-3g.40gb'",
                    MIG + "pkg/mig/reconfigure/reconfigure.go"),
                 _x("unable to apply MIG config with MIG mode disabled",
                    MIG + "cmd/nvidia-mig-parted/apply/config.go"),
                 _x('level=fatal msg="Error applying MIG configuration with hooks: unable to apply '
                    'MIG config with MIG mode disabled"', GH + "NVIDIA/gpu-operator/issues/1845"))),
    # mig-parted reads its own config with the same words as the device plugin ("error parsing
    # config file: %v"); its CLI dies with logrus' FATA and the error names the MIG schema
    _s("mig-parted-config", "parsing config file",
       r"fata\[\d+\] error parsing config file|"
       r"error parsing config file: .*(?:mig-configs|mig-devices|mig-enabled|for 'devices')",
       {"mig-failed": 4.0}, (LOG,), True,
       examples=(_x("FATA[0000] Error parsing config file: unmarshal error: error unmarshaling "
                    "JSON: while decoding JSON: invalid string input for 'devices': 7",
                    MIG + "cmd/nvidia-mig-parted/apply/apply.go"),
                 _x("Error parsing config file: unmarshal error: error unmarshaling JSON: "
                    'json: unknown field "mig-devicess" in mig-configs',
                    "NVIDIA/mig-parted@v0.5.5:cmd/nvidia-mig-parted/assert/assert.go"))),
    # mig-parted's apply steps under the manager (each wraps the NVML error that stopped it)
    _s("mig-parted-step-failed", "mig|resetting all gpus|gpu instance|compute instance",
       r"cannot set mig (?:config|mode) on non mig-capable gpu|error setting migconfig|"
       r"error setting mig mode|error resetting all gpus|"
       r"error clearing existing mig configurations|selected mig-config not present|"
       r"error selecting mig config|dynamic generation failed and no default config|"
       r"failed to setup mig config|failed to apply mig mode change|"
       # applying a layout's GPU and compute instances (pkg/mig/config, pkg/mig/state)
       r"error (?:getting gpu instance profile info|creating gpu instance|"
       r"creating compute instance) for '",
       {"mig-failed": 3.5}, (LOG,), True,
       examples=(_x("cannot set MIG config on non MIG-capable GPU",
                    MIG + "cmd/nvidia-mig-parted/apply/config.go"),
                 _x("error setting MIG mode: Insufficient Permissions",
                    MIG + "cmd/nvidia-mig-parted/apply/mode.go"),
                 _x("error resetting all GPUs: exit status 255",
                    MIG + "cmd/nvidia-mig-parted/apply/mode.go"),
                 _x("selected mig-config not present: all-2g.20gb",
                    MIG + "cmd/nvidia-mig-parted/assert/assert.go"),
                 _x("failed to setup MIG config: dynamic generation failed and no default "
                    "config available: error initializing NVML",
                    MIG + "cmd/nvidia-mig-manager/main.go"),
                 _x("failed to apply MIG mode change: exit status 1",
                    MIG + "pkg/mig/reconfigure/reconfigure.go"),
                 _x("error getting GPU instance profile info for '1g.6gb': ERROR_NOT_SUPPORTED",
                    MIG + "pkg/mig/config/config.go"),
                 _x("error creating Compute instance for '(0, 0)': ERROR_INSUFFICIENT_RESOURCES",
                    MIG + "pkg/mig/state/state.go"))),
    # nvidia-smi's own MIG-mode warnings: the mode change waits for a GPU reset that a client
    # (persistenced, nvidia_drm, a monitoring agent) blocks
    _s("smi-mig-pending", "pending enable state|pending disable state|could not be reset",
       r"mig mode is in pending (?:enable|disable) state for gpu|"
       r"the following gpus could not be reset",
       {"mig-failed": 3.0}, (SMI, LOG), True,
       examples=(_x("Warning: MIG mode is in pending enable state for GPU 00000001:00:00.0:In "
                    "use by another client", GH + "NVIDIA/gpu-operator/issues/1845"),
                 _x("Warning: MIG mode is in pending disable state for GPU 00000000:C1:00.0:In "
                    "use by another client", GH + "NVIDIA/gpu-operator/issues/118"),
                 _x("The following GPUs could not be reset:",
                    GH + "NVIDIA/mig-parted/issues/181"))),
    # the manager stops the GPU clients before it applies a layout and brings them back after;
    # a client that will not stop (or a GPU that cannot be reset) leaves the layout unapplied
    _s("mig-manager-clients", "did not shutdown|gpu client|gpu reset",
       r"(?:device-plugin|gpu-feature-discovery|dcgm-exporter|dcgm|third-party gpu client) "
       r"pods? did not shutdown|unable to (?:tear down|bring up) gpu client|"
       r"unable to shutdown gpu clients on host|failed to shutdown (?:kubernetes|host) gpu "
       r"clients|gpu reset capabilities are not available|error issuing gpu reset",
       {"mig-failed": 3.0}, (LOG,), True,
       examples=(_x("failed to shutdown Kubernetes GPU clients: dcgm-exporter pod did not "
                    "shutdown: timed out", MIG + "pkg/mig/reconfigure/reconfigure.go"),
                 _x("Unable to tear down GPU client pods by setting their daemonset labels",
                    "NVIDIA/mig-parted@v0.5.5:deployments/gpu-operator/reconfigure-mig.sh"),
                 _x("GPU reset capabilities are not available",
                    "NVIDIA/mig-parted@v0.5.5:deployments/systemd/service.sh"))),
    _s("mig-state-failed", "mig.config.state",
       r"mig\.config\.state'?\"?\s*(?:node )?(?:label )?(?:to |=|:)\s*'?\"?failed",
       {"mig-failed": 4.0}, (LOG, DESCRIBE), True,
       examples=(_x("Changing the 'nvidia.com/mig.config.state' node label to 'failed'",
                    MIG + "deployments/container/reconfigure-mig.sh"),
                 _x("nvidia.com/mig.config.state=failed",
                    MIG + "pkg/mig/reconfigure/reconfigure.go"))),
    # ---- kernel / containerd (facts.md §1.4, §8) ------------------------------------------------
    _s("xid-kernel", "xid",
       r"nvrm: xid \(pci:[0-9a-f:.]+(?: gpu-i:\d+(?: gpu-ci:\d+)?)?\): \d+",
       {"xid": 4.0, "unhealthy": 1.0}, (DMESG, JOURNAL), True,
       examples=(_x("NVRM: Xid (PCI:0000:3b:00): 79, pid='<unknown>', name=<unknown>, GPU has "
                    "fallen off the bus.", OGKM + "src/nvidia/arch/nvalloc/unix/src/osinit.c"),
                 _x("NVRM: Xid (PCI:0000:01:00 GPU-I:05): 94, pid=7194, Contained: CE User "
                    "Channel (0x9). RST: No, D-RST: No",
                    OGKM + "src/nvidia/src/kernel/gpu/arch/ampere/kern_gpu_error_cont_ga100.c"),
                 _x("NVRM: Xid (PCI:0000:01:00 GPU-I:05 GPU-CI:01): 13, Graphics Exception",
                    OGKM + "src/nvidia/src/kernel/gpu/rc/kernel_rc.c"))),
    # The kernel driver's own line when a GPU stops answering on PCIe (printed with, or before,
    # Xid 79); some pastes keep only this one.
    _s("nvrm-fallen-off-bus", "fallen off the bus",
       r"nvrm: gpu [0-9a-f]{4}:[0-9a-f]{2}:[0-9a-f]{2}\.\d: gpu has fallen off the bus",
       {"xid": 3.5, "unhealthy": 1.0}, (DMESG, JOURNAL), True,
       examples=(_x("NVRM: GPU 0000:3b:00.0: GPU has fallen off the bus.",
                    OGKM + "src/nvidia/arch/nvalloc/unix/src/osinit.c"),)),
    # containerd does not handle SIGHUP: the toolkit's signal kills it and systemd restarts it
    # (knowledge audit §0.6).
    _s("containerd-signal", "status=1/hup|sending sighup signal to containerd|"
       "containerd exited: signal: hangup|forever: signal: hangup",
       r"containerd\.service: main process exited, code=killed, status=1/hup|"
       r"sending sighup signal to containerd|containerd exited: signal: hangup|"
       r"error running process\(\[[^\]]{0,300}containerd[^\]]{0,300}\]\), going to restart "
       r"forever: signal: hangup",
       {"containerd-restart": 3.0, "handler-missing": 0.5}, (JOURNAL, LOG), True,
       examples=(_x("containerd.service: Main process exited, code=killed, status=1/HUP",
                    "systemd/systemd@v255:src/core/service.c"),
                 _x('time="2026-11-29T10:01:03Z" level=info msg="Sending SIGHUP signal to '
                    'containerd"', CTK + "cmd/nvidia-ctk-installer/container/runtime/containerd/"
                    "containerd_linux.go"),
                 _x('Shutdown request received: "containerd exited: signal: hangup"',
                    "k3s-io/k3s@v1.30.0+k3s1:pkg/agent/containerd/containerd.go"),
                 # Talos' service supervisor ("Error running %v, going to restart forever: %v")
                 _x('[talos] service[cri](Waiting): Error running Process(["/bin/containerd" '
                    '"--address" "/run/containerd/containerd.sock" "--config" '
                    '"/etc/cri/containerd.toml"]), going to restart forever: signal: hangup',
                    "siderolabs/talos@v1.8.0:internal/app/machined/pkg/system/runner/restart/"
                    "restart.go"))),
    _s("containerd-config-error", "toml|plugin key|config version|default_runtime_name|"
       "failed to load plugin",
       r"failed to load toml|invalid plugin key uri|"
       r"expected containerd config version equal to or less than|"
       r"drop-in config version \d+ higher than root config version|"
       r"containerd(?:\[\d+\])?: (?:containerd: )?toml: |"
       r"no corresponding runtime configured in `(?:containerd\.)?runtimes` for|"
       r"failed to load plugin\b.*\bcri\b",
       {"containerd-config": 4.0}, (JOURNAL, LOG), True,
       examples=(_x("containerd: failed to load TOML from /etc/containerd/config.toml: toml: "
                    "line 3", CD + "cmd/containerd/server/config/config.go"),
                 _x("containerd: failed to load TOML: /etc/containerd/config.toml: toml: line 3",
                    "containerd/containerd@v1.7.0:services/server/config/config.go"),
                 _x('invalid plugin key URI "cri" expect io.containerd.x.vx',
                    "containerd/containerd@v1.7.0:services/server/config/config.go"),
                 _x("expected containerd config version equal to or less than `3`, got `4`",
                    CD + "cmd/containerd/server/config/config.go"),
                 _x("drop-in config version 3 higher than root config version 2",
                    "containerd/containerd@v2.3.0:cmd/containerd/server/config/config.go"),
                 _x("containerd[32689]: containerd: toml: cannot load TOML value of type string "
                    "into a Go integer", GH + "NVIDIA/gpu-operator/issues/143"),
                 _x('level=warning msg="failed to load plugin io.containerd.grpc.v1.cri" '
                    'error="invalid plugin config: no corresponding runtime configured in '
                    '`containerd.runtimes` for `containerd` `default_runtime_name = \\"nvidia\\""',
                    "containerd/containerd@v1.7.0:pkg/cri/config/config.go"),
                 _x('level=warning msg="failed to load plugin io.containerd.grpc.v1.cri" '
                    'error="invalid plugin config: no corresponding runtime configured in '
                    '`runtimes` for `default_runtime_name`"',
                    GH + "containerd/containerd/issues/5340"))),
    # the rest of containerd's config validation (the CRI plugin refuses to load; on 2.x the
    # runtime/image plugins that depend on it go too), across 1.6, 1.7 and 2.x wording
    _s("containerd-config-invalid", "default_runtime_name` is empty|conflicting definitions|"
       "unmarshal toml|plugin uri|invalid plugin config|cannot be set when `config_path`|"
       "plugin dependency",
       r"`default_runtime_name` is empty|conflicting definitions: configuration includes both|"
       r"failed to unmarshal toml|invalid (?:disabled|required) plugin uri|"
       r"invalid plugin config: |`(?:mirrors|configs\.tls)` cannot be set when `config_path`|"
       r"unable to load cri (?:runtime|image) service plugin dependency",
       {"containerd-config": 3.5, "dropin-overwrote": 0.5}, (JOURNAL, LOG), True,
       examples=(_x("invalid plugin config: `default_runtime_name` is empty",
                    "containerd/containerd@v1.6.20:pkg/cri/config/config.go"),
                 _x("failed to unmarshal TOML at row 12 column 5: unknown field",
                    CD + "cmd/containerd/server/config/config.go"),
                 _x('invalid disabled plugin URI "cri" expect io.containerd.x.vx',
                    CD + "cmd/containerd/server/config/config.go"),
                 _x("`mirrors` cannot be set when `config_path` is provided",
                    "containerd/containerd@v1.7.27:pkg/cri/config/config.go"),
                 _x("conflicting definitions: configuration includes both "
                    "`untrusted_workload_runtime` and `runtimes[untrusted]`",
                    "containerd/containerd@v1.6.20:pkg/cri/config/config.go"),
                 _x('level=warning msg="failed to load plugin" error="unable to load CRI runtime '
                    'service plugin dependency: invalid plugin config"',
                    CD + "plugins/cri/cri.go"))),
    # the sandbox's CNI plugin is not in the bin_dir the CRI config names: on a GPU node the
    # usual way there is a rewritten (or replacing) config that dropped the platform's CNI
    # settings for the defaults (/opt/cni/bin); a CNI never installed looks the same
    _s("cni-plugin-not-in-path", "failed to find plugin",
       r"failed to find plugin \W*[\w.-]+\W* in path \[",
       {"dropin-overwrote": 1.5, "containerd-config": 0.75}, (EVENT, STATUS, LOG, JOURNAL),
       examples=(_x('failed to setup network for sandbox "2b62": plugin type="gke" failed (add): '
                    'failed to find plugin "gke" in path [/opt/cni/bin]',
                    "containernetworking/cni@fab9cbe6:pkg/invoke/find.go"),)),
    # a runtime entry without runtime_type: containerd creates the container with no runtime
    # name and its metadata store refuses it (the handler is configured, but unusably)
    _s("containerd-runtime-name-unset", "runtime.name must be set",
       r"container\.runtime\.name must be set",
       {"containerd-config": 3.5, "handler-missing": 0.5}, (EVENT, STATUS, LOG, JOURNAL), True,
       examples=(_x("failed to create containerd container: create container failed validation: "
                    "container.Runtime.Name must be set: invalid argument",
                    "containerd/containerd@v2.1.4:core/metadata/containers.go"),
                 _x("container.Runtime.Name must be set: invalid argument",
                    "containerd/containerd@v1.6.20:metadata/containers.go"))),
    # The toolkit reads the containerd config with go-toml: its parse errors ("(line, col): …")
    # follow the installer's "unable to load config" (knowledge audit §9: not the plugin's).
    _s("toolkit-config-parse", "unable to load config",
       r"unable to load config: (?:\(\d+, \d+\): |failed to load config|.*\btoml\b)",
       {"containerd-config": 3.5}, (LOG,), True,
       examples=(_x('Error: unable to load config: (9, 21): unexpected token type in inline '
                    'table: keys cannot contain { character',
                    GH + "NVIDIA/gpu-operator/issues/673"),
                 _x("unable to load config: failed to load config: failed to run command chroot "
                    "[/host containerd config dump]: exit status 1",
                    CTK + "cmd/nvidia-ctk-installer/container/runtime/containerd/containerd.go"))),
    _s("cri-plugin-disabled", "disabled_plugins",
       r"^\s*disabled_plugins\s*=\s*\[[^\]]*[\"'](?:io\.containerd\.grpc\.v1\.)?cri[\"']",
       {"cri-disabled": 4.0}, (CONFIG, JOURNAL, LOG), True,
       examples=(_x('disabled_plugins = ["cri"]',
                    "docker/containerd-packaging@v1.7.27-1:common/containerd.toml"),)),
    # kubelet (or crictl) finding no CRI service on the socket: the CRI plugin is not loaded,
    # because the config disables it or because it failed to load (a config it cannot read);
    # only the config tells which
    _s("cri-service-missing", "unknown service runtime|runtime api is not implemented",
       r"unknown service runtime\.v1(?:alpha2)?\.(?:runtime|image)service|"
       r"cri v1 (?:runtime|image) api is not implemented for endpoint",
       {"cri-disabled": 2.0, "containerd-config": 1.5}, (JOURNAL, LOG),
       examples=(_x('"command failed" err="failed to run Kubelet: validate service connection: '
                    'validate CRI v1 runtime API for endpoint \\"unix:///run/containerd/'
                    'containerd.sock\\": rpc error: code = Unimplemented desc = unknown service '
                    'runtime.v1.RuntimeService"',
                    K + "pkg/kubelet/kuberuntime/kuberuntime_manager.go"),
                 _x('level=fatal msg="validate service connection: CRI v1 runtime API is not '
                    'implemented for endpoint \\"unix:///var/run/containerd/containerd.sock\\": '
                    'rpc error: code = Unimplemented desc = unknown service '
                    'runtime.v1.RuntimeService"', GH + "containerd/containerd/issues/8032"))),
    # The toolkit wrote its runtime where the daemon does not look: the 2.x default imports
    # glob is conf.d (not config.d); k3s/RKE2 regenerate config.toml from config.toml.tmpl.
    _s("runtime-config-elsewhere", "wrote updated config to",
       r"wrote updated config to \S*/(?:config\.d/|containerd/(?!conf\.d/)[\w.-]+\.d/)|"
       r"wrote updated config to /var/lib/rancher/(?:k3s|rke2)/agent/etc/containerd/"
       r"config\.toml(?!\.tmpl)",
       {"runtime-config-not-read": 3.5, "handler-missing": 0.5}, (LOG,), True,
       examples=(_x("INFO[0000] Wrote updated config to /etc/containerd/config.d/99-nvidia.toml",
                    "NVIDIA/nvidia-container-toolkit@v1.18.1:cmd/nvidia-ctk/runtime/configure/"
                    "configure.go"),
                 _x("INFO[0000] Wrote updated config to /var/lib/rancher/rke2/agent/etc/containerd"
                    "/config.toml", "NVIDIA/nvidia-container-toolkit@v1.18.1:cmd/nvidia-ctk/"
                    "runtime/configure/configure.go"))),
    _s("toolkit-config-dump-failed", "config dump",
       r"failed to run command .*containerd config dump",
       {"containerd-config": 3.0}, (LOG,), True,
       examples=(_x("unable to load config: failed to load config: failed to run command chroot "
                    "[/host containerd config dump]: exit status 1",
                    CTK + "pkg/config/toml/source-cli.go"),)),
    # ---- the operator's own view of the GPU nodes (seed §1) ---------------------------------
    # The ClusterPolicy controller finds GPU nodes by NFD's PCI label and nvidia.com/gpu.present;
    # none found means no operand DaemonSet is scheduled anywhere.
    _s("operator-no-gpu-nodes", "nfd label|gpu node|nvidia.com/gpu.present label|"
       "nodes with gpu label",
       r"nfd labels missing in the cluster|no gpu node can be found in the cluster|"
       r"no nfd label found, polling for new nodes|no gpu node (?:found, watching|in the "
       r"cluster, do not create)|could not get any nodes to match nvidia\.com/gpu\.present|"
       r"number of nodes with gpu label\W+nodecount\W+0\b",
       {"nodes-unlabelled": 3.0}, (LOG,), True,
       examples=(_x("WARNING: NFD labels missing in the cluster, GPU nodes cannot be discovered.",
                    OP + "controllers/clusterpolicy_controller.go"),
                 _x("No GPU node can be found in the cluster.",
                    OP + "controllers/clusterpolicy_controller.go"),
                 _x('INFO controllers.ClusterPolicy No NFD label found, polling for new nodes. '
                    '{"interval": 30}', OP + "controllers/clusterpolicy_controller.go"),
                 _x('No GPU node found, watching for new nodes to join the cluster. '
                    '{"hasNFDLabels": false}',
                    "NVIDIA/gpu-operator@v22.9.0:controllers/clusterpolicy_controller.go"),
                 _x("No GPU node in the cluster, do not create DaemonSets",
                    "NVIDIA/gpu-operator@v22.9.0:controllers/object_controls.go"),
                 _x('Could not get any nodes to match nvidia.com/gpu.present label {"ERROR": ""}',
                    "NVIDIA/gpu-operator@v1.9.0:controllers/object_controls.go"),
                 _x('INFO controllers.ClusterPolicy Number of nodes with GPU label '
                    '{"NodeCount": 0}', OP + "controllers/state_manager.go"))),
    # precompiled/driver-toolkit lookups need one OS per kernel among the GPU nodes
    _s("operator-os-per-kernel", "different os versions found",
       r"different os versions found for the same kernel version",
       {"driver-os-mismatch": 3.5}, (LOG,), True,
       examples=(_x("different OS versions found for the same kernel version 5.15.0-105-generic, "
                    "unsupported configuration", OP + "controllers/object_controls.go"),)),
    # ---- NFD / GFD labels (seed §1) -------------------------------------------------------------
    # (v0.6 quotes with ', v0.8-v0.15 with %q, v0.16+ drops the name from the error and
    # logs the label key beside it)
    _s("nfd-label-denied", "not allowed",
       r"namespace ['\"\\]*nvidia\.com['\"\\]* is not allowed|"
       r"namespace is not allowed\W+labelkey\W+nvidia\.com/",
       {"gfd-labels": 4.0}, (LOG,), True,
       examples=(_x('E1129 11:20:03.512345 1 nfd-master.go:642] "ignoring label" err="namespace '
                    '\\"nvidia.com\\" is not allowed" labelKey="nvidia.com/gpu.product" '
                    'labelValue="NVIDIA-A100-SXM4-80GB"', NFD),
                 _x('E1129 11:20:03.512345 1 nfd-master.go:409] Namespace "nvidia.com" is not '
                    'allowed. Ignoring label "nvidia.com/gpu.product"', NFD12),
                 _x("2020/11/24 09:15:59 Namespace 'nvidia.com' is not allowed. Ignoring label "
                    "'nvidia.com/cuda.runtime.major'", "kubernetes-sigs/node-feature-discovery@"
                    "v0.6.0:pkg/nfd-master/nfd-master.go"),
                 _x('E0312 10:02:10.000000 1 nfd-master.go:477] "ignoring label" err="namespace '
                    'is not allowed" labelKey="nvidia.com/gpu.product" labelValue="NVIDIA-H100"',
                    "kubernetes-sigs/node-feature-discovery@v0.18.0:pkg/nfd-master/"
                    "nfd-master.go"))),
    # ---- operands in Init (seed §4) -------------------------------------------------------------
    _s("validator-driver-retry", "failed to validate the driver",
       r"failed to validate the driver, retrying", {"driver-failing": 1.5, "operand-init": 1.0},
       (LOG, VALIDATOR),
       examples=(_x('level=warning msg="failed to validate the driver, retrying after 5 '
                    'seconds\n"', OP + "cmd/nvidia-validator/main.go"),)),
    _s("waiting-for-validation", "waiting for|/run/nvidia/validations/",
       r"waiting for (?:nvidia |the )?(?:driver|toolkit|container-toolkit|container stack|"
       r"container toolkit|cuda|plugin|nvidia-driver)(?:[- ]validations?| to be (?:ready|setup|"
       r"installed)| ready)?|/run/nvidia/validations/\S+-ready",
       {"operand-init": 2.0}, (LOG, VALIDATOR),
       examples=(_x("waiting for nvidia container stack to be setup",
                    OP + "assets/gpu-feature-discovery/0500_daemonset.yaml"),
                 _x("waiting for nvidia container toolkit to be setup",
                    OP + "assets/state-mig-manager/0600_daemonset.yaml"),
                 _x("waiting for the driver validations to be ready...",
                    OP + "assets/state-device-plugin/0400_configmap.yaml"),
                 _x("Waiting for nvidia-driver to be installed...",
                    OP + "assets/state-driver/0500_daemonset.yaml"))),
    _s("init-status", "init:",
       r"\binit:(?:\d+/\d+|crashloopbackoff|error)", {"operand-init": 1.5}, (DESCRIBE,),
       examples=(_x("nvidia-device-plugin-daemonset-9b4rk   0/1   Init:0/1   0   22m",
                    K + "pkg/printers/internalversion/printers.go"),)),
    # ---- stacks the component refuses (GX409), env-var requests refused (GX303), NVML and
    # nvidia-smi failing (GX304), the plugin never serving (GX202): each keyed on the message
    # shape of the component that prints it ------------------------------------------------
    # the toolkit drops NVIDIA_VISIBLE_DEVICES from an unprivileged container when
    # accept-nvidia-visible-devices-envvar-when-unprivileged is false: the pod gets no GPU
    # (the hook's wording up to v1.17, the CDI modifier's, then the image config's from v1.18)
    _s("toolkit-envvar-ignored", "ignoring devices|ignoring request by environment",
       r"ignoring devices specified in nvidia_visible_devices|"
       r"ignoring (?:devices requested|request) by environment variable\(s\) in unprivileged "
       r"container",
       {"envvar-ignored": 3.5}, (LOG, EVENT, STATUS), True,
       examples=(_x("Ignoring devices specified in NVIDIA_VISIBLE_DEVICES (privileged=false, "
                    "accept-nvidia-visible-devices-envvar-when-unprivileged=false) ",
                    "NVIDIA/nvidia-container-toolkit@v1.17.0:cmd/nvidia-container-runtime-hook/"
                    "container_config.go"),
                 _x('level=warning msg="Ignoring devices specified in NVIDIA_VISIBLE_DEVICES: '
                    '[nvidia.com/gpu=all]"',
                    "NVIDIA/nvidia-container-toolkit@v1.17.0:internal/modifier/cdi.go"),
                 _x('level=warning msg="Ignoring devices requested by environment variable(s) in '
                    'unprivileged container: [NVIDIA_VISIBLE_DEVICES]"',
                    CTK + "internal/config/image/cuda_image.go"),
                 _x('level=warning msg="Ignoring request by environment variable(s) in '
                    'unprivileged container: [NVIDIA_VISIBLE_DEVICES]"',
                    CTK + "internal/config/image/cuda_image.go"))),
    # DCGM refuses the GPU (DCGM_ST_GPU_NOT_SUPPORTED): dcgm-exporter stops adding it to its
    # group; a product DCGM does not drive (a Jetson iGPU, a consumer board)
    _s("dcgm-gpu-not-supported", "not supported by dcgm",
       r"this gpu is not supported by dcgm", {"unsupported-stack": 3.5}, (LOG,), True,
       examples=(_x("FATA[0000] Error adding GPU 1 to group: This GPU is not supported by DCGM",
                    GH + "NVIDIA/DCGM/issues/61"),
                 _x("error adding GPU 0 to group: This GPU is not supported by DCGM",
                    "NVIDIA/go-dcgm@3287e4e8:pkg/dcgm/gpu_group.go"))),
    # the exporter's GPU health collector: DCGM's list of supported GPUs came back empty
    # (GetSupportedDevices), so no GPU of the node is one DCGM drives; a vote, the product and
    # the driver tell which (the exporter stops on it when the collector is on)
    _s("dcgm-no-supported-gpus", "no supported gpu devices found",
       r"no supported gpu devices found",
       {"unsupported-stack": 2.5, "dcgm-exporter-failing": 1.0}, (LOG,),
       examples=(_x('time="2025-03-01T10:00:01Z" level=error msg="No supported GPU devices '
                    'found"',
                    "NVIDIA/dcgm-exporter@5f9250c2:internal/pkg/collector/"
                    "gpu_health_collector.go"),)),
    # an NGC image's entrypoint checking the GPU against the products its release supports
    _s("ngc-gpu-not-supported", "not yet supported in this version of the container|"
       "no supported gpu(s) detected",
       r"gpu, which is not yet supported in this version of the container|"
       r"no supported gpu\(s\) detected to run this container",
       {"unsupported-stack": 3.0}, (LOG,), True,
       examples=(_x("WARNING: Detected NVIDIA NVIDIA GeForce RTX 4060 GPU, which is not yet "
                    "supported in this version of the container", GH +
                    "fauxpilot/fauxpilot/issues/248"),
                 _x("ERROR: No supported GPU(s) detected to run this container",
                    GH + "fauxpilot/fauxpilot/issues/248"))),
    # a framework build without kernels for this GPU's architecture (too new or too old for
    # the build): the GPU is reached, the stack does not support it
    _s("framework-arch-unsupported", "is not compatible with the current pytorch|"
       "minimum required cuda capability|no kernel image is available",
       r"with cuda capability sm_\d+ is not compatible with the current pytorch installation|"
       r"with cuda compute capability [\d.]+\. the minimum required cuda capability is|"
       r"no kernel image is available for execution on the device",
       {"unsupported-stack": 2.5}, (LOG,),
       examples=(_x("NVIDIA GeForce RTX 5090 with CUDA capability sm_120 is not compatible with "
                    "the current PyTorch installation.",
                    "pytorch/pytorch@v2.6.0:torch/cuda/__init__.py"),
                 _x("I tensorflow/core/common_runtime/gpu/gpu_device.cc:1721] Ignoring visible "
                    "gpu device (device: 0, name: GeForce GTX 670MX, pci bus id: 0000:01:00.0, "
                    "compute capability: 3.0) with Cuda compute capability 3.0. The minimum "
                    "required Cuda capability is 3.5.",
                    "tensorflow/tensorflow@v2.2.0:tensorflow/core/common_runtime/gpu/"
                    "gpu_device.cc"),
                 _x("RuntimeError: CUDA error: no kernel image is available for execution on "
                    "the device",
                    "https://docs.nvidia.com/cuda/cuda-runtime-api/group__CUDART__TYPES.html"))),
    # the operator refusing a driver configuration it does not support (GDS/GDRCopy with
    # precompiled drivers)
    _s("operator-driver-combination", "not supported along with pre-compiled|"
       "unsupported driver combination",
       r"is not supported along with pre-compiled nvidia drivers|"
       r"unsupported driver combination detected",
       {"unsupported-stack": 3.5}, (LOG,), True,
       examples=(_x("GPUDirect Storage driver (nvidia-fs) and/or GDRCopy driver is not "
                    "supported along with pre-compiled NVIDIA drivers",
                    OP + "controllers/nvidiadriver_controller.go"),
                 _x('ERROR unsupported driver combination detected {"controller": '
                    '"nvidia-driver-controller"}', OP + "controllers/nvidiadriver_controller.go"),
                 _x("GDRCopy is not supported along with pre-compiled NVIDIA drivers",
                    OP + "controllers/object_controls.go"))),
    # an operator (or its chart) built against a Kubernetes API version the cluster no longer
    # serves (node.k8s.io/v1beta1 RuntimeClass and policy/v1beta1 PodSecurityPolicy went in
    # 1.25): apimachinery's NoKindMatchError for a built-in group, reconciling or applying.
    # The operator's own CRDs missing are GX420 (crd-kind-not-served).
    _s("operator-api-removed", "no matches for kind",
       r"no matches for kind \\?\"\w+\\?\" in versions? \[?\\?\"(?:[\w-]+\.)*"
       r"(?:k8s\.io|policy|batch|apps|extensions|autoscaling)/v\d+(?:alpha|beta)\d+\\?\"",
       {"unsupported-stack": 3.5}, (LOG, EVENT, STATUS), True,
       examples=(_x('ERROR\tcontroller.clusterpolicy-controller\tReconciler error\t{"name": '
                    '"cluster-policy", "namespace": "", "error": "no matches for kind '
                    '\\"RuntimeClass\\" in version \\"node.k8s.io/v1beta1\\""}',
                    "NVIDIA/gpu-operator@v1.11.1:vendor/k8s.io/apimachinery/pkg/api/meta/"
                    "errors.go"),
                 _x('error: unable to recognize "psp.yaml": no matches for kind '
                    '"PodSecurityPolicy" in version "policy/v1beta1"',
                    "kubernetes/kubernetes@v1.25.0:staging/src/k8s.io/apimachinery/pkg/api/meta/"
                    "errors.go"))),
    # controller-runtime recovers a panic in a reconcile and logs it through apimachinery's
    # HandleCrash ("Observed a panic", k8s.io/apimachinery@v0.31.2:pkg/util/runtime/runtime.go;
    # "Observed a panic: %#v (%v)" before, @v0.27.4), with the controller's name beside it: the
    # operator's ClusterPolicy reconcile never reaches the states after the failing step
    _s("operator-reconcile-panic", "observed a panic",
       r"observed a panic.{0,200}clusterpolicy-controller|"
       r"clusterpolicy-controller.{0,200}observed a panic",
       {"operator-reconcile": 3.0}, (LOG,), True,
       examples=(_x('{"level":"error","ts":1777323915.0647726,"msg":"Observed a panic",'
                    '"controller":"clusterpolicy-controller","object":{"name":"cluster-policy"},'
                    '"namespace":"","name":"cluster-policy","panic":"runtime error: invalid '
                    'memory address or nil pointer dereference"}',
                    GH + "NVIDIA/gpu-operator/issues/2398"),)),
    # the operator deriving the node's OS major version from os-release's VERSION_ID (the
    # driver image tag) and failing to parse it: an OS release this operator cannot handle
    _s("operator-os-version-unparsed", "error processing os major version",
       r"error processing os major version",
       {"unsupported-stack": 3.0, "driver-os-mismatch": 1.0}, (LOG, STATUS), True,
       examples=(_x('{"level":"error","msg":"Reconciler error","controller":"clusterpolicy-'
                    'controller","error":"failed to retrieve GPU node OS tag: error processing '
                    'OS major version v1: strconv.Atoi: parsing \\"v1\\": invalid syntax"}',
                    "NVIDIA/gpu-operator@v26.3.0:controllers/state_manager.go"),)),
    # the operator's driver state for a node OS it has no driver volumes/repos for
    _s("operator-distribution-unsupported", "not supported|not found for distribution",
       r"(?:repository|certificate) configuration not supported for distribution \S+|"
       r"\bdistribution \S+ not supported|subscription paths not found for distribution \S+",
       {"driver-os-mismatch": 2.5, "unsupported-stack": 1.5}, (LOG,),
       examples=(_x("distribution debian not supported", OP + "internal/state/driver_volumes.go"),
                 _x("repository configuration not supported for distribution sles15.5",
                    OP + "controllers/object_controls.go"),
                 _x("ERROR: failed to get path items for subscription entitlements: "
                    "subscription paths not found for distribution rocky9.4",
                    OP + "controllers/object_controls.go"))),
    # a Tegra (Jetson) kernel in uname or a log header: the operator's operands and DCGM do
    # not run there (a hint, never deciding)
    _s("tegra-kernel", "-tegra",
       r"\b\d+\.\d+\.\d+[\w.+-]*-tegra\b", {"unsupported-stack": 1.5}, (LOG, JOURNAL),
       examples=(_x("Linux yr-hil-01 5.10.120-rt70-tegra #1 SMP PREEMPT RT Tue Jun 13 21:41:12 "
                    "CST 2023 aarch64 aarch64 aarch64 GNU/Linux",
                    GH + "NVIDIA/dcgm-exporter/issues/234"),)),
    # nvidia-smi found no NVML library at all (no driver user space on this host or in this
    # container, or ldconfig never ran for the injected one): in a pod, nothing injected the
    # driver's libraries (it ran under runc, as nvml-lib-missing reads the same absence)
    _s("smi-nvml-lib-not-found", "couldn't find libnvidia-ml.so",
       r"nvidia-smi couldn't find libnvidia-ml\.so library",
       {"nvml-init": 2.5, "runtime-not-default": 1.5}, (SMI, LOG),
       examples=(_x("NVIDIA-SMI couldn't find libnvidia-ml.so library in your system. Please "
                    "make sure that the NVIDIA Display Driver is properly installed and present "
                    "in your system.", GH + "NVIDIA/nvidia-docker/issues/1163"),)),
    # the device plugin's start loop: a plugin that never starts never registers a resource
    _s("plugin-start-failed", "failed to start one or more plugins|failed to start plugin",
       r"failed to start one or more plugins|failed to start plugin: ",
       {"not-advertised": 1.5}, (LOG,),
       examples=(_x("I1129 10:02:10.000000 1 main.go:302] Failed to start one or more plugins. "
                    "Retrying in 30s...", DP + "cmd/nvidia-device-plugin/main.go"),
                 _x("E1129 10:02:10.000000 1 main.go:409] Failed to start plugin: error "
                    "starting plugin: listen unix: address already in use",
                    DP + "cmd/nvidia-device-plugin/main.go"))),
    # ---- the kernel changed under the driver (GX508) ------------------------------------------
    # the kernel refusing a module whose vermagic names another kernel (built for the kernel
    # that ran before the upgrade): only a module built for another kernel prints it
    _s("module-version-magic", "version magic",
       r"nvidia[\w-]*: version magic '[^']*' should be '",
       {"kernel-upgraded": 3.5}, (DMESG, LOG, JOURNAL), True,
       examples=(_x("nvidia: version magic '5.15.0-88-generic SMP mod_unload modversions ' should "
                    "be '5.15.0-91-generic SMP mod_unload modversions '",
                    "torvalds/linux@v6.8:kernel/module/main.c"),)),
    # kmod reporting the same refusal (ENOEXEC): modprobe with strerror, insmod with its own
    # wording
    _s("module-exec-format", "exec format error|invalid module format",
       r"could not insert '?nvidia[\w-]*'?: exec format error|"
       r"could not insert module \S*nvidia[\w-]*\.ko: invalid module format",
       {"kernel-upgraded": 2.5, "kernel-headers": 0.5}, (LOG, DMESG, JOURNAL),
       examples=(_x("modprobe: ERROR: could not insert 'nvidia': Exec format error",
                    "kmod-project/kmod@v31:tools/modprobe.c"),
                 _x("insmod: ERROR: could not insert module nvidia.ko: Invalid module format",
                    "kmod-project/kmod@v31:tools/insmod.c"))),
    # the driver container's kernel-update hook (written at start, run by the node's kernel
    # postinst): it fires only when a new kernel is installed under the running driver
    _s("driver-kernel-update-hook", "starting update of nvidia driver|"
       "failed to update the nvidia driver",
       r"starting update of nvidia driver version \S+ for linux kernel version|"
       r"failed to update the nvidia driver",
       {"kernel-upgraded": 2.5}, (LOG,),
       examples=(_x("Starting update of NVIDIA driver version 550.127.05 for Linux kernel "
                    "version 5.15.0-91-generic", DRV + "ubuntu22.04/nvidia-driver"),
                 _x("ERROR: Failed to update the NVIDIA driver", DRV + "rhel9/nvidia-driver"))),
    # OpenShift: the Driver Toolkit image carries another kernel than the node now runs (the
    # node's kernel moved with an RHCOS update); the driver container then falls back to an
    # entitlement-based build that needs kernel-devel for the running kernel
    # (NVIDIA/gpu-driver-container@06a208ca:rhel9/ocp_dtk_entrypoint dtk-build-driver)
    _s("dtk-kernel-mismatch", "broken driver toolkit image",
       r"broken driver toolkit image detected",
       {"kernel-headers": 2.0, "kernel-upgraded": 1.0, "precompiled-kernel": 0.5}, (LOG,),
       examples=(_x("WARNING: broken Driver Toolkit image detected:",
                    DRV + "rhel9/ocp_dtk_entrypoint"),)),
    # DKMS on a kernel it has no headers for, or failing to build there (a kernel installed
    # under the driver; the first line of the message DKMS wraps over two lines)
    _s("dkms-build-skipped", "module build for kernel|bad return status for module build",
       r"module build for kernel \S+ was skipped since the|"
       r"bad return status for module build on kernel: \S+",
       {"kernel-upgraded": 2.0, "kernel-headers": 1.0}, (LOG, JOURNAL),
       examples=(_x("Module build for kernel 5.13.19-1-pve was skipped since the kernel headers "
                    "for this kernel does not seem to be installed.",
                    GH + "awesometic/realtek-r8125-dkms/issues/13"),
                 _x("Error! Bad return status for module build on kernel: 6.14.4-arch1-2 (x86_64)",
                    GH + "korvahannu/arch-nvidia-drivers-installation-guide/issues/37"))),
    # ---- no NVIDIA device nodes (GX304): the driver is not loaded on this host --------------
    _s("dev-nvidia-absent", "/dev/nvidia",
       r"cannot access '?/dev/nvidia[\w*-]*'?: no such file or directory",
       {"nvml-init": 1.5}, (LOG, SMI),
       examples=(_x("ls: cannot access '/dev/nvidia*': No such file or directory",
                    "coreutils/coreutils@v9.4:src/ls.c"),)),
    # the device plugin's NVML init failing for another reason than a missing library (that
    # one is plugin-nvml-not-found): the driver is not loaded or not reachable from the plugin
    _s("plugin-nvml-init-error", "nvml init failed",
       r"nvml init failed: (?!error_library_not_found)\w+",
       {"nvml-init": 2.0, "not-advertised": 0.5}, (LOG,),
       examples=(_x("W0312 10:02:10.000000 1 factory.go:107] nvml init failed: "
                    "ERROR_DRIVER_NOT_LOADED", DP + "internal/plugin/factory.go"),)),
    # PyTorch finding no CUDA driver library in the container: nothing injected one (the pod
    # runs under runc, or asked for no GPU), or the host has no driver
    _s("torch-no-driver", "found no nvidia driver on your system",
       r"found no nvidia driver on your system",
       {"runtime-not-default": 1.5, "envvar-ignored": 1.25, "nvml-init": 0.5}, (LOG, STATUS),
       examples=(_x("RuntimeError: Found no NVIDIA driver on your system. Please check that you "
                    "have an NVIDIA GPU and installed a driver from "
                    "http://www.nvidia.com/Download/index.aspx",
                    "pytorch/pytorch@v2.3.0:c10/cuda/CUDAFunctions.cpp"),)),
    # helm refusing a chart (the operator's, the plugin's) whose kubeVersion range excludes
    # the cluster: that release does not support this Kubernetes
    _s("helm-kubeversion-unsupported", "which is incompatible with kubernetes",
       r"chart requires kubeversion: .+ which is incompatible with kubernetes v?\d",
       {"unsupported-stack": 3.0}, (LOG,), True,
       examples=(_x("Error: INSTALLATION FAILED: chart requires kubeVersion: >= 1.16.0-0 which is "
                    "incompatible with Kubernetes v1.15.12",
                    "helm/helm@v3.14.0:pkg/action/action.go"),)),
)

# Operand pods in a bad state in a pasted `kubectl get pods` table: what each one's failure most
# often means (knowledge/operands.py names the DaemonSets; seed §1 component table). Weak and
# never deciding: the pod's own log says which.
OPERAND_STATE_VOTES: tuple[tuple[str, tuple[str, ...], dict[str, float]], ...] = (
    ("nvidia-driver-daemonset", ("crashloopbackoff", "error"), {"driver-failing": 1.25}),
    ("nvidia-driver-daemonset", ("imagepullbackoff", "errimagepull"),
     {"driver-os-mismatch": 1.0, "precompiled-kernel": 0.75}),
    ("nvidia-container-toolkit-daemonset", ("crashloopbackoff", "error"),
     {"containerd-config": 0.75, "containerd-restart": 0.5}),
    ("nvidia-device-plugin-daemonset", ("crashloopbackoff", "error"),
     {"not-advertised": 0.75, "plugin-config-invalid": 0.75, "runtime-not-default": 0.5}),
    ("nvidia-dcgm-exporter", ("crashloopbackoff", "error"),
     {"dcgm-connect": 0.75, "dcgm-profiling": 0.75}),
    ("nvidia-mig-manager", ("crashloopbackoff", "error"), {"mig-failed": 1.0}),
    ("gpu-feature-discovery", ("crashloopbackoff", "error"), {"gfd-labels": 0.5,
                                                              "mig-monitor": 0.5}),
    ("", ("init:", "podinitializing"), {"operand-init": 1.0}),
)

# The cause a bundle check's failing finding stands for, where a catalog cause says the same
# (GX405 picks missing vs version from its params); other codes become causes of their own.
CHECK_CAUSE: dict[str, str] = {
    "GX101": "quota", "GX102": "runtimeclass-missing", "GX103": "request-invalid",
    "GX201": "taint-selector", "GX202": "not-advertised", "GX203": "unhealthy",
    "GX401": "nodes-unlabelled", "GX402": "operand-taint",
    "GX204": "exhausted", "GX205": "request-too-large", "GX301": "handler-missing",
    "GX302": "operand-init",
    "GX303": "envvar-ignored", "GX305": "cdi-unresolvable", "GX306": "device-lost",
    "GX307": "injection-failed", "GX404": "upgrade-failed", "GX406": "dcgm-connect",
    "GX407": "mig-failed", "GX412": "driver-os-mismatch", "GX413": "plugin-config-invalid",
    "GX414": "gfd-labels", "GX501": "dropin-overwrote", "GX504": "containerd-restart",
    "GX505": "xid", "GX506": "nouveau", "GX507": "secure-boot", "GX508": "kernel-upgraded",
    "GX509": "containerd-config",
    "GX602": "shared-request", "GX310": "admission-failed", "GX311": "cuda-requirement",
    "GX416": "gpu-unsupported", "GX512": "runtime-config-not-read", "GX513": "cri-disabled",
    "GX514": "runtime-not-default", "GX417": "mig-monitor", "GX418": "driver-in-use",
    "GX408": "plugin-config-not-applied", "GX409": "unsupported-stack",
    "GX604": "gpus-missing", "GX419": "mig-strategy", "GX420": "crd-stale",
}

# What to collect to tell two look-alike causes apart (unordered pairs); falls back to each
# cause's own ``collect``.
DISTINGUISH: dict[frozenset[str], str] = {
    frozenset({"not-advertised", "unhealthy"}):
        "compare capacity and allocatable of nvidia.com/gpu on the candidate nodes: absent or "
        "0/0 = not advertised; capacity > allocatable = unhealthy devices "
        "(`kubectl describe node <n>` Capacity/Allocatable)",
    frozenset({"unhealthy", "exhausted"}):
        "`kubectl describe node <n>`: capacity > allocatable means unhealthy devices; "
        "'Allocated resources' nvidia.com/gpu = allocatable means really full; plus "
        "`dmesg -T | grep -i xid` on the node",
    frozenset({"nodes-unlabelled", "operand-taint"}):
        "`kubectl get nodes --show-labels` (NFD's feature.node.kubernetes.io/pci-10de.present "
        "and nvidia.com/gpu.present on the GPU nodes) and the GPU nodes' taints against the "
        "DaemonSet's tolerations",
    frozenset({"request-too-large", "exhausted"}):
        "the pod's GPU limit against each node's free GPUs: `kubectl describe node <n>` "
        "Allocatable minus 'Allocated resources' nvidia.com/gpu (larger than every node's "
        "allocatable = too large; larger than what is free = full)",
    frozenset({"not-advertised", "exhausted"}):
        "capacity/allocatable of nvidia.com/gpu per node vs the sum allocated "
        "(`kubectl describe node <n>` 'Allocated resources')",
    frozenset({"nouveau", "secure-boot"}):
        "`lsmod | grep nouveau` (nouveau) vs `mokutil --sb-state` and "
        "`dmesg | grep -i 'key was rejected'` (Secure Boot)",
    frozenset({"nouveau-loaded", "secure-boot-enforced"}):
        "`lsmod | grep nouveau` (nouveau) vs `mokutil --sb-state` and "
        "`dmesg | grep -i 'key was rejected'` (Secure Boot)",
    frozenset({"fm-missing", "fm-version"}):
        "`systemctl status nvidia-fabricmanager` (missing/stopped) vs `nv-fabricmanager "
        "--version` against `cat /proc/driver/nvidia/version` (version mismatch)",
    frozenset({"nvml-init", "nvml-mismatch"}):
        "`cat /proc/driver/nvidia/version` vs the library in the container "
        "(`ls /usr/lib/x86_64-linux-gnu/libnvidia-ml.so.*`)",
    frozenset({"kernel-headers", "precompiled-kernel"}):
        "`uname -r` vs the driver image tag, and whether `driver.usePrecompiled` is set in the "
        "ClusterPolicy",
    frozenset({"driver-os-mismatch", "precompiled-kernel"}):
        "the failing tag: `<version>-<os>` (no image for this OS: GX412) vs "
        "`<branch>-<kernel>-<os>` (no precompiled image for this kernel), and "
        "`kubectl get nodes -o wide` for the GPU nodes' OS-IMAGE and KERNEL-VERSION",
    frozenset({"handler-missing", "dropin-overwrote"}):
        "`containerd config dump` (runtimes.nvidia absent) and `ls /etc/containerd/conf.d` with "
        "the `imports` line of config.toml: a drop-in that rewrites the cri section wipes the "
        "handler; a drop-in no `imports` names is never read; no drop-in at all means the "
        "toolkit has not run yet (its pod log)",
    frozenset({"unhealthy", "xid"}):
        "capacity vs allocatable on the node (`kubectl describe node <n>`) and the device "
        "plugin log (`XidCriticalError … marking device as unhealthy`)",
    frozenset({"secure-boot", "kernel-headers"}):
        "`mokutil --sb-state` and `dmesg | grep -iE 'key was rejected|lockdown'` (Secure Boot) "
        "vs the driver pod log for `linux-headers` / kernel source errors",
    frozenset({"nouveau", "kernel-headers"}):
        "`lsmod | grep nouveau` (nouveau) vs the driver pod log for `linux-headers` errors",
    frozenset({"containerd-config", "cri-disabled"}):
        "`grep -n disabled_plugins /etc/containerd/config.toml` (cri listed: disabled) vs "
        "`journalctl -u containerd | grep -iE 'failed to load plugin|invalid plugin config|toml'` "
        "(the CRI plugin failed to load)",
    frozenset({"driver-failing", "kernel-headers"}):
        "`kubectl -n gpu-operator logs <driver pod> -c nvidia-driver-ctr --previous | grep -iE "
        "'linux-headers|kernel-devel|kernel source|unable to locate package'` and `uname -r` on "
        "the node",
    frozenset({"injection-failed", "nvml-mismatch"}):
        "`cat /proc/driver/nvidia/version` vs `nvidia-smi` on the host (Driver/library version "
        "mismatch: reboot or reload the module after the driver upgrade)",
    frozenset({"nvml-init", "runtime-not-default"}):
        "`nvidia-smi` on the host (fails: the driver) vs `containerd config dump | grep "
        "default_runtime_name` and the plugin pod's runtimeClassName (runc: nothing injected)",
    frozenset({"nvml-init", "nouveau"}):
        "`lsmod | grep -E '^(nouveau|nvidia) '` on the node",
    frozenset({"injection-failed", "runtime-not-default"}):
        "the pod's runtimeClassName and `containerd config dump | grep -A3 runtimes.nvidia` "
        "(runtime not used) vs `nvidia-container-cli -k -d /dev/tty info` on the node (the "
        "runtime fails)",
    frozenset({"injection-failed", "unsupported-stack"}):
        "`nvidia-ctk info` or the hook's `Auto-detected mode as` line on the node: 'csv' is a "
        "Tegra (Jetson) system",
    frozenset({"not-advertised", "taint-selector"}):
        "`kubectl get nodes -o custom-columns=N:.metadata.name,GPU:.status.allocatable."
        "nvidia\\.com/gpu,TAINTS:.spec.taints[*].key` against the pod's tolerations and "
        "nodeSelector",
    frozenset({"dcgm-connect", "operand-init"}):
        "`kubectl -n gpu-operator get pods -o wide | grep -E 'dcgm|validator'` (Init: waits) and "
        "the exporter's DCGM_REMOTE_HOSTENGINE_INFO",
    frozenset({"runtime-config-not-read", "containerd-restart"}):
        "the toolkit's `Wrote updated config to <path>` vs `ps -o args= -C containerd` "
        "(--config) and `journalctl -u containerd | grep -E 'Started|Stopped|signal'`",
    frozenset({"runtime-config-not-read", "containerd-config"}):
        "the toolkit's `Wrote updated config to <path>` against the `imports` of the config "
        "containerd runs with (`containerd config dump | grep -E '^imports|runtimes.nvidia'`)",
    frozenset({"runtime-config-not-read", "handler-missing"}):
        "`containerd config dump | grep -c runtimes.nvidia` (0) and the toolkit's `Wrote "
        "updated config to <path>`: a path the daemon imports means the toolkit has not run "
        "since (restart it); one it does not import is never read (k3s/RKE2: config.toml.tmpl)",
    frozenset({"runtime-config-not-read", "dropin-overwrote"}):
        "`containerd config dump | grep -A3 runtimes.nvidia`, `ls /etc/containerd/conf.d` and "
        "the `imports` line: a drop-in written later that sets the cri section wipes the "
        "handler; the toolkit's file missing from `imports` is never read",
    frozenset({"dropin-overwrote", "containerd-config"}):
        "`containerd config dump` (does it load at all?) and the drop-ins in "
        "/etc/containerd/conf.d: a parse error is the config; a loaded dump without "
        "runtimes.nvidia is the drop-in that replaced the section",
    frozenset({"cuda-requirement", "injection-failed"}):
        "the image's NVIDIA_REQUIRE_CUDA (`docker inspect <image> | grep REQUIRE_CUDA`) vs "
        "`nvidia-smi` 'CUDA Version' on the node",
    frozenset({"not-advertised", "request-too-large"}):
        "`kubectl describe node <n>` Allocatable nvidia.com/gpu (absent or 0: not advertised) vs "
        "the pod's GPU limit (larger than any node: too large)",
    frozenset({"driver-failing", "driver-os-mismatch"}):
        "`kubectl get nodes -o wide` (OS-IMAGE of the failing node) vs the driver image tag in "
        "`kubectl -n gpu-operator get ds nvidia-driver-daemonset -o jsonpath="
        "'{.spec.template.spec.containers[0].image}'`",
    frozenset({"driver-failing", "precompiled-kernel"}):
        "the driver pod's events (`kubectl -n gpu-operator describe pod <driver pod>`: "
        "ErrImagePull on a <branch>-<kernel>-<os> tag) vs its log",
    frozenset({"driver-failing", "secure-boot"}):
        "`mokutil --sb-state` on the node and the driver pod log (`Key was rejected by service`)",
    frozenset({"driver-failing", "nouveau"}):
        "`lsmod | grep nouveau` on the node and the driver pod log",
    frozenset({"dcgm-connect", "dcgm-pod-resources"}):
        "the exporter's fatal line: `Error connecting to nv-hostengine` (DCGM) vs `failure "
        "connecting to '<socket>'` (kubelet's pod-resources; `ls -l /var/lib/kubelet/"
        "pod-resources/` on the node)",
    frozenset({"dcgm-connect", "dcgm-profiling"}):
        "the exporter's fatal line: `Error connecting to nv-hostengine` (DCGM unreachable) vs "
        "`Profiling is not supported` / `DCGM_ST_IN_USE` (profiling metrics)",
    frozenset({"mig-failed", "plugin-config-invalid"}):
        "`kubectl get node <n> -L nvidia.com/mig.config.state` (failed: mig-manager) and the "
        "device-plugin log (`unable to load config`: its own config)",
    frozenset({"gfd-labels", "nodes-unlabelled"}):
        "`kubectl get node <n> --show-labels | tr , '\\n' | grep -E 'pci-10de|nvidia.com/gpu."
        "(present|product)'`: no pci-10de/present = unlabelled; present but no product = GFD's "
        "labels dropped",
    frozenset({"xid", "exhausted"}):
        "`kubectl describe node <n>` (capacity > allocatable after the Xid, or Allocated = "
        "allocatable) and `dmesg -T | grep -i xid`",
    frozenset({"fm-missing", "nvml-init"}):
        "`systemctl status nvidia-fabricmanager` (NVSwitch systems) vs `nvidia-smi` on the host",
    frozenset({"handler-missing", "injection-failed"}):
        "`containerd config dump | grep -A3 runtimes.nvidia` (absent = handler missing; "
        "present = the runtime/hook itself fails)",
}


# ---- Dynamic Resource Allocation: one block, appended to the catalogs above ----------------------
# Scheduler: kubernetes/kubernetes@v1.34.0:pkg/scheduler/framework/plugins/dynamicresources/
# dynamicresources.go ("cannot allocate all claims", "resourceclaim not available on the node",
# "request %s: device class %s does not exist") and staging/src/k8s.io/dynamic-resource-allocation/
# resourceclaim/resourceclaim.go (ErrClaimNotFound "ResourceClaim not created yet"); allocator:
# structured/internal/stable/allocator_stable.go ("… CEL runtime error: …"); kubelet:
# pkg/kubelet/kuberuntime/kuberuntime_manager.go ("Failed to prepare dynamic resources: %v"),
# pkg/kubelet/cm/dra/manager.go ("NodePrepareResources failed for claim %s/%s: %s"),
# pkg/kubelet/cm/dra/plugin/registry.go ("DRA driver %s is not registered"); NVIDIA's driver:
# NVIDIA/k8s-dra-driver-gpu@v25.8.1:cmd/gpu-kubelet-plugin/driver.go ("error preparing devices
# for claim %v: %w") and its CDI vendor k8s.gpu.nvidia.com, class claim (cdi.go).
DRA_CAUSES: tuple[Cause, ...] = (
    Cause("dra-claim-missing", "GX208", "the pod names a ResourceClaim that does not exist",
          "`kubectl get resourceclaims -n <ns>` against the pod's spec.resourceClaims"),
    Cause("dra-template", "GX209", "no ResourceClaim was created from the pod's template",
          "`kubectl get resourceclaimtemplates -n <ns>` and the pod's "
          "status.resourceClaimStatuses"),
    Cause("dra-class-missing", "GX210", "a claim names a DeviceClass that does not exist",
          "`kubectl get deviceclasses`"),
    Cause("dra-no-slices", "GX211", "the DRA driver publishes no ResourceSlices",
          "`kubectl get resourceslices` (driver gpu.nvidia.com, per node) and the "
          "kubelet-plugin pods"),
    Cause("dra-selector", "GX212", "the class or request selector matches no published device",
          "`kubectl get resourceslices -o yaml`: the devices' attributes and capacity against "
          "the CEL selectors"),
    Cause("dra-exhausted", "GX213", "every matching DRA device is allocated to other claims",
          "`kubectl get resourceclaims -A -o wide` (allocated, reserved) against the slices"),
    Cause("dra-claim-node", "GX215", "the claim is allocated on a node the pod cannot go to",
          "`kubectl get resourceclaim <c> -o jsonpath='{.status.allocation.nodeSelector}'` "
          "against the pod's node constraints"),
    Cause("dra-selector-error", "GX218", "a CEL selector errors on a device",
          "`kubectl get deviceclass <class> -o yaml` and `kubectl get resourceclaim <c> -o "
          "yaml` (the CEL selectors)"),
    Cause("dra-prepare", "GX308", "the DRA driver's kubelet plugin failed to prepare the claim",
          "the kubelet-plugin log on the node (`kubectl logs -n <ns> <kubelet-plugin pod> -c "
          "gpus`)"),
    Cause("dra-cdi", "GX309", "the runtime cannot resolve the CDI devices of a DRA claim",
          "`ls /var/run/cdi` on the node (k8s.gpu.nvidia.com-claim_*.json)"),
    Cause("dra-driver-down", "GX415", "the DRA driver's kubelet plugin does not start",
          "`kubectl logs -n <ns> <kubelet-plugin pod> --previous` and `nvidia-smi -L` on the "
          "node (MIG devices created outside the driver)"),
    Cause("dra-imex-down", "GX415",
          "the ComputeDomain's IMEX daemon on the node never becomes ready",
          "`kubectl logs -n <ns> <compute-domain daemon pod>` and `nvidia-imex-ctl -q` in it; "
          "`kubectl get computedomain -o yaml` (status.nodes)"),
)
DRA_SIGNATURES: tuple[Signature, ...] = (
    _s("dra-cannot-allocate", "cannot allocate all claims", r"cannot allocate all claims",
       {"dra-exhausted": 2.0, "dra-selector": 1.5, "dra-no-slices": 1.5}, (EVENT, DESCRIBE)),
    _s("dra-claim-not-created", "resourceclaim not created yet",
       r"resourceclaim not created yet", {"dra-template": 4.0}, (EVENT, DESCRIBE, STATUS), True),
    _s("dra-claim-not-found", "resourceclaim",
       r"resourceclaims?(\.resource\.k8s\.io)? \"[^\"]+\" not found", {"dra-claim-missing": 4.0},
       (EVENT, DESCRIBE, STATUS), True),
    _s("dra-class-missing", "device class", r"device class \S+ does not exist",
       {"dra-class-missing": 4.0}, (EVENT, DESCRIBE, STATUS), True),
    _s("dra-not-on-node", "resourceclaim not available on the node",
       r"resourceclaim not available on the node", {"dra-claim-node": 3.0},
       (EVENT, DESCRIBE, STATUS)),
    _s("dra-cel-runtime", "cel runtime error", r"selector #\d+.*cel runtime error",
       {"dra-selector-error": 4.0}, (EVENT, DESCRIBE, STATUS, LOG), True),
    _s("dra-prepare-failed", "prepare dynamic resources|nodeprepareresources",
       r"failed to prepare dynamic resources|nodeprepareresources failed",
       {"dra-prepare": 3.0}, (EVENT, DESCRIBE)),
    _s("dra-driver-not-registered", "is not registered|registered dra plugins",
       r"dra driver \S+ is not registered|not found in the list of registered dra plugins",
       {"dra-prepare": 4.0}, (EVENT, DESCRIBE, LOG), True),
    # the kubelet plugin creates MIG devices per claim itself and refuses to start when it finds
    # MIG devices no claim prepared (made by hand with `nvidia-smi mig -cgi`, or by mig-parted)
    _s("dra-unprepared-mig", "aren't prepared to any claim|are not prepared to any claim",
       r"mig devices found that (?:aren't|are not) prepared to any claim",
       {"dra-driver-down": 4.0}, (LOG,), True),
    # the kubelet plugin's own Prepare errors (the claim's config or MIG profile cannot be
    # applied on this GPU)
    _s("dra-plugin-prepare", "preparing devices for claim|prepare devices failed|mig mode disabled|"
       "does not exist on gpu|gpu config|mps control daemon|not allocatable",
       r"error preparing devices for claim|prepare devices failed: |"
       r"cannot prepare a gpu with mig mode disabled|mig profile \S+ does not exist on gpu|"
       r"error (?:validating|applying|normalizing) gpu config|"
       r"mps control daemon is not yet ready|requested device is not allocatable",
       {"dra-prepare": 3.5}, (LOG, EVENT, DESCRIBE), True),
    # the kubelet plugin cannot start: no devices to enumerate, no CDI directory
    _s("dra-plugin-start", "enumerating all possible devices|device library|"
       "cdi file generation|nvidia-cdi-hook",
       r"error enumerating all possible devices|failed to create device library|"
       r"path for cdi file generation is not a directory|error setting up nvidia-cdi-hook",
       {"dra-driver-down": 3.5}, (LOG,), True),
    _s("dra-cdi-claim", "k8s.gpu.nvidia.com/claim",
       r"unresolvable cdi devices?.*k8s\.gpu\.nvidia\.com/claim=", {"dra-cdi": 5.0},
       (EVENT, STATUS, DESCRIBE), True),
    # the compute-domain daemon's readiness check runs nvidia-imex-ctl -q: its own refusal, or
    # the tool's answer when no daemon listens (gRPC code 14, UNAVAILABLE)
    _s("dra-imex-not-ready", "imex daemon|query status returned error code",
       r"imex daemon (?:not ready|check failed)|query status returned error code: \d+",
       {"dra-imex-down": 3.0}, (LOG, EVENT, DESCRIBE), True),
)
#: one real-format line per DRA signature (the catalog's test keeps each matching its line)
DRA_EXAMPLES: dict[str, str] = {
    "dra-cannot-allocate": "0/3 nodes are available: 1 node(s) didn't match Pod's node "
                           "affinity/selector, 2 cannot allocate all claims. preemption: 0/3 "
                           "nodes are available: 3 Preemption is not helpful for scheduling.",
    "dra-claim-not-created": 'pod "ml/job-0": ResourceClaim not created yet',
    "dra-claim-not-found": 'resourceclaim.resource.k8s.io "shared-gpus" not found',
    "dra-class-missing": "request gpu: device class gpu.nvidia.com.v2 does not exist",
    "dra-not-on-node": "0/2 nodes are available: 2 resourceclaim not available on the node.",
    "dra-cel-runtime": "claim ml/job-0-gpu-abcde: selector #0 on device gpu.nvidia.com/dra-1/"
                       "gpu-0: CEL runtime error: no such key: profile",
    "dra-prepare-failed": "Failed to prepare dynamic resources: NodePrepareResources failed for "
                          "claim ml/job-0-gpu-abcde: error preparing devices for claim 5f0c: "
                          "prepare devices failed: MPS control daemon is not yet ready",
    "dra-driver-not-registered": "Failed to prepare dynamic resources: prepare dynamic "
                                 "resources: DRA driver gpu.nvidia.com is not registered",
    "dra-unprepared-mig": "Error: unable to sync prepared devices from CRD: MIG devices found "
                          "that aren't prepared to any claim: map[GPU-fb94dd02-0d83-9a84-fc28-"
                          "4f82083afef0:map[MIG-14f88cdc-5b6d-521d-ac11-75b761535917:0xc00068a4b0]]",
    "dra-plugin-prepare": "E0312 10:02:10.000000 1 driver.go:158] error preparing devices for "
                          "claim 5f0c: prepare devices failed: cannot prepare a GPU with MIG "
                          "mode disabled: GPU-5c0f",
    "dra-plugin-start": "Error: error creating driver: error enumerating all possible devices: "
                        "error enumerating GPUs and MIG devices: error initializing NVML: "
                        "ERROR_LIBRARY_NOT_FOUND",
    "dra-cdi-claim": "failed to create containerd container: CDI device injection failed: "
                     "unresolvable CDI devices k8s.gpu.nvidia.com/claim=5f0c-gpu-0",
    "dra-imex-not-ready": "Startup probe failed: Query Status returned error code: 14 - failed "
                          "to connect to all addresses",
}
_DRA_SCHED = K + "pkg/scheduler/framework/plugins/dynamicresources/dynamicresources.go"
_DRA_SOURCES: dict[str, str] = {
    "dra-cannot-allocate": _DRA_SCHED,
    "dra-claim-not-created": K + "staging/src/k8s.io/dynamic-resource-allocation/resourceclaim/"
                                 "resourceclaim.go",
    "dra-claim-not-found": _DRA_SCHED,
    "dra-class-missing": _DRA_SCHED,
    "dra-not-on-node": _DRA_SCHED,
    "dra-cel-runtime": K + "staging/src/k8s.io/dynamic-resource-allocation/structured/internal/"
                           "stable/allocator_stable.go",
    "dra-prepare-failed": K + "pkg/kubelet/cm/dra/manager.go",
    "dra-driver-not-registered": K + "pkg/kubelet/cm/dra/plugin/registry.go",
    "dra-unprepared-mig": "NVIDIA/k8s-dra-driver-gpu@dc531f3a:cmd/nvidia-dra-plugin/"
                          "device_state.go",
    "dra-cdi-claim": CD + "pkg/cdi/oci_opt.go",
    "dra-plugin-prepare": "NVIDIA/k8s-dra-driver-gpu@v25.8.1:cmd/gpu-kubelet-plugin/"
                          "device_state.go",
    "dra-plugin-start": "NVIDIA/k8s-dra-driver-gpu@v25.8.1:cmd/gpu-kubelet-plugin/nvlib.go",
    "dra-imex-not-ready": GH + "kubernetes-sigs/dra-driver-nvidia-gpu/pull/333",
}
DRA_SIGNATURES = tuple(replace(sg, examples=(Example(DRA_EXAMPLES[sg.id], _DRA_SOURCES[sg.id]),))
                       for sg in DRA_SIGNATURES)
CAUSES = CAUSES + DRA_CAUSES
CAUSE_BY_ID.update({c.id: c for c in DRA_CAUSES})
CHECK_CAUSE.setdefault("GX415", "dra-driver-down")
SIGNATURES = SIGNATURES + DRA_SIGNATURES
SIGNATURES = SIGNATURES + STACK_SIGNATURES
SIGNATURES = SIGNATURES + RUNTIME_SIGNATURES
SIGNATURES = SIGNATURES + WORKLOAD_SIGNATURES
CAUSES = CAUSES + CONFIG_CAUSES
CAUSE_BY_ID.update({c.id: c for c in CONFIG_CAUSES})
SIGNATURES = SIGNATURES + CONFIG_SIGNATURES
SIGNATURES = SIGNATURES + DEVICES_SIGNATURES
DISTINGUISH[frozenset({"dra-exhausted", "dra-selector"})] = (
    "`gpuxray why <pod>` over a bundle with `cluster/resourceslices.json` and "
    "`cluster/resourceclaims.json`: which request matches no device (GX212) or only taken ones "
    "(GX213)")


# ---- Which cause explains which, among the catalog's causes (seed §4's tree) ---------------------
# A paste often holds the root and its symptoms together (the driver log and the validator
# waiting for it; a drop-in and the sandbox error it leads to). The symptom's line is often the
# more specific one, so it would outscore the root; ranking keeps each effect under a cause of
# it that the paste shows with evidence of its own. The code-level links are
# knowledge/causal.py's EDGES; these are the same links between the finer causes, plus the
# ones a bundle check never needs (the plugin's NVML failing because the driver is not loaded).
@dataclass(frozen=True, slots=True)
class CauseLink:
    cause: str
    effects: tuple[str, ...]
    source: str
    # the root's own evidence must name it first (a line whose strongest vote is the root, or
    # a check of its code): a line that only also votes for it does not count
    strict: bool = False
    # the effect's own lines that the root does not explain: where the effect carries one, the
    # effect keeps its rank (a claim's device held in the checkpoint by another claim is no
    # IMEX wait, though the earlier attempts of the same claim waited for IMEX)
    unexplained: tuple[str, ...] = ()


_DRIVER_ROOT_EFFECTS = ("driver-failing", "operand-init", "nvml-init", "not-advertised",
                        "injection-failed")
CAUSE_CHAIN: tuple[CauseLink, ...] = (
    *(CauseLink(root, _DRIVER_ROOT_EFFECTS,
              DRV + "ubuntu22.04/nvidia-driver (the install stops; the validator's driver "
              "stage and every later operand wait: " + OP + "cmd/nvidia-validator/main.go)")
    for root in ("nouveau", "secure-boot", "kernel-headers", "precompiled-kernel",
                 "driver-os-mismatch", "driver-in-use", "gpu-unsupported", "gpu-init",
                 "kernel-upgraded")),
    # a kernel upgraded under the driver leaves no module for it: the headers the rebuild
    # needs, or the precompiled package for the new kernel, are what the driver then misses
    CauseLink("kernel-upgraded", ("kernel-headers", "precompiled-kernel"),
              "seed §3; dell/dkms@v3.0.10:kernel_postinst.d_dkms (the rebuild on a new "
              "kernel)"),
    # an unattended upgrade that replaced the driver's user-space libraries under the loaded
    # kernel module is what NVML's "Driver/library version mismatch" then reports, until the
    # module is reloaded (NVML_ERROR_LIB_RM_VERSION_MISMATCH); only where the paste's own
    # upgrade log names the replaced packages
    CauseLink("kernel-upgraded", ("nvml-mismatch",),
              "NVIDIA/go-nvml@v0.12.0-1:pkg/nvml/nvml.h (NVML_ERROR_LIB_RM_VERSION_MISMATCH, "
              "\"RM has detected an NVML/RM version mismatch\")", strict=True),
    # the Ubuntu image on another OS's node looks for that kernel's headers and precompiled
    # packages, which no Ubuntu repository has
    CauseLink("driver-os-mismatch", ("precompiled-kernel", "kernel-headers"),
              DRV + "ubuntu22.04/precompiled/nvidia-driver (apt is asked for the running "
              "kernel's linux-objects/linux-signatures packages)"),
    CauseLink("gpu-unsupported", ("gpu-init",),
              OGKM + "src/nvidia/arch/nvalloc/unix/src/osapi.c (the module that refuses the GPU "
              "then fails to initialise it: RmInitAdapter failed)"),
    # the hook's and runc's wrappers ("error running hook", "OCI runtime create failed") carry
    # the CLI's own refusal: the refusal is the cause
    CauseLink("cuda-requirement", ("injection-failed",),
              "NVIDIA/libnvidia-container@6dcb29b1:src/cli/main.c (the CLI exits on the "
              "requirement; the hook reports its exit status)"),
    CauseLink("cdi-unresolvable", ("injection-failed",),
              CD + "pkg/cdi/oci_opt.go (CDI injection fails before the runtime starts)"),
    CauseLink("envvar-ignored", ("injection-failed",),
              "NVIDIA/nvidia-container-toolkit@v1.3.0:pkg/container_config.go"),
    CauseLink("driver-failing", ("operand-init", "nvml-init", "not-advertised",
                                 "injection-failed"),
              OP + "cmd/nvidia-validator/main.go (driver validation gates the later operands)"),
    CauseLink("nvml-mismatch", ("injection-failed", "nvml-init", "not-advertised"),
              GH + "NVIDIA/gpu-operator/issues/898 (the CLI's NVML init fails with the "
              "mismatch, so the hook fails)"),
    CauseLink("fm-missing", ("nvml-init", "not-advertised", "operand-init"),
              OP + "cmd/nvidia-validator/main.go (CUDA validation reports system not yet "
              "initialized without Fabric Manager)"),
    CauseLink("fm-version", ("fm-missing", "nvml-init", "not-advertised", "operand-init"),
              DRV + "ubuntu22.04/nvidia-driver (the daemon exits on the version check)"),
    CauseLink("dropin-overwrote", ("handler-missing", "operand-init",
                                   "not-advertised", "runtime-not-default"),
              "containerd/containerd@v1.7.34:services/server/config/config.go (an import "
              "replaces the plugin's table)"),
    CauseLink("runtime-config-not-read", ("handler-missing", "operand-init", "not-advertised",
                                          "runtime-not-default"),
              CTK + "cmd/nvidia-ctk/runtime/configure/configure.go (the runtime is written to "
              "one file; the daemon reads another)"),
    CauseLink("containerd-config", ("handler-missing", "operand-init", "not-advertised"),
              "containerd/containerd@v1.7.34:services/server/config/config.go"),
    CauseLink("cri-disabled", ("handler-missing", "operand-init", "not-advertised"),
              "containerd/containerd@v1.7.34:services/server/server.go (a disabled plugin is "
              "not loaded)"),
    CauseLink("handler-missing", ("operand-init", "not-advertised", "injection-failed"),
              OP + "controllers/object_controls.go (operands run with runtimeClassName nvidia)"),
    # the nvidia handler there but its runtime not injecting: the validator's toolkit stage,
    # which runs a container under that handler, keeps every later operand in Init
    CauseLink("injection-failed", ("operand-init",),
              OP + "cmd/nvidia-validator/main.go (the toolkit stage runs nvidia-smi in a "
              "container under the nvidia handler; later operands wait on its status file)"),
    CauseLink("runtime-not-default", ("not-advertised", "nvml-init"),
              DP + "internal/plugin/factory.go (no NVML in the plugin's container: no devices)"),
    # the single strategy refusing the node's layout: the plugin stops, nothing is advertised
    CauseLink("mig-strategy", ("not-advertised",),
              "NVIDIA/k8s-device-plugin@v0.17.0:internal/rm/device_map.go (single's uniform "
              "MIG check fails the device map, so no plugin starts)"),
    CauseLink("nodes-unlabelled", ("not-advertised", "gfd-labels"),
              OP + "controllers/state_manager.go (operand DaemonSets select on the deploy "
              "labels)"),
    CauseLink("operand-taint", ("not-advertised", "gfd-labels"),
              OP + "controllers/object_controls.go (operand DaemonSets' tolerations)"),
    CauseLink("plugin-config-invalid", ("not-advertised",),
              DP + "cmd/nvidia-device-plugin/main.go (the plugin exits on a config it cannot "
              "load)"),
    CauseLink("mig-monitor", ("not-advertised",),
              DP + "internal/rm/nvml_manager.go (no MIG devices enumerated, none advertised)"),
    CauseLink("mig-failed", ("not-advertised", "operand-init"),
              MIG + "deployments/container/reconfigure-mig.sh (the plugin is stopped while the "
              "layout is applied)"),
    CauseLink("xid", ("device-lost", "admission-failed"),
              DP + "internal/rm/health.go (critical Xids mark devices unhealthy)"),
    # a GPU an Xid made unhealthy is named by its allocation effect (GX203), the Xid second,
    # when the paste shows that effect with a line of its own (the plugin marking it, capacity
    # above allocatable); a kernel log alone stays the Xid's
    CauseLink("unhealthy", ("admission-failed",),
              K + "pkg/kubelet/cm/devicemanager/manager.go (no healthy devices to allocate)"),
    CauseLink("unhealthy", ("xid",),
              DP + "internal/rm/health.go (the plugin marks the device unhealthy; kubelet's "
              "allocatable drops: " + K + "pkg/kubelet/cm/devicemanager/manager.go)",
              strict=True),
    CauseLink("plugin-config-not-applied", ("shared-request",),
              OP + "controllers/object_controls.go (the operator does not watch the ConfigMap)"),
    CauseLink("dra-driver-down", ("dra-no-slices", "dra-prepare"),
              "NVIDIA/k8s-dra-driver-gpu@v25.8.1:cmd/gpu-kubelet-plugin/driver.go"),
    # the node's IMEX daemon not ready, or a device the health loop marked, is why the kubelet
    # plugin's Prepare of the claim failed: the wrapper line names the plugin, the inner error
    # the cause
    CauseLink("dra-imex-down", ("dra-prepare",),
              "NVIDIA/k8s-dra-driver-gpu@v25.12.0:cmd/compute-domain-kubelet-plugin/"
              "device_state.go (Prepare asserts the ComputeDomain ready on this node)",
              strict=True, unexplained=("dra-device-held",)),
    CauseLink("unhealthy", ("dra-prepare",),
              "NVIDIA/k8s-dra-driver-gpu@v25.12.0:cmd/gpu-kubelet-plugin/device_state.go "
              "(Prepare refuses a device the health loop marked unhealthy)", strict=True),
    CauseLink("unsupported-stack", ("injection-failed", "runtime-not-default", "dcgm-connect",
                                    "nvml-init", "not-advertised"),
              CTK + "internal/info/auto.go (CSV mode: a Tegra-based system); a plugin the "
              "kubelet's device-plugin API does not serve never registers (k8s.io/kubelet "
              "pkg/apis/deviceplugin)"),
)


# The host state a driver-container cause stands on: nouveau holding the GPU is the node's
# nouveau module (GX506), Secure Boot refusing the unsigned module is the node enforcing
# signatures (GX507) — knowledge/causal.py's GX506 -> GX403 and GX507 -> GX403 edges. Whatever
# printed the line (the installer in the driver pod, dmesg, lsmod), the host's code is the
# cause's own code and ranks first; the driver's GX403 follows as what it produced.
HOST_STATE_ROOTS: tuple[tuple[str, str], ...] = (
    ("nouveau", "nouveau-loaded"),
    ("secure-boot", "secure-boot-enforced"),
)
_HOST_ROOT = dict(HOST_STATE_ROOTS)


def lead_code(cause_id: str) -> str:
    """The code ``triage`` names first for a line of ``cause_id``: its host-state root's when
    it has one (nouveau -> GX506), else its own."""
    return CAUSE_BY_ID[_HOST_ROOT.get(cause_id, cause_id)].code


# ---- The component that printed a paste, and what usually breaks in it ------------------------
# When no line decides, the components the text comes from still narrow the causes (seed §1's
# component table: each component fails in a few known ways). ``log`` is a line shape the
# component prints on every start (its banner, its first log lines): a log of it that never
# reaches its ``ready`` line stopped somewhere. ``names`` are its pod, container and binary
# names: they show the component was involved, and count only where the paste also shows
# trouble (``TROUBLE``). The priors are small: any matched line outweighs them, they never
# decide, and a component whose log shows it ready gives none. A ready log still narrows the
# cause to what comes after the component in seed §2's path (``ready_priors``): a device plugin
# that registered advertises its GPUs, so a GPU that does not come is the allocation.
@dataclass(frozen=True, slots=True)
class Component:
    id: str
    log: str  # lower-case regexes over the lower-cased text; "" for none
    names: str
    ready: str
    priors: tuple[tuple[str, float], ...]
    source: str
    ready_priors: tuple[tuple[str, float], ...] = ()
    # the line shape the component's logger gives a failure it stops on (logrus/slog
    # ``level=fatal``, klog's ``F``/``E`` prefix), and the cause such a line stands for when no
    # signature knows its words: the component's own failure (seed §1), a vote, never deciding
    fatal: str = ""
    failing: tuple[tuple[str, float], ...] = ()


COMPONENTS: tuple[Component, ...] = (
    Component("driver-container",
              # its banner and install line, and the lines its load and shutdown steps print
              # (_load_driver: the firmware search path; _shutdown: unload and unmount)
              r"nvidia software installer|starting installation of nvidia driver|"
              r"configuring the following firmware search path in|"
              r"unloading nvidia driver kernel modules\.\.\.|unmounting nvidia driver rootfs\.\.\.|"
              # kbuild compiling the module sources of the installer's unpacked .run tree
              # (torvalds/linux@v6.8:scripts/Makefile.build ``quiet_cmd_cc_o_c`` "CC [M]"):
              # the driver being built, in its container or by a host install
              r"\bcc \[m\]\s+\S*/nvidia-linux-[\w.-]+/kernel",
              # its pod and container names, and the volumes only its DaemonSet mounts
              # (and GKE's own driver DaemonSet, the same role without the operator:
              # GoogleCloudPlatform/container-engine-accelerators@feb27ef3:
              # nvidia-driver-installer/cos/daemonset-preloaded.yaml)
              r"nvidia-driver-ctr|nvidia-driver-daemonset|k8s-driver-manager|"
              r"mlnx-ofed-usr-src|run-mellanox-drivers|nv-firmware|nvidia-driver-installer",
              r"done, now waiting for signal|userspace-only install complete",
              # seed §1's component table: the driver's failures include nouveau holding the GPU
              (("kernel-headers", 0.4), ("precompiled-kernel", 0.35),
               ("nouveau-loaded", 0.32), ("driver-failing", 0.3),
               ("driver-os-mismatch", 0.25), ("driver-in-use", 0.2)),
              DRV + "ubuntu22.04/nvidia-driver (banner \"NVIDIA Software Installer\", "
              "\"Starting installation of NVIDIA driver version %s\", \"Done, now waiting for "
              "signal\", \"Configuring the following firmware search path in '%s': %s\", "
              "\"Unloading NVIDIA driver kernel modules...\", \"Unmounting NVIDIA driver "
              "rootfs...\"); " + OP + "assets/state-driver/0500_daemonset.yaml (volumes)"),
    # its own start lines: the driver container's, and the wrapper Talos runs it under (which
    # starts NVLSM first on NVSwitch systems managed over InfiniBand, Blackwell HGX)
    Component("fabric-manager",
              r"starting nvidia fabric manager daemon|"
              r"nvidia-fabricmanager-wrapper: (?:running command|using nvswitch management port|"
              r"waiting for socket creation|infiniband: found nvswitch lpf)",
              # (an NVSwitch named by dcgm-exporter's entity walk, "Initializing system
              # entities of type: NvSwitch" / "... type 'NvSwitch'" and "Not collecting
              # NvSwitch metrics", is a line it prints on every start, with or without
              # switches: NVIDIA/dcgm-exporter@3.3.5-3.4.0:pkg/dcgmexporter/system_info.go)
              r"nv-fabricmanager|nvidia-fabricmanager\.service|fabric manager|"
              r"(?<!entities of type: )(?<!entities of type ')nvswitch(?! metrics)",
              # (no ready line: the wrapper says "initialization completed" before the daemon
              # it started can still exit, siderolabs/extensions issue 1073)
              "",
              (("fm-missing", 0.45), ("fm-version", 0.4)),
              DRV + "ubuntu22.04/nvidia-driver (\"Starting NVIDIA fabric manager daemon...\"); "
              "siderolabs/extensions@v1.13.9:nvidia-gpu/nvidia-fabricmanager/"
              "nvidia-fabricmanager-wrapper/main.go (\"nvidia-fabricmanager-wrapper: waiting for "
              "socket creation at\")"),
    Component("container-toolkit",
              r"installing nvidia container toolkit|installing toolkit|wrote updated config to|"
              r"using config version",
              r"nvidia-container-toolkit|nvidia-ctk|nvidia-toolkit",
              r"completed 'setup' for|successfully signaled containerd",
              (("runtime-config-not-read", 0.4), ("containerd-config", 0.35),
               ("handler-missing", 0.3), ("containerd-restart", 0.2)),
              CTK + "cmd/nvidia-ctk-installer/toolkit/toolkit.go (\"Installing NVIDIA container "
              "toolkit to '%v'\"); cmd/nvidia-ctk-installer/container/runtime/containerd/"
              "containerd.go (\"Completed 'setup' for %v\"); NVIDIA/nvidia-container-toolkit@"
              "v1.13.0:tools/container/containerd/containerd.go"),
    # the CLI's and the runtime's own error prefixes, and the CLI's commands; the toolkit
    # installer's log names the binaries it installs, which is no sign they ran
    Component("container-cli",
              # and the library's debug log (--debug, the hook's `debug` file): klog-style
              # lines from its sources, "nvc.c:396] initializing library context (version=…"
              r"nvidia-container-cli(?:\.real)?: |nvidia-container-runtime(?:-hook)?(?:\.real)?: |"
              r"^[ \t]*[iwe]\d{4} [\d:.]+ +\d+ nvc(?:_[a-z]+)?\.c:\d+\] ",
              r"nvidia-container-cli (?:info|list|-)|libnvidia-container", "",
              (("injection-failed", 0.4), ("runtime-not-default", 0.35), ("nvml-init", 0.3),
               ("cuda-requirement", 0.2)),
              CTK + "internal/runtime/runtime_factory.go; NVIDIA/libnvidia-container@6dcb29b1:"
              "src/cli/main.c; NVIDIA/libnvidia-container@v1.17.7:src/nvc.c (\"initializing "
              "library context (version=%s, build=%s)\")"),
    Component("device-plugin",
              # "Retreiving plugins." is how v0.12 spells it (pasted in
              # https://github.com/NVIDIA/k8s-device-plugin/issues/328)
              r"starting fs watcher|retr(?:ie|ei)ving plugins|starting os watcher|loading nvml",
              r"nvidia-device-plugin|k8s-device-plugin",
              r"registered device plugin (?:for|with kubelet)",
              (("runtime-not-default", 0.4), ("not-advertised", 0.35),
               ("plugin-config-invalid", 0.3), ("mig-monitor", 0.25), ("unhealthy", 0.2)),
              DP + "cmd/nvidia-device-plugin/main.go (\"Starting FS watcher for %v\", "
              "\"Retrieving plugins.\"); internal/plugin/server.go (\"Registered device plugin "
              "for '%s' with Kubelet\"); NVIDIA/k8s-device-plugin@v0.9.0:main.go "
              "(\"Loading NVML\")",
              # registered: kubelet has the devices; left are gate 1's allocation arithmetic
              # (kubernetes/kubernetes@v1.34.0:pkg/scheduler/framework/plugins/noderesources/
              # fit.go) and a config the running plugin never re-read
              (("exhausted", 0.3), ("request-too-large", 0.25),
               ("plugin-config-not-applied", 0.2)),
              # klog's error/fatal prefix (v0.10 on); v0.9 and before logged with Go's std
              # log: "2018/02/28 12:14:51 Could not register device plugin: %s"
              # (NVIDIA/k8s-device-plugin@v0.9.0:main.go)
              r"^\s*[ef]\d{4} \d\d:\d\d:\d\d|^\s*\d{4}/\d\d/\d\d \d\d:\d\d:\d\d "
              r"(?:could not|failed to|unable to|error)\b",
              (("not-advertised", 1.0),)),
    Component("feature-discovery", "", r"gpu-feature-discovery|\bgfd\b",
              r"writing labels to output file",
              (("gfd-labels", 0.4), ("mig-monitor", 0.3), ("plugin-config-invalid", 0.25)),
              DP + "cmd/gpu-feature-discovery/main.go; internal/lm/output.go"),
    Component("dcgm", r"starting dcgm-exporter", r"dcgm-exporter|nv-hostengine|\bdcgm\b",
              # serving, not only connected: "DCGM successfully initialized!" comes before
              # the collectors are built, where a crash at start still happens
              r"starting webserver",
              # it requests no GPU: its image's NVIDIA_VISIBLE_DEVICES=all is how it gets
              # them, so a runtime that ignores the variable leaves it with none
              (("dcgm-connect", 0.4), ("dcgm-profiling", 0.35), ("envvar-ignored", 0.3),
               ("dcgm-pod-resources", 0.25), ("unsupported-stack", 0.2)),
              "NVIDIA/dcgm-exporter@4.5.3-4.8.2:pkg/cmd/app.go (\"Starting dcgm-exporter\", "
              "\"DCGM successfully initialized!\"); internal/pkg/server/server.go; "
              "NVIDIA/dcgm-exporter@3.3.5-3.4.0:docker/Dockerfile.ubuntu22.04 "
              "(ENV NVIDIA_VISIBLE_DEVICES=all)",
              # logrus's fatal (2.x-3.x: logrus.Fatal) and slog's ERROR before os.Exit (4.x)
              fatal=r"level=(?:fatal|error)\b",
              failing=(("dcgm-exporter-failing", 1.0),)),
    Component("mig-manager",
              # (config-manager, vgpu-device-manager and the CC manager print the same words
              # about their own labels)
              r"waiting for change to 'nvidia\.com/mig\.config' label|updating to mig config|"
              r"asserting that the requested configuration",
              r"nvidia-mig-manager|mig-parted|mig-manager|mig\.config",
              r"successfully updated to mig config|mig configuration applied successfully",
              (("mig-failed", 0.4), ("mig-monitor", 0.25)),
              MIG + "cmd/nvidia-mig-manager/main.go (\"Waiting for change to '%s' label\", "
              "\"Successfully updated to MIG config: %s\")",
              fatal=r"level=(?:fatal|error)\b", failing=(("mig-failed", 1.0),)),
    Component("validator", "",
              r"nvidia-operator-validator|nvidia-validator|/run/nvidia/validations", "",
              (("driver-failing", 0.35), ("operand-init", 0.3), ("handler-missing", 0.25)),
              OP + "cmd/nvidia-validator/main.go"),
    Component("dra-driver", "", r"gpu\.nvidia\.com|dra-driver|gpu-kubelet-plugin|compute-domain",
              "", (("dra-driver-down", 0.4), ("dra-prepare", 0.35)),
              "NVIDIA/k8s-dra-driver-gpu@v25.8.1:cmd/gpu-kubelet-plugin/driver.go"),
    Component("containerd", "", r"containerd", "",
              (("containerd-config", 0.3), ("handler-missing", 0.25),
               ("dropin-overwrote", 0.2)),
              "containerd/containerd@v1.7.34:cmd/containerd/command/main.go"),
    # the kernel driver's own prefix: a GPU that did not come up, or reported errors
    Component("kernel-driver", "", r"\bnvrm: ", "",
              (("gpu-init", 0.3), ("xid", 0.25), ("gpu-unsupported", 0.2)),
              OGKM + "kernel-open/nvidia/nv.c (\"NVRM: \" prefix of every message)"),
    Component("scheduler", "", r"failedscheduling|0/\d+ nodes are available", "",
              (("not-advertised", 0.3), ("exhausted", 0.25), ("unhealthy", 0.2)),
              K + "pkg/scheduler/schedule_one.go (\"0/%v nodes are available\")"),
)

# Words of trouble in any component's output (klog's E/W line prefixes, logrus/slog levels,
# a describe's Ready False condition, the pod states kubectl prints:
# kubernetes/kubernetes@v1.34.0:pkg/printers/internalversion/printers.go): a paste of names
# only counts when it also shows one.
TROUBLE = (r"^\s*[ew]\d{4} |level=(?:error|fatal|warning)|^\s*(?:containers)?ready\s+false\b|"
           r"\b(?:error|failed|failure|fatal|"
           r"unable|cannot|could not|couldn't|not found|no such|denied|refused|timed out|"
           r"crashloopbackoff|back-off|errimagepull|imagepullbackoff|pending|init:\d|"
           r"unhealthy|panic|insufficient|mismatch|invalid|not ready)\b")

# ---- ClusterPolicy's not-ready states (facts.md §5.3) -------------------------------------------
# The operator's status names the operand states that are not ready ("ClusterPolicy is not
# ready, states not ready: [state-driver state-operator-validation]"). States run in this order
# and each waits for the one before (seed §4), so the earliest one named is where it stops; its
# usual causes get a vote, never deciding.
CLUSTERPOLICY_STATE_ORDER: tuple[tuple[str, tuple[tuple[str, float], ...]], ...] = (
    ("state-driver", (("driver-failing", 1.5),)),
    ("state-container-toolkit", (("containerd-config", 1.0), ("runtime-config-not-read", 1.0),
                                 ("handler-missing", 0.75))),
    ("state-operator-validation", (("operand-init", 1.25), ("driver-failing", 0.75))),
    ("state-device-plugin", (("not-advertised", 1.0), ("runtime-not-default", 1.0),
                             ("plugin-config-invalid", 0.75))),
    ("state-mps-control-daemon", (("plugin-config-invalid", 1.0),)),
    ("state-dcgm", (("dcgm-connect", 1.0),)),
    ("state-dcgm-exporter", (("dcgm-connect", 1.0), ("dcgm-profiling", 0.75))),
    ("gpu-feature-discovery", (("gfd-labels", 1.0),)),
    ("state-mig-manager", (("mig-failed", 1.25),)),
)
CLUSTERPOLICY_SOURCES = (OP + "controllers/state_manager.go (the states, in order); "
                         "NVIDIA/gpu-operator@v23.9.0:controllers/clusterpolicy_controller.go "
                         "(\"ClusterPolicy is not ready, states not ready: %v\")")
