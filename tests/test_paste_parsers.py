"""The paste parsers on the layouts the programs really print: journalctl's default ``short``
(syslog) layout, ``short-full``, and entries pasted without timestamp; ``kubectl get pods``
tables; ``kubectl logs`` with ``-c`` and ``--prefix``; nvidia-smi's table, ``-q`` and ``-L``;
helm values and ClusterPolicy objects. Each turns into Snapshot objects the bundle checks read."""

from __future__ import annotations

from pathlib import Path

import pytest

from gpuxray.diagnose.triage import triage
from gpuxray.engines.nodefacts import node_facts
from gpuxray.engines.unit_restarts import restart_episodes
from gpuxray.sources.parsers import journal, paste
from gpuxray.sources.pasted import CMD, TextInput, paste_evidence

REPO = Path(__file__).resolve().parents[1]
RESTART_ISO = (REPO / "tests/data/triage/journal-containerd-restart.txt").read_text()


def _evidence(text: str):  # type: ignore[no-untyped-def]
    return paste_evidence([TextInput("paste", text)])


def _classic(iso_journal: str) -> str:
    """The same entries in journalctl's default ``short`` layout (``Nov 29 10:01:03 host``):
    the layout `journalctl -u containerd` prints without ``-o``."""
    out = []
    for line in iso_journal.splitlines():
        ts, rest = line.split(" ", 1)
        out.append(f"Nov 29 {ts[11:19]} {rest}")
    return "\n".join(out) + "\n"


@pytest.mark.parametrize("layout", ["short-iso", "short", "short-full", "no-timestamp"])
def test_journal_layouts_parse_to_the_same_restart(layout: str) -> None:
    text = {"short-iso": RESTART_ISO, "short": _classic(RESTART_ISO),
            "short-full": "\n".join("Sun 2026-11-29 " + ln[11:19] + " UTC" + ln[24:]
                                    for ln in RESTART_ISO.splitlines()) + "\n",
            "no-timestamp": "\n".join(ln.split(" ", 2)[2] for ln in
                                      RESTART_ISO.splitlines()) + "\n"}[layout]
    lines = journal.parse_journal(text)
    assert len(lines) == len(RESTART_ISO.splitlines())
    assert {ln.ident for ln in lines} == {"systemd"}
    eps = restart_episodes(journal.unit_events(lines))
    assert len(eps) == 1 and eps[0].signal == "SIGHUP" and eps[0].restarted is not None


@pytest.mark.parametrize("shape", ["short", "prompt"])
def test_pasted_classic_journal_gives_gx504(shape: str) -> None:
    text = _classic(RESTART_ISO)
    if shape == "prompt":
        text = "$ journalctl -u containerd --no-pager\n" + text
    ev = _evidence(text)
    assert ev.kinds.get(paste.JOURNAL) == 1
    host = next(iter(ev.snapshot.hosts.values()))
    assert CMD.JOURNAL_CONTAINERD in host.cmds
    r = triage([("paste", text)])
    gx504 = [f for f in r.findings if f.code == "GX504" and "sighup" in f.params]
    assert r.causes[0].cause.code == "GX504"
    assert gx504 and gx504[0].params["sighup"] == 1 and gx504[0].params["count"] == 1


def test_journal_lines_are_filed_by_unit() -> None:
    # containerd/containerd#14121 (kubelet's journal), k8s-device-plugin#1145 (containerd's,
    # an entry wrapped over indented lines by the ticket form)
    text = ('kubelet[7826]: E0906 20:35:22.866810    7826 run.go:72] "command failed" '
            'err="failed to run Kubelet: validate service connection"\n'
            "Sep 06 20:35:22 node1 systemd[1]: kubelet.service: Main process exited, "
            "code=exited, status=1/FAILURE\n"
            "Feb 04 13:15:38 k8s-device-plugin-cluster-worker containerd[1278]:\n"
            '    time="2025-02-04T13:15:38.716063472Z" level=warning\n'
            '    msg="failed to load plugin io.containerd.grpc.v1.cri"\n')
    host = next(iter(_evidence(text).snapshot.hosts.values()))
    assert host.cmds[CMD.JOURNAL_KUBELET].count("\n") == 2
    assert host.cmds[CMD.JOURNAL_CONTAINERD].startswith("Feb 04 13:15:38")


def test_prose_is_not_a_journal() -> None:
    assert journal.parse_journal("Note: this is what I did\nStep 1: install\n") == []
    assert paste.sniff(["Note: this is what I did", "Step 1: install"]) == paste.TEXT


