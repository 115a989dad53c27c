"""The bundle source: layouts, formats, absent inputs, and hostile or malformed input."""

from __future__ import annotations

import io
import json
import tarfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from gpuxray.errors import InputError
from gpuxray.model.snapshot import Input
from gpuxray.scenarios.builder import ClusterBuilder
from gpuxray.sources.bundle import open_bundle

Run = Callable[..., tuple[int, Any]]


def small() -> ClusterBuilder:
    b = ClusterBuilder()
    b.node("gpu-1", gpus=4)
    b.pod("ml", "train", gpus=1)
    return b


def test_directory_and_tarball_give_the_same_snapshot(tmp_path: Path) -> None:
    b = small()
    d = b.write(tmp_path / "dir")
    t = b.write_tar(tmp_path / "b.tar.gz")
    with open_bundle(d) as s1, open_bundle(t) as s2:
        assert [n.metadata.name for n in s1.nodes] == [n.metadata.name for n in s2.nodes]
        assert s1.pods[0].metadata.name == s2.pods[0].metadata.name == "train"
        assert s2.has(Input.NODES) and not s2.has(Input.EVENTS)
        assert s2.source(Input.NODES) == "cluster/nodes.json"


def test_yaml_and_single_objects(tmp_path: Path) -> None:
    root = tmp_path / "b"
    (root / "cluster").mkdir(parents=True)
    (root / "cluster" / "nodes.yaml").write_text(
        "apiVersion: v1\nkind: Node\nmetadata:\n  name: gpu-9\nstatus:\n  capacity:\n"
        "    nvidia.com/gpu: '2'\n  allocatable:\n    nvidia.com/gpu: 2\n")
    (root / "cluster" / "pods.json").write_text(json.dumps(
        {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "x", "namespace": "a"},
         "spec": {"containers": [{"name": "c"}]}, "unknownField": {"deep": [1, 2]}}))
    (root / "cluster" / "events.yaml").write_text(
        "apiVersion: v1\nkind: List\nitems: []\n---\napiVersion: v1\nkind: Event\n"
        "metadata: {name: e1, namespace: a}\ninvolvedObject: {kind: Pod, name: x, namespace: a}\n"
        "reason: FailedScheduling\nmessage: m\n")
    with open_bundle(root) as s:
        assert s.nodes[0].status.capacity["nvidia.com/gpu"] == "2"
        assert s.pods[0].metadata.name == "x" and s.pods[0].status.phase == "Pending"
        assert [e.reason for e in s.events] == ["FailedScheduling"]
        assert s.source(Input.NODES) == "cluster/nodes.yaml"


def test_manifest_errors_make_inputs_unknown(gx: Run,
                                            write_bundle: Callable[[ClusterBuilder], Path]) -> None:
    b = small()
    b.remove("pods")
    b.error("cluster/pods.json", "403 Forbidden")
    bundle = write_bundle(b)
    with open_bundle(bundle) as s:
        assert not s.has(Input.PODS) and s.state(Input.PODS).reason == "403 Forbidden"
    code, doc = gx("check", "--bundle", str(bundle), "-o", "json")
    assert code == 3  # only unknowns reach the threshold: analysis incomplete
    unknown = {f["code"] for f in doc["findings"] if f["status"] == "unknown"}
    assert {"GX201", "GX202", "GX204"} <= unknown
    assert all("403 Forbidden" in f["message"] for f in doc["findings"]
               if f["code"] == "GX204")


@pytest.mark.parametrize("content", [b"{not json", b"\x00\x01\x02\xff" * 50, b'{"items": 5}',
                                     b"[1, 2"])
def test_malformed_json_is_one_line_exit_2(gx: Run, tmp_path: Path, capsys: Any,
                                           content: bytes) -> None:
    b = small().write(tmp_path / "b")
    (b / "cluster" / "pods.json").write_bytes(content)
    code, out = gx("check", "--bundle", str(b))
    err = capsys.readouterr().err
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and "cluster/pods.json" in err and "Traceback" not in err


def test_keep_going_turns_malformed_into_unknown(gx: Run, tmp_path: Path) -> None:
    b = small().write(tmp_path / "b")
    (b / "cluster" / "pods.json").write_bytes(b'{"kind": "PodList", "items": [{"metadata": ')
    code, doc = gx("check", "--bundle", str(b), "--keep-going", "-o", "json")
    assert code == 3
    assert any(f["status"] == "unknown" and "pods.json" in f["message"] for f in doc["findings"])


