"""Operator stack checks GX401–GX411 on scenario bundles built with add_gpu_operator."""

from __future__ import annotations

from pathlib import Path

import pytest

from gpuxray.checks.engine import run_all
from gpuxray.diagnose.incidents import node_keys
from gpuxray.model.finding import Finding, Severity, Status
from gpuxray.scenarios.builder import ClusterBuilder
from gpuxray.scenarios.operator import add_gpu_operator
from operator_fixtures import GPU_NODES, cluster, codes_subjects, failing, snapshot

MINE = ("GX302", "GX303", "GX304", "GX305", "GX306", "GX401", "GX402", "GX403", "GX404",
        "GX406", "GX407", "GX408", "GX409", "GX410", "GX411")
NS = "gpu-operator"


def run(b: ClusterBuilder, tmp_path: Path, codes: tuple[str, ...] = MINE) -> list[Finding]:
    return run_all(snapshot(b, tmp_path), codes)


def only(findings: list[Finding], code: str) -> list[Finding]:
    return [f for f in findings if f.code == code and f.status == Status.FAIL]


def test_healthy_cluster_has_no_warning_or_error(tmp_path: Path) -> None:
    findings = run(cluster(), tmp_path)
    assert failing(findings) == []
    # without nodes/ the CDI dirs are not collected: GX305 says so once, naming the input,
    # for both GPU nodes
    assert [(f.code, f.params["missing"], f.params.get("node_count"))
            for f in findings if f.status == Status.UNKNOWN] in ([], [("GX305", "nodes/", 2)])


@pytest.mark.parametrize(("cause", "cause_id"), [
    ("nouveau", "nouveau"), ("secure-boot", "secure-boot"),
    ("precompiled", "precompiled-kernel"), ("headers", "kernel-headers")])
def test_driver_not_ready_names_the_cause(tmp_path: Path, cause: str, cause_id: str) -> None:
    fs = run(cluster({"driver": f"gpu-1:{cause}"}), tmp_path)
    gx403 = only(fs, "GX403")
    assert codes_subjects(gx403) == {("GX403", "Node", "gpu-1")}
    assert gx403[0].params["cause_id"] == cause_id
    # every later operand on gpu-1 waits in Init, nothing on gpu-0 does
    gx302 = only(fs, "GX302")
    assert gx302 and {f.params["node"] for f in gx302} == {"gpu-1"}
    toolkit = [f for f in gx302 if f.subject.name.startswith("nvidia-container-toolkit")]
    assert toolkit[0].params["stage_id"] == "driver"
    plugin = [f for f in gx302 if f.subject.name.startswith("nvidia-device-plugin-daemonset")]
    assert plugin[0].params["stage_id"] == "toolkit"
    # the plugin's evidence follows the chain down to the driver pod
    assert "itself waiting for NVIDIA driver" in plugin[0].params["upstream"]
    assert any("nvidia-driver-daemonset" in e.detail for e in plugin[0].evidence)
    gx410 = only(fs, "GX410")
    assert gx410[0].params["operands"][0] == "nvidia-driver-daemonset"


def test_driver_crash_without_known_signature_still_reported(tmp_path: Path) -> None:
    b = cluster({"driver": "gpu-0:nouveau"})
    b.files = {k: v for k, v in b.files.items() if "nvidia-driver-ctr" not in k}
    fs = run(b, tmp_path, ("GX403",))
    assert only(fs, "GX403")[0].params["cause_id"] == "not-ready"


def test_host_driver_mode_checks_host_facts(tmp_path: Path) -> None:
    b = cluster()
    cp = b.find("clusterpolicies", "cluster-policy")
    cp["spec"]["driver"]["enabled"] = False
    b.host_cmd("gpu-0", "dmesg.txt",
               "[Sat Nov 29 10:00:01 2026] nvidia: module verification failed: signature and/or "
               "required key missing - tainting kernel\n"
               "[Sat Nov 29 10:00:01 2026] Lockdown: modprobe: unsigned module loading is "
               "restricted; see man kernel_lockdown.7\n")
    b.host_file("gpu-0", "etc/os-release", "ID=ubuntu\n")
    b.host_cmd("gpu-1", "nvidia-smi.txt", "+-----------------------------------------------------"
               "------------------------------------+\n| NVIDIA-SMI 580.95.05      Driver Version: "
               "580.95.05      CUDA Version: 13.0     |\n")
    b.host_file("gpu-1", "proc/driver/nvidia/version",
                "NVRM version: NVIDIA UNIX x86_64 Kernel Module  580.95.05\n")
    fs = run(b, tmp_path, ("GX403",))
    gx403 = only(fs, "GX403")
    assert codes_subjects(gx403) == {("GX403", "Node", "gpu-0")}
    assert gx403[0].params["cause_id"] == "secure-boot"