def test_node_facts_read_the_pasted_journal() -> None:
    snap = _evidence(_classic(RESTART_ISO)).snapshot
    nf = next(iter(node_facts(snap).values()))
    assert nf.journal_events is not None and len(nf.journal_events) == 6


# ----- kubectl get pods ------------------------------------------------------------------------
# Rows as pasted in NVIDIA/k8s-dra-driver-gpu#149 (`get pods -A`, header cut) and
# kubernetes/kubernetes#117955 (columns shifted by the ticket form, a kubelet reason as STATUS).
DRA_149 = ("kubectl get pods -A\n"
           "nvidia-dra-driver    nvidia-k8s-dra-driver-controller-6d5869d478-tpg7q              "
           "1/1     Running   0               8m59s\n"
           "nvidia-dra-driver    nvidia-k8s-dra-driver-kubelet-plugin-8wmmz                     "
           "0/1     CrashLoopBackOff   4 (65s ago)     2m35s\n")
K8S_117955 = ("NAME              READY   STATUS                                  RESTARTS   AGE\n"
              "job-9s7jw         0/1        UnexpectedAdmissionError   0          5m1s\n"
              "deploy-6d485b4676-fbv69   1/1        Running                                 0"
              "          3m14s\n")


def test_pods_table_rows_by_cell_shape() -> None:
    from gpuxray.sources.parsers.pods_table import parse_pods_table

    rows = parse_pods_table(DRA_149)
    assert [(r.namespace, r.ready, r.status, r.restarts) for r in rows] == [
        ("nvidia-dra-driver", (1, 1), "Running", 0),
        ("nvidia-dra-driver", (0, 1), "CrashLoopBackOff", 4)]
    rows = parse_pods_table(K8S_117955)
    assert [(r.name, r.status) for r in rows] == [("job-9s7jw", "UnexpectedAdmissionError"),
                                                  ("deploy-6d485b4676-fbv69", "Running")]
    wide = ("NAMESPACE      NAME                            READY   STATUS     RESTARTS   AGE   "
            "IP            NODE       NOMINATED NODE   READINESS GATES\n"
            "gpu-operator   nvidia-driver-daemonset-x2      0/1     Init:0/1   0          3m    "
            "10.0.0.12     gpu-w-3    <none>           <none>\n")
    (row,) = parse_pods_table(wide)
    assert (row.namespace, row.node, row.status) == ("gpu-operator", "gpu-w-3", "Init:0/1")


@pytest.mark.parametrize(("status", "ready", "restarts", "printed"), [
    ("Running", "1/1", "0", "Running"), ("CrashLoopBackOff", "0/1", "7 (2m ago)",
                                         "CrashLoopBackOff"),
    ("Init:0/1", "0/1", "0", "Init:0/1"), ("Init:2/4", "0/1", "0", "Init:2/4"),
    ("Init:CrashLoopBackOff", "0/1", "3", "Init:CrashLoopBackOff"),
    ("Pending", "0/1", "0", "Pending"), ("ContainerCreating", "0/1", "0", "ContainerCreating"),
    ("ImagePullBackOff", "0/1", "0", "ImagePullBackOff"),
])
def test_a_row_becomes_the_pod_kubectl_printed_it_from(status: str, ready: str, restarts: str,
                                                       printed: str) -> None:
    """``printPod`` inverted: the Pod built from a row prints the same STATUS again."""
    from gpuxray.engines.operator import pod_ready, pod_state
    from gpuxray.sources.parsers.pods_table import parse_pods_table, row_pod

    (row,) = parse_pods_table(f"nvidia-driver-daemonset-abcde   {ready}   {status}   "
                              f"{restarts}   5m\n")
    pod = row_pod(row, "gpu-operator", "n1")
    assert pod_state(pod) == printed
    assert pod_ready(pod) == (status == "Running" and ready == "1/1")
    assert sum(s.restart_count for s in (*pod.status.container_statuses,
                                         *pod.status.init_container_statuses)) == \
        int(restarts.split()[0])


def test_pasted_pods_table_feeds_the_checks() -> None:
    ev = _evidence(K8S_117955)
    assert {p.metadata.name for p in ev.snapshot.pods} == {"job-9s7jw", "deploy-6d485b4676-fbv69"}
    r = triage([("paste", K8S_117955)])
    assert r.causes[0].cause.code == "GX310" and r.decided
    assert any(f.code == "GX310" and f.subject.name == "job-9s7jw" for f in r.findings)


