"""Pasted ``kubectl get nodes|ds|deploy|events`` tables in every layout kubectl prints (plain,
``-o wide``, ``-A``, ``--show-labels``, header cut by ``grep``, the ``kubectl events`` command,
the pre-1.14 events layout) become the objects the bundle checks read; and the ways tickets
mangle a paste (ANSI colours, CRLF, ``> `` quotes, GitHub tables, ``<details>``, line numbers)
are undone before any parser reads it."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from gpuxray.checks.engine import run_all
from gpuxray.diagnose.triage import triage
from gpuxray.model.finding import Status
from gpuxray.sources.parsers import cleanup, paste, tables
from gpuxray.sources.pasted import TextInput, paste_evidence


def _evidence(text: str):  # type: ignore[no-untyped-def]
    return paste_evidence([TextInput("paste", text)])


def _fails(text: str) -> dict[str, list[str]]:
    """Code → subjects of the failing findings triage keeps from the checks."""
    ev = _evidence(text)
    out: dict[str, list[str]] = {}
    for f in run_all(ev.snapshot):
        if f.status is Status.FAIL and not ev.reads_unpasted(f):
            out.setdefault(f.code, []).append(f.subject.name)
    return out


# ----- nodes ---------------------------------------------------------------------------------
NODES_WIDE = """\
NAME     STATUS                     ROLES           AGE    VERSION   INTERNAL-IP   EXTERNAL-IP   OS-IMAGE             KERNEL-VERSION       CONTAINER-RUNTIME
cp-1     Ready,SchedulingDisabled   control-plane   120d   v1.30.4   10.0.0.4      <none>        Ubuntu 22.04.4 LTS   5.15.0-105-generic   containerd://1.7.13
gpu-1    NotReady                   <none>          12d    v1.30.4   10.0.0.5      <none>        Ubuntu 22.04.4 LTS   5.15.0-105-generic   containerd://1.7.13
"""  # noqa: E501


def test_nodes_table_rows_in_each_layout() -> None:
    wide = tables.parse_node_rows(NODES_WIDE)
    assert [(r.name, r.ready, r.unschedulable, r.roles) for r in wide] == [
        ("cp-1", "True", True, ("control-plane",)), ("gpu-1", "False", False, ())]
    assert (wide[1].internal_ip, wide[1].os_image, wide[1].kernel, wide[1].runtime) == (
        "10.0.0.5", "Ubuntu 22.04.4 LTS", "5.15.0-105-generic", "containerd://1.7.13")
    assert all(r.labels is None for r in wide)
    plain = tables.parse_node_rows("NAME STATUS ROLES AGE VERSION\n"
                                   "gpu-2   Unknown   worker   3d4h   v1.28.2-eks-1\n")
    assert [(r.name, r.ready, r.version) for r in plain] == [("gpu-2", "Unknown", "v1.28.2-eks-1")]
    old = tables.parse_node_rows("NAME      STATUS    AGE       VERSION\n"
                                 "gpu-4     Ready     3d        v1.8.4\n")
    assert [(r.name, r.ready, r.roles, r.version) for r in old] == [
        ("gpu-4", "True", (), "v1.8.4")]
    labelled = tables.parse_node_rows(
        "gpu-3   Ready   <none>   5d   v1.29.1   "
        "feature.node.kubernetes.io/pci-10de.present=true,nvidia.com/gpu.present=true\n")
    assert labelled[0].labels == {"feature.node.kubernetes.io/pci-10de.present": "true",
                                  "nvidia.com/gpu.present": "true"}


def test_nodes_table_becomes_nodes_without_inventing_capacity() -> None:
    ev = _evidence("$ kubectl get nodes -o wide\n" + NODES_WIDE)
    nodes = {n.metadata.name: n for n in ev.snapshot.nodes}
    assert set(nodes) == {"cp-1", "gpu-1"}
    assert nodes["gpu-1"].status.conditions[0].status == "False"
    assert nodes["cp-1"].spec.unschedulable
    assert nodes["gpu-1"].status.node_info.kernel_version == "5.15.0-105-generic"
    assert ev.capacity_unknown == {"cp-1", "gpu-1"}
    assert ev.labels_unknown == {"cp-1", "gpu-1"}  # ROLES is not the label set


def test_show_labels_feed_the_label_checks_but_not_the_count_checks() -> None:
    unlabelled = ("$ kubectl get nodes --show-labels\nNAME STATUS ROLES AGE VERSION LABELS\n"
                  "gpu-1   Ready   <none>   12d   v1.29.3   "
                  "feature.node.kubernetes.io/pci-10de.present=true,kubernetes.io/os=linux\n")
    assert _fails(unlabelled) == {"GX401": ["gpu-1"]}  # pci-10de without gpu.present
    counted = ("gpu-1   Ready   <none>   12d   v1.29.3   feature.node.kubernetes.io/pci-10de."
               "present=true,nvidia.com/gpu.present=true,nvidia.com/gpu.count=8\n")
    # a count label of 8 and no capacity pasted: not "advertises 0 of 8" (GX604)
    assert "GX604" not in _fails(counted)
    assert "GX604" not in [c.cause.code for c in triage([("p", counted)]).causes]


def test_a_describe_keeps_its_node_and_a_row_adds_its_labels() -> None:
    text = ("$ kubectl describe node gpu-1\nName:  gpu-1\nCapacity:\n  nvidia.com/gpu:  8\n"
            "Allocatable:\n  nvidia.com/gpu:  6\n"
            "$ kubectl get nodes --show-labels\n"
            "gpu-1   Ready   <none>   12d   v1.29.3   nvidia.com/gpu.present=true\n")
    ev = _evidence(text)
    (node,) = ev.snapshot.nodes
    assert node.status.capacity["nvidia.com/gpu"] == "8"
    assert node.metadata.labels == {"nvidia.com/gpu.present": "true"}
    assert ev.capacity_unknown == set() and ev.labels_unknown == set()
    assert "GX203" in [c.cause.code for c in triage([("p", text)]).causes][:1]


# ----- DaemonSets and Deployments ------------------------------------------------------------
DS_A_WIDE = """\
NAMESPACE      NAME                                DESIRED   CURRENT   READY   UP-TO-DATE   AVAILABLE   NODE SELECTOR                              AGE   CONTAINERS                IMAGES                                              SELECTOR
gpu-operator   nvidia-driver-daemonset             5         5         3       5            3           nvidia.com/gpu.deploy.driver=true          9d    nvidia-driver-ctr         nvcr.io/nvidia/driver:550.90.07                     app=nvidia-driver-daemonset
gpu-operator   nvidia-device-plugin-daemonset      5         5         5       5            5           nvidia.com/gpu.deploy.device-plugin=true   9d    nvidia-device-plugin      nvcr.io/nvidia/k8s-device-plugin:v0.16.2           app=nvidia-device-plugin-daemonset
kube-system    kube-proxy                          7         7         7       7            7           kubernetes.io/os=linux                     90d   kube-proxy                registry.k8s.io/kube-proxy:v1.30.4                 k8s-app=kube-proxy
"""  # noqa: E501


def test_ds_rows_in_each_layout() -> None:
    rows = tables.parse_ds_rows(DS_A_WIDE)
    assert [(r.namespace, r.name, r.desired, r.ready, r.available) for r in rows] == [
        ("gpu-operator", "nvidia-driver-daemonset", 5, 3, 3),
        ("gpu-operator", "nvidia-device-plugin-daemonset", 5, 5, 5),
        ("kube-system", "kube-proxy", 7, 7, 7)]
    assert rows[0].node_selector == {"nvidia.com/gpu.deploy.driver": "true"}
    assert rows[0].containers == (("nvidia-driver-ctr", "nvcr.io/nvidia/driver:550.90.07"),)
    # `kubectl get ds -A | grep nvid`: no header, the NAMESPACE cell still read by shape
    grepped = tables.parse_ds_rows(
        "nvidia-device-plugin   nvdp-nvidia-device-plugin   0   0   0   0   0   <none>   4m20s\n")
    assert [(r.namespace, r.name, r.desired, r.node_selector) for r in grepped] == [
        ("nvidia-device-plugin", "nvdp-nvidia-device-plugin", 0, {})]
    plain = tables.parse_ds_rows("NAME DESIRED CURRENT READY UP-TO-DATE AVAILABLE NODE SELECTOR AGE"
                                 "\ngpu-feature-discovery   2   2   1   2   1   <none>   3h\n")
    assert [(r.namespace, r.ready) for r in plain] == [("", 1)]


def test_ds_table_becomes_daemonsets_in_the_operator_namespace() -> None:
    ev = _evidence("$ kubectl get ds -A -o wide\n" + DS_A_WIDE)
    snap = ev.snapshot
    by = {d.metadata.name: d for d in snap.daemonsets}
    drv = by["nvidia-driver-daemonset"]
    assert (drv.metadata.namespace, drv.status.desired_number_scheduled,
            drv.status.number_ready, drv.status.number_unavailable) == ("gpu-operator", 5, 3, 2)
    assert drv.spec.template.spec.containers[0].image == "nvcr.io/nvidia/driver:550.90.07"
    assert [o.kind for o in drv.metadata.owner_references] == ["ClusterPolicy"]
    assert by["kube-proxy"].metadata.owner_references == []
    assert snap.operator_namespace == "gpu-operator"
    assert ev.spec_unknown == set(by)
    # an operand DaemonSet listed without a namespace is the operator's
    bare = _evidence("nvidia-operator-validator   1   1   0   1   0   "
                     "nvidia.com/gpu.deploy.operator-validator=true   2d\n").snapshot
    assert [(d.metadata.namespace, d.status.number_ready) for d in bare.daemonsets] == [
        ("gpu-operator", 0)]


def test_a_dra_plugin_daemonset_with_fewer_ready_than_desired_is_gx415() -> None:
    text = ("$ kubectl get ds -n nvidia-dra-driver-gpu\n"
            "NAME                                  DESIRED   CURRENT   READY   UP-TO-DATE   "
            "AVAILABLE   NODE SELECTOR   AGE\n"
            "nvidia-dra-driver-gpu-kubelet-plugin  4         4         1       4            "
            "1           <none>          1h\n")
    ev = _evidence(text)
    (f,) = [f for f in run_all(ev.snapshot) if f.code == "GX415" and f.status is Status.FAIL]
    assert (f.subject.namespace, f.params["ready"], f.params["desired"]) == (
        "nvidia-dra-driver-gpu", 1, 4)
    assert [c.cause.code for c in triage([("p", text)]).causes][:1] == ["GX415"]


def test_a_tainted_node_and_a_ds_row_do_not_make_an_untolerated_taint() -> None:
    """A `get ds` row does not show tolerations: GX402 needs the DaemonSet's spec."""
    text = ("$ kubectl describe node gpu-1\nName:   gpu-1\nTaints:  gpu=true:NoSchedule\n"
            "Capacity:\n  nvidia.com/gpu:  0\nAllocatable:\n  nvidia.com/gpu:  0\n"
            "$ kubectl get ds -n gpu-operator\n"
            "nvidia-device-plugin-daemonset   1   1   1   1   1   <none>   9d\n")
    ev = _evidence(text)
    raw = [f for f in run_all(ev.snapshot) if f.code == "GX402" and f.status is Status.FAIL]
    assert raw and all(ev.reads_unpasted(f) for f in raw)
    assert "GX402" not in _fails(text)


