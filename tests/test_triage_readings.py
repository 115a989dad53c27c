"""Structural readings of pasted configuration in ``triage`` (``diagnose.readings``): what an
NFD config, a tolerations list, a pod spec, a containerd drop-in or a plugin config says when
no component printed an error. Each input is built here; every reading is also checked on the
look-alike that must give nothing, so a reading that fires on anything fails."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest
import yaml

from containerd_fixtures import CRI, CRI_RT3, ROOT_V2, toolkit_dropin, toolkit_dropin_v3
from gpuxray.diagnose.triage import triage
from real_containerd import config_dump, require


def _codes(text: str) -> list[str]:
    r = triage([("paste", text)])
    return list(dict.fromkeys(c.cause.code for c in r.causes))


def _readings(text: str) -> list[str]:
    r = triage([("paste", text)])
    return [s for c in r.causes for s in c.signatures if s.startswith("reading:")]


def _top(text: str) -> tuple[str | None, bool]:
    r = triage([("paste", text)])
    return (r.causes[0].cause.code if r.causes else None), r.decided


def _nfd(fields: list[str]) -> str:
    worker = yaml.safe_dump({"sources": {"pci": {"deviceClassWhitelist": ["03", "12"],
                                                 "deviceLabelFields": fields}}})
    return yaml.safe_dump({"apiVersion": "nfd.k8s-sigs.io/v1alpha1",
                           "kind": "NodeFeatureDiscovery", "metadata": {"name": "nfd"},
                           "spec": {"workerConfig": {"configData": worker}}})


@pytest.mark.parametrize("fields", [["vendor", "device"], ["device"], ["vendor", "class"],
                                    ["class", "vendor", "subsystem_vendor"]])
def test_nfd_label_fields_the_operator_does_not_select(fields: list[str]) -> None:
    assert _top(_nfd(fields)) == ("GX401", False)


@pytest.mark.parametrize("fields", [["vendor"], ["class", "vendor"]])
def test_nfd_label_fields_that_make_an_operator_label(fields: list[str]) -> None:
    assert "GX401" not in _codes(_nfd(fields))


def _tols(*keys: str | None) -> str:
    tol = [{"operator": "Exists"} if k is None else
           {"key": k, "operator": "Exists", "effect": "NoSchedule"} for k in keys]
    return yaml.safe_dump({"tolerations": tol})


def test_operand_tolerations_without_the_gpu_taint() -> None:
    assert _top(_tols("node-role.kubernetes.io/control-plane")) == ("GX402", False)


@pytest.mark.parametrize("keys", [("nvidia.com/gpu",), ("node-role.kubernetes.io/master", None)])
def test_tolerations_that_tolerate_the_gpu_taint(keys: tuple[str | None, ...]) -> None:
    assert "GX402" not in _codes(_tols(*keys))


def test_a_workload_pods_tolerations_are_not_an_operand_reading() -> None:
    pod = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"},
           "spec": {"tolerations": [{"key": "example.com/x", "operator": "Exists"}],
                    "containers": [{"name": "c", "image": "i"}]}}
    assert "GX402" not in _codes(yaml.safe_dump(pod))


def _pod(*gpus: int) -> str:
    return yaml.safe_dump({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "gpu-pod"},
                           "spec": {"containers": [
                               {"name": f"c{i}", "image": "cuda",
                                "resources": {"limits": {"nvidia.com/gpu": n}}}
                               for i, n in enumerate(gpus)]}})


def test_gpus_asked_by_several_containers_add_up() -> None:
    r = triage([("paste", _pod(1, 2))])
    assert r.causes[0].cause.code == "GX205" and not r.decided
    assert "= 3" in r.causes[0].matched[0]


@pytest.mark.parametrize("gpus", [(2,), (1, 0)])
def test_one_container_asking_is_no_split_request(gpus: tuple[int, ...]) -> None:
    assert "GX205" not in _codes(_pod(*gpus))


REGISTRY_DROPIN = """\
$ cat /etc/containerd/conf.d/registries.toml
[plugins."io.containerd.grpc.v1.cri".registry.mirrors."registry.example"]
  endpoint = ["http://registry.example"]
"""


def test_a_cri_dropin_without_the_nvidia_runtime() -> None:
    assert _top(REGISTRY_DROPIN) == ("GX501", False)


@pytest.mark.parametrize("text", [
    REGISTRY_DROPIN.replace("conf.d/registries.toml", "config.toml"),
    REGISTRY_DROPIN + '[plugins."io.containerd.grpc.v1.cri".containerd.runtimes.nvidia]\n'
                      '  runtime_type = "io.containerd.runc.v2"\n',
    REGISTRY_DROPIN.replace("cri", "other"),
])
def test_no_dropin_reading_for_the_root_a_nvidia_dropin_or_another_plugin(text: str) -> None:
    assert "reading:cri-dropin" not in _readings(text)


def test_legacy_alpha_gpu_resource_alone_is_not_advertised() -> None:
    text = ("Capacity:\n alpha.kubernetes.io/nvidia-gpu:  1\n cpu:  4\n pods:  110\n"
            "Allocatable:\n alpha.kubernetes.io/nvidia-gpu:  1\n cpu:  4\n pods:  110\n")
    assert _top(text) == ("GX202", True)
    with_plugin = text.replace(" cpu:  4\n", " cpu:  4\n nvidia.com/gpu:  1\n")
    assert "GX202" not in _codes(with_plugin)


TIME_SLICING = """\
version: v1
flags:
  migStrategy: none
sharing:
  timeSlicing:
    resources:
    - name: nvidia.com/gpu
      replicas: 4
