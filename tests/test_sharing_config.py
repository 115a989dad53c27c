"""Device-plugin sharing config arithmetic and GX602/GX604 (seed §6; facts.md §6.1, §6.2)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from capacity_fixtures import A100_80, plugin_config, sharing_cluster
from gpuxray.checks.engine import run_all
from gpuxray.engines.capacity import capacity_rows
from gpuxray.engines.sharing import node_sharing, parse_plugin_config
from gpuxray.model.finding import Severity, Status
from gpuxray.scenarios.builder import ClusterBuilder
from gpuxray.sources.bundle import open_bundle

WriteBundle = Callable[[ClusterBuilder], Path]


def test_time_slicing_replicas_and_defaults() -> None:
    cfg = parse_plugin_config(plugin_config(10))
    assert cfg.issues == ()
    assert cfg.strategy == "time-slicing"
    assert cfg.replicas_for("nvidia.com/gpu") == 10
    assert cfg.resources[0].advertised == "nvidia.com/gpu"
    assert cfg.fail_requests_gt_one is False and cfg.fail_requests_explicit is False


def test_rename_by_default_advertises_shared_name() -> None:
    cfg = parse_plugin_config(plugin_config(4, rename=True, fail_gt_one=True))
    assert cfg.resources[0].advertised == "nvidia.com/gpu.shared"
    assert cfg.replicas_for("nvidia.com/gpu.shared") == 4
    assert cfg.fail_requests_gt_one is True and cfg.fail_requests_explicit


def test_mps_strategy_and_its_default() -> None:
    cfg = parse_plugin_config(plugin_config(3, mps=True))
    assert cfg.strategy == "mps" and cfg.fail_requests_gt_one is True
    one = parse_plugin_config(plugin_config(1))
    assert one.strategy == "none" and one.replicas_for("nvidia.com/gpu") == 1


def test_json_config_and_structural_issues() -> None:
    js = ('{"version": "v1", "sharing": {"timeSlicing": {"resources": '
          '[{"name": "nvidia.com/gpu", "replicas": 2}]}}}')
    assert parse_plugin_config(js).replicas_for("nvidia.com/gpu") == 2
    bad = parse_plugin_config("""version: v2
flags:
  renameByDefault: true
  noSuchFlag: 1
sharing:
  timeSlicing:
    resources:
      - name: nvidia.com/gpu
        replicas: 0
      - name: example.com/fpga
        replicas: 2
      - name: nvidia.com/gpu
        replicas: 2
        rename: gpu-fast
  spaceSlicing: {}