def test_upgrade_failed_label(tmp_path: Path) -> None:
    fs = run(cluster({"upgrade": "gpu-1"}), tmp_path)
    assert codes_subjects(only(fs, "GX404")) == {("GX404", "Node", "gpu-1")}


def test_unlabelled_gpu_node(tmp_path: Path) -> None:
    fs = run(cluster({"labels": "gpu-1"}), tmp_path)
    gx401 = only(fs, "GX401")
    assert codes_subjects(gx401) == {("GX401", "Node", "gpu-1")}
    assert "nvidia.com/gpu.present" in gx401[0].params["labels"]
    assert "nvidia-device-plugin-daemonset" in gx401[0].params["skipped"]


def test_opted_out_and_paused_nodes_are_not_unlabelled(tmp_path: Path) -> None:
    b = cluster()
    labels = b.find("nodes", "gpu-0")["metadata"]["labels"]
    labels["nvidia.com/gpu.deploy.driver"] = "paused-for-driver-upgrade"
    labels["nvidia.com/gpu.deploy.dcgm-exporter"] = "false"
    b.find("nodes", "gpu-1")["metadata"]["labels"]["nvidia.com/gpu.deploy.operands"] = "false"
    assert only(run(b, tmp_path, ("GX401",)), "GX401") == []


def test_untolerated_taint_names_each_operand(tmp_path: Path) -> None:
    fs = run(cluster({"taint": "gpu-0:team"}), tmp_path)
    gx402 = only(fs, "GX402")
    names = {f.subject.name for f in gx402}
    assert "nvidia-device-plugin-daemonset" in names and "nvidia-driver-daemonset" in names
    assert all(f.subject.kind == "DaemonSet" and f.subject.namespace == NS for f in gx402)
    assert all(f.params["nodes"] == ["gpu-0"] and f.params["taint"] == "team=ml:NoSchedule"
               for f in gx402)


def test_untolerated_taint_on_many_nodes_names_each_node_once(tmp_path: Path) -> None:
    b = cluster({"taint": "gpu-0:team"})
    b.find("nodes", "gpu-1")["spec"]["taints"].append(
        {"key": "team", "value": "ml", "effect": "NoSchedule"})
    gx402 = only(run(b, tmp_path), "GX402")
    assert gx402
    for f in gx402:
        assert (f.params["nodes"], f.params["node_count"]) == (["gpu-0", "gpu-1"], 2)
        assert "node" not in f.params  # ``node`` is one node's name, never a joined list
        assert node_keys(f) == {"gpu-0", "gpu-1"}


def test_tolerated_taint_is_fine(tmp_path: Path) -> None:
    # the GPU nodes carry nvidia.com/gpu=present:NoSchedule, which the operands tolerate
    assert only(run(cluster(), tmp_path, ("GX402",)), "GX402") == []


@pytest.mark.parametrize(("knob", "cause_id"), [("dcgm-exporter", "dcgm-connect"),
                                                ("dcgm-profiling", "dcgm-profiling")])
def test_dcgm_exporter_failing(tmp_path: Path, knob: str, cause_id: str) -> None:
    fs = run(cluster({knob: "gpu-1"}), tmp_path)
    gx406 = only(fs, "GX406")
    assert len(gx406) == 1
    f = gx406[0]
    assert f.subject.kind == "Pod" and f.subject.namespace == NS
    assert f.subject.name.startswith("nvidia-dcgm-exporter-") and f.params["node"] == "gpu-1"
    assert f.params["cause_id"] == cause_id


def test_mig_config_failed(tmp_path: Path) -> None:
    fs = run(cluster({"mig": "gpu-0"}), tmp_path)
    gx407 = only(fs, "GX407")
    assert codes_subjects(gx407) == {("GX407", "Node", "gpu-0")}
    assert any("Error applying MIG configuration" in e.detail for e in gx407[0].evidence)


def test_mig_pending_is_stuck_only_with_errors(tmp_path: Path) -> None:
    b = cluster()
    b.find("nodes", "gpu-0")["metadata"]["labels"]["nvidia.com/mig.config.state"] = "pending"
    assert only(run(b, tmp_path / "a", ("GX407",)), "GX407") == []
    mm = next(p for p in b.cluster["pods"] if p["metadata"]["name"].startswith(
        "nvidia-mig-manager-") and p["spec"]["nodeName"] == "gpu-0")
    b.log(NS, mm["metadata"]["name"], "nvidia-mig-manager",
          "Error applying MIG configuration with hooks: error setting MIG mode\n")
    fs = only(run(b, tmp_path / "b", ("GX407",)), "GX407")
    assert codes_subjects(fs) == {("GX407", "Node", "gpu-0")}
    assert fs[0].params["state"] == "pending"


