"""Signatures of the components that hand GPUs to pods after the driver is up: the device plugin's
config-manager, mig-manager's state labels and the DRA driver's kubelet plugins, read from their
source where the core catalog (``signatures.py``) and the stack family
(``signatures_stack.py``) had no line for the failure yet.

Why a module of its own: each family below was found by walking every error the component
returns or logs at the cited tags and checking the instantiated line against the catalog; only
the lines a user pastes when a GPU pod gets no GPU, and that mean an existing cause, are here.
Wording variants of messages the catalog already knew widen the signature that holds them (in
their own modules). Components and tags:

* NVIDIA/mig-parted v0.5.5 (``deployments/gpu-operator/reconfigure-mig.sh``), v0.15.0 (the
  shell script under ``deployments/container`` and its Go port,
  ``pkg/mig/reconfigure/reconfigure.go``): the manager's own writes of the
  ``nvidia.com/mig.config.state`` label failing, and mig-parted's apply hooks
  (``cmd/nvidia-mig-parted/apply``);
* NVIDIA/k8s-device-plugin v0.17.0: GFD writing its labels through NFD's NodeFeature API
  (``internal/lm/output.go``) and the plugin waiting for the MPS control daemon
  (``internal/plugin/mps.go``, ``server.go``);
* NVIDIA/k8s-dra-driver-gpu v25.12.0 and v0.4.0 (the two latest tags): the GPU kubelet
  plugin's health loop removing or tainting a device in its ResourceSlice, the feature-gate
  check every binary runs at start, and the ComputeDomain kubelet plugin and daemon waiting on
  the node's IMEX daemon.

Patterns are lower case over the lower-cased line, keyed on the fixed words of the format string
(format verbs as wildcards); each is deciding only where no other cause prints that line.
"""

from __future__ import annotations

from gpuxray.knowledge.signature_types import (
    DESCRIBE,
    EVENT,
    LOG,
    STATUS,
    Signature,
    family_signature,
)

MIG055 = "NVIDIA/mig-parted@v0.5.5:deployments/gpu-operator/reconfigure-mig.sh"
MIG_SH = "NVIDIA/mig-parted@v0.15.0:deployments/container/reconfigure-mig.sh"
MIG_GO = "NVIDIA/mig-parted@v0.15.0:pkg/mig/reconfigure/reconfigure.go"
DRA = "NVIDIA/k8s-dra-driver-gpu@v25.12.0:"
DRA04 = "NVIDIA/k8s-dra-driver-gpu@v0.4.0:"
DP17 = "NVIDIA/k8s-device-plugin@v0.17.0:"


_s = family_signature


