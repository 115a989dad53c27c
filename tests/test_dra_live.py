"""DRA objects travel like every other input: `gpuxray serve` answers them to the real kubectl,
and `gpuxray collect` over that API writes them back into a bundle that `why` reads the same."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

from gpuxray.scenarios import dra as S
from live_fixtures import kubectl_path, served, write_kubeconfig

Run = Callable[..., tuple[int, Any]]


def test_serve_and_collect_carry_dra_objects(gx: Run, tmp_path: Path) -> None:
    b = S.healthy_dra_cluster()
    S.dra_pod(b, "ml", "job-0", template="no-such-template")
    bundle = b.write(tmp_path / "in")
    kubectl = kubectl_path()
    with served(bundle) as srv:
        kc = write_kubeconfig(srv, tmp_path / "kc")
        out = subprocess.run([kubectl, "--kubeconfig", str(kc), "get", "resourceslices",
                              "-o", "json"], capture_output=True, text=True, check=True).stdout
        names = sorted(i["metadata"]["name"] for i in json.loads(out)["items"])
        assert names == ["dra-1-gpu.nvidia.com-x7k2p", "dra-2-gpu.nvidia.com-x7k2p"]
        out = subprocess.run([kubectl, "--kubeconfig", str(kc), "get", "resourceclaims", "-n",
                              "ml", "-o", "name"], capture_output=True, text=True,
                             check=True).stdout
        assert len(out.split()) == 3 and all(n.startswith("resourceclaim.resource.k8s.io/")
                                             for n in out.split())
        code, _ = gx("collect", "-q", "-o", str(tmp_path / "out"), "--kubeconfig", str(kc))
        assert code == 0
    for plural in ("deviceclasses", "resourceslices", "resourceclaims",
                   "resourceclaimtemplates"):
        items = json.loads((tmp_path / "out" / "cluster" / f"{plural}.json").read_text())["items"]
        assert items == json.loads((bundle / "cluster" / f"{plural}.json").read_text())["items"]
    _, doc = gx("why", "ml/job-0", "--bundle", str(tmp_path / "out"), "-o", "json")
    assert doc["verdict"]["code"] == "GX209"
    assert doc["verdict"]["params"]["template_exists"] is False
