"""Ranking in ``triage`` beyond single lines: a symptom ranks under the root cause the same
paste shows (seed §4's tree, ``CAUSE_CHAIN``), and a paste whose lines name no cause still gets
the plausible causes of the components that printed it (``COMPONENTS``), weakly, undecided and
without findings; a component whose log shows it ready, or names without any trouble, give
nothing. Lines are built here in the shapes the cited upstream code prints."""

from __future__ import annotations

import pytest

from gpuxray.diagnose.triage import OWN_LOG_WEIGHT, triage
from gpuxray.knowledge.signatures import (
    CAUSE_BY_ID,
    CAUSE_CHAIN,
    COMPONENTS,
    SIGNATURES,
    lead_code,
)

# NVIDIA/gpu-driver-container@06a208ca:ubuntu22.04/nvidia-driver
DRIVER_HEAD = ("\n========== NVIDIA Software Installer ==========\n\n"
               "Starting installation of NVIDIA driver version 550.54.15 for Linux kernel "
               "version 5.15.0-1068-fips\n\n"
               "Stopping NVIDIA persistence daemon...\n"
               "Unloading NVIDIA driver kernel modules...\n"
               "Unmounting NVIDIA driver rootfs...\n")
# NVIDIA/gpu-operator@v26.7.0:assets/state-device-plugin/0400_configmap.yaml
VALIDATOR_WAIT = "waiting for the driver validations to be ready...\n"
# NVIDIA/nvidia-container-toolkit@v1.20.0:cmd/nvidia-ctk-installer/toolkit/toolkit.go
TOOLKIT_LOG = ('time="2025-01-16T00:38:30Z" level=info msg="Installing NVIDIA container toolkit '
               "to '/usr/local/nvidia/toolkit'\"\n"
               'time="2025-01-16T00:38:30Z" level=info msg="Installing NVIDIA container toolkit '
               "config '/usr/local/nvidia/toolkit/.config/nvidia-container-runtime/"
               "config.toml'\"\n")


def _codes(text: str) -> list[str]:
    return list(dict.fromkeys(c.cause.code for c in triage([("paste", text)]).causes))


def test_a_symptom_ranks_under_the_root_the_paste_shows() -> None:
    alone = triage([("v", VALIDATOR_WAIT)])
    assert alone.causes[0].cause.id == "operand-init"
    both = triage([("paste", DRIVER_HEAD + "Updating the package cache...\n" + VALIDATOR_WAIT)])
    ids = [c.cause.id for c in both.causes]
    assert ids[0] == "kernel-headers" and both.causes[0].cause.code == "GX403"
    init = next(c for c in both.causes if c.cause.id == "operand-init")
    assert init.score < both.causes[0].score and not init.deciding
    assert "under:kernel-headers" in init.signatures


def test_a_root_voted_only_by_the_symptoms_own_line_stays_below_it() -> None:
    """`no runtime for "nvidia"` also votes weakly for the drop-in; alone it is no evidence of
    one, so the handler stays first."""
    line = ('Warning  FailedCreatePodSandBox  5s  kubelet  Failed to create pod sandbox: rpc '
            'error: code = Unknown desc = failed to get sandbox runtime: no runtime for "nvidia" '
            "is configured\n")
    r = triage([("events", line)])
    assert r.causes[0].cause.id == "handler-missing" and r.decided


def test_csv_mode_hook_failure_is_the_unsupported_platform() -> None:
    # NVIDIA/nvidia-container-toolkit@v1.20.0:internal/info/auto.go and
    # cmd/nvidia-container-runtime-hook/hook_config.go
    text = ("docker: Error response from daemon: failed to create shim: OCI runtime create "
            "failed: runc create failed: unable to start container process: error during "
            "container init: error running hook #0: error running hook: exit status 1, "
            "stdout: , stderr: Auto-detected mode as 'csv'\n"
            "invoking the NVIDIA Container Runtime Hook directly (e.g. specifying the docker "
            "--gpus flag) is not supported. Please use the NVIDIA Container Runtime instead.\n")
    codes = _codes(text)
    assert codes[0] == "GX409"
    legacy = text.replace("'csv'", "'legacy'")
    assert "GX409" not in _codes(legacy)


def test_a_component_log_that_never_got_ready_names_its_causes_undecided() -> None:
    r = triage([("toolkit", TOOLKIT_LOG)])
    assert [c.cause.code for c in r.causes[:3]] == ["GX512", "GX509", "GX301"]
    assert not r.decided and r.collect_next
    assert r.findings == []  # a prior is no finding
    assert all(s.startswith("component:") for c in r.causes for s in c.signatures)
    # NVIDIA/nvidia-container-toolkit@v1.20.0:cmd/nvidia-ctk-installer/container/runtime/
    # containerd/containerd.go: the installer says it finished
    ready = TOOLKIT_LOG + 'time="2025-01-16T00:38:31Z" level=info msg="Completed \'setup\' ' \
        "for containerd\"\n"
    assert triage([("toolkit", ready)]).causes == []