def test_driver_pod_crashlooping_in_a_table_is_a_vote_not_a_decision() -> None:
    """The table shows which stage fails, not why: GX403 is voted, never decided on it."""
    table = ("$ kubectl get pods -n gpu-operator\n"
             "NAME                                 READY   STATUS             RESTARTS      AGE\n"
             "nvidia-driver-daemonset-xp7vw        0/1     CrashLoopBackOff   7 (2m ago)    22m\n"
             "nvidia-device-plugin-daemonset-9b4rk 0/1     Init:0/1           0             22m\n")
    ev = _evidence(table)
    assert ev.snapshot.operator_namespace == "gpu-operator"
    r = triage([("paste", table)])
    assert r.causes[0].cause.id == "driver-failing" and not r.decided
    assert any(f.code == "GX403" and f.params.get("cause_id") == "not-ready"
               and f.subject.name == "pasted-node" for f in r.findings)


def test_prose_and_other_tables_give_no_pods() -> None:
    from gpuxray.sources.parsers.pods_table import parse_pods_table

    assert parse_pods_table("I ran it 3 times over 5m and got 1/2 of the GPUs\n") == []
    assert parse_pods_table("NAME      STATUS   ROLES    AGE   VERSION\n"
                            "node-1    Ready    <none>   3d    v1.29.1\n") == []


# ----- nvidia-smi text ---------------------------------------------------------------------------
# The 580 table as pasted in Project-HAMi/HAMi#1903; the 535 one in NVIDIA/gpu-operator#1502
# (tests/corpus/triage/gpu-operator-1502.txt); the -q block layout as in NVIDIA/DCGM#152.
SMI_580 = """\
+-----------------------------------------------------------------------------------------+
| NVIDIA-SMI 580.119.02             Driver Version: 580.119.02     CUDA Version: 13.0     |
+-----------------------------------------+------------------------+----------------------+
| GPU  Name                 Persistence-M | Bus-Id          Disp.A | Volatile Uncorr. ECC |
| Fan  Temp   Perf          Pwr:Usage/Cap |           Memory-Usage | GPU-Util  Compute M. |
|                                         |                        |               MIG M. |
|=========================================+========================+======================|
|   0  NVIDIA A800 80GB PCIe          Off |   00000000:01:00.0 Off |                    0 |
| N/A   27C    P0             46W /  300W |       0MiB /  81920MiB |      0%      Default |
|                                         |                        |             Disabled |
+-----------------------------------------+------------------------+----------------------+
|   1  NVIDIA A800 80GB PCIe          Off |   00000000:81:00.0 Off |                    0 |
| N/A   26C    P0             47W /  300W |       0MiB /  81920MiB |      0%      Default |
|                                         |                        |             Disabled |
+-----------------------------------------+------------------------+----------------------+
"""
SMI_Q = """\
==============NVSMI LOG==============

Timestamp                                 : Mon Feb  5 10:00:00 2024
Driver Version                            : 535.104.05
CUDA Version                              : 12.2

Attached GPUs                             : 1
GPU 00000000:0A:00.0
    Product Name                          : NVIDIA H100 80GB HBM3
    MIG Mode
        Current                           : Disabled
        Pending                           : Enabled
    GPU UUID                              : GPU-072b19bd-4ccf-63cf-6435-cf462aff833d
    Fabric
        State                             : In Progress
        Status                            : N/A
    Remapped Rows
        Correctable Error                 : 0
        Uncorrectable Error               : 2
        Pending                           : Yes
        Remapping Failure Occurred        : No
"""


def test_nvidia_smi_table_and_query_and_list() -> None:
    from gpuxray.sources.parsers.nvidia_smi import parse_nvidia_smi_text

    rep = parse_nvidia_smi_text(SMI_580)
    assert rep is not None and rep.driver_version == "580.119.02" and rep.cuda_version == "13.0"
    assert [(g.pci_bus_id, g.product_name, g.mig_current) for g in rep.gpus] == [
        ("00000000:01:00.0", "NVIDIA A800 80GB PCIe", "Disabled"),
        ("00000000:81:00.0", "NVIDIA A800 80GB PCIe", "Disabled")]
    old = (REPO / "tests/corpus/triage/gpu-operator-1502.txt").read_text()
    rep = parse_nvidia_smi_text(old)
    assert rep is not None and rep.driver_version == "535.230.02" and len(rep.gpus) == 2
    q = parse_nvidia_smi_text(SMI_Q)
    assert q is not None and q.attached_gpus == 1
    (g,) = q.gpus
    assert (g.mig_current, g.mig_pending, g.fabric_state, g.remapped_unc, g.remap_pending) == (
        "Disabled", "Enabled", "In Progress", 2, "Yes")
    listed = parse_nvidia_smi_text("GPU 0: NVIDIA A100-SXM4-40GB (UUID: GPU-5bd5f0a4-0b2b-4f0c-"
                                   "9bd8-3b35b7bd4b38)\n  MIG 1g.5gb      Device  0: (UUID: MIG-"
                                   "5bd5f0a4-0b2b-4f0c-9bd8-3b35b7bd4b31)\n")
    assert listed is not None and [x.product_name for x in listed.gpus] == [
        "NVIDIA A100-SXM4-40GB"]