"""


def test_a_valid_plugin_config_points_at_it_not_being_applied() -> None:
    assert _top(TIME_SLICING) == ("GX408", False)
    assert _top(TIME_SLICING.replace("replicas: 4", "replicas: four"))[0] == "GX413"


def test_kubelet_admission_outof_reason() -> None:
    line = ("Warning  OutOfnvidia.com/gpu  3s  kubelet  Node didn't have enough resource: "
            "nvidia.com/gpu, requested: 1, used: 0, capacity: 0")
    assert _top(line)[0] == "GX310"


# ----- a drop-in that replaced the runtimes table (GX501 behind GX509), on real binaries ------
ROOT = 'version = 2\nimports = ["{dir}/imports/*.toml"]\n'
DROPIN = ('[plugins."io.containerd.grpc.v1.cri".containerd.runtimes.foo]\n'
          '  runtime_type = "io.containerd.runc.v2"\n'
          '  [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.foo.options]\n'
          '    BinaryName = "runfoo"\n')


@pytest.mark.parametrize("version", ["1.6.20", "1.7.27"])
def test_dropin_runtimes_table_replaces_the_default_one_real(version: str,
                                                             tmp_path: Path) -> None:
    binary = require(version)[version]
    (tmp_path / "imports").mkdir()
    (tmp_path / "config.toml").write_text(ROOT.format(dir=tmp_path))
    (tmp_path / "imports" / "foo.toml").write_text(DROPIN)
    rc, out, err = config_dump(binary, tmp_path / "config.toml")
    assert rc == 0, err
    cri = tomllib.loads(out)["plugins"]["io.containerd.grpc.v1.cri"]["containerd"]
    assert sorted(cri["runtimes"]) == ["foo"] and cri["default_runtime_name"] == "runc"
    paste = (f"# cat /etc/containerd/config.toml\n"
             f"{ROOT.format(dir='/etc/containerd_imports').replace('/imports', '')}\n"
             f"# cat /etc/containerd_imports/foo.toml\n{DROPIN}")
    r = triage([("paste", paste)])
    codes = [c.cause.code for c in r.causes]
    assert codes[:2] == ["GX501", "GX509"], codes
    assert r.decided


def test_a_runtimes_table_in_the_root_config_stays_gx509() -> None:
    paste = f"# cat /etc/containerd/config.toml\nversion = 2\n{DROPIN}"
    codes = _codes(paste)
    assert codes[:1] == ["GX509"] and "GX501" not in codes


BACKOFF = ("Warning  BackOff  2m (x50 over 12m)  kubelet  Back-off restarting failed container "
           "{ctr} in pod {pod}_gpu-operator(9f0c1e2a-0000-4000-8000-000000000000)")


def test_kubelet_backoff_of_an_operand_pod_votes_for_its_component() -> None:
    r = triage([("paste", BACKOFF.format(ctr="nvidia-driver-ctr",
                                         pod="nvidia-driver-daemonset-abc12"))])
    assert r.causes[0].cause.code == "GX403" and not r.decided
    other = BACKOFF.format(ctr="app", pod="web-7d9f8-abc12")
    assert _codes(other) == []


WRAPPER = "nvidia driver modules are not yet loaded, invoking /usr/local/bin/runc directly\n"


@pytest.mark.parametrize(("extra", "code"), [
    ("Started host engine version 4.4.2 using port number: 5555\n", "GX406"),
    ("nvidia-operator-validator-abcde   0/1   Init:0/4   0   2m\n", "GX302"),
])
def test_the_runc_fallback_names_the_operand_it_started(extra: str, code: str) -> None:
    alone = triage([("paste", WRAPPER)])
    assert len({round(c.score, 6) for c in alone.causes[:3]}) == 1  # a tie: nothing to tell
    r = triage([("paste", WRAPPER + extra)])
    assert r.causes[0].cause.code == code and not r.decided


# ----- GX514: a Docker daemon.json without the nvidia default ---------------------------------
DAEMON_JSON = """root@gpu-1:~# cat /etc/docker/daemon.json
{
    "runtimes": {
        "nvidia": {
            "path": "/usr/bin/nvidia-container-runtime",
            "runtimeArgs": []
        }
    }
}
root@gpu-1:~# which nvidia-container-runtime
/usr/bin/nvidia-container-runtime
"""


def test_daemon_json_without_the_nvidia_default_runtime() -> None:
    """NVIDIA/k8s-device-plugin@v0.12.3:README.md: docker must run every container, the
    plugin's too, with ``default-runtime: nvidia``; a registered runtime alone is not used."""
    assert _readings(DAEMON_JSON) == ["reading:docker-default-runtime"]
    assert _top(DAEMON_JSON) == ("GX514", False)
    with_default = DAEMON_JSON.replace('{\n    "runtimes"',
                                       '{\n    "default-runtime": "nvidia",\n    "runtimes"')
    assert "reading:docker-default-runtime" not in _readings(with_default)
    runc_only = DAEMON_JSON.replace('"nvidia": {', '"crun": {')
    assert "reading:docker-default-runtime" not in _readings(runc_only)


POD_ENV_ONLY = """apiVersion: v1
kind: Pod
metadata:
  name: cuda
spec:
  containers:
  - name: cuda
    image: nvcr.io/nvidia/cuda:12.4.1-base-ubuntu22.04
    command: ["nvidia-smi"]
    env:
    - name: NVIDIA_VISIBLE_DEVICES
      value: all
"""


def test_a_pod_asking_for_gpus_only_through_the_env_var() -> None:
    assert _readings(POD_ENV_ONLY) == ["reading:envvar-without-limits"]
    assert _top(POD_ENV_ONLY) == ("GX303", False)
    with_limit = POD_ENV_ONLY + "    resources:\n      limits:\n        nvidia.com/gpu: 1\n"
    assert "reading:envvar-without-limits" not in _readings(with_limit)
    privileged = POD_ENV_ONLY + "    securityContext:\n      privileged: true\n"
    assert "reading:envvar-without-limits" not in _readings(privileged)
    void = POD_ENV_ONLY.replace("value: all", "value: void")
    assert "reading:envvar-without-limits" not in _readings(void)