def test_names_alone_count_only_with_trouble() -> None:
    table = ("NAME                                       READY   STATUS    RESTARTS   AGE\n"
             "nvidia-device-plugin-daemonset-9b4rk       1/1     Running   0          22m\n"
             "nvidia-dcgm-exporter-x8k2p                 1/1     Running   0          22m\n")
    assert triage([("pods", table)]).causes == []
    pending = table + ("gpu-job-0                                  0/1     Pending   0"
                       "          3m\n")
    codes = _codes(pending)
    assert codes and {"GX514", "GX406"} & set(codes[:3])


def test_a_healthy_operand_beside_a_failing_one_gives_no_prior() -> None:
    """A toolkit pod listed `1/1 Running 0` beside the crash-looping driver (gpu-operator-15's
    shape): the driver's failures rank, the toolkit's usual ones do not; alone, the healthy
    row still votes (a component can fail while its pod runs ready)."""
    head = "NAME                                      READY   STATUS             RESTARTS   AGE\n"
    toolkit = "nvidia-container-toolkit-daemonset-qwhkw  1/1     Running            0          6m\n"
    driver = "nvidia-driver-daemonset-tm22t             0/1     CrashLoopBackOff   5          6m\n"
    pending = "gpu-job-0                                 0/1     Pending            0          3m\n"
    beside = triage([("pods", head + toolkit + driver)])
    codes = [c.cause.code for c in beside.causes]
    assert codes and codes[0] == "GX403"
    assert not any(s == "component:container-toolkit" for c in beside.causes
                   for s in c.signatures)
    alone = triage([("pods", head + toolkit + pending)])
    assert any(s == "component:container-toolkit" for c in alone.causes for s in c.signatures)
    restarted = toolkit.replace("Running            0 ", "Running            3 ")
    again = triage([("pods", head + restarted + driver)])
    assert any(s == "component:container-toolkit" for c in again.causes for s in c.signatures)


def test_a_fabric_manager_log_that_stops_short_votes_its_failures() -> None:
    """The Talos wrapper's own start lines (siderolabs/extensions@v1.13.9:nvidia-gpu/
    nvidia-fabricmanager/nvidia-fabricmanager-wrapper/main.go) are Fabric Manager's log: with
    no error among them, its usual failures still rank (GX405), never decided."""
    log = ("2025/11/25 13:58:49 nvidia-fabricmanager-wrapper: using NVSwitch management port "
           "GUID: 0xcc40f3030027f630\n"
           "2025/11/25 13:58:49 nvidia-fabricmanager-wrapper: waiting for socket creation at "
           "/var/run/nvidia-fabricmanager/fm_sm_ipc.socket\n")
    r = triage([("fm", log)])
    assert [c.cause.code for c in r.causes[:1]] == ["GX405"]
    assert not r.decided


def test_a_matched_line_outranks_every_prior() -> None:
    # NVIDIA/k8s-device-plugin@v0.20.0:cmd/nvidia-device-plugin/main.go
    log = ("I1129 10:02:10.000000 1 main.go:279] Starting OS watcher.\n"
           "I1129 10:02:10.000000 1 main.go:416] No devices found. Waiting indefinitely.\n")
    r = triage([("plugin", log)])
    assert r.causes[0].cause.id == "not-advertised" and r.causes[0].score >= 1.0
    top_prior = max(w for c in COMPONENTS for _cid, w in c.priors) * OWN_LOG_WEIGHT
    priors = [c for c in r.causes if all(s.startswith("component:") for s in c.signatures)]
    assert priors and all(c.score <= top_prior < r.causes[0].score for c in priors)


def test_chain_and_components_name_known_causes() -> None:
    for link in CAUSE_CHAIN:
        assert link.cause in CAUSE_BY_ID and link.effects
        assert set(link.effects) <= set(CAUSE_BY_ID) and link.cause not in link.effects
        assert "@" in link.source or link.source.startswith("https://")
        # a line the root does not explain is one of the effect's own signatures
        for sig in link.unexplained:
            votes = {cid for cid, _w in next(sg.votes for sg in SIGNATURES if sg.id == sig)}
            assert votes & set(link.effects) and link.cause not in votes, sig
    for comp in COMPONENTS:
        assert comp.names and comp.priors and all(cid in CAUSE_BY_ID for cid, _w in comp.priors)
        assert all(0 < w < 0.5 for _cid, w in comp.priors)
        assert "@" in comp.source