@pytest.mark.parametrize("text", [
    "Failed to initialize NVML: Driver/library version mismatch\n", "No devices were found\n",
    SMI_580.split("| GPU  Name")[0]])
def test_nvidia_smi_errors_say_nothing_of_the_gpus(text: str) -> None:
    """An error, or a header cut from its rows, gives no report: the node is not taken for one
    without GPUs (which would silence the node checks)."""
    from gpuxray.sources.parsers.nvidia_smi import parse_nvidia_smi_text

    assert parse_nvidia_smi_text(text) is None
    snap = _evidence("$ nvidia-smi\n" + text).snapshot
    assert all(nf.is_gpu for nf in node_facts(snap).values())


def test_pasted_hgx_table_without_fabric_manager_is_gx405() -> None:
    """Eight SXM GPUs (an HGX board, NVSwitch) and no fabricmanager unit: seed §1."""
    row = ("|   {i}  NVIDIA H100 80GB HBM3          On  |   00000000:{b}:00.0 Off |"
           "                    0 |\n| N/A   30C    P0             70W /  700W |       0MiB /  "
           "81559MiB |      0%      Default |\n|                                         |"
           "                        |             Disabled |\n")
    table = SMI_580.split("+-----------------------------------------+-----")[0] + \
        "".join(row.format(i=i, b=b) for i, b in enumerate(
            ("18", "2A", "3A", "5D", "9A", "AB", "BA", "DB")))
    text = ("$ nvidia-smi\n" + table + "$ systemctl status nvidia-fabricmanager\n"
            "Unit nvidia-fabricmanager.service could not be found.\n")
    nf = next(iter(node_facts(_evidence(text).snapshot).values()))
    assert nf.smi is not None and len(nf.smi.gpus) == 8
    r = triage([("paste", text)])
    gx405 = [f for f in r.findings if f.code == "GX405" and "causes" in f.params]
    assert gx405 and gx405[0].params["causes"] == ["missing"]
    assert r.causes[0].cause.code == "GX405"


# ----- helm values / ClusterPolicy ---------------------------------------------------------------
# The install line of the GPU Operator docs (getting-started, "pre-installed drivers"), the
# RKE2 toolkit env of NVIDIA/gpu-operator#473, the driver values of NVIDIA/gpu-operator#1726.
HELM_SET = ("helm install --wait --generate-name -n gpu-operator --create-namespace \\\n"
            "    nvidia/gpu-operator --set driver.enabled=false \\\n"
            "    --set toolkit.env[0].name=CONTAINERD_CONFIG,toolkit.env[0].value="
            "/var/lib/rancher/rke2/agent/etc/containerd/config.toml.tmpl\n")


def test_helm_set_flags_become_the_clusterpolicy_spec() -> None:
    from gpuxray.sources.parsers import helm

    assert helm.parse_set_flags("--set a.b=true,a.c=3 --set-string d=007 --set e=x\\,y") == {
        "a": {"b": True, "c": 3}, "d": "007", "e": "x,y"}
    (cp,) = _evidence(HELM_SET).snapshot.clusterpolicies
    assert cp.spec == {"driver": {"enabled": False}, "toolkit": {"env": [
        {"name": "CONTAINERD_CONFIG",
         "value": "/var/lib/rancher/rke2/agent/etc/containerd/config.toml.tmpl"}]}}
    # another chart's install sets nothing of the operator's
    assert _evidence("helm install nvdp nvdp/nvidia-device-plugin -n gpu-operator "
                     "--set migStrategy=single\n").snapshot.clusterpolicies == []