def test_deploy_rows_are_deployments_not_pods() -> None:
    text = ("$ kubectl get deploy -A\n"
            "NAMESPACE      NAME           READY   UP-TO-DATE   AVAILABLE   AGE\n"
            "gpu-operator   gpu-operator   0/1     1            0           3d\n")
    snap = _evidence(text).snapshot
    assert snap.pods == []
    (d,) = snap.deployments
    assert (d.metadata.namespace, d.metadata.name, d.status.ready_replicas, d.spec.replicas) == (
        "gpu-operator", "gpu-operator", 0, 1)
    old = tables.parse_deploy_rows("NAME  DESIRED  CURRENT  UP-TO-DATE  AVAILABLE  AGE\n"
                                   "gpu-operator   1   1   1   0   50d\n")
    assert [(r.name, r.replicas, r.available) for r in old] == [("gpu-operator", 1, 0)]


# ----- events --------------------------------------------------------------------------------
@pytest.mark.parametrize(("layout", "text"), [
    ("get-events", "LAST SEEN   TYPE      REASON    OBJECT                              MESSAGE\n"
                   "2m          Warning   BackOff   pod/nvidia-driver-daemonset-7xk2p   "
                   "Back-off restarting failed container\n"),
    ("kubectl-events", "NAMESPACE      LAST SEEN           TYPE      REASON    OBJECT        "
                       "                      MESSAGE\n"
                       "gpu-operator   2m (x12 over 30m)   Warning   BackOff   "
                       "pod/nvidia-driver-daemonset-7xk2p   "
                       "Back-off restarting failed container\n"),
    ("headerless", "gpu-operator   2m (x12 over 30m)   Warning   BackOff   "
                   "pod/nvidia-driver-daemonset-7xk2p   Back-off restarting failed container\n"),
    ("wide", "LAST SEEN   TYPE      REASON    OBJECT                              SUBOBJECT     "
             "                       SOURCE             MESSAGE                                "
             "FIRST SEEN   COUNT   NAME\n"
             "2m          Warning   BackOff   pod/nvidia-driver-daemonset-7xk2p   "
             "spec.containers{nvidia-driver-ctr}   kubelet, gpu-1     Back-off restarting "
             "failed container   30m          12      nvidia-driver-daemonset-7xk2p.17f3a\n"),
    ("before-1.14", "LAST SEEN   FIRST SEEN   COUNT   NAME                            KIND   "
                    "SUBOBJECT                          TYPE      REASON    SOURCE           "
                    "MESSAGE\n"
                    "2m          30m          12      nvidia-driver-daemonset-7xk2p   Pod    "
                    "spec.containers{nvidia-driver-ctr}   Warning   BackOff   kubelet, gpu-1   "
                    "Back-off restarting failed container\n"),
])
def test_event_tables_in_every_layout(layout: str, text: str) -> None:
    (e,) = _evidence(text).snapshot.events
    assert (e.involved_object.kind, e.involved_object.name, e.reason, e.type) == (
        "Pod", "nvidia-driver-daemonset-7xk2p", "BackOff", "Warning")
    assert e.message == "Back-off restarting failed container"
    assert e.count == (1 if layout == "get-events" else 12)
    if layout in ("wide", "before-1.14"):
        assert (e.source.component, e.source.host) == ("kubelet", "gpu-1")


