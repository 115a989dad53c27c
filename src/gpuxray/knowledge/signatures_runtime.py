"""Signatures of the runtime side: what the container runtime stack prints when a GPU container
cannot be created (seed §1's failure table, rows toolkit/runtime; seed §8).

Why a module of its own: each family here was read from one component's source at the cited
tag, so the catalog can be audited component by component. The components, in the order a
container create passes them:

* kubelet's device manager admitting the pod (``pkg/kubelet/cm/devicemanager``) and its gRPC
  client of the device plugin;
* the CRI runtime resolving the pod's handler: containerd's CRI plugin and runtime manager,
  CRI-O's runtime config;
* the OCI runtime running the hooks: runc's hook wrapper (its wording changed in 1.1 and 1.2),
  crun's;
* NVIDIA's runtime, its legacy hook and its CDI hook (``nvidia-container-runtime``,
  ``nvidia-container-runtime-hook``, ``nvidia-cdi-hook`` / ``nvidia-ctk hook``), the CDI
  library the runtimes share, and ``nvidia-ctk runtime configure`` / ``cdi generate``;
* libnvidia-container's ``nvidia-container-cli``, whose ``<stage> error: <detail>`` lines the
  legacy hook passes on (``src/cli/configure.c`` names the stages).

Each pattern is keyed on the message's fixed words, format verbs as wildcards, and allows the
escaped quotes (``\\"``) that journald and logrus add when the line is a field of another log
line. Votes follow what the code around the message means; a signature is deciding only where
no other cause prints that line.
"""

from __future__ import annotations

from gpuxray.knowledge.signature_types import (
    CONFIG,
    DESCRIBE,
    EVENT,
    JOURNAL,
    LOG,
    STATUS,
    Signature,
    family_signature,
)

CTK = "NVIDIA/nvidia-container-toolkit@"
CLI = "NVIDIA/libnvidia-container@"
CLI_REV = CLI + "e27a4a75:"  # src/cli/configure.c at this revision names every stage
CDI = "cncf-tags/container-device-interface@v1.0.1:pkg/cdi/"
RUNC = "opencontainers/runc@"
CRUN = "containers/crun@1.29.1:src/libcrun/container.c"
CD = "containerd/containerd@"
CRIO = "cri-o/cri-o@"
K = "kubernetes/kubernetes@"
DP = "NVIDIA/k8s-device-plugin@"
GH = "https://github.com/"

_CREATE = (EVENT, STATUS, DESCRIBE, LOG)  # a create error: pod events, statuses, daemon logs


_s = family_signature


