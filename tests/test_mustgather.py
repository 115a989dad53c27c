"""A must-gather directory, written the way ``must-gather.sh`` writes it from a scenario cluster,
gives the same answers as the full bundle wherever it holds the evidence, and unknown elsewhere."""

from __future__ import annotations

import json
import tarfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from gpuxray.checks.engine import run_all
from gpuxray.checks.registry import all_checks
from gpuxray.engines.capacity import capacity_rows
from gpuxray.model.finding import Finding, Status
from gpuxray.model.quantity import safe_quantity
from gpuxray.model.snapshot import Input, Snapshot
from gpuxray.scenarios.builder import OPERATOR_NS, ClusterBuilder
from gpuxray.scenarios.operator import add_gpu_operator
from gpuxray.sources.bundle import open_bundle
from gpuxray.sources.mustgather import find_mustgather_root, iter_text_inputs, parse_labels_file
from gpuxray.sources.parsers.lsmod import parse_lsmod
from gpuxray.sources.parsers.systemctl import parse_systemctl_show
from mustgather_fixtures import write_mustgather

pytestmark = pytest.mark.slow  # real kubectl against `gpuxray serve` writes the must-gather

GPU_NODES = ["gpu-1", "gpu-2", "gpu-3", "gpu-4"]
DESCRIBED = ["gpu-1", "gpu-2", "gpu-3"]  # gpu-4 lacks nvidia.com/gpu.present: not described
XID_LINE = ("[Sun Nov 29 11:02:03 2026] NVRM: Xid (PCI:0000:3b:00): 79, pid='<unknown>', "
            "name=<unknown>, GPU has fallen off the bus.\n")


def scenario() -> ClusterBuilder:
    """Four GPU nodes and a CPU node with the operator: gpu-2's driver is broken (nouveau, an Xid,
    no Fabric Manager on an NVSwitch board), gpu-3 has a failed MIG config, gpu-4 lost its
    ``gpu.present`` label; user pods hold GPUs on gpu-1 and gpu-3, one is pending."""
    b = ClusterBuilder()
    for n in GPU_NODES:
        b.node(n, gpus=8, allocatable=6 if n == "gpu-3" else None)
    b.node("cpu-1")
    add_gpu_operator(b, GPU_NODES, broken={"driver": "gpu-2", "mig": "gpu-3", "labels": "gpu-4"})
    b.pod("ml", "train-a", node="gpu-1",
          containers=[b.container("main", gpus=4, requests={"nvidia.com/gpu": "4"})])
    b.pod("ml", "train-b", node="gpu-3", gpus=2)
    big = b.pod("ml", "big", gpus=16)
    b.event(big, "FailedScheduling", "0/5 nodes are available: 4 Insufficient nvidia.com/gpu.")
    b.host_cmd("gpu-2", "lsmod.txt", "Module                  Size  Used by\n"
               "nouveau              2306048  0\nmxm_wmi                16384  1 nouveau\n"
               "drm_kms_helper        311296  1 nouveau\n")
    b.host_cmd("gpu-2", "dmesg.txt", XID_LINE)
    b.host_cmd("gpu-2", "systemctl-show-fabricmanager.txt",
               "LoadState=not-found\nActiveState=inactive\nSubState=dead\n")
    b.host_cmd("gpu-2", "lspci-nvidia.txt", "".join(
        f"{bus}:00.0 3D controller [0302]: NVIDIA Corporation GA100 [A100 SXM4 80GB] "
        f"[10de:20b2] (rev a1)\n" for bus in ("07", "0f", "47", "4e", "87", "90", "b7", "bd"))
        + "".join(f"{bus}:00.0 Bridge [0680]: NVIDIA Corporation GA100 [A100 NVSwitch] "
                  f"[10de:1af1] (rev a1)\n" for bus in ("c4", "c5", "c6", "c7", "c8", "c9")))
    b.host_file("gpu-2", "proc/driver/nvidia/version",
                "NVRM version: NVIDIA UNIX x86_64 Kernel Module  580.95.05  Tue Sep 23 09:55:41 "
                "UTC 2025\nGCC version:  gcc version 12.3.0 (Ubuntu 12.3.0-1ubuntu1~22.04)\n")
    b.host_cmd("gpu-1", "dmesg.txt", "[Sun Nov 29 10:00:00 2026] nvidia-nvswitch: loaded\n")
    return b


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    root = tmp_path_factory.mktemp("mg")
    mg = write_mustgather(scenario(), root)
    return root / "bundle", mg


