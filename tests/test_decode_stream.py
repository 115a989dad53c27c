"""Large Lists are decoded item by item from a mapping: same objects, clear errors."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gpuxray.errors import InputError
from gpuxray.model import k8s
from gpuxray.sources import decode


def write_list(path: Path, items: list[object]) -> Path:
    path.write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": items}))
    return path


def test_streamed_equals_plain(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    items = [{"metadata": {"name": f"p{i}", "namespace": "a"},
              "spec": {"nodeName": f"n{i % 3}", "containers": [
                  {"name": "c", "resources": {"limits": {"nvidia.com/gpu": str(i % 4)}}}]}}
             for i in range(5000)]
    f = write_list(tmp_path / "pods.json", items)
    plain = decode.decode_objects(f.read_bytes(), k8s.Pod, "pods.json")
    monkeypatch.setattr(decode, "STREAM_THRESHOLD", 1)
    monkeypatch.setattr(decode, "_WINDOW_ITEMS", 7)
    streamed = decode.decode_file(f, k8s.Pod, "pods.json")
    assert streamed == plain and len(streamed) == 5000


def test_streamed_bad_item_is_one_line_error(tmp_path: Path,
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    f = write_list(tmp_path / "pods.json", [{"metadata": {"name": "ok"}},
                                            {"metadata": {"name": 5}}])
    monkeypatch.setattr(decode, "STREAM_THRESHOLD", 1)
    with pytest.raises(InputError, match=r"pods\.json: item 1"):
        decode.decode_file(f, k8s.Pod, "pods.json")


def test_streamed_falls_back_for_single_objects_and_junk(tmp_path: Path,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(decode, "STREAM_THRESHOLD", 1)
    one = tmp_path / "one.json"
    one.write_text(json.dumps({"kind": "Pod", "metadata": {"name": "x"}}))
    assert [p.metadata.name for p in decode.decode_file(one, k8s.Pod, "one.json")] == ["x"]
    junk = tmp_path / "junk.json"
    junk.write_bytes(b"{\x00\xff" * 100)
    with pytest.raises(InputError, match=r"junk\.json"):
        decode.decode_file(junk, k8s.Pod, "junk.json")