def test_every_cause_names_a_command_to_collect() -> None:
    """`collect_next` is a command to run, for every cause and every look-alike pair."""
    from gpuxray.knowledge.signatures import CAUSES, DISTINGUISH

    assert all("`" in c.collect for c in CAUSES)
    assert all("`" in hint for hint in DISTINGUISH.values())


def test_undecided_corpus_results_name_what_tells_the_top_two_apart() -> None:
    from triage_corpus import cases

    seen = 0
    for case in cases("dev"):
        r = triage([(case.name, case.text)])
        if r.causes and not r.decided:
            seen += 1
            assert "`" in r.collect_next, case.name
    assert seen >= 10


def test_clusterpolicy_status_votes_for_the_earliest_state_not_ready() -> None:
    # NVIDIA/gpu-operator@v23.9.0:controllers/clusterpolicy_controller.go
    line = ('level=info msg="ClusterPolicy is not ready, states not ready: '
            '[state-operator-validation state-device-plugin state-driver]"\n')
    r = triage([("operator", line)])
    assert r.causes[0].cause.id == "driver-failing" and not r.decided
    later = line.replace(" state-driver", "")
    assert triage([("operator", later)]).causes[0].cause.id == "operand-init"
    assert triage([("operator", "ClusterPolicy is ready")]).causes == []


def test_host_state_lines_name_both_the_root_code_and_the_driver() -> None:
    # kmod-project/kmod@v31:tools/lsmod.c
    codes = _codes("Module                  Size  Used by\nnouveau              2359296  0\n")
    assert codes[:2] == ["GX506", "GX403"]
    # the installer's refusal names the same host state: its code first, whatever printed it
    installer = "WARNING: The Nouveau kernel driver is currently in use by your system.\n"
    assert _codes(installer)[:2] == ["GX506", "GX403"]
    # Secure Boot: the node enforcing signatures (GX507) before the driver's failure
    key = "modprobe: ERROR: could not insert 'nvidia': Key was rejected by service\n"
    assert _codes(key)[:2] == ["GX507", "GX403"]


def test_no_runtime_on_containerd_1x_points_at_the_dropin_merge() -> None:
    """Seed §5: on 1.x an import replaces the CRI section; on 2.x imports merge per key."""
    event = ('Warning  FailedCreatePodSandBox  5s  kubelet  Failed to create pod sandbox: rpc '
             'error: code = Unknown desc = failed to get sandbox runtime: no runtime for '
             '"nvidia" is configured\n')
    # docker's containerd.io package and the upstream binary print these --version lines
    # (containerd/containerd@v1.7.34:version/version.go)
    old = event + "\n$ containerd --version\ncontainerd containerd.io 1.6.33 d2d58213f83a\n"
    new = event + ("\n$ containerd --version\ncontainerd github.com/containerd/containerd/v2 "
                   "v2.1.4 75cb2b7193e4\n")
    r_old, r_new = triage([("p", old)]), triage([("p", new)])
    assert r_old.causes[0].cause.code == "GX501" and not r_old.decided
    assert "GX301" in [c.cause.code for c in r_old.causes[:3]] and r_old.collect_next
    assert r_new.causes[0].cause.code == "GX301" and r_new.decided


def test_a_wrapper_explained_by_the_top_cause_does_not_keep_it_undecided() -> None:
    # runc's hook wrapper around the CLI's requirement refusal
    # (NVIDIA/libnvidia-container@6dcb29b1:src/cli/main.c; containerd/go-runc)
    line = ("failed to create shim task: OCI runtime create failed: runc create failed: unable to "
            "start container process: error during container init: error running hook #0: "
            "error running hook: exit status 1, stdout: , stderr: nvidia-container-cli: "
            "requirement error: unsatisfied condition: cuda>=12.8, please update your driver "
            "to a newer version, or use an earlier cuda container: unknown\n")
    r = triage([("events", line)])
    assert r.causes[0].cause.code == "GX311" and r.decided
    wrapper = next(c for c in r.causes if c.cause.id == "injection-failed")
    assert "under:cuda-requirement" in wrapper.signatures and not wrapper.deciding


# Lines every GPU ticket carries that name no cause by themselves (the scheduler's refusal,
# a crash-looping operand pod, kubelet's back-off, a bare exit status), as printed by
# kubernetes/kubernetes@v1.34.0 (scheduler fit.go, printers.go, kuberuntime_manager.go).
GENERIC_LINES = (
    "Warning  FailedScheduling  2m  default-scheduler  0/3 nodes are available: 3 Insufficient "
    "nvidia.com/gpu.",
    "nvidia-device-plugin-daemonset-9b4rk   0/1   CrashLoopBackOff   7   12m",
    "Warning  BackOff  1m (x20 over 5m)  kubelet  Back-off restarting failed container "
    "nvidia-device-plugin-ctr in pod nvidia-device-plugin-daemonset-9b4rk_gpu-operator(5f0c)",
    "Error: exit status 1",
)


