"""GPU nodes on CRI-O (OpenShift): containerd's checks do not apply there.

OpenShift runs the GPU Operator on Red Hat Enterprise Linux CoreOS nodes whose kubelet reports
``containerRuntimeVersion: cri-o://…``; they have no containerd config, unit or journal.
Built from a healthy operator shape (CDI on, driver container) made into that: nodes on
CRI-O and RHCOS 4.18 (osImage and NFD's os-release labels), the driver image tagged for
``rhcos4.18`` as the operator builds it, every containerd file gone. Nothing above info may
remain; the control keeps the nodes on containerd with the same missing files and must get
the containerd checks' ``unknown``s back.
"""

from __future__ import annotations

import re
from pathlib import Path

from gpuxray.checks.engine import run_all
from gpuxray.knowledge.driver_images import NFD_OS_ID, NFD_OS_VERSION_ID, os_tag
from gpuxray.model.finding import Status
from gpuxray.scenarios import healthy as hs
from gpuxray.scenarios.builder import ClusterBuilder
from gpuxray.sources.bundle import load_bundle_dir
from test_healthy_shapes import DUMPER, _above_info

SHAPE = hs.Shape("v26.3.3", True, "container", "1.7.27", "rhel", "whole")
RHCOS = "Red Hat Enterprise Linux CoreOS 418.94.202503121025-0"
CRIO = "cri-o://1.31.6-2.rhaos4.18.gitb9b2f3b.el9"


def _on(runtime: str) -> ClusterBuilder:
    b = hs.build(SHAPE, dumper=DUMPER)
    for n in b.cluster["nodes"]:
        info = n["status"]["nodeInfo"]
        info["containerRuntimeVersion"] = runtime
        info["osImage"] = RHCOS
        n["metadata"]["labels"].update({NFD_OS_ID: "rhcos", NFD_OS_VERSION_ID: "4.18"})
    tag = os_tag(RHCOS, SHAPE.operator)
    for p in b.cluster["pods"]:
        for c in p["spec"]["containers"]:
            if c["image"].startswith("nvcr.io/nvidia/driver:"):
                c["image"] = re.sub(r"-[a-z]+[\d.]+$", f"-{tag}", c["image"])
    for k in [k for k in b.files if "containerd" in k or k.endswith("crictl-info.json")]:
        del b.files[k]
    return b


def test_crio_nodes_are_quiet(tmp_path: Path) -> None:
    snap = load_bundle_dir(_on(CRIO).write(tmp_path / "b"))
    assert os_tag(RHCOS, SHAPE.operator) == "rhcos4.18"
    assert [(f.code, str(f.subject)) for f in _above_info(run_all(snap))] == []


def test_containerd_nodes_without_their_files_stay_unknown(tmp_path: Path) -> None:
    snap = load_bundle_dir(_on("containerd://1.7.27").write(tmp_path / "b"))
    unknown = {f.code for f in run_all(snap) if f.status == Status.UNKNOWN}
    assert {"GX501", "GX503", "GX504", "GX509"} <= unknown