# ---- host state read from what a ticket pastes (apt history, toolkit env, capacity) ----------
def _apt_entry(cmd: str, pkgs: str) -> str:
    # apt's history.log layout (Debian apt@2.0.2:apt-pkg/deb/dpkgpm.cc)
    return (f"Start-Date: 2021-06-04  06:41:09\nCommandline: {cmd}\n"
            f"Upgrade: {pkgs}\nEnd-Date: 2021-06-04  06:41:40\n")


@pytest.mark.parametrize("pkgs", [
    "libnvidia-compute-460:amd64 (460.73.01-0ubuntu0.20.04.1, 460.80-0ubuntu0.20.04.2)",
    "tzdata:amd64 (2021a-0ubuntu0.20.04, 2021a-2ubuntu0.20.04), linux-image-5.4.0-77-generic:"
    "amd64 (5.4.0-74.83, 5.4.0-77.86)",
])
def test_unattended_upgrade_replacing_driver_or_kernel_packages(pkgs: str) -> None:
    smi = "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver.\n"
    text = smi + "\n" + _apt_entry("/usr/bin/unattended-upgrade", pkgs)
    assert _codes(text)[0] == "GX508"
    assert "reading:apt-history-unattended" in _readings(text)
    assert not triage([("paste", text)]).decided


@pytest.mark.parametrize(("cmd", "first"), [
    ("/usr/bin/unattended-upgrade", "GX508"),
    ("apt-get install -y libnvidia-compute-460", "GX304"),
])
def test_an_unattended_driver_library_upgrade_roots_the_nvml_mismatch(cmd: str,
                                                                       first: str) -> None:
    # NVML's "Driver/library version mismatch" is what the replaced libraries give under the
    # loaded module; only the unattended run is the auto-upgrade cause (a manual install is
    # the operator's own change, and the mismatch stays the finding)
    smi = "Failed to initialize NVML: Driver/library version mismatch\n"
    text = smi + "\n" + _apt_entry(cmd, "libnvidia-compute-460:amd64 (460.56-0ubuntu0.20.04.1, "
                                        "460.73.01-0ubuntu0.20.04.1)")
    codes = _codes(text)
    assert codes[0] == first
    if first == "GX508":
        assert codes[1] == "GX304"


@pytest.mark.parametrize("cmd,pkgs", [
    ("apt-get install -y nvidia-driver-535", "libnvidia-compute-535:amd64 (535.1, 535.2)"),
    ("/usr/bin/unattended-upgrade", "tzdata:amd64 (2021a-0ubuntu0.20.04, 2021a-2ubuntu0.20.04)"),
])
def test_no_unattended_reading_for_a_manual_run_or_other_packages(cmd: str, pkgs: str) -> None:
    assert "reading:apt-history-unattended" not in _readings(_apt_entry(cmd, pkgs))


def _toolkit_env(config: str, default: str) -> str:
    return yaml.safe_dump({"toolkit": {"enabled": True, "env": [
        {"name": "CONTAINERD_CONFIG", "value": config},
        {"name": "CONTAINERD_SOCKET", "value": "/run/k3s/containerd/containerd.sock"},
        {"name": "CONTAINERD_SET_AS_DEFAULT", "value": default}]}})


@pytest.mark.parametrize("dist", ["k3s", "rke2"])
def test_toolkit_default_runtime_written_to_the_rendered_k3s_file(dist: str) -> None:
    text = _toolkit_env(f"/var/lib/rancher/{dist}/agent/etc/containerd/config.toml", "true")
    assert _codes(text)[0] == "GX512"
    assert "reading:toolkit-default-in-rendered-file" in _readings(text)


@pytest.mark.parametrize("config,default", [
    ("/var/lib/rancher/rke2/agent/etc/containerd/config.toml.tmpl", "true"),
    ("/var/lib/rancher/rke2/agent/etc/containerd/config.toml", "false"),
    ("/etc/containerd/config.toml", "true"),
])
def test_no_rendered_file_reading_for_the_template_or_no_default(config: str,
                                                                 default: str) -> None:
    assert "reading:toolkit-default-in-rendered-file" not in _readings(_toolkit_env(config,
                                                                                    default))


CPU_CAPACITY = ("Capacity:\n  cpu:                32\n  ephemeral-storage:  1951312988Ki\n"
                "  memory:             264074052Ki\n  pods:               110\n")


def test_a_capacity_block_without_any_gpu_resource_points_at_the_plugin_never_scheduled() -> None:
    r = triage([("paste", "```\n" + CPU_CAPACITY + "```\n")])
    assert r.parts.get("describe-node") == 1
    codes = [c.cause.code for c in r.causes]
    assert codes[:3] == ["GX401", "GX202", "GX402"]
    assert not r.decided and r.collect_next


def test_a_capacity_block_with_gpus_gets_no_absent_resource_votes() -> None:
    text = CPU_CAPACITY + "  nvidia.com/gpu:     8\nAllocatable:\n  nvidia.com/gpu:     6\n"
    r = triage([("paste", text)])
    assert r.causes[0].cause.code == "GX203"
    assert not any("arithmetic:no-gpu-resource" in c.signatures for c in r.causes)


PLUGIN_BY_HAND = (
    "NAME                                   READY     STATUS             RESTARTS   AGE\n"
    "nvidia-device-plugin-daemonset-csjxw   0/1       CrashLoopBackOff   12         39m\n\n"
    "{cmd} -it -v /var/lib/kubelet/device-plugins:/var/lib/kubelet/device-plugins "
    "nvidia/k8s-device-plugin:1.8\n"
    "2017/12/08 06:41:44 Loading NVML\n"
    "2017/12/08 06:41:45 Starting to serve on /var/lib/kubelet/device-plugins/nvidia.sock\n"
    "2017/12/08 06:41:45 Registered device plugin with Kubelet\n")


