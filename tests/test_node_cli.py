"""``gpuxray node``: collection from a fake host tree (``--root``), ``--save`` as a bundle
node and its round trip through ``gpuxray check --bundle``, and credential redaction."""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from gpuxray.sources.host import collect_host, redact
from node_fixtures import Host, data, healthy_host

GX = Callable[..., tuple[int, Any]]


def broken_host() -> Host:
    h = healthy_host()
    h.cmds["systemctl-show-containerd.txt"] = "Restart=no\nRestartUSec=100ms\nNRestarts=0\n"
    h.cmds["lsmod.txt"] = data("lsmod-nouveau.txt")
    h.cmds["dmesg.txt"] = data("dmesg-T.txt")
    h.cmds["journal-containerd.txt"] = data("journal-containerd.txt")
    return h


def key(f: dict[str, Any]) -> tuple[str, str, str, str]:
    return (f["code"], f["status"], f["subject"]["name"], json.dumps(f["params"], sort_keys=True))


def test_node_root_json(tmp_path: Path, gx: GX) -> None:
    root = broken_host().to_root(tmp_path / "host", hostname="gpu-7.example.internal")
    code, doc = gx("node", "--root", str(root), "-o", "json")
    assert code == 1
    assert doc["node"] == "gpu-7"
    mine = {(f["code"], f["status"]) for f in doc["findings"] if f["subject"]["name"] == "gpu-7"}
    assert {("GX503", "fail"), ("GX504", "fail"), ("GX505", "fail"),
            ("GX506", "fail")} <= mine
    xids = sorted(f["params"]["xid"] for f in doc["findings"] if f["code"] == "GX505")
    assert xids == [31, 79]
    assert all(f["layer"] == "node" or f["code"] in ("GX405", "GX301")
               for f in doc["findings"])
    assert any("not executed" in n for n in doc["notes"])


def test_node_healthy_root_exit_zero(tmp_path: Path, gx: GX) -> None:
    root = healthy_host().to_root(tmp_path / "host")
    code, doc = gx("node", "--root", str(root), "--name", "gpu-1", "-o", "json")
    mine = [f for f in doc["findings"]
            if f["code"] in ("GX405", "GX503", "GX504", "GX505", "GX506", "GX507", "GX508")]
    assert mine == []
    assert code in (0, 3)  # other engineers' node checks may lack inputs (unknown)


def test_node_runs_the_handler_check_on_its_own_config(tmp_path: Path, gx: GX) -> None:
    """Seed §5: a GPU host whose effective containerd config has no ``nvidia`` runtime is the
    node side of GX301, and ``gpuxray node`` reads it from the host alone."""
    healthy = healthy_host().to_root(tmp_path / "ok")
    _code, doc = gx("node", "--root", str(healthy), "--name", "gpu-1", "-o", "json")
    assert "GX301" in doc["checks"]
    assert [f for f in doc["findings"] if f["code"] == "GX301"] == []
    h = healthy_host()
    h.files["etc/containerd/config.toml"] = (
        'version = 2\n[plugins."io.containerd.grpc.v1.cri"]\n'
        '  sandbox_image = "registry.k8s.io/pause:3.9"\n')
    bare = h.to_root(tmp_path / "bare")
    code, doc = gx("node", "--root", str(bare), "--name", "gpu-1", "-o", "json")
    got = [(f["status"], f["severity"], f["subject"]["name"], f["params"]["handler"],
            f["params"]["runtimes"], f["params"]["config"])
           for f in doc["findings"] if f["code"] == "GX301"]
    # a warning: nothing on the host alone shows a pod already needing the handler
    assert got == [("fail", "warning", "gpu-1", "nvidia", ["runc"], "/etc/containerd/config.toml")]
    assert code == 0
    code, _doc = gx("node", "--root", str(bare), "--name", "gpu-1", "-o", "json",
                    "--fail-on", "warning")
    assert code == 1


def test_save_round_trip_matches_check(tmp_path: Path, gx: GX) -> None:
    root = broken_host().to_root(tmp_path / "host")
    out = tmp_path / "bundle"
    code, doc = gx("node", "--root", str(root), "--name", "gpu-1", "--save", str(out),
                   "-o", "json")
    assert code == 1
    assert (out / "nodes/gpu-1/cmd/lsmod.txt").read_text() == data("lsmod-nouveau.txt")
    assert (out / "nodes/gpu-1/files/lib/systemd/system/containerd.service").is_file()
    assert json.loads((out / "manifest.json").read_text())["format"] == "gpuxray-bundle/1"
    args = ["check", "--bundle", str(out), "-o", "json"]
    for c in doc["checks"]:
        args += ["--code", c]
    _code2, doc2 = gx(*args)
    node_side = {key(f) for f in doc["findings"]}
    from_bundle = {key(f) for f in doc2["findings"] if f["code"] in doc["checks"]}
    assert node_side == from_bundle
    assert any(k[0] == "GX506" for k in node_side)


