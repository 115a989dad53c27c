"""The ``control_plane`` fixture: one real control plane (tests/controlplane.py) per test
session, shared by every oracle test; each test works in its own namespace and removes its own
nodes.

Without the binaries it builds them (scripts/oracles/kube.sh) when Go is installed; without Go
it skips on a developer machine and fails in CI (``CI`` set): an oracle that cannot run is not
a pass.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Iterator

import pytest

import controlplane as cplane


def _require_binaries() -> None:
    if not cplane.missing_binaries():
        return
    if shutil.which("go"):
        p = subprocess.run(["bash", str(cplane.ROOT / "scripts/oracles/kube.sh")],
                           capture_output=True, text=True, timeout=3600)
        if p.returncode == 0 and not cplane.missing_binaries():
            return
        pytest.fail(f"building the control plane failed: {p.stderr.strip()[-2000:]}")
    if os.environ.get("CI"):
        pytest.fail(f"CI: control plane binaries missing ({', '.join(cplane.missing_binaries())})"
                    " and no Go toolchain to build them")
    pytest.skip("no Go toolchain: the real control plane (scripts/oracles/kube.sh) cannot be "
                "built on this machine")


@pytest.fixture(scope="session")
def control_plane(tmp_path_factory: pytest.TempPathFactory) -> Iterator[cplane.ControlPlane]:
    _require_binaries()
    root = tmp_path_factory.mktemp("controlplane")
    try:
        cp = cplane.start(root)
    except (OSError, RuntimeError, TimeoutError, subprocess.CalledProcessError) as exc:
        pytest.fail(f"control plane did not start: {exc}")
    try:
        cplane.wait_scheduler(cp)
        yield cp
    finally:
        cp.stop()
        shutil.rmtree(root / "etcd", ignore_errors=True)


@pytest.fixture
def namespace(control_plane: cplane.ControlPlane, request: pytest.FixtureRequest) -> Iterator[str]:
    """A fresh namespace for one test, deleted (pods force-deleted first) afterwards."""
    name = "t-" + request.node.name.lower().replace("_", "-")[:50].strip("-")
    control_plane.ensure_namespace(name)
    try:
        yield name
    finally:
        control_plane.delete_namespace(name)


@pytest.fixture(scope="session")
def replayed(control_plane: cplane.ControlPlane) -> cplane.ControlPlane:
    """The live-source scenario (tests/live_fixtures.py) replayed into the control plane, with
    the operator's CRDs and deploy/rbac-readonly.yaml applied. It holds the gpu-operator
    namespace and nodes gpu-1..3, cpu-1 until the session ends: tests that make operand
    DaemonSets of their own (test_controlplane_daemonset.py) run before it, in file order."""
    from live_fixtures import scenario

    cp = control_plane
    rbac = str(cplane.ROOT / "deploy" / "rbac-readonly.yaml")
    cplane.install_crds(cp)
    b = scenario()
    # the workloads' controllers would add pods of their own; their templates are kept as
    # objects without replicas to create
    for plural in ("deployments", "replicasets", "statefulsets"):
        for w in b.cluster.get(plural, []):
            w["spec"]["replicas"] = 0
    for j in b.cluster.get("jobs", []):
        j["spec"]["suspend"] = True
    for pod in b.cluster.get("pods", []):
        # no kubelet runs the containers, so none has started and none has a log to read
        pod["status"].pop("containerStatuses", None)
        pod["status"].pop("initContainerStatuses", None)
    cplane.load_cluster(cp, b.cluster)
    cp.kubectl("apply", "-f", rbac)
    # kept until the session ends, when the control plane goes with everything in it
    return cp