@pytest.mark.parametrize("text", [
    "$ helm get values gpu-operator -n gpu-operator\nUSER-SUPPLIED VALUES:\ndriver:\n"
    "  enabled: false\ntoolkit:\n  enabled: true\n",
    "```driver:\n  enabled: false\n  usePrecompiled: false\n  version: \"580.65.06\"\n```\n",
    "  spec:\n    driver:\n      enabled: false\n    toolkit:\n      enabled: true\n",
])
def test_values_and_spec_excerpts_become_a_clusterpolicy(text: str) -> None:
    from gpuxray.engines.nodefacts import DriverMode, driver_mode

    ev = _evidence(text)
    (cp,) = ev.snapshot.clusterpolicies
    assert cp.spec["driver"]["enabled"] is False
    assert driver_mode(ev.snapshot) == DriverMode.HOST
    assert ev.status_unknown == {cp.metadata.name}
    # its status is not in the paste: no GX410 "state <empty>"
    assert all(f.code != "GX410" for f in triage([("paste", text)]).findings)


def test_other_yaml_is_not_values() -> None:
    from gpuxray.sources.parsers import helm

    assert not helm.looks_like_values({"driver": {"name": "x"}})
    assert paste.sniff(["resources:", "  limits:", "    nvidia.com/gpu: 1"]) != paste.HELM_VALUES


# ----- kubectl logs ------------------------------------------------------------------------------
def test_log_target_reads_kubectl_logs_commands() -> None:
    assert paste.log_target("kubectl logs -n gpu-operator nvidia-driver-daemonset-x -c "
                            "nvidia-driver-ctr") == ("nvidia-driver-daemonset-x",
                                                     "nvidia-driver-ctr", False)
    assert paste.log_target("kubectl -n kube-system logs pod/nvidia-device-plugin-daemonset-s "
                            "--previous --tail 50") == ("nvidia-device-plugin-daemonset-s", "",
                                                        True)
    assert paste.log_target("kubectl logs ds/nvidia-dcgm-exporter --container=exporter") == (
        "nvidia-dcgm-exporter", "exporter", False)
    # NVIDIA/k8s-dra-driver-gpu#149: kubectl names the container it picked
    assert paste.defaulted_container('Defaulted container "plugin" out of: plugin, init (init)'
                                     "\nI0728 22:15:58.289802 1 device_state.go:146] x\n") == \
        "plugin"


TABLE = ("$ kubectl get pods -n gpu-operator\n"
         "NAME                                 READY   STATUS             RESTARTS      AGE\n"
         "nvidia-driver-daemonset-xp7vw        0/1     CrashLoopBackOff   7 (2m ago)    22m\n"
         "nvidia-driver-daemonset-k2m9q        1/1     Running            0             22m\n")


@pytest.mark.parametrize("shape", ["-c", "--prefix"])
def test_logs_of_a_pasted_pod_are_filed_per_container(shape: str) -> None:
    log = ("Starting installation of NVIDIA driver version 550.90.07 for Linux kernel version "
           "5.15.0-1068-fips\nCould not resolve Linux kernel version\n")
    if shape == "-c":
        text = TABLE + ("$ kubectl logs -n gpu-operator nvidia-driver-daemonset-xp7vw -c "
                        "nvidia-driver-ctr\n" + log)
    else:
        text = TABLE + "$ kubectl logs -n gpu-operator ds/nvidia-driver-daemonset --prefix\n" + \
            "".join(f"[pod/nvidia-driver-daemonset-xp7vw/nvidia-driver-ctr] {ln}\n"
                    for ln in log.splitlines())
    snap = _evidence(text).snapshot
    (key,) = snap.logs
    assert key == ("gpu-operator", "nvidia-driver-daemonset-xp7vw", "nvidia-driver-ctr")
    assert "Could not resolve" in (snap.logs[key].current or "")
    r = triage([("paste", text)])
    assert r.causes[0].cause.id == "kernel-headers"


def test_pods_of_one_daemonset_are_on_different_nodes() -> None:
    """One pod per node: two driver pods in a table without NODE are two nodes, one failing."""
    snap = _evidence(TABLE).snapshot
    nodes = {p.metadata.name: p.spec.node_name for p in snap.pods}
    assert len(set(nodes.values())) == 2
    r = triage([("paste", TABLE)])
    failing = [f for f in r.findings if f.code == "GX403" and "cause_id" in f.params]
    assert [f.params["pod"] for f in failing] == ["nvidia-driver-daemonset-xp7vw"]