def test_no_generic_line_outranks_a_deciding_line() -> None:
    from gpuxray.knowledge.signatures import SIGNATURES

    checked = 0
    for sig in SIGNATURES:
        if not sig.deciding or not sig.examples:
            continue
        want = lead_code(sig.primary)
        for generic in GENERIC_LINES:
            r = triage([("paste", f"{sig.examples[0].line}\n{generic}\n")])
            assert r.causes and r.causes[0].cause.code == want, (sig.id, generic)
            checked += 1
    assert checked > 200


def test_every_root_line_ranks_above_every_symptom_line_of_its_chain() -> None:
    """Seed §4's tree, over the catalog itself: for each link of ``CAUSE_CHAIN``, a deciding
    line of the root pasted with any line of the symptom puts the root's code first."""
    from gpuxray.knowledge.signatures import SIGNATURES

    by_primary: dict[str, list] = {}
    for sig in SIGNATURES:
        if sig.examples and sig.votes:
            by_primary.setdefault(sig.primary, []).append(sig)
    pairs = 0
    for link in CAUSE_CHAIN:
        want = lead_code(link.cause)
        for root in (s for s in by_primary.get(link.cause, []) if s.deciding):
            for eid in link.effects:
                for eff in by_primary.get(eid, []):
                    if link.cause in eff.against or eff.id in link.unexplained:
                        continue  # a line that rules the root out is no symptom of it
                    text = f"{root.examples[0].line}\n{eff.examples[0].line}\n"
                    r = triage([("paste", text)])
                    assert r.causes and r.causes[0].cause.code == want, (root.id, eff.id)
                    pairs += 1
    assert pairs > 500


def test_toolkit_writing_the_stock_path_on_k3s_is_a_file_never_read() -> None:
    # NVIDIA/nvidia-container-toolkit@v1.18.1:cmd/nvidia-ctk/runtime/configure/configure.go
    wrote = 'time="2025-01-16T00:38:31Z" level=info msg="Wrote updated config to ' \
        '/etc/containerd/config.toml"\n'
    on_k3s = "$ sudo k3s kubectl logs -n gpu-operator ds/nvidia-container-toolkit-daemonset\n" \
        + wrote
    r = triage([("paste", on_k3s)])
    assert r.causes[0].cause.code == "GX512" and r.causes[0].score >= 1.0 and not r.decided
    plain = triage([("paste", wrote)])
    assert not plain.causes or plain.causes[0].score < 1.0  # no distribution: a prior at most


NO_RUNTIME = ('Warning  FailedCreatePodSandBox  5s  kubelet  Failed to create pod sandbox: rpc '
              'error: code = Unknown desc = failed to get sandbox runtime: no runtime for '
              '"nvidia" is configured\n')


def test_the_handler_lookalikes_are_told_apart_by_their_deciding_lines() -> None:
    """Seed §5: wiped by a drop-in (GX501), written where containerd does not read (GX512),
    not written yet (GX301: the sandbox error alone, with what to collect)."""
    # a drop-in writing the CRI section without the nvidia runtime (containerd 1.x config)
    dropin = ("$ cat /etc/containerd/conf.d/10-registry.toml\n"
              '[plugins."io.containerd.grpc.v1.cri".registry.mirrors."docker.io"]\n'
              '  endpoint = ["https://mirror.example"]\n')
    # NVIDIA/nvidia-container-toolkit@v1.18.1:cmd/nvidia-ctk/runtime/configure/configure.go
    elsewhere = "INFO[0000] Wrote updated config to /etc/containerd/config.d/99-nvidia.toml\n"
    assert _codes(dropin + NO_RUNTIME)[0] == "GX501"
    assert _codes(elsewhere + NO_RUNTIME)[0] == "GX512"
    alone = triage([("events", NO_RUNTIME)])
    assert alone.causes[0].cause.code == "GX301"
    assert {"GX501", "GX512"} <= {c.cause.code for c in alone.causes[:3]}


def test_another_os_kernel_in_the_ubuntu_image_is_the_os_not_the_tag() -> None:
    """apt asked for a kernel without Ubuntu's <version>-<abi>-<flavour> shape: the node runs
    another OS (GX412), and the missing precompiled package follows from it."""
    talos = ("E: Unable to locate package linux-objects-nvidia-535-server-6.1.51-talos\n"
             "E: Unable to locate package linux-signatures-nvidia-6.1.51-talos\n")
    r = triage([("driver", talos)])
    assert _codes(talos)[:2] == ["GX412", "GX403"] and r.decided
    assert "under:driver-os-mismatch" in r.causes[1].signatures
    ubuntu = talos.replace("6.1.51-talos", "5.15.0-1034-aws")
    r2 = triage([("driver", ubuntu)])
    assert r2.causes[0].cause.id == "precompiled-kernel"
    assert "GX412" not in _codes(ubuntu)


