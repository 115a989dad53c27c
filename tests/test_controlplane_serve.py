"""``gpuxray serve`` against the real kube-apiserver, with real kubectl on both.

The live-source scenario is replayed into the apiserver, collected by ``gpuxray collect`` and
served by ``gpuxray serve``: the same objects on both sides. kubectl's Table output, ``-o json``,
``describe node``/``describe pod``, events by field selector, label selectors and
``--chunk-size`` paging must read the same from both. Ages are the only thing allowed to differ
(the two commands do not run in the same second); objects are compared as gpuxray stores them
(credential-looking values redacted at collection).
"""

from __future__ import annotations

import json
import re
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import controlplane as cplane
from controlplane_fixture import control_plane, replayed  # noqa: F401
from gpuxray.cli.main import run
from gpuxray.sources.redact import redact_obj
from live_fixtures import kubectl_path, served, write_kubeconfig

pytestmark = pytest.mark.slow

AGE = re.compile(r"^(?:\d+[ydhms]){1,2}$|^<invalid>$")


@pytest.fixture(scope="module")
def both(replayed: cplane.ControlPlane,  # noqa: F811
         tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Any, Any]]:
    cp = replayed
    d = tmp_path_factory.mktemp("fidelity")
    bundle = d / "bundle"
    assert run(["collect", "--kubeconfig", str(cp.kubeconfig), "-o", str(bundle), "-q"]) == 0
    exe = kubectl_path()
    with served(bundle) as srv:
        kc_serve = write_kubeconfig(srv, d / "serve.kubeconfig")

        def make(kc: Path, cache: Path) -> Any:
            def k(*args: str) -> subprocess.CompletedProcess[str]:
                return subprocess.run([exe, f"--kubeconfig={kc}", f"--cache-dir={cache}", *args],
                                      capture_output=True, text=True, timeout=60)
            return k

        yield make(cp.kubeconfig, d / "c1"), make(kc_serve, d / "c2")


def ageless(text: str) -> list[list[str]]:
    """Lines as whitespace-split cells, each age ("5s", "3m2s", "2d") as one token; column
    widths follow the widest cell, so they are not compared."""
    return [["<age>" if AGE.match(tok) else tok for tok in line.split()]
            for line in text.splitlines()]


def unredacted(theirs: list[list[str]], mine: list[list[str]]) -> list[list[str]]:
    """``mine`` with each "<redacted>" cell replaced by the apiserver's cell at that place:
    the one difference collection makes on purpose (docs/live.md, Redaction)."""
    out = []
    for i, line in enumerate(mine):
        ref = theirs[i] if i < len(theirs) else []
        out.append([ref[j] if tok == "<redacted>" and j < len(ref) else tok
                    for j, tok in enumerate(line)])
    return out


def same(both: tuple[Any, Any], *args: str) -> str:
    real, srv = both
    a, b = real(*args), srv(*args)
    assert a.returncode == 0, a.stderr
    assert b.returncode == 0, (args, b.stderr)
    theirs = ageless(a.stdout)
    assert unredacted(theirs, ageless(b.stdout)) == theirs, (args, a.stdout, b.stdout)
    return str(a.stdout)


@pytest.mark.parametrize("args", [
    ("describe", "node", "gpu-2"),
    ("describe", "node", "gpu-1"),
    ("describe", "pod", "-n", "ml", "big-job"),
    ("describe", "pod", "-n", "ml", "trainer-0"),
    ("describe", "pod", "-n", "gpu-operator", "nvidia-device-plugin-daemonset-2"),
], ids=lambda a: " ".join(a))
def test_kubectl_reads_the_same(both: tuple[Any, Any], args: tuple[str, ...]) -> None:
    same(both, *args)


@pytest.mark.parametrize("args", [
    ("get", "nodes", "-o", "json"),
    ("get", "pods", "-A", "-o", "json"),
    ("get", "pods", "-A", "-o", "json", "--chunk-size=2"),
    ("get", "daemonsets", "-n", "gpu-operator", "-o", "json"),
    ("get", "events", "-A", "-o", "json"),
    ("get", "clusterpolicies.nvidia.com", "-o", "json"),
], ids=lambda a: " ".join(a))
def test_json_is_the_same_objects(both: tuple[Any, Any], args: tuple[str, ...]) -> None:
    real, srv = both
    a, b = real(*args), srv(*args)
    assert a.returncode == 0 and b.returncode == 0, (a.stderr, b.stderr)
    theirs = [redact_obj(o) for o in json.loads(a.stdout)["items"]]
    mine = json.loads(b.stdout)["items"]
    assert mine == theirs