def test_a_log_alone_makes_no_pod_but_is_filed_under_its_pod() -> None:
    text = ("$ kubectl logs -n gpu-operator nvidia-driver-daemonset-xp7vw\n"
            "Done, now waiting for signal\n")
    snap = _evidence(text).snapshot
    assert snap.pods == []
    # filed under the pod the command names, the container unknown
    assert [(k, v.current) for k, v in snap.logs.items()] == [
        (("gpu-operator", "nvidia-driver-daemonset-xp7vw", "<default>"),
         "Done, now waiting for signal\n")]
    assert all(f.code != "GX403" for f in triage([("paste", text)]).findings)
    # with -c, and an operand pod without -n: the operator's namespace
    other = _evidence("$ kubectl logs nvidia-driver-daemonset-xp7vw -c nvidia-driver-ctr\n"
                      "Done, now waiting for signal\n").snapshot
    assert list(other.logs) == [("gpu-operator", "nvidia-driver-daemonset-xp7vw",
                                 "nvidia-driver-ctr")]


# ----- commands without a prompt, config files ---------------------------------------------------
EKS_CONFIG = (REPO / "../shared/corpus/containerd/eks-al2-containerd-config-v2/config.toml")


def _eks_config() -> str:
    if not EKS_CONFIG.is_file():
        pytest.skip("../shared/corpus is not next to this checkout")
    return EKS_CONFIG.read_text()


@pytest.mark.parametrize(("line", "kind"), [
    ("journalctl -u containerd -o cat", paste.JOURNAL), ("sudo dmesg | grep -i nvrm", paste.DMESG),
    ("nvidia-smi -q", paste.SMI_QUERY), ("lsmod | grep nvidia", paste.LSMOD),
    ("mokutil --sb-state", paste.MOKUTIL), ("cat /etc/containerd/config.toml",
                                            paste.CONTAINERD_TOML),
    ("systemctl status containerd", paste.SYSTEMCTL_STATUS)])
def test_a_command_on_its_own_line_names_its_output(line: str, kind: str) -> None:
    (part,) = paste.split_paste(f"{line}\nsome_output = 1\n")
    assert part.kind == kind and part.command == line.removeprefix("sudo ")


@pytest.mark.parametrize("line", ["nvidia-smi: command not found", "containerd: toml: cannot "
                                  "load TOML value", "containerd containerd.io 1.4.12 7b11cfaa",
                                  "dmesg shows nothing"])
def test_output_lines_are_not_taken_for_commands(line: str) -> None:
    (part,) = paste.split_paste(line + "\n")
    assert part.command == "" and line in part.text


def test_a_cat_file_ends_where_toml_ends() -> None:
    """A `cat` without a prompt after it: what follows the file is its own part."""
    text = ("cat /etc/containerd/config.toml\nversion = 2\nimports = [\n  \"/a.toml\",\n]\n"
            "[plugins.\"io.containerd.grpc.v1.cri\".containerd]\n"
            "  default_runtime_name = \"runc\"\n"
            "Failed to create pod sandbox: no runtime for \"nvidia\" is configured\n")
    toml, rest = paste.split_paste(text)
    assert toml.kind == paste.CONTAINERD_TOML and toml.text.count("\n") == 6
    assert rest.text.startswith("Failed to create") and rest.start == 8
    # nvidia-container-toolkit#1430: the file under a comment naming its path
    (part,) = paste.split_paste("# /etc/containerd/config.toml\nversion = 2\n")
    assert part.kind == paste.CONTAINERD_TOML and part.unit == "/etc/containerd/config.toml"


def test_root_config_alone_decides_the_handlers_only_without_unpasted_imports() -> None:
    """EKS AL2's config.toml (runc only) imports /etc/containerd/config.d/*.toml: a drop-in
    there may add nvidia, so the file alone does not show the handler missing; without the
    import it does (GX301 with the handlers, a warning: toolkit use not shown)."""
    cfg = _eks_config()
    ev = _evidence("cat /etc/containerd/config.toml\n" + cfg)
    assert list(ev.imports_unpasted.values()) == [["/etc/containerd/config.d/*.toml"]]
    assert all(f.code != "GX301" for f in triage([("p", "cat /etc/containerd/config.toml\n"
                                                   + cfg)]).findings)
    alone = cfg.replace('imports = ["/etc/containerd/config.d/*.toml"]', "")
    r = triage([("p", "cat /etc/containerd/config.toml\n" + alone)])
    gx301 = [f for f in r.findings if f.code == "GX301" and "runtimes" in f.params]
    assert gx301 and gx301[0].params["runtimes"] == ["runc"]