""")
    paths = {i.path for i in bad.issues}
    assert {"version", "flags.renameByDefault", "flags.noSuchFlag",
            "sharing.timeSlicing.resources[0].replicas", "sharing.timeSlicing.resources[1].name",
            "sharing.timeSlicing.resources[2].rename", "sharing.spaceSlicing"} <= paths
    for junk in ("{{{", "\x00\x01", "- just\n- a list", ""):
        r = parse_plugin_config(junk)
        assert r.strategy == "none" and r.issues


def test_node_sharing_follows_label_then_default(write_bundle: WriteBundle) -> None:
    with open_bundle(write_bundle(sharing_cluster())) as snap:
        ns = node_sharing(snap)
        rows = {(r.node, r.resource): r for r in capacity_rows(snap)}
    assert (ns["ts-1"].key, ns["ts-1"].key_from) == ("tenfold", "label")
    assert (ns["ts-2"].key, ns["ts-2"].key_from) == ("shared-4", "default")
    assert ns["ts-1"].replicas_for("nvidia.com/gpu") == 10
    assert ns["ts-2"].config is not None
    assert ns["ts-2"].config.resources[0].advertised == "nvidia.com/gpu.shared"
    # 8 GPUs × 10 replicas = 80 advertised; GFD count stays physical
    r = rows[("ts-1", "nvidia.com/gpu")]
    assert (r.capacity, r.physical_gpus, r.replicas, r.advertised_slots) == (80, 8, 10, 80)
    assert r.physical == 8
    assert rows[("ts-2", "nvidia.com/gpu.shared")].advertised_slots == 16


def test_node_sharing_says_why_config_is_missing(write_bundle: WriteBundle) -> None:
    b = sharing_cluster()
    b.remove("configmaps")
    with open_bundle(write_bundle(b)) as snap:
        ns = node_sharing(snap)
    assert ns["ts-1"].config is None and "not collected" in (ns["ts-1"].missing or "")
    b2 = sharing_cluster()
    b2.remove("clusterpolicies")
    with open_bundle(write_bundle(b2)) as snap:
        assert node_sharing(snap)["ts-1"].config is None


def test_gx602_info_and_warning(write_bundle: WriteBundle) -> None:
    with open_bundle(write_bundle(sharing_cluster())) as snap:
        fl = {f.subject.name: f for f in run_all(snap, ["GX602"])}
    assert set(fl) == {"ts-1", "ts-2"}  # plain-1 is not shared
    ts1 = fl["ts-1"]
    assert ts1.severity == Severity.WARNING and ts1.status == Status.FAIL
    assert ts1.params["pods_over_one_list"] == ["ml/greedy-0"]
    assert (ts1.params["capacity"], ts1.params["physical_gpus"], ts1.params["replicas"]) == (
        80, 8, 10)
    assert ts1.params["guaranteed_mib"] == 0 and ts1.params["avg_mib_per_replica"] == 8192
    ts2 = fl["ts-2"]
    assert ts2.severity == Severity.INFO and ts2.params["resource"] == "nvidia.com/gpu.shared"
    assert ts2.params["avg_mib_per_replica"] == 20480


def test_gx602_no_warning_when_requests_over_one_fail(write_bundle: WriteBundle) -> None:
    with open_bundle(write_bundle(sharing_cluster(fail_gt_one=True))) as snap:
        ts1 = next(f for f in run_all(snap, ["GX602"]) if f.subject.name == "ts-1")
    assert ts1.severity == Severity.INFO and ts1.params["fail_requests_gt_one"] == "true"


def test_gx604_counts_lost_devices(write_bundle: WriteBundle) -> None:
    with open_bundle(write_bundle(sharing_cluster(lost=10))) as snap:
        fl = [f for f in run_all(snap, ["GX604"]) if f.status == Status.FAIL]
    assert [(f.subject.name, f.params["capacity"], f.params["expected"], f.params["missing"])
            for f in fl] == [("ts-1", 70, 80, 10)]


def test_gx604_quiet_when_whole_and_unknown_without_count(write_bundle: WriteBundle) -> None:
    b = sharing_cluster()
    b.node("nolabel-1", gpus=2, product=A100_80, gpu_labels=False)
    b.node("gone-1", gpus=4, product=A100_80, capacity=0, allocatable=0)
    with open_bundle(write_bundle(b)) as snap:
        fl = run_all(snap, ["GX604"])
    got = {(f.subject.name, f.status.value) for f in fl}
    assert got == {("nolabel-1", "unknown"), ("gone-1", "fail")}
    gone = next(f for f in fl if f.subject.name == "gone-1")
    assert gone.params["plugin_gone"] is True and gone.params["missing"] == 4


def test_gx602_mps_caps_memory_and_warns_when_relaxed(write_bundle: WriteBundle) -> None:
    b = ClusterBuilder()
    b.custom("clusterpolicies", "ClusterPolicy", "cluster-policy",
             {"devicePlugin": {"config": {"name": "plugin-cfg", "default": "mps-3"}}},
             {"state": "ready"})
    b.configmap("gpu-operator", "plugin-cfg",
                {"mps-3": plugin_config(3, mps=True, fail_gt_one=False)})
    b.node("mps-1", gpus=2, replicas=3, product=A100_80,
           labels={"nvidia.com/gpu.sharing-strategy": "mps"})
    b.pod("ml", "two-0", node="mps-1", gpus=2)
    with open_bundle(write_bundle(b)) as snap:
        (f,) = run_all(snap, ["GX602"])
    assert f.subject.name == "mps-1" and f.severity == Severity.WARNING
    assert (f.params["strategy"], f.params["capacity"], f.params["replicas"]) == ("mps", 6, 3)
    # MPS limits each client to 1/replicas of the memory: that share is its guarantee
    assert f.params["guaranteed_mib"] == 81920 // 3


def test_expected_advertisement_relates_config_labels_and_capacity(
        write_bundle: WriteBundle) -> None:
    from gpuxray.engines.sharing import expected_sharing

    b = sharing_cluster(lost=8)
    b.find("nodes", "ts-2")["metadata"]["labels"]["nvidia.com/gpu.replicas"] = "2"
    with open_bundle(write_bundle(b)) as snap:
        exp = expected_sharing(snap)
    (ts1,) = exp["ts-1"]
    assert (ts1.resource, ts1.replicas, ts1.physical, ts1.expected, ts1.advertised) == (
        "nvidia.com/gpu", 10, 8, 80, 72)
    assert ts1.labels_agree
    (ts2,) = exp["ts-2"]
    assert ts2.resource == "nvidia.com/gpu.shared" and ts2.expected == 16
    assert not ts2.labels_agree  # GFD still shows 2 replicas: the config is not applied yet
    assert exp["plain-1"][0].replicas == 4  # plain-1 has no label: the default key applies


def test_one_replica_and_flag_keys_follow_the_plugin() -> None:
    """k8s-device-plugin@v0.20.0 api/config/v1/replicas.go refuses ``replicas < 2`` (the whole
    document fails to load); ``imex`` is a top-level key (config.go), not a flag, and
    ``gdrcopyEnabled`` is a flag since v0.18.0 (flags.go)."""
    one = parse_plugin_config(plugin_config(1))
    assert "sharing.timeSlicing.resources[0].replicas" in {i.path for i in one.issues}
    flags = parse_plugin_config("version: v1\nflags:\n  gdrcopyEnabled: true\n  imex: {}\n")
    assert {i.path for i in flags.issues} == {"flags.imex"}
