"""DRA at every served version, against the real kube-apiserver's own conversion.

Kubernetes 1.32 serves ``resource.k8s.io`` as v1beta1 only, 1.33 as v1beta2 and v1beta1,
1.34+ as v1 (kubernetes/kubernetes@v1.37.2:pkg/registry/resource/rest/storage_resource.go);
v1beta1 keeps device properties under ``basic`` and request fields on the request itself.

* Conversion: one apiserver serving all three versions stores random slices, classes, claims
  (with allocation status) and templates written at v1; each is read back at v1, v1beta2 and
  v1beta1 — the server's conversion, not ours — and gpuxray's structs must decode the three
  documents to one equal object.
* Fallback: an apiserver serving v1beta1 only (as 1.32 does) holds a DRA cluster whose
  objects are the first server's v1beta1 documents; ``why`` and ``capacity`` against it live
  (v1 and v1beta2 answer 404, v1beta1 is listed) give exactly what they give on the v1 bundle
  of the same cluster, and ``collect`` records the v1beta1 objects.
"""

from __future__ import annotations

import json
import random
import shutil
import subprocess
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import msgspec
import pytest

import controlplane as cplane
from controlplane_fixture import _require_binaries
from gpuxray.model import dra
from gpuxray.scenarios import dra as S
from gpuxray.scenarios.builder import ClusterBuilder

pytestmark = pytest.mark.slow

Obj = dict[str, Any]
Run = Callable[..., tuple[int, Any]]
GROUP = "/apis/resource.k8s.io"
VERSIONS = ("v1", "v1beta2", "v1beta1")
ALL_VERSIONS = "--runtime-config=resource.k8s.io/v1beta1=true,resource.k8s.io/v1beta2=true"
ONLY_V1BETA1 = "--runtime-config=resource.k8s.io/v1=false,resource.k8s.io/v1beta1=true"
TYPES: dict[str, Any] = {"resourceslices": dra.ResourceSlice, "deviceclasses": dra.DeviceClass,
                         "resourceclaims": dra.ResourceClaim,
                         "resourceclaimtemplates": dra.ResourceClaimTemplate}
DRA_PLURALS = tuple(TYPES)
DRA_KINDS = frozenset({"ResourceSlice", "DeviceClass", "ResourceClaim", "ResourceClaimTemplate"})


def _server(tmp: pytest.TempPathFactory, name: str, args: str) -> Iterator[cplane.ControlPlane]:
    _require_binaries()
    root = tmp.mktemp(name)
    try:
        cp = cplane.start(root, components=("etcd", "kube-apiserver"), apiserver_args=(args,))
    except (OSError, RuntimeError, TimeoutError, subprocess.CalledProcessError) as exc:
        pytest.fail(f"apiserver ({args}) did not start: {exc}")
    try:
        yield cp
    finally:
        cp.stop()
        shutil.rmtree(root / "etcd", ignore_errors=True)


@pytest.fixture(scope="module")
def all_versions(tmp_path_factory: pytest.TempPathFactory) -> Iterator[cplane.ControlPlane]:
    yield from _server(tmp_path_factory, "dra-all", ALL_VERSIONS)


@pytest.fixture(scope="module")
def v1beta1_only(tmp_path_factory: pytest.TempPathFactory) -> Iterator[cplane.ControlPlane]:
    yield from _server(tmp_path_factory, "dra-v1beta1", ONLY_V1BETA1)


def _plural(obj: Obj) -> str:
    return {"DeviceClass": "deviceclasses"}.get(obj["kind"], obj["kind"].lower() + "s")


def _path(obj: Obj, version: str) -> str:
    plural = _plural(obj)
    ns = obj["metadata"].get("namespace")
    where = f"/namespaces/{ns}" if ns else ""
    return f"{GROUP}/{version}{where}/{plural}/{obj['metadata']['name']!s}"


def _at(cp: cplane.ControlPlane, obj: Obj, version: str) -> Obj:
    return dict(cp.get(_path(obj, version)))


def _decode(plural: str, doc: Obj) -> Any:
    body = {k: v for k, v in doc.items() if k not in ("apiVersion",)}
    return msgspec.json.decode(msgspec.json.encode(body), type=TYPES[plural])