def test_event_objects_keep_their_kind() -> None:
    rows = tables.parse_event_rows(
        "5m   Warning   FailedCreate   daemonset.apps/nvidia-device-plugin-daemonset   "
        "Error creating: pods is forbidden\n"
        "1s   Normal    NodeReady      node/gpu-1   Node gpu-1 status is now: NodeReady\n")
    assert [(r.kind, r.name) for r in rows] == [
        ("DaemonSet", "nvidia-device-plugin-daemonset"), ("Node", "gpu-1")]


# ----- how pastes are mangled ----------------------------------------------------------------
POD_TABLE = ["NAME                            READY   STATUS             RESTARTS   AGE",
             "nvidia-driver-daemonset-7xk2p   0/1     CrashLoopBackOff   12         40m",
             "nvidia-operator-validator-x2   0/1     Init:0/4           0          40m"]


def _pods(text: str) -> list[tuple[str, str]]:
    snap = _evidence(text).snapshot
    return sorted((p.metadata.name, p.status.phase) for p in snap.pods)


@pytest.mark.parametrize("mangle", ["ansi", "crlf", "quoted", "github-table", "details",
                                    "numbered", "html-entities"])
def test_mangled_pastes_read_as_the_clean_one(mangle: str) -> None:
    clean = "$ kubectl get pods -n gpu-operator\n" + "\n".join(POD_TABLE) + "\n"
    lines = clean.splitlines()
    if mangle == "ansi":
        text = "\n".join(f"\x1b[1;32m{ln}\x1b[0m\x1b]0;title\x07" for ln in lines)
    elif mangle == "crlf":
        text = "\r\n".join(lines) + "\r\n"
    elif mangle == "quoted":
        text = "\n".join("> " + ln for ln in lines)
    elif mangle == "github-table":
        rows = [ln.split() for ln in POD_TABLE]
        text = lines[0] + "\n" + "| " + " | ".join(rows[0]) + " |\n" + \
            "|" + "---|" * len(rows[0]) + "\n" + \
            "\n".join("| " + " | ".join(r) + " |" for r in rows[1:])
    elif mangle == "details":
        text = "<details><summary>kubectl get pods -n gpu-operator</summary>\n<pre>\n" + \
            "\n".join(POD_TABLE) + "\n</pre>\n</details>\n"
    elif mangle == "numbered":
        text = "\n".join(f"{i:6d}\t{ln}" for i, ln in enumerate(lines, 1))
    else:
        text = clean.replace("Init:0/4", "Init:0&#x2F;4").replace("$ kubectl", "&gt; kubectl") \
            .replace("Init:0&#x2F;4", "Init:0/4")
    want = _pods(clean)
    assert want == [("nvidia-driver-daemonset-7xk2p", "Running"),
                    ("nvidia-operator-validator-x2", "Pending")]
    assert _pods(text) == want


