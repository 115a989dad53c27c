"""Incidents: every planted fault of the scenario builder and of the demo is exactly one incident
whose root is the planted cause; a healthy cluster has none; unrelated faults stay apart; the
same root on many nodes folds into one incident with its node list and impact numbers."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from gpuxray.checks.engine import run_all
from gpuxray.cli.main import cli
from gpuxray.diagnose.incidents import build_incidents, node_keys, snapshot_incidents
from gpuxray.diagnose.why import why
from gpuxray.knowledge.causal import causes_of
from gpuxray.model.factory import fail
from gpuxray.model.finding import Severity, Subject
from gpuxray.model.incident import Incident, finding_ids
from gpuxray.model.snapshot import Snapshot
from gpuxray.scenarios.builder import ClusterBuilder
from gpuxray.scenarios.demo import GPU_TAINT, GPU_TOLERATION, build_demo, node_files
from gpuxray.scenarios.operator import KNOBS, add_gpu_operator
from gpuxray.sources.bundle import load_bundle_dir
from operator_fixtures import cluster, snapshot

# knob value -> (root code, root nodes, GPUs lost, operand pods waiting); every knob of the
# builder is here (test_every_knob_is_covered)
PLANTED: dict[tuple[str, str], tuple[str, tuple[str, ...], int, int]] = {
    ("driver", "gpu-1"): ("GX403", ("gpu-1",), 8, 7),
    ("driver", "gpu-1:secure-boot"): ("GX403", ("gpu-1",), 8, 7),
    ("driver", "gpu-1:precompiled"): ("GX403", ("gpu-1",), 8, 7),
    ("driver", "gpu-1:headers"): ("GX403", ("gpu-1",), 8, 7),
    ("toolkit", "gpu-1"): ("GX509", ("gpu-1",), 8, 6),
    ("handler", "gpu-1"): ("GX301", ("gpu-1",), 8, 0),
    ("handler", "gpu-0,gpu-1"): ("GX301", ("gpu-0", "gpu-1"), 16, 0),
    ("dcgm-exporter", "gpu-1"): ("GX406", ("gpu-1",), 0, 0),
    ("dcgm-profiling", "gpu-1"): ("GX406", ("gpu-1",), 0, 0),
    ("mig", "gpu-1"): ("GX407", ("gpu-1",), 0, 0),
    ("upgrade", "gpu-1"): ("GX404", ("gpu-1",), 0, 0),
    ("labels", "gpu-1"): ("GX401", ("gpu-1",), 8, 0),
    ("taint", "gpu-1"): ("GX402", ("gpu-1",), 8, 0),
    ("plugin-config", "x"): ("GX408", (), 0, 0),
    ("clusterpolicy", "x"): ("GX410", (), 0, 0),
    ("runtime-hook", "gpu-1"): ("GX307", ("gpu-1",), 0, 0),
    ("runtime-hook", "gpu-1:binary"): ("GX307", ("gpu-1",), 0, 0),
    ("os-mix", "gpu-1"): ("GX412", ("gpu-0", "gpu-1"), 0, 0),
    ("plugin-config-invalid", "gpu-1"): ("GX413", ("gpu-1",), 0, 0),
    ("gfd-labels", "gpu-1:restarts"): ("GX414", ("gpu-1",), 0, 0),
    ("gfd-labels", "gpu-1"): ("GX414", ("gpu-0", "gpu-1"), 0, 0),
}


def _incidents(snap: Snapshot) -> list[Incident]:
    return snapshot_incidents(snap, run_all(snap))


def test_every_knob_is_covered() -> None:
    assert {k for k, _ in PLANTED} == set(KNOBS)


def test_healthy_cluster_has_no_incident(tmp_path: Path) -> None:
    snap = snapshot(cluster(), tmp_path)
    assert run_all(snap)  # unknowns (node files not collected) are there …
    assert _incidents(snap) == []  # … and are no incident


@pytest.mark.parametrize(("knob", "value"), sorted(PLANTED))
def test_planted_fault_is_one_incident(tmp_path: Path, knob: str, value: str) -> None:
    code, nodes, lost, operands = PLANTED[(knob, value)]
    snap = snapshot(cluster({knob: value}), tmp_path)
    findings = run_all(snap)
    incs = snapshot_incidents(snap, findings)
    assert [i.root.code for i in incs] == [code]
    inc = incs[0]
    assert inc.root_nodes == nodes
    assert inc.impact.gpus_lost == lost
    assert inc.impact.operand_pods_blocked == operands
    # every failing finding at warning or above is in the incident: nothing is left over
    members = {id(f) for f in (*inc.roots, *inc.effects)}
    loose = [f.code for f in findings if f.status.value == "fail"
             and f.severity >= Severity.WARNING and id(f) not in members]
    assert loose == []


def test_driver_chain_and_open_ends(tmp_path: Path) -> None:
    inc = _incidents(snapshot(cluster({"driver": "gpu-1"}), tmp_path))[0]
    chain = {c.code: c.parent for c in inc.chain}
    assert chain == {"GX403": None, "GX302": "GX403", "GX410": "GX403", "GX604": "GX403"}
    # node files were not collected: nouveau / Secure Boot / kernel upgrade … could lie beneath
    ends = {f.code for f in inc.open_ends}
    assert {"GX506", "GX507", "GX508"} <= ends
    assert ends <= {e.cause for e in causes_of("GX403")}
    assert all(f.status.value == "unknown" for f in inc.open_ends)


def test_taint_folds_nine_daemonsets_into_one_root(tmp_path: Path) -> None:
    inc = _incidents(snapshot(cluster({"taint": "gpu-1"}), tmp_path))[0]
    assert len(inc.roots) == 9
    assert {f.subject.kind for f in inc.roots} == {"DaemonSet"}
    assert [f.code for f in inc.effects] == ["GX604"]


def _demo(tmp_path: Path) -> Snapshot:
    return load_bundle_dir(build_demo().write(tmp_path / "demo"))


def test_demo_root_is_the_dropin_on_two_nodes(tmp_path: Path) -> None:
    incs = _incidents(_demo(tmp_path))
    assert [i.root.code for i in incs] == ["GX501", "GX504", "GX601"]
    top = incs[0]
    assert top.root_nodes == ("gpu-2", "gpu-3")
    assert top.gpu_nodes == 3
    assert top.fold == {"culprit": "/etc/containerd/conf.d/registry.toml"}
    assert sorted(f.code for f in top.effects) == ["GX202", "GX301", "GX301", "GX410", "GX411",
                                                   "GX411", "GX604", "GX604"]
    assert (top.impact.gpus_lost, top.impact.pods_blocked, top.impact.nodes_affected) == (4, 1, 2)
    assert [(c.code, c.parent) for c in top.chain] == [
        ("GX501", None), ("GX301", "GX501"), ("GX411", "GX301"), ("GX410", "GX411"),
        ("GX604", "GX411"), ("GX202", "GX604")]
    assert "2 of 3 GPU nodes (gpu-2, gpu-3)" in top.headline()
    assert incs[1].root_nodes == ("gpu-1", "gpu-2", "gpu-3")  # SIGHUP restarts, all three


def _two_faults() -> ClusterBuilder:
    """The demo's drop-in trap on gpu-2/gpu-3 and, on gpu-4, Xid 79 with two devices gone."""
    b = ClusterBuilder()
    b.node("cpu-0", cpu="32")
    b.node("gpu-1", gpus=4, taints=[GPU_TAINT])
    b.node("gpu-2", gpus=2, capacity=0, allocatable=0, taints=[GPU_TAINT])
    b.node("gpu-3", gpus=2, capacity=0, allocatable=0, taints=[GPU_TAINT])
    b.node("gpu-4", gpus=4, allocatable=2, taints=[GPU_TAINT])
    for n in ("gpu-1", "gpu-2", "gpu-3", "gpu-4"):
        node_files(b, n, registry_dropin=n in ("gpu-2", "gpu-3"))
    b.host_cmd("gpu-4", "dmesg.txt",
               "[Mon Nov 23 08:01:02 2026] NVRM: Xid (PCI:0000:3b:00): 79, pid='<unknown>', "
               "name=<unknown>, GPU has fallen off the bus.\n")
    add_gpu_operator(b, ["gpu-1", "gpu-2", "gpu-3", "gpu-4"], version="v26.7.1",
                     broken={"handler": "gpu-2,gpu-3"})
    b.pod("ml", "full-0", node="gpu-1", gpus=4, tolerations=[GPU_TOLERATION])
    b.pod("ml", "busy-4", node="gpu-4", gpus=1, tolerations=[GPU_TOLERATION])
    b.pod("ml", "train-llm-0", gpus=2, tolerations=[GPU_TOLERATION])
    for res in ("events", "daemonsets", "deployments", "replicasets", "jobs", "statefulsets",
                "resourcequotas", "configmaps"):
        b.ensure(res)
    return b


