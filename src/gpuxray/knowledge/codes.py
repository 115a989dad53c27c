"""The finding catalog: every stable code of CODES.md with its name, default severity, the seed
section it comes from, a message template and a remedy.

Checks yield parameters; the words live here, next to the code, so a check's logic and its prose
can change independently and every renderer says the same thing.
"""

from __future__ import annotations

from dataclasses import dataclass

from gpuxray.knowledge.containerd_daemon import sighup_text
from gpuxray.knowledge.severity import Severity

E, W, I = Severity.ERROR, Severity.WARNING, Severity.INFO  # noqa: E741


@dataclass(frozen=True, slots=True)
class CodeInfo:
    code: str
    name: str
    severity: Severity
    seed: str
    summary: str
    message: str
    remedy: str


def _c(code: str, name: str, sev: Severity, seed: str, summary: str, message: str,
       remedy: str) -> CodeInfo:
    return CodeInfo(code, name, sev, seed, summary, message, remedy)


CATALOG: dict[str, CodeInfo] = {c.code: c for c in (
    # 1xx admission
    _c("GX101", "quota-exceeded", E, "§4",
       "The pod was never created: a ResourceQuota refuses the GPU request.",
       "{owner} cannot create pods: quota {quota} exceeded for {resource} "
       "(requested {requested}, used {used}, limited {limit})",
       "Raise the ResourceQuota's limit for the GPU resource or free GPUs held in the namespace."),
    _c("GX102", "runtimeclass-missing", E, "§2 gate 2, §4",
       "The pod names a runtimeClassName that no RuntimeClass object defines.",
       "runtimeClassName {runtime_class!r} is not defined by any RuntimeClass",
       "Create the RuntimeClass (the GPU Operator creates `nvidia` when its toolkit is enabled) "
       "or remove runtimeClassName from the pod spec."),
    _c("GX103", "gpu-request-invalid", E, "§2, §9",
       "An extended resource (GPU) must be requested in whole numbers with requests equal to "
       "limits.",
       "container {container!r}: {problem}",
       "Request GPUs as whole numbers under resources.limits (requests, if given, must equal "
       "limits); fractions need time-slicing or MIG, not fractional quantities."),
    # 2xx scheduling
    _c("GX201", "excluded-by-taint-or-selector", E, "§2 gate 1, §4",
       "Every node that has the GPU resource is excluded by an untolerated taint, the pod's "
       "nodeSelector or its required node affinity.",
       "all {excluded} GPU node(s) with {resource} exclude the pod: {reasons}",
       "Add the missing toleration (e.g. nvidia.com/gpu:NoSchedule) or fix the nodeSelector / "
       "affinity to match GPU nodes' labels."),
    _c("GX202", "resource-not-advertised", E, "§2 gate 1, §4; facts §3",
       "No schedulable node advertises the requested resource with capacity > 0.",
       "{resource} is not advertised where the pod could run: {detail}",
       "The device plugin is not registered: check the device-plugin pod on the GPU nodes and "
       "what blocks it (runtime handler, toolkit/driver validation). Capacity 0 with the name "
       "kept means the plugin disconnected more than 5 minutes ago."),
    _c("GX203", "devices-unhealthy", E, "§2; facts §3, §8",
       "Devices are advertised but not allocatable: unhealthy (e.g. after an Xid) or the plugin "
       "disconnected less than 5 minutes ago.",
       "{resource} on {nodes}: {detail}",
       "Look for Xid errors in the node's kernel log; the NVIDIA device plugin never marks a "
       "device healthy again until it restarts. allocatable 0 with capacity kept means the "
       "plugin just disconnected: check the device-plugin pod."),
    _c("GX204", "gpus-exhausted", E, "§2 gate 1, §6",
       "On every candidate node, GPUs already bound to pods equal allocatable: truly full.",
       "all {candidates} candidate node(s) are full for {resource}: {allocated} of "
       "{allocatable} allocated, pod needs {requested}",
       "Wait for or free GPUs held by other pods (see who holds them), add nodes, or look for "
       "idle-but-allocated pods."),
    _c("GX205", "request-exceeds-node-size", E, "§2 gate 1",
       "The pod asks for more of a resource than any single node can offer.",
       "pod requests {requested} {resource}; the largest node offers {largest}",
       "Split the workload or request at most the per-node GPU count."),
    _c("GX206", "fragmented", E, "§6",
       "Enough GPUs are free across the cluster, but no single fitting node has enough.",
       "{free_total} {resource} free in the cluster, at most {max_free} on one node; "
       "pod needs {requested}",
       "Consolidate (drain or reschedule small GPU pods), or request fewer GPUs per pod."),
    _c("GX207", "resource-name-mismatch", E, "§6; facts §6",
       "The pod asks for one GPU resource name while nodes advertise another.",
       "pod requests {resource}; GPU nodes advertise {advertised}",
       "Request the name the nodes advertise (time-slicing with renameByDefault gives "
       "nvidia.com/gpu.shared, MIG mixed strategy gives nvidia.com/mig-<profile>)."),
    # 2xx gate 1, Dynamic Resource Allocation: the allocator's arithmetic over ResourceSlices
    _c("GX208", "resource-claim-missing", E, "§2 gate 1, §4; DRA",
       "The pod names a ResourceClaim that does not exist: the scheduler waits for it.",
       "spec.resourceClaims[{entry}] names ResourceClaim {claim!r}, which does not exist in "
       "namespace {namespace}",
       "Create the ResourceClaim (or point the pod at a ResourceClaimTemplate so one is "
       "generated per pod)."),
    _c("GX209", "claim-template-not-instantiated", E, "§2 gate 1, §4; DRA",
       "The pod's ResourceClaimTemplate was not turned into a ResourceClaim for it "
       "(`ResourceClaim not created yet`): the template is missing, or the resourceclaim "
       "controller has not created the claim.",
       "spec.resourceClaims[{entry}]: {detail}",
       "Create the ResourceClaimTemplate in the pod's namespace; if it exists, check "
       "kube-controller-manager (its resource-claim-controller creates the claim)."),
    _c("GX210", "device-class-missing", E, "§2 gate 1; DRA",
       "A claim's request names a DeviceClass that does not exist (`device class … does not "
       "exist`).",
       "claim {claim} request {request} names DeviceClass {device_class!r}, which does not "
       "exist; defined: {defined}",
       "Install the DRA driver's DeviceClasses (NVIDIA's chart creates gpu.nvidia.com and "
       "mig.nvidia.com) or fix deviceClassName."),
    _c("GX211", "dra-driver-not-publishing", E, "§2 gate 1, §4; DRA",
       "No current ResourceSlice comes from the driver the DeviceClass selects: the driver is "
       "not deployed, its kubelet plugin has not registered, or its slices are stale after a "
       "restart.",
       "DeviceClass {device_class} selects driver {driver}: {detail}",
       "Check the DRA driver's kubelet-plugin pods on the GPU nodes (NVIDIA: "
       "nvidia-dra-driver-gpu-kubelet-plugin) and their logs; a node publishes its slice only "
       "while the plugin runs and is registered with kubelet."),
    _c("GX212", "dra-selector-matches-nothing", E, "§2 gate 1; DRA",
       "The class's or the request's CEL selector matches none of the published devices; the "
       "failing condition names the attribute.",
       "{source}: {failing!r} matches none of the {published} published {driver} device(s); "
       "{attribute} published: {values}",
       "Fix the selector (attribute names and values as the driver publishes them, e.g. "
       "productName, memory, profile), or add nodes whose devices match."),
    _c("GX213", "dra-devices-exhausted", E, "§2 gate 1, §6; DRA",
       "The devices that match the request are allocated to other claims: no admissible node "
       "has enough of them free.",
       "claim {claim} request {request} wants {wanted}: {allocated} of {matching} matching "
       "device(s) on admissible nodes are allocated, at most {max_free} free on one node; "
       "held by {holders}",
       "Wait for or free the claims that hold the devices (their pods), or add devices."),
    _c("GX214", "dra-devices-tainted", E, "§2 gate 1; DRA",
       "The matching devices that are free carry a NoSchedule/NoExecute device taint the "
       "request does not tolerate.",
       "claim {claim} request {request}: {tainted} free matching device(s) are tainted: "
       "{taints}",
       "Find why the driver or an admin tainted the devices (unhealthy GPU, maintenance); add "
       "a toleration to the request only where that is intended."),
    _c("GX215", "dra-claim-node-unavailable", E, "§2 gate 1; DRA",
       "The claim is already allocated on a node the pod cannot go to (`resourceclaim not "
       "available on the node`).",
       "claim {claim} is allocated on {nodes}: {detail}",
       "Let the pod go to the claim's node (tolerations, nodeSelector), or delete the claim's "
       "other users so it is deallocated, or give the pod its own claim."),
    _c("GX216", "dra-request-exceeds-node", E, "§2 gate 1, §6; DRA",
       "The request (a count, or allocationMode All) needs more matching devices than any "
       "single node has; all of a pod's devices come from one node.",
       "claim {claim} request {request} wants {wanted} device(s); the most on one node is "
       "{largest} ({total} across {nodes} node(s))",
       "Ask for at most the per-node device count, or split the workload across pods."),
    _c("GX217", "dra-claims-not-jointly-satisfiable", E, "§2 gate 1; DRA",
       "Each request has free matching devices, but no node satisfies all of the pod's claims "
       "together (matchAttribute constraints, requests competing for the same devices).",
       "no admissible node satisfies all claims together: {detail}",
       "Relax the claim's constraints or the per-request counts; check the constraint's "
       "attribute values per node."),
    _c("GX218", "dra-selector-error", E, "§2 gate 1; DRA",
       "A CEL selector fails to compile or errors at run time on a published device (e.g. an "
       "attribute that device lacks); the allocator aborts scheduling of the pod.",
       "{source}: {error}",
       "Guard attribute lookups in the expression (check `type` first, or use `has()`/`in`), "
       "and fix syntax errors."),
    # 3xx runtime
    _c("GX301", "runtime-handler-missing", E, "§2 gate 2, §4, §5",
       "containerd has no `nvidia` runtime handler, so pods with runtimeClassName nvidia cannot "
       "start.",
       "no runtime handler {handler!r} on {node}",
       "Restore the nvidia runtime in the effective containerd config (see GX501) and restart "
       "containerd."),
    _c("GX302", "operand-init-blocked", E, "§1, §3, §4",
       "An operand pod waits in an init container for an earlier stage "
       "(driver → toolkit → plugin).",
       "{pod} waits in init container {init!r} on {node}: stage {stage} not ready; upstream: "
       "{upstream}",
       "Fix the earlier stage named here; later operands start by themselves once its "
       "validation file appears."),
    _c("GX303", "no-gpu-requested", W, "§4, §9",
       "The container runs but asked for no GPU in limits, or sets NVIDIA_VISIBLE_DEVICES itself "
       "(which the toolkit ignores for unprivileged containers when "
       "accept-nvidia-visible-devices-envvar-when-unprivileged = false).",
       "container {container!r} {problem}",
       "Request nvidia.com/gpu under resources.limits; do not rely on NVIDIA_VISIBLE_DEVICES."),
    _c("GX304", "nvml-failure", E, "§4",
       "NVML or the driver fails inside the container.",
       "{subject_desc}: {line}",
       "A driver/library mismatch needs the driver reloaded or the node rebooted after a driver "
       "upgrade; `Failed to initialize NVML` usually means the driver is not loaded."),
    _c("GX305", "cdi-unresolvable", E, "§4; facts §5.5",
       "CDI device names cannot be resolved by any CDI spec on the node, or CDI is enabled and "
       "no nvidia.com/gpu CDI spec was generated on the node at all.",
       "{detail}",
       "Regenerate CDI specs (the toolkit writes /var/run/cdi/nvidia*.yaml) and check the "
       "device names requested."),
    _c("GX306", "device-access-lost", E, "§4",
       "The GPU was visible, then lost (`NVML: Unknown Error` after a systemd daemon-reload).",
       "{subject_desc}: {line}",
       "Restart the pod; use CDI or the nvidia-ctk systemd cgroup fix so daemon-reloads do not "
       "strip device access."),
    _c("GX307", "runtime-injection-failed", E, "§2 gate 2, §4",
       "The nvidia handler exists but the NVIDIA runtime or its hook fails at container create.",
       "{subject_desc}: {line}",
       "Check the runtime binary path (BinaryName) in the effective containerd config against "
       "the toolkit install under /usr/local/nvidia/toolkit, and the driver libraries "
       "(nvidia-container-cli needs libnvidia-ml.so.1 from a loaded driver)."),
    # 3xx gate 2, Dynamic Resource Allocation: the driver's kubelet plugin prepares CDI devices
    _c("GX308", "dra-prepare-failed", E, "§2 gate 2, §4; DRA",
       "The pod is bound, but kubelet could not have the DRA driver prepare its claims "
       "(`FailedPrepareDynamicResources`: NodePrepareResources errors, or the driver's kubelet "
       "plugin is not registered on the node).",
       "{node}: {detail}",
       "Read the DRA driver's kubelet-plugin log on the node (NVIDIA: "
       "nvidia-dra-driver-gpu-kubelet-plugin, container gpus); `is not registered` means the "
       "plugin is not running there or failed to register with kubelet."),
    _c("GX309", "dra-cdi-unresolvable", E, "§2 gate 2; DRA",
       "The driver prepared the claim, but the container runtime cannot resolve the CDI devices "
       "it named (no CDI spec for them, or CDI disabled in containerd).",
       "{node}: {detail}",
       "Check the claim's CDI spec under /var/run/cdi on the node (NVIDIA writes "
       "k8s.gpu.nvidia.com-claim_*.json) and that containerd has CDI enabled "
       "(enable_cdi, default on in containerd 2.x)."),
    _c("GX310", "device-admission-failed", E, "§2 gate 2, §4",
       "The pod was bound, then kubelet's device manager refused it at admission "
       "(UnexpectedAdmissionError): its device accounting disagrees with the scheduler's.",
       "{subject_desc}: {line}",
       "Delete the failed pod so its controller recreates it; if it recurs after kubelet or node "
       "restarts, check that the device plugin re-registered before pods were re-admitted."),
    _c("GX311", "cuda-requirement-unsatisfied", E, "§4",
       "The image requires a newer CUDA than the node's driver supports, so the NVIDIA hook "
       "refuses to start the container.",
       "{subject_desc}: {line}",
       "Use an image built for the node's CUDA version (nvidia-smi 'CUDA Version') or upgrade "
       "the driver; NVIDIA_DISABLE_REQUIRE=true skips the check at your own risk."),
    # 4xx operator
    _c("GX401", "gpu-node-unlabelled", E, "§1",
       "A node has an NVIDIA PCI device but lacks the labels operand DaemonSets select on.",
       "{node} has an NVIDIA device but {missing}",
       "Check NFD (feature.node.kubernetes.io/pci-10de.present) and the operator's labelling."),
    _c("GX402", "operand-taint-untolerated", E, "§1",
       "An operand DaemonSet does not tolerate a GPU node's taint, so it silently skips it.",
       "{daemonset} does not tolerate taint {taint} of {where}",
       "Add the toleration to the operand (ClusterPolicy daemonsets.tolerations)."),
    _c("GX403", "driver-not-ready", E, "§3",
       "The driver pod or host driver is failing.",
       "driver on {node}: {cause}",
       "Fix the named cause (blacklist nouveau, sign the module for Secure Boot, match the "
       "precompiled tag to the kernel, install headers)."),
    _c("GX404", "driver-upgrade-failed", E, "§3",
       "The driver upgrade controller marked the node upgrade-failed.",
       "{node}: nvidia.com/gpu-driver-upgrade-state={state}",
       "Read the driver pod logs on the node, fix the cause, then relabel the node to retry."),
    _c("GX405", "fabric-manager-missing", E, "§3",
       "An NVSwitch system whose Fabric Manager is absent, stopped or version-mismatched.",
       "{node}: NVSwitch system, Fabric Manager {cause} ({detail})",
       "Install and start nvidia-fabricmanager at exactly the driver's version."),
    _c("GX406", "dcgm-exporter-failing", W, "§1, §3",
       "The DCGM exporter crash-loops.",
       "{pod}: {cause}",
       "Point the exporter at a reachable DCGM host engine, or disable profiling metrics if "
       "another exporter holds them or the GPU lacks them."),
    _c("GX407", "mig-config-failed", E, "§6",
       "MIG reconfiguration failed or is stuck, or the requested layout is invalid.",
       "{node}: {cause}",
       "Read the mig-manager logs; validate the layout with `gpuxray mig`."),
    _c("GX408", "plugin-config-not-applied", W, "§6",
       "The device-plugin ConfigMap changed after the plugin pods started.",
       "{configmap} changed after {pod} started",
       "Restart the device-plugin pods (the operator does not watch the ConfigMap)."),
    _c("GX409", "unsupported-stack", W, "§3",
       "Operator version or GPU product outside the support matrix.",
       "{detail}",
       "Upgrade to a supported operator release; consumer GPUs are not supported."),
    _c("GX410", "clusterpolicy-not-ready", E, "§1",
       "ClusterPolicy status is not ready.",
       "ClusterPolicy {name} is {state}{operand_desc}",
       "Look at the operand named; the ClusterPolicy turns ready when all operands are."),
    _c("GX411", "operand-runtime-chain", E, "§2",
       "Operands use runtimeClassName nvidia; with the handler gone the device plugin cannot "
       "start, so advertising stops.",
       "{node}: {chain}",
       "Restore the nvidia runtime handler on the node; the operands then start in order."),
    _c("GX412", "driver-os-mismatch", W, "§3",
       "Driver-container mode with GPU nodes on OS images or kernels that no driver image "
       "(`<version>-<os>`, precompiled `<branch>-<kernel>-<os>`) or NVIDIADriver CR covers.",
       "{detail}",
       "Keep GPU nodes on one OS release, or set driver.useNvidiaDriverCRD and give every GPU "
       "node exactly one NVIDIADriver CR (nodeSelector per OS/kernel pool); with a host-installed "
       "driver (driver.enabled=false) the OS may be mixed."),
    _c("GX413", "plugin-config-invalid", E, "§6",
       "The device-plugin/GFD/MPS config a node runs under is missing, unparsable, has keys "
       "where the plugin ignores them, or config-manager could not switch to it.",
       "{target}: {problem}",
       "Fix the ConfigMap named by ClusterPolicy devicePlugin.config (the key named by the "
       "node's nvidia.com/device-plugin.config label, else config.default): `version: v1`, "
       "sharing settings under sharing.timeSlicing or sharing.mps (not under flags), replicas "
       "≥ 2; then restart the device-plugin pods (the operator does not watch the ConfigMap)."),
    _c("GX414", "gfd-labels-missing", W, "§1",
       "A GPU node lacks GFD's nvidia.com/gpu.product/.count/.memory labels, or they come and "
       "go (NFD master denying the nvidia.com namespace, NFD/GFD restarts).",
       "{node}: {detail}",
       "Check the gpu-feature-discovery pod on the node and the nfd-master arguments: "
       "nvidia.com must be an allowed label namespace (-extra-label-ns, not -deny-label-ns); "
       "fix crash-looping GFD/nfd-worker pods."),
    _c("GX415", "dra-driver-not-ready", E, "§1, §3; DRA",
       "The NVIDIA DRA driver's operands are not ready: its kubelet-plugin DaemonSet has "
       "unready pods, or a ComputeDomain stays NotReady.",
       "{subject_desc}: {detail}",
       "Look at the not-ready kubelet-plugin pods (logs of containers gpus/compute-domains) "
       "and, for ComputeDomains, at the IMEX daemons on the nodes listed in its status."),
    _c("GX416", "driver-gpu-unsupported", E, "§3",
       "The NVIDIA module loaded but cannot drive this GPU: the open kernel modules on a GPU "
       "without GSP, a driver branch that predates or dropped the GPU, or a data-center driver "
       "on a vGPU guest.",
       "{subject_desc}: {line}",
       "Pick the driver flavour the GPU needs: proprietary modules for pre-Turing GPUs "
       "(ClusterPolicy driver.kernelModuleType), a branch that lists the GPU, or the vGPU guest "
       "driver in a VM with vGPU."),
    _c("GX417", "mig-monitor-permission", E, "§6",
       "On a MIG GPU the device plugin or GFD runs without the right to monitor MIG devices "
       "(NVML `Insufficient Permissions`), so it fails or advertises nothing.",
       "{subject_desc}: {line}",
       "Give the plugin/GFD container NVIDIA_MIG_MONITOR_DEVICES=all (the operator and the "
       "plugin's Helm chart set it; hand-made manifests often do not)."),
    _c("GX418", "host-driver-conflict", E, "§3",
       "The driver container runs on a node whose host already has the NVIDIA modules loaded, "
       "so it cannot unload them and crash-loops.",
       "{subject_desc}: {line}",
       "Use the host driver (ClusterPolicy driver.enabled=false, or the "
       "nvidia.com/gpu.deploy.driver=false label on that node), or remove the host driver."),
    _c("GX419", "mig-strategy-mismatch", E, "§6",
       "The device plugin and GFD run with a MIG strategy that does not fit the node's MIG "
       "layout: `single` over GPUs with several MIG profiles or MIG-enabled and whole GPUs "
       "mixed (the plugin refuses to start, GFD labels the product `<model>-MIG-INVALID` with "
       "count 0), or `none` over MIG-enabled GPUs (whole GPUs advertised that no container can "
       "use).",
       "{subject_desc}: {detail}",
       "Run the strategy the layout needs: mixed (ClusterPolicy spec.mig.strategy, or the "
       "plugin/GFD config flags.migStrategy) for several profiles or a mix of MIG and whole "
       "GPUs, single only when every GPU of the node carries the same one profile, never none "
       "on MIG-enabled GPUs; or choose a uniform nvidia.com/mig.config (all-1g.10gb …). Pods "
       "then request what the strategy advertises: nvidia.com/gpu under single, "
       "nvidia.com/mig-<profile> under mixed."),
    _c("GX420", "clusterpolicy-crd-stale", E, "§1",
       "The operator's CRDs on the cluster (clusterpolicies.nvidia.com, "
       "nvidiadrivers.nvidia.com) are from an older release: helm installs CRDs only on first "
       "install and never upgrades them, so a newer chart's ClusterPolicy fields are rejected "
       "by validation or silently pruned, and an operator that watches NVIDIADriver cannot "
       "start without that CRD.",
       "{subject_desc}: {detail}",
       "Apply the CRDs of the operator release you run (`kubectl apply --server-side -f` the "
       "chart's crds/ directory: nvidia.com_clusterpolicies.yaml, nvidia.com_nvidiadrivers.yaml "
       "and NFD's), or upgrade with operator.upgradeCRD=true (the default from v25.3.0; the "
       "first such upgrade needs --disable-openapi-validation); then run the helm upgrade again "
       "so the ClusterPolicy carries its fields."),
    # 5xx node
    _c("GX501", "containerd-dropin-overwrote-cri", E, "§5",
       "A later config file replaced a plugin section wholesale and settings were lost.",
       "{node}: {culprit} {how} {plugin}; lost {lost}",
       "Copy the whole plugin section into the drop-in or move its settings into one file; on "
       "containerd 2.x sections deep-merge."),
    _c("GX502", "containerd-config-not-applied", W, "§5",
       "Config files changed after containerd started, or the running handlers differ.",
       "{node}: {detail}",
       "Restart containerd so it reads the current files (it does not hot-reload)."),
    _c("GX503", "containerd-restart-policy", W, "§5",
       "The containerd unit lacks Restart=always. " + sighup_text() + ".",
       "{node}: containerd.service has Restart={restart}, not always",
       "Set Restart=always in a systemd drop-in for containerd.service."),
    _c("GX504", "containerd-restarts", W, "§5",
       "The journal shows containerd restarts. SIGHUP leaves no line of containerd's own: "
       "it is killed (status 129) and systemd logs the restart. " + sighup_text() + ".",
       "{node}: containerd restarted {count} time(s), {sighup} by SIGHUP, {not_restarted} "
       "left down ({first} … {last})",
       "Correlate with toolkit restarts (it signals containerd) and config changes."),
    _c("GX505", "xid-errors", W, "§3; facts §8",
       "Xid events in the kernel log.",
       "{node}: Xid {xid} {mnemonic} ({meaning}) ×{count} on {where}; device plugin: {plugin}",
       "Critical Xids: the device plugin keeps the GPU unhealthy until the plugin pod restarts; "
       "drain the node, act per NVIDIA's Xid catalog (reset, reboot or replace the GPU), then "
       "restart the plugin pod. Application Xids (13, 31, 43, 45, 68, 109): fix the workload."),
    _c("GX506", "nouveau-loaded", E, "§3",
       "The nouveau module is loaded on a GPU node.",
       "{node}: nouveau is loaded or bound to the GPU (seen in {seen_in})",
       "Blacklist nouveau and rebuild the initramfs; reboot."),
    _c("GX507", "secure-boot-unsigned", E, "§3",
       "Secure Boot is on and the NVIDIA module is rejected as unsigned.",
       "{node}: {detail}",
       "Use signed precompiled drivers or enroll a MOK for the module."),
    _c("GX508", "kernel-auto-upgrade", W, "§3",
       "unattended-upgrades may upgrade the kernel under a driver container.",
       "{node}: {detail}",
       "Exclude kernel packages from unattended upgrades on GPU nodes."),
    _c("GX509", "containerd-config-invalid", E, "§5",
       "A containerd config file is unreadable or of a version the daemon cannot import, or "
       "the toolkit could not read it (`containerd config dump` failing in the toolkit).",
       "{node}: {detail}",
       "Fix the file named; keep drop-ins at the root config's version."),
    _c("GX510", "containerd-migration-dropped-dropin", E, "§5; facts §0",
       "containerd 2.0.2-2.2 migrated a version-2 drop-in after merging it under a version-3 "
       "root, and the migration kept the root's keys: the drop-in's runtimes or settings "
       "vanished.",
       "{node}: containerd {containerd_version} migrates {file} (version 2) after the merge and "
       "takes only keys the version-3 section lacks; {blocking} from {blockers} kept out {lost} "
       "(containerd 2.3 and later migrate each file first and keep them)",
       "Write the drop-in in the root's layout (version = 3, io.containerd.cri.v1.runtime), or "
       "move the root's runtimes table into the drop-in; containerd 2.3+ migrates each file "
       "before merging."),
    # 6xx capacity
    _c("GX512", "runtime-config-not-read", E, "§5",
       "The nvidia runtime was written to a containerd config file the running daemon never "
       "reads (outside its imports, or a k3s/RKE2 config.toml regenerated from its template).",
       "{subject_desc}: {line}",
       "Write the runtime where containerd reads it: a file matched by config.toml's `imports` "
       "(containerd 2.x: /etc/containerd/conf.d/*.toml); on k3s/RKE2 give the toolkit "
       "CONTAINERD_CONFIG=/var/lib/rancher/<k3s|rke2>/agent/etc/containerd/config.toml and "
       "CONTAINERD_SOCKET=/run/k3s/containerd/containerd.sock."),
    _c("GX513", "containerd-cri-disabled", E, "§5",
       "containerd's config disables the CRI plugin (`disabled_plugins = [\"cri\"]`, the file "
       "Docker's containerd.io package ships), so kubelet cannot use it.",
       "{subject_desc}: {line}",
       "Remove \"cri\" from disabled_plugins in /etc/containerd/config.toml (or regenerate it "
       "with `containerd config default`), then restart containerd."),
    _c("GX514", "nvidia-runtime-not-default", E, "§2 gate 2, §5",
       "The device plugin (or a GPU pod) runs under runc: nothing injects the driver libraries, "
       "so NVML cannot load inside it.",
       "{subject_desc}: {line}",
       "Run it with runtimeClassName nvidia, or make nvidia containerd's default runtime "
       "(toolkit NVIDIA_RUNTIME_SET_AS_DEFAULT / `nvidia-ctk runtime configure --set-as-default`); "
       "configuring Docker's daemon.json does not help a kubelet that uses containerd."),
    _c("GX601", "idle-but-allocated", W, "§6",
       "A GPU is allocated to a pod but idle while holding framebuffer.",
       "{pod} holds {gpu} on {node} idle: util {util}% (max {util_max}%), framebuffer "
       "{fb_mib} MiB ({basis}; idle = util ≤ {idle_util_pct}% with ≥ {idle_fb_mib} MiB held)",
       "Reclaim or right-size the workload; idle is not free."),
    _c("GX602", "shared-without-isolation", I, "§6",
       "Time-slicing/MPS multiplies the advertisement without memory isolation.",
       "{node}: {resource} is shared by {strategy}: capacity {capacity} = {physical_gpus} "
       "GPU(s) × {replicas} replicas; guaranteed memory per replica {guaranteed_mib} MiB "
       "(average {avg_mib_per_replica} MiB is arithmetic only); failRequestsGreaterThanOne "
       "{fail_requests_gt_one}; pods holding more than one replica: {pods_over_one}",
       "Set failRequestsGreaterThanOne: true and treat shared GPUs as best effort (no memory "
       "or fault isolation); use MIG where isolation matters."),
    _c("GX603", "mig-layout-waste", I, "§6",
       "A MIG layout leaves memory or compute slices unusable.",
       "{node}: MIG layout {config} on {gpus} × {model} leaves {unused_mem_slices} memory "
       "slice(s) (≈{unused_gb} GB) and {unused_compute_slices} compute slice(s) unusable",
       "Choose a layout that uses all slices (`gpuxray mig --model MODEL --layout …`)."),
    _c("GX604", "advertised-below-physical", W, "§6",
       "Advertised GPUs are fewer than physical GPUs × replicas.",
       "{node}: {resource} capacity {capacity} < {physical} physical × {replicas} replicas "
       "= {expected} ({missing} missing)",
       "Devices are lost or unhealthy: check Xid errors and the device-plugin logs."),
)}


def info(code: str) -> CodeInfo:
    return CATALOG[code]