def test_cleanup_keeps_the_line_count_and_leaves_clean_text_alone() -> None:
    text = ["+-----+------+", "| GPU | Name |", "|=====+======|", "|  0  | H100 |",
            "[  12.000] NVRM: loading", "1/1 Running", "time=x level=info"]
    assert cleanup.clean_lines(text) == text  # nvidia-smi boxes are not markdown tables
    mangled = ["\x1b[31mred\x1b[0m", "> a", "> b", "<details>", "x\r"]
    assert cleanup.clean_lines(mangled) == ["red", "a", "b", "", "x"]
    short = ["1 one", "2 two", "3 three"]  # fewer than five numbered lines: output, kept
    assert cleanup.clean_lines(short) == short


def test_multiple_commands_in_one_fence_are_separate_parts() -> None:
    text = ("```\n$ kubectl get nodes\n" + NODES_WIDE + "$ kubectl get ds -n gpu-operator\n"
            "nvidia-driver-daemonset   1   1   0   1   0   <none>   9d\n```\n")
    kinds = [p.kind for p in paste.split_paste(text)]
    assert kinds == [paste.GET_TABLE, paste.GET_TABLE]
    snap = _evidence(text).snapshot
    assert len(snap.nodes) == 2 and [d.status.number_ready for d in snap.daemonsets] == [0]


