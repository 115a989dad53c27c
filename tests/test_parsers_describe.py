"""``kubectl describe`` / ``get -o wide`` / prefixed-log parsers on real-format samples."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gpuxray.sources.parsers.describe import (
    parse_describe_nodes,
    parse_describe_pods,
    parse_toleration,
    rfc1123_to_iso,
)
from gpuxray.sources.parsers.prefixed_logs import split_prefixed_logs
from gpuxray.sources.parsers.wide import parse_wide, ready_counts, restart_count

DATA = Path(__file__).parent / "data" / "mustgather"


def _text(name: str) -> str:
    return (DATA / name).read_text()


def test_describe_node_fields() -> None:
    [d] = parse_describe_nodes(_text("describe_node_cordoned.txt"))
    n = d.node
    assert n.metadata.name == "gpu-node-7"
    assert d.roles == "worker"
    assert n.metadata.labels["nvidia.com/gpu.product"] == "NVIDIA-H100-80GB-HBM3"
    assert n.metadata.labels["node-role.kubernetes.io/worker"] == ""
    assert len(n.metadata.labels) == 7
    assert n.metadata.annotations["node.alpha.kubernetes.io/ttl"] == "0"
    nodeid = n.metadata.annotations["csi.volume.kubernetes.io/nodeid"]
    assert nodeid == '{"ebs.csi.aws.com":"i-0abc"}'
    assert n.metadata.creation_timestamp == "2026-11-02T08:15:41Z"  # +0100 normalised to UTC
    assert [(t.key, t.value, t.effect) for t in n.spec.taints] == [
        ("nvidia.com/gpu", "present", "NoSchedule"),
        ("node.kubernetes.io/unschedulable", "", "NoSchedule"),
        ("node.kubernetes.io/not-ready", "", "NoExecute")]
    assert n.spec.unschedulable is True
    ready = next(c for c in n.status.conditions if c.type == "Ready")
    assert (ready.status, ready.reason) == ("False", "KubeletNotReady")
    assert ready.message.startswith("container runtime network not ready")
    assert ready.last_transition_time == "2026-11-29T11:40:12Z"
    assert len(n.status.conditions) == 4
    assert n.status.capacity["nvidia.com/gpu"] == "8"
    assert n.status.allocatable["nvidia.com/gpu"] == "7"
    assert n.status.allocatable["cpu"] == "191500m"
    info = n.status.node_info
    assert (info.kernel_version, info.os_image, info.container_runtime_version,
            info.kubelet_version) == ("6.8.0-1019-aws", "Ubuntu 24.04.1 LTS",
                                      "containerd://2.0.2", "v1.32.1")


def test_describe_node_pods_allocated_events() -> None:
    [d] = parse_describe_nodes(_text("describe_node_cordoned.txt"))
    assert [(p.namespace, p.name) for p in d.pods] == [
        ("gpu-operator", "nvidia-driver-daemonset-x8k2m"),
        ("gpu-operator", "nvidia-device-plugin-daemonset-5hq9w"),
        ("kube-system", "kube-proxy-9zq7d"), ("research", "llm-finetune-0")]
    last = d.pods[-1]
    assert (last.cpu_requests, last.cpu_limits, last.memory_requests, last.memory_limits,
            last.age) == ("16 (8%)", "32 (16%)", "128Gi (6%)", "256Gi (12%)", "3d4h")
    assert d.allocated["nvidia.com/gpu"] == ("4", "4")
    assert d.allocated["cpu"] == ("16100m", "32")
    assert d.allocated["memory"] == ("128Gi", "256Gi")
    assert [e.reason for e in d.events] == ["NodeNotSchedulable", "ContainerGCFailed",
                                            "NodeNotReady", "InvalidDiskCapacity", "SystemOOM"]
    gc = d.events[1]
    assert (gc.type, gc.count, gc.source.component) == ("Warning", 3, "kubelet")
    assert gc.message.endswith("connect: connection refused\"")
    disk = d.events[3]
    assert (disk.source.component, disk.source.host) == ("kubelet", "gpu-node-7")
    oom = d.events[4]
    assert oom.message == ("System OOM encountered, victim process: python, pid: 881234\n"
                           "second line of that message")
    assert all(e.involved_object.kind == "Node" and e.involved_object.name == "gpu-node-7"
               for e in d.events)


def test_describe_pod_crashloop() -> None:
    [d] = parse_describe_pods(_text("describe_pod_driver_crashloop.txt"))
    p = d.pod
    assert (p.metadata.name, p.metadata.namespace) == ("nvidia-driver-daemonset-x8k2m",
                                                      "gpu-operator")
    assert p.spec.node_name == "gpu-node-7"
    assert p.status.phase == "Running"
    assert p.status.start_time == "2026-11-02T09:20:03Z"
    assert [(o.kind, o.name) for o in p.metadata.owner_references] == [
        ("DaemonSet", "nvidia-driver-daemonset")]
    assert p.metadata.labels["controller-revision-hash"] == "6bb8c7d9f5"
    assert [c.name for c in p.spec.init_containers] == ["k8s-driver-manager"]
    init = p.status.init_container_statuses[0]
    assert init.state.terminated is not None and init.state.terminated.exit_code == 0
    assert init.ready is True
    [c] = p.spec.containers
    assert c.image == "nvcr.io/nvidia/driver:580.95.05-ubuntu24.04"
    assert c.resources.limits == {"cpu": "2", "memory": "4Gi"}
    assert c.resources.requests == {"cpu": "500m", "memory": "1Gi"}
    [cs] = p.status.container_statuses
    assert cs.state.waiting is not None and cs.state.waiting.reason == "CrashLoopBackOff"
    last = cs.last_state.terminated
    assert last is not None
    assert (last.reason, last.exit_code) == ("Error", 1)
    assert "Key was rejected by service" in last.message
    assert last.finished_at == "2026-11-29T11:50:40Z"
    assert (cs.ready, cs.restart_count) == (False, 14)
    assert {x.type: x.status for x in p.status.conditions}["Ready"] == "False"
    assert len(p.status.conditions) == 5
    assert p.spec.node_selector == {"nvidia.com/gpu.deploy.driver": "true"}
    tol = [(t.key, t.operator, t.value, t.effect) for t in p.spec.tolerations]
    assert ("nvidia.com/gpu", "Exists", "", "NoSchedule") in tol
    assert ("dedicated", "Equal", "gpu", "NoSchedule") in tol
    assert len(tol) == 4
    assert [(e.reason, e.count) for e in d.events] == [("Pulled", 14), ("BackOff", 210)]
    assert d.events[1].involved_object.name == p.metadata.name
    assert d.qos_class == "Burstable"


def test_describe_pod_pending_unbound() -> None:
    [d] = parse_describe_pods(_text("describe_pod_pending.txt"))
    p = d.pod
    assert p.spec.node_name == ""
    assert p.status.phase == "Pending"
    assert p.spec.containers[0].resources.limits == {"nvidia.com/gpu": "2"}
    assert p.spec.containers[0].resources.requests["nvidia.com/gpu"] == "2"
    assert p.status.container_statuses == []
    assert p.spec.node_selector == {"nvidia.com/gpu.product": "NVIDIA-H100-80GB-HBM3"}
    assert [t.toleration_seconds for t in p.spec.tolerations] == [300, 300, None]
    [ev] = d.events
    assert (ev.type, ev.reason, ev.count, ev.source.component) == (
        "Warning", "FailedScheduling", 9, "default-scheduler")
    assert "3 Insufficient nvidia.com/gpu" in ev.message


def test_several_nodes_and_junk() -> None:
    text = _text("describe_node_cordoned.txt")
    two = text + "\n\n" + text.replace("gpu-node-7", "gpu-node-8")
    assert [d.node.metadata.name for d in parse_describe_nodes(two)] == ["gpu-node-7",
                                                                         "gpu-node-8"]
    assert parse_describe_nodes("") == []
    assert parse_describe_nodes("\x00\x01garbage\nName:\n  junk") == []
    assert parse_describe_pods("Error from server (NotFound): pods \"x\" not found\n") == []


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=400))
def test_parsers_never_raise(text: str) -> None:
    parse_describe_nodes(text)
    parse_describe_pods(text)
    parse_wide(text)
    split_prefixed_logs(text, "c")
    parse_describe_nodes("Name:  n\n" + text)
    parse_describe_pods("Name:  p\nContainers:\n  c:\n" + text)


@pytest.mark.parametrize(("text", "expected"), [
    ("node.kubernetes.io/not-ready:NoExecute op=Exists for 300s",
     ("node.kubernetes.io/not-ready", "Exists", "", "NoExecute", 300)),
    ("dedicated=gpu:NoSchedule", ("dedicated", "Equal", "gpu", "NoSchedule", None)),
    ("op=Exists", ("", "Exists", "", "", None)),
    ("nvidia.com/gpu op=Exists", ("nvidia.com/gpu", "Exists", "", "", None)),
])
def test_toleration_format(text: str, expected: tuple[object, ...]) -> None:
    t = parse_toleration(text)
    assert (t.key, t.operator, t.value, t.effect, t.toleration_seconds) == expected


def test_rfc1123() -> None:
    assert rfc1123_to_iso("Sun, 29 Nov 2026 11:59:58 +0000") == "2026-11-29T11:59:58Z"
    assert rfc1123_to_iso("Mon, 01 Jan 0001 00:00:00 +0000") is None  # Go zero time = unset
    assert rfc1123_to_iso("<unset>") is None


def test_wide_nodes_columns_with_spaces() -> None:
    rows = parse_wide(_text("gpu_nodes_wide.status"))
    assert [r["NAME"] for r in rows] == ["gpu-node-6", "gpu-node-7"]
    assert rows[1]["STATUS"] == "NotReady,SchedulingDisabled"
    assert rows[1]["OS-IMAGE"] == "Ubuntu 24.04.1 LTS"
    assert rows[1]["CONTAINER-RUNTIME"] == "containerd://2.0.2"
    assert rows[0]["EXTERNAL-IP"] == "<none>"


def test_wide_pods_nominated_and_restarts() -> None:
    rows = {r["NAME"]: r for r in parse_wide(_text("gpu_operand_pods_wide.status"))}
    assert len(rows) == 5
    drv = rows["nvidia-driver-daemonset-x8k2m"]
    assert drv["STATUS"] == "CrashLoopBackOff"
    assert restart_count(drv["RESTARTS"]) == 14
    assert ready_counts(drv["READY"]) == (0, 1)
    assert rows["nvidia-operator-validator-b2kqz"]["STATUS"] == "Init:CrashLoopBackOff"
    pend = rows["nvidia-cuda-validator-pending"]
    assert (pend["NODE"], pend["NOMINATED NODE"], pend["READINESS GATES"]) == (
        "<none>", "<none>", "<none>")
    assert parse_wide("No resources found in gpu-operator namespace.\n") == []


def test_prefixed_logs_split_per_container() -> None:
    text = ("[pod/nvidia-driver-daemonset-x8k2m/k8s-driver-manager] Getting current value\n"
            "[pod/nvidia-driver-daemonset-x8k2m/nvidia-driver-ctr] DRIVER_ARCH is x86_64\n"
            "[pod/nvidia-driver-daemonset-x8k2m/nvidia-driver-ctr] Could not resolve Linux "
            "kernel version\n"
            "continuation without prefix\n"
            "[pod/nvidia-driver-daemonset-x8k2m/k8s-driver-manager] done\n")
    parts = split_prefixed_logs(text)
    assert parts[("nvidia-driver-daemonset-x8k2m", "k8s-driver-manager")] == (
        "Getting current value\ndone\n")
    assert parts[("nvidia-driver-daemonset-x8k2m", "nvidia-driver-ctr")].splitlines() == [
        "DRIVER_ARCH is x86_64", "Could not resolve Linux kernel version",
        "continuation without prefix"]
    assert split_prefixed_logs("plain line\n", "gpu-operator") == {
        ("", "gpu-operator"): "plain line\n"}
    assert split_prefixed_logs("plain line\n") == {}


DS_DESCRIBE = """\
Name:           nvidia-device-plugin-daemonset
Selector:       app=nvidia-device-plugin-daemonset
Node-Selector:  nvidia.com/gpu.deploy.device-plugin=true
Labels:         app=nvidia-device-plugin-daemonset
Annotations:    deprecated.daemonset.template.generation: 1
Desired Number of Nodes Scheduled: 3
Current Number of Nodes Scheduled: 2
Number of Nodes Scheduled with Up-to-date Pods: 2
Number of Nodes Scheduled with Available Pods: 2
Number of Nodes Misscheduled: 0
Pods Status:  2 Running / 0 Waiting / 0 Succeeded / 0 Failed
Pod Template:
  Labels:           app=nvidia-device-plugin-daemonset
  Service Account:  nvidia-device-plugin
  Containers:
   nvidia-device-plugin:
    Image:      nvcr.io/nvidia/k8s-device-plugin:v0.18.0
    Port:       <none>
Events:
  Type     Reason        Age                 From                  Message
  ----     ------        ----                ----                  -------
  Warning  FailedCreate  2m (x12 over 40m)   daemonset-controller  Error creating: pods "nvidia-device-plugin-daemonset-" is forbidden: exceeded quota: pods-per-ns, requested: pods=1, used: pods=20, limited: pods=20
"""  # noqa: E501


def test_daemonset_describe_events() -> None:
    from gpuxray.sources.parsers.describe import parse_describe_events

    [e] = parse_describe_events(DS_DESCRIBE, "DaemonSet")
    assert (e.involved_object.kind, e.involved_object.name) == (
        "DaemonSet", "nvidia-device-plugin-daemonset")
    assert (e.reason, e.count, e.source.component) == ("FailedCreate", 12,
                                                       "daemonset-controller")
    assert e.message.endswith("limited: pods=20")
