"""Admission against the real kube-apiserver and ReplicaSet controller.

A real ResourceQuota on ``requests.nvidia.com/gpu``, a Deployment whose template names a missing
RuntimeClass and fractional / unequal GPU quantities: the apiserver refuses the pods (or the
object), the ReplicaSet controller records ``FailedCreate`` on its ReplicaSet, and
``gpuxray collect`` followed by ``check`` on the bundle names GX101/GX102/GX103 on the owner.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import controlplane as cplane
from controlplane_fixture import control_plane, namespace  # noqa: F401
from gpuxray.cli.main import run
from gpuxray.engines.admission import spec_gpu_problems
from gpuxray.model.k8s import PodSpec
from gpuxray.sources.decode import decode_one

pytestmark = pytest.mark.slow

Obj = dict[str, Any]


def deployment(ns: str, name: str, *, gpus: str = "1", replicas: int = 1,
               runtime_class: str | None = None, requests: str | None = None) -> Obj:
    res: Obj = {"limits": {"nvidia.com/gpu": gpus}}
    if requests is not None:
        res["requests"] = {"nvidia.com/gpu": requests}
    spec: Obj = {"containers": [{"name": "main", "image": "nvcr.io/nvidia/pytorch:24.10-py3",
                                 "resources": res}]}
    if runtime_class:
        spec["runtimeClassName"] = runtime_class
    return {"apiVersion": "apps/v1", "kind": "Deployment",
            "metadata": {"name": name, "namespace": ns, "labels": {"app": name}},
            "spec": {"replicas": replicas, "selector": {"matchLabels": {"app": name}},
                     "template": {"metadata": {"labels": {"app": name}}, "spec": spec}}}


def failed_create(cp: cplane.ControlPlane, ns: str, owner_prefix: str) -> list[Obj]:
    items: list[Obj] = cp.get(f"/api/v1/namespaces/{ns}/events")["items"]
    return [e for e in items if e["reason"] == "FailedCreate"
            and e["involvedObject"]["kind"] == "ReplicaSet"
            and e["involvedObject"]["name"].startswith(owner_prefix)]


def test_admission_refusals_are_named_on_the_owner(control_plane: cplane.ControlPlane,  # noqa: F811
                                                   namespace: str, tmp_path: Path,  # noqa: F811
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    cp, ns = control_plane, namespace
    cp.create({"apiVersion": "v1", "kind": "ResourceQuota",
               "metadata": {"name": "gpu-quota", "namespace": ns},
               "spec": {"hard": {"requests.nvidia.com/gpu": "4"}}})
    cp.wait("the quota controller to fill status.hard", lambda: cp.get(
        f"/api/v1/namespaces/{ns}/resourcequotas/gpu-quota").get("status", {}).get("hard"))
    cp.create(deployment(ns, "trainer", gpus="2", replicas=3))
    cp.create(deployment(ns, "kata-job", runtime_class="kata-nvidia-missing"))

    # the fractional quantity: refused on the Deployment itself, or on its pods
    status, body = cp.try_create(deployment(ns, "half-gpu", gpus="500m"))
    half_refused_at_object = status == 422
    print(f"\nfractional GPU limit refused on the Deployment itself: {half_refused_at_object}")
    if half_refused_at_object:
        assert "nvidia.com/gpu" in json.dumps(body)
        bad = deployment(ns, "half-gpu", gpus="500m")["spec"]["template"]["spec"]
        problems = spec_gpu_problems(decode_one(json.dumps(bad).encode(), PodSpec, "template"))
        assert problems, "gpuxray accepts a template the apiserver refuses"
    else:
        assert status == 201, body
    status, body = cp.try_create(deployment(ns, "unequal", gpus="2", requests="1"))
    assert status == 422 and "nvidia.com/gpu" in json.dumps(body), (status, body)

    quota_events = cp.wait("FailedCreate for the quota", lambda: [
        e for e in failed_create(cp, ns, "trainer-") if "exceeded quota" in e["message"]])
    rc_events = cp.wait("FailedCreate for the RuntimeClass", lambda: failed_create(
        cp, ns, "kata-job-"))
    assert "requests.nvidia.com/gpu" in quota_events[0]["message"]
    assert "kata-nvidia-missing" in rc_events[0]["message"]
    trainer_rs = quota_events[0]["involvedObject"]["name"]
    kata_rs = rc_events[0]["involvedObject"]["name"]

    bundle = tmp_path / "bundle"
    assert run(["collect", "--kubeconfig", str(cp.kubeconfig), "-o", str(bundle), "-q"]) == 0
    capsys.readouterr()
    code = run(["check", "--bundle", str(bundle), "-o", "json"])
    out = json.loads(capsys.readouterr().out)
    assert code != 0
    found = {(f["code"], f["subject"]["kind"], f["subject"]["name"])
             for f in out["findings"] if f["status"] == "fail"}
    assert ("GX101", "ReplicaSet", trainer_rs) in found, found
    assert ("GX102", "Deployment", "kata-job") in found, found
    assert ("GX102", "ReplicaSet", kata_rs) in found, found
    gx101 = next(f for f in out["findings"] if f["code"] == "GX101")
    assert gx101["params"]["resource"] == "requests.nvidia.com/gpu"
    assert str(gx101["params"]["limit"]) == "4" and str(gx101["params"]["used"]) == "4"
    if not half_refused_at_object:
        assert any(c == "GX103" and n == "half-gpu" for c, _k, n in found), found