# ----- kubectl describe ds -------------------------------------------------------------------
def _describe_ds(ready: int, tolerations: bool) -> str:
    """``kubectl describe ds`` as kubectl's describeDaemonSet/DescribePodTemplate print it
    (kubernetes/kubectl@v0.34.0:pkg/describe/describe.go); ``tolerations``: the template's
    Node-Selectors and Tolerations lines, printed since kubectl 1.30."""
    lines = [
        "Name:           nvidia-device-plugin-daemonset",
        "Namespace:      gpu-operator",
        "Selector:       app=nvidia-device-plugin-daemonset",
        "Node-Selector:  nvidia.com/gpu.deploy.device-plugin=true",
        "Labels:         app=nvidia-device-plugin-daemonset",
        "Annotations:    deprecated.daemonset.template.generation: 1",
        "Desired Number of Nodes Scheduled: 3",
        "Current Number of Nodes Scheduled: 3",
        "Number of Nodes Scheduled with Up-to-date Pods: 3",
        f"Number of Nodes Scheduled with Available Pods: {ready}",
        "Number of Nodes Misscheduled: 0",
        f"Pods Status:  {ready} Running / {3 - ready} Waiting / 0 Succeeded / 0 Failed",
        "Pod Template:",
        "  Labels:           app=nvidia-device-plugin-daemonset",
        "  Service Account:  nvidia-device-plugin",
        "  Init Containers:",
        "   toolkit-validation:",
        "    Image:      nvcr.io/nvidia/cloud-native/gpu-operator-validator:v24.9.0",
        "  Containers:",
        "   nvidia-device-plugin:",
        "    Image:      nvcr.io/nvidia/k8s-device-plugin:v0.17.0",
        "  Volumes:",
        "   device-plugin:",
        "    Type:          HostPath (bare host directory volume)",
        "  Priority Class Name:  system-node-critical",
    ]
    if tolerations:
        lines += ["  Node-Selectors:       nvidia.com/gpu.deploy.device-plugin=true",
                  "  Tolerations:          nvidia.com/gpu:NoSchedule op=Exists",
                  "                        node.kubernetes.io/not-ready:NoExecute op=Exists"]
    lines += ["Events:", "  Type    Reason            Age   From                  Message",
              "  ----    ------            ----  ----                  -------",
              "  Normal  SuccessfulCreate  5m    daemonset-controller  Created pod: x"]
    return "\n".join(lines) + "\n"


def test_describe_ds_becomes_the_daemonset() -> None:
    text = _describe_ds(ready=1, tolerations=True)
    assert [p.kind for p in paste.split_paste(text)] == [paste.DESCRIBE_OTHER]
    ev = _evidence("$ kubectl describe ds -n gpu-operator\n" + text)
    (ds,) = ev.snapshot.daemonsets
    st = ds.status
    assert (st.desired_number_scheduled, st.number_available, st.number_ready,
            st.number_unavailable) == (3, 1, 1, 2)
    spec = ds.spec.template.spec
    assert spec.node_selector == {"nvidia.com/gpu.deploy.device-plugin": "true"}
    assert [(c.name, c.image) for c in spec.containers] == [
        ("nvidia-device-plugin", "nvcr.io/nvidia/k8s-device-plugin:v0.17.0")]
    assert [c.name for c in spec.init_containers] == ["toolkit-validation"]
    assert [(t.key, t.operator, t.effect) for t in spec.tolerations] == [
        ("nvidia.com/gpu", "Exists", "NoSchedule"),
        ("node.kubernetes.io/not-ready", "Exists", "NoExecute")]
    assert ev.spec_unknown == set()
    assert [e.reason for e in ev.snapshot.events] == ["SuccessfulCreate"]