def test_the_plugin_registering_only_under_the_nvidia_runtime_by_hand() -> None:
    text = PLUGIN_BY_HAND.format(cmd="docker run --runtime=nvidia")
    assert _codes(text)[0] == "GX514"
    assert "reading:plugin-registers-under-nvidia-runtime" in _readings(text)


def test_the_plugin_run_by_hand_without_the_nvidia_runtime_is_no_such_reading() -> None:
    text = PLUGIN_BY_HAND.format(cmd="docker run --security-opt=no-new-privileges")
    assert "reading:plugin-registers-under-nvidia-runtime" not in _readings(text)


def test_a_registered_plugin_log_alone_points_past_the_plugin() -> None:
    log = ("2022/08/11 06:57:10 Starting Plugins.\n2022/08/11 06:57:10 Retreiving plugins.\n"
           "2022/08/11 06:57:10 Starting GRPC server for 'nvidia.com/gpu'\n"
           "2022/08/11 06:57:10 Registered device plugin for 'nvidia.com/gpu' with Kubelet\n")
    r = triage([("paste", log)])
    assert [c.cause.code for c in r.causes][:2] == ["GX204", "GX205"]
    assert not r.decided
    # beside a line that names a cause, the ready log adds nothing
    r = triage([("paste", log + "Failed to initialize NVML: Driver/library version mismatch\n")])
    assert not any("component:device-plugin" in c.signatures for c in r.causes)


def test_pasted_resources_that_ask_for_no_gpu() -> None:
    bare = "resources:\n  limits:\n    memory: 1000Mi\n  requests:\n    cpu: 100m\n"
    assert _codes(bare)[0] == "GX303"
    pod = yaml.safe_dump({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "train"},
                          "spec": {"containers": [{"name": "a", "image": "cuda",
                                                   "resources": {"limits": {"cpu": "1"}}}]}})
    assert "reading:resources-without-gpu" in _readings(pod)
    assert not triage([("paste", bare)]).decided


@pytest.mark.parametrize("text", [
    "resources:\n  limits:\n    nvidia.com/gpu: 1\n    memory: 1Gi\n",
    yaml.safe_dump({"apiVersion": "apps/v1", "kind": "DaemonSet",
                    "metadata": {"name": "nvidia-dcgm-exporter"},
                    "spec": {"template": {"spec": {"containers": [
                        {"name": "e", "resources": {"limits": {"memory": "1Gi"}}}]}}}}),
    yaml.safe_dump({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "mixed"},
                    "spec": {"containers": [
                        {"name": "a", "resources": {"limits": {"nvidia.com/gpu": 1}}},
                        {"name": "sidecar", "resources": {"limits": {"cpu": "1"}}}]}}),
])
def test_no_resources_reading_when_a_gpu_is_asked_or_for_an_operand(text: str) -> None:
    assert "reading:resources-without-gpu" not in _readings(text)


@pytest.mark.parametrize("toolkit,want", [
    ("NVIDIA Container Toolkit CLI version 1.14.6", True),
    ("image: nvcr.io/nvidia/k8s/container-toolkit:v1.17.3-ubuntu20.04", True),
    ("NVIDIA Container Toolkit CLI version 1.17.4", False),
])
def test_a_toolkit_too_old_for_containerd_2s_config(toolkit: str, want: bool) -> None:
    # v1.17.3 refuses config version 3, v1.17.4 reads it (NVIDIA/nvidia-container-toolkit
    # pkg/config/engine/containerd/containerd.go at each tag)
    text = ("$ containerd --version\ncontainerd github.com/containerd/containerd/v2 2.1.5 "
            "fcd43222d6b07379a4be9786bda52438f0dd16a1\n\n$ nvidia-ctk --version\n" + toolkit + "\n")
    got = "reading:toolkit-older-than-containerd-config" in _readings(text)
    assert got == want
    if want:
        assert _codes(text)[0] == "GX409"


def test_an_old_toolkit_on_containerd_1x_is_no_version_reading() -> None:
    text = ("$ containerd --version\ncontainerd containerd.io 1.7.27 05044ec0a9a75232cad458027ca"
            "83437aae3f4da\n\n$ nvidia-ctk --version\n"
            "NVIDIA Container Toolkit CLI version 1.14.6\n")
    assert "reading:toolkit-older-than-containerd-config" not in _readings(text)


# ``kubectl get nodes -o custom-columns=...`` as the device plugin's and the operator's docs tell
# users to run it; kubectl prints ``<none>`` for a field the node lacks
GPU_COLUMNS = ("$ kubectl get nodes -o=custom-columns=NAME:.metadata.name,"
               "GPUs:.status.capacity.'nvidia\\.com/gpu'\n"
               "NAME          GPUs\n{rows}")


def test_a_gpu_column_of_none_names_the_resource_not_advertised() -> None:
    r = triage([("paste", GPU_COLUMNS.format(rows="gpu-node-1    <none>\ngpu-node-2    <none>\n"))])
    codes = [c.cause.code for c in r.causes]
    assert codes[:2] == ["GX202", "GX401"], codes
    assert "gpu-node-1" in r.causes[0].matched[0]


def test_a_quoted_escaped_gpu_column_reads_the_same() -> None:
    text = GPU_COLUMNS.format(rows="minikube   \\<none\\>\n")
    text = "\n".join("> " + ln if ln.startswith(("NAME", "minikube")) else ln
                     for ln in text.splitlines())
    assert _codes(text)[:1] == ["GX202"]


