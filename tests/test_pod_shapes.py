"""Pods decoded with shared values equal pods decoded plainly; every check answers the same.

A bundle's pods are decoded with their repeated values shared (``sources/shrink.py``): the
objects must compare equal to a plain decode, field by field, the sharing must really happen,
and ``check`` must give the same report either way. Pod conditions are read by nothing but the
node agent, which decodes its own pods with them.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import msgspec
import pytest

from gpuxray.model import k8s
from gpuxray.scenarios.demo import build_demo
from gpuxray.sources import bundle, decode
from gpuxray.sources.shrink import Sharer
from small_pieces import stream_in_small_pieces


@pytest.mark.parametrize("streamed", [False, True], ids=["whole-file", "pieces"])
def test_shared_pods_equal_plain_pods(streamed: bool, tmp_path: Path,
                                      monkeypatch: pytest.MonkeyPatch) -> None:
    root = build_demo().write(tmp_path / "demo")
    f = root / "cluster" / "pods.json"
    plain = decode.decode_objects(f.read_bytes(), k8s.Pod, "pods.json")
    if streamed:
        stream_in_small_pieces(monkeypatch)
    shared = decode.decode_file(f, k8s.Pod, "pods.json", each=Sharer().pods)
    assert shared == plain and len(plain) > 5
    assert msgspec.json.encode(shared) == msgspec.json.encode(plain)
    # the default tolerations are one object for every pod that carries them
    tols = [t for p in shared for t in p.spec.tolerations]
    assert len({id(t) for t in tols}) < len(tols)


def test_check_answers_the_same_with_shared_pods(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        gx: Callable[..., tuple[int, Any]]) -> None:
    root = build_demo().write(tmp_path / "demo")
    stream_in_small_pieces(monkeypatch)
    shared = gx("check", "--bundle", str(root), "-o", "json")

    class NoSharing(Sharer):
        def pods(self, pods: Any) -> None:
            return None

    monkeypatch.setattr(bundle, "Sharer", NoSharing)
    plain = gx("check", "--bundle", str(root), "-o", "json")
    assert shared == plain
    assert shared[1]["findings"]


def test_pod_conditions_are_kept_where_read(tmp_path: Path) -> None:
    doc = {"metadata": {"name": "agent-x", "uid": "u-1",
                        "ownerReferences": [{"kind": "DaemonSet", "name": "a", "uid": "u-2"}]},
           "status": {"phase": "Pending", "conditions": [
               {"type": "PodScheduled", "status": "False", "reason": "Unschedulable"}]}}
    raw = json.dumps(doc).encode()
    lean = msgspec.json.decode(raw, type=k8s.Pod)
    assert not hasattr(lean.status, "conditions")
    assert lean.metadata.owner_references[0].name == "a"
    agent = msgspec.json.decode(raw, type=k8s.PodWithConditions)
    assert [(c.type, c.status, c.reason) for c in agent.status.conditions] == [
        ("PodScheduled", "False", "Unschedulable")]
