"""Usage from single dcgm-exporter scrapes: ``capacity`` used columns, ``--pods`` and GX601
(seed §6: allocated is not used; idle is not free)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from capacity_fixtures import A100_80, sharing_cluster, usage_cluster
from gpuxray.checks.engine import run_all
from gpuxray.engines.usage import pod_usage, usage_from_metrics
from gpuxray.model.finding import Status
from gpuxray.scenarios.builder import ClusterBuilder
from gpuxray.scenarios.dcgm import Gpu, scrape
from gpuxray.sources.bundle import open_bundle

Gx = Callable[..., tuple[int, Any]]
WriteBundle = Callable[[ClusterBuilder], Path]


def _gx601(root: Path) -> dict[str, Any]:
    with open_bundle(root) as snap:
        return {str(f.subject): f for f in run_all(snap, ["GX601"])}


def test_idle_but_allocated_on_single_scrapes(write_bundle: WriteBundle) -> None:
    b, _ = usage_cluster()
    got = _gx601(write_bundle(b))
    assert set(got) == {"Pod/ml/train-0", "Pod/research/dev-0"}
    train = got["Pod/ml/train-0"]
    assert train.status == Status.FAIL
    assert (train.params["gpus"], train.params["util"], train.params["fb_mib"]) == (
        2, 0.0, 28058.0)
    assert train.params["node"] == "gpu-1"
    assert train.params["basis"] == "single scrape (metrics/gpu-1.prom)"
    assert {e.source for e in train.evidence} == {"metrics/gpu-1.prom"}


def test_capacity_json_used_columns_and_pods(gx: Gx, write_bundle: WriteBundle) -> None:
    b, gpus = usage_cluster()
    code, doc = gx("capacity", "-b", str(write_bundle(b)), "--pods", "-o", "json")
    assert code == 0
    rows = {r["node"]: r for r in doc["nodes"]}
    g1 = rows["gpu-1"]["used"]
    assert g1["status"] == "measured" and g1["gpus"] == 8
    assert g1["util_pct"] == round(sum(g.util for g in gpus["gpu-1"]) / 8, 1)
    assert g1["fb_used_mib"] == sum(g.fb_used for g in gpus["gpu-1"])
    assert g1["power_w"] == sum(g.power for g in gpus["gpu-1"])
    assert g1["fb_total_mib"] == 8 * 81920
    assert rows["gpu-1"]["allocated"] == 3 and rows["gpu-2"]["allocated"] == 2
    pods = {(p["namespace"], p["pod"]): p for p in doc["pods"]}
    assert set(pods) == {("ml", "train-0"), ("ml", "infer-0"), ("research", "nb-0"),
                         ("research", "dev-0")}  # the Succeeded pod holds nothing
    assert pods[("ml", "train-0")]["idle"] is True
    assert pods[("ml", "train-0")]["gpus_allocated"] == 2
    assert pods[("ml", "infer-0")]["idle"] is False
    assert pods[("ml", "infer-0")]["util_pct"] == 87
    assert pods[("research", "nb-0")]["idle"] is False  # 200 MiB < 1024 MiB threshold
    assert doc["usage"]["basis"] == "scrape"
    assert {f["code"] for f in doc["findings"]} == {"GX601"}


def test_thresholds_are_configurable(gx: Gx, write_bundle: WriteBundle) -> None:
    b, _ = usage_cluster()
    root = str(write_bundle(b))
    _, doc = gx("capacity", "-b", root, "--idle-fb-mib", "100", "-o", "json")
    idle = {f["subject"]["name"] for f in doc["findings"] if f["code"] == "GX601"}
    assert idle == {"train-0", "dev-0", "nb-0"}
    _, doc = gx("capacity", "-b", root, "--idle-util", "0", "-o", "json")
    idle = {f["subject"]["name"] for f in doc["findings"] if f["code"] == "GX601"}
    assert idle == {"train-0"}  # dev-0 runs at 0.5 %
    assert doc["usage"]["idle_util_pct"] == 0


def test_text_output_shows_used_and_pods(gx: Gx, write_bundle: WriteBundle) -> None:
    b, _ = usage_cluster()
    code, out = gx("capacity", "-b", str(write_bundle(b)), "--pods", "--node", "gpu-1")
    assert code == 0
    assert "IDLE" in out and "train-0" in out and "28058" in out


def test_no_metrics_is_one_unknown_naming_metrics(gx: Gx, write_bundle: WriteBundle) -> None:
    b, _ = usage_cluster(scrapes=False)
    got = _gx601(write_bundle(b))
    assert list(got) == ["Cluster/cluster"]
    f = got["Cluster/cluster"]
    assert f.status == Status.UNKNOWN and f.params["missing"] == "metrics/"
    _, doc = gx("capacity", "-b", str(write_bundle(b)), "--pods", "-o", "json")
    assert all(r["used"]["status"] == "unknown" for r in doc["nodes"])
    assert {p["status"] for p in doc["pods"]} == {"no-metrics"}
    assert doc["usage"]["status"] == "unknown"


def test_node_without_scrape_and_unreadable_scrape(write_bundle: WriteBundle) -> None:
    b, gpus = usage_cluster(scrapes=False)
    b.metrics("gpu-1", scrape("gpu-1", gpus["gpu-1"]))
    got = _gx601(write_bundle(b))
    assert got["Node/gpu-2"].status == Status.UNKNOWN
    assert got["Node/gpu-2"].params["missing"] == "metrics/gpu-2.prom"
    assert got["Pod/ml/train-0"].status == Status.FAIL
    b.metrics("gpu-2", "DCGM_FI_DEV_GPU_UTIL{gpu=\"0\" 12 garbage {{{\n")
    got = _gx601(write_bundle(b))
    assert got["Node/gpu-2"].status == Status.UNKNOWN
    assert "malformed" in got["Node/gpu-2"].params["reason"]
    b.metrics("gpu-2", "\x00\x01\x02 binary junk")
    assert _gx601(write_bundle(b))["Node/gpu-2"].status == Status.UNKNOWN


def test_time_slicing_is_not_attributable_and_said_so(write_bundle: WriteBundle) -> None:
    b = sharing_cluster()
    b.metrics("ts-1", scrape("ts-1", [Gpu(i, util=0, fb_used=5000) for i in range(8)]))
    b.metrics("ts-2", scrape("ts-2", [Gpu(i, util=0, fb_used=5000) for i in range(4)]))
    b.metrics("plain-1", scrape("plain-1", [Gpu(i) for i in range(2)]))
    with open_bundle(write_bundle(b)) as snap:
        pu = {u.pod: u for u in pod_usage(snap)}
        fl = run_all(snap, ["GX601"])
    assert {u.status for u in pu.values()} == {"not-attributable"}
    assert all(u.idle is None for u in pu.values())
    assert {(str(f.subject), f.status.value) for f in fl} == {
        ("Node/ts-1", "unknown"), ("Node/ts-2", "unknown")}


def test_mig_instances_use_graphics_engine_activity(gx: Gx, write_bundle: WriteBundle) -> None:
    b = ClusterBuilder()
    b.node("mig-1", gpus=14, resource="nvidia.com/mig-1g.10gb", product=A100_80,
           labels={"nvidia.com/mig.strategy": "mixed"})
    b.pod("ml", "mig-idle", node="mig-1", gpus=1, resource="nvidia.com/mig-1g.10gb")
    b.pod("ml", "mig-busy", node="mig-1", gpus=1, resource="nvidia.com/mig-1g.10gb")
    b.metrics("mig-1", scrape("mig-1", [
        Gpu(0, util=0, fb_used=9000, fb_total=9856, mig_profile="1g.10gb", mig_id=7,
            namespace="ml", pod="mig-idle", container="main"),
        Gpu(0, util=64, fb_used=9000, fb_total=9856, mig_profile="1g.10gb", mig_id=8,
            namespace="ml", pod="mig-busy", container="main"),
    ]))
    root = write_bundle(b)
    got = _gx601(root)
    assert set(got) == {"Pod/ml/mig-idle"}
    assert got["Pod/ml/mig-idle"].params["gpu"] == "GPU 0 MIG 1g.10gb #7"
    _, doc = gx("capacity", "-b", str(root), "-o", "json")
    used = doc["nodes"][0]["used"]
    assert used["gpus"] == 2 and used["util_pct"] == 32.0
    assert used["power_w"] == 60  # one physical GPU, counted once


def test_exported_labels_and_missing_pod_mapping(write_bundle: WriteBundle) -> None:
    b, gpus = usage_cluster(scrapes=False)
    text = scrape("gpu-1", gpus["gpu-1"]).replace('container="', 'exported_container="') \
        .replace('namespace="', 'exported_namespace="').replace('pod="', 'exported_pod="')
    b.metrics("gpu-1", text)
    # gpu-2's exporter runs without the Kubernetes mapping: no pod labels at all
    b.metrics("gpu-2", scrape("gpu-2", [Gpu(i, util=0, fb_used=3000) for i in range(4)]))
    got = _gx601(write_bundle(b))
    assert got["Pod/ml/train-0"].status == Status.FAIL
    assert got["Pod/research/nb-0"].status == Status.UNKNOWN
    assert got["Pod/research/dev-0"].status == Status.UNKNOWN
    assert "Node/gpu-2" not in got


@pytest.mark.parametrize("junk", ["", "# just a comment\n", "up 1\n"])
def test_scrape_without_dcgm_series_is_an_error_for_that_node(
        write_bundle: WriteBundle, junk: str) -> None:
    b, _ = usage_cluster(scrapes=False)
    b.metrics("gpu-1", junk)
    with open_bundle(write_bundle(b)) as snap:
        usage = usage_from_metrics(snap)
    assert set(usage.node_errors) == {"gpu-1"} and usage.series == ()


def test_prometheus_source_rejects_bad_urls_and_windows() -> None:
    from gpuxray.sources.prometheus import PrometheusError, parse_window, query_window

    assert parse_window("3h") == "3h" and parse_window("1h30m") == "1h30m"
    for bad in ("", "3", "0h", "3 hours", "-1h"):
        with pytest.raises(ValueError):
            parse_window(bad)
    with pytest.raises(PrometheusError):
        query_window("file:///etc/passwd", "3h")