def _random_cluster(rng: random.Random, seed: int) -> ClusterBuilder:
    """Slices of GPUs and MIG devices (some tainted), both classes, claims of every request
    shape the allocator reads (counts, All, selectors, tolerations, firstAvailable, two
    requests with a matchAttribute constraint), some allocated, and templates."""
    b = ClusterBuilder()
    S.add_device_classes(b)
    taint = {"key": "gpu.nvidia.com/unhealthy", "value": "xid-79", "effect": "NoSchedule"}
    for n in range(3):
        node = f"dra-{seed}-{n}"
        b.node(node, labels=S.dra_node_labels())
        devices = [S.gpu_device(node, i, rng.choice((S.H100, S.A100_40)),
                                [taint] if rng.random() < 0.3 else None)
                   for i in range(rng.randint(1, 4))]
        devices += [S.mig_device(node, 0, start=k) for k in range(rng.randint(0, 2))]
        S.add_slice(b, node, devices, generation=rng.randint(1, 3))
    tol = [{"key": "gpu.nvidia.com/unhealthy", "operator": "Exists", "effect": "NoSchedule"}]
    for i in range(12):
        shape = rng.randrange(6)
        constraints = None
        if shape == 0:
            reqs = [S.request(count=rng.randint(1, 3))]
        elif shape == 1:
            reqs = [S.request(mode="All")]
        elif shape == 2:
            reqs = [S.request(selectors=["device.capacity['gpu.nvidia.com'].memory.compareTo("
                                         "quantity('40Gi')) >= 0"], tolerations=tol)]
        elif shape == 3:
            reqs = [S.first_available("gpu", [S.request("eight", count=8),
                                               S.request("one", count=1)])]
        elif shape == 4:
            reqs = [S.request("a"), S.request("b", device_class="mig.nvidia.com")]
            constraints = [{"requests": ["a", "b"],
                            "matchAttribute": "gpu.nvidia.com/productName"}]
        else:
            reqs = [S.request(device_class="mig.nvidia.com", count=2)]
        held = shape == 0 and rng.random() < 0.5
        allocated = [("gpu", f"dra-{seed}-0", "gpu-0")] if held else None
        S.add_claim(b, "ml", f"claim-{i}", reqs, allocated=allocated, constraints=constraints)
        if rng.random() < 0.5:
            S.add_template(b, "ml", f"tmpl-{i}", reqs)
    return b


@pytest.mark.parametrize("seed", range(3))
def test_every_version_decodes_to_one_object(all_versions: cplane.ControlPlane,
                                             seed: int) -> None:
    cp = all_versions
    b = _random_cluster(random.Random(seed), seed)
    ns = f"ml-{seed}"
    for plural in ("deviceclasses", "resourceclaims", "resourceclaimtemplates"):
        for o in b.cluster.get(plural, []):
            if o["metadata"].get("namespace"):
                o["metadata"]["namespace"] = ns
            else:
                o["metadata"]["name"] = f"{o['metadata']['name']}-{seed}"
    created = cplane.load_cluster(cp, {p: b.cluster.get(p, []) for p in
                                       ("nodes", *DRA_PLURALS)})
    compared = 0
    allocated = 0
    for obj in created.values():
        if obj.get("kind") not in DRA_KINDS:
            continue
        plural = _plural(obj)
        docs = {v: _at(cp, obj, v) for v in VERSIONS}
        assert "basic" in json.dumps(docs["v1beta1"]) or plural != "resourceslices"
        decoded = {v: _decode(plural, d) for v, d in docs.items()}
        assert decoded["v1beta2"] == decoded["v1"], (plural, obj["metadata"]["name"])
        assert decoded["v1beta1"] == decoded["v1"], (plural, obj["metadata"]["name"])
        allocated += bool(plural == "resourceclaims" and decoded["v1"].status.allocation)
        compared += 1
    assert compared >= 12 + 2 + 3
    assert allocated == sum(1 for c in b.cluster["resourceclaims"]
                            if c["status"].get("allocation"))


