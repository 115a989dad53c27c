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
linear in the input. ``EXAMPLES`` holds one real-format line per signature; a test keeps each
signature matching its example.
Sources: facts.md §2–§5, §8 (scheduler strings, kubelet/device-plugin texts, operator states,
Xid catalog); seed §1 (component failure table), §3, §4, §8.
"""

from __future__ import annotations

from dataclasses import dataclass

# Input kinds a signature appears in.
EVENT, STATUS, LOG, DMESG, JOURNAL, VALIDATOR, DESCRIBE, SMI, CONFIG = (
    "event", "status", "log", "dmesg", "journal", "validator", "describe", "nvidia-smi",
    "config")


@dataclass(frozen=True, slots=True)
class Cause:
    id: str
    code: str
    title: str
    collect: str  # what confirms this cause


@dataclass(frozen=True, slots=True)
class Signature:
    id: str
    needle: str  # lower-case literals ("a|b"): every matching line contains one of them
    pattern: str
    votes: tuple[tuple[str, float], ...]  # (cause id, weight)
    kinds: tuple[str, ...]
    deciding: bool = False  # only one cause prints this line

    @property
    def primary(self) -> str:
        return max(self.votes, key=lambda v: v[1])[0]


CAUSES: tuple[Cause, ...] = (
    Cause("quota", "GX101", "a ResourceQuota refuses the GPU request",
          "`kubectl describe resourcequota -n <ns>` (used vs hard for requests.nvidia.com/gpu)"),
    Cause("runtimeclass-missing", "GX102", "the pod names a RuntimeClass that does not exist",
          "`kubectl get runtimeclass`"),
    Cause("request-invalid", "GX103", "the GPU request is fractional or requests != limits",
          "the pod spec's resources (GPU limits must be whole numbers)"),
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
    Cause("handler-missing", "GX301", "containerd has no `nvidia` runtime handler",
          "`containerd config dump | grep -c runtimes.nvidia` on the node and "
          "`ls /etc/containerd/conf.d`"),
    Cause("operand-init", "GX302", "an operand waits in Init for an earlier stage",
          "`kubectl -n gpu-operator get pods -o wide` and the driver/toolkit pod logs on the node"),
    Cause("nvml-init", "GX304", "NVML cannot initialise: the driver is not loaded or unreachable",
          "`nvidia-smi` on the host and `lsmod | grep nvidia`"),
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
    Cause("precompiled-kernel", "GX403",
          "the precompiled driver image has no tag for this kernel (<branch>-<kernel>-<os>)",
          "`uname -r` on the node vs the driver image tag"),
    Cause("kernel-headers", "GX403", "kernel headers for the running kernel are missing",
          "`uname -r` and whether linux-headers-$(uname -r) is installable on the node"),
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
          "the exporter's DCGM_REMOTE_HOSTENGINE_INFO and the nvidia-dcgm pod/service"),
    Cause("dcgm-profiling", "GX406",
          "profiling metrics unsupported on this GPU or held by another exporter",
          "the GPU model and whether another DCGM/exporter runs on the node"),
    Cause("mig-failed", "GX407", "mig-manager failed to apply the MIG layout",
          "`kubectl get node <n> -L nvidia.com/mig.config,nvidia.com/mig.config.state` and the "
          "mig-manager log"),
    Cause("plugin-config-invalid", "GX413",
          "the device-plugin sharing/time-slicing config is unreadable or invalid",
          "the ConfigMap named by ClusterPolicy devicePlugin.config and the node's "
          "nvidia.com/device-plugin.config label"),
    Cause("gfd-labels", "GX414",
          "NFD drops GFD's nvidia.com labels (label namespace not allowed), so they come and go",
          "`kubectl get node <n> --show-labels | tr , '\\n' | grep nvidia.com/gpu.` and the "
          "nfd-master arguments (-extra-label-ns / -deny-label-ns)"),
    Cause("shared-request", "GX602",
          "a request > 1 of a shared (time-sliced/MPS) resource with failRequestsGreaterThanOne",
          "the sharing config's failRequestsGreaterThanOne and the pod's GPU request"),
    Cause("xid", "GX505", "the kernel reported Xid errors for a GPU",
          "`dmesg -T | grep -i xid` on the node (critical Xids make the plugin mark it unhealthy)"),
    Cause("containerd-restart", "GX504", "containerd was stopped by a signal and restarted",
          "`journalctl -u containerd | grep -E 'Started|Stopped|signal'`"),
    Cause("containerd-config", "GX509", "containerd could not load its configuration",
          "`containerd config dump` on the node"),
)
CAUSE_BY_ID: dict[str, Cause] = {c.id: c for c in CAUSES}


def _s(id: str, needle: str, pattern: str, votes: dict[str, float], kinds: tuple[str, ...],
       deciding: bool = False) -> Signature:
    return Signature(id, needle, pattern, tuple(votes.items()), kinds, deciding)


SIGNATURES: tuple[Signature, ...] = (
    # ---- admission / scheduling (facts.md §4; CODES.md 1xx/2xx) ---------------------------------
    _s("exceeded-quota", "exceeded quota",
       r"exceeded quota:?\s*\S+", {"quota": 4.0}, (EVENT, DESCRIBE), True),
    _s("runtimeclass-not-found", "runtimeclass",
       r"runtimeclass\W+\S+\W+not found|no runtimeclass|runtimeclass\.node\.k8s\.io \S+ not found",
       {"runtimeclass-missing": 4.0}, (EVENT, DESCRIBE), True),
    _s("extended-not-integer", "must be an integer",
       r"nvidia\.com/[\w.-]+\]?:? invalid value.*must be an integer", {"request-invalid": 4.0},
       (EVENT, DESCRIBE), True),
    _s("extended-requests-limits", "must be equal to",
       r"nvidia\.com/[\w.-]+\]?:? invalid value.*must be equal to .*limit",
       {"request-invalid": 4.0}, (EVENT, DESCRIBE), True),
    # Filters run taints/affinity before NodeResourcesFit (facts.md §4): when the same message
    # also says "Insufficient nvidia.com/…", some node passed them, so the taint is not the cause.
    _s("untolerated-taint", "untolerated taint",
       r"^(?!.*insufficient nvidia\.com/).*node\(s\) had untolerated taint",
       {"taint-selector": 2.5}, (EVENT, DESCRIBE)),
    _s("selector-mismatch", "didn't match pod's node affinity",
       r"^(?!.*insufficient nvidia\.com/).*didn't match pod's node affinity",
       {"taint-selector": 2.5}, (EVENT, DESCRIBE)),
    _s("insufficient-gpu", "insufficient nvidia.com/",
       r"insufficient nvidia\.com/[\w.-]+",
       {"not-advertised": 1.0, "unhealthy": 1.0, "exhausted": 1.0}, (EVENT, DESCRIBE)),
    _s("describe-gpu-zero", "nvidia.com/",
       r"^\s*nvidia\.com/(?:gpu|mig-[\w.]+):\s+0\s*$",
       {"not-advertised": 1.5, "unhealthy": 0.5}, (DESCRIBE,)),
    _s("shared-too-large", "maximum request size for shared resources",
       r"maximum request size for shared resources is 1", {"shared-request": 4.0},
       (EVENT, STATUS, DESCRIBE), True),
    # ---- device plugin (facts.md §3, §6, §8) ----------------------------------------------------
    _s("plugin-xid-unhealthy", "xidcriticalerror",
       r"xidcriticalerror:?\s*xid=\d+", {"unhealthy": 4.0, "xid": 1.0}, (LOG,), True),
    _s("plugin-marking-unhealthy", "unhealthy",
       r"marking (?:device )?\S* ?as unhealthy|device marked unhealthy|will go unhealthy",
       {"unhealthy": 3.0}, (LOG,), True),
    _s("plugin-no-devices", "no devices found",
       r"no devices found\.? waiting indefinitely", {"not-advertised": 3.0, "nvml-init": 0.5},
       (LOG,), True),
    _s("plugin-register-failed", "register",
       r"could not register device plugin|failed to register with kubelet|"
       r"error registering with kubelet",
       {"not-advertised": 3.0}, (LOG,), True),
    _s("plugin-load-config", "unable to load config",
       r"unable to load config", {"plugin-config-invalid": 4.0}, (LOG,), True),
    _s("config-manager-switch", "label|symlink|to update config|to switch config",
       r"(?:unable|failed) to (?:get|read|watch) (?:node )?labels?\b.*device-plugin\.config|"
       r"error (?:updating|setting) (?:the )?(?:config )?symlink|"
       r"(?:unable|failed) to (?:update|switch) (?:to )?config",
       {"plugin-config-invalid": 3.5}, (LOG,), True),
    _s("plugin-invalid-sharing", "invalid|parsing config|parse config|validate flags",
       r"invalid (?:sharing|time-?slicing|mps) config|error parsing config file|"
       r"unable to parse config|unable to validate flags",
       {"plugin-config-invalid": 3.5}, (LOG,), True),
    # ---- gate 2 runtime (facts.md §2.3, §5.5) ---------------------------------------------------
    _s("no-runtime-handler", "no runtime for",
       r"no runtime for \"?[\w.-]+\"? is configured", {"handler-missing": 4.0}, (EVENT, DESCRIBE),
       True),
    _s("cri-handler-unknown", "runtime handler|runtimehandler",
       r"runtime ?handler \"?[\w.-]+\"? (?:not supported|is not configured|not found)|"
       r"failed to find runtime handler \"?[\w.-]+",
       {"handler-missing": 3.5}, (EVENT, DESCRIBE), True),
    _s("cdi-unresolvable", "cdi device",
       r"unresolvable cdi devices?|failed to inject cdi devices|cdi device injection failed",
       {"cdi-unresolvable": 4.0}, (EVENT, STATUS, DESCRIBE), True),
    _s("cdi-none-generated", "cdi devices",
       r"found 0 cdi devices", {"cdi-unresolvable": 3.0}, (LOG, CONFIG), True),
    _s("envvar-unprivileged", "when-unprivileged|when_unprivileged",
       r"accept[-_]nvidia[-_]visible[-_]devices[-_]envvar[-_]when[-_]unprivileged\W*[=:]\s*"
       r"\"?false", {"envvar-ignored": 3.0}, (CONFIG, DESCRIBE), True),
    _s("nvidia-cli-init", "nvidia-container-cli",
       r"nvidia-container-cli:? (?:initialization|mount|ldcache|detection) error",
       {"injection-failed": 3.5, "nvml-init": 0.5}, (EVENT, STATUS, DESCRIBE), True),
    _s("oci-create-failed", "oci runtime create failed",
       r"oci runtime create failed", {"injection-failed": 1.5}, (EVENT, STATUS, DESCRIBE)),
    _s("hook-failed", "hook",
       r"error running (?:prestart|createcontainer) hook|error running hook #?\d*",
       {"injection-failed": 2.5}, (EVENT, STATUS, DESCRIBE), True),
    _s("runtime-binary-missing", "nvidia-container-runtime",
       r"nvidia-container-runtime[\w.]*\"?:? (?:executable file not found|no such file)",
       {"injection-failed": 4.0}, (EVENT, STATUS, DESCRIBE), True),
    # ---- NVML / driver in containers (facts.md §8; seed §4) -------------------------------------
    _s("nvml-version-mismatch", "version mismatch",
       r"driver/library version mismatch", {"nvml-mismatch": 4.0}, (LOG, STATUS, SMI), True),
    _s("nvml-unknown-error", "unknown error",
       r"nvml: unknown error|failed to initialize nvml: unknown error",
       {"device-lost": 4.0}, (LOG, STATUS, SMI), True),
    _s("nvml-init-failed", "failed to initialize nvml",
       r"failed to initialize nvml(?!: unknown error)(?!: driver/library)",
       {"nvml-init": 2.0, "nouveau": 0.25, "secure-boot": 0.25}, (LOG, STATUS, SMI)),
    _s("nvml-lib-missing", "nvml|libnvidia-ml",
       r"could not load nvml library|libnvidia-ml\.so\.1: cannot open shared object",
       {"nvml-init": 2.0, "not-advertised": 0.5}, (LOG, STATUS)),
    _s("smi-no-driver", "couldn't communicate with the nvidia driver",
       r"couldn't communicate with the nvidia driver",
       {"nvml-init": 1.5, "nouveau": 0.5, "secure-boot": 0.5, "kernel-headers": 0.25},
       (SMI, LOG, VALIDATOR)),
    # ---- driver container / host driver (seed §3; CODES.md GX403) -------------------------------
    _s("insert-nvidia-failed", "nvidia",
       r"could not insert '?nvidia|modprobe: error: .*nvidia|"
       r"unable to load the (?:kernel module )?'?nvidia(?:\.ko)?'?",
       {"nouveau": 1.0, "secure-boot": 1.0, "kernel-headers": 0.25}, (LOG, DMESG, VALIDATOR)),
    _s("nvrm-probe-failed", "nvrm",
       r"nvrm: (?:the nvidia probe routine failed|no nvidia devices probed|"
       r"rminitadapter failed)",
       {"nouveau": 1.0, "secure-boot": 0.5, "fm-missing": 0.25}, (DMESG, LOG)),
    _s("nouveau-in-use", "nouveau",
       r"nouveau kernel driver is (?:currently )?in use|nouveau.*(?:is loaded|in use)|"
       r"^\s*nouveau\s+\d+\s+\d+|\bnouveau \d{4}:[0-9a-f]{2}:",
       {"nouveau": 4.0}, (LOG, DMESG, DESCRIBE), True),
    _s("secure-boot-key", "key was rejected",
       r"key was rejected by service", {"secure-boot": 4.0}, (LOG, DMESG), True),
    _s("secure-boot-verify", "module verification failed",
       r"module verification failed:? signature", {"secure-boot": 3.0}, (DMESG,), True),
    _s("secure-boot-lockdown", "lockdown",
       r"lockdown: .*unsigned module loading is restricted", {"secure-boot": 4.0}, (DMESG,), True),
    _s("secure-boot-enabled", "secureboot enabled",
       r"secureboot enabled", {"secure-boot": 2.0}, (SMI, LOG)),
    _s("precompiled-missing", "precompiled",
       r"precompiled.*(?:not (?:found|available)|does not match|mismatch|unable to find)|"
       r"(?:no|unable to find|could not find) (?:a )?precompiled",
       {"precompiled-kernel": 4.0}, (LOG, EVENT), True),
    _s("driver-image-kernel-tag", "nvidia/driver:",
       r"nvidia/driver:[\w.]+-\d+\.\d+\.\d+-[\w.-]+.*(?:not found|manifest unknown)",
       {"precompiled-kernel": 4.0}, (EVENT, DESCRIBE), True),
    _s("driver-image-os-tag", "nvidia/driver:",
       r"nvidia/driver:\d+\.\d+(?:\.\d+)?-(?:ubuntu|rhel|rhcos|centos|rocky|debian|sles)"
       r"[\d.]+\"?:? .*(?:not found|manifest unknown)",
       {"driver-os-mismatch": 4.0}, (EVENT, DESCRIBE), True),
    _s("kernel-source-missing", "kernel source",
       r"unable to find the kernel source tree", {"kernel-headers": 4.0}, (LOG,), True),
    _s("kernel-headers-missing", "linux-headers",
       r"unable to locate package linux-headers|linux-headers-\S+.*(?:not found|no installation "
       r"candidate)|could not install linux-headers",
       {"kernel-headers": 4.0}, (LOG,), True),
    _s("kernel-version-unresolved", "could not resolve linux kernel version",
       r"could not resolve linux kernel version", {"kernel-headers": 2.0,
                                                   "precompiled-kernel": 1.0}, (LOG,)),
    _s("upgrade-failed-label", "upgrade-failed",
       r"gpu-driver-upgrade-state[=:]\s*\"?upgrade-failed", {"upgrade-failed": 4.0},
       (DESCRIBE, LOG), True),
    # ---- Fabric Manager (seed §1, §3) -----------------------------------------------------------
    _s("system-not-initialized", "system not yet initialized",
       r"system not yet initialized", {"fm-missing": 1.5, "fm-version": 1.0},
       (VALIDATOR, LOG, SMI)),
    _s("fm-unit-missing", "fabricmanager",
       r"nvidia-fabricmanager(?:\.service)?.*(?:could not be found|not-found|inactive|"
       r"not running|no such file)|unit nvidia-fabricmanager\.service not found",
       {"fm-missing": 4.0}, (JOURNAL, LOG, SMI), True),
    _s("fm-state-inactive", "activestate=",
       r"^activestate=(?:inactive|failed)", {"fm-missing": 1.5}, (SMI,)),
    _s("fm-version-mismatch", "version",
       r"fabric ?manager.*version.*(?:mismatch|does not match|incompatible|not compatible)|"
       r"version mismatch.*fabric ?manager|nvswitch.*driver version.*mismatch",
       {"fm-version": 4.0}, (JOURNAL, LOG), True),
    # ---- DCGM exporter (seed §1) ----------------------------------------------------------------
    _s("dcgm-cannot-connect", "dcgm|hostengine",
       r"cannot connect to dcgm|error connecting to nv-hostengine|"
       r"(?:failed|unable) to connect to (?:the )?(?:remote )?(?:dcgm|hostengine)|"
       r"dcgm initialization error|dcgm_st_connection_not_valid",
       {"dcgm-connect": 4.0}, (LOG,), True),
    _s("dcgm-profiling", "profiling",
       r"profiling (?:module|metrics)?.*(?:is not supported|not supported|unsupported)",
       {"dcgm-profiling": 3.5}, (LOG,), True),
    _s("dcgm-fr", "dcgm_",
       r"dcgm_(?:fr_\w+|st_(?:in_use|profiling_not_supported|not_supported))",
       {"dcgm-profiling": 2.5}, (LOG,), True),
    # ---- MIG (facts.md §5.2, §6.3) --------------------------------------------------------------
    _s("mig-apply-error", "mig",
       r"error applying mig configuration|failed to apply mig|unable to (?:apply|set) mig|"
       r"error (?:validating|parsing) mig config|mig-parted.*(?:error|failed)",
       {"mig-failed": 4.0}, (LOG,), True),
    _s("mig-state-failed", "mig.config.state",
       r"mig\.config\.state'?\"?\s*(?:node )?(?:label )?(?:to |=|:)\s*'?\"?failed",
       {"mig-failed": 4.0}, (LOG, DESCRIBE), True),
    # ---- kernel / containerd (facts.md §1.4, §8) ------------------------------------------------
    _s("xid-kernel", "xid",
       r"nvrm: xid \(pci:[0-9a-f:.]+\): \d+", {"xid": 4.0, "unhealthy": 1.0}, (DMESG, JOURNAL),
       True),
    _s("containerd-signal", "signal",
       r"containerd.*(?:received signal|sent signal sighup)|sent signal sighup to main process",
       {"containerd-restart": 3.0, "handler-missing": 0.5}, (JOURNAL,), True),
    _s("containerd-config-error", "config|toml|plugin key",
       r"failed to load toml|unsupported config version|containerd config version \d+ is not "
       r"supported|invalid plugin key uri",
       {"containerd-config": 4.0}, (JOURNAL, LOG), True),
    _s("toolkit-config-dump-failed", "config dump|determine runtime config",
       r"(?:error|failed).*containerd config dump|containerd config dump.*(?:error|failed)|"
       r"unable to determine runtime config",
       {"containerd-config": 3.0}, (LOG,), True),
    # ---- NFD / GFD labels (seed §1) -------------------------------------------------------------
    _s("nfd-label-denied", "not allowed|denied label|ignoring label",
       r"namespace \"?nvidia\.com\"? is not allowed|"
       r"(?:denied|ignoring) label \"?nvidia\.com/|"
       r"nvidia\.com/[\w.-]+\"?\W+(?:label )?namespace (?:is )?not allowed",
       {"gfd-labels": 4.0}, (LOG,), True),
    # ---- operands in Init (seed §4) -------------------------------------------------------------
    _s("waiting-for-validation", "waiting for|/run/nvidia/validations/",
       r"waiting for (?:nvidia )?(?:driver|toolkit|container-toolkit|container stack|cuda|plugin)"
       r"(?:[- ]validation| to be ready| ready)?|/run/nvidia/validations/\S+-ready",
       {"operand-init": 2.0}, (LOG, VALIDATOR)),
    _s("init-status", "init:",
       r"\binit:(?:\d+/\d+|crashloopbackoff|error)", {"operand-init": 1.5}, (DESCRIBE,)),
)

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
    frozenset({"not-advertised", "exhausted"}):
        "capacity/allocatable of nvidia.com/gpu per node vs the sum allocated "
        "(`kubectl describe node <n>` 'Allocated resources')",
    frozenset({"nouveau", "secure-boot"}):
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
          "the claim's status.allocation.nodeSelector against the pod's node constraints"),
    Cause("dra-selector-error", "GX218", "a CEL selector errors on a device",
          "the selector expressions of the DeviceClass and the claim"),
    Cause("dra-prepare", "GX308", "the DRA driver's kubelet plugin failed to prepare the claim",
          "the kubelet-plugin log on the node (`kubectl logs -n <ns> <kubelet-plugin pod> -c "
          "gpus`)"),
    Cause("dra-cdi", "GX309", "the runtime cannot resolve the CDI devices of a DRA claim",
          "`ls /var/run/cdi` on the node (k8s.gpu.nvidia.com-claim_*.json)"),
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
    _s("dra-cdi-claim", "k8s.gpu.nvidia.com/claim",
       r"unresolvable cdi devices?.*k8s\.gpu\.nvidia\.com/claim=", {"dra-cdi": 5.0},
       (EVENT, STATUS, DESCRIBE), True),
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
    "dra-cdi-claim": "failed to create containerd container: CDI device injection failed: "
                     "unresolvable CDI devices k8s.gpu.nvidia.com/claim=5f0c-gpu-0",
}
CAUSES = CAUSES + DRA_CAUSES
CAUSE_BY_ID.update({c.id: c for c in DRA_CAUSES})
SIGNATURES = SIGNATURES + DRA_SIGNATURES
DISTINGUISH[frozenset({"dra-exhausted", "dra-selector"})] = (
    "`gpuxray why <pod>` over a bundle with `cluster/resourceslices.json` and "
    "`cluster/resourceclaims.json`: which request matches no device (GX212) or only taken ones "
    "(GX213)")
