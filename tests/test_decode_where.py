"""``decode_file_where`` keeps what decoding everything then filtering keeps, and fails alike.

``why``'s first read decodes only its pod's events this way (``sources/bundle.py``): the kept
objects must equal the whole decode's, in order, whatever route the file takes.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import msgspec
import pytest

from gpuxray.errors import InputError
from gpuxray.model import k8s
from gpuxray.sources import decode
from gpuxray.sources.bundle import _about_pods, _EventHead


def _event(i: int, kind: str, name: str, ns: str | None = "ml") -> dict[str, Any]:
    obj: dict[str, Any] = {"kind": kind, "name": name}
    if ns is not None:
        obj["namespace"] = ns
    return {"apiVersion": "v1", "kind": "Event",
            "metadata": {"name": f"{name}.{i:04x}", "namespace": ns or "default"},
            "involvedObject": obj, "reason": "FailedScheduling" if i % 2 else "BackOff",
            "message": f"0/{i} nodes are available", "type": "Warning", "count": i,
            "lastTimestamp": f"2026-11-29T10:{i % 60:02d}:00Z"}


EVENTS = [_event(i, kind, name, ns) for i, (kind, name, ns) in enumerate(
    [("Pod", "job-0", "ml"), ("Pod", "job-1", "ml"), ("Node", "job-0", None),
     ("Pod", "job-0", "other"), ("Pod", "job-0", None), ("Deployment", "job-0", "ml"),
     ("Pod", "job-00", "ml")] * 5)]


def _whole_then_filter(path: Path, keep: Any) -> list[k8s.Event]:
    return [e for e in decode.decode_file(path, k8s.Event, path.name) if keep(e)]


@pytest.mark.parametrize("form", ["list", "yaml", "single", "streamed", "empty"])
def test_kept_events_equal_the_whole_decode_filtered(tmp_path: Path, form: str,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    keep = _about_pods(frozenset({"job-0"}))
    doc: Any = {"apiVersion": "v1", "kind": "List", "items": EVENTS}
    name = "events.json"
    if form == "yaml":
        import yaml

        name, text = "events.yaml", yaml.safe_dump(doc).encode()
    elif form == "single":
        text = json.dumps(EVENTS[0]).encode()
    elif form == "empty":
        text = json.dumps({"apiVersion": "v1", "kind": "List", "items": []}).encode()
    else:
        text = json.dumps(doc, indent=2).encode()
    if form == "streamed":
        monkeypatch.setattr(decode, "STREAM_THRESHOLD", 1)
    f = tmp_path / name
    f.write_bytes(text)
    got = decode.decode_file_where(f, k8s.Event, name, _EventHead, keep)
    assert got == _whole_then_filter(f, keep)
    if form in ("list", "yaml", "streamed"):
        assert [(e.involved_object.kind, e.involved_object.namespace) for e in got] == [
            ("Pod", "ml"), ("Pod", "other"), ("Pod", None)] * 5


def test_a_kept_item_of_the_wrong_type_fails_as_the_whole_decode_does(tmp_path: Path) -> None:
    bad = [dict(e) for e in EVENTS]
    bad[0]["count"] = "many"  # about job-0: kept
    f = tmp_path / "events.json"
    f.write_bytes(json.dumps({"apiVersion": "v1", "kind": "List", "items": bad}).encode())
    with pytest.raises(InputError) as whole:
        decode.decode_file(f, k8s.Event, "events.json")
    with pytest.raises(InputError) as where:
        decode.decode_file_where(f, k8s.Event, "events.json", _EventHead,
                                 _about_pods(frozenset({"job-0"})))
    assert str(where.value) == str(whole.value)


def test_an_item_left_out_is_not_read(tmp_path: Path) -> None:
    """As a PodCore decode reads no field it leaves out, an event left out is not decoded:
    its wrong type fails only the whole decode."""
    bad = [dict(e) for e in EVENTS]
    bad[1]["count"] = "many"  # about job-1: left out
    f = tmp_path / "events.json"
    f.write_bytes(json.dumps({"apiVersion": "v1", "kind": "List", "items": bad}).encode())
    with pytest.raises(InputError):
        decode.decode_file(f, k8s.Event, "events.json")
    got = decode.decode_file_where(f, k8s.Event, "events.json", _EventHead,
                                   _about_pods(frozenset({"job-0"})))
    assert got == [msgspec.json.decode(json.dumps(e), type=k8s.Event) for e in bad
                   if e["involvedObject"] == {**e["involvedObject"], "kind": "Pod",
                                              "name": "job-0"}]
    assert len(got) == 15


def test_malformed_json_fails_as_the_whole_decode_does(tmp_path: Path) -> None:
    f = tmp_path / "events.json"
    f.write_bytes(b'{"apiVersion": "v1", "kind": "List", "items": [{"kind": "Event",')
    with pytest.raises(InputError) as whole:
        decode.decode_file(f, k8s.Event, "events.json")
    with pytest.raises(InputError) as where:
        decode.decode_file_where(f, k8s.Event, "events.json", _EventHead,
                                 _about_pods(frozenset({"job-0"})))
    assert str(where.value) == str(whole.value)