def test_capacity_above_allocatable_columns_name_unhealthy_devices() -> None:
    text = ("kubectl get nodes -o custom-columns=NAME:.metadata.name,"
            "CAP:.status.capacity.nvidia\\.com/gpu,ALLOC:.status.allocatable.nvidia\\.com/gpu\n"
            "NAME     CAP   ALLOC\ndgx-01   8     6\ndgx-02   8     8\n")
    r = triage([("paste", text)])
    assert [c.cause.code for c in r.causes][:1] == ["GX203"]
    assert "capacity 8, allocatable 6" in r.causes[0].matched[0]


def test_a_node_that_advertises_gpus_leaves_the_table_silent() -> None:
    assert "GX202" not in _codes(GPU_COLUMNS.format(rows="gpu-node-1  4\ngpu-node-2  <none>\n"))


def test_a_failed_probe_count_names_gpus_missing_from_the_node() -> None:
    codes = _codes("[   12.345678] NVRM: The NVIDIA probe routine failed for 1 device(s).\n")
    assert "GX604" in codes[:3], codes


K3S_RENDERED = ("# cat /var/lib/rancher/k3s/agent/etc/containerd/config.toml\n"
                "# File generated by k3s. DO NOT EDIT. Use config.toml.tmpl instead.\n"
                "version = 2\n\n[plugins.\"io.containerd.internal.v1.opt\"]\n"
                "  path = \"/var/lib/rancher/k3s/agent/containerd\"\n{extra}")
NVIDIA_RUNTIME = ("[plugins.\"io.containerd.grpc.v1.cri\".containerd.runtimes.\"nvidia\"]\n"
                  "  runtime_type = \"io.containerd.runc.v2\"\n")


def test_a_k3s_rendered_config_without_the_runtime_names_config_not_read() -> None:
    codes = _codes(K3S_RENDERED.format(extra=""))
    assert codes[:1] == ["GX512"], codes
    assert "GX301" in codes


def test_a_k3s_rendered_config_with_the_runtime_votes_nothing() -> None:
    codes = _codes(K3S_RENDERED.format(extra=NVIDIA_RUNTIME))
    assert "GX512" not in codes, codes


def test_the_k3s_template_itself_is_not_the_rendered_config() -> None:
    text = K3S_RENDERED.format(extra="").replace("config.toml\n#", "config.toml.tmpl\n#", 1)
    assert "GX512" not in _codes(text)


def test_dnf_pinned_to_another_rhel_minor_than_the_kernel_names_the_os_mismatch() -> None:
    text = ("Installing Linux kernel headers...\n"
            "+ dnf -q -y --releasever=8.2 install kernel-headers-4.18.0-305.el8_4.x86_64 "
            "kernel-devel-4.18.0-305.el8_4.x86_64\n"
            "Error: Unable to find a match: kernel-devel-4.18.0-305.el8_4.x86_64\n")
    assert _codes(text)[:1] == ["GX412"]
    assert "GX412" not in _codes(text.replace("8.2", "8.4"))


GKE_CAPACITY = ("Capacity:\n  attachable-volumes-gce-pd:  127\n  cpu:                16\n"
                "  memory:             107260540Ki\n  pods:               110\n")


@pytest.mark.parametrize("extra", [
    "nvidia.com/gpu=present:NoSchedule\n",  # the taint GKE puts on its GPU nodes, pasted alone
    "Name:               gke-gpu-pool-1\nRoles:              <none>\n"
    "Labels:             cloud.google.com/gke-accelerator=nvidia-tesla-t4\n"
    "                    cloud.google.com/gke-nodepool=gpu-pool\n",
])
def test_a_gke_gpu_node_without_the_resource_points_at_the_driver_first(extra: str) -> None:
    r = triage([("paste", "```\n" + extra + GKE_CAPACITY + "```\n")])
    codes = list(dict.fromkeys(c.cause.code for c in r.causes))
    assert codes[:2] == ["GX403", "GX202"]
    assert not r.decided


def test_a_gke_node_with_no_sign_of_a_gpu_keeps_the_plugin_reading() -> None:
    assert _codes("```\n" + GKE_CAPACITY + "```\n")[:3] == ["GX401", "GX202", "GX402"]


@pytest.mark.parametrize("taint, first", [
    ("{odh/notebook: true}", "GX201"),
    ("{nvidia.com/gpu: present}", "GX201"),
    # only control-plane taints beside Insufficient: the tainted nodes are not the GPU pool
    ("{node-role.kubernetes.io/master: }", "GX202"),
])
def test_a_pool_taint_beside_insufficient_stays_a_candidate(taint: str, first: str) -> None:
    msg = (f"0/7 nodes are available: 3 Insufficient nvidia.com/gpu, 4 node(s) had taint "
           f"{taint}, that the pod didn't tolerate.")
    assert _codes(msg)[0] == first


# ----- containerd's default runtime (GX514), on what real binaries dump ------------------------
def _default_nvidia(config: str, section: str) -> str:
    return config.replace("version = 3\n", f'version = 3\n[{section}.containerd]\n'
                          '  default_runtime_name = "nvidia"\n', 1) if "version = 3" in config \
        else config.replace('default_runtime_name = "runc"', 'default_runtime_name = "nvidia"')


@pytest.mark.parametrize("version,operator,want", [
    ("1.7.27", False, [True, False]), ("2.1.9", False, [True, False]),
    # the operator's toolkit (/usr/local/nvidia/toolkit) keeps runc the default in CDI mode
    ("1.7.27", True, [False, False]), ("2.1.9", True, [False, False]),
])
def test_containerd_default_runtime_runc_beside_a_registered_nvidia_real(
        version: str, operator: bool, want: list[bool], tmp_path: Path) -> None:
    binary = require(version)[version]
    v3 = version.startswith("2.")
    config = toolkit_dropin_v3() if v3 else toolkit_dropin(2)
    ours, theirs = "/usr/bin/nvidia-container-runtime", \
        "/usr/local/nvidia/toolkit/nvidia-container-runtime"
    config = config.replace(ours, theirs) if operator else config.replace(theirs, ours)
    section = CRI_RT3 if v3 else CRI
    votes = []
    for text in (config, _default_nvidia(config, section)):
        (tmp_path / "config.toml").write_text(text)
        rc, out, err = config_dump(binary, tmp_path / "config.toml")
        assert rc == 0, err
        assert ('"nvidia"' in out or "runtimes.nvidia]" in out) and "runc" in out
        votes.append("reading:containerd-default-runtime"
                     in _readings("$ containerd config dump\n" + out))
    assert votes == want