def test_two_unrelated_faults_are_two_incidents(tmp_path: Path) -> None:
    snap = load_bundle_dir(_two_faults().write(tmp_path / "b"))
    incs = {i.root.code: i for i in _incidents(snap)}
    assert {"GX501", "GX505"} <= set(incs)
    assert incs["GX501"].root_nodes == ("gpu-2", "gpu-3")
    assert incs["GX501"].gpu_nodes == 4
    assert "2 of 4 GPU nodes" in incs["GX501"].headline()
    assert incs["GX505"].root_nodes == ("gpu-4",)
    assert incs["GX505"].impact.gpus_lost == 1  # Xid 79 on one PCI device: that GPU is gone
    assert incs["GX501"].impact.gpus_lost == 4
    # neither incident holds a finding of the other's nodes
    assert not {"gpu-4"} & set(incs["GX501"].impact.nodes)
    assert set(incs["GX505"].impact.nodes) == {"gpu-4"}
    assert next(iter(incs)) == "GX501"  # 4 GPUs lost and a pod blocked rank first


def test_two_different_culprits_are_two_incidents() -> None:
    a = fail("GX501", Subject("Node", "n1"), [], node="n1", culprit="/etc/a.toml")
    b = fail("GX501", Subject("Node", "n2"), [], node="n2", culprit="/etc/b.toml")
    c = fail("GX501", Subject("Node", "n3"), [], node="n3", culprit="/etc/a.toml")
    incs = build_incidents([a, b, c])
    assert sorted((i.id, i.root_nodes) for i in incs) == [
        ("GX501:/etc/a.toml", ("n1", "n3")), ("GX501:/etc/b.toml", ("n2",))]