def test_save_merges_without_clobbering(tmp_path: Path, gx: GX) -> None:
    out = tmp_path / "bundle"
    (out / "nodes" / "other" / "cmd").mkdir(parents=True)
    (out / "nodes" / "other" / "cmd" / "lsmod.txt").write_text("keep me\n")
    (out / "manifest.json").write_text('{"format": "gpuxray-bundle/1", "collector": "x"}')
    h = healthy_host()
    h.errs["nvidia-smi.txt"] = "NVIDIA-SMI has failed\nexit status 9"
    root = h.to_root(tmp_path / "host")
    gx("node", "--root", str(root), "--name", "gpu-1", "--save", str(out), "-o", "json")
    assert (out / "nodes/other/cmd/lsmod.txt").read_text() == "keep me\n"
    assert json.loads((out / "manifest.json").read_text())["collector"] == "x"
    assert (out / "nodes/gpu-1/cmd/nvidia-smi.txt.err").read_text().endswith("exit status 9")
    assert not (out / "nodes/gpu-1/cmd/nvidia-smi.txt").exists()


def test_redaction_of_planted_secrets(tmp_path: Path, gx: GX) -> None:
    h = healthy_host()
    h.files["etc/containerd/config.toml"] = (
        'version = 2\nimports = ["/etc/containerd/extra/*.toml"]\n'
        '[plugins."io.containerd.grpc.v1.cri".registry.configs."reg.example".auth]\n'
        '  username = "robot"\n  password = "hunter2-SECRET"\n'
        '  auth = "cm9ib3Q6aHVudGVyMg=="\n  identitytoken = "idtok-SECRET"\n'
        '  token_file = "/etc/keep/this"\n')
    h.files["etc/containerd/extra/registry.toml"] = (
        '[plugins."io.containerd.grpc.v1.cri".registry.configs."b.example"]\n'
        '  auth = { username = "u", password = \'inline-SECRET\', token = "tok-SECRET" }\n')
    h.cmds["crictl-info.json"] = json.dumps({"config": {"registry": {"configs": {
        "reg.example": {"auth": {"username": "robot", "password": "json-SECRET",
                                 "auth": "YmFzZTY0LVNFQ1JFVA==", "identitytoken": ""}}}}}},
        indent=2)
    h.cmds["containerd-config-dump.toml"] = 'version = 2\n  password = "dump-SECRET"\n'
    root = h.to_root(tmp_path / "host")
    out = tmp_path / "bundle"
    gx("node", "--root", str(root), "--name", "gpu-1", "--save", str(out), "-o", "json")
    saved = {p: p.read_text() for p in out.rglob("*") if p.is_file()}
    everything = "\n".join(saved.values())
    assert "SECRET" not in everything and "aHVudGVyMg" not in everything
    assert "YmFzZTY0" not in everything
    cfg = saved[out / "nodes/gpu-1/files/etc/containerd/config.toml"]
    assert cfg.count('"<redacted>"') == 3 and 'token_file = "/etc/keep/this"' in cfg
    assert 'username = "robot"' in cfg
    # the import was followed and redacted too
    extra = saved[out / "nodes/gpu-1/files/etc/containerd/extra/registry.toml"]
    assert extra.count('"<redacted>"') == 2 and 'username = "u"' in extra
    crictl = json.loads(saved[out / "nodes/gpu-1/cmd/crictl-info.json"])
    auth = crictl["config"]["registry"]["configs"]["reg.example"]["auth"]
    assert auth["password"] == "<redacted>" and auth["username"] == "robot"


def test_redact_leaves_unrelated_keys() -> None:
    text = 'tokens = 3\nmy_token = "x"\n"password" = "p"\npassword="q" # c\n'
    out = redact(text)
    assert 'tokens = 3' in out and 'my_token = "x"' in out
    assert out.count('"<redacted>"') == 2


def test_root_not_a_directory(tmp_path: Path, gx: GX) -> None:
    f = tmp_path / "file"
    f.write_text("x")
    code, _ = gx("node", "--root", str(f), "--name", "n")
    assert code == 2


def test_invalid_node_name(tmp_path: Path, gx: GX) -> None:
    code, _ = gx("node", "--root", str(tmp_path), "--name", "../etc")
    assert code == 2


def test_binary_junk_inputs_do_not_crash(tmp_path: Path, gx: GX) -> None:
    h = healthy_host()
    junk = "\x00\xff\xfe\x01" * 1000
    for name in ("dmesg.txt", "journal-containerd.txt", "lsmod.txt", "nvidia-smi-q.xml",
                 "lspci-nvidia.txt", "systemctl-show-containerd.txt"):
        h.cmds[name] = junk
    h.files["etc/apt/apt.conf.d/50unattended-upgrades"] = junk
    h.files["etc/containerd/config.toml"] = junk
    root = h.to_root(tmp_path / "host")
    code, doc = gx("node", "--root", str(root), "--name", "gpu-1", "-o", "json")
    assert code in (0, 1, 3) and doc["schema"] == "gpuxray/v1"