def test_a_module_never_built_is_not_a_load_refusal() -> None:
    """kmod-project/kmod@v31:tools/modprobe.c: no module for the running kernel is a kernel
    that arrived after the driver was built (GX508), not nouveau or Secure Boot refusing a
    load; the rebuild it needs wants that kernel's headers (GX403 second)."""
    r = triage([("x", "modprobe: FATAL: Module nvidia not found in directory "
                      "/lib/modules/5.15.0-1034-aws\n")])
    assert [c.cause.id for c in r.causes[:2]] == ["kernel-upgraded", "kernel-headers"]
    assert not r.decided
    assert not {"nouveau", "secure-boot"} & {c.cause.id for c in r.causes}
    # unattended-upgrades' own log of the new kernel puts it beyond doubt
    log = ("2024-05-02 06:25:11,032 INFO Packages that will be upgraded: linux-aws "
           "linux-headers-aws linux-image-aws\n")
    assert _codes(log)[0] == "GX508"


def test_config_manager_stale_link_is_the_edited_configmap() -> None:
    """NVIDIA/k8s-device-plugin@v0.20.0:cmd/config-manager/main.go stats the current link
    (following it) before replacing it: ``file exists`` means the config it named was removed
    from the ConfigMap while the plugin ran (GX408); another symlink error is GX413."""
    stale = ('level=info msg="Error: error creating symlink: symlink /available-configs/'
             'config-3 /config/config.yaml: file exists"\n')
    assert _codes(stale)[:2] == ["GX408", "GX413"]
    other = stale.replace("file exists", "permission denied")
    assert _codes(other)[0] == "GX413"


def test_an_xid_that_made_a_gpu_unhealthy_is_named_by_its_effect() -> None:
    """A kernel log of Xids alone is GX505; with the device plugin marking the GPU unhealthy
    (NVIDIA/k8s-device-plugin@v0.20.0:internal/rm/health.go) it is GX203, the Xid second. A
    line that only also votes for unhealthy (the plugin's RPC failing) does not move it."""
    xid = ("[Fri Aug  9 13:32:56 2024] NVRM: Xid (PCI:0000:00:08): 94, pid='<unknown>', "
           "name=<unknown>, Contained: SM (0x1). RST: No, D-RST: No\n")
    assert _codes(xid)[0] == "GX505"
    plugin = ("I0809 13:32:57.000000 1 health.go:151] XidCriticalError: Xid=94 on "
              "Device=GPU-c24840ec-8de1-83d5-b126-08000173ae32; marking device as unhealthy.\n")
    assert _codes(xid + plugin)[:2] == ["GX203", "GX505"]
    rpc = ("Pod Allocate failed due to device plugin GetPreferredAllocation rpc failed with err: "
           "rpc error: code = Unknown desc = nvml: GPU is lost, which is unexpected\n"
           "Unable to determine the device handle for GPU 0000:C1:00.0: GPU is lost.  Reboot "
           "the system to recover this GPU\n")
    assert _codes(rpc)[0] == "GX505"


# ---- lines that say where NVML failed, not only that it failed ------------------------------
CLI_NOT_LOADED = ("stderr: nvidia-container-cli: initialization error: nvml error: driver not "
                  "loaded: unknown")


def test_the_cli_finding_no_loaded_driver_is_the_hook_unless_the_driver_pod_fails() -> None:
    """Alone, the hook's NVML finding no driver is the injection failing at create (where it
    was confirmed: the runtime applied on a host without GPUs, ray-project/ray#11418,
    dstackai/dstack#1942), NVML second; with the driver pod failing, the driver."""
    r = triage([("paste", CLI_NOT_LOADED + "\n")])
    assert [c.cause.code for c in r.causes[:2]] == ["GX307", "GX304"]
    with_pod = ("NAME                            READY   STATUS             RESTARTS   AGE\n"
                "nvidia-driver-daemonset-tm22t   0/1     CrashLoopBackOff   5          6m\n")
    r = triage([("paste", with_pod + "\n" + CLI_NOT_LOADED + "\n")])
    assert r.causes[0].cause.code == "GX403"


def test_the_plugin_nvml_unknown_error_at_start_is_init_not_access_lost() -> None:
    plugin = ("E0627 10:12:47.588061       1 factory.go:68] Failed to initialize NVML: Unknown "
              "Error.\nE0627 10:12:47.588076       1 factory.go:69] If this is a GPU node, did "
              "you set the docker default runtime to `nvidia`?\n")
    r = triage([("paste", plugin)])
    assert r.causes[0].cause.code == "GX304"
    assert {"GX306", "GX514"} & {c.cause.code for c in r.causes[1:]}
    # the same error in a workload that listed its GPU before is access lost (GX306)
    workload = ("GPU 0: NVIDIA A100-PCIE-40GB (UUID: GPU-551720f0-caf0-22b7-f525-2a51a6ab478d)\n"
                "Failed to initialize NVML: Unknown Error\n")
    assert triage([("paste", workload)]).causes[0].cause.code == "GX306"


