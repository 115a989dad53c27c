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


def pods(n: int, *, tricky: bool = False) -> list[dict[str, object]]:
    """Pods whose text holds would-be cut points: separators inside strings (escaped and
    raw-looking) and nested objects that open exactly like an item."""
    out: list[dict[str, object]] = []
    for i in range(n):
        p: dict[str, object] = {
            "apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": f"p{i}", "namespace": "a", "annotations": {
                "last": json.dumps({"apiVersion": "v1", "kind": "Pod"}) + '},{"apiVersion"'}},
            "spec": {"nodeName": f"n{i % 3}", "containers": [
                {"name": "c", "resources": {"limits": {"nvidia.com/gpu": str(i % 4)}}}]}}
        if tricky:
            # a nested list of objects whose first key/value is the items' own opening
            p["metadata"]["ownerReferences"] = [  # type: ignore[index]
                {"apiVersion": "v1", "kind": "Node", "name": "x"},
                {"apiVersion": "v1", "kind": "Node", "name": "y"}]
        out.append(p)
    return out


@pytest.mark.parametrize("indent", [None, 4])
@pytest.mark.parametrize("tricky", [False, True])
def test_pieces_equal_plain_for_kubectl_and_compact_text(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, indent: int | None,
        tricky: bool) -> None:
    f = tmp_path / "pods.json"
    f.write_text(json.dumps({"apiVersion": "v1", "items": pods(3000, tricky=tricky),
                             "kind": "List", "metadata": {"resourceVersion": ""}},
                            indent=indent))
    plain = decode.decode_objects(f.read_bytes(), k8s.Pod, "pods.json")
    monkeypatch.setattr(decode, "STREAM_THRESHOLD", 1)
    monkeypatch.setattr(decode, "_CHUNK_BYTES", 5000)
    monkeypatch.setattr(decode, "_STEP_BYTES", 700)
    monkeypatch.setattr(decode, "_MAX_MISCUTS", 10_000)
    with open(f, "rb") as fh:
        pieces = decode._decode_pieces(fh, f.stat().st_size, k8s.Pod)
    assert pieces is not None, "the piecewise path gave up on a well-formed List"
    assert pieces == plain and len(pieces) == 3000
    assert decode.decode_file(f, k8s.Pod, "pods.json") == plain


def test_pieces_give_up_to_the_exact_split(tmp_path: Path,
                                          monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(decode, "STREAM_THRESHOLD", 1)
    monkeypatch.setattr(decode, "_CHUNK_BYTES", 3000)
    monkeypatch.setattr(decode, "_STEP_BYTES", 500)
    monkeypatch.setattr(decode, "_MAX_MISCUTS", 1)
    f = tmp_path / "pods.json"
    # items first, then an envelope key that itself holds "items": only the top level counts
    f.write_text(json.dumps({"metadata": {"x": {"items": []}},
                             "items": pods(400, tricky=True), "kind": "List"}))
    assert decode.decode_file(f, k8s.Pod, "pods.json") == decode.decode_objects(
        f.read_bytes(), k8s.Pod, "pods.json")
    bad = pods(400)
    bad[333]["metadata"] = {"name": 5}
    f.write_text(json.dumps({"apiVersion": "v1", "items": bad, "kind": "List"}))
    with pytest.raises(InputError, match=r"pods\.json: item 333"):
        decode.decode_file(f, k8s.Pod, "pods.json")
    text = json.dumps({"apiVersion": "v1", "items": pods(400), "kind": "List"})
    f.write_text(text[: len(text) // 2])
    with pytest.raises(InputError, match=r"pods\.json: malformed JSON"):
        decode.decode_file(f, k8s.Pod, "pods.json")


@pytest.mark.parametrize("indent", [None, 4])
@pytest.mark.parametrize("layout", ["plain", "tricky", "mixed-openings"])
def test_wanted_pods_are_decoded_from_their_own_text(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, indent: int | None,
        layout: str) -> None:
    """``check``'s lean decode replaces the wanted pods of a piece by their whole decode, cut
    from the piece where each item opens: the same objects as a whole decode, in place; where
    a nested object opens like an item (a pod owned by its Node) or an item opens otherwise,
    the cut is refused and the piece split into raw items instead."""
    # every piece holds wanted pods, few enough that none is decoded whole at once
    items = pods(900, tricky=layout == "tricky")
    if layout == "mixed-openings":
        for p in items[::50]:
            del p["apiVersion"]  # this item opens with "kind", not the List's first opening
    for i, p in enumerate(items):
        p["status"] = {"phase": "Pending" if i % 7 == 0 else "Running"}
    f = tmp_path / "pods.json"
    f.write_text(json.dumps({"apiVersion": "v1", "items": items, "kind": "List"},
                            indent=indent))
    full = decode.decode_objects(f.read_bytes(), k8s.Pod, "pods.json")
    monkeypatch.setattr(decode, "STREAM_THRESHOLD", 1)
    monkeypatch.setattr(decode, "_CHUNK_BYTES", 20_000)
    monkeypatch.setattr(decode, "_STEP_BYTES", 2_000)
    monkeypatch.setattr(decode, "_MAX_MISCUTS", 10_000)
    cuts: list[bool] = []
    by_opening = decode._Wanted.by_opening

    def spy(self: decode._Wanted, *a: object) -> object:
        got = by_opening(self, *a)  # type: ignore[arg-type]
        cuts.append(got is not None)
        return got

    monkeypatch.setattr(decode._Wanted, "by_opening", spy)
    got = decode.decode_file(f, k8s.PodLean, "pods.json", decode.Whole(
        k8s.Pod, (), lambda _p: False, want=lambda p: p.status.phase == "Pending"))
    assert len(got) == len(full) == 900
    for g, w in zip(got, full, strict=True):
        if w.status.phase == "Pending":
            assert type(g) is k8s.Pod and g == w
        else:
            assert type(g) is k8s.PodLean and g.metadata.name == w.metadata.name
    assert len(cuts) > 5
    if layout == "plain" or (layout == "tricky" and indent):
        assert all(cuts)  # kubectl's indentation tells a nested object from an item
    else:
        assert not any(cuts)