def test_a_grep_of_the_default_runtime_alone_points_at_runc_default() -> None:
    code, decided = _top('$ containerd config dump | grep default_runtime_name\n'
                         '    default_runtime_name = "runc"\n')
    assert (code, decided) == ("GX514", False)


@pytest.mark.parametrize("extra", [
    "spec:\n  runtimeClassName: nvidia\n  containers:\n  - name: cuda\n",
    "        - --device-list-strategy=cdi-cri\n",
    "  cdi:\n    enabled: true\n",
    "        - name: NVIDIA_RUNTIME_SET_AS_DEFAULT\n          value: \"false\"\n",
    '  deviceListStrategy:\n  - "cdi-annotations"\n',
])
def test_no_default_runtime_reading_when_runc_default_is_fine(extra: str) -> None:
    text = f'default_runtime_name = "runc"\n\n{extra}'
    assert "reading:containerd-default-runtime" not in _readings(text)


def test_no_default_runtime_reading_for_a_config_without_the_nvidia_runtime() -> None:
    # the runtimes it registers lack nvidia: that is GX301's, not a default to change
    text = f'# cat /etc/containerd/config.toml\n{ROOT_V2}'
    assert "reading:containerd-default-runtime" not in _readings(text)


# ----- a toolkit release that the toolkit's changelog fixed (GX307) ----------------------------
@pytest.mark.parametrize("shown", [
    "$ nvidia-cdi-hook --version\nNVIDIA CDI Hook version 1.17.0\ncommit: 5bc0315\n",
    "$ nvidia-ctk --version\nNVIDIA Container Toolkit CLI version 1.17.0\ncommit: 5bc0315\n",
    "NVIDIA Container Runtime Hook version 1.13.0\ncommit: 4c3d7b1\n",
    "$ sudo dnf install nvidia-container-toolkit-1.17.0-1.x86_64\n"
    " nvidia-container-toolkit     x86_64     1.17.0-1     nvidia-container-toolkit     1.2 M\n",
    "$ dpkg -l | grep nvidia-container\n"
    "ii  nvidia-container-toolkit       1.16.0-1   amd64   NVIDIA Container toolkit\n",
    "$ rpm -qa | grep nvidia-container\nnvidia-container-toolkit-1.13.0-1.x86_64\n",
])
def test_a_toolkit_release_with_a_start_failure_fixed_later(shown: str) -> None:
    r = triage([("paste", shown)])
    assert [(c.cause.code, c.signatures) for c in r.causes][:1] == [
        ("GX307", ["reading:toolkit-release-fixed-later"])]
    assert not r.decided


@pytest.mark.parametrize("shown", [
    "NVIDIA CDI Hook version 1.17.1\ncommit: 1b0ae2c\n",
    "ii  nvidia-container-toolkit       1.18.0-1   amd64   NVIDIA Container toolkit\n",
    # v1.14.1 made the hook read config.toml: a behaviour change, not a failure it fixed
    "NVIDIA Container Runtime Hook version 1.14.0\ncommit: 4c3d7b1\n",
])
def test_a_toolkit_release_without_a_known_start_failure_votes_nothing(shown: str) -> None:
    assert "reading:toolkit-release-fixed-later" not in _readings(shown)


# ----- the GPU working in a container ctr started outside the CRI plugin (GX512/GX514/GX301) --
SMI_TABLE = ("Tue May  9 04:45:13 2023\n"
             "+---------------------------------------------------------------------------+\n"
             "| NVIDIA-SMI 530.30.02              Driver Version: 530.30.02    CUDA Version: "
             "12.1     |\n"
             "|   0  NVIDIA GeForce RTX 2080 Ti      On | 00000000:01:00.0 Off |        N/A |\n")


@pytest.mark.parametrize("cmd", [
    "# ctr run --rm -t --runc-binary=/usr/bin/nvidia-container-runtime --env "
    "NVIDIA_VISIBLE_DEVICES=all docker.io/nvidia/cuda:12.1.0-base-ubuntu22.04 t nvidia-smi",
    "$ sudo ctr run --rm --gpus 0 -t docker.io/nvidia/cuda:12.1.0-base-ubuntu22.04 t nvidia-smi",
])
def test_the_gpu_working_under_ctr_points_at_the_cri_config(cmd: str) -> None:
    r = triage([("paste", f"{cmd}\n{SMI_TABLE}")])
    assert {c.cause.code for c in r.causes[:3]} == {"GX301", "GX512", "GX514"}
    assert not r.decided


@pytest.mark.parametrize("after", [
    "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver.\n",
    "",
])
def test_no_outside_cri_reading_when_nvidia_smi_does_not_answer(after: str) -> None:
    cmd = "$ sudo ctr run --rm --gpus 0 -t docker.io/nvidia/cuda:12.1.0-base t nvidia-smi\n"
    assert "reading:gpu-works-outside-cri" not in _readings(cmd + after)
    # nor for an answering nvidia-smi on the host, with no ctr run before it
    assert "reading:gpu-works-outside-cri" not in _readings("$ nvidia-smi\n" + SMI_TABLE)


