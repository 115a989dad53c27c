"""Knowledge items checked against their upstream sources: each test pins a behaviour the
tool got wrong before (the upstream file it follows is named in the test)."""

from __future__ import annotations

from pathlib import Path

import pytest

from gpuxray.checks.engine import run_all
from gpuxray.knowledge.driver_images import os_tag
from gpuxray.model.finding import Finding, Status
from gpuxray.scenarios.builder import ClusterBuilder
from gpuxray.scenarios.cdi import device_plugin_spec
from gpuxray.scenarios.operator import add_cdi_spec
from gpuxray.sources.parsers.dmesg import parse_kernel_log
from operator_fixtures import GPU_NODES, cluster, snapshot

# NVIDIA/open-gpu-kernel-modules src/nvidia/src/kernel/gpu/rc/kernel_rc.c (krcReportXid) prints
# these three forms; the first is the A100 memory-error guide's own example line.
MIG_XID = ("[Mon Nov 23 08:01:02 2026] NVRM: Xid (PCI:0000:01:00 GPU-I:05): 94, pid=7194, "
           "Contained: CE User Channel (0x9). RST: No, D-RST: No")
MIG_CI_XID = ("[Mon Nov 23 08:01:03 2026] NVRM: Xid (PCI:0000:3b:00 GPU-I:01 GPU-CI:02): 13, "
              "pid=9, name=python3, Graphics Exception")
PLAIN_XID = ("[Mon Nov 23 08:01:04 2026] NVRM: Xid (PCI:0000:01:00): 94, pid=7062, "
             "Contained: CE User Channel (0x9). RST: No, D-RST: No")


def test_xid_parser_reads_mig_attributed_lines() -> None:
    log = parse_kernel_log("\n".join((MIG_XID, MIG_CI_XID, PLAIN_XID)))
    got = [(x.xid, x.pci, x.gpu_instance, x.compute_instance, x.pid) for x in log.xids]
    assert got == [(94, "0000:01:00", 5, None, "7194"), (13, "0000:3b:00", 1, 2, "9"),
                   (94, "0000:01:00", None, None, "7062")]


@pytest.mark.parametrize(("os_image", "operator", "tag"), [
    # gpu-operator@v25.10.1 controllers/state_manager.go: ID + VERSION_ID
    ("Red Hat Enterprise Linux 9.4 (Plow)", "v25.10.1", "rhel9.4"),
    ("Rocky Linux 9.4 (Blue Onyx)", "v25.10.1", "rocky9.4"),
    ("Oracle Linux Server 9.4", "v25.10.1", "ol9.4"),
    # v26.3.0: rocky, and RHEL from 10 on, keep only the major version
    ("Rocky Linux 9.4 (Blue Onyx)", "v26.3.3", "rocky9"),
    ("Red Hat Enterprise Linux 9.4 (Plow)", "v26.3.3", "rhel9.4"),
    ("Red Hat Enterprise Linux 10.0 (Coughlan)", "v26.3.3", "rhel10"),
    ("Oracle Linux Server 9.4", "v26.3.3", "ol9.4"),
    # v26.7.0: ol, rocky and rhel all major only
    ("Red Hat Enterprise Linux 9.4 (Plow)", "nvcr.io/nvidia/gpu-operator:v26.7.0", "rhel9"),
    ("Rocky Linux 9.6 (Blue Onyx)", "v26.7.0", "rocky9"),
    ("Oracle Linux Server 9.4", "v26.7.0", "ol9"),
    ("Ubuntu 22.04.5 LTS", "v26.7.0", "ubuntu22.04"),
])
def test_driver_image_os_tag_follows_the_operator_release(os_image: str, operator: str,
                                                          tag: str) -> None:
    assert os_tag(os_image, operator) == tag


def test_driver_image_os_tag_prefers_nfd_os_release_labels() -> None:
    labels = {"feature.node.kubernetes.io/system-os_release.ID": "rhel",
              "feature.node.kubernetes.io/system-os_release.VERSION_ID": "9.6"}
    assert os_tag("Red Hat Enterprise Linux 9.4 (Plow)", "v25.10.1", labels) == "rhel9.6"