def test_malformed_yaml(gx: Run, tmp_path: Path, capsys: Any) -> None:
    b = small().write(tmp_path / "b")
    (b / "cluster" / "nodes.json").unlink()
    (b / "cluster" / "nodes.yaml").write_text("items: [\n  - {a: 1\n")
    code, _ = gx("capacity", "--bundle", str(b))
    assert code == 2 and "nodes.yaml" in capsys.readouterr().err


def _tar_with(path: Path, members: list[tuple[tarfile.TarInfo, bytes | None]]) -> Path:
    with tarfile.open(path, "w:gz") as tar:
        for info, data in members:
            tar.addfile(info, io.BytesIO(data) if data is not None else None)
    return path


def _file(name: str, data: bytes = b"{}") -> tuple[tarfile.TarInfo, bytes]:
    info = tarfile.TarInfo(name)
    info.size = len(data)
    return info, data


def _link(name: str, target: str, sym: bool = True) -> tuple[tarfile.TarInfo, None]:
    info = tarfile.TarInfo(name)
    info.type = tarfile.SYMTYPE if sym else tarfile.LNKTYPE
    info.linkname = target
    return info, None


@pytest.mark.parametrize(("members", "fragment"), [
    ([_file("b/cluster/nodes.json"), _file("../evil.json")], "traversal"),
    ([_file("b/cluster/../../evil.json")], "traversal"),
    ([_file("/etc/evil.json")], "absolute"),
    ([_file("b/cluster/nodes.json"), _link("b/cluster/pods.json", "/etc/passwd")], "link"),
    ([_file("b/cluster/nodes.json"), _link("b/cluster/pods.json", "b/cluster/nodes.json",
                                          sym=False)], "link"),
    ([_file("b/cluster/nodes.json"), _file("b/cluster/nodes.json")], "duplicate"),
])
def test_hostile_archives_are_refused(gx: Run, tmp_path: Path, capsys: Any,
                                      members: list[Any], fragment: str) -> None:
    evil = _tar_with(tmp_path / "evil.tar.gz", members)
    code, _ = gx("check", "--bundle", str(evil))
    err = capsys.readouterr().err
    assert code == 2 and fragment in err and err.count("\n") == 1
    assert not (tmp_path / "evil.json").exists()
    assert not (tmp_path.parent / "evil.json").exists()


def test_device_member_refused(tmp_path: Path) -> None:
    info = tarfile.TarInfo("b/cluster/dev")
    info.type = tarfile.CHRTYPE
    evil = _tar_with(tmp_path / "dev.tar.gz", [(info, None)])
    with pytest.raises(InputError, match="special"), open_bundle(evil):
        pass


def test_truncated_archive(gx: Run, tmp_path: Path, capsys: Any) -> None:
    good = small().write_tar(tmp_path / "b.tar.gz")
    data = good.read_bytes()
    (tmp_path / "cut.tar.gz").write_bytes(data[: len(data) // 2])
    code, _ = gx("check", "--bundle", str(tmp_path / "cut.tar.gz"))
    assert code == 2 and "cut.tar.gz" in capsys.readouterr().err


def test_not_a_bundle(gx: Run, tmp_path: Path, capsys: Any) -> None:
    (tmp_path / "empty").mkdir()
    assert gx("check", "--bundle", str(tmp_path / "empty"))[0] == 2
    assert gx("check", "--bundle", str(tmp_path / "missing"))[0] == 2
    (tmp_path / "junk.bin").write_bytes(b"\x89PNG\r\n" + bytes(range(256)))
    assert gx("check", "--bundle", str(tmp_path / "junk.bin"))[0] == 2
    assert "Traceback" not in capsys.readouterr().err


@pytest.mark.parametrize("target", ["ml/nope", "a/b/c/d", "", "ml/"])
def test_bad_why_targets(gx: Run, write_bundle: Callable[[ClusterBuilder], Path], capsys: Any,
                         target: str) -> None:
    code, _ = gx("why", target, "--bundle", str(write_bundle(small())))
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1


def test_usage_errors_exit_2(gx: Run, capsys: Any) -> None:
    assert gx("why")[0] == 2
    assert gx("check", "--fail-on", "nonsense")[0] == 2
    assert gx("no-such-command")[0] == 2
    assert "Traceback" not in capsys.readouterr().err
