"""Hostile archives and oversized inputs: every refusal is one line naming the archive, nothing
is written outside the extraction directory (which is removed again), and size/count limits hold
— the limits are module constants, lowered here so the bombs stay small."""

from __future__ import annotations

import gzip
import io
import os
import tarfile
import tempfile
import time
import zlib
from collections.abc import Iterator
from pathlib import Path

import pytest

from gpuxray.checks.engine import run_all
from gpuxray.errors import InputError
from gpuxray.model.finding import Status
from gpuxray.model.snapshot import Input
from gpuxray.scenarios.builder import ClusterBuilder
from gpuxray.sources import archive, bundle
from gpuxray.sources.bundle import open_bundle
from gpuxray.sources.parsers import bugreport
from robust_fixtures import assert_one_line


@pytest.fixture
def private_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """Extraction goes to a temp dir of its own, so a test can see what is left behind."""
    t = tmp_path / "tmp"
    t.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(t))
    yield t


def _tar(path: Path, members: list[tuple[tarfile.TarInfo, bytes | None]],
         fmt: int = tarfile.PAX_FORMAT, **kw: str) -> Path:
    with tarfile.open(path, "w:gz", format=fmt, **kw) as tar:  # type: ignore[call-overload]
        for info, data in members:
            tar.addfile(info, io.BytesIO(data) if data is not None else None)
    return path


def _file(name: str, data: bytes = b"{}") -> tuple[tarfile.TarInfo, bytes]:
    info = tarfile.TarInfo(name)
    info.size = len(data)
    return info, data


def _special(name: str, kind: bytes) -> tuple[tarfile.TarInfo, None]:
    info = tarfile.TarInfo(name)
    info.type = kind
    return info, None


def _refused(path: Path, fragment: str, private_tmp: Path) -> None:
    with pytest.raises(InputError) as info, open_bundle(path):
        pass
    assert_one_line(info.value, path.name)
    assert fragment in str(info.value)
    assert list(private_tmp.iterdir()) == [], "extraction directory left behind"


@pytest.mark.parametrize(("member", "fragment"), [
    (_special("b/cluster/fifo", tarfile.FIFOTYPE), "special"),
    (_special("b/cluster/blk", tarfile.BLKTYPE), "special"),
    (_special("b/cluster/chr", tarfile.CHRTYPE), "special"),
    (_file("b/./cluster/../../../tmp/x.json"), "traversal"),
    (_file("..\x00/x.json"), "traversal"),  # tar cuts the name at NUL
], ids=["fifo", "block", "char", "dot-traversal", "nul"])
def test_special_and_odd_members_refused(tmp_path: Path, private_tmp: Path,
                                         member: tuple[tarfile.TarInfo, None],
                                         fragment: str) -> None:
    evil = _tar(tmp_path / "evil.tar.gz", [_file("b/cluster/nodes.json"), member])
    _refused(evil, fragment, private_tmp)


def test_symlinked_directory_then_file_through_it(tmp_path: Path, private_tmp: Path) -> None:
    """The classic two-step escape: a link to ``/``, then a file "inside" the link."""
    link = tarfile.TarInfo("b/nodes")
    link.type = tarfile.SYMTYPE
    link.linkname = str(tmp_path)
    evil = _tar(tmp_path / "evil.tar.gz", [(link, None), _file("b/nodes/escaped.json")])
    _refused(evil, "link", private_tmp)
    assert not (tmp_path / "escaped.json").exists()


def test_duplicate_after_normalisation(tmp_path: Path, private_tmp: Path) -> None:
    evil = _tar(tmp_path / "dup.tar.gz", [_file("b/cluster/nodes.json"),
                                          _file("b/cluster/./nodes.json", b"[]")])
    _refused(evil, "duplicate", private_tmp)


def test_non_utf8_member_name(tmp_path: Path, private_tmp: Path) -> None:
    evil = tmp_path / "latin.tar.gz"
    info, data = _file("b/cluster/n\xe9odes.json")
    with tarfile.open(evil, "w:gz", format=tarfile.GNU_FORMAT, encoding="latin-1") as tar:
        tar.addfile(info, io.BytesIO(data))
    _refused(evil, "UTF-8", private_tmp)