@pytest.fixture(scope="module")
def snaps(built: tuple[Path, Path]) -> Any:
    bundle, mg = built
    with open_bundle(bundle) as full, open_bundle(mg) as m:
        yield full, m


def _key(f: Finding, snap: Snapshot | None = None) -> tuple[str, str]:
    """(code, subject); with ``snap``, a pod subject is named by its controller, since a check
    may name the operator's Deployment when deployments were collected and its pod otherwise."""
    s = f.subject
    if snap is not None and s.kind == "Pod":
        pod = snap.pod_by_key.get((s.namespace or "default", s.name))
        owner = next((o for o in pod.metadata.owner_references if o.controller), None) \
            if pod is not None else None
        if owner is not None and owner.kind in ("Deployment", "DaemonSet", "StatefulSet", "Job"):
            return f.code, f"{owner.kind}/{s.namespace}/{owner.name}"
    return f.code, str(s)


# ----- detection and inputs ---------------------------------------------------------------
def test_detected_directly_below_and_in_a_tarball(built: tuple[Path, Path], tmp_path: Path) -> None:
    _bundle, mg = built
    assert find_mustgather_root(mg) == mg
    parent = tmp_path / "ticket-1234"
    (parent / "must-gather.local.42").mkdir(parents=True)
    (parent / "must-gather.local.42" / "cluster_policy.missing").touch()
    assert find_mustgather_root(parent) == parent / "must-gather.local.42"
    tgz = tmp_path / "mg.tar.gz"
    with tarfile.open(tgz, "w:gz") as tar:
        tar.add(mg, arcname=mg.name)
    with open_bundle(tgz) as snap:
        assert snap.manifest.source_kind == "must-gather"
        assert sorted(n.metadata.name for n in snap.nodes) == DESCRIBED
        assert snap.origin == str(tgz)


def test_inputs_collected_and_not(snaps: tuple[Snapshot, Snapshot]) -> None:
    _full, m = snaps
    collected = {i for i in Input if m.has(i)}
    assert collected == {Input.NODES, Input.DAEMONSETS, Input.CLUSTERPOLICIES, Input.LOGS,
                         Input.HOSTS, Input.OPERATOR_PODS}
    for inp in set(Input) - collected:
        assert "not in must-gather" in m.state(inp).reason, inp
    assert "gpu-operator" in m.state(Input.PODS).reason
    assert m.operator_namespace == OPERATOR_NS
    assert m.manifest.collected_at == "2026-11-29T12:00:00Z"


# ----- the same facts as the full bundle --------------------------------------------------
def test_nodes_match_the_bundle(snaps: tuple[Snapshot, Snapshot]) -> None:
    full, m = snaps
    assert sorted(m.node_by_name) == DESCRIBED  # neither the CPU node nor gpu-4
    for name in DESCRIBED:  # every field the checks read
        a, b = full.node_by_name[name], m.node_by_name[name]
        assert b.metadata.labels == a.metadata.labels
        assert b.spec.taints == a.spec.taints
        assert b.spec.unschedulable == a.spec.unschedulable
        assert b.status.capacity == a.status.capacity
        assert b.status.allocatable == a.status.allocatable
        assert b.status.node_info == a.status.node_info
        assert [(c.type, c.status, c.reason) for c in b.status.conditions] == [
            (c.type, c.status, c.reason) for c in a.status.conditions]
        assert b.metadata.creation_timestamp == a.metadata.creation_timestamp
    # gpu-4 lost nvidia.com/gpu.present: only its labels are in must-gather, and a node without
    # capacity would read as "advertises nothing", so it is named in the reason instead
    assert "gpu-4" in m.state(Input.NODES).reason