def test_host_nvidia_smi_fields_reading_unknown_error_are_the_gpu_not_the_container() -> None:
    text = ("error creating nvml.Device 0: nvml: Unknown Error\n\n$ nvidia-smi -q\n\n"
            "==============NVSMI LOG==============\n\n"
            "Driver Version                            : 535.54.03\n\n"
            "Attached GPUs                             : 1\nGPU 00000000:00:1E.0\n"
            "    Product Name                          : NVIDIA A10G\n"
            "    MIG Mode\n        Current                           : Unknown Error\n"
            "        Pending                           : Unknown Error\n")
    r = triage([("paste", text)])
    assert r.causes[0].cause.id == "nvml-gpu-error"
    assert r.causes[0].cause.code == "GX304"


def test_a_broken_driver_toolkit_image_is_missing_headers() -> None:
    text = ("WARNING: broken Driver Toolkit image detected:\n"
            "- Node kernel:    6.12.0-224.el10.x86_64\n"
            "- Kernel package: 6.12.0-212.el10.x86_64\n")
    r = triage([("paste", text)])
    assert (r.causes[0].cause.code, r.causes[0].cause.id) == ("GX403", "kernel-headers")


def test_html_wrapping_comes_off_before_the_signature_scan() -> None:
    # smi-no-devices is anchored to the whole line nvidia-smi prints
    r = triage([("paste", "<details><summary>smi</summary>\n<pre>No devices were found</pre>\n"
                          "</details>\n")])
    assert "smi-no-devices" in {s for c in r.causes for s in c.signatures}


def test_a_driver_container_log_known_by_its_load_and_shutdown_lines() -> None:
    # NVIDIA/gpu-driver-container ubuntu22.04/nvidia-driver: _load_driver and _shutdown's lines
    log = ("Configuring the following firmware search path in '/sys/module/firmware_class/"
           "parameters/path': /run/nvidia/driver/lib/firmware\nCaught signal\n"
           "Stopping NVIDIA persistence daemon...\nUnloading NVIDIA driver kernel modules...\n"
           "Unmounting NVIDIA driver rootfs...\n")
    r = triage([("paste", log)])
    assert r.causes and r.causes[0].cause.code == "GX403"
    assert all(s.startswith("component:driver-container") for s in r.causes[0].signatures)
    assert not r.decided


# NVIDIA/dcgm-exporter@3.3.5-3.4.1:pkg/cmd/app.go logs "Starting dcgm-exporter" then, on a
# start-up error, logrus.Fatal; the error's words here are ones no signature knows
DCGM_FATAL = ('time="2024-03-01T10:00:00Z" level=info msg="Starting dcgm-exporter"\n'
              'time="2024-03-01T10:00:01Z" level=info msg="DCGM successfully initialized!"\n'
              'time="2024-03-01T10:00:01Z" level=fatal msg="Error getting frobnicator: {err}"\n')


def test_an_unknown_fatal_line_of_a_component_names_its_own_failure() -> None:
    r = triage([("dcgm", DCGM_FATAL.format(err="quux"))])
    assert [c.cause.code for c in r.causes][:1] == ["GX406"]
    assert r.causes[0].cause.id == "dcgm-exporter-failing"
    assert not r.decided  # a vote, never deciding


def test_a_component_log_without_a_failure_line_votes_no_failure() -> None:
    ok = "\n".join(DCGM_FATAL.format(err="x").splitlines()[:2]) + "\n"
    assert "dcgm-exporter-failing" not in {c.cause.id for c in triage([("dcgm", ok)]).causes}


def test_a_plugin_error_line_no_signature_knows_votes_not_advertised() -> None:
    # NVIDIA/k8s-device-plugin@v0.20.0:cmd/nvidia-device-plugin/main.go start lines, klog format
    log = ("I1129 10:02:10.000000 1 main.go:279] Starting OS watcher.\n"
           "E1129 10:02:11.000000 1 main.go:180] error starting plugins: frobnicated\n")
    codes = _codes(log)
    assert codes[:1] == ["GX202"], codes


