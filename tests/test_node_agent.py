"""``collect --node-agent`` end to end against an HTTP-level fake API (tests/fake_kube_writes.py):
the manifests (validated against the Kubernetes OpenAPI schema), streaming node facts into the
bundle, per-node timeouts and failure reasons, cleanup always (success, error, Ctrl-C), the
``--yes`` gate, and the drop-in trap found by ``check`` on the collected bundle."""

from __future__ import annotations

import json
import shutil
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import kubernetes_validate
import pytest

from fake_kube_writes import FakeKube, roots_from_bundle
from gpuxray.knowledge import agent_manifests as am
from gpuxray.scenarios.demo import build_demo
from gpuxray.sources.agent import AgentOptions, agent_step
from gpuxray.sources.collect import write_bundle
from gpuxray.sources.live import Progress, kube_transport

GX = Callable[..., tuple[int, Any]]
K8S_VERSION = "1.31"
FAST = ("--poll", "0.05", "-q")
BUNDLE_HOST_PATHS = {"/etc/containerd", "/etc/cdi", "/var/run/cdi", "/etc/os-release",
                     "/etc/apt/apt.conf.d"}


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, Path]]:
    """The demo cluster (its API objects only) and its nodes' fake host trees."""
    tmp = tmp_path_factory.mktemp("demo")
    bundle = build_demo().write(tmp / "cluster")
    roots = roots_from_bundle(bundle, tmp / "roots")
    shutil.rmtree(bundle / "nodes")  # node facts must come from the agent, not the API
    return bundle, roots


@pytest.fixture
def fake(demo: tuple[Path, dict[str, Path]], request: pytest.FixtureRequest,
         ) -> Iterator[FakeKube]:
    kwargs = getattr(request, "param", {})
    with FakeKube(demo[0], demo[1], **kwargs) as f:
        yield f


def collect(gx: GX, fake: FakeKube, tmp: Path, *extra: str) -> tuple[int, Path]:
    out = tmp / "out"
    kc = fake.kubeconfig(tmp / "kubeconfig")
    code, _ = gx("collect", "-o", str(out), "--kubeconfig", str(kc), *FAST, *extra)
    return code, out


def manifest_errors(out: Path) -> dict[str, str]:
    doc = json.loads((out / "manifest.json").read_text())
    return {e["what"]: e["error"] for e in doc["errors"]}


def write_log(fake: FakeKube) -> list[tuple[str, str]]:
    return [(r.method, r.path.split("?")[0]) for r in fake.writes()]


def assert_cleaned(fake: FakeKube) -> None:
    ns = [r.path for r in fake.writes() if r.method == "POST" and r.path == "/api/v1/namespaces"]
    assert len(ns) == 1
    created = fake.requests[[r.path for r in fake.requests].index(ns[0])].body
    assert created is not None
    name = created["metadata"]["name"]
    assert ("DELETE", f"/api/v1/namespaces/{name}") in write_log(fake)
    assert fake.state.namespaces == {} and fake.state.pods == {}


# ----- manifests -----------------------------------------------------------------------------

@pytest.mark.parametrize(("all_taints", "version"),
                         [(False, "1.25"), (True, K8S_VERSION),
                          (True, kubernetes_validate.latest_version())])
