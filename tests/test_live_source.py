"""The live source against ``gpuxray serve``: the same Snapshot as the bundle, the same findings
live / from the bundle / from a collected bundle, only reads, redaction, and clear errors."""

from __future__ import annotations

import json
import tarfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import msgspec
import pytest

from gpuxray.checks.engine import run_all
from gpuxray.checks.registry import all_checks
from gpuxray.cli.main import run
from gpuxray.errors import SourceError
from gpuxray.model.finding import Status
from gpuxray.model.snapshot import Input, Snapshot
from gpuxray.serve.server import BundleServer
from gpuxray.sources import live
from gpuxray.sources.bundle import open_bundle
from live_fixtures import SECRET_TOKEN, scenario, served, write_kubeconfig, write_scenario

FAST = live.RetryPolicy(attempts=3, backoff_s=0.01, max_backoff_s=0.05, connect_timeout_s=2,
                        read_timeout_s=5)
CLUSTER_FIELDS = ("nodes", "pods", "events", "daemonsets", "deployments", "replicasets", "jobs",
                  "statefulsets", "runtimeclasses", "resourcequotas", "configmaps",
                  "clusterpolicies", "nvidiadrivers")


@pytest.fixture(autouse=True)
def fast_retries(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(live, "DEFAULT_POLICY", FAST)


@pytest.fixture(scope="module")
def bundle(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_scenario(scenario(), tmp_path_factory.mktemp("live") / "b")


@pytest.fixture(scope="module")
def server(bundle: Path) -> Iterator[BundleServer]:
    with served(bundle) as srv:
        yield srv


@pytest.fixture(scope="module")
def kubeconfig(server: BundleServer, tmp_path_factory: pytest.TempPathFactory) -> str:
    return str(write_kubeconfig(server, tmp_path_factory.mktemp("kc") / "kubeconfig"))


def cli(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, Any]:
    capsys.readouterr()
    code = run(list(args))
    out = capsys.readouterr().out
    try:
        return code, json.loads(out)
    except json.JSONDecodeError:
        return code, out


def finding_keys(doc: dict[str, Any]) -> list[tuple[str, str, str]]:
    return sorted((f["code"], f["status"], json.dumps(f["subject"], sort_keys=True))
                  for f in doc["findings"])


def test_live_snapshot_is_the_bundle_snapshot(kubeconfig: str, bundle: Path) -> None:
    snap = live.live_snapshot(kubeconfig, None, quiet=True)
    with open_bundle(bundle) as ref:
        for inp in Input:
            if inp in (Input.HOSTS, Input.METRICS):
                continue
            assert snap.has(inp) == ref.has(inp), inp
        for name in CLUSTER_FIELDS:
            assert msgspec.json.encode(getattr(snap, name)) == msgspec.json.encode(
                getattr(ref, name)), name
        assert snap.version is not None and ref.version is not None
        assert snap.version.server_version == ref.version.server_version
        assert {k: (v.current, v.previous) for k, v in snap.logs.items()} == {
            k: (v.current, v.previous) for k, v in ref.logs.items()}
        assert snap.operator_namespace == ref.operator_namespace == "gpu-operator"
    assert snap.state(Input.PODS).source == "live:pods"
    st = snap.state(Input.NVIDIADRIVERS)  # the CRD is "not installed": 404
    assert not st.collected and st.reason.startswith("404")
    assert snap.manifest.source_kind == "live"
    assert not snap.has(Input.HOSTS) and snap.state(Input.HOSTS).reason


def test_findings_live_bundle_and_collected_agree(kubeconfig: str, bundle: Path,
                                                  tmp_path: Path,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    code_b, from_bundle = cli(capsys, "check", "-o", "json", "--bundle", str(bundle))
    code_l, from_live = cli(capsys, "check", "-o", "json", "--kubeconfig", kubeconfig)
    out = tmp_path / "collected.tar.gz"
    assert cli(capsys, "collect", "-q", "-o", str(out), "--kubeconfig", kubeconfig)[0] == 0
    code_c, from_collected = cli(capsys, "check", "-o", "json", "--bundle", str(out))
    assert finding_keys(from_live) == finding_keys(from_bundle) == finding_keys(from_collected)
    assert code_l == code_b == code_c
    assert finding_keys(from_bundle)  # the scenario has problems to find

    cap_b = cli(capsys, "capacity", "-o", "json", "--bundle", str(bundle))
    cap_l = cli(capsys, "capacity", "-o", "json", "--kubeconfig", kubeconfig)
    cap_c = cli(capsys, "capacity", "-o", "json", "--bundle", str(out))
    for doc in (cap_b[1], cap_l[1], cap_c[1]):
        doc.pop("source", None)
        doc.pop("summary", None)
        doc["findings"] = finding_keys(doc)  # evidence wording names the source; codes don't
    assert cap_b == cap_l == cap_c
    assert cap_b[0] == 0


def test_every_request_is_a_read(server: BundleServer, kubeconfig: str, tmp_path: Path,
                                 capsys: pytest.CaptureFixture[str]) -> None:
    for args in (["check", "-o", "json"], ["capacity", "-o", "json"],
                 ["why", "ml/big-job", "-o", "json"],
                 ["collect", "-q", "-o", str(tmp_path / "c")]):
        before = len(server.records)
        code, _ = cli(capsys, *args, "--kubeconfig", kubeconfig)
        assert code in (0, 1, 3), args
        recs = server.records[before:]
        # version + 13 lists at least; capacity lists only the kinds it reads
        assert len(recs) >= (6 if args[0] == "capacity" else 14), args
        assert {r.method for r in recs} == {"GET"}, args
        assert not any("/secrets" in r.path for r in recs)
        assert all(r.user_agent.startswith("gpuxray/") for r in recs)


def test_collect_writes_a_bundle_atomically(kubeconfig: str, tmp_path: Path,
                                            server: BundleServer,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "out" / "snap.tar.gz"
    out.parent.mkdir()
    assert cli(capsys, "collect", "-q", "-o", str(out), "--kubeconfig", kubeconfig)[0] == 0
    assert sorted(p.name for p in out.parent.iterdir()) == ["snap.tar.gz"]  # no temp left
    with tarfile.open(out) as tar:
        members = tar.getnames()
        manifest = json.loads(tar.extractfile("snap/manifest.json").read())  # type: ignore[union-attr]
    assert "snap/cluster/nodes.json" in members
    assert "snap/logs/gpu-operator/nvidia-device-plugin-daemonset-2/"\
           "nvidia-device-plugin.previous.log" in members
    assert manifest["format"] == "gpuxray-bundle/1"
    assert manifest["source"] == {"kind": "live", "context": "gpuxray-serve",
                                  "server": server.url}
    assert manifest["operator_namespace"] == "gpu-operator"
    # optional APIs the served bundle lacks answer 404: recorded, not fatal
    assert [e["what"] for e in manifest["errors"]] == [
        "cluster/nvidiadrivers.json", "cluster/deviceclasses.json",
        "cluster/resourceslices.json", "cluster/resourceclaims.json",
        "cluster/resourceclaimtemplates.json", "cluster/computedomains.json"]
    with open_bundle(out) as snap:
        assert not snap.has(Input.NVIDIADRIVERS)
        assert snap.state(Input.NVIDIADRIVERS).reason.startswith("404")
        assert len(snap.nodes) == 4 and len(snap.pods) == 6
        assert snap.version is not None and snap.version.server_version is not None
        assert snap.version.server_version.git_version == "v1.31.4"


def test_collect_redacts_credentials(kubeconfig: str, tmp_path: Path,
                                     capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "b"
    assert cli(capsys, "collect", "-q", "-o", str(out), "--kubeconfig", kubeconfig)[0] == 0
    raw = b"".join(p.read_bytes() for p in out.rglob("*") if p.is_file())
    assert SECRET_TOKEN.encode() not in raw
    pods = {p["metadata"]["name"]: p for p in
            json.loads((out / "cluster/pods.json").read_text())["items"]}
    env = {e["name"]: e["value"] for e in pods["trainer-0"]["spec"]["containers"][0]["env"]}
    assert env == {"WANDB_API_KEY": "<redacted>", "NVIDIA_DRIVER_CAPABILITIES": "all"}
    ann = pods["trainer-0"]["metadata"]["annotations"]
    assert ann["kubectl.kubernetes.io/last-applied-configuration"] == "<redacted>"
    assert all(p["kind"] == "Pod" and p["apiVersion"] == "v1" for p in pods.values())
    with open_bundle(out) as snap:  # the operand env the checks read is kept
        dp = snap.pod_by_key[("gpu-operator", "nvidia-device-plugin-daemonset-1")]
        assert {e.name: e.value for e in dp.spec.containers[0].env}["NVIDIA_VISIBLE_DEVICES"] \
            == "all"


def test_collect_refuses_a_non_empty_directory(kubeconfig: str, tmp_path: Path) -> None:
    (tmp_path / "keep.txt").write_text("mine")
    assert run(["collect", "-q", "-o", str(tmp_path), "--kubeconfig", kubeconfig]) == 2
    assert sorted(p.name for p in tmp_path.iterdir()) == ["keep.txt"]


def test_forbidden_resource_becomes_unknown(bundle: Path, tmp_path: Path) -> None:
    with served(bundle, ("403:path=/apis/apps/v1/daemonsets",)) as srv:
        kc = str(write_kubeconfig(srv, tmp_path / "kc"))
        snap = live.live_snapshot(kc, None, quiet=True)
    st = snap.state(Input.DAEMONSETS)
    assert not st.collected and st.reason.startswith("403 Forbidden")
    assert snap.daemonsets == []
    assert snap.has(Input.NODES) and snap.has(Input.PODS)
    assert ("cluster/daemonsets.json", st.reason) in snap.manifest.errors
    findings = run_all(snap)
    for code, spec in all_checks().items():
        if Input.DAEMONSETS in spec.needs:
            assert any(f.code == code and f.status == Status.UNKNOWN for f in findings), code


def test_kubeconfig_errors_are_one_line_exit_2(tmp_path: Path, bundle: Path,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    assert run(["check", "--kubeconfig", str(tmp_path / "absent")]) == 2
    bad = tmp_path / "bad"
    bad.write_text("{{{ not: yaml: [")
    assert run(["check", "--kubeconfig", str(bad)]) == 2
    with served(bundle) as srv:
        port = srv.port
        dead = write_kubeconfig(srv, tmp_path / "dead")
    # the server is gone: nothing listens on that port any more
    assert run(["capacity", "--kubeconfig", str(dead)]) == 2
    err = capsys.readouterr().err
    assert f"127.0.0.1:{port}" in err
    assert "Traceback" not in err
    with pytest.raises(SourceError):
        live.kube_transport(str(tmp_path / "absent"), None)


def test_context_selects_the_cluster(bundle: Path, tmp_path: Path,
                                     server: BundleServer) -> None:
    cfg = {
        "apiVersion": "v1", "kind": "Config", "current-context": "dead",
        "clusters": [{"name": "good", "cluster": {"server": server.url}},
                     {"name": "dead", "cluster": {"server": "http://127.0.0.1:9"}}],
        "users": [{"name": "u", "user": {"token": "abc"}}],
        "contexts": [{"name": "good", "context": {"cluster": "good", "user": "u"}},
                     {"name": "dead", "context": {"cluster": "dead", "user": "u"}}],
    }
    kc = tmp_path / "kc"
    kc.write_text(json.dumps(cfg))
    before = len(server.records)
    snap: Snapshot = live.live_snapshot(str(kc), "good", quiet=True)
    assert snap.manifest.context == "good" and snap.origin == "live:good"
    assert len(snap.nodes) == 4
    assert len(server.records) > before
    with pytest.raises(SourceError):
        live.live_snapshot(str(kc), None, quiet=True)  # current-context is the dead one


def test_list_items_without_kind_as_the_api_sends_them(tmp_path: Path,
                                                       capsys: pytest.CaptureFixture[str]) -> None:
    """The API omits kind/apiVersion on LIST items; the Snapshot and the bundle get them back."""
    b = write_scenario(scenario(), tmp_path / "b")
    for f in (b / "cluster").glob("*.json"):
        doc = json.loads(f.read_text())
        for item in doc.get("items", []):
            item.pop("kind", None)
            item.pop("apiVersion", None)
        f.write_text(json.dumps(doc))
    with served(b) as srv:
        kc = str(write_kubeconfig(srv, tmp_path / "kc"))
        snap = live.live_snapshot(kc, None, quiet=True)
        out = tmp_path / "collected"
        assert run(["collect", "-q", "-o", str(out), "--kubeconfig", kc]) == 0
    assert {w.kind for w in snap.deployments} == {"Deployment"}
    assert {w.kind for w in snap.jobs} == {"Job"}
    assert {c.kind for c in snap.clusterpolicies} == {"ClusterPolicy"}
    for plural, kind, api in (("nodes", "Node", "v1"), ("daemonsets", "DaemonSet", "apps/v1"),
                              ("jobs", "Job", "batch/v1"),
                              ("clusterpolicies", "ClusterPolicy", "nvidia.com/v1")):
        items = json.loads((out / "cluster" / f"{plural}.json").read_text())["items"]
        assert items and {(i["kind"], i["apiVersion"]) for i in items} == {(kind, api)}, plural


def test_unreachable_cluster_leaves_no_half_bundle(tmp_path: Path, bundle: Path) -> None:
    with served(bundle) as srv:
        dead = write_kubeconfig(srv, tmp_path / "dead")
    out = tmp_path / "never"
    assert run(["collect", "-q", "-o", str(out), "--kubeconfig", str(dead)]) == 2
    assert not out.exists()
    assert run(["collect", "-q", "-o", str(tmp_path / "x.tar.gz"), "--kubeconfig",
                str(dead)]) == 2
    assert sorted(p.name for p in tmp_path.iterdir()) == ["dead"]


def test_in_cluster_service_account(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """No kubeconfig anywhere and KUBERNETES_SERVICE_HOST set: the pod's service account."""
    from kubernetes.config import incluster_config

    token, ca = tmp_path / "token", tmp_path / "ca.crt"
    token.write_text("sa-token-123")
    ca.write_text("-----BEGIN CERTIFICATE-----\n-----END CERTIFICATE-----\n")
    monkeypatch.setattr(incluster_config, "SERVICE_TOKEN_FILENAME", str(token))
    monkeypatch.setattr(incluster_config, "SERVICE_CERT_FILENAME", str(ca))
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.delenv("KUBECONFIG", raising=False)
    monkeypatch.setattr("kubernetes.config.kube_config.KUBE_CONFIG_DEFAULT_LOCATION",
                        str(tmp_path / "none"))
    monkeypatch.setenv("KUBERNETES_SERVICE_HOST", "10.96.0.1")
    monkeypatch.setenv("KUBERNETES_SERVICE_PORT", "443")
    transport, name = live.kube_transport(None, None)
    assert name == "in-cluster"
    assert transport.host == "https://10.96.0.1:443"
    cfg = transport.api.configuration
    assert cfg.get_api_key_with_prefix("BearerToken").lower() == "bearer sa-token-123"
    monkeypatch.delenv("KUBERNETES_SERVICE_HOST")
    with pytest.raises(SourceError):
        live.kube_transport(None, None)


def test_operator_in_another_namespace(tmp_path: Path) -> None:
    """ConfigMaps and logs follow the namespace the operands actually run in."""
    from gpuxray.scenarios.builder import ClusterBuilder

    ns = "nvidia-gpu-operator"
    b = ClusterBuilder()
    b.node("gpu-1", gpus=8)
    b.daemonset(ns, "nvidia-device-plugin-daemonset", desired=1,
                node_selector={"nvidia.com/gpu.deploy.device-plugin": "true"})
    b.pod(ns, "nvidia-device-plugin-daemonset-x", node="gpu-1",
          containers=[b.container("nvidia-device-plugin")])
    b.log(ns, "nvidia-device-plugin-daemonset-x", "nvidia-device-plugin", "started\n")
    b.pod("gpu-operator", "decoy", node="gpu-1")
    b.log("gpu-operator", "decoy", "main", "not an operand\n")
    b.configmap(ns, "device-plugin-config", {"a": "version: v1\n"})
    b.configmap("gpu-operator", "unrelated", {"x": "y"})
    b.manifest = None
    bdir = b.write(tmp_path / "b")
    with served(bdir) as srv:
        kc = str(write_kubeconfig(srv, tmp_path / "kc"))
        snap = live.live_snapshot(kc, None, quiet=True)
        out = tmp_path / "out"
        assert run(["collect", "-q", "-o", str(out), "--kubeconfig", kc]) == 0
        paths = [r.path for r in srv.records]
    assert snap.operator_namespace == ns
    assert [c.metadata.name for c in snap.configmaps] == ["device-plugin-config"]
    assert list(snap.logs) == [(ns, "nvidia-device-plugin-daemonset-x", "nvidia-device-plugin")]
    assert json.loads((out / "manifest.json").read_text())["operator_namespace"] == ns
    with open_bundle(out) as collected:
        assert [c.metadata.name for c in collected.configmaps] == ["device-plugin-config"]
        assert list(collected.logs) == list(snap.logs)
    assert not any("/namespaces/gpu-operator/" in p for p in paths)


def test_credentials_are_never_written(server: BundleServer, tmp_path: Path) -> None:
    token = "kubeconfig-token-must-not-leak"
    cfg = {"apiVersion": "v1", "kind": "Config", "current-context": "c",
           "clusters": [{"name": "c", "cluster": {"server": server.url}}],
           "users": [{"name": "u", "user": {"token": token}}],
           "contexts": [{"name": "c", "context": {"cluster": "c", "user": "u"}}]}
    kc = tmp_path / "kc"
    kc.write_text(json.dumps(cfg))
    out = tmp_path / "b.tgz"
    assert run(["collect", "-q", "-o", str(out), "--kubeconfig", str(kc)]) == 0
    with tarfile.open(out) as tar:
        for m in tar.getmembers():
            f = tar.extractfile(m)
            if f is not None:
                assert token.encode() not in f.read(), m.name