RUNTIME_SIGNATURES: tuple[Signature, ...] = (
    # ---- kubelet device manager -------------------------------------------------------------
    # The gRPC stream kubelet holds to a registered plugin broke: the plugin exited or restarted
    # (or re-registered twice in a row); its devices drop out of allocatable until it registers
    # again and stays up.
    _s("kubelet-plugin-stream-ended", "listandwatch ended unexpectedly for device plugin",
       r"listandwatch ended unexpectedly for device plugin",
       {"not-advertised": 2.0}, (LOG, JOURNAL), False,
       ('E1017 12:05:33.335816    1655 client.go:90] "ListAndWatch ended unexpectedly for '
        'device plugin" err="rpc error: code = Unavailable desc = error reading from server: '
        'EOF" resource="nvidia.com/gpu"',
        K + "v1.30.0:pkg/kubelet/cm/devicemanager/plugin/v1beta1/client.go"),
       ("E0312 10:02:10.000000    1655 endpoint.go:106] listAndWatch ended unexpectedly for "
        "device plugin nvidia.com/gpu with error rpc error: code = Unavailable desc = transport "
        "is closing", K + "v1.20.0:pkg/kubelet/cm/devicemanager/endpoint.go")),
    # kubelet could not call back the socket a plugin registered (the plugin's socket is not
    # where kubelet looks: another kubelet root dir, or the plugin gone right after registering);
    # the plugin reports it as its registration failing
    _s("kubelet-plugin-dial-failed", "failed to dial device plugin|failed to get device plugin",
       r"failed to dial device plugin(?: with socketpath |: )|failed to get device plugin "
       r"options: ",
       {"not-advertised": 2.5}, (LOG, JOURNAL), False,
       ("E0312 10:02:10.000000    1655 manager.go:382] failed to dial device plugin with "
        "socketPath /var/lib/kubelet/device-plugins/nvidia-gpu.sock: context deadline exceeded",
        K + "v1.20.0:pkg/kubelet/cm/devicemanager/manager.go"),
       ("Could not register device plugin: rpc error: code = Unknown desc = failed to get device "
        "plugin options: rpc error: code = Unavailable desc = connection error",
        K + "v1.20.0:pkg/kubelet/cm/devicemanager/manager.go"),
       # 1.26 on: the v1beta1 client's dial, logged as a structured error
       ('E0312 10:02:10.000000    1655 client.go:62] "Unable to connect to device plugin client '
        'with socket path" err="failed to dial device plugin: context deadline exceeded" '
        'path="/var/lib/kubelet/device-plugins/nvidia-gpu.sock"',
        K + "008b3652:pkg/kubelet/cm/devicemanager/plugin/v1beta1/client.go")),
    # The device manager's other refusals at admission, wrapped as "Allocate failed due to %v,
    # which is unexpected": the resource is not (or no longer) registered, an old kubelet's
    # wording of it, and the plugin answering Allocate without a container response.
    _s("admission-plugin-not-registered", "allocate failed due to",
       r"allocate failed due to (?:can't allocate unregistered device|unknown device plugin "
       r"|endpoint not found in cache for a registered resource|no containers return in "
       r"allocation response|no devices found allocated in local cache)",
       {"admission-failed": 3.5, "not-advertised": 0.5}, (EVENT, STATUS, DESCRIBE), True,
       ("Allocate failed due to can't allocate unregistered device nvidia.com/gpu, which is "
        "unexpected", K + "v1.10.0:pkg/kubelet/cm/devicemanager/manager.go"),
       ("Allocate failed due to unknown Device Plugin nvidia.com/gpu, which is unexpected",
        K + "v1.30.0:pkg/kubelet/cm/devicemanager/manager.go"),
       ("Allocate failed due to endpoint not found in cache for a registered resource: "
        "nvidia.com/gpu, which is unexpected",
        K + "v1.30.0:pkg/kubelet/cm/devicemanager/manager.go"),
       ("Allocate failed due to no containers return in allocation response "
        "&AllocateResponse{ContainerResponses:[]*ContainerAllocateResponse{},}, which is "
        "unexpected", K + "v1.30.0:pkg/kubelet/cm/devicemanager/manager.go")),

    # the plugin's Allocate RPC broke at the transport (the plugin gone or restarting mid-call);
    # a plugin refusing the request answers code = Unknown with its own reason, left to the
    # signatures of those reasons
    _s("admission-allocate-rpc-error", "allocate failed due to rpc error",
       r"allocate failed due to rpc error: code = (?:unavailable|canceled|deadlineexceeded) "
       r"desc = ",
       {"admission-failed": 2.0, "not-advertised": 0.5}, (EVENT, STATUS, DESCRIBE), False,
       ("Warning  UnexpectedAdmissionError  2m  kubelet  Allocate failed due to rpc error: code "
        "= Unavailable desc = error reading from server: EOF, which is unexpected",
        K + "v1.30.0:pkg/kubelet/cm/devicemanager/manager.go")),

    # ---- containerd: the CRI plugin's runtime config ---------------------------------------
    # default_runtime_name names a runtime the runtimes table does not hold (the table a later
    # file replaced, or a toolkit that set the default and lost the section): the CRI plugin
    # refuses the whole config, so no pod starts on the node.
    _s("containerd-default-runtime-undefined", "no corresponding runtime configured in",
       r"no corresponding runtime configured in \W*containerd\.runtimes\W* for",
       {"containerd-config": 3.5, "handler-missing": 1.5, "dropin-overwrote": 0.5},
       (LOG, JOURNAL), True,
       ('level=warning msg="failed to load plugin io.containerd.grpc.v1.cri" error="invalid '
        'plugin config: no corresponding runtime configured in `containerd.runtimes` for '
        '`containerd` `default_runtime_name = \\"nvidia\\"`"',
        CD + "v1.7.0:pkg/cri/config/config.go"),
       ('no corresponding runtime configured in `containerd.runtimes` for `containerd` '
        '`default_runtime_name = "nvidia"`', CD + "v2.1.4:internal/cri/config/config.go")),
    # the handler exists but names a shim (runtime_type) that is not installed: a v1 shim type
    # removed in containerd 2.0, or a mistyped one; containers of that handler fail at create
    _s("containerd-shim-not-installed", "binary not installed",
       r"runtime \\?\"?[\w./-]+\\?\"? binary not installed",
       {"injection-failed": 2.5}, _CREATE, False,
       ('failed to create containerd task: failed to start shim: failed to resolve runtime '
        'path: runtime "io.containerd.runtime.v1.linux" binary not installed '
        '"containerd-shim-runtime-v1-linux": file does not exist: unknown',
        CD + "v1.7.0:runtime/v2/manager.go"),
       ('failed to start shim: failed to resolve runtime path: runtime "io.containerd.runc.v1" '
        'binary not installed "containerd-shim-runc-v1": file does not exist',
        CD + "v2.1.4:core/runtime/v2/shim_manager.go")),
    _s("containerd-runtime-name-invalid", "correct runtime name should be",
       r"invalid runtime name \S+, correct runtime name should be",
       {"containerd-config": 3.0, "injection-failed": 1.0}, _CREATE, True,
       ("invalid runtime name nvidia, correct runtime name should be either format like "
        "`io.containerd.runc.v1` or a full path to the binary",
        CD + "v1.7.0:runtime/v2/manager.go"),
       ("invalid runtime name nvidia, correct runtime name should be either format like "
        "`io.containerd.runc.v2` or a full path to the binary",
        CD + "v2.1.4:core/runtime/v2/shim_manager.go")),

    # ---- CRI-O: its runtime table ------------------------------------------------------------
    _s("crio-default-runtime-undefined", "but no runtime entry table",
       r"default_runtime set to \W*[\w.-]+\W*, but no runtime entry table",
       {"handler-missing": 3.5}, (LOG, JOURNAL), True,
       ('default_runtime set to "nvidia", but no runtime entry table '
        '[crio.runtime.runtimes.nvidia] was found', CRIO + "v1.30.0:pkg/config/config.go")),
    # CRI-O runs the legacy nvidia hook only from a directory its ``hooks_dir`` lists (default
    # /usr/share/containers/oci/hooks.d, pkg/config/config.go). The operator's toolkit
    # DaemonSet mounts its crio-hooks volume from /run/containers/oci/hooks.d, OpenShift's
    # path (assets/state-container-toolkit), and only later releases re-point it to the
    # default for other clusters (controllers/object_controls.go, "Update CRI-O hooks path to
    # use default path for non OCP cases"): a hooks_dir entry naming OpenShift's path on a
    # vanilla CRI-O is the hook written where CRI-O did not look
    _s("crio-hooks-dir-openshift-path", "run/containers/oci/hooks.d",
       r"^[+\s]*(?:hooks_dir\s*=\s*\[\s*)?[\"']/run/containers/oci/hooks\.d/?[\"'],?\s*\]?\s*$",
       {"runtime-config-not-read": 1.5, "handler-missing": 0.25}, (CONFIG, LOG), False,
       # (NVIDIA/gpu-operator@v1.7.0:assets/state-container-toolkit/0400_container_toolkit.yml
       # mounts crio-hooks from /run/containers/oci/hooks.d; @v23.9.0:controllers/
       # object_controls.go re-points it; cri-o/cri-o pkg/config/config.go: HooksDir)
       ('        "/run/containers/oci/hooks.d",',
        "https://github.com/NVIDIA/gpu-operator/issues/172")),
    # the nvidia handler's runtime_path is not an executable (the toolkit not installed there)
    _s("crio-runtime-path-invalid", "invalid runtime_path for runtime|empty runtime path for",
       r"invalid runtime_path for runtime '[^']+'|empty runtime path for runtime handler \S+",
       {"injection-failed": 3.0, "handler-missing": 0.5}, (*_CREATE, JOURNAL), True,
       ("validating runtime config: runtime validation: invalid runtime_path for runtime "
        "'nvidia': stat /usr/local/nvidia/toolkit/nvidia-container-runtime: no such file or "
        "directory", CRIO + "v1.34.0:pkg/config/config.go"),
       ("empty runtime path for runtime handler nvidia", CRIO + "v1.30.0:internal/oci/oci.go")),

    # ---- OCI runtimes: a hook failing ------------------------------------------------------
    # runc 1.2 names the hook kind: "error running %s hook #%d: %w" (createRuntime and
    # startContainer beside prestart/createContainer); pastes often carry only the tail of
    # the wrapped error on a line of its own ("createContainer hook #6: exit status 1").
    _s("oci-hook-kind-failed", "hook #",
       r"error running (?:createruntime|startcontainer) hook #\d+|"
       r"(?<!error running )\b(?:prestart|createruntime|createcontainer|startcontainer) hook "
       r"#\d+: (?:exit status \d+|fork/exec |signal: )",
       {"injection-failed": 2.5}, _CREATE, True,
       ("error during container init: error running createRuntime hook #0: exit status 1, "
        "stdout: , stderr: time=\"2025-03-04T10:00:00Z\" level=error msg=\"failed to create "
        "link [libcuda.so.1 /usr/lib64/libcuda.so]: failed to create symlink: file exists\"",
        RUNC + "v1.2.0:libcontainer/configs/config.go"),
       ("createContainer hook #6: exit status 1, stderr:",
        GH + "awslabs/amazon-eks-ami/issues/2790")),
    # crun's own words for a hook that failed; the NVIDIA hooks by path
    _s("crun-nvidia-hook-failed", "error executing hook",
       r"error executing hook \W*\S*nvidia[\w.-]*\W* \(exit code: \d+\)",
       {"injection-failed": 3.0}, _CREATE, True,
       ('crun: {"msg":"error executing hook `/usr/bin/nvidia-ctk` (exit code: 1)","level":'
        '"error","time":"2024-11-05T09:37:14.582274Z"}', CRUN),
       ("error executing hook `/usr/bin/nvidia-container-runtime-hook` (exit code: 1)",
        "containers/crun@1.8:src/libcrun/container.c")),
    # runc bind-mounting a driver file a CDI spec (or the mount list) names and the host no
    # longer has: the spec was generated for another driver version than the one installed
    _s("oci-driver-file-mount-missing", "to rootfs at|cannot stat `",
       r"mounting \\?\"[^\"\\]*(?:nvidia|libcuda)[^\"\\]*\\?\" to rootfs at .*"
       r"no such file or directory|"
       # crun's words for the same missing bind-mount source (src/libcrun/linux.c)
       r"cannot stat `[^`]*(?:nvidia|libcuda)[^`]*`: no such file or directory",
       {"injection-failed": 2.0, "cdi-unresolvable": 1.0}, _CREATE, False,
       ('runc create failed: unable to start container process: error during container init: '
        'error mounting "/usr/lib/x86_64-linux-gnu/libnvidia-ml.so.535.104.05" to rootfs at '
        '"/usr/lib/x86_64-linux-gnu/libnvidia-ml.so.535.104.05": stat /usr/lib/x86_64-linux-gnu'
        '/libnvidia-ml.so.535.104.05: no such file or directory: unknown',
        RUNC + "v1.1.0:libcontainer/rootfs_linux.go"),
       ('container init caused: rootfs_linux.go:76: mounting "/usr/bin/nvidia-smi" to rootfs '
        'at "/usr/bin/nvidia-smi" caused: stat /usr/bin/nvidia-smi: no such file or directory',
        RUNC + "v1.0.0:libcontainer/rootfs_linux.go"),
       ("Error: crun: cannot stat `/usr/lib/libnvidia-egl-wayland.so.1.1.13`: No such file or "
        "directory: OCI runtime attempted to invoke a command that was not found",
        GH + "containers/podman/issues/23935")),

    # ---- the CDI library (containerd, CRI-O, podman and the nvidia runtime share it) --------
    # a device node the spec names is not on the host: a stale spec (generated before a device
    # node changed, or on another machine) or a module not loaded
    _s("cdi-host-device-missing", "failed to stat cdi host device",
       r"failed to stat cdi host device \\?\"?/dev/\S+",
       {"cdi-unresolvable": 3.0, "injection-failed": 0.5}, _CREATE, False,
       ('Error: setting up CDI devices: failed to inject devices: failed to stat CDI host '
        'device "/dev/dri/renderD129": no such file or directory',
        CDI + "container-edits_unix.go"),
       ('failed to inject CDI devices: failed to inject devices: failed to stat CDI host device '
        '"/dev/nvidia-uvm": no such file or directory', CDI + "container-edits_unix.go")),
    # two spec files define one device (the operator's /var/run/cdi and a hand-made /etc/cdi):
    # the cache drops both, so the device does not resolve
    _s("cdi-conflicting-device", "conflicting device",
       r"conflicting device \\?\"[^\"\\]+=[^\"\\]+\\?\" \(specs ",
       {"cdi-unresolvable": 3.5}, (LOG, JOURNAL, EVENT, STATUS), True,
       ('level=warning msg="CDI registry refresh failed" error="conflicting device '
        '\\"nvidia.com/gpu=0\\" (specs \\"/etc/cdi/nvidia.yaml\\", '
        '\\"/var/run/cdi/nvidia.yaml\\")"', CDI + "cache.go")),

    # ---- nvidia-container-runtime --------------------------------------------------------------
    # the nvidia runtime found no low-level runtime to hand the container to (runc/crun not on
    # its PATH, or runtimes = [...] naming one the node lacks)
    _s("ctk-lowlevel-runtime-missing", "no runtime binary found from candidate list",
       r"no runtime binary found from candidate list",
       {"injection-failed": 3.5}, _CREATE, True,
       ("failed to create NVIDIA Container Runtime: error constructing low-level runtime: error "
        "locating runtime: no runtime binary found from candidate list: [docker-runc runc crun]",
        CTK + "v1.18.0:internal/oci/runtime_low_level.go"),
       ("error locating runtime: no runtime binary found from candidate list: [docker-runc runc]",
        CTK + "v1.13.0:internal/oci/runtime_low_level.go")),
    # the image's NVIDIA_REQUIRE_* checked by the runtime itself (CSV mode, Jetson): the same
    # condition libnvidia-container checks on other systems
    _s("ctk-requirements-not-met", "requirements not met",
       r"requirements not met: unsatisfied condition: ",
       {"cuda-requirement": 4.0}, _CREATE, True,
       ("failed to create NVIDIA Container Runtime: failed to construct OCI spec modifier: "
        "requirements not met: unsatisfied condition: cuda>=12.2 (cuda=11.4)",
        CTK + "v1.18.0:internal/modifier/csv.go")),
    _s("ctk-cdi-unresolved", "could not resolve cdi devices",
       r"could not resolve cdi devices: ",
       {"cdi-unresolvable": 3.0}, (LOG, EVENT, STATUS), True,
       ('level=warning msg="could not resolve CDI devices: [nvidia.com/gpu=0]"',
        CTK + "v1.18.0:internal/modifier/cdi/registry.go")),
    # the runtime's CDI cache reporting specs it could not load: which devices that hides, the
    # rest of the paste tells
    _s("ctk-cdi-registry-errors", "refreshing the cdi registry|failed to load cdi spec",
       r"refreshing the cdi registry (?:generated errors|returned the following error)|"
       r"failed to load cdi spec",
       {"cdi-unresolvable": 1.5}, (LOG, JOURNAL), False,
       ('level=warning msg="Refreshing the CDI registry generated errors: failed to load CDI '
        'Spec open /etc/cdi/nvidia.yaml: permission denied"',
        CTK + "v1.18.0:internal/modifier/cdi/registry.go"),
       ('level=warning msg="Refreshing the CDI registry returned the following error(s): '
        '[failed to load CDI Spec invalid device, empty device edits]"',
        CTK + "v1.14.0:cmd/nvidia-ctk/cdi/list/list.go")),
    # the automatic runtime.nvidia.com devices cannot be mixed with a spec's devices
    _s("ctk-cdi-vendor-mixed", "vendor 'runtime.nvidia.com' is not supported",
       r"cdi device with vendor 'runtime\.nvidia\.com' is not supported when requesting other",
       {"injection-failed": 2.5}, _CREATE, True,
       ("failed to construct OCI spec modifier: requesting a CDI device with vendor "
        "'runtime.nvidia.com' is not supported when requesting other CDI devices",
        CTK + "v1.16.0:internal/modifier/cdi.go")),

    # ---- nvidia-container-runtime-hook (legacy mode) ----------------------------------------
    _s("hook-cli-missing", "couldn't find binary nvidia-container-cli",
       r"couldn't find binary nvidia-container-cli in",
       {"injection-failed": 4.0}, _CREATE, True,
       ('panic: couldn\'t find binary nvidia-container-cli in /usr/local/sbin:/usr/local/bin:'
        '/usr/sbin:/usr/bin:/sbin:/bin : exec: "nvidia-container-cli": executable file not '
        'found in $PATH', CTK + "v1.13.0:cmd/nvidia-container-runtime-hook/main.go"),
       ('couldn\'t find binary nvidia-container-cli in PATH: exec: "nvidia-container-cli": '
        'executable file not found in $PATH',
        CTK + "v1.20.0:cmd/nvidia-container-runtime-hook/main.go")),
    _s("hook-config-missing", "couldn't open",
       r"couldn't open (?:required |default )?configuration file: ",
       {"injection-failed": 3.0}, _CREATE, True,
       ("couldn't open required configuration file: open /etc/nvidia-container-runtime/"
        "config.toml: no such file or directory",
        CTK + "v1.18.0:cmd/nvidia-container-runtime-hook/hook_config.go"),
       ("panic: couldn't open default configuration file: open /etc/nvidia-container-runtime/"
        "config.toml: no such file or directory",
        CTK + "v1.13.0:cmd/nvidia-container-runtime-hook/hook_config.go")),
    # the container's NVIDIA_DRIVER_CAPABILITIES (or MIG envvars) the hook refuses
    _s("hook-request-refused", "unsupported capabilities found in|unknown driver capability|"
       "in non privileged container",
       r"unsupported capabilities found in '|unknown driver capability: |"
       r"cannot set mig_(?:config|monitor)_devices in non privileged container",
       {"injection-failed": 3.0}, _CREATE, True,
       ("panic: unsupported capabilities found in 'compute,utility,vidoe' (allowed 'compat32,"
        "compute,display,graphics,ngx,utility,video')",
        CTK + "v1.18.0:cmd/nvidia-container-runtime-hook/container_config.go"),
       ("panic: unknown driver capability: vidoe",
        CTK + "v1.18.0:cmd/nvidia-container-runtime-hook/capabilities.go"),
       ("panic: cannot set MIG_CONFIG_DEVICES in non privileged container",
        CTK + "v1.13.0:cmd/nvidia-container-runtime-hook/container_config.go")),

    # ---- nvidia-cdi-hook / nvidia-ctk hook (the hooks a CDI spec names) ----------------------
    # what each hook subcommand fails on inside the container's root: a read-only root, an
    # image that already ships the link, an ldconfig it cannot run
    _s("cdi-hook-step-failed", "failed to create link|failed to create links|application profile|"
       "ldconfig runner|failed to update ldcache|params file",
       r"failed to create links?:? |failed to create application profiles directory|"
       r"failed to write application profile|failed to construct ldconfig runner|"
       r"failed to update ldcache|failed to (?:create tmpfs mount for|mount modified) params file",
       {"injection-failed": 3.0}, _CREATE, True,
       ("failed to create application profiles directory: mkdirat etc/nvidia/"
        "nvidia-application-profiles-rc.d: read-only file system",
        CTK + "v1.20.0:cmd/nvidia-cdi-hook/update-application-profile/"
        "update-application-profile.go"),
       ('level=error msg="failed to create link [libcuda.so.1 /usr/lib64/libcuda.so]: failed '
        'to create symlink: symlink libcuda.so.1 /run/containerd/io.containerd.runtime.v2.task/'
        'k8s.io/abc/rootfs/usr/lib64/libcuda.so: file exists"',
        CTK + "v1.18.0:cmd/nvidia-cdi-hook/create-symlinks/create-symlinks.go"),
       ('level=error msg="failed to construct ldconfig runner: exec: \\"/sbin/ldconfig\\": '
        'stat /sbin/ldconfig: no such file or directory"',
        CTK + "v1.18.0:cmd/nvidia-cdi-hook/update-ldcache/update-ldcache.go")),
    # the hook binary on the host is not the one the spec or the runtime config expects (an
    # older nvidia-ctk without the hook subcommand a newer spec names, or the hook symlinked to
    # another toolkit binary): its CLI framework refuses the subcommand and exits 3
    _s("hook-subcommand-unknown", "no help topic for",
       r"no help topic for \W*(?:prestart|poststart|createruntime|create-symlinks|update-ldcache|"
       r"chmod|enable-cuda-compat|cudacompat|disable-device-node-modification|"
       r"update-application-profile|create-soname-symlinks)\b",
       {"injection-failed": 3.0}, _CREATE, True,
       ("Running hook #1:: error running hook: exit status 3, stdout: , stderr: time=\\\"2022-02-13"
        "T11:11:05+11:00\\\" level=error msg=\\\"No help topic for 'prestart'\\\\n\\\": unknown",
        GH + "NVIDIA/nvidia-container-toolkit/issues/14")),
    # a CDI spec naming a hook binary the host does not have (generated inside a container, or
    # on a host where the toolkit lives elsewhere: k3s, Talos, a toolkit container's path)
    _s("cdi-hook-binary-missing", "fork/exec",
       r"fork/exec \S*/nvidia-(?:ctk|cdi-hook|container-runtime-hook|container-toolkit): "
       r"no such file or directory",
       {"injection-failed": 3.5, "cdi-unresolvable": 0.5}, _CREATE, True,
       ("error running createContainer hook #0: fork/exec /usr/bin/nvidia-ctk: no such file or "
        "directory", GH + "siderolabs/talos/issues/13021"),
       ("error running createContainer hook #0: fork/exec /usr/local/nvidia/toolkit/"
        "nvidia-cdi-hook: no such file or directory",
        RUNC + "v1.2.0:libcontainer/configs/config.go")),

    # ---- nvidia-ctk runtime configure / the toolkit container's containerd setup -------------
    # toolkits before v1.17.4 know containerd config versions 1 and 2 only: containerd 2.x's
    # version 3 is refused, so the nvidia runtime is never written
    _s("ctk-config-version-unsupported", "unsupported config version",
       r"unsupported config version: [3-9]\b",
       {"unsupported-stack": 3.5}, (LOG,), True,
       ('time="2026-01-21T12:32:09Z" level=fatal msg="Error: unable to load config: unsupported '
        'config version: 3"', CTK + "v1.17.0:pkg/config/engine/containerd/containerd.go"),
       ("unable to load config for runtime containerd: unsupported config version: 3",
        CTK + "v1.16.0:pkg/config/engine/containerd/option.go")),
    _s("ctk-configure-load-failed", "unable to load config for runtime",
       r"unable to load config for runtime containerd: (?!.*unsupported config version)",
       {"containerd-config": 3.0}, (LOG,), True,
       ("unable to load config for runtime containerd: failed to load config: (12, 3): "
        "unexpected token", CTK + "v1.18.0:cmd/nvidia-ctk/runtime/configure/configure.go")),
    # the runtime config could not be written (a read-only /etc, an immutable OS): the nvidia
    # handler was never added
    _s("ctk-configure-flush-failed", "unable to flush config",
       r"unable to flush config: ",
       {"handler-missing": 2.0, "runtime-config-not-read": 0.5}, (LOG,), False,
       ("unable to flush config: unable to open /etc/containerd/config.toml for writing: open "
        "/etc/containerd/config.toml: read-only file system",
        CTK + "v1.18.0:cmd/nvidia-ctk/runtime/configure/configure.go")),
    # nvidia-ctk cdi generate (or the toolkit container generating one) produced no spec, or
    # the device nodes it needs are not there (no module loaded: no nvidia major number)
    _s("ctk-cdi-generate-failed", "failed to generate cdi spec",
       r"failed to generate cdi spec",
       {"cdi-unresolvable": 2.0, "nvml-init": 1.0}, (LOG,), False,
       ('level=error msg="failed to generate CDI spec: failed to create device CDI specs: '
        'failed to initialize NVML: ERROR_LIBRARY_NOT_FOUND"',
        CTK + "v1.18.0:cmd/nvidia-ctk/cdi/generate/generate.go")),
    # `cdi generate` refusing its --mode before it discovers anything (v1.18's refresh unit
    # took the mode from the runtime's own mode setting, where "cdi" is valid): no spec is
    # written, so CDI names resolve to nothing
    _s("ctk-cdi-invalid-mode", "invalid discovery mode",
       r"invalid discovery mode: \S+",
       {"cdi-unresolvable": 2.5}, (LOG, JOURNAL), False,
       ('Oct 23 10:22:21 node nvidia-ctk[64294]: time="2025-10-23T10:22:21+08:00" level=error '
        'msg="invalid discovery mode: cdi"', CTK + "v1.18.0:cmd/nvidia-ctk/cdi/generate/"
        "generate.go")),
    # the toolkit's systemd unit that regenerates /var/run/cdi/nvidia.yaml (v1.18 on) failing
    _s("ctk-cdi-refresh-unit-failed", "nvidia-cdi-refresh",
       r"(?:failed to start|job for) nvidia-cdi-refresh\.service|"
       r"nvidia-cdi-refresh\.service: (?:main process exited|failed with result)",
       {"cdi-unresolvable": 1.5}, (JOURNAL, LOG), False,
       ("Failed to start nvidia-cdi-refresh.service - Refresh NVIDIA CDI specification file.",
        CTK + "v1.18.0:deployments/systemd/nvidia-cdi-refresh.service"),
       ("Job for nvidia-cdi-refresh.service failed because the control process exited with "
        "error code.", CTK + "v1.18.0:deployments/systemd/nvidia-cdi-refresh.service")),
    # v1.18.0's refresh unit runs `cdi generate` only where modules.dep names a file
    # `/nvidia.ko`: a distribution that ships the module under another name (Debian's
    # nvidia-current.ko) skips it with the driver loaded, and no spec is written (fixed in
    # v1.18.1, NVIDIA/nvidia-container-toolkit#1409)
    _s("ctk-cdi-refresh-condition", "execcondition=",
       r"execcondition=\S*grep -qe '/nvidia\.ko' \S*modules\.dep",
       {"cdi-unresolvable": 2.0}, (CONFIG, LOG, JOURNAL, STATUS), False,
       ("ExecCondition=/usr/bin/grep -qE '/nvidia.ko' /lib/modules/%v/modules.dep",
        CTK + "v1.18.0:deployments/systemd/nvidia-cdi-refresh.service")),
    # the device nodes nvidia-ctk (system create-device-nodes, create-dev-char-symlinks, the
    # validator's /dev/char step) creates from /proc/devices: no nvidia major there means the
    # kernel module is not loaded, whatever asked for the nodes
    _s("ctk-device-nodes-failed", "device nodes|invalid device node",
       r"failed to create nvidia (?:control )?device nodes(?!: failed to load nvidia kernel "
       r"modules)|failed to determine major: invalid device node",
       # "invalid device node": /proc/devices names no control device under the name the
       # toolkit looks up: no module loaded, or a toolkit before v1.15.0 (which looks for
       # "nvidia-frontend") under a driver from 550.40 (which registers "nvidia";
       # v1.15.0:internal/info/proc/devices/devices.go falls back to it)
       {"nvml-init": 2.0, "driver-failing": 1.0, "unsupported-stack": 0.9,
        "cdi-unresolvable": 0.5}, (LOG,), False,
       ("failed to create NVIDIA device nodes: failed to create device node nvidiactl: failed "
        "to determine major: invalid device node",
        CTK + "v1.18.0:cmd/nvidia-ctk/system/create-dev-char-symlinks/"
        "create-dev-char-symlinks.go"),
       ("Error: error validating driver installation: error creating symlink creator: failed to "
        "create NVIDIA device nodes: failed to create device node nvidiactl: failed to determine "
        "major: invalid device node", "NVIDIA/gpu-operator@v25.10.1:cmd/nvidia-validator/main.go")),

    # ---- libnvidia-container (nvidia-container-cli) -----------------------------------------
    # the stages the core signature does not list (src/cli/configure.c)
    _s("cli-other-stage", "nvidia-container-cli",
       r"nvidia-container-cli(?:\.real)?:? (?:mig-config|mig-monitor|input) error: ",
       {"injection-failed": 3.5}, _CREATE, True,
       ("nvidia-container-cli: input error: invalid rootfs directory",
        CLI_REV + "src/cli/configure.c")),
    # the CLI binary itself cannot start: libnvidia-container's library missing or mismatched
    _s("cli-shared-libraries", "nvidia-container-cli",
       r"nvidia-container-cli(?:\.real)?: error while loading shared libraries: ",
       {"injection-failed": 3.5}, _CREATE, True,
       ("/usr/local/bin/nvidia-container-cli: error while loading shared libraries: libe",
        GH + "siderolabs/extensions/issues/751")),

    # ---- sibling messages read from each component's source --------------------------------
    # (the families above were keyed on the lines tickets carried; these are the other errors
    # the same functions print, instantiated from the cited tags, so a wording a ticket has not
    # yet shown is recognised too)

    # libnvidia-container: NVML's Unknown Error at the CLI's init or its device queries. The
    # CLI runs on the host's driver, so the host's NVML is what fails (a GSP/firmware fault, a
    # driver upgraded without a reboot): not the injection, which never got that far.
    _s("cli-nvml-unknown-init", "nvidia-container-cli",
       r"nvidia-container-cli(?:\.real)?:? initialization error: nvml error: unknown error",
       {"nvml-init": 4.5, "nvml-gpu-error": 1.0, "injection-failed": 0.25}, _CREATE, True,
       ("nvidia-container-cli: initialization error: nvml error: unknown error",
        CLI + "v1.17.0:src/driver.c")),
    _s("cli-nvml-unknown-detection", "nvidia-container-cli",
       r"nvidia-container-cli(?:\.real)?:? detection error: nvml error: unknown error",
       {"nvml-gpu-error": 4.5, "nvml-init": 1.0, "injection-failed": 0.25}, _CREATE, True,
       ("nvidia-container-cli: detection error: nvml error: unknown error",
        CLI + "v1.17.0:src/driver.c")),
    # its debug log (NVC_DEBUG_FILE, the toolkit's log) when it was asked to load the modules
    # and could not: no NVIDIA module for this kernel, or the driver not installed
    _s("cli-kernel-module-load", "could not load kernel module nvidia",
       r"could not load kernel module nvidia(?:_uvm)?\b",
       {"nvml-init": 2.0, "driver-failing": 1.0, "kernel-upgraded": 0.5}, (LOG, JOURNAL), False,
       ("E1129 10:02:10.123456 12345 nvc.c:356] could not load kernel module nvidia",
        CLI + "v1.17.0:src/nvc.c"),
       ("E1129 10:02:10.123456 12345 nvc.c:371] could not load kernel module nvidia_uvm",
        CLI + "v1.17.0:src/nvc.c")),

    # nvidia-container-runtime / -hook: the config.toml the runtime and hook read is not
    # parseable or names an ldconfig the CLI cannot use; every GPU container fails at create
    _s("ctk-runtime-config-invalid", "error loading config|failed to load specified config file|"
       "is not host-relative",
       r"error loading config: (?:\(\d+, \d+\): |failed to unmarshal config|invalid config|"
       r"failed to load specified config file)|failed to load config: failed to load specified "
       r"config file|"
       r"nvidia-container-cli\.ldconfig value \S+ is not host-relative",
       {"injection-failed": 3.0}, _CREATE, False,
       ('error loading config: (5, 12): was expecting token =, but got "runtimes" instead',
        CTK + "v1.18.0:internal/runtime/runtime.go"),
       ('error loading config: invalid config: nvidia-container-cli.ldconfig value '
        '"/sbin/ldconfig" is not host-relative (does not start with a \'@\')',
        CTK + "v1.18.0:internal/config/cli.go"),
       ("failed to load config: failed to load specified config file: open /etc/nvidia-container-"
        "runtime/config.toml: permission denied",
        CTK + "v1.18.0:cmd/nvidia-container-runtime-hook/hook_config.go")),
    # the low-level runtime it was configured with is there but not runnable, or exec fails
    _s("ctk-lowlevel-runtime-unusable", "error locating runtime: invalid path|could not exec '",
       r"error locating runtime: invalid path '|could not exec '[^']+': ",
       {"injection-failed": 3.0}, _CREATE, True,
       ("failed to create NVIDIA Container Runtime: error constructing low-level runtime: error "
        "locating runtime: invalid path '/usr/local/sbin/runc': specified path '/usr/local/sbin/"
        "runc' is not an executable file", CTK + "v1.18.0:internal/oci/runtime_path.go"),
       ("could not exec '/usr/bin/runc': permission denied",
        CTK + "v1.18.0:internal/oci/runtime_syscall_exec.go")),
    # the runtime's discoverers failing on the host's driver files or device nodes while it
    # builds the container's edits (a driver root without the files it looks for)
    _s("ctk-discover-failed", "failed to get required container edits|error discovering",
       r"failed to get required container edits: |error discovering (?:devices|mounts|hooks|"
       r"envs) for discoverer ",
       {"injection-failed": 2.5}, _CREATE, True,
       ("could not apply required modification to OCI specification: error modifying OCI spec: "
        "failed to get required container edits: failed to discover devices: error discovering "
        "devices for discoverer 0: error getting info: stat /dev/nvidia-uvm: no such file or "
        "directory", CTK + "v1.18.0:internal/modifier/discover.go"),
       ("failed to discover mounts: error discovering mounts for discoverer 2: no lookup defined",
        CTK + "v1.18.0:internal/discover/list.go")),
    # the volume-mounts device list the plugin passes named a CDI device the runtime refuses
    _s("ctk-cdi-mount-request-invalid", "invalid mount cdi device request",
       r"invalid mount cdi device request: ",
       {"cdi-unresolvable": 1.5, "injection-failed": 1.0}, (LOG,), False,
       ('level=warning msg="Ignoring invalid mount request for CDI device nvidia.com/gpu=0: '
        'invalid mount CDI device request: nvidia.com/gpu=0"',
        CTK + "v1.18.0:internal/config/image/cuda_image.go")),
    # nvidia-cdi-hook (and the legacy hook before it) reading the container's state from the
    # runtime on stdin
    _s("cdi-hook-container-state", "container root|container state",
       r"failed to determined? container root|failed to load container state: |"
       r"could not decode container state: ",
       {"injection-failed": 2.5}, _CREATE, True,
       ('level=error msg="failed to determined container root: failed to load container state: '
        'failed to decode container state: EOF"',
        CTK + "v1.18.0:cmd/nvidia-cdi-hook/create-symlinks/create-symlinks.go"),
       ("panic: could not decode container state: unexpected end of JSON input",
        CTK + "v1.4.0:pkg/container_config.go")),
    # the runtime before v1.10 (cmd/nvidia-container-runtime/main.go): its own wrapping of a
    # runtime it could not build, a hook it could not inject, or a log it could not open (an
    # immutable /var/log); every GPU container fails at create
    _s("ctk-runtime-legacy-wrap", "error creating runtime|error constructing nvidia container "
       "runtime|error constructing runc runtime|error injecting nvidia container runtime hook|"
       "error opening debug log file",
       r"error creating runtime: error constructing|error constructing (?:nvidia container|runc) "
       r"runtime: |error injecting nvidia container runtime hook: |"
       r"error opening debug log file: ",
       {"injection-failed": 2.5}, _CREATE, True,
       ("ERRO[0000] Error running [nvidia-container-runtime --root /run/containerd/runc/k8s.io "
        "create --bundle /run/containerd/io.containerd.runtime.v2.task/k8s.io/abc abc]: error "
        "creating runtime: error constructing NVIDIA Container Runtime: error constructing runc "
        "runtime: error locating runtime: no runtime binary found from candidate list: "
        "[docker-runc runc]", CTK + "v1.8.0:cmd/nvidia-container-runtime/main.go"),
       ("error opening debug log file: open /var/log/nvidia-container-runtime.log: read-only "
        "file system", CTK + "v1.8.0:cmd/nvidia-container-runtime/main.go"),
       ("error creating runtime: error constructing NVIDIA Container Runtime: error injecting "
        "NVIDIA Container Runtime hook: error loading OCI specification for modification: error "
        "reading OCI specification: unexpected end of JSON input",
        CTK + "v1.8.0:cmd/nvidia-container-runtime/runtime_factory.go")),
    # nvidia-ctk system create-device-nodes / create-dev-char-symlinks (and cdi generate in
    # the toolkit container) loading the modules first: the driver is not loadable here
    _s("ctk-load-modules-failed", "failed to load nvidia kernel modules",
       r"failed to load nvidia kernel modules: ",
       {"nvml-init": 2.0, "driver-failing": 1.0}, (LOG,), False,
       ('level=error msg="failed to create NVIDIA control device nodes: failed to load NVIDIA '
        'kernel modules: failed to load module nvidia: fork/exec /sbin/modprobe: no such file or '
        'directory; output="',
        CTK + "v1.18.0:cmd/nvidia-ctk/system/create-device-nodes/create-device-nodes.go")),
    # nvidia-ctk cdi list: the cache reported specs it could not load (the errors follow)
    _s("ctk-cdi-list-registry-errors", "the following registry errors were reported",
       r"the following registry errors were reported",
       {"cdi-unresolvable": 1.0}, (LOG,), False,
       ('level=warning msg="The following registry errors were reported:"',
        CTK + "v1.18.0:cmd/nvidia-ctk/cdi/list/list.go")),
    # nvidia-ctk runtime configure --runtime=<x> naming a runtime it does not configure: the
    # nvidia handler is never written
    _s("ctk-configure-runtime-unrecognized", "unrecognized runtime '|does not support drop-in",
       r"unrecognized runtime '[^']*'|runtime \S+ does not support drop-in configs",
       {"handler-missing": 2.5}, (LOG,), False,
       ("level=fatal msg=\"unrecognized runtime 'containerd2'\"",
        CTK + "v1.18.0:cmd/nvidia-ctk/runtime/configure/configure.go"),
       ('level=fatal msg="runtime docker does not support drop-in configs"',
        CTK + "v1.18.0:cmd/nvidia-ctk/runtime/configure/configure.go")),

    # the CDI library's spec and name validation: a spec it refuses defines no device, so
    # every device named from it is unresolvable (pkg/cdi spec.go, device.go, parser)
    _s("cdi-spec-invalid", "cdi spec|cdi device name|unqualified device|invalid spec, |"
       "not found for spec|host type mismatch|empty device edits|spec version must be",
       r"failed to (?:parse|read|load) cdi spec|invalid cdi spec: |invalid cdi device name |"
       r"unqualified device \\?\"[^\"\\]*\\?\", missing |invalid spec, (?:multiple device|"
       r"no devices)|device \\?\"[^\"\\]+\\?\" not found for spec|cdi device \(\\?\"[^)]*\), "
       r"host type mismatch|invalid device, empty device edits|the spec version must be at least",
       {"cdi-unresolvable": 2.5}, (*_CREATE, JOURNAL), True,
       ('failed to parse CDI Spec "/etc/cdi/nvidia.yaml": error converting YAML to JSON: yaml: '
        'line 10: did not find expected key', CDI + "spec.go"),
       ('invalid CDI Spec: invalid device "0": invalid hook "createContainer" with empty path',
        "cncf-tags/container-device-interface@v0.8.1:pkg/cdi/spec.go"),
       ('invalid CDI device name "gpu0"', CDI + "annotations.go"),
       ('unqualified device "gpu=0", missing vendor',
        "cncf-tags/container-device-interface@v1.0.1:pkg/parser/parser.go"),
       ('CDI: device "nvidia.com/gpu=3" not found for spec "nvidia.com/gpu"',
        "cncf-tags/container-device-interface@v0.3.2:specs-go/oci.go")),
    # containerd's CRI plugin could not set up the CDI cache over its cdi_spec_dirs (a watch it
    # cannot create): the plugin does not load, so no CDI device resolves on the node
    _s("cdi-registry-configure-failed", "failed to configure cdi registry",
       r"failed to configure cdi registry",
       {"cdi-unresolvable": 2.0, "containerd-config": 1.0}, (LOG, JOURNAL), False,
       ("failed to configure CDI registry: failed to create watcher: too many open files",
        CD + "v1.7.0:pkg/cri/server/service_linux.go")),

    # kubelet: the device manager's other refusals at admission, and its registration server.
    # A container whose GPU count changed under an existing allocation (a restarted pod after
    # its spec was mutated, or checkpoint state from another pod).
    _s("admission-request-changed", "changed request for resource",
       r"changed request for resource \W*\S+? from \d+ to \d+",
       {"admission-failed": 3.0}, (EVENT, STATUS, DESCRIBE, LOG), True,
       ('Allocate failed due to pod "4c8a" container "cuda" changed request for resource '
        '"nvidia.com/gpu" from 1 to 2, which is unexpected', K + "41915644:pkg/kubelet/cm/"
        "devicemanager/manager.go"),
       ("Allocate failed due to pod 4c8a container cuda changed request for resource "
        "nvidia.com/gpu from 1 to 2, which is unexpected",
        K + "v1.20.0:pkg/kubelet/cm/devicemanager/manager.go")),
    # the plugin answered Allocate with an error of its own (code = Unknown): admission failed,
    # the reason in the rest of the line (what failed in the plugin) votes on its own
    _s("admission-plugin-allocate-error", "allocate failed due to rpc error: code = unknown",
       r"allocate failed due to rpc error: code = unknown desc = (?:failed to get allocate "
       r"response|invalid allocation request|failed to add cdi annotations)",
       {"admission-failed": 3.0}, (EVENT, STATUS, DESCRIBE), False,
       ("Allocate failed due to rpc error: code = Unknown desc = failed to get allocate response "
        "for CDI: failed to get CDI spec: failed to create device CDI specs: failed to "
        "initialize NVML: ERROR_UNKNOWN, which is unexpected",
        DP + "v0.17.0:internal/plugin/server.go")),
    # the device manager could not persist its allocation state (a full or read-only disk):
    # Allocate fails, so does every GPU pod's admission on the node
    _s("kubelet-checkpoint-write", "kubelet_internal_checkpoint",
       r"failed to write (?:deviceplugin )?checkpoint file \W*kubelet_internal_checkpoint",
       {"admission-failed": 2.5}, (EVENT, STATUS, DESCRIBE, LOG, JOURNAL), True,
       ('Allocate failed due to failed to write checkpoint file "kubelet_internal_checkpoint": '
        'write /var/lib/kubelet/device-plugins/.882934: no space left on device, which is '
        'unexpected', K + "41915644:pkg/kubelet/cm/devicemanager/manager.go"),
       ('failed to write deviceplugin checkpoint file "kubelet_internal_checkpoint": open '
        '/var/lib/kubelet/device-plugins/.882934: read-only file system',
        K + "v1.10.0:pkg/kubelet/cm/devicemanager/manager.go")),
    # kubelet refusing a plugin's registration (API version, resource name) or its own
    # registration socket not serving: no plugin can register, nothing is advertised
    _s("kubelet-registration-refused", "bad registration request from device plugin|"
       "device plugin registration grpc server|starting device plugin registry",
       r"bad registration request from device plugin|failed to serve device plugin "
       r"registration grpc server|failed to listen to socket while starting device plugin "
       r"registry|device plugin registration grpc server failed",
       {"not-advertised": 2.5}, (LOG, JOURNAL), True,
       ('I0312 10:02:10.000000    1655 server.go:160] "Bad registration request from device '
        'plugin with resource" resourceName="nvidia.com/gpu" err="requested API version '
        '\\"v1alpha\\" is not supported by kubelet. Supported version is \\"v1beta1\\""',
        K + "01aa5dac:pkg/kubelet/cm/devicemanager/plugin/v1beta1/server.go"),
       ('E0312 10:02:10.000000    1655 server.go:115] "Failed to serve device plugin registration '
        'grpc server, retrying..." err="listen unix /var/lib/kubelet/device-plugins/kubelet.sock: '
        'bind: address already in use"',
        K + "01aa5dac:pkg/kubelet/cm/devicemanager/plugin/v1beta1/server.go")),

    # CRI-O's runtime table entry for the handler names a runtime type it does not know
    _s("crio-runtime-type-invalid", "invalid `runtime_type`",
       r"invalid `runtime_type` \S+ for runtime \S+",
       {"injection-failed": 2.5, "handler-missing": 0.5}, (LOG, JOURNAL, *_CREATE), True,
       ('invalid `runtime_type` "oci2" for runtime "nvidia"',
        CRIO + "v1.28.0:pkg/config/config.go")),

    # ---- k8s-device-plugin: the plugin's start, read from its main and resource managers ----
    # NVML answering Unknown Error for a GPU while the plugin builds its device map: the GPU
    # itself is in a bad state (NVML initialised)
    _s("plugin-device-map-nvml-unknown", "error_unknown|unknown error",
       r"error getting (?:device handle|product name) for (?:gpu with )?index '\d+': "
       r"(?:error_unknown|unknown error)",
       {"nvml-gpu-error": 3.0, "not-advertised": 1.0}, (LOG,), True,
       ("E1129 10:02:10.000000       1 main.go:173] error starting plugins: error getting "
        "plugins: unable to create plugins: failed to construct resource managers: error "
        "building device map: error building device map from config.resources: error building "
        "GPU device map: error getting device handle for index '0': ERROR_UNKNOWN",
        DP + "v0.17.0:internal/rm/device_map.go"),
       ("panic: Unable to load resource managers to manage plugin devices: error building "
        "device map from config.resources: error building GPU device map: error getting product "
        "name for GPU with index '0': Unknown Error",
        DP + "v0.12.3:cmd/nvidia-device-plugin/mig-strategy.go")),
    # mig.strategy=single on a node whose GPUs mix MIG on and off, or carry several MIG
    # profiles: the layout applied does not fit the strategy the plugin was given (GX419,
    # knowledge/signatures_config.py)
    _s("plugin-mig-strategy-mismatch", "migenabled value|more than one mig device type",
       r"all devices on the node must (?:all )?be configured with the same migenabled value|"
       r"more than one mig device type present on node",
       {"mig-strategy": 4.0}, (LOG,), True,
       ("panic: For mig.strategy=single all devices on the node must all be configured with the "
        "same migEnabled value", DP + "v0.9.0:mig-strategy.go"),
       ("panic: More than one MIG device type present on node", DP + "v0.9.0:mig-strategy.go"),
       ("error building device map from config.resources: invalid MIG configuration: all "
        "devices on the node must be configured with the same migEnabled value",
        DP + "v0.17.0:internal/rm/device_map.go"),
       ("W1129 10:02:10.000000       1 mig-strategy.go:245] Invalid configuration detected for "
        "mig-strategy=single: more than one MIG device type present on node",
        DP + "v0.17.0:internal/lm/mig-strategy.go")),
    # a plugin that could not write the CDI spec its CDI device-list strategies need, or
    # whose MPS control daemon never answered (sharing.mps): it registers nothing
    # (its start loop's "Failed to start plugin" lines are the core's plugin-start-failed)
    _s("plugin-setup-failed", "unable to create cdi spec file|unable to create cdi handler|"
       "failed to start mps daemon",
       r"unable to create cdi (?:spec file|handler): |failed to start mps daemon: ",
       {"not-advertised": 2.0, "cdi-unresolvable": 0.5}, (LOG,), False,
       ("error starting plugins: error getting plugins: unable to create plugins: unable to "
        "create cdi spec file: failed to get CDI spec: failed to create edits common for "
        "entities: failed to create discoverer for common entities: failed to create discoverer "
        "for driver files: failed to locate libraries for driver version 535.104.05",
        DP + "v0.17.0:cmd/nvidia-device-plugin/plugin-manager.go"),
       ("error starting plugins: failed to start MPS daemon: error waiting for MPS daemon: error "
        "checking MPS daemon health: failed to send command to MPS daemon: exit status 1",
        DP + "v0.17.0:internal/plugin/server.go")),

    # ---- libnvidia-container: details of the stage lines that point past the injection -----
    # (the stage line itself is the core's nvidia-cli-init, GX307; these add the cause its
    # detail names, as a second candidate, never outvoting the stage)
    # the CLI's RPC to its driver helper process timed out (src/rpc.c: a 10 s client timeout;
    # src/error.c words RPC_TIMEDOUT as "timed out"): NVML's init in the helper hung, which an
    # unresponsive GPU or driver does (a GPU needing reset, a driver without persistence mode
    # re-initialising many GPUs)
    _s("cli-rpc-timeout", "driver rpc error: timed out|driver error: timed out",
       r"\bdriver (?:rpc )?error: timed out",
       {"nvml-gpu-error": 2.0, "nvml-init": 0.5}, _CREATE, False,
       ("nvidia-container-cli: initialization error: driver rpc error: timed out",
        CLI + "v1.17.0:src/rpc.h"),
       ("nvidia-container-cli: initialization error: driver error: timed out",
        CLI + "v1.0.0:src/driver.c")),
    # the device list names a MIG device the driver no longer has (src/cli/common.c
    # select_devices: "%s: unknown device"): the layout changed under an allocation made
    # against the old one
    _s("cli-unknown-mig-device", "unknown device",
       r"device error: mig-[0-9a-f-]+: unknown device",
       {"mig-failed": 1.5}, _CREATE, False,
       ("nvidia-container-cli: device error: MIG-2f1b6a4e-9c3d-5e8f-a1b2-3c4d5e6f7a8b: unknown "
        "device", CLI + "v1.17.0:src/cli/common.c")),
    # its debug log: the PCI walk before loading the modules found no NVIDIA display device
    # (src/nvc.c load_kernel_modules, a warning): the GPU is not on the bus the CLI sees
    _s("cli-no-pci-gpu", "failed to detect nvidia devices",
       r"\] failed to detect nvidia devices",
       {"gpus-missing": 1.0, "nvml-init": 0.5}, (LOG,), False,
       ("W1129 10:02:10.123456 12345 nvc.c:282] failed to detect NVIDIA devices",
        CLI + "v1.17.0:src/nvc.c")),

    # ---- nvidia-container-toolkit: the runtime's modes and its CDI library -----------------
    # the runtime's mode setting (nvidia-container-runtime.mode) names no mode it knows
    _s("ctk-runtime-mode-invalid", "invalid runtime mode",
       r"invalid runtime mode: \S+",
       {"injection-failed": 3.0}, _CREATE, False,
       ("failed to create NVIDIA Container Runtime: invalid runtime mode: cdi-auto",
        CTK + "v1.14.0:internal/runtime/runtime_factory.go"),
       ("failed to create NVIDIA Container Runtime: failed to construct OCI spec modifier: "
        "invalid runtime mode: csv2", CTK + "v1.17.8:internal/runtime/runtime_factory.go")),
    # the CDI library (nvidia-ctk cdi generate, the runtime's own spec in cdi mode, the device
    # plugin's) finding the driver version from NVML but not that version's libcuda under the
    # driver root: a driver root that is not where the driver is, or a partial install (the
    # unversioned lookup is the runtime's graphics discoverer, another family's)
    _s("nvcdi-libcuda-missing", "failed to locate libcuda.so.",
       r"failed to locate libcuda\.so\.\d[\d.]*: ",
       {"cdi-unresolvable": 1.5, "injection-failed": 1.0}, (LOG, EVENT, STATUS), False,
       ('level=error msg="failed to generate CDI spec: failed to create edits common for '
        "entities: failed to create discoverer for common entities: failed to create discoverer "
        "for driver files: failed to create discoverer for driver libraries: failed to get "
        "libraries for driver version: failed to locate libcuda.so.550.54.15: pattern "
        'libcuda.so.550.54.15 not found"', CTK + "v1.17.8:pkg/nvcdi/driver-nvml.go"),
       ("failed to locate libcuda.so.535.104.05: pattern libcuda.so.535.104.05 not found",
        CTK + "v1.14.0:pkg/nvcdi/driver-nvml.go")),
    # the management spec (cdi generate --mode=management) finding no /dev/nvidia* at all
    _s("nvcdi-no-device-nodes", "no nvidia device nodes found",
       r"no nvidia device nodes found",
       {"cdi-unresolvable": 1.5, "nvml-init": 1.0}, (LOG,), False,
       ("failed to create edits from discoverer: no NVIDIA device nodes found",
        CTK + "v1.14.0:pkg/nvcdi/management.go")),
    # the CDI library asked for a device by an identifier NVML does not know on this node
    # (the runtime in cdi mode turning NVIDIA_VISIBLE_DEVICES into specs)
    _s("nvcdi-device-identifier", "for identifier|is not a valid uuid or index",
       r"failed to get nvml device handle for identifier |identifier is not a valid uuid or "
       r"index: ",
       {"injection-failed": 2.0, "cdi-unresolvable": 1.0}, _CREATE, False,
       ('failed to get CDI device specs: failed to get NVML device handles: failed to get NVML '
        'device handle for identifier "GPU-5c0f2a11-aaaa-bbbb-cccc-0123456789ab": ERROR_NOT_FOUND',
        CTK + "v1.17.8:pkg/nvcdi/lib-nvml.go"),
       ('identifier is not a valid UUID or index: "gpu0"', CTK + "v1.17.8:pkg/nvcdi/lib-nvml.go")),
    # a CDI annotation on the container (cdi.k8s.io/...) whose device is no vendor/class=name
    _s("ctk-cdi-annotation-invalid", "in annotation",
       r"invalid device name \"[^\"]*\" in annotation ",
       {"cdi-unresolvable": 2.0, "injection-failed": 1.0}, _CREATE, False,
       ('failed to construct CDI modifier: failed to parse container annotations: invalid '
        'device name "gpu0" in annotation "cdi.k8s.io/nvidia-device-plugin_abc"',
        CTK + "v1.14.0:internal/modifier/cdi.go")),
    # the legacy hook reading the bundle's config.json (it panics; the runtime shows the panic)
    _s("hook-oci-spec-unreadable", "oci spec",
       r"could not (?:open|decode) oci spec: |(?:version|process|root) is empty in oci spec|"
       r"could not decode process\.capabilities in oci spec",
       {"injection-failed": 2.5}, _CREATE, True,
       ("panic: could not open OCI spec: open /run/containerd/io.containerd.runtime.v2.task/"
        "k8s.io/abc/config.json: no such file or directory",
        CTK + "v1.14.0:cmd/nvidia-container-runtime-hook/container_config.go"),
       ("panic: Root is empty in OCI spec",
        CTK + "v1.17.8:cmd/nvidia-container-runtime-hook/container_config.go")),
    # the hook's config.toml naming driver capabilities it does not support
    _s("hook-config-option-invalid", "invalid value for config option",
       r"invalid value for config option '[^']+'",
       {"injection-failed": 2.5}, _CREATE, True,
       ("panic: Invalid value for config option 'supported-driver-capabilities'; "
        "compute,utility,foo (supported: compat32,compute,display,graphics,ngx,utility,video)",
        CTK + "v1.14.0:cmd/nvidia-container-runtime-hook/hook_config.go")),
)