def _pod_with(limit: object, kind: str = "Pod") -> str:
    ctr = {"name": "train", "image": "cuda:12", "resources": {"limits": {"nvidia.com/gpu": limit}}}
    spec = {"containers": [ctr]}
    if kind == "Pod":
        return yaml.safe_dump({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"},
                               "spec": spec})
    # a controller's template, a level deeper (Volcano's tasks[].template, a Job's template)
    return yaml.safe_dump({"apiVersion": "batch.volcano.sh/v1alpha1", "kind": kind,
                           "metadata": {"name": "j"},
                           "spec": {"tasks": [{"name": "t", "template": {"spec": spec}}]}})


@pytest.mark.parametrize("limit", [0.5, "0.5", "500m", 1.25])
@pytest.mark.parametrize("kind", ["Pod", "Job"])
def test_a_fractional_gpu_request_is_an_invalid_request(limit: object, kind: str) -> None:
    assert "reading:fractional-gpu-request" in _readings(_pod_with(limit, kind))
    assert _codes(_pod_with(limit, kind))[0] == "GX103"


@pytest.mark.parametrize("limit", [1, "2", 1.0, "1000m"])
def test_a_whole_gpu_request_is_no_fractional_request(limit: object) -> None:
    assert "reading:fractional-gpu-request" not in _readings(_pod_with(limit))


PLUGIN_NO_LIB = ("E0801 15:26:24.781000       1 main.go:132] error starting plugins: error "
                 "creating plugin manager: unable to create plugin manager: nvml init failed: "
                 "ERROR_LIBRARY_NOT_FOUND\n")


def test_the_plugin_under_the_nvidia_runtime_class_is_not_gx514() -> None:
    """The plugin's chart installed with runtimeClassName=nvidia: the runtime saw the pod, so
    GX514 (started under runc) is ruled out and the unhonoured envvar (GX303) is voted."""
    alone = _codes(PLUGIN_NO_LIB)
    assert alone[0] == "GX514"
    helm = ("$ helm upgrade --install nvdp nvdp/nvidia-device-plugin --version 0.16.2 "
            "--set runtimeClassName=nvidia\n")
    shown = triage([("paste", helm + PLUGIN_NO_LIB)])
    codes = [c.cause.code for c in shown.causes]
    assert codes[0] != "GX514" and "GX303" in codes[:3]
    gx514 = next(c for c in shown.causes if c.cause.code == "GX514")
    assert "ruled:nvidia-runtime-shown" in gx514.signatures and not gx514.deciding


DAEMON_JSON_NVIDIA_DEFAULT = ('{\n  "default-runtime": "nvidia",\n  "runtimes": {"nvidia": '
                              '{"path": "nvidia-container-runtime", "runtimeArgs": []}}\n}\n')


def test_docker_default_runtime_rules_gx514_out_only_where_kubelet_runs_docker() -> None:
    """Docker's default-runtime reaches pods only through Docker (k3s --docker); on a node
    whose kubelet runs containerd, GX514 stays first."""
    on_containerd = _codes(DAEMON_JSON_NVIDIA_DEFAULT + PLUGIN_NO_LIB)
    assert on_containerd[0] == "GX514"
    on_docker = _codes("$ curl -sfL https://get.k3s.io | sh -s - --docker\n"
                       + DAEMON_JSON_NVIDIA_DEFAULT + PLUGIN_NO_LIB)
    assert on_docker[0] != "GX514"


def test_cuda_initialization_error_points_at_a_mig_gpu_given_whole() -> None:
    line = ("[Vector addition of 50000 elements] Failed to allocate vector A (error code "
            "initialization error)!\n")
    r = triage([("paste", line)])
    assert [c.cause.code for c in r.causes][:2] == ["GX419", "GX311"]
    assert not r.decided


SMI_HEADER = "| NVIDIA-SMI {v}    Driver Version: {v}    CUDA Version: 12.0     |\n"


@pytest.mark.parametrize(("gpu", "driver", "fires"), [
    ("Tesla K80", "525.60.13", True),    # Kepler's last branch is R470
    ("Tesla K80", "470.199.02", False),
    ("Tesla V100-SXM2-16GB", "535.104.05", False),  # Volta's last branch is R580
    ("Tesla V100-SXM2-16GB", "590.44.01", True),
    ("NVIDIA A100-SXM4-40GB", "590.44.01", False),
])
def test_a_driver_newer_than_the_gpus_last_branch(gpu: str, driver: str, fires: bool) -> None:
    text = SMI_HEADER.format(v=driver) + f"|   0  {gpu}          On   | 00000000:00:1E.0 Off |\n"
    assert ("reading:driver-drops-gpu" in _readings(text)) is fires


@pytest.mark.parametrize(("where", "fires"), [
    ("  machineType: p2.xlarge\n", True),
    ("node.kubernetes.io/instance-type=Standard_NC6\n", True),
    ("node.kubernetes.io/instance-type=Standard_NC6s_v3\n", False),  # V100: R580 still drives it
    ("  machineType: g4dn.xlarge\n", False),
])
def test_a_kepler_instance_type_without_a_driver_shown(where: str, fires: bool) -> None:
    assert ("reading:driver-drops-gpu" in _readings(where)) is fires
    if fires:
        assert _codes(where)[0] == "GX416"


TWINS = """    [plugins.'io.containerd.cri.v1.runtime'.containerd.runtimes.nvidia]
      runtime_type = 'io.containerd.runc.v2'
      [plugins.'io.containerd.cri.v1.runtime'.containerd.runtimes.nvidia.options]
        BinaryName = '/usr/local/nvidia/toolkit/nvidia-container-runtime'
        SystemdCgroup = true
        binaryName = '{second}'
    [plugins.'io.containerd.cri.v1.runtime'.containerd.runtimes.runc]
      runtime_type = 'io.containerd.runc.v2'
"""


