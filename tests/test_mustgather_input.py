"""Hand-made must-gather directories (real-format samples, no YAML) and hostile input."""

from __future__ import annotations

import gzip
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from gpuxray.model.snapshot import Input
from gpuxray.sources import mustgather
from gpuxray.sources.bundle import open_bundle

DATA = Path(__file__).parent / "data" / "mustgather"

DS_STATUS = """\
NAME                             DESIRED   CURRENT   READY   UP-TO-DATE   AVAILABLE   NODE SELECTOR                                 AGE
nvidia-device-plugin-daemonset   2         2         1       2            1           nvidia.com/gpu.deploy.device-plugin=true      27d
nvidia-driver-daemonset          2         2         1       2            1           nvidia.com/gpu.deploy.driver=true             27d
"""  # noqa: E501

LABELS = """\
gpu-node-6
- kubernetes.io/hostname=gpu-node-6
- nvidia.com/gpu.present=true

gpu-node-7
- kubernetes.io/hostname=gpu-node-7
- nvidia.com/gpu.present=true
- nvidia.com/mig.config.state=success

"""


def _mg(root: Path) -> Path:
    """A must-gather without any YAML: describe text, status tables, labels and logs only."""
    root.mkdir(parents=True, exist_ok=True)
    (root / "cluster_policy.missing").touch()
    (root / "gpu_nodes.descr").write_text((DATA / "describe_node_cordoned.txt").read_text())
    (root / "gpu_nodes.status").write_text((DATA / "gpu_nodes_wide.status").read_text())
    (root / "gpu_nodes.labels").write_text(LABELS)
    (root / "gpu_operand_pods.status").write_text(
        (DATA / "gpu_operand_pods_wide.status").read_text())
    pod = "nvidia-driver-daemonset-x8k2m"
    (root / f"gpu_operand_pod_{pod}.descr").write_text(
        (DATA / "describe_pod_driver_crashloop.txt").read_text())
    (root / f"gpu_operand_pod_{pod}.log").write_text(
        f"[pod/{pod}/k8s-driver-manager] Getting current value of the 'nvidia.com/gpu.deploy."
        f"operator-validator' node label\n[pod/{pod}/nvidia-driver-ctr] DRIVER_ARCH is x86_64\n"
        f"[pod/{pod}/nvidia-driver-ctr] modprobe: ERROR: could not insert 'nvidia': Key was "
        "rejected by service\n")
    (root / f"gpu_operand_pod_{pod}.previous.log").write_text("")
    (root / "gpu_operand_ds.status").write_text(DS_STATUS)
    (root / "must-gather.log").write_text("Using 'gpu-operator' as operator namespace\n")
    (root / "version").write_text("NVIDIA GPU Operator\nv25.10.1\n")
    (root / "must-gather.stderr.log").write_text(
        "+ kubectl get pods -lapp=gpu-operator -oname -A\n"
        "Error from server (Forbidden): nvidiadrivers.nvidia.com is forbidden: User "
        "\"system:serviceaccount:default:x\" cannot list resource \"nvidiadrivers\"\n")
    return root


def test_handmade_mustgather_reads_text_only(tmp_path: Path) -> None:
    with open_bundle(_mg(tmp_path / "mg")) as snap:
        assert snap.manifest.source_kind == "must-gather"
        assert snap.manifest.collector == "gpu-operator must-gather v25.10.1"
        assert snap.has(Input.NODES) and snap.has(Input.CLUSTERPOLICIES)
        assert snap.clusterpolicies == []  # cluster_policy.missing: known to be absent
        assert [n.metadata.name for n in snap.nodes] == ["gpu-node-7"]
        node = snap.nodes[0]
        assert node.metadata.labels["nvidia.com/mig.config.state"] == "success"  # from .labels
        assert node.status.described_allocated["nvidia.com/gpu"] == "4"
        assert "gpu-node-6" in snap.state(Input.NODES).reason  # not described: not a Node
        pod = snap.pod_by_key[("gpu-operator", "nvidia-driver-daemonset-x8k2m")]
        assert pod.status.container_statuses[0].restart_count == 14
        assert not snap.has(Input.PODS)
        ds = {d.metadata.name: d for d in snap.daemonsets}
        assert ds["nvidia-driver-daemonset"].status.number_ready == 1
        assert ds["nvidia-driver-daemonset"].spec.template.spec.node_selector == {
            "nvidia.com/gpu.deploy.driver": "true"}
        log = snap.logs[("gpu-operator", "nvidia-driver-daemonset-x8k2m", "nvidia-driver-ctr")]
        assert log.current is not None and "Key was rejected" in log.current
        assert len(snap.events_for("Pod", "gpu-operator", "nvidia-driver-daemonset-x8k2m")) == 2
        assert len(snap.events_for("Node", None, "gpu-node-7")) == 5
        assert not snap.has(Input.EVENTS)
        assert any("Forbidden" in e for _w, e in snap.manifest.errors)
        assert "no nvidia-bug-report" in snap.state(Input.HOSTS).reason


