"""YAML read lean (``sources/leanyaml.py``) gives what the safe loader's objects give.

Every text is decoded both ways — lean (in batches, from bytes and from a mapped file) and
through PyYAML's safe loader then ``msgspec.convert`` — and must give equal objects or the same
one-line error. The texts cover what kubectl writes (a List, ``items:`` at column 0) and what it
does not: tags, merge keys and anchors, comments and blank lines between entries, entries whose
content starts on the next line, YAML 1.1 plain scalars (``yes``, ``0x1F``, ``~``, timestamps),
indented sequences, several documents, and broken text.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from gpuxray.errors import InputError
from gpuxray.model import k8s
from gpuxray.scenarios.demo import build_demo
from gpuxray.sources import decode, leanyaml


def _outcome(fn: Any, *args: Any) -> tuple[str, Any]:
    try:
        return "ok", fn(*args)
    except InputError as exc:
        return "error", str(exc)


def _both(data: bytes, typ: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Any:
    safe = _outcome(decode._from_yaml_safe, data, typ, "x.yaml")
    assert _outcome(decode._from_yaml, data, typ, "x.yaml") == safe
    f = tmp_path / "x.yaml"
    f.write_bytes(data)
    with monkeypatch.context() as m:
        m.setattr(decode, "STREAM_THRESHOLD", 1)
        m.setattr(leanyaml, "BATCH_ITEMS", 2)
        assert _outcome(decode.decode_yaml_file, f, typ, "x.yaml") == safe
    return safe


def _demo_pods(tmp_path: Path) -> list[dict[str, Any]]:
    root = build_demo().write(tmp_path / "demo")
    items: list[dict[str, Any]] = json.loads((root / "cluster" / "pods.json").read_text())["items"]
    return items


def test_kubectl_list_of_pods_is_read_lean_and_equal(tmp_path: Path,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    pods = _demo_pods(tmp_path)
    data = yaml.safe_dump({"apiVersion": "v1", "items": pods, "kind": "List",
                           "metadata": {"resourceVersion": ""}}).encode()
    assert b"\nitems:\n- " in data
    kind, got = _both(data, k8s.Pod, tmp_path, monkeypatch)
    assert kind == "ok" and len(got) == len(pods) > 5
    # and the lean path really answered: no fallback raised, in batches of two
    monkeypatch.setattr(leanyaml, "BATCH_ITEMS", 2)
    lean = leanyaml.lean_objects(data, k8s.Pod, lambda o, t: decode._convert(o, t, "x"))
    assert lean == got
    spans = list(leanyaml.item_batches(data) or [])
    assert len(spans) == (len(pods) + 1) // 2


ODD_ITEMS = b"""apiVersion: v1
items:
# a comment at column 0 between entries
- metadata:
    name: a
    namespace: "ns"
    labels: {"yes": "on", "no": "off"}
  spec:
    nodeName: n1
    containers:
    - name: c
      resources: {limits: {nvidia.com/gpu: 0x2, cpu: 1_000, memory: 1.5e+3}}
      env: [{name: X, value: "yes"}, {name: Y, value: ~}]
      securityContext: {privileged: yes}

-
  metadata:
    name: b
    annotations:
      note: |
        a block scalar
        - with a dash line
  status: {phase: Running}
- just a scalar entry
- metadata: {name: c}
  spec: {tolerations: [{key: k, operator: Exists, tolerationSeconds: 300}]}
kind: List
metadata:
  resourceVersion: ""