def test_allocated_from_describe_equals_scheduler_accounting(
        snaps: tuple[Snapshot, Snapshot]) -> None:
    full, m = snaps
    rows = {(r.node, r.resource): r for r in capacity_rows(full)}
    for name in DESCRIBED:
        described = m.node_by_name[name].status.described_allocated
        gpu = int(safe_quantity(described.get("nvidia.com/gpu", "0")))
        assert gpu == rows[(name, "nvidia.com/gpu")].allocated, name
    assert int(safe_quantity(m.node_by_name["gpu-1"].status.described_allocated[
        "nvidia.com/gpu"])) == 4


def test_operator_pods_daemonsets_policy_logs(snaps: tuple[Snapshot, Snapshot]) -> None:
    full, m = snaps
    ns_pods = {(p.metadata.namespace, p.metadata.name): p for p in full.pods
               if p.metadata.namespace == OPERATOR_NS}
    assert set(m.pod_by_key) == set(ns_pods)
    for key, p in ns_pods.items():
        q = m.pod_by_key[key]
        assert q.spec.node_name == p.spec.node_name
        assert q.status.phase == p.status.phase
        assert q.status.container_statuses == p.status.container_statuses
        assert q.status.init_container_statuses == p.status.init_container_statuses
    assert {(d.metadata.name, d.status.number_ready, d.status.desired_number_scheduled)
            for d in m.daemonsets} == {
        (d.metadata.name, d.status.number_ready, d.status.desired_number_scheduled)
        for d in full.daemonsets}
    assert [(c.metadata.name, c.status.state) for c in m.clusterpolicies] == [
        (c.metadata.name, c.status.state) for c in full.clusterpolicies]
    operator_pod = next(p for p in ns_pods.values()
                        if p.metadata.labels.get("app") == "gpu-operator")
    expected = {k: v for k, v in full.logs.items()
                if k[0] == OPERATOR_NS and k[1] != operator_pod.metadata.name}
    assert expected
    for key, log in expected.items():
        got = m.logs[key]
        assert (got.current or "").strip() == (log.current or "").strip(), key
        assert (got.previous or "").strip() == (log.previous or "").strip(), key


def test_bug_report_gives_the_node_facts(snaps: tuple[Snapshot, Snapshot]) -> None:
    full, m = snaps
    driver_nodes = {p.spec.node_name for p in full.pods
                    if p.metadata.labels.get("app") == "nvidia-driver-daemonset"}
    assert set(m.hosts) == driver_nodes == {"gpu-1", "gpu-2", "gpu-3"}  # gpu-4 has no operands
    a, b = full.hosts["gpu-2"], m.hosts["gpu-2"]
    assert b.cmds["dmesg.txt"].strip() == a.cmds["dmesg.txt"].strip()
    assert set(parse_lsmod(b.cmds["lsmod.txt"])) == set(parse_lsmod(a.cmds["lsmod.txt"]))
    assert b.files["proc/driver/nvidia/version"] == a.files["proc/driver/nvidia/version"]
    assert parse_systemctl_show(b.cmds["systemctl-show-fabricmanager.txt"]) == \
        parse_systemctl_show(a.cmds["systemctl-show-fabricmanager.txt"])
    assert b.cmds["lspci-nvidia.txt"] == a.cmds["lspci-nvidia.txt"]  # non-NVIDIA lines dropped
    assert "gpu-2" in b.cmds["uname.txt"]


# ----- checks: same answers where the evidence is there, unknown where not ----------------
# Node-layer codes whose evidence a bug report carries (dmesg, lsmod, lspci, Fabric Manager).
BUGREPORT_CODES = {"GX405", "GX505", "GX506"}
# Inputs must-gather holds completely for the objects it covers.
COMPARABLE = {Input.NODES, Input.DAEMONSETS, Input.CLUSTERPOLICIES, Input.NVIDIADRIVERS}


def _in_scope(f: Finding, m: Snapshot) -> bool:
    s = f.subject
    if s.kind == "Node":
        return s.name in m.node_by_name
    return s.namespace in (None, m.operator_namespace)