def test_cli_on_handmade(tmp_path: Path, gx: Callable[..., tuple[int, Any]]) -> None:
    mg = _mg(tmp_path / "mg")
    code, doc = gx("capacity", "--bundle", str(mg), "-o", "json")
    assert code == 0
    [row] = doc["nodes"]
    assert (row["node"], row["capacity"], row["allocatable"], row["unhealthy"],
            row["schedulable"]) == ("gpu-node-7", 8, 7, 1, False)
    code, doc = gx("check", "--bundle", str(mg), "-o", "json")
    assert code in (1, 3)
    assert all(f["status"] in ("fail", "unknown") for f in doc["findings"])


# ----- hostile input ----------------------------------------------------------------------
def _one_line_error(capsys: pytest.CaptureFixture[str]) -> str:
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "Traceback" not in err
    return err


def test_malformed_yaml_is_one_line_or_unknown(tmp_path: Path,
                                               gx: Callable[..., tuple[int, Any]],
                                               capsys: pytest.CaptureFixture[str]) -> None:
    mg = _mg(tmp_path / "mg")
    (mg / "gpu_operand_ds.yaml").write_text("apiVersion: v1\nitems: [\n  - {kind: DaemonSet\n")
    code, _ = gx("check", "--bundle", str(mg))
    assert code == 2
    assert "gpu_operand_ds.yaml" in _one_line_error(capsys)
    code, _ = gx("check", "--bundle", str(mg), "--keep-going", "-o", "json")
    assert code in (1, 3)
    with open_bundle(mg, lenient=True) as snap:
        assert not snap.has(Input.DAEMONSETS)
        assert "malformed YAML" in snap.state(Input.DAEMONSETS).reason


def test_binary_describe_is_one_line(tmp_path: Path, gx: Callable[..., tuple[int, Any]],
                                     capsys: pytest.CaptureFixture[str]) -> None:
    mg = _mg(tmp_path / "mg")
    (mg / "gpu_nodes.descr").write_bytes(b"\x7fELF\x00\x00\x01" + bytes(range(256)) * 40)
    code, _ = gx("capacity", "--bundle", str(mg))
    assert code == 2
    assert "gpu_nodes.descr" in _one_line_error(capsys)
    (mg / "gpu_nodes.descr").write_text("this is not kubectl describe output\n" * 5)
    code, _ = gx("capacity", "--bundle", str(mg))
    assert code == 2
    _one_line_error(capsys)
    with open_bundle(mg, lenient=True) as snap:
        assert not snap.has(Input.NODES)


def test_bad_bug_reports(tmp_path: Path, gx: Callable[..., tuple[int, Any]]) -> None:
    mg = _mg(tmp_path / "mg")
    (mg / "nvidia-bug-report_gpu-node-6.log.gz").write_bytes(b"\x00\x01junk" * 1000)
    with open_bundle(mg) as snap:
        assert not snap.has(Input.HOSTS)
        assert "nvidia-bug-report_gpu-node-6.log.gz" in snap.state(Input.HOSTS).reason
    good = ("____________________________________________\n\ndmesg:\n\n"
            "[  5.1] nouveau 0000:3b:00.0: unknown chipset (180000a1)\n") * 2000
    data = gzip.compress(good.encode(), mtime=0)
    (mg / "nvidia-bug-report_gpu-node-7.log.gz").write_bytes(data[: len(data) // 2])
    with open_bundle(mg) as snap:
        assert snap.has(Input.HOSTS)  # the readable report counts; the junk one is named
        host = snap.hosts["gpu-node-7"]
        assert "nouveau" in host.cmds["dmesg.txt"]
        assert "truncated" in host.unreadable["nvidia-bug-report_gpu-node-7.log.gz"]
        assert "gpu-node-6" in snap.state(Input.HOSTS).reason
    code, _ = gx("check", "--bundle", str(mg), "-o", "json")
    assert code in (1, 3)


def test_huge_log_keeps_the_tail(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    mg = _mg(tmp_path / "mg")
    monkeypatch.setattr(mustgather, "TEXT_LIMIT", 64 * 1024)
    pod = "nvidia-driver-daemonset-x8k2m"
    lines = "".join(f"[pod/{pod}/nvidia-driver-ctr] line {i}\n" for i in range(20000))
    (mg / f"gpu_operand_pod_{pod}.log").write_text(lines)
    with open_bundle(mg) as snap:
        text = snap.logs[("gpu-operator", pod, "nvidia-driver-ctr")].current or ""
        assert len(text) <= 64 * 1024
        assert text.rstrip().endswith("line 19999")


def test_iter_text_inputs_skips_binary(tmp_path: Path) -> None:
    mg = _mg(tmp_path / "mg")
    (mg / "gpu_operand_pod_images.txt").write_bytes(b"\x00\x00binary")
    names = [n for n, _t in mustgather.iter_text_inputs(mg)]
    assert "gpu_nodes.descr" in names and "gpu_operand_pod_images.txt" not in names
    with pytest.raises(mustgather.InputError):
        list(mustgather.iter_text_inputs(tmp_path / "nowhere"))


def test_not_a_mustgather_keeps_the_bundle_error(tmp_path: Path,
                                                 gx: Callable[..., tuple[int, Any]],
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    empty = tmp_path / "empty"
    empty.mkdir()
    (empty / "notes.txt").write_text("hello\n")
    code, _ = gx("check", "--bundle", str(empty))
    assert code == 2
    assert "not a gpuxray bundle" in _one_line_error(capsys)