def test_plugin_config_changed_after_pods_started(tmp_path: Path) -> None:
    fs = run(cluster({"plugin-config": "1"}), tmp_path)
    gx408 = only(fs, "GX408")
    assert codes_subjects(gx408) == {("GX408", "ConfigMap", "time-slicing-config")}
    assert gx408[0].params["updated"] == "2026-11-29T11:30:00Z"
    assert len(gx408[0].params["pods"]) == len(GPU_NODES)


def test_plugin_config_older_than_pods_is_fine(tmp_path: Path) -> None:
    b = cluster({"plugin-config": "1"})
    cm = b.find("configmaps", "time-slicing-config", NS)
    cm["metadata"]["managedFields"] = cm["metadata"]["managedFields"][:1]
    assert only(run(b, tmp_path, ("GX408",)), "GX408") == []


@pytest.mark.parametrize(("version", "severity"), [
    ("v25.10.1", Severity.INFO), ("v26.3.3", Severity.INFO), ("v24.9.2", Severity.INFO)])
def test_unsupported_operator_version(tmp_path: Path, version: str, severity: Severity) -> None:
    fs = only(run(cluster(version=version), tmp_path, ("GX409",)), "GX409")
    assert codes_subjects(fs) == {("GX409", "Deployment", "gpu-operator")}
    assert fs[0].severity == severity
    assert fs[0].params["version"] == version


def test_supported_versions_are_quiet(tmp_path: Path) -> None:
    for i, v in enumerate(("v26.7.0", "v26.7.1", "v27.1.0")):
        assert only(run(cluster(version=v), tmp_path / str(i), ("GX409",)), "GX409") == []


def test_consumer_gpu_unsupported(tmp_path: Path) -> None:
    fs = only(run(cluster(product="NVIDIA-GeForce-RTX-4090"), tmp_path, ("GX409",)), "GX409")
    assert codes_subjects(fs) == {("GX409", "Node", n) for n in GPU_NODES}


def test_clusterpolicy_not_ready_names_operand(tmp_path: Path) -> None:
    fs = only(run(cluster({"dcgm-exporter": "gpu-0"}), tmp_path, ("GX410",)), "GX410")
    assert codes_subjects(fs) == {("GX410", "ClusterPolicy", "cluster-policy")}
    assert fs[0].params["operands"] == ["nvidia-dcgm-exporter"]
    assert fs[0].params["state"] == "notReady"


def test_clusterpolicy_not_collected_is_unknown(tmp_path: Path) -> None:
    b = cluster()
    b.remove("clusterpolicies")
    b.error("cluster/clusterpolicies.json", "403 Forbidden")
    fs = [f for f in run(b, tmp_path, ("GX410",)) if f.code == "GX410"]
    assert [f.status for f in fs] == [Status.UNKNOWN]
    assert fs[0].params["reason"] == "403 Forbidden"


def test_runtime_chain_from_sandbox_events(tmp_path: Path) -> None:
    fs = run(cluster({"handler": "gpu-0"}), tmp_path)
    gx411 = only(fs, "GX411")
    assert codes_subjects(gx411) == {("GX411", "Node", "gpu-0")}
    chain = gx411[0].params["chain"]
    assert "nvidia-device-plugin-daemonset" in chain and "nvidia.com/gpu: 0" in chain
    assert only(fs, "GX302") == []  # sandbox failures are not Init waits


def test_runtime_chain_from_effective_containerd_config(tmp_path: Path) -> None:
    b = cluster()
    for n in GPU_NODES:
        b.host_file(n, "etc/containerd/config.toml", (
            'version = 2\nimports = ["/etc/containerd/conf.d/*.toml"]\n'
            '[plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc]\n'
            '  runtime_type = "io.containerd.runc.v2"\n'))
        b.host_cmd(n, "containerd-version.txt",
                   "containerd github.com/containerd/containerd v1.7.27 05044ec\n")
    nv = ('version = 2\n[plugins."io.containerd.grpc.v1.cri".containerd.runtimes.nvidia]\n'
          '  runtime_type = "io.containerd.runc.v2"\n'
          '  [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.nvidia.options]\n'
          '    BinaryName = "/usr/local/nvidia/toolkit/nvidia-container-runtime"\n')
    b.host_file("gpu-1", "etc/containerd/conf.d/99-nvidia.toml", nv)
    gx411 = only(run(b, tmp_path, ("GX411",)), "GX411")
    assert codes_subjects(gx411) == {("GX411", "Node", "gpu-0")}