def test_manifests_validate_against_openapi(all_taints: bool, version: str) -> None:
    ns = am.namespace("gpuxray-agent-abc123", "abc123", "2026-11-29T13:00:00Z")
    ds = am.daemonset("gpuxray-agent-abc123", "abc123", image="example/agent:1",
                      node_selector={"nvidia.com/gpu.present": "true"}, all_taints=all_taints,
                      hold_s=600, owner={"apiVersion": "v1", "kind": "Namespace",
                                         "name": "gpuxray-agent-abc123", "uid": "u-1"})
    for obj in (ns, ds):
        kubernetes_validate.validate(obj, version, strict=True)
    spec = ds["spec"]["template"]["spec"]
    paths = {v["hostPath"]["path"] for v in spec["volumes"]}
    assert paths >= BUNDLE_HOST_PATHS
    c = spec["containers"][0]
    assert all(m["readOnly"] for m in c["volumeMounts"])
    assert all(m["mountPath"] == "/host" + v["hostPath"]["path"]
               for m, v in zip(c["volumeMounts"], spec["volumes"], strict=True))
    sc = c["securityContext"]
    assert sc["capabilities"] == {"drop": ["ALL"], "add": ["SYSLOG"]}
    assert sc["privileged"] is False and sc["allowPrivilegeEscalation"] is False
    assert sc["readOnlyRootFilesystem"] is True
    assert spec["hostPID"] is False and spec["automountServiceAccountToken"] is False
    keys = {(t.get("key"), t.get("effect")) for t in spec["tolerations"]}
    assert ("nvidia.com/gpu", None) in keys
    assert ((None, "NoSchedule") in keys) is all_taints


def test_selector_parsing() -> None:
    assert am.parse_selector("a=b, c==d") == {"a": "b", "c": "d"}
    for bad in ("", "a", "a!=b", "=b"):
        with pytest.raises(ValueError):
            am.parse_selector(bad)


# ----- the whole flow ------------------------------------------------------------------------

@pytest.mark.slow
def test_agent_collects_demo_and_check_finds_dropin(fake: FakeKube, tmp_path: Path,
                                                    gx: GX) -> None:
    code, out = collect(gx, fake, tmp_path, "--node-agent", "--yes", "--timeout", "60")
    assert code == 0
    assert write_log(fake)[:2] == [("POST", "/api/v1/namespaces"),
                                  ("POST", write_log(fake)[1][1])]
    assert write_log(fake)[1][1].endswith("/daemonsets") and len(write_log(fake)) == 3
    assert_cleaned(fake)
    # What was POSTed validates too (the exact bodies, not just the builder's defaults).
    for r in fake.writes():
        if r.method == "POST":
            assert r.body is not None
            kubernetes_validate.validate(r.body, K8S_VERSION, strict=True)
    ds = next(r.body for r in fake.writes() if r.path.endswith("/daemonsets"))
    assert ds is not None and ds["metadata"]["ownerReferences"][0]["kind"] == "Namespace"
    # Only the nodes the selector picks (gpu-1..3), each with its own files.
    assert sorted(p.name for p in (out / "nodes").iterdir()) == ["gpu-1", "gpu-2", "gpu-3"]
    for n in ("gpu-2", "gpu-3"):
        assert (out / f"nodes/{n}/files/etc/containerd/conf.d/registry.toml").is_file()
    assert not (out / "nodes/gpu-1/files/etc/containerd/conf.d/registry.toml").exists()
    assert (out / "nodes/gpu-2/cmd/systemctl-show-containerd.txt").is_file()
    assert not any(k.startswith("nodes/") for k in manifest_errors(out))
    # The agent's own namespace/pods are not in the cluster part of the bundle.
    pods = json.loads((out / "cluster/pods.json").read_text())["items"]
    assert not any(p["metadata"]["namespace"].startswith("gpuxray-agent-") for p in pods)

    code, doc = gx("check", "--bundle", str(out), "-o", "json")
    hits = {(f["code"], f["subject"]["name"]) for f in doc["findings"] if f["status"] == "fail"}
    for c in ("GX501", "GX301"):
        assert {n for k, n in hits if k == c} == {"gpu-2", "gpu-3"}


@pytest.mark.slow
@pytest.mark.parametrize("fake", [{"behaviour": {"gpu-2": "image-pull", "gpu-3": "silent"}}],
                         indirect=True)