def test_labels_of_a_yaml_or_json_excerpt() -> None:
    for text in ('    labels:\n      feature.node.kubernetes.io/pci-10de.present: "true"\n'
                 '      nvidia.com/gpu.present: "true"\n',
                 '"labels": {\n  "feature.node.kubernetes.io/pci-10de.present": "true",\n'
                 '  "nvidia.com/gpu.present": "true"\n}\n'):
        (node,) = _evidence(text).snapshot.nodes
        assert node.metadata.labels == {"feature.node.kubernetes.io/pci-10de.present": "true",
                                        "nvidia.com/gpu.present": "true"}


# ----- kernel log ---------------------------------------------------------------------------------
# siderolabs/talos#8764 (talosctl dmesg), ansible-role-cuda#16 (raw dmesg), NVIDIA/aicr#1858
# (wrapped by the paste): the driver's multi-line messages as they were pasted.
TALOS = ("kern:     err: [2024-05-20T02:46:53.856596762Z]: NVRM: The NVIDIA GeForce GT 710 GPU "
         "installed in this system is\n NVRM:  supported through the NVIDIA 470.xx Legacy "
         "drivers. Please\n NVRM:  visit http://www.nvidia.com/object/unix.html for more\n"
         " kern: warning: [2024-05-20T02:46:53.859954762Z]: NVRM: No NVIDIA GPU found.\n")


def test_kernel_log_layouts() -> None:
    from gpuxray.sources.parsers.dmesg import parse_kernel_log

    log = parse_kernel_log(TALOS.splitlines()[0] + "\nFeb 04 13:15:38 gpu-1 kernel: NVRM: Xid "
                           "(PCI:0000:3b:00): 79, pid='<unknown>', name=<unknown>, GPU has "
                           "fallen off the bus.\n")
    first, second = log.lines
    assert first.ts is not None and first.ts.year == 2024 and first.message.startswith("NVRM:")
    assert second.ts_text == "Feb 04 13:15:38" and [x.xid for x in log.xids] == [79]


def test_multi_line_driver_messages_are_joined() -> None:
    from gpuxray.sources.parsers.dmesg import join_continuations

    joined = join_continuations(TALOS.splitlines())
    assert len(joined) == 2
    assert "is supported through the NVIDIA 470.xx Legacy drivers. Please visit" in joined[0]
    raw = join_continuations(["[15280.304871] NVRM: The NVIDIA Tesla M2070 GPU installed in "
                              "this system is", "NVRM:  supported through the NVIDIA 390.xx "
                              "Legacy drivers.", "NVRM: loading NVIDIA UNIX x86_64 Kernel "
                              "Module  396.26"])
    assert len(raw) == 2 and raw[0].endswith("is supported through the NVIDIA 390.xx Legacy "
                                             "drivers.")
    wrapped = ("NVRM: The NVIDIA GPU 000a:00:00.0 (PCI ID: 10de:2330) installed in this system\n"
               "      is not supported by the NVIDIA 580.126.09 driver release.\n")
    host = next(iter(_evidence(wrapped).snapshot.hosts.values()))
    assert "installed in this system is not supported by the NVIDIA 580" in host.cmds["dmesg.txt"]
    r = triage([("paste", wrapped)])
    assert r.causes[0].cause.code == "GX416"


@pytest.mark.parametrize(("line", "version"), [
    ("containerd containerd.io 1.4.12 7b11cfaabd73bb80907dd23182b9347b4245eb5d", (1, 4, 12)),
    ("containerd github.com/containerd/containerd/v2 v2.0.2 "
     "c507a0257ea6462fbd6f5ba4f5c74facb04021f4", (2, 0, 2))])
def test_containerd_version_line_sets_the_daemon_version(line: str,
                                                         version: tuple[int, int, int]) -> None:
    """containerd/containerd#6389 pasted `containerd --version` (Docker's package)."""
    from gpuxray.engines.containerd.host import host_version

    host = next(iter(_evidence("some text\n" + line + "\n").snapshot.hosts.values()))
    rv = host_version(host)
    assert rv.ver == version and not rv.assumed