def _cluster_for_fallback() -> ClusterBuilder:
    """The healthy DRA cluster plus pending pods that stop at different DRA leaves, and one
    that fits."""
    b = S.healthy_dra_cluster()
    cases: list[tuple[str, list[Obj]]] = [
        ("fits", [S.request()]),
        ("too-many", [S.request(count=9)]),
        ("no-match", [S.request(selectors=["device.attributes['gpu.nvidia.com'].productName"
                                           " == 'NVIDIA B200'"])]),
        ("no-mig", [S.request(device_class="mig.nvidia.com")]),
        ("first-available", [S.first_available("gpu", [S.request("sixteen", count=16),
                                                       S.request("nine", count=9)])]),
    ]
    for name, reqs in cases:
        S.dra_pod(b, "ml", name, claim=f"{name}-gpu")
        S.add_claim(b, "ml", f"{name}-gpu", reqs)
    S.dra_pod(b, "ml", "no-template", template="no-such-template")
    return b


def _sourceless(verdict: Obj | None) -> Obj | None:
    """A verdict without its evidence's source names (``live:…`` against ``cluster/….json``)."""
    if verdict is None:
        return None
    return {**verdict, "evidence": [e.get("detail") for e in verdict.get("evidence", [])]}


def _v1beta1_cluster(cp: cplane.ControlPlane, b: ClusterBuilder) -> dict[str, list[Obj]]:
    """The cluster's objects, the DRA ones as the real apiserver converts them to v1beta1."""
    created = cplane.load_cluster(cp, b.cluster)
    out: dict[str, list[Obj]] = {p: list(v) for p, v in b.cluster.items()}
    for plural in DRA_PLURALS:
        out[plural] = []
    for obj in created.values():
        if obj.get("kind") in DRA_KINDS:
            doc = _at(cp, obj, "v1beta1")
            assert doc["apiVersion"] == "resource.k8s.io/v1beta1"
            out[_plural(obj)].append(doc)
    return out


def test_live_reads_a_v1beta1_only_cluster(all_versions: cplane.ControlPlane,
                                           v1beta1_only: cplane.ControlPlane, gx: Run,
                                           tmp_path: Path) -> None:
    b = _cluster_for_fallback()
    bundle = b.write(tmp_path / "v1")
    old = _v1beta1_cluster(all_versions, b)
    cplane.load_cluster(v1beta1_only, old)
    kc = str(v1beta1_only.kubeconfig)
    status, _ = v1beta1_only.request("GET", f"{GROUP}/v1/resourceslices")
    assert status == 404  # the server really lacks v1, as a 1.32 one does

    verdicts: dict[str, str | None] = {}
    for pod in ("fits", "too-many", "no-match", "no-mig", "first-available", "no-template"):
        _, want = gx("why", f"ml/{pod}", "--bundle", str(bundle), "-o", "json")
        _, got = gx("why", f"ml/{pod}", "--kubeconfig", kc, "-o", "json")
        assert _sourceless(got["verdict"]) == _sourceless(want["verdict"]), pod
        verdicts[pod] = (want["verdict"] or {}).get("code")
    assert verdicts["fits"] is None
    assert len({v for v in verdicts.values() if v}) >= 3, verdicts

    _, want = gx("capacity", "--bundle", str(bundle), "-o", "json")
    _, got = gx("capacity", "--kubeconfig", kc, "-o", "json")
    dra_rows = [r for r in want["nodes"] if r["sharing"] == "dra"]
    assert dra_rows and [r for r in got["nodes"] if r["sharing"] == "dra"] == dra_rows
    assert got["dra_pods"] == want["dra_pods"]

    code, _ = gx("collect", "-q", "-o", str(tmp_path / "out"), "--kubeconfig", kc)
    assert code == 0
    manifest = json.loads((tmp_path / "out" / "manifest.json").read_text())
    failed = {e["what"] for e in manifest["errors"]}  # the operator's CRDs are not installed
    assert not failed & {f"cluster/{p}.json" for p in DRA_PLURALS}, failed
    slices = json.loads((tmp_path / "out" / "cluster" / "resourceslices.json").read_text())
    assert {s["apiVersion"] for s in slices["items"]} == {"resource.k8s.io/v1beta1"}
    assert len(slices["items"]) == len(b.cluster["resourceslices"])