def test_effect_shared_by_two_roots_is_in_both() -> None:
    """A pending pod whose admissible nodes fail for two reasons belongs to both incidents."""
    x = fail("GX411", Subject("Node", "n1"), [], node="n1", handler="nvidia")
    y = fail("GX401", Subject("Node", "n2"), [], node="n2")
    g1 = fail("GX604", Subject("Node", "n1"), [], node="n1", missing=2, resource="r")
    g2 = fail("GX604", Subject("Node", "n2"), [], node="n2", missing=3, resource="r")
    pod = fail("GX202", Subject("Pod", "p", "ml"), [], nodes=["n1", "n2"], resource="r",
               detail="", absent=[], zero=[], requested=1)
    incs = {i.root.code: i for i in build_incidents([x, y, g1, g2, pod])}
    assert set(incs) == {"GX411", "GX401"}
    assert incs["GX411"].impact.gpus_lost == 2 and incs["GX401"].impact.gpus_lost == 3
    assert all(i.impact.pods_blocked == 1 for i in incs.values())


def test_index_is_linear_on_a_fleet() -> None:
    """5,000 nodes with the same drop-in: one incident, built through the (code, node) index
    (a pairwise build would compare 10^8 pairs and not finish in this test's lifetime)."""
    fs = []
    for i in range(5000):
        n = f"gpu-{i}"
        fs.append(fail("GX501", Subject("Node", n), [], node=n, culprit="/etc/x.toml"))
        fs.append(fail("GX301", Subject("Node", n), [], node=n, handler="nvidia"))
        fs.append(fail("GX411", Subject("Node", n), [], node=n, handler="nvidia"))
        fs.append(fail("GX604", Subject("Node", n), [], node=n, missing=8, resource="r"))
    incs = build_incidents(fs, gpu_nodes=5000)
    assert len(incs) == 1
    assert incs[0].impact.gpus_lost == 40000 and incs[0].impact.nodes_affected == 5000
    assert "5000 of 5000 GPU nodes" in incs[0].headline()
    assert ("(gpu-0, gpu-1, gpu-2, gpu-3, gpu-4, gpu-5, gpu-6, gpu-7, … (+4992))"
            in incs[0].headline())


def test_node_keys_read_lists() -> None:
    f = fail("GX402", Subject("DaemonSet", "ds", "gpu-operator"), [], daemonset="ds",
             node="a", nodes=["a", "b"])
    assert node_keys(f) == {"a", "b"}