DEVICES_SIGNATURES: tuple[Signature, ...] = (
    # ---- mig-manager: its own node-label writes ------------------------------------------------
    # the manager cannot move nvidia.com/mig.config.state (pending, rebooting, the final
    # success/failed): the API refuses its patch (RBAC, the node gone) and the layout is left
    # unapplied; the shell version escapes the quotes around the state literally
    _s("mig-manager-state-label", "mig.config.state|failed to set state to",
       r"unable to set (?:the value of )?'nvidia\.com/mig\.config\.state' to |"
       r"exiting with incorrect value in 'nvidia\.com/mig\.config\.state'|"
       r"failed to set state to (?:pending|rebooting|success|failed): ",
       {"mig-failed": 3.0}, (LOG,), True,
       ("Unable to set the value of 'nvidia.com/mig.config.state' to 'pending'", MIG055),
       ("Unable to set 'nvidia.com/mig.config.state' to \\'success\\'", MIG_SH),
       ("Exiting with incorrect value in 'nvidia.com/mig.config.state'", MIG_SH),
       ('time="2026-08-20T10:00:00Z" level=info msg="Unable to set the value of '
        "'nvidia.com/mig.config.state' to 'rebooting'\"", MIG_GO),
       ('time="2026-08-20T10:00:00Z" level=error msg="Error: failed to set state to pending: '
        'nodes \\"gpu-1\\" is forbidden: User \\"system:serviceaccount:gpu-operator:'
        'nvidia-mig-manager\\" cannot patch resource \\"nodes\\" in API group \\"\\" at '
        'the cluster scope"', MIG_GO)),
    # mig-parted's apply runs the hooks file's steps around the change (the host services
    # stopped before a mode change and restarted after) and checks for a mode change left
    # pending: a failing hook or that query stops the apply, and the manager reports failed
    _s("mig-parted-hooks", "hook: |pending mig mode change",
       r"error running (?:apply-start|apply-exit|pre-apply-mode|pre-apply-config) hook: |"
       r"error checking pending mig mode change: ",
       {"mig-failed": 3.0}, (LOG,), True,
       ('time="2026-08-20T10:00:00Z" level=fatal msg="Error applying MIG configuration with '
        'hooks: error running pre-apply-mode hook: exit status 1"',
        "NVIDIA/mig-parted@v0.15.0:cmd/nvidia-mig-parted/apply/apply.go"),
       ('time="2023-10-20T10:00:00Z" level=error msg="Error running apply-exit hook: exit '
        'status 1"', "NVIDIA/mig-parted@v0.5.5:cmd/nvidia-mig-parted/apply/apply.go"),
       ("error checking pending MIG mode change: Insufficient Permissions",
        "NVIDIA/mig-parted@v0.15.0:cmd/nvidia-mig-parted/apply/mode.go")),
    # ---- DRA driver: the GPU kubelet plugin's health loop -------------------------------------
    # an Xid or a lost GPU makes the plugin republish its ResourceSlice without the device
    # (v25.x) or with a taint on it (v0.4): the scheduler then finds no device for the claim,
    # the DRA form of the device plugin's unhealthy devices
    _s("dra-device-unhealthy", "unhealthy notification for device|will be removed from resou|"
       "health event for device|requested device is not healthy",
       r"received unhealthy notification for device: |"
       r"device: \S+ is unhealthy, will be removed from reso\w* ?slice|"
       r"received (?:xid|gpu-lost) health event for device |"
       r"requested device is not healthy: ",
       {"unhealthy": 3.0, "xid": 0.5}, (LOG,), True,
       ("W0312 10:02:10.000000 1 driver.go:456] Received unhealthy notification for device: "
        "GPU-5c0f2a11-aaaa-bbbb-cccc-0123456789ab", DRA + "cmd/gpu-kubelet-plugin/driver.go"),
       ("W0312 10:02:10.000000 1 driver.go:476] Device: gpu-0 is unhealthy, will be removed "
        "from ResoureSlice", DRA + "cmd/gpu-kubelet-plugin/driver.go"),
       ("W0312 10:02:10.000000 1 driver.go:513] Received xid health event for device "
        "GPU-5c0f2a11-aaaa-bbbb-cccc-0123456789ab", DRA04 + "cmd/gpu-kubelet-plugin/driver.go"),
       # with NVMLDeviceHealthCheck on, Prepare refuses a claim's device the loop marked
       ("Failed to prepare dynamic resources: NodePrepareResources failed for claim ml/job-0-gpu: "
        "error preparing devices for claim 'ml/job-0-gpu:5f0c1d2e-3b4a-4c5d-8e9f-0a1b2c3d4e5f': "
        "prepare devices failed: requested device is not healthy: gpu-0",
        DRA + "cmd/gpu-kubelet-plugin/device_state.go")),
    # ---- DRA driver: the node's checkpoint still holds the device for another claim ---------
    # Prepare refuses a device that a claim prepared earlier still holds in the plugin's
    # checkpoint (a stale one after a retry, or two pools naming one GPU): the claim's own
    # failure, whatever the IMEX daemon was doing while earlier attempts waited
    _s("dra-device-held", "already allocated to different claim",
       r"requested device \S+ is already allocated to different claim",
       {"dra-prepare": 4.5}, (LOG, EVENT, DESCRIBE), True,
       ("error preparing devices for claim 'ml/job-0-channel-x2k:5f0c1d2e-3b4a-4c5d-8e9f-"
        "0a1b2c3d4e5f': prepare devices failed: requested device channel-0 is already allocated "
        "to different claim 4914da61-1a20-42b3-bf26-981025df4289",
        DRA + "cmd/compute-domain-kubelet-plugin/device_state.go"),
       ("prepare devices failed: requested device gpu-0 is already allocated to different claim "
        "5f0c1d2e-3b4a-4c5d-8e9f-0a1b2c3d4e5f", DRA + "cmd/gpu-kubelet-plugin/device_state.go")),
    # the claim's (or class's) config names a kind of device the request was not allocated
    # (a GpuConfig on a MIG device), or MPS under the DynamicMIG gate
    # ---- DRA driver: a claim's opaque config the GPU kubelet plugin cannot apply --------------
    _s("dra-config-rejected", "cannot apply gpuconfig|cannot apply migdeviceconfig|"
       "cannot apply vfiodeviceconfig|not yet supported when using featuregates",
       r"cannot apply (?:gpuconfig|migdeviceconfig|vfiodeviceconfig) to device |"
       r"mps is not yet supported when using featuregates\.dynamicmig=true",
       {"dra-prepare": 3.5}, (LOG, EVENT, DESCRIBE), True,
       ("prepare devices failed: cannot apply GpuConfig to device type mig (request: gpu)",
        DRA + "cmd/gpu-kubelet-plugin/device_state.go"),
       ('cannot apply MigDeviceConfig to device "gpu-0" of type "gpu" (request: mig)',
        DRA04 + "cmd/gpu-kubelet-plugin/device_state.go"),
       ("error preparing devices for claim 'ml/job-0-gpu:5f0c1d2e-3b4a-4c5d-8e9f-0a1b2c3d4e5f': "
        "prepare devices failed: MPS is not yet supported when using featureGates.DynamicMIG=true",
        DRA04 + "cmd/gpu-kubelet-plugin/device_state.go")),
    # ---- DRA driver: the feature-gate check every binary runs before it starts ----------------
    # the chart's featureGates enable two gates the driver cannot run together (or one without
    # the gate it needs): the kubelet plugin exits before it registers
    _s("dra-feature-gates", "feature gate validation failed|mutually exclusive with|"
       "to also be enabled",
       r"feature gate validation failed: |feature gate \S+ is currently mutually exclusive "
       r"with \S+|feature gate \S+ requires \S+ to also be enabled",
       {"dra-driver-down": 3.0}, (LOG, STATUS), True,
       ("Error: feature gate validation failed: feature gate DynamicMIG is currently mutually "
        "exclusive with MPSSupport", DRA04 + "pkg/featuregates/featuregates.go"),
       ("Error: feature gate validation failed: feature gate ComputeDomainCliques requires "
        "IMEXDaemonsWithDNSNames to also be enabled", DRA + "pkg/featuregates/featuregates.go")),
    # ---- DRA driver: ComputeDomains waiting on the node's IMEX daemon -------------------------
    # the ComputeDomain kubelet plugin refuses to prepare a channel claim until this node's
    # daemon reports ready; the daemon cannot join (no index left under maxNodesPerIMEXDomain)
    # or cannot (re)start nvidia-imex
    _s("dra-computedomain-node", "not ready in computedomain|no available indices within|"
       "starting imex daemon|ensure imex daemon is started",
       r"current node not ready in computedomain|"
       r"no available indices within maxnodesperimexdomain \(\d+\)|"
       r"error \(re\)starting imex daemon: |failed to ensure imex daemon is started: ",
       {"dra-imex-down": 3.5}, (LOG, EVENT, DESCRIBE), True,
       ("Failed to prepare dynamic resources: NodePrepareResources failed for claim "
        "ml/job-0-channel-x2k: error preparing devices for claim 'ml/job-0-channel-x2k:"
        "5f0c1d2e-3b4a-4c5d-8e9f-0a1b2c3d4e5f': prepare devices failed: error applying config: "
        "error asserting ComputeDomain Ready: current node not ready in ComputeDomain",
        DRA + "cmd/compute-domain-kubelet-plugin/device_state.go"),
       ("current node not ready in ComputeDomain",
        DRA04 + "cmd/compute-domain-kubelet-plugin/computedomain.go"),
       ("CD update: failed to insert/update node info in CD: no available indices within "
        "maxNodesPerIMEXDomain (18) for cliqueID 3b2c9f01-4c1e-4a0f-9e55-2f1d2c3b4a5e.32766",
        DRA + "cmd/compute-domain-daemon/cdstatus.go"),
       ("E0312 10:02:10.000000 1 main.go:300] IMEXDaemonUpdateLoop failed, initiate shutdown: "
        "error (re)starting IMEX daemon: failed to start process: fork/exec "
        "/usr/bin/nvidia-imex: no such file or directory",
        DRA + "cmd/compute-domain-daemon/main.go")),
    # ---- GFD writing its labels through NFD's NodeFeature API ----------------------------------
    # with useNodeFeatureAPI GFD hands its labels to NFD as a NodeFeature object per node; when
    # it cannot get, create or update it (the nodefeatures.nfd.k8s-sigs.io CRD absent, RBAC), the
    # node gets no GFD label at all (GFD exits; its main logs the returned error)
    _s("gfd-nodefeature-write", "nodefeature object",
       r"failed to (?:create|update) nodefeature object \"[^\"]*\": |"
       r"failed to get nodefeature object: ",
       {"gfd-nodefeature": 3.0}, (LOG, STATUS), True,
       ('E0312 10:02:10.000000 1 main.go:127] failed to create NodeFeature object '
        '"nvidia-features-for-gpu-1": the server could not find the requested resource (post '
        'nodefeatures.nfd.k8s-sigs.io)', DP17 + "internal/lm/output.go"),
       ('E0312 10:02:10.000000 1 main.go:127] failed to get NodeFeature object: '
        'nodefeatures.nfd.k8s-sigs.io "nvidia-features-for-gpu-1" is forbidden: User '
        '"system:serviceaccount:gpu-operator:nvidia-gpu-feature-discovery" cannot get resource '
        '"nodefeatures" in API group "nfd.k8s-sigs.io" in the namespace "gpu-operator"',
        DP17 + "internal/lm/output.go")),
    # ---- the device plugin under MPS sharing waiting for its control daemon --------------------
    # with sharing.mps configured the plugin asserts the node's MPS control daemon is healthy
    # before it serves the resource (internal/plugin/mps.go waitForDaemon); the daemon's pod
    # absent or failing on the node, the plugin does not start that resource
    _s("plugin-mps-daemon-unhealthy", "mps daemon",
       r"error waiting for mps daemon: |error checking mps daemon health: ",
       {"not-advertised": 2.0, "plugin-config-invalid": 0.5}, (LOG, STATUS), False,
       ("E0312 10:02:10.000000 1 main.go:374] Failed to start plugin: error waiting for MPS "
        "daemon: error checking MPS daemon health: failed to send command to MPS daemon: exit "
        "status 1", DP17 + "internal/plugin/server.go")),
)