@pytest.mark.parametrize("printed", [True, False])
def test_described_tolerations_decide_gx402_only_when_kubectl_printed_them(printed: bool) -> None:
    node = ("$ kubectl describe node gpu-1\nName:   gpu-1\nLabels:  "
            "nvidia.com/gpu.deploy.device-plugin=true\n         nvidia.com/gpu.present=true\n"
            "Taints:  dedicated=gpu:NoSchedule\n"
            "Capacity:\n  nvidia.com/gpu:  0\nAllocatable:\n  nvidia.com/gpu:  0\n")
    text = node + "$ kubectl describe ds -n gpu-operator\n" + _describe_ds(0, printed)
    assert ("GX402" in _fails(text)) is printed
    ev = _evidence(text)
    assert ev.spec_unknown == (set() if printed else {"nvidia-device-plugin-daemonset"})


# ----- describe output as tickets mangle it --------------------------------------------------
DATA = Path(__file__).parent / "data" / "mustgather"


def _mangle(text: str, how: str) -> str:
    lines = text.splitlines()
    if how == "tabs":  # one tab per kubectl level (an editor's conversion)
        return "\n".join(re.sub(r"^( +)", lambda m: "\t" * (len(m.group(1)) // 2), ln)
                         for ln in lines)
    if how == "no-indent":  # chat clients drop leading blanks
        return "\n".join(ln.strip() for ln in lines)
    if how == "quoted":
        return "\n".join("> " + ln for ln in lines)
    assert how == "crlf-ansi"
    return "\r\n".join(f"\x1b[0m{ln}" for ln in lines)


MANGLES = ["tabs", "no-indent", "quoted", "crlf-ansi"]


@pytest.mark.parametrize("how", MANGLES)
def test_a_mangled_describe_pod_keeps_its_containers(how: str) -> None:
    text = (DATA / "describe_pod_driver_crashloop.txt").read_text()
    (pod,) = _evidence(_mangle(text, how)).snapshot.pods
    (c,) = pod.spec.containers
    (st,) = pod.status.container_statuses
    assert (c.name, c.image, c.resources.limits) == (
        "nvidia-driver-ctr", "nvcr.io/nvidia/driver:580.95.05-ubuntu24.04",
        {"cpu": "2", "memory": "4Gi"})
    assert (st.restart_count, st.state.waiting.reason if st.state.waiting else "") == (
        14, "CrashLoopBackOff")
    assert st.last_state.terminated is not None and st.last_state.terminated.exit_code == 1
    (gpu_pod,) = _evidence(_mangle((DATA / "describe_pod_pending.txt").read_text(),
                                   how)).snapshot.pods
    assert gpu_pod.spec.containers[0].resources.limits == {"nvidia.com/gpu": "2"}


@pytest.mark.parametrize("how", MANGLES)
def test_a_mangled_describe_node_keeps_its_arithmetic(how: str) -> None:
    text = (DATA / "describe_node_cordoned.txt").read_text()
    (node,) = _evidence(_mangle(text, how)).snapshot.nodes
    assert (node.status.capacity["nvidia.com/gpu"], node.status.allocatable["nvidia.com/gpu"],
            node.status.described_allocated["nvidia.com/gpu"]) == ("8", "7", "4")
    assert len(node.spec.taints) == 3


def test_a_describe_cut_mid_block_keeps_what_it_shows() -> None:
    lines = (DATA / "describe_node_cordoned.txt").read_text().splitlines()
    cut = next(i for i, ln in enumerate(lines) if ln.startswith("Allocatable:")) + 2
    (node,) = _evidence("\n".join(lines[:cut])).snapshot.nodes
    assert node.status.capacity["nvidia.com/gpu"] == "8"
    assert node.status.described_allocated == {}  # not pasted, not zero
    pod_lines = (DATA / "describe_pod_driver_crashloop.txt").read_text().splitlines()
    end = next(i for i, ln in enumerate(pod_lines) if "Restart Count:  14" in ln) + 1
    (pod,) = _evidence("\n".join(pod_lines[:end])).snapshot.pods
    assert pod.status.container_statuses[0].restart_count == 14
