"""Catalog additions from tickets: GX307, GX412, GX413, GX414 and the broadened GX303, GX305,
GX509 — each on a scenario built with add_gpu_operator's knobs, silent on the healthy cluster,
reachable from ``why`` where it is a pod-level cause, and ranked first by ``triage``."""

from __future__ import annotations

from pathlib import Path

import pytest

from gpuxray.checks.engine import run_all
from gpuxray.diagnose.runtime import walk_runtime
from gpuxray.diagnose.triage import triage
from gpuxray.model.diagnosis import Diagnosis
from gpuxray.model.finding import Finding, Severity, Status
from gpuxray.model.incident import finding_ids
from gpuxray.render.json import finding_entries
from gpuxray.scenarios.builder import ClusterBuilder
from gpuxray.scenarios.operator import add_cdi_spec
from operator_fixtures import GPU_NODES, cluster, codes_subjects, failing, snapshot

NEW = ("GX303", "GX305", "GX307", "GX412", "GX413", "GX414", "GX509")
TOL = [{"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}]
CONTAINERD_V2 = """version = 2
[plugins."io.containerd.grpc.v1.cri".containerd]
  default_runtime_name = "runc"
[plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc]
  runtime_type = "io.containerd.runc.v2"
[plugins."io.containerd.grpc.v1.cri".containerd.runtimes.nvidia]
  runtime_type = "io.containerd.runc.v2"
[plugins."io.containerd.grpc.v1.cri".containerd.runtimes.nvidia.options]
  BinaryName = "/usr/local/nvidia/toolkit/nvidia-container-runtime"
"""


def fails(b: ClusterBuilder, tmp_path: Path, *codes: str) -> list[Finding]:
    return [f for f in run_all(snapshot(b, tmp_path), codes or NEW) if f.status == Status.FAIL]


def of(findings: list[Finding], code: str) -> list[Finding]:
    return [f for f in findings if f.code == code]


def why(b: ClusterBuilder, tmp_path: Path, ns: str, name: str) -> tuple[Diagnosis, Finding | None]:
    snap = snapshot(b, tmp_path)
    pod = snap.pod_by_key[(ns, name)]
    d = Diagnosis(f"{ns}/{name}", ns, name)
    return d, walk_runtime(snap, pod, d)


def with_host_files(b: ClusterBuilder, nodes: list[str]) -> None:
    for n in nodes:
        b.host_file(n, "etc/containerd/config.toml", CONTAINERD_V2)
        b.host_cmd(n, "containerd-version.txt", "containerd github.com/containerd/containerd "
                   "v1.7.27 05044ec0a9a75232cad458027ca83437aae3f4da\n")


# ----- healthy -----------------------------------------------------------------------------
def test_healthy_cluster_is_silent_for_every_check(tmp_path: Path) -> None:
    snap = snapshot(cluster(), tmp_path)
    assert failing(run_all(snap)) == []
    # GX509 and GX305 need nodes/ for their host branches (the node's config, its CDI dirs)
    assert [f for f in run_all(snap, NEW) if f.status == Status.UNKNOWN
            and f.code not in ("GX509", "GX305")] == []


def test_healthy_with_host_files_is_silent(tmp_path: Path) -> None:
    b = ClusterBuilder()
    b.node("cpu-0")
    for n in GPU_NODES:
        b.node(n, gpus=8, taints=[{"key": "nvidia.com/gpu", "value": "present",
                                   "effect": "NoSchedule"}])
    with_host_files(b, GPU_NODES)
    from gpuxray.scenarios.operator import add_gpu_operator

    add_gpu_operator(b, GPU_NODES, version="v26.7.1")
    b.pod("ml", "train-0", node="gpu-0", gpus=4, tolerations=TOL)
    b.ensure("events")
    b.ensure("configmaps")
    fs = run_all(snapshot(b, tmp_path), NEW)
    assert failing(fs) == [] and [f for f in fs if f.status == Status.UNKNOWN] == []


# ----- GX307 -------------------------------------------------------------------------------
@pytest.mark.parametrize("cause", ["cli-init", "hook", "binary"])
def test_gx307_runtime_hook_fails_at_create(tmp_path: Path, cause: str) -> None:
    b = cluster({"runtime-hook": f"gpu-1:{cause}"})
    fs = fails(b, tmp_path)
    assert codes_subjects(fs) == {("GX307", "Pod", "cuda-job")}
    assert of(fs, "GX307")[0].params["node"] == "gpu-1"
    # the libnvidia-ml line is an injection failure, not NVML failing in a running container
    assert of(fails(b, tmp_path / "b", "GX304"), "GX304") == []


def test_gx307_is_why_leaf_not_gx301(tmp_path: Path) -> None:
    d, verdict = why(cluster({"runtime-hook": "gpu-1"}), tmp_path, "ml", "cuda-job")
    assert verdict is not None and verdict.code == "GX307"
    assert verdict.subject.name == "cuda-job"
    results = {s.step: s.result for s in d.path}
    assert results["gate 2: sandbox and runtime handler"] == "pass"
    assert results["gate 2: container create (CDI / NVIDIA runtime)"] == "fail"
    # the libnvidia-ml line belongs to the injection failure, not to an NVML leaf
    assert results["gate 2: inside the container (NVML, device access)"] == "pass"
    assert [f.code for f in d.related] == []


def test_gx307_from_containerd_journal(tmp_path: Path) -> None:
    b = ClusterBuilder()
    b.node("gpu-1", gpus=8)
    with_host_files(b, ["gpu-1"])
    from gpuxray.scenarios.operator import add_gpu_operator

    add_gpu_operator(b, ["gpu-1"], version="v26.7.1", broken={"runtime-hook": "gpu-1:binary"})
    fs = of(fails(b, tmp_path, "GX307"), "GX307")
    assert codes_subjects(fs) == {("GX307", "Pod", "cuda-job"), ("GX307", "Node", "gpu-1")}
    node = next(f for f in fs if f.subject.kind == "Node")
    assert node.evidence[0].source == "nodes/gpu-1/cmd/journal-containerd.txt"


# ----- GX412 -------------------------------------------------------------------------------
def test_gx412_os_mix_in_clusterpolicy_mode(tmp_path: Path) -> None:
    b = cluster({"os-mix": "gpu-1:rocky"})
    fs = of(fails(b, tmp_path), "GX412")
    assert codes_subjects(fs) == {("GX412", "ClusterPolicy", "cluster-policy")}
    # v26.7 drops Rocky's minor version (gpu-operator@v26.7.0 controllers/state_manager.go)
    assert fs[0].params["os_tags"] == ["rocky9", "ubuntu22.04"]
    assert fs[0].params["nodes"] == ["gpu-0", "gpu-1"]
    assert fs[0].params["os_by_node"] == {"gpu-0": "ubuntu22.04", "gpu-1": "rocky9"}


def test_gx412_host_driver_may_mix(tmp_path: Path) -> None:
    b = cluster({"os-mix": "gpu-1"})
    b.find("clusterpolicies", "cluster-policy")["spec"]["driver"]["enabled"] = False
    assert of(fails(b, tmp_path, "GX412"), "GX412") == []


def _crd_mode(b: ClusterBuilder, selectors: dict[str, dict[str, str]]) -> None:
    b.find("clusterpolicies", "cluster-policy")["spec"]["driver"]["useNvidiaDriverCRD"] = True
    for name, sel in selectors.items():
        b.custom("nvidiadrivers", "NVIDIADriver", name,
                 {"driverType": "gpu", "version": "580.95.05", "usePrecompiled": False,
                  "nodeSelector": sel}, {"state": "ready"})


def test_gx412_nvidiadriver_pools_cover_every_node(tmp_path: Path) -> None:
    b = cluster({"os-mix": "gpu-1"})
    b.find("nodes", "gpu-0")["metadata"]["labels"]["pool"] = "ubuntu"
    b.find("nodes", "gpu-1")["metadata"]["labels"]["pool"] = "rocky"
    _crd_mode(b, {"ubuntu": {"pool": "ubuntu"}, "rocky": {"pool": "rocky"}})
    assert of(fails(b, tmp_path, "GX412"), "GX412") == []


def test_gx412_node_without_nvidiadriver(tmp_path: Path) -> None:
    b = cluster({"os-mix": "gpu-1"})
    b.find("nodes", "gpu-0")["metadata"]["labels"]["pool"] = "ubuntu"
    _crd_mode(b, {"ubuntu": {"pool": "ubuntu"}})
    fs = of(fails(b, tmp_path, "GX412"), "GX412")
    assert codes_subjects(fs) == {("GX412", "Node", "gpu-1")}
    assert fs[0].params["selected_by"] == []


def test_gx412_crd_mode_without_nvidiadrivers_input_is_unknown(tmp_path: Path) -> None:
    b = cluster()
    b.find("clusterpolicies", "cluster-policy")["spec"]["driver"]["useNvidiaDriverCRD"] = True
    fs = run_all(snapshot(b, tmp_path), ["GX412"])
    assert [(f.code, f.status) for f in fs] == [("GX412", Status.UNKNOWN)]
    assert fs[0].params["missing"].startswith("cluster/nvidiadrivers")


def test_gx412_precompiled_tag_behind_the_kernel(tmp_path: Path) -> None:
    b = cluster()
    drv = b.find("clusterpolicies", "cluster-policy")["spec"]["driver"]
    drv["usePrecompiled"], drv["version"] = True, "580"
    for n in GPU_NODES:
        pod = next(p for p in b.cluster["pods"] if p["spec"].get("nodeName") == n
                   and p["metadata"]["name"].startswith("nvidia-driver-daemonset"))
        pod["spec"]["containers"][0]["image"] = \
            "nvcr.io/nvidia/driver:580-5.15.0-126-generic-ubuntu22.04"
    b.find("nodes", "gpu-1")["status"]["nodeInfo"]["kernelVersion"] = "5.15.0-130-generic"
    fs = of(fails(b, tmp_path, "GX412"), "GX412")
    assert codes_subjects(fs) == {("GX412", "Node", "gpu-1")}
    assert fs[0].params["expected_tag"] == "580-5.15.0-130-generic-ubuntu22.04"
    assert fs[0].params["actual_tag"] == "580-5.15.0-126-generic-ubuntu22.04"


# ----- GX413 -------------------------------------------------------------------------------
def test_gx413_misplaced_key(tmp_path: Path) -> None:
    fs = of(fails(cluster({"plugin-config-invalid": "gpu-1:misplaced"}), tmp_path), "GX413")
    assert codes_subjects(fs) == {("GX413", "ConfigMap", "device-plugin-config")}
    f = fs[0]
    assert f.severity == Severity.ERROR
    assert f.params["key"] == "a100-ts-misplaced" and f.params["nodes"] == ["gpu-1"]
    [issue] = f.params["issues"]
    assert issue["path"] == "flags.renameByDefault" and issue["kind"] == "misplaced"
    assert issue["belongs"] == ["sharing.mps", "sharing.timeSlicing"]


def test_gx413_missing_key_from_label(tmp_path: Path) -> None:
    fs = of(fails(cluster({"plugin-config-invalid": "gpu-1:missing-key"}), tmp_path), "GX413")
    assert codes_subjects(fs) == {("GX413", "Node", "gpu-1")}
    # one from the label/ConfigMap comparison, one from config-manager's own log line
    assert len(fs) == 2
    assert any(e.source.endswith("/config-manager.log") for f in fs for e in f.evidence)


def test_gx413_unparsable(tmp_path: Path) -> None:
    fs = of(fails(cluster({"plugin-config-invalid": "gpu-1:unparsable"}), tmp_path), "GX413")
    assert codes_subjects(fs) == {("GX413", "ConfigMap", "device-plugin-config"),
                                  ("GX413", "Node", "gpu-1")}
    cm = next(f for f in fs if f.subject.kind == "ConfigMap")
    assert cm.params["issues"][0]["path"] == "<document>" and cm.params["issues"][0]["fatal"]


def test_gx413_configmap_missing_or_not_collected(tmp_path: Path) -> None:
    b = cluster({"plugin-config-invalid": "gpu-1"})
    b.cluster["configmaps"] = []
    fs = of(fails(b, tmp_path, "GX413"), "GX413")
    assert codes_subjects(fs) == {("GX413", "ConfigMap", "device-plugin-config")}
    assert fs[0].params["nodes"] == ["gpu-0", "gpu-1"]  # default key for gpu-0, label for gpu-1
    b.remove("configmaps")
    fs2 = run_all(snapshot(b, tmp_path, "b2"), ["GX413"])
    assert [(f.code, f.status) for f in fs2] == [("GX413", Status.UNKNOWN)]


def test_gx413_label_without_clusterpolicy_config(tmp_path: Path) -> None:
    b = cluster()
    b.find("nodes", "gpu-0")["metadata"]["labels"]["nvidia.com/device-plugin.config"] = "ts"
    fs = of(fails(b, tmp_path, "GX413"), "GX413")
    assert codes_subjects(fs) == {("GX413", "Node", "gpu-0")}


def test_gx413_valid_time_slicing_is_silent(tmp_path: Path) -> None:
    b = cluster({"plugin-config-invalid": "gpu-1"})
    b.find("nodes", "gpu-1")["metadata"]["labels"]["nvidia.com/device-plugin.config"] = \
        "a100-ts4"
    assert of(fails(b, tmp_path, "GX413"), "GX413") == []


# ----- GX414 -------------------------------------------------------------------------------
def test_gx414_nfd_master_denies_nvidia_namespace(tmp_path: Path) -> None:
    fs = of(fails(cluster({"gfd-labels": "gpu-1:nfd-denied"}), tmp_path), "GX414")
    assert codes_subjects(fs) == {("GX414", "Node", "gpu-0"), ("GX414", "Node", "gpu-1")}
    f1 = next(f for f in fs if f.subject.name == "gpu-1")
    assert f1.params["missing"] == ["nvidia.com/gpu.product", "nvidia.com/gpu.count",
                                    "nvidia.com/gpu.memory"]
    assert f1.params["nfd_denials"] == 3
    f0 = next(f for f in fs if f.subject.name == "gpu-0")
    assert f0.params["missing"] == []  # labelled now, dropped at NFD's next update


def test_gx414_gfd_restarts(tmp_path: Path) -> None:
    fs = of(fails(cluster({"gfd-labels": "gpu-1:restarts"}), tmp_path), "GX414")
    assert codes_subjects(fs) == {("GX414", "Node", "gpu-1")}
    assert fs[0].params["causes"] == ["GFD/NFD restarting"]
    [(pod, restarts)] = fs[0].params["restarts"].items()
    assert pod.startswith("gpu-feature-discovery-") and restarts == 7


def test_gx414_nfd_worker_restarts(tmp_path: Path) -> None:
    b = cluster()
    st = [{"name": "worker", "ready": True, "restartCount": 12, "image": "", "imageID": "",
           "state": {"running": {"startedAt": "2026-11-29T11:58:00Z"}}}]
    b.pod("gpu-operator", "gpu-operator-node-feature-discovery-worker-x7k2q", node="gpu-0",
          tolerations=TOL, container_statuses=st, containers=[b.container(
              "worker", image="registry.k8s.io/nfd/node-feature-discovery:v0.17.3")])
    b.pod("gpu-operator", "gpu-operator-node-feature-discovery-worker-p2m9z", node="gpu-1",
          tolerations=TOL, containers=[b.container(
              "worker", image="registry.k8s.io/nfd/node-feature-discovery:v0.17.3")])
    fs = of(fails(b, tmp_path, "GX414"), "GX414")
    assert codes_subjects(fs) == {("GX414", "Node", "gpu-0")}
    assert fs[0].params["missing"] == [] and fs[0].params["causes"] == ["GFD/NFD restarting"]
    assert fs[0].params["restarts"] == {
        "gpu-operator-node-feature-discovery-worker-x7k2q/worker": 12}


def test_gx414_ignores_nodes_without_gpus(tmp_path: Path) -> None:
    b = cluster()
    b.node("cpu-1", labels={"nvidia.com/gpu.present": "false"})
    assert of(fails(b, tmp_path, "GX414"), "GX414") == []


# ----- GX303 broadened ---------------------------------------------------------------------
@pytest.mark.parametrize(("where", "accepted"), [("host-false", False), ("env-false", False),
                                                 ("host-true", True), ("none", None)])
def test_gx303_envvar_policy(tmp_path: Path, where: str, accepted: bool | None) -> None:
    b = cluster()
    b.pod("ml", "notebook-0", node="gpu-0", tolerations=TOL, containers=[b.container(
        "main", env={"NVIDIA_VISIBLE_DEVICES": "all"}, image="python:3.12")])
    if where.startswith("host"):
        b.host_file("gpu-0", "etc/nvidia-container-runtime/config.toml",
                    "accept-nvidia-visible-devices-as-volume-mounts = false\n"
                    f"accept-nvidia-visible-devices-envvar-when-unprivileged = "
                    f"{where.split('-')[1]}\n\n[nvidia-container-cli]\nload-kmods = true\n")
    elif where == "env-false":
        tk = b.find("clusterpolicies", "cluster-policy")["spec"]["toolkit"]
        tk["env"] = [{"name": "ACCEPT_NVIDIA_VISIBLE_DEVICES_ENVVAR_WHEN_UNPRIVILEGED",
                      "value": "false"}]
    fs = of(fails(b, tmp_path, "GX303"), "GX303")
    assert codes_subjects(fs) == {("GX303", "Pod", "notebook-0")}
    assert fs[0].params["envvar_accepted"] is accepted
    assert len(fs[0].evidence) == (1 if accepted is None else 2)
    _d, verdict = why(b, tmp_path / "why", "ml", "notebook-0")
    assert verdict is not None and verdict.code == "GX303"


def test_gx303_malformed_toolkit_config_is_not_a_crash(tmp_path: Path) -> None:
    b = cluster()
    b.pod("ml", "nb", node="gpu-0", tolerations=TOL, containers=[b.container(
        "main", env={"NVIDIA_VISIBLE_DEVICES": "0"}, image="python:3.12")])
    b.host_file("gpu-0", "etc/nvidia-container-runtime/config.toml", "accept = [\x00\n")
    fs = of(fails(b, tmp_path, "GX303"), "GX303")
    assert fs[0].params["envvar_accepted"] is None


# ----- GX305 broadened ---------------------------------------------------------------------
def _stuck_pod(b: ClusterBuilder, node: str) -> None:
    b.pod("ml", "stuck", node=node, gpus=1, tolerations=TOL, phase="Pending",
          container_statuses=[{"name": "main", "ready": False, "restartCount": 0,
                               "state": {"waiting": {"reason": "ContainerCreating"}}}])


def test_gx305_no_cdi_spec_generated(tmp_path: Path) -> None:
    b = cluster()
    with_host_files(b, GPU_NODES)  # after the operator: no CDI spec was written
    add_cdi_spec(b, "gpu-0")
    _stuck_pod(b, "gpu-1")
    fs = of(fails(b, tmp_path, "GX305"), "GX305")
    assert codes_subjects(fs) == {("GX305", "Node", "gpu-1")}
    d, verdict = why(b, tmp_path / "why", "ml", "stuck")
    assert verdict is not None and verdict.code == "GX305" and verdict.subject.name == "stuck"
    assert any(s.result == "fail" and "node's injection path" in s.step for s in d.path)


def test_gx305_cdi_disabled_needs_no_spec(tmp_path: Path) -> None:
    b = cluster()
    with_host_files(b, GPU_NODES)
    b.find("clusterpolicies", "cluster-policy")["spec"]["cdi"]["enabled"] = False
    assert of(fails(b, tmp_path, "GX305"), "GX305") == []


def test_gx305_unknown_without_host_files(tmp_path: Path) -> None:
    b = cluster()
    _stuck_pod(b, "gpu-1")
    fs = run_all(snapshot(b, tmp_path), ["GX305"])
    # one unknown for every CDI-on GPU node whose CDI dirs were not collected; the pod stuck at
    # create is its evidence
    assert [(f.code, f.status, f.subject.name) for f in fs] == [
        ("GX305", Status.UNKNOWN, "cluster")]
    # the input missing is nodes/ itself: named once, for both GPU nodes, which it counts
    assert (fs[0].params["missing"], fs[0].params["node_count"]) == ("nodes/", 2)
    assert "nodes" not in fs[0].params
    assert any("stuck" in e.detail for e in fs[0].evidence)


def test_gx305_unknown_lists_the_nodes_lacking_cdi_dirs(tmp_path: Path) -> None:
    b = cluster()
    b.node("gpu-2", gpus=8)
    with_host_files(b, ["gpu-0"])  # nodes/ is there, gpu-1's and gpu-2's CDI dirs are not
    fs = run_all(snapshot(b, tmp_path), ["GX305"])
    gap = [f for f in fs if f.status == Status.UNKNOWN]
    assert [(f.subject.kind, f.params["nodes"], f.params["node_count"]) for f in gap] == [
        ("Cluster", ["gpu-1", "gpu-2"], 2)]


def test_gx305_unknown_without_host_files_does_not_grow_with_the_nodes(tmp_path: Path) -> None:
    entries = []
    for extra in (0, 60):
        b = cluster()
        for i in range(extra):
            b.node(f"gpu-x{i}", gpus=8)
        _stuck_pod(b, "gpu-1")
        fs = run_all(snapshot(b, tmp_path / str(extra)), ["GX305"])
        assert [f.params["node_count"] for f in fs] == [2 + extra]
        entries.append(finding_entries(fs, finding_ids(fs)))
    # the same entry on 2 GPU nodes and on 62, but for the count
    for e in entries:
        e[0]["params"].pop("node_count")
    assert entries[0] == entries[1]


# ----- GX509 broadened ---------------------------------------------------------------------
def test_gx509_toolkit_cannot_read_config(tmp_path: Path) -> None:
    fs = of(fails(cluster({"toolkit": "gpu-1"}), tmp_path, "GX509"), "GX509")
    assert codes_subjects(fs) == {("GX509", "Node", "gpu-1")}
    assert fs[0].params["kind"] == "toolkit-read"
    assert fs[0].evidence[0].source.endswith("/nvidia-container-toolkit-ctr.log")


# ----- triage: the deciding line ranks the code first ----------------------------------------
@pytest.mark.parametrize(("text", "code"), [
    ('Warning  Failed  kubelet  Failed to pull image "nvcr.io/nvidia/driver:570.195.03-'
     'rhel9.4": failed to resolve reference: not found', "GX412"),
    ('E0612 08:01:13.123456  1 nfd-master.go:501] Namespace "nvidia.com" is not allowed. '
     'Ignoring label "nvidia.com/gpu.count"', "GX414"),
    ("E1129 11:31:05 main.go:173] error starting plugins: unable to load config: unable to "
     "finalize config: unable to parse config file", "GX413"),
    ("level=fatal msg=\"error running nvidia-toolkit: unable to setup runtime: unable to load "
     "config: failed to load config: failed to run command chroot [/host containerd config "
     "dump]: exit status 1\"", "GX509"),
    ("ACCEPT_NVIDIA_VISIBLE_DEVICES_ENVVAR_WHEN_UNPRIVILEGED: false", "GX303"),
    ("Error: failed to create containerd task: OCI runtime create failed: error running hook "
     "#0: error running hook: exit status 1, stdout: , stderr: nvidia-container-cli: "
     "initialization error: load library failed: libnvidia-ml.so.1: cannot open shared object "
     "file: no such file or directory: unknown", "GX307"),
])
def test_triage_ranks_new_codes_first(text: str, code: str) -> None:
    r = triage([("pasted", text)])
    assert r.causes and r.causes[0].cause.code == code and r.decided


def test_scenario_texts_triage_to_their_code(tmp_path: Path) -> None:
    """The lines the knobs write are the lines triage decides on."""
    cases: list[tuple[dict[str, str], str]] = [
        ({"gfd-labels": "gpu-1"}, "GX414"), ({"plugin-config-invalid": "gpu-1:missing-key"},
                                             "GX413"),
        ({"os-mix": "gpu-1"}, "GX412"), ({"runtime-hook": "gpu-1:binary"}, "GX307")]
    for i, (knob, code) in enumerate(cases):
        b = cluster(knob)
        texts: list[tuple[str, str]] = [(k, v if isinstance(v, str) else v.decode())
                                        for k, v in b.files.items() if k.startswith("logs/")]
        texts += [("events", "\n".join(e["message"] for e in b.cluster.get("events", [])
                                       if e["type"] == "Warning"))]
        r = triage(texts)
        assert r.causes[0].cause.code == code, (i, [c.cause.code for c in r.causes[:3]])