"""


def test_odd_but_valid_lists_give_the_same_objects(tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    kind, got = _both(ODD_ITEMS, k8s.Pod, tmp_path, monkeypatch)
    assert kind == "ok"
    assert [p.metadata.name for p in got] == ["a", "b", "c"]
    assert got[0].spec.containers[0].resources.limits == {"nvidia.com/gpu": 2, "cpu": 1000,
                                                           "memory": 1500.0}


@pytest.mark.parametrize("text", [
    # tags and merge keys: those batches take the safe loader's path
    b"items:\n- metadata: {name: !!str 5}\n- &base {metadata: {name: x}}\n- <<: *base\n",
    b"items:\n- metadata:\n    name: a\n    labels: !!map {k: v}\n",
    # an alias to an anchor in another batch
    b"items:\n- metadata: &m {name: a}\n- metadata: *m\n- metadata: *m\n",
    # indented entries: not cut, read as one document
    b"apiVersion: v1\nitems:\n  - metadata: {name: a}\n  - metadata: {name: b}\nkind: List\n",
    # several documents, an empty one, a single object and an empty List
    b"---\nkind: Pod\nmetadata: {name: a}\n---\n---\nkind: PodList\nitems: []\n"
    b"---\napiVersion: v1\nitems:\n- metadata: {name: b}\nkind: List\n",
    # a plain timestamp where a string is expected, a bool name
    b"items:\n- metadata: {name: a, creationTimestamp: 2026-11-29T10:00:00Z}\n",
    b"items:\n- metadata: {name: true}\n",
    # broken: bad indentation inside an entry, an unclosed flow mapping, a scalar document
    b"items:\n- metadata:\n    name: a\n   namespace: b\n",
    b"items:\n- metadata: {name: a\n- metadata: {name: b}\n",
    b"just text\n",
    b"items:\n- metadata: {name: a}\nkind: List\n---\n- 1\n",
])
def test_other_texts_give_the_same_objects_or_error(text: bytes, tmp_path: Path,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    _both(text, k8s.Pod, tmp_path, monkeypatch)


def test_daemonsets_and_custom_resources_keep_what_they_read(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``spec: dict[str, Any]`` (ClusterPolicy) is built whole; Struct fields only in part."""
    cp = (b"apiVersion: v1\nitems:\n- apiVersion: nvidia.com/v1\n  kind: ClusterPolicy\n"
          b"  metadata: {name: cluster-policy}\n  spec:\n    cdi: {enabled: true, default: false}\n"
          b"    driver: {version: 580.95.05, env: [{name: A, value: '1'}]}\n"
          b"  status: {state: ready, namespace: gpu-operator}\nkind: List\n")
    kind, got = _both(cp, k8s.CustomResource, tmp_path, monkeypatch)
    assert kind == "ok"
    assert got[0].spec["cdi"] == {"enabled": True, "default": False}
    assert got[0].spec["driver"]["version"] == "580.95.05"


DESCRIBED = Path(__file__).parent / "data" / "mustgather" / "describe_node_cordoned.txt"


@pytest.mark.parametrize("chunk", [97, 4096, 1 << 20])
def test_node_describe_text_read_in_parts_parses_alike(tmp_path: Path, chunk: int,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    """``gpu_nodes.descr`` is read and parsed a few nodes at a time: the parts must be the
    text's own parts, whatever the read size, with a preamble, a ``Name:`` line that starts no
    object, tabs, CRLF and multibyte characters across read boundaries."""
    from gpuxray.sources import mustgather
    from gpuxray.sources.parsers import describe

    block = DESCRIBED.read_text()
    name = next(ln for ln in block.splitlines() if ln.startswith("Name:")).split()[-1]
    nodes = [block.replace(name, f"gpu-{i:03d}é") for i in range(40)]
    text = "kubectl output follows\r\nName:x not an object\n" + "\n".join(nodes).replace(
        "Roles:", "Roles:\t") + "\nünïcödé\n"
    f = tmp_path / "gpu_nodes.descr"
    f.write_text(text, encoding="utf-8")
    monkeypatch.setattr(mustgather, "DESCRIBE_PART_NODES", 3)
    whole = list(mustgather._describe_parts(mustgather._read_text(f, 64 << 20)))
    parts = list(mustgather._describe_file_parts(f, 64 << 20, chunk))
    assert parts == whole and len(parts) > 5
    names = [d.node.metadata.name for p in parts for d in describe.parse_describe_nodes(p)]
    assert names == [d.node.metadata.name for d in describe.parse_describe_nodes(text)]
    assert len(names) == 40