def test_finding_ids_are_stable_and_unique() -> None:
    a = fail("GX501", Subject("Node", "n1"), [], node="n1", culprit="x")
    ids = finding_ids([a, a])
    assert ids == ["GX501/Node/n1", "GX501/Node/n1#2"]


def test_why_reaches_the_root(tmp_path: Path) -> None:
    d = why(_demo(tmp_path), "ml/train-llm-0")
    assert d.verdict is not None and d.verdict.code == "GX202"  # CODES.md's verdict, unchanged
    assert d.root_cause is not None and d.root_cause.code == "GX501"
    assert d.root_nodes == ["gpu-2", "gpu-3"]
    doc = d.as_json()
    assert doc["verdict"]["code"] == "GX202"
    assert doc["root_cause"]["code"] == "GX501"
    assert doc["root_cause_nodes"] == ["gpu-2", "gpu-3"]


def test_check_json_incidents_name_findings_by_id(tmp_path: Path) -> None:
    root = build_demo().write(tmp_path / "demo")
    r = CliRunner().invoke(cli, ["check", "--bundle", str(root), "-o", "json"])
    doc = json.loads(r.output)
    ids = [i for f in doc["findings"] for i in f.get("ids", [f["id"]])]  # folded: every id
    assert len(ids) == len(set(ids))
    top = doc["incidents"][0]
    assert top["root_code"] == "GX501"
    assert top["root"] == ["GX501/Node/gpu-2", "GX501/Node/gpu-3"]
    assert set(top["effects"]) <= set(ids) and "GX202/Pod/ml/train-llm-0" in top["effects"]
    assert top["impact"]["gpus_lost"] == 4 and top["impact"]["pods_blocked"] == 1
    assert top["verify"].startswith("containerd config dump | grep -c runtimes.nvidia")


def test_text_report_folds_and_expands(tmp_path: Path) -> None:
    root = build_demo().write(tmp_path / "demo")
    env = {"COLUMNS": "100", "NO_COLOR": "1"}
    folded = CliRunner().invoke(cli, ["check", "--bundle", str(root)], env=env).output
    expanded = CliRunner().invoke(cli, ["check", "--bundle", str(root), "--expand"],
                                  env=env).output
    section = folded.split("Findings by layer", 1)[1]
    assert "GX301 runtime-handler-missing  Node/gpu-2 (+1)\n    also: gpu-3\n" in section
    assert "runtime-handler-missing  Node/gpu-3" not in section
    assert "runtime-handler-missing  Node/gpu-3" in expanded.split("Findings by layer", 1)[1]
    assert folded.index("Incidents (3)") < folded.index("Findings by layer")


@pytest.mark.parametrize("argv", [["check"], ["check", "--expand"], ["why", "ml/train-llm-0"],
                                  ["check", "-o", "markdown"]])
def test_text_fits_100_columns(tmp_path: Path, argv: list[str]) -> None:
    """At 100 columns no line of the report is wider than the terminal (cells, not bytes)."""
    from rich.cells import cell_len

    for name, b in (("demo", build_demo()), ("two", _two_faults())):
        root = b.write(tmp_path / name)
        out = CliRunner().invoke(cli, [*argv, "--bundle", str(root)],
                                 env={"COLUMNS": "100", "NO_COLOR": "1"}).output
        assert "Incidents (" in out or argv[0] == "why"
        if argv[-1] == "markdown":
            continue  # Markdown is not wrapped to a terminal; it only has to render
        widest = max(cell_len(line) for line in out.splitlines())
        assert widest <= 100, (name, widest)


def test_dra_healthy_has_none_and_unready_plugin_is_the_root(tmp_path: Path) -> None:
    from gpuxray.scenarios import dra as S

    assert _incidents(load_bundle_dir(S.healthy_dra_cluster().write(tmp_path / "h"))) == []
    b = S.healthy_dra_cluster()
    b.remove("resourceslices")
    b.ensure("resourceslices")
    b.remove("daemonsets")
    S.add_kubelet_plugin(b, 2, ready=0)
    claim = "job-0-gpu-abcde"
    p = S.dra_pod(b, "ml", "job-0", template="single-gpu", generated=claim)
    S.add_claim(b, "ml", claim, [S.request()], owner=p)
    incs = _incidents(load_bundle_dir(b.write(tmp_path / "d")))
    assert [i.root.code for i in incs] == ["GX415"]
    assert [f.code for f in incs[0].effects] == ["GX211"]
    assert incs[0].impact.pods_blocked == 1