def test_image_pull_and_timeout_become_unknown_with_reason(fake: FakeKube, tmp_path: Path,
                                                           gx: GX) -> None:
    t0 = time.monotonic()
    code, out = collect(gx, fake, tmp_path, "--node-agent", "--yes", "--timeout", "6")
    elapsed = time.monotonic() - t0
    assert code == 0
    errs = manifest_errors(out)
    assert "ImagePullBackOff" in errs["nodes/gpu-2/"]
    assert "timed out after 6s" in errs["nodes/gpu-3/"]
    assert "nodes/gpu-1/" not in errs and (out / "nodes/gpu-1/files").is_dir()
    assert not (out / "nodes/gpu-2").exists() and not (out / "nodes/gpu-3").exists()
    assert 6 <= elapsed < 40
    assert_cleaned(fake)


@pytest.mark.parametrize("fake", [{"behaviour": {"gpu-1": "pending", "gpu-2": "fail",
                                                 "gpu-3": "image-pull"}}], indirect=True)
def test_pending_and_failing_agents(fake: FakeKube, tmp_path: Path, gx: GX) -> None:
    code, out = collect(gx, fake, tmp_path, "--node-agent", "--yes", "--timeout", "3")
    assert code == 0
    errs = manifest_errors(out)
    assert "Unschedulable" in errs["nodes/gpu-1/"] and "timed out" in errs["nodes/gpu-1/"]
    assert "failed with status" in errs["nodes/gpu-2/"]
    assert not (out / "nodes").exists()
    assert_cleaned(fake)


def test_untolerated_taint_is_unknown_without_waiting(demo: tuple[Path, dict[str, Path]],
                                                      tmp_path: Path, gx: GX) -> None:
    nodes = json.loads((demo[0] / "cluster/nodes.json").read_text())["items"]
    tainted = {n["metadata"]["name"] for n in nodes
               if any(t["key"] != "nvidia.com/gpu" for t in n["spec"].get("taints", []))}
    plain = {n["metadata"]["name"] for n in nodes if not n["spec"].get("taints")}
    assert tainted and plain  # a control-plane node and a CPU node
    with FakeKube(demo[0], demo[1], behaviour=dict.fromkeys(plain, "image-pull")) as fake:
        code, out = collect(gx, fake, tmp_path, "--node-agent", "--yes", "--timeout", "30",
                            "--nodes", "kubernetes.io/os=linux")
        errs = manifest_errors(out)
        for n in tainted:
            assert "taint" in errs[f"nodes/{n}/"]
        for n in plain:
            assert "ImagePullBackOff" in errs[f"nodes/{n}/"]
        assert {"nodes/gpu-1/", "nodes/gpu-2/", "nodes/gpu-3/"}.isdisjoint(errs)
        assert code == 0
        assert_cleaned(fake)


def test_no_matching_node_writes_nothing(fake: FakeKube, tmp_path: Path, gx: GX) -> None:
    code, out = collect(gx, fake, tmp_path, "--node-agent", "--yes", "--nodes", "absent=label")
    assert code == 0 and fake.writes() == []
    assert "no node matches" in manifest_errors(out)["nodes/"]


# ----- cleanup on error and interrupt ----------------------------------------------------------

def _python_collect(fake: FakeKube, tmp: Path, hook: Callable[[str, str], None]) -> Path:
    kc = fake.kubeconfig(tmp / "kubeconfig")
    transport, _ = kube_transport(str(kc), None)
    out = tmp / "out"
    opts = AgentOptions(timeout_s=60, poll_s=0.05)
    write_bundle(str(out), transport, Progress(True), context="fake",
                 node_facts=agent_step(transport, opts, hook=hook))
    return out


@pytest.mark.slow
def test_cleanup_after_ctrl_c_mid_collection(fake: FakeKube, tmp_path: Path) -> None:
    seen: list[str] = []

    def hook(event: str, node: str) -> None:
        seen.append(event)
        if event == "saved":
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        _python_collect(fake, tmp_path, hook)
    assert seen[-1] == "saved"
    assert_cleaned(fake)
    assert not (tmp_path / "out").exists()  # no half bundle mistaken for a whole one