# ----- GX305: the kinds the operator stack really writes (knowledge/cdi.py) -----------------
CORPUS = Path(__file__).resolve().parents[1] / ".." / "shared" / "corpus" / "cdi"
# a real host spec (nvidia-ctk 1.17.8, driver 575.64.03): kind nvidia.com/gpu
HOST_SPEC = CORPUS / "real-k3s-host-nvidia-575" / "nvidia.yaml"
# what the operator-mode installer writes (toolkit_test.go expectedCdiSpec); the test names the
# kind example.com/class, the installer's default kind is management.nvidia.com/gpu
INSTALLER_SPEC = CORPUS / "ctk-installer-test-cdi-all" / "cdi-all.rendered.yaml"


def _corpus(p: Path) -> str:
    if not p.is_file():
        pytest.skip(f"corpus file {p} is not here")
    return p.read_text()


def _gx305(b: ClusterBuilder, tmp: Path) -> list[Finding]:
    return run_all(snapshot(b, tmp), ["GX305"])


def _with_files(b: ClusterBuilder) -> None:
    for n in GPU_NODES:
        b.host_file(n, "etc/containerd/config.toml", "version = 2\n")


def test_gx305_passes_on_the_specs_the_operator_writes(tmp_path: Path) -> None:
    b = cluster()
    _with_files(b)
    mgmt = _corpus(INSTALLER_SPEC).replace("kind: example.com/class",
                                           "kind: management.nvidia.com/gpu")
    for n in GPU_NODES:
        b.host_file(n, "var/run/cdi/management.nvidia.com-gpu.yaml", mgmt)
        b.host_file(n, "var/run/cdi/k8s.device-plugin.nvidia.com-gpu.json",
                    device_plugin_spec(n, 8))
    assert _gx305(b, tmp_path) == []


def test_gx305_a_host_nvidia_com_spec_is_no_proof(tmp_path: Path) -> None:
    b = cluster()
    _with_files(b)
    add_cdi_spec(b, "gpu-0")
    b.host_file("gpu-1", "etc/cdi/nvidia.yaml", _corpus(HOST_SPEC))  # host package spec only
    fs = _gx305(b, tmp_path)
    assert [(f.subject.name, f.status) for f in fs] == [("gpu-1", Status.FAIL)]
    assert fs[0].params["missing_kinds"] == ["k8s.device-plugin.nvidia.com/gpu",
                                             "management.nvidia.com/gpu"]
    assert fs[0].params["host_spec_only"] is True


def test_gx305_device_plugin_spec_missing_only(tmp_path: Path) -> None:
    b = cluster()
    _with_files(b)
    add_cdi_spec(b, "gpu-0")
    add_cdi_spec(b, "gpu-1", device_plugin=False)
    fs = _gx305(b, tmp_path)
    assert [(f.subject.name, f.params["missing_kinds"]) for f in fs] == [
        ("gpu-1", ["k8s.device-plugin.nvidia.com/gpu"])]


def test_gx305_unknown_when_cdi_dirs_not_collected(tmp_path: Path) -> None:
    b = cluster()
    _with_files(b)
    add_cdi_spec(b, "gpu-0")
    b.host_file("gpu-1", "etc/containerd/config.toml", "")  # placeholder, then drop gpu-1's files
    for k in [k for k in b.files if k.startswith("nodes/gpu-1/")]:
        del b.files[k]
    fs = _gx305(b, tmp_path)
    assert [(f.subject.name, f.status, f.params.get("nodes")) for f in fs] == [
        ("gpu-1", Status.UNKNOWN, ["gpu-1"])]


def test_gx305_cdi_default_follows_the_operator_release(tmp_path: Path) -> None:
    """v25.3.x reads an unset ``cdi.enabled`` as off (api/nvidia/v1/clusterpolicy_types.go)."""
    b = cluster(version="v25.3.4")
    _with_files(b)
    b.find("clusterpolicies", "cluster-policy")["spec"].pop("cdi", None)
    assert _gx305(b, tmp_path) == []