def test_missing_inputs_are_unknown_not_pass(tmp_path: Path, gx: GX) -> None:
    root = tmp_path / "empty"
    root.mkdir()
    code, doc = gx("node", "--root", str(root), "--name", "bare", "-o", "json")
    unknown = {f["code"] for f in doc["findings"] if f["status"] == "unknown"}
    assert {"GX503", "GX504", "GX505", "GX506", "GX507", "GX508", "GX405"} <= unknown
    assert code == 3


@pytest.mark.slow
def test_collect_this_host_runs_real_commands() -> None:
    """Without --root the BUNDLE.md commands really run (absent ones become .err)."""
    col = collect_host(None, "self", timeout=10)
    assert col.executed
    uname = col.facts.cmds.get("uname.txt", "")
    assert uname.startswith("Linux ")
    for name in ("nvidia-smi.txt", "mokutil-sb-state.txt"):
        assert name in col.facts.cmds or name in col.facts.cmd_errors
    assert any(n.startswith("NVML") for n in col.notes)
    if os.path.exists("/etc/os-release"):
        assert "etc/os-release" in col.facts.files


def test_absolute_symlink_stays_inside_root(tmp_path: Path) -> None:
    h = healthy_host().drop("etc/containerd/config.toml")
    h.files["opt/cfg/containerd.toml"] = 'version = 2\n# inside the fake root\n'
    root = h.to_root(tmp_path / "host")
    (root / "etc/containerd").mkdir(parents=True, exist_ok=True)
    (root / "etc/containerd/config.toml").symlink_to("/opt/cfg/containerd.toml")
    (root / "etc/os-release").unlink()
    (root / "etc/os-release").symlink_to("/etc/../../../etc/passwd")
    col = collect_host(root, "gpu-1")
    assert col.facts.files["etc/containerd/config.toml"].endswith("# inside the fake root\n")
    assert "etc/os-release" not in col.facts.files  # resolves to <root>/etc/passwd: absent


def test_node_text_output(tmp_path: Path, gx: GX) -> None:
    root = broken_host().to_root(tmp_path / "host")
    code, out = gx("node", "--root", str(root), "--name", "gpu-1", "--fail-on", "warning")
    assert code == 1
    for c in ("GX503", "GX504", "GX505", "GX506"):
        assert c in out


class _FakeNvml:
    """Stands in for ``pynvml`` (no GPU here): the calls ``host._nvml`` makes, one GPU."""

    class _Mem:
        total, used = 85899345920, 1048576

    class _Pci:
        busId = b"00000000:18:00.0"

    def __init__(self, fail_init: bool = False) -> None:
        self.fail_init = fail_init
        self.shut = False

    def nvmlInit(self) -> None:
        if self.fail_init:
            raise RuntimeError("NVML Shared Library Not Found")

    def nvmlShutdown(self) -> None:
        self.shut = True

    def nvmlDeviceGetCount(self) -> int:
        return 1

    def nvmlDeviceGetHandleByIndex(self, i: int) -> int:
        return i

    def nvmlDeviceGetMemoryInfo(self, h: int) -> object:
        return self._Mem()

    def nvmlDeviceGetMigMode(self, h: int) -> tuple[int, int]:
        return (1, 0)

    def nvmlDeviceGetName(self, h: int) -> bytes:
        return b"NVIDIA H200"

    def nvmlDeviceGetUUID(self, h: int) -> str:
        return "GPU-11111111-2222-3333-4444-555555555555"

    def nvmlDeviceGetPciInfo(self, h: int) -> object:
        return self._Pci()

    def nvmlSystemGetDriverVersion(self) -> str:
        return "580.95.05"


def test_nvml_record_and_skip(monkeypatch: pytest.MonkeyPatch) -> None:
    import sys

    from gpuxray.sources import host

    fake = _FakeNvml()
    monkeypatch.setitem(sys.modules, "pynvml", fake)
    text, note = host._nvml()
    assert text is not None and note.startswith("NVML: recorded") and fake.shut
    doc = json.loads(text)
    assert doc["driver_version"] == "580.95.05"
    g = doc["gpus"][0]
    assert (g["name"], g["pci_bus_id"], g["mig_mode"]) == (
        "NVIDIA H200", "00000000:18:00.0", {"current": 1, "pending": 0})
    monkeypatch.setitem(sys.modules, "pynvml", _FakeNvml(fail_init=True))
    text, note = host._nvml()
    assert text is None and "nvmlInit failed" in note
