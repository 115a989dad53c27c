"""Live collection against the real kube-apiserver, as a read-only ServiceAccount.

The live-source scenario is replayed into the apiserver; ``deploy/rbac-readonly.yaml`` is
applied as shipped; every analysing command and ``collect`` (with a small ``--chunk-size``, so
every list spans pages joined by continue tokens) run with a TokenRequest kubeconfig for its
ServiceAccount. The apiserver's audit log (every request at Metadata level) then proves that
the ServiceAccount sent nothing but get/list and that lists were paged. A ServiceAccount missing
some grants gets ``unknown`` findings naming the inputs it could not read, never a crash.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import controlplane as cplane
from controlplane_fixture import control_plane, replayed  # noqa: F401
from gpuxray.cli.main import run

pytestmark = pytest.mark.slow

SA_NS, SA = "gpu-operator", "gpuxray-readonly"
READ_VERBS = {"get", "list", "watch"}


@pytest.fixture
def cluster(replayed: cplane.ControlPlane) -> cplane.ControlPlane:  # noqa: F811
    return replayed


def run_json(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, Any]:
    capsys.readouterr()
    code = run(list(args))
    out = capsys.readouterr()
    assert "Traceback" not in out.err
    return code, json.loads(out.out) if "-o" in args and "json" in args else out.out


def sa_requests(cp: cplane.ControlPlane, user: str, since: int) -> list[dict[str, Any]]:
    return [e for e in cp.audit_events()[since:]
            if e.get("user", {}).get("username") == user and e.get("stage") == "ResponseComplete"]


def test_every_command_reads_only(cluster: cplane.ControlPlane, tmp_path: Path,
                                  capsys: pytest.CaptureFixture[str]) -> None:
    cp = cluster
    kc = str(cp.service_account_kubeconfig(SA_NS, SA, tmp_path / "sa.kubeconfig"))
    since = len(cp.audit_events())
    bundle = tmp_path / "bundle"
    code, _ = run_json(capsys, "collect", "--kubeconfig", kc, "-o", str(bundle), "-q",
                       "--chunk-size", "2")
    assert code == 0
    manifest = json.loads((bundle / "manifest.json").read_text())
    assert manifest["errors"] == [], manifest["errors"]
    pods = json.loads((bundle / "cluster" / "pods.json").read_text())["items"]
    real = cp.get("/api/v1/pods")["items"]
    assert sorted(p["metadata"]["uid"] for p in pods) == sorted(p["metadata"]["uid"]
                                                                for p in real)
    assert len(pods) >= 6

    code, out = run_json(capsys, "check", "--kubeconfig", kc, "-o", "json")
    assert code in (0, 1, 3)
    live_codes = sorted((f["code"], f["subject"]["name"]) for f in out["findings"])
    code, offline = run_json(capsys, "check", "--bundle", str(bundle), "-o", "json")
    assert live_codes == sorted((f["code"], f["subject"]["name"]) for f in offline["findings"])
    assert not [f for f in out["findings"] if f["status"] == "unknown"
                and f["code"].startswith(("GX1", "GX2"))], "a readable input reported unknown"
    code, out = run_json(capsys, "why", "ml/big-job", "--kubeconfig", kc, "-o", "json")
    assert code in (0, 1, 3) and out["findings"][0]["code"] in ("GX204", "GX205"), out
    code, out = run_json(capsys, "capacity", "--kubeconfig", kc, "-o", "json")
    assert code == 0
    code, _ = run_json(capsys, "mig", "--nodes", "--kubeconfig", kc)
    assert code in (0, 1, 3)
    code, text = run_json(capsys, "exporter", "--once", "--kubeconfig", kc)
    assert code == 0 and "gpuxray_" in text

    user = f"system:serviceaccount:{SA_NS}:{SA}"
    seen = sa_requests(cp, user, since)
    assert len(seen) > 30
    verbs = {e["verb"] for e in seen}
    assert verbs <= READ_VERBS, verbs
    assert all(e["responseStatus"]["code"] < 400 for e in seen), [
        (e["verb"], e["requestURI"], e["responseStatus"]["code"]) for e in seen
        if e["responseStatus"]["code"] >= 400]
    assert not [e for e in seen if e.get("objectRef", {}).get("resource") == "secrets"]
    paged = [e for e in seen if "continue=" in e["requestURI"]
             and e["requestURI"].startswith("/api/v1/pods")]
    assert paged, "pods were not listed in pages"


def test_missing_permissions_are_unknown(cluster: cplane.ControlPlane, tmp_path: Path,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    cp = cluster
    role = {"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRole",
            "metadata": {"name": "gpuxray-partial"},
            "rules": [{"apiGroups": [""], "resources": ["nodes", "pods", "resourcequotas"],
                       "verbs": ["get", "list", "watch"]},
                      {"apiGroups": ["apps"], "resources": ["daemonsets", "deployments",
                                                            "replicasets"],
                       "verbs": ["get", "list"]},
                      {"nonResourceURLs": ["/version"], "verbs": ["get"]}]}
    cp.create(role)
    cp.create({"apiVersion": "v1", "kind": "ServiceAccount",
               "metadata": {"name": "gpuxray-partial", "namespace": SA_NS}})
    cp.create({"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRoleBinding",
               "metadata": {"name": "gpuxray-partial"},
               "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole",
                           "name": "gpuxray-partial"},
               "subjects": [{"kind": "ServiceAccount", "name": "gpuxray-partial",
                             "namespace": SA_NS}]})
    try:
        kc = str(cp.service_account_kubeconfig(SA_NS, "gpuxray-partial", tmp_path / "p.kubeconfig"))
        # a pod naming a RuntimeClass makes GX102 need the RuntimeClass list
        cp.create({"apiVersion": "v1", "kind": "Pod",
                   "metadata": {"name": "rc-user", "namespace": "ml"},
                   "spec": {"runtimeClassName": "nvidia", "containers": [
                       {"name": "main", "image": "nvcr.io/nvidia/cuda:12.6.2-base-ubuntu22.04",
                        "resources": {"limits": {"nvidia.com/gpu": "1"}}}]}})
        bundle = tmp_path / "partial"
        code, _ = run_json(capsys, "collect", "--kubeconfig", kc, "-o", str(bundle), "-q")
        assert code == 0
        errors = {e["what"]
                  for e in json.loads((bundle / "manifest.json").read_text())["errors"]}
        for missing in ("events", "configmaps", "runtimeclasses", "jobs", "statefulsets"):
            assert any(missing in str(e) for e in errors), (missing, errors)
        code, out = run_json(capsys, "check", "--kubeconfig", kc, "-o", "json")
        assert code in (1, 3)
        unknown = [f for f in out["findings"] if f["status"] == "unknown"]
        named = " ".join(json.dumps(f) for f in unknown)
        # configmaps: nothing in this cluster names a device-plugin config, so no check needs them
        for inp in ("events", "runtimeclasses"):
            assert inp in named, (inp, [f["code"] for f in unknown])
        code, out = run_json(capsys, "why", "ml/big-job", "--kubeconfig", kc, "-o", "json")
        assert code in (0, 1, 3)
        steps = {s["step"]: s for s in out.get("path", [])}
        assert any(s["result"] == "unknown" and "events" in s["detail"] for s in steps.values())
    finally:
        cp.request("DELETE", "/api/v1/namespaces/ml/pods/rc-user?gracePeriodSeconds=0")
        for kind in ("clusterroles", "clusterrolebindings"):
            cp.request("DELETE", f"/apis/rbac.authorization.k8s.io/v1/{kind}/gpuxray-partial")