@pytest.mark.parametrize(("text", "code"), [
    # kube-openapi's unknown field in a stale ClusterPolicy CRD's schema, the path retyped by
    # hand (misspelt, no space after the colon): keyed on the schema's com.nvidia.v1 name
    ('error validating data :[ValidationError(ClusterOolicy.spec.gfd):unknown field "enable" '
     'in com.nvidia.v1.ClusterPlicy.spec.gfd]', "GX420"),
    # the device plugin's DaemonSet refused by an admission policy: the plugin never runs
    ('daemonsets.apps "nvidia-device-plugin-daemonset" is forbidden: ValidatingAdmissionPolicy '
     "'protect-system' with binding 'protect-system-binding' denied request: not allowed",
     "GX202"),
    # the driver container on an Amazon Linux 2 kernel: no driver image was ever built for it
    ("Starting installation of NVIDIA driver version 535.104.05 for Linux kernel version "
     "5.10.205-195.807.amzn2.x86_64\nCould not resolve Linux kernel version", "GX412"),
])
def test_lines_that_name_their_cause_rank_it_first(text: str, code: str) -> None:
    assert _codes(text)[:1] == [code]


def test_amazon_linux_2023_kernels_are_not_amazon_linux_2() -> None:
    text = ("Starting installation of NVIDIA driver version 535.104.05 for Linux kernel "
            "version 6.1.61-85.141.amzn2023.x86_64\nCould not resolve Linux kernel version")
    assert "GX412" not in _codes(text)[:1]


# NVIDIA/dcgm-exporter@3.3.5-3.4.0:pkg/cmd/app.go and pkg/dcgmexporter/system_info.go: the
# start lines every exporter prints, with or without NVSwitches on the node
DCGM_START = ('time="2024-10-30T19:39:45Z" level=info msg="Starting dcgm-exporter"\n'
              'time="2024-10-30T19:39:45Z" level=info msg="DCGM successfully initialized!"\n'
              'time="2024-10-30T19:39:45Z" level=warning msg="Skipping line 26 '
              '(\'DCGM_FI_PROF_PIPE_FP64_ACTIVE\'): metric not enabled"\n'
              'time="2024-10-30T19:39:45Z" level=info msg="Initializing system entities of '
              'type: NvSwitch"\n'
              'time="2024-10-30T19:39:45Z" level=info msg="Not collecting switch metrics: no '
              'switches to monitor"\n')


def test_an_exporter_log_that_stops_before_serving_is_the_exporters() -> None:
    # its NvSwitch entity walk is no sign of Fabric Manager, and "DCGM successfully
    # initialized!" is not yet serving
    codes = _codes(DCGM_START)
    assert codes[:1] == ["GX406"] and "GX405" not in codes, codes


def test_an_exporter_that_serves_gives_no_priors() -> None:
    served = DCGM_START + 'time="2024-10-30T19:39:46Z" level=info msg="Starting webserver"\n'
    assert _codes(served) == []


def test_the_containers_library_debug_log_points_at_injection() -> None:
    # NVIDIA/libnvidia-container@v1.17.7:src/nvc.c, the hook's debug log: a log that ends
    # (a crash, a hang) in the library is the runtime's injection, ranked over the toolkit
    # installer the file's name mentions
    log = ("$ cat /var/log/nvidia-container-toolkit.log\n"
           "-- WARNING, the following logs are for debugging purposes only --\n"
           "I0522 08:51:48.493265 8342 nvc.c:396] initializing library context "
           "(version=1.17.7, build=1.17.7)\n"
           "I0522 08:51:48.493402 8342 nvc.c:367] using root /\n"
           "I0522 08:51:48.493575 8342 nvc.c:415] dxcore initialization failed, continuing "
           "assuming a non-WSL environment\n")
    r = triage([("paste", log)])
    assert [c.cause.code for c in r.causes][:1] == ["GX307"] and not r.decided
    assert r.causes[0].score == pytest.approx(0.4 * OWN_LOG_WEIGHT)


@pytest.mark.parametrize(("label", "code"), [
    ("nvidia.com/device-plugin.config", "GX413"),
    ("nvidia.com/mig.config", "GX407"),
])
def test_the_label_a_manager_waits_for_names_the_manager(label: str, code: str) -> None:
    # config-manager (NVIDIA/k8s-device-plugin@v0.17.0:cmd/config-manager/main.go) and
    # mig-manager (NVIDIA/mig-parted@v0.10.0:cmd/nvidia-mig-manager/main.go) print the same
    # words about their own labels
    line = f"I1127 22:37:28.838748       7 main.go:246] Waiting for change to '{label}' label\n"
    assert _codes(line)[:1] == [code]


@pytest.mark.parametrize("line", [
    "node23:12098:12141 [2] transport/nvls.cc:244 NCCL WARN Cuda failure 1 'invalid argument'",
    "gpu47:4962:5097 [1] transport/nvls.cc:223 NCCL WARN Cuda failure 999 'unknown error'",
])
def test_nccls_nvlink_sharp_transport_failing_points_at_fabric_manager(line: str) -> None:
    r = triage([("paste", line + "\n")])
    assert [c.cause.code for c in r.causes][:1] == ["GX405"] and not r.decided