@pytest.mark.parametrize("wrap", ["crlf", "quoted", "html"])
def test_whole_input_readers_see_the_paste_unwrapped(wrap: str) -> None:
    """The readers of a whole input (``containerd --version`` anywhere, line-anchored) read
    it as the part parsers and the signature scan do: CRLF line ends, a reply's ``> `` quote
    markers and HTML entities off (containerd/containerd#6389's paste, wrapped)."""
    from gpuxray.engines.containerd.host import host_version

    text = ("some text\ncontainerd containerd.io 1.4.12 7b11cfaabd73bb80907dd23182b9347b4245eb5d"
            "\nWarning  FailedCreatePodSandBox  5s  kubelet  Failed to create pod sandbox: rpc "
            'error: code = Unknown desc = failed to get sandbox runtime: no runtime for "nvidia" '
            "is configured\n")
    if wrap == "crlf":
        text = text.replace("\n", "\r\n")
    elif wrap == "quoted":
        text = "".join(f"> {ln}\n" for ln in text.splitlines())
    else:
        text = text.replace('"', "&quot;")
    host = next(iter(_evidence(text).snapshot.hosts.values()))
    assert host_version(host).ver == (1, 4, 12)
    assert triage([("paste", text)]).causes[0].cause.code == "GX501"


def test_pods_from_tables_are_bounded() -> None:
    from gpuxray.sources.pasted import MAX_TABLE_PODS

    text = "".join(f"nvidia-driver-daemonset-{i:06d}   0/1   CrashLoopBackOff  3   5m\n"
                   for i in range(MAX_TABLE_PODS + 100))
    assert len(_evidence(text).snapshot.pods) == MAX_TABLE_PODS


# ----- kubectl get runtimeclass ------------------------------------------------------------------
@pytest.mark.parametrize(("listing", "decided"), [
    ("$ kubectl get runtimeclass\nNo resources found\n", True),
    ("$ kubectl get runtimeclass\nNAME     HANDLER   AGE\nnvidia   nvidia    3d\n", False),
    ("```\nNAME     HANDLER   AGE\nkata     kata      3d\n```\n", True),
    ("", False)])
def test_runtimeclass_listing_decides_gx102(listing: str, decided: bool) -> None:
    """A pod naming ``runtimeClassName: nvidia`` against the pasted list of RuntimeClasses:
    kubectl's "No resources found" is an empty list, not a missing input (seed §4)."""
    pod = (REPO / "tests/data/mustgather/describe_pod_pending.txt").read_text().replace(
        "Namespace:", "Runtime Class Name:  nvidia\nNamespace:", 1)
    r = triage([("paste", pod + listing)])
    gx102 = [f for f in r.findings if f.code == "GX102" and "runtime_class" in f.params]
    assert bool(gx102) == decided
    if decided:
        assert r.causes[0].cause.code == "GX102" and gx102[0].params["runtime_class"] == "nvidia"


def test_a_log_runs_into_the_next_output_only_until_a_blank_line_and_a_describe() -> None:
    """A pasted `kubectl logs` with a node's Capacity after it, no prompt or fence between:
    the log part ends at the blank line; a blank line inside the log keeps it whole."""
    from gpuxray.sources.parsers.paste import split_paste

    log = ("$ kubectl logs -n kube-system coredns-7db6d8ff4d-8x2kq\n"
           "[INFO] plugin/reload: Running configuration SHA512 = 591cf328\n\n"
           "CoreDNS-1.11.1\n\n")
    parts = split_paste(log + "Capacity:\n  cpu:  32\n  nvidia.com/gpu:  8\nAllocatable:\n"
                        "  cpu:  32\n  nvidia.com/gpu:  7\n")
    assert [p.kind for p in parts] == ["pod-log", "describe-node"]
    assert "CoreDNS-1.11.1" in parts[0].text and "Capacity:" in parts[1].text
    assert [p.kind for p in split_paste(log + "linux/amd64, go1.20.7\n")] == ["pod-log"]


def test_the_reporters_sentences_around_an_output_are_parts_of_their_own() -> None:
    """Unfenced prose before and after a node's status YAML: the YAML part holds the YAML
    alone, so its parser reads it (k8s-device-plugin#58's paste, with words around it)."""
    from gpuxray.sources.parsers.paste import split_paste

    yaml_text = ("status:\n  allocatable:\n    nvidia.com/gpu: \"0\"\n  capacity:\n"
                 "    nvidia.com/gpu: \"8\"\n")
    text = ("Hi, I am trying to get GPUs working on our cluster.\nHere is what I see:\n\n"
            + yaml_text + "\nI already tried rebooting the node, but it did not help.\n")
    parts = split_paste(text)
    assert [p.kind for p in parts] == ["text", "node-status-yaml", "text"]
    assert parts[1].text.strip() == yaml_text.strip()