def test_member_count_limit(tmp_path: Path, private_tmp: Path,
                            monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(archive, "MAX_MEMBERS", 20)
    many = _tar(tmp_path / "many.tar.gz", [_file(f"b/logs/ns/p/c{i}.log", b"x")
                                            for i in range(21)])
    _refused(many, "members", private_tmp)


def test_total_size_limit_on_a_compression_bomb(tmp_path: Path, private_tmp: Path,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    """64 MiB of zeros compress to ~64 KiB; with a 16 MiB budget the archive is refused before
    the fourth member is written."""
    monkeypatch.setattr(archive, "MAX_TOTAL_BYTES", 16 << 20)
    block = bytes(16 << 20)
    bomb = _tar(tmp_path / "bomb.tar.gz",
                [_file(f"b/logs/ns/p/c{i}.log", block) for i in range(4)])
    assert bomb.stat().st_size < 1 << 20
    _refused(bomb, "uncompressed size", private_tmp)


def test_member_size_limit(tmp_path: Path, private_tmp: Path,
                           monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(archive, "MAX_MEMBER_BYTES", 1 << 20)
    big = _tar(tmp_path / "big.tar.gz", [_file("b/logs/ns/p/c.log", bytes(2 << 20))])
    _refused(big, "too large", private_tmp)


def test_gzip_garbage_and_empty_file(tmp_path: Path, private_tmp: Path) -> None:
    junk = tmp_path / "junk.tar.gz"
    junk.write_bytes(b"\x1f\x8b\x08\x00" + os.urandom(4000))
    _refused(junk, "", private_tmp)
    empty = tmp_path / "empty.tgz"
    empty.write_bytes(b"")
    _refused(empty, "", private_tmp)


def test_good_archive_leaves_nothing_behind(tmp_path: Path, private_tmp: Path) -> None:
    b = ClusterBuilder()
    b.node("n1", gpus=1)
    t = b.write_tar(tmp_path / "ok.tar.gz")
    with open_bundle(t) as snap:
        assert snap.has(Input.NODES)
        assert len(list(private_tmp.iterdir())) == 1
    assert list(private_tmp.iterdir()) == []


# ----- must-gather bug report: a gzip bomb is cut, not expanded ------------------------------
def _gzip_bomb(path: Path, mib: int) -> Path:
    comp = zlib.compressobj(9, zlib.DEFLATED, 31)
    head = b"nvidia-bug-report.sh started\n\n____________________________________________\n\n"
    with open(path, "wb") as fh:
        fh.write(comp.compress(head))
        zeros = b"A" * (1 << 20)
        for _ in range(mib):
            fh.write(comp.compress(zeros))
        fh.write(comp.flush())
    return path


def test_bug_report_gzip_bomb_is_capped(tmp_path: Path) -> None:
    bomb = _gzip_bomb(tmp_path / "nvidia-bug-report_n1.log.gz", 64)
    assert bomb.stat().st_size < 1 << 20
    t0 = time.monotonic()
    text, notes = bugreport.read_bug_report(bomb, cap=4 << 20)
    assert len(text) <= 4 << 20
    assert any("cut" in n for n in notes)
    assert time.monotonic() - t0 < 10


def test_bug_report_bomb_in_a_mustgather(tmp_path: Path,
                                         monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(bugreport, "MAX_DECOMPRESSED", 2 << 20)
    mg = tmp_path / "must-gather"
    mg.mkdir()
    (mg / "cluster_policy.missing").write_text("")
    _gzip_bomb(mg / "nvidia-bug-report_n1.log.gz", 32)
    with open_bundle(mg, lenient=True) as snap:
        host = snap.hosts.get("n1")
        total = sum(len(t) for t in host.files.values()) if host else 0
        total += sum(len(t) for t in host.cmds.values()) if host else 0
        assert total <= 4 << 20
        list(run_all(snap))


def test_truncated_gzip_bug_report(tmp_path: Path) -> None:
    whole = gzip.compress(b"nvidia-bug-report.sh\n" + b"line\n" * 10000)
    cut = tmp_path / "nvidia-bug-report_n1.log.gz"
    cut.write_bytes(whole[: len(whole) // 2])
    text, notes = bugreport.read_bug_report(cut)
    assert text.startswith("nvidia-bug-report.sh") and notes


# ----- a 2 GB sparse file inside a bundle directory -----------------------------------------
@pytest.mark.parametrize("rel", ["nodes/n1/cmd/journal-containerd.txt",
                                 "logs/gpu-operator/nvidia-driver-daemonset-x/nvidia-driver-ctr.log",
                                 "nodes/n1/files/etc/containerd/config.toml",
                                 "metrics/n1.prom"])
def test_sparse_2gb_file_in_a_bundle(tmp_path: Path, rel: str) -> None:
    b = ClusterBuilder()
    b.node("n1", gpus=1)
    b.host_file("n1", "/etc/os-release", "ID=ubuntu\n")
    root = b.write(tmp_path / "b")
    big = root / rel
    big.parent.mkdir(parents=True, exist_ok=True)
    with open(big, "wb") as fh:
        fh.truncate(2 << 30)
        fh.seek((2 << 30) - 6)
        fh.write(b"\ntail\n")
    t0 = time.monotonic()
    with open_bundle(root, lenient=True) as snap:
        kept = [len(t) for h in snap.hosts.values() for t in (*h.files.values(),
                                                                *h.cmds.values())]
        kept += [len(lg.current or "") for lg in snap.logs.values()]
        kept += [len(t) for _s, t in snap.metrics.values()]
        assert max(kept) <= max(bundle.HOST_FILE_LIMIT, bundle.LOG_TAIL_BYTES)
        findings = list(run_all(snap))
    assert time.monotonic() - t0 < 20
    if rel.endswith("config.toml"):  # too big to be a containerd config: not read as one
        assert any(f.status in (Status.FAIL, Status.UNKNOWN) and f.subject.name == "n1"
                   for f in findings)


# ----- non-UTF-8 names inside a bundle directory --------------------------------------------
def test_non_utf8_names_in_a_bundle_dir(tmp_path: Path, capsys: pytest.CaptureFixture[str]
                                        ) -> None:
    """Names become node/pod/file names in reports: undecodable ones are not read as such, and
    the unreadable host file is named (with a replacement character) instead of crashing JSON."""
    import json

    from gpuxray.cli.main import run
    from gpuxray.scenarios.demo import build_demo

    root = build_demo().write(tmp_path / "b")
    base = os.fsencode(root)
    for rel, data in ((b"nodes/gpu-\xff/cmd/journal-containerd.txt", b"x\n"),
                      (b"logs/ml/p\xfe/c\xfd.log", b"hello\n"),
                      (b"nodes/gpu-1/files/etc/containerd/conf.d/z\xfc.toml", b"version = 2\n"),
                      (b"nodes/gpu-1/cmd/x\xfb.txt", b"y\n"),
                      (b"metrics/n\xfa.prom", b"up 1\n")):
        path = os.path.join(base, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "wb") as fh:
            fh.write(data)
    with open_bundle(root) as snap:
        assert set(snap.hosts) == {"gpu-1", "gpu-2", "gpu-3"}
        assert snap.hosts["gpu-1"].unreadable == {
            "etc/containerd/conf.d/z\ufffd.toml": "file name is not UTF-8",
            "cmd/x\ufffd.txt": "file name is not UTF-8"}
        assert all(k[1] != "p\udcfe" for k in snap.logs)
    for args in (["check"], ["why", "ml/train-llm-0"]):
        for fmt in ("json", "text", "markdown", "html"):
            code = run([*args, "--bundle", str(root), "-o", fmt])
            out = capsys.readouterr()
            assert code in (1, 3), (args, fmt, out.err)
            if fmt == "json":
                json.loads(out.out)


def test_non_utf8_names_in_a_triage_dir(tmp_path: Path,
                                        capsys: pytest.CaptureFixture[str]) -> None:
    import json

    from gpuxray.cli.main import run

    d = tmp_path / "paste"
    d.mkdir()
    with open(os.path.join(os.fsencode(d), b"describe-\xff.txt"), "wb") as fh:
        fh.write(b"Warning  FailedScheduling  0/3 nodes are available: "
                 b"3 Insufficient nvidia.com/gpu.\n")
    code = run(["triage", str(d), "-o", "json"])
    out = capsys.readouterr()
    assert code in (0, 1, 3), out.err
    doc = json.loads(out.out)
    assert "describe-\ufffd.txt" in json.dumps(doc, ensure_ascii=False)