def test_checks_agree_or_say_unknown(snaps: tuple[Snapshot, Snapshot]) -> None:
    full, m = snaps
    specs = all_checks()
    full_f, mg_f = run_all(full), run_all(m)
    compared = 0
    for code, spec in specs.items():
        mine = [f for f in mg_f if f.code == code]
        theirs = [f for f in full_f if f.code == code]
        missing = m.missing(spec.needs)
        if missing:  # evidence not in must-gather: one unknown naming the input, never a fail
            assert [f.status for f in mine] == [Status.UNKNOWN], code
            assert mine[0].evidence[0].source == m.state(missing[0]).source
            continue
        fails_mg = {_key(f, m) for f in mine if f.status == Status.FAIL}
        fails_full = {_key(f, full) for f in theirs
                      if f.status == Status.FAIL and _in_scope(f, m)}
        if set(spec.needs) <= COMPARABLE or code in BUGREPORT_CODES:
            assert fails_mg == fails_full, code
            compared += bool(fails_full)
        else:  # host checks without their files in a bug report: no invented failure
            assert fails_mg <= fails_full, code
    assert compared >= 4  # the scenario makes several comparable checks fail


def test_checks_numbers_match(snaps: tuple[Snapshot, Snapshot]) -> None:
    full, m = snaps
    for code in ("GX604", "GX505"):
        a = {_key(f): f.params for f in run_all(full, [code])
             if f.status == Status.FAIL and _in_scope(f, m)}
        b = {_key(f): f.params for f in run_all(m, [code]) if f.status == Status.FAIL}
        assert a and a.keys() == b.keys(), code
        for k in a:
            for p in ("capacity", "allocatable", "physical", "missing", "count", "xid"):
                assert a[k].get(p) == b[k].get(p), (code, k, p)


# ----- the commands -----------------------------------------------------------------------
def test_cli_check_json(built: tuple[Path, Path], gx: Callable[..., tuple[int, Any]]) -> None:
    bundle, mg = built
    code_full, _ = gx("check", "--bundle", str(bundle), "-o", "json")
    code_mg, doc_mg = gx("check", "--bundle", str(mg), "-o", "json")
    assert code_mg == 1 and code_full == 1
    fails = {(f["code"], f["subject"]["name"]) for f in doc_mg["findings"]
             if f["status"] == "fail"}
    assert ("GX506", "gpu-2") in fails and ("GX505", "gpu-2") in fails
    unknown = {f["code"] for f in doc_mg["findings"] if f["status"] == "unknown"}
    assert "GX201" in unknown  # needs every pod
    # the operand checks run on the operator namespace's pods the must-gather holds, and agree
    # with the full bundle
    _, doc_full = gx("check", "--bundle", str(bundle), "-o", "json")
    for code in ("GX302", "GX403", "GX406", "GX411"):
        want = {(f["status"], f["subject"]["name"]) for f in doc_full["findings"]
                if f["code"] == code}
        got = {(f["status"], f["subject"]["name"]) for f in doc_mg["findings"]
               if f["code"] == code}
        assert code not in unknown and got == want, code


def test_cli_capacity_json(built: tuple[Path, Path], gx: Callable[..., tuple[int, Any]]) -> None:
    bundle, mg = built
    _, full = gx("capacity", "--bundle", str(bundle), "-o", "json")
    code, doc = gx("capacity", "--bundle", str(mg), "-o", "json")
    assert code == 0
    # allocated comes from `kubectl describe node` "Allocated resources" sums there
    assert doc["allocated_known"] is True
    assert {r["allocated_source"] for r in doc["nodes"]} == {"describe"}
    keys = ("capacity", "allocatable", "allocated", "free", "unhealthy", "sharing", "physical",
            "schedulable")
    want = {(r["node"], r["resource"]): {k: r[k] for k in keys} for r in full["nodes"]
            if r["node"] != "gpu-4"}
    got = {(r["node"], r["resource"]): {k: r[k] for k in keys} for r in doc["nodes"]
           if r["node"] != "gpu-4"}
    assert got == want
    assert got[("gpu-3", "nvidia.com/gpu")]["unhealthy"] == 2