def test_a_gpu_the_plugins_topology_read_fails_on_is_the_gpu_not_admission() -> None:
    # NVIDIA/k8s-device-plugin@v0.17.0:internal/rm/allocate.go reads every GPU's links
    event = ("Warning  UnexpectedAdmissionError  pod/x  Allocate failed due to device plugin "
             "GetPreferredAllocation rpc failed with err: rpc error: code = Unknown desc = "
             "error getting list of preferred allocation devices: unable to get device link "
             "information: error getting NVLink for devices (0, 1)\n")
    codes = _codes(event)
    assert codes[:1] == ["GX505"] and codes.index("GX310") > 0, codes


# NVIDIA/libnvidia-container@0f8e13d6:src/nvc_ldcache.c (its klog-style debug log) and
# NVIDIA/nvidia-docker's nvidia-smi error when the container's ld cache lacks NVML
LDCACHE_LOG = ("I0216 16:10:49.981773 34298 nvc_ldcache.c:362] executing /sbin/ldconfig from "
               "host at /var/lib/docker/overlay2/4f6f/merged\n"
               "E0216 16:10:49.982844 1 nvc_ldcache.c:393] could not start /sbin/ldconfig: "
               "process execution failed: no such file or directory\n"
               "I0216 16:10:49.983136 34298 nvc.c:430] shutting down library context\n")
SMI_NO_NVML = ("NVIDIA-SMI couldn't find libnvidia-ml.so library in your system. Please make "
               "sure that the NVIDIA Display Driver is properly installed and present in your "
               "system.\n")


def test_an_ldconfig_the_library_could_not_start_ranks_over_nvml_not_found() -> None:
    assert _codes(SMI_NO_NVML)[:1] != ["GX307"]
    r = triage([("paste", SMI_NO_NVML + LDCACHE_LOG)])
    assert [c.cause.code for c in r.causes][:1] == ["GX307"] and r.causes[0].deciding


@pytest.mark.parametrize("ret,code", [("Not Supported", "GX409"), ("Unknown Error", None)])
def test_no_minor_number_from_nvml_is_the_wsl2_platform_only_when_not_supported(
        ret: str, code: str | None) -> None:
    # NVIDIA/k8s-device-plugin@v0.12.2:internal/rm/nvml.go wraps NVML's error string
    line = ("panic: Unable to load resource managers to manage plugin devices: error building "
            "device map: error building GPU device map: error building GPU Device: error "
            f"getting device paths: error getting GPU device minor number: {ret}\n")
    r = triage([("paste", line)])
    top = r.causes[0].cause.code if r.causes else None
    assert (top == "GX409") == (code == "GX409")
    if code:
        assert r.decided


@pytest.mark.parametrize("init_pci,unhealthy", [("000f:01:00.0", False), ("0000:3b:00.0", True)])
def test_an_xid_of_a_gpu_that_never_initialised_is_no_unhealthy_device(
        init_pci: str, unhealthy: bool) -> None:
    # NVIDIA/open-gpu-kernel-modules osinit.c prints both; the plugin's health check watches
    # only the devices NVML enumerated (NVIDIA/k8s-device-plugin@v0.17.0:internal/rm/health.go)
    text = ("NVRM: Xid (PCI:000f:01:00): 169, fd8cd000 94000000\n"
            f"NVRM: GPU {init_pci}: RmInitAdapter failed! (0x62:0x1a:2631)\n")
    codes = _codes(text)
    assert ("GX203" in codes) == unhealthy, codes
    assert {"GX505", "GX403"} <= set(codes)


def test_a_device_held_by_another_claim_is_the_claims_own_failure() -> None:
    """The kubelet plugin's earlier attempts waited for the ComputeDomain; the one that failed
    found the channel held in its checkpoint by another claim (dra-driver-nvidia-gpu#1162):
    the prepare failure is the cause, not an IMEX daemon that later came up."""
    claim = "'ml/job-0-channel-x2k:5f0c1d2e-3b4a-4c5d-8e9f-0a1b2c3d4e5f'"
    log = "".join(
        f"I0523 22:44:5{i}.336698       1 workqueue.go:171] Reconcile: error preparing devices "
        f"for claim {claim}: prepare devices failed: error applying config: error asserting "
        f"ComputeDomain Ready: current node not ready in ComputeDomain (attempt {i})\n"
        for i in (1, 2, 3))
    held = ("requested device channel-0 is already allocated to different claim "
            "4914da61-1a20-42b3-bf26-981025df4289\n")
    waiting = triage([("plugin", log)])
    assert waiting.causes[0].cause.id == "dra-imex-down"
    r = triage([("plugin", held + log)])
    assert [c.cause.code for c in r.causes[:2]] == ["GX308", "GX415"]