# ----- GX303 under CDI: workloads run under runc unless they name an NVIDIA RuntimeClass ------
TOL = [{"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}]


def test_gx303_envvar_under_cdi_depends_on_the_runtime_class(tmp_path: Path) -> None:
    """gpu-operator@v25.10.1 transformToolkitCtrForCDI sets NVIDIA_RUNTIME_SET_AS_DEFAULT=false:
    with CDI on, NVIDIA_VISIBLE_DEVICES only acts under runtimeClassName nvidia."""
    b = cluster()
    b.pod("ml", "plain", node="gpu-0", tolerations=TOL, containers=[b.container(
        "main", env={"NVIDIA_VISIBLE_DEVICES": "all"}, image="python:3.12")])
    rc = b.pod("ml", "with-rc", node="gpu-0", tolerations=TOL, containers=[b.container(
        "main", env={"NVIDIA_VISIBLE_DEVICES": "all"}, image="python:3.12")])
    rc["spec"]["runtimeClassName"] = "nvidia"
    fs = {f.subject.name: f for f in run_all(snapshot(b, tmp_path / "on"), ["GX303"])}
    assert fs["plain"].params["nvidia_runtime"] is False
    assert "runc" in fs["plain"].params["problem"]
    assert fs["with-rc"].params["nvidia_runtime"] is True
    b.find("clusterpolicies", "cluster-policy")["spec"]["cdi"]["enabled"] = False
    off = {f.subject.name: f for f in run_all(snapshot(b, tmp_path / "off"), ["GX303"])}
    assert off["plain"].params["nvidia_runtime"] is True  # nvidia is containerd's default


def test_clusterpolicy_upgrade_only_not_ready_message_keeps_its_reasons() -> None:
    """gpu-operator@v26.7.0 clusterPolicyNotReadyMessage joins parts with "; " and may give no
    state list at all."""
    from gpuxray.knowledge.clusterpolicy import not_ready_reasons, states_not_ready

    msg = ("ClusterPolicy is not ready; NVIDIADriver upgrade has not completed; one or more "
           "NVIDIADriver-owned Nodes are marked pending, in-progress, or failed")
    assert states_not_ready(msg) == []
    assert not_ready_reasons(msg) == [
        "NVIDIADriver upgrade has not completed",
        "one or more NVIDIADriver-owned Nodes are marked pending, in-progress, or failed"]
    both = "ClusterPolicy is not ready; states not ready: [state-driver]; NVIDIADriver upgrade " \
           "has not completed"
    assert states_not_ready(both) == ["state-driver"]
    assert not_ready_reasons(both) == ["NVIDIADriver upgrade has not completed"]
    assert not_ready_reasons("ClusterPolicy is not ready, states not ready: [state-driver]") == []


def test_gx305_checks_the_device_names_pods_were_given(tmp_path: Path) -> None:
    """The names in ``unresolvable CDI devices <kind>=<device>`` are looked up in the node's
    specs: a device plugin spec that lacks the pod's GPU UUID is stale."""
    from gpuxray.scenarios.cdi import gpu_uuid

    b = cluster()
    _with_files(b)
    for n in GPU_NODES:
        add_cdi_spec(b, n)
    known, stale = gpu_uuid("gpu-1", 0), "GPU-7f3c2a1e-9b7d-4c61-8e0a-1f2e3d4c5b6a"
    for name, dev in (("given-known", known), ("given-stale", stale)):
        pod = b.pod("ml", name, node="gpu-1", gpus=1, phase="Pending",
                    tolerations=[{"key": "nvidia.com/gpu", "operator": "Exists"}],
                    container_statuses=[{"name": "main", "ready": False, "restartCount": 0,
                                         "state": {"waiting": {"reason": "CreateContainerError"}}}])
        b.event(pod, "Failed", "Error: failed to create containerd container: CDI device "
                "injection failed: unresolvable CDI devices "
                f"k8s.device-plugin.nvidia.com/gpu={dev}", component="kubelet", host="gpu-1")
    node = [f for f in _gx305(b, tmp_path) if f.subject.kind == "Node"]
    assert [(f.subject.name, f.params["unresolved"]) for f in node] == [
        ("gpu-1", {"ml/given-stale": [f"k8s.device-plugin.nvidia.com/gpu={stale}"]})]