def test_reports_same_with_and_without_the_line_reader(
        built: tuple[Path, Path], capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    """kubectl's own YAML read from its lines gives the reports, byte for byte, that composing
    it with libyaml gives (``sources/leanyaml.py``)."""
    from test_leanyaml_lines import compare, reports_both_ways

    _, mg = built
    for name in ("gpu_operand_pods.yaml", "gpu_operand_ds.yaml"):
        answered, batches = compare((mg / name).read_bytes())
        assert answered == batches > 0, name  # kubectl's text: read from its lines
    reports_both_ways(mg, capsys, monkeypatch)


def test_cli_why_names_what_is_missing(built: tuple[Path, Path],
                                       gx: Callable[..., tuple[int, Any]],
                                       capsys: pytest.CaptureFixture[str]) -> None:
    bundle, mg = built
    code_full, _ = gx("why", "ml/big", "--bundle", str(bundle), "-o", "json")
    assert code_full == 1
    code, _ = gx("why", "ml/big", "--bundle", str(mg))
    err = capsys.readouterr().err
    assert code == 2
    assert len(err.strip().splitlines()) == 1 and "not in must-gather" in err


def test_iter_text_inputs(built: tuple[Path, Path]) -> None:
    _bundle, mg = built
    texts = dict(iter_text_inputs(mg))
    assert "gpu_nodes.descr" in texts and "Allocated resources:" in texts["gpu_nodes.descr"]
    assert "NVRM: Xid (PCI:0000:3b:00): 79" in texts["nvidia-bug-report_gpu-2.log.gz"]
    assert any(name.startswith("gpu_operand_pod_nvidia-driver-daemonset") for name in texts)
    assert all(isinstance(t, str) for t in texts.values())


def test_labels_file_format(built: tuple[Path, Path]) -> None:
    _bundle, mg = built
    labels = parse_labels_file((mg / "gpu_nodes.labels").read_text())
    assert sorted(labels) == GPU_NODES
    assert labels["gpu-1"]["nvidia.com/gpu.count"] == "8"
    assert "nvidia.com/gpu.present" not in labels["gpu-4"]
    assert json.dumps(labels)  # plain strings only


def test_logs_read_only_on_the_nodes_asked_for(built: tuple[Path, Path]) -> None:
    """``log_nodes`` narrows the logs as for a bundle: those of the operator's pods on the
    nodes named, each equal to the full read's; none at all for ``()``; the logs input is
    collected all the same."""
    from gpuxray.sources.mustgather import load_mustgather

    _, mg = built
    full = load_mustgather(mg)
    on_gpu2 = {p.metadata.name for p in full.pods if p.spec.node_name == "gpu-2"}
    some = load_mustgather(mg, log_nodes=lambda _s: {"gpu-2"})
    assert some.logs and {k[1] for k in some.logs} <= on_gpu2
    assert some.logs == {k: v for k, v in full.logs.items() if k[1] in on_gpu2}
    none = load_mustgather(mg, log_nodes=lambda _s: ())
    assert none.logs == {}
    every = load_mustgather(mg, log_nodes=lambda _s: None)
    assert every.logs == full.logs
    for snap in (some, none, every):
        assert snap.state(Input.LOGS) == full.state(Input.LOGS)
        assert snap.has(Input.LOGS)


def test_capacity_reads_no_log_and_reports_the_same(
        built: tuple[Path, Path], capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    from gpuxray.cli import cmd_capacity
    from gpuxray.cli.main import run
    from gpuxray.sources import mustgather

    _, mg = built
    read: list[object] = []
    real = mustgather._load_logs
    monkeypatch.setattr(mustgather, "_load_logs", lambda *a: read.append(a) or real(*a))
    assert run(["capacity", "--bundle", str(mg), "-o", "json"]) == 0
    lean = capsys.readouterr().out
    assert read == []  # no log file read
    monkeypatch.setattr(cmd_capacity, "_no_logs", lambda _s: None)  # every log read
    assert run(["capacity", "--bundle", str(mg), "-o", "json"]) == 0
    assert len(read) == 1
    assert capsys.readouterr().out == lean