def test_two_spellings_of_binary_name_in_the_nvidia_options() -> None:
    """containerd's decoder keeps one of BinaryName/binaryName (the sorted re-encoding puts the
    lowercase last): a runc there means the nvidia handler runs plain runc (GX307)."""
    r = triage([("paste", TWINS.format(second="/usr/local/bin/runc"))])
    top = r.causes[0]
    assert top.cause.code == "GX307" and "reading:runtime-binary-twins" in top.signatures
    assert any("/usr/local/bin/runc" in m for m in top.matched)


@pytest.mark.parametrize("quote", ["", "> ", ">> "])
def test_a_quoted_paste_is_read_as_the_component_wrote_it(quote: str) -> None:
    """A ticket's reply quotes the paste with ``> `` on every line: the readings see it with
    the markers off, as the signature scan does."""
    text = "".join(quote + ln for ln in TWINS.format(second="/usr/local/bin/runc")
                   .splitlines(keepends=True))
    top = triage([("paste", text)]).causes[0]
    assert top.cause.code == "GX307" and "reading:runtime-binary-twins" in top.signatures


def test_one_binary_name_or_twins_that_agree_vote_nothing() -> None:
    same = TWINS.format(second="/usr/local/nvidia/toolkit/nvidia-container-runtime")
    assert "reading:runtime-binary-twins" not in _readings(same)
    single = "\n".join(ln for ln in TWINS.splitlines() if "binaryName" not in ln)
    assert "reading:runtime-binary-twins" not in _readings(single)


LS_TOOLKIT = """# ls -al /usr/bin/nvidia-container*
-rwxr-xr-x 1 root root   48072 Sep  6 02:26 /usr/bin/nvidia-container-cli
-rwxr-xr-x 1 root root 4079768 Sep  6 02:29 /usr/bin/nvidia-container-runtime
""" + ("lrwxrwxrwx 1 root root      38 Nov 16 23:35 /usr/bin/nvidia-container-toolkit -> "
       "/usr/bin/nvidia-container-runtime-hook\n")
HOOK_ROW = "-rwxr-xr-x 1 root root 2142088 Sep  6 02:29 /usr/bin/nvidia-container-runtime-hook\n"


def test_a_dangling_toolkit_symlink_is_a_missing_hook() -> None:
    assert "reading:dangling-toolkit-link" in _readings(LS_TOOLKIT)
    assert _codes(LS_TOOLKIT)[0] == "GX307"
    assert "reading:dangling-toolkit-link" not in _readings(LS_TOOLKIT + HOOK_ROW)


@pytest.mark.parametrize("shown", [
    "$ sudo systemctl restart nvidia\nFailed to restart nvidia.service: Unit nvidia.service not "
    "found.\n",
    "core@node-1 ~ $ nvidia-smi\n-bash: nvidia-smi: command not found\n",
])
def test_the_node_without_a_driver(shown: str) -> None:
    assert "reading:host-without-driver" in _readings(shown)
    assert _codes(shown)[0] == "GX403"


@pytest.mark.parametrize("shown", [
    "root@pod-0:/# nvidia-smi\nbash: nvidia-smi: command not found\n",  # inside a container
    "core@node-1 ~ $ nvidia-smi\n-bash: nvidia-smi: command not found\n"
    "gpu-operator   nvidia-driver-daemonset-x7k2p   1/1   Running   0   3m\n",
])
def test_no_missing_host_driver_in_a_container_or_under_the_driver_container(shown: str) -> None:
    assert "reading:host-without-driver" not in _readings(shown)


def test_cuda_not_permitted_points_at_lost_device_access() -> None:
    line = ('time=2024-05-24T03:58:55.594Z level=INFO source=gpu.go:197 msg="error looking up '
            'nvidia GPU memory" error="nvcuda failed to get primary device context 800"\n')
    assert _codes(line)[0] == "GX306"


_NO_DRIVER = ("WARNING: The NVIDIA Driver was not detected.  GPU functionality will not be "
              "available.\n   Use the NVIDIA Container Toolkit to start this container with GPU "
              "support; see\n   https://docs.nvidia.com/datacenter/cloud-native/ .\n")


@pytest.mark.parametrize("command", [
    "$ docker run -it --rm nvcr.io/nvidia/pytorch:24.01-py3",
    "sudo docker run -it \\\n    --shm-size=1g -v /data:/data \\\n"
    "    nvcr.io/nvidia/pytorch:24.01-py3 bash",
    "podman run --rm docker.io/nvidia/cuda:12.4.0-base-ubuntu22.04 nvidia-smi"])
def test_a_container_run_without_gpus_asked_is_no_gpu_requested(command: str) -> None:
    """prs-eth/PanopticSegForLargeScalePointCloud#20, triton-inference-server/
    fastertransformer_backend#111: a bare run, then the image's CUDA finds no driver."""
    r = triage([("paste", f"{command}\n\n{_NO_DRIVER}")])
    assert r.causes[0].cause.code == "GX303"
    assert "reading:run-without-gpus" in r.causes[0].signatures


@pytest.mark.parametrize("command", [
    "$ docker run --gpus all -it --rm nvcr.io/nvidia/pytorch:24.01-py3",
    "$ docker run --runtime=nvidia -it nvcr.io/nvidia/pytorch:24.01-py3",
    "$ podman run --device nvidia.com/gpu=all docker.io/nvidia/cuda:12.4.0-base-ubuntu22.04",
    "$ nvidia-docker run -it nvcr.io/nvidia/pytorch:24.01-py3",
    "$ docker run -it --rm nvcr.io/nvidia/pytorch:24.01-py3\n$ docker run --gpus all -it img"])
def test_a_run_that_asks_for_gpus_is_no_such_reading(command: str) -> None:
    r = triage([("paste", f"{command}\n\n{_NO_DRIVER}")])
    assert all("reading:run-without-gpus" not in c.signatures for c in r.causes)