def test_nri_plugin_mode_has_no_runtime_chain(tmp_path: Path) -> None:
    b = cluster({"handler": "gpu-0"})
    b.find("clusterpolicies", "cluster-policy")["spec"]["cdi"]["nriPluginEnabled"] = True
    assert only(run(b, tmp_path, ("GX411",)), "GX411") == []


def test_unknown_knob_is_refused() -> None:
    b = ClusterBuilder()
    b.node("gpu-0", gpus=1)
    with pytest.raises(ValueError, match="unknown knob"):
        add_gpu_operator(b, ["gpu-0"], broken={"nope": "gpu-0"})


def test_host_driver_mode_without_host_facts_is_unknown(tmp_path: Path) -> None:
    b = cluster()
    b.find("clusterpolicies", "cluster-policy")["spec"]["driver"]["enabled"] = False
    fs = [f for f in run(b, tmp_path, ("GX403",)) if f.code == "GX403"]
    assert [f.status for f in fs] == [Status.UNKNOWN]
    assert fs[0].params["missing"] == "nodes/"


def test_plugin_config_set_but_configmaps_missing_is_unknown(tmp_path: Path) -> None:
    b = cluster({"plugin-config": "1"})
    b.remove("configmaps")
    fs = [f for f in run(b, tmp_path / "a", ("GX408",)) if f.code == "GX408"]
    assert [(f.status, f.subject.name) for f in fs] == [(Status.UNKNOWN, "time-slicing-config")]
    # without a configured plugin config, missing ConfigMaps are not needed at all
    b2 = cluster()
    b2.remove("configmaps")
    assert [f for f in run(b2, tmp_path / "b", ("GX408",)) if f.code == "GX408"] == []


def test_runtime_chain_without_events_is_unknown(tmp_path: Path) -> None:
    b = cluster()
    b.remove("events")
    fs = [f for f in run(b, tmp_path, ("GX411",)) if f.code == "GX411"]
    assert [f.status for f in fs] == [Status.UNKNOWN]


def test_operator_version_from_pod_or_policy_label(tmp_path: Path) -> None:
    b = cluster(version="v25.3.4")
    b.remove("deployments")
    fs = only(run(b, tmp_path / "pod", ("GX409",)), "GX409")
    assert [(f.subject.kind, f.params["version"]) for f in fs] == [("Pod", "v25.3.4")]
    b.cluster["pods"] = [p for p in b.cluster["pods"]
                         if not p["metadata"]["name"].startswith("gpu-operator-")]
    fs = only(run(b, tmp_path / "cp", ("GX409",)), "GX409")
    assert [(f.subject.kind, f.params["version"]) for f in fs] == [("ClusterPolicy", "v25.3.4")]


def test_host_driver_smi_failure_without_known_cause(tmp_path: Path) -> None:
    b = cluster()
    b.find("clusterpolicies", "cluster-policy")["spec"]["driver"]["enabled"] = False
    b.host_cmd("gpu-0", "nvidia-smi.txt.err", "NVIDIA-SMI has failed because it couldn't "
               "communicate with the NVIDIA driver. Make sure that the latest NVIDIA driver is "
               "installed and running.\nexit status 9\n")
    b.host_cmd("gpu-1", "crictl-info.json.err", "crictl: command not found\n")
    fs = only(run(b, tmp_path, ("GX403",)), "GX403")
    assert codes_subjects(fs) == {("GX403", "Node", "gpu-0")}
    assert fs[0].params["cause_id"] == "undetermined"  # a look-alike line decides nothing


def test_mig_layout_invalid_for_the_gpu(tmp_path: Path) -> None:
    b = cluster()
    b.configmap(NS, "default-mig-parted-config", {"config.yaml": (
        "version: v1\nmig-configs:\n  all-disabled:\n    - devices: all\n      mig-enabled: false\n"
        "  too-many:\n    - devices: all\n      mig-enabled: true\n      mig-devices:\n"
        "        \"3g.40gb\": 3\n")})
    labels = b.find("nodes", "gpu-1")["metadata"]["labels"]
    labels["nvidia.com/mig.config"] = "too-many"
    labels["nvidia.com/mig.config.state"] = "success"
    fs = only(run(b, tmp_path, ("GX407",)), "GX407")
    assert codes_subjects(fs) == {("GX407", "Node", "gpu-1")}
    assert fs[0].params["config"] == "too-many" and fs[0].params["invalid_gpus"] == list(range(8))
