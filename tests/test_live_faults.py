"""The live source under injected faults (``gpuxray serve --fault``): bounded retries that honour
Retry-After, 410 restarts, and never a partial list reported as complete. Plus request counts:
O(kinds × pages), never O(nodes)."""

from __future__ import annotations

import json
import math
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from gpuxray.model.snapshot import Input, Snapshot
from gpuxray.serve.server import RequestRecord
from gpuxray.sources import live
from gpuxray.sources.apiresources import RESOURCES
from gpuxray.sources.bundle import open_bundle
from gpuxray.sources.collect import write_bundle
from live_fixtures import many_nodes, scenario, served, write_kubeconfig, write_scenario

POLICY = live.RetryPolicy(attempts=4, backoff_s=0.01, max_backoff_s=0.02, connect_timeout_s=2,
                          read_timeout_s=5, page_size=2, list_restarts=2)


@pytest.fixture(scope="module")
def bundle(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_scenario(scenario(), tmp_path_factory.mktemp("faults") / "b")


@dataclass
class Run:
    snap: Snapshot
    client: live.Client
    records: list[RequestRecord]
    sleeps: list[float] = field(default_factory=list)

    def lists(self, path: str) -> list[RequestRecord]:
        return [r for r in self.records if r.path.split("?")[0] == path]


def live_run(bundle: Path, tmp_path: Path, *faults: str,
             policy: live.RetryPolicy = POLICY) -> Run:
    sleeps: list[float] = []
    with served(bundle, faults) as srv:
        transport, name = live.kube_transport(str(write_kubeconfig(srv, tmp_path / "kc")), None)
        client = live.Client(transport, policy, sleep=sleeps.append)
        snap = live.snapshot_from(client, live.Progress(quiet=True), name)
        return Run(snap, client, list(srv.records), sleeps)


# APIs a cluster may lack (the NVIDIADriver CRD, DRA before Kubernetes 1.34, NVIDIA's
# ComputeDomain CRD): the test bundle has none of them, so the served API answers 404.
OPTIONAL = {"nvidiadrivers", "deviceclasses", "resourceslices", "resourceclaims",
            "resourceclaimtemplates", "computedomains"}


def assert_complete(run: Run) -> None:
    s = run.snap
    for res in RESOURCES:
        if res.plural not in OPTIONAL:
            assert s.has(res.inp), (res.plural, s.state(res.inp))
    assert sorted(n.metadata.name for n in s.nodes) == ["cpu-1", "gpu-1", "gpu-2", "gpu-3"]
    assert len({(p.metadata.namespace, p.metadata.name) for p in s.pods}) == len(s.pods) == 6
    assert len(s.events) == 2 and len(s.logs) == 6


def test_no_faults_baseline(bundle: Path, tmp_path: Path) -> None:
    run = live_run(bundle, tmp_path)
    assert_complete(run)
    assert run.sleeps == []
    assert run.client.requests == len(run.records)
    assert len(run.lists("/api/v1/pods")) == 3  # 6 pods, 2 per page


def test_429_honours_retry_after(bundle: Path, tmp_path: Path) -> None:
    run = live_run(bundle, tmp_path, "429:every=3,retry-after=2")
    assert_complete(run)
    throttled = [r for r in run.records if r.status == 429]
    assert throttled
    assert run.sleeps.count(2.0) == len(throttled)
    assert run.client.requests == len(run.records)


def test_retry_after_is_capped(bundle: Path, tmp_path: Path) -> None:
    run = live_run(bundle, tmp_path, "429:times=1,retry-after=3600")
    assert_complete(run)
    assert run.sleeps == [POLICY.retry_after_cap_s]


def test_500s_and_dropped_connections_are_retried(bundle: Path, tmp_path: Path) -> None:
    run = live_run(bundle, tmp_path, "500:every=4", "drop:every=5")
    assert_complete(run)
    kinds = Counter(r.fault for r in run.records)
    assert kinds["500"] and kinds["drop"]
    assert len(run.sleeps) == kinds["500"] + kinds["drop"]


def test_410_on_continue_restarts_the_list(bundle: Path, tmp_path: Path) -> None:
    run = live_run(bundle, tmp_path, "410:path=/api/v1/pods")
    assert_complete(run)
    pods = run.lists("/api/v1/pods")
    assert [r.status for r in pods] == [200, 410, 200, 200, 200]
    assert sum("continue=" not in r.path for r in pods) == 2  # started over once


def test_410_forever_is_bounded_and_reported(bundle: Path, tmp_path: Path) -> None:
    run = live_run(bundle, tmp_path, "410:path=/api/v1/pods,times=1000")
    st = run.snap.state(Input.PODS)
    assert not st.collected and "410" in st.reason
    assert run.snap.pods == []
    assert len(run.lists("/api/v1/pods")) == 2 * (POLICY.list_restarts + 1)
    assert not run.snap.has(Input.LOGS)  # logs are read for listed pods only
    assert run.snap.has(Input.NODES)


def test_failure_mid_pagination_is_never_a_complete_list(bundle: Path, tmp_path: Path) -> None:
    run = live_run(bundle, tmp_path, "500:path=/api/v1/nodes,continue")
    st = run.snap.state(Input.NODES)
    assert not st.collected
    assert "incomplete" in st.reason and "1 page" in st.reason
    assert run.snap.nodes == []  # not the first page passed off as the cluster
    assert len(run.lists("/api/v1/nodes")) == 1 + POLICY.attempts
    assert run.snap.has(Input.PODS)


def test_collect_records_the_gap_and_writes_no_partial_file(bundle: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    with served(bundle, ("500:path=/api/v1/nodes,continue",)) as srv:
        transport, name = live.kube_transport(str(write_kubeconfig(srv, tmp_path / "kc")), None)
        write_bundle(str(out), transport, live.Progress(quiet=True), context=name,
                     policy=POLICY)
    assert not (out / "cluster" / "nodes.json").exists()
    assert not list(out.rglob("*.part"))
    manifest = json.loads((out / "manifest.json").read_text())
    assert "cluster/nodes.json" in [e["what"] for e in manifest["errors"]]
    with open_bundle(out) as snap:
        st = snap.state(Input.NODES)
        assert not st.collected and "incomplete" in st.reason
        assert len(snap.pods) == 6  # paged through 3 pages, merged into one List


def test_persistent_errors_give_up_after_the_bound(bundle: Path, tmp_path: Path) -> None:
    run = live_run(bundle, tmp_path, "503:path=/api/v1/events,retry-after=0")
    st = run.snap.state(Input.EVENTS)
    assert not st.collected and f"{POLICY.attempts} attempts" in st.reason
    assert len(run.lists("/api/v1/events")) == POLICY.attempts
    assert run.snap.has(Input.PODS) and run.snap.has(Input.NODES)


def test_slow_responses_time_out_and_are_retried(bundle: Path, tmp_path: Path) -> None:
    policy = live.RetryPolicy(attempts=3, backoff_s=0.01, max_backoff_s=0.02,
                              connect_timeout_s=2, read_timeout_s=0.4, page_size=2)
    run = live_run(bundle, tmp_path, "slow:delay=1.2,path=/api/v1/nodes,times=1",
                   "slow:delay=0.1,path=/api/v1/pods,times=1", policy=policy)
    assert_complete(run)
    assert len(run.lists("/api/v1/nodes")) == 3  # 2 pages + 1 retry after the timeout
    assert len(run.lists("/api/v1/pods")) == 3  # slow but within the timeout: no retry
    assert len(run.sleeps) == 1


@pytest.fixture(scope="module")
def big_bundle(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    yield many_nodes(2000).write(tmp_path_factory.mktemp("big") / "b")


@pytest.mark.parametrize("page_size", [500, 1000])
def test_request_count_is_kinds_times_pages(big_bundle: Path, tmp_path: Path,
                                            page_size: int) -> None:
    policy = live.RetryPolicy(page_size=page_size)
    run = live_run(big_bundle, tmp_path, policy=policy)
    assert len(run.snap.nodes) == 2000
    node_pages = math.ceil(2000 / page_size)
    assert len(run.lists("/api/v1/nodes")) == node_pages
    # /version, then one LIST per kind (an empty or absent kind is one request), nodes paged,
    # and one discovery of resource.k8s.io after its v1 LIST answered 404 (older versions?)
    expected = 1 + (len(RESOURCES) - 1) + node_pages + 1
    assert run.client.requests == len(run.records) == expected