@pytest.mark.parametrize("at", ["namespace", "daemonset"])
def test_cleanup_after_error(fake: FakeKube, tmp_path: Path, at: str) -> None:
    def hook(event: str, node: str) -> None:
        if event == at:
            raise RuntimeError("boom")

    with pytest.raises(RuntimeError):
        _python_collect(fake, tmp_path, hook)
    assert_cleaned(fake)


@pytest.mark.parametrize("fake", [{"reject_daemonsets": 403}], indirect=True)
def test_rejected_daemonset_is_one_line_error_and_cleaned(fake: FakeKube, tmp_path: Path,
                                                          gx: GX,
                                                          capsys: pytest.CaptureFixture[str],
                                                          ) -> None:
    code, out = collect(gx, fake, tmp_path, "--node-agent", "--yes")
    assert code == 2
    assert "403" in capsys.readouterr().err
    assert_cleaned(fake)
    assert not out.exists()


# ----- the write gate --------------------------------------------------------------------------

def test_yes_required_without_tty(fake: FakeKube, tmp_path: Path, gx: GX,
                                  monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("sys.stdin.isatty", lambda: False)
    code, out = collect(gx, fake, tmp_path, "--node-agent")
    assert code == 2
    assert fake.requests == [] and not out.exists()


def test_plain_collect_issues_no_write(fake: FakeKube, tmp_path: Path, gx: GX) -> None:
    code, out = collect(gx, fake, tmp_path)
    assert code == 0 and (out / "cluster/nodes.json").is_file()
    assert fake.requests and {r.method for r in fake.requests} == {"GET"}
    assert not (out / "nodes").exists()


def test_cleanup_command_deletes_only_expired_agent_namespaces(fake: FakeKube, tmp_path: Path,
                                                               gx: GX) -> None:
    fake.state.namespaces["gpuxray-agent-old111"] = am.namespace(
        "gpuxray-agent-old111", "old111", "2020-01-01T00:00:00Z")
    fake.state.namespaces["gpuxray-agent-new222"] = am.namespace(
        "gpuxray-agent-new222", "new222", "2999-01-01T00:00:00Z")
    fake.state.namespaces["team-a"] = {"metadata": {"name": "team-a"}}
    kc = fake.kubeconfig(tmp_path / "kc")
    code, _ = gx("collect", "--node-agent-cleanup", "--yes", "--kubeconfig", str(kc), "-q")
    assert code == 0
    assert write_log(fake) == [("DELETE", "/api/v1/namespaces/gpuxray-agent-old111")]
    code, _ = gx("collect", "--node-agent-cleanup", "--all-agents", "--yes",
                 "--kubeconfig", str(kc), "-q")
    assert set(fake.state.namespaces) == {"team-a"}


@pytest.mark.parametrize("args", [("--node-agent", "--yes", "--nodes", "a!=b"),
                                  ("--node-agent", "--via-operands", "--yes")])
def test_bad_agent_options_are_usage_errors_before_any_request(
        fake: FakeKube, tmp_path: Path, gx: GX, args: tuple[str, ...]) -> None:
    code, out = collect(gx, fake, tmp_path, *args)
    assert code == 2 and fake.requests == [] and not out.exists()


def test_via_operands_through_the_real_exec_client_reports_rbac_denial(
        fake: FakeKube, tmp_path: Path, gx: GX) -> None:
    """The kubernetes client's websocket ``stream`` meets a 403 on the upgrade: every node is
    unknown with that reason, nothing is written, and only the exec subresource was asked."""
    code, out = collect(gx, fake, tmp_path, "--via-operands")
    assert code == 0 and fake.writes() == []
    err = manifest_errors(out)["nodes/"]
    assert "pods/exec not allowed" in err and "403" in err
    execs = [r for r in fake.requests if r.path.split("?")[0].endswith("/exec")]
    assert len(execs) == 1 and "command=ls" in execs[0].path
    assert not (out / "nodes").exists()
