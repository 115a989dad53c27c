"""The node agent's parts: the wire format between ``gpuxray node -o bundle-json`` and the
collector, the agent-mode runner, and ``--via-operands`` (pods/exec behind a small interface:
command construction, read-only guard, RBAC denial, redaction, and the drop-in trap found by
``check`` on what it collected)."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from fake_kube_writes import roots_from_bundle
from gpuxray.scenarios.builder import OPERATOR_NS
from gpuxray.scenarios.demo import build_demo
from gpuxray.sources.agent_host import agent_collect
from gpuxray.sources.collect import write_bundle
from gpuxray.sources.live import Progress, kube_transport
from gpuxray.sources.nodefacts_wire import WIRE_FORMAT, WireError, decode
from gpuxray.sources.operand_exec import ExecDenied, guard, read_via_operands
from live_fixtures import served, write_kubeconfig
from node_fixtures import healthy_host

GX = Callable[..., tuple[int, Any]]


# ----- wire format -----------------------------------------------------------------------------

def test_bundle_json_round_trip_through_a_log(tmp_path: Path) -> None:
    host = healthy_host()
    host.files["etc/containerd/conf.d/registry.toml"] = (
        '[plugins."io.containerd.grpc.v1.cri".registry.configs."r.example".auth]\n'
        '  password = "hunter2"\n')
    root = host.to_root(tmp_path / "host")
    proc = subprocess.run([sys.executable, "-m", "gpuxray", "node", "--root", str(root),
                           "--name", "gpu-9", "-o", "bundle-json"],
                          capture_output=True, check=False)
    assert proc.returncode == 0
    assert proc.stdout.count(b"\n") == 1 and proc.stdout.startswith(b'{"format":"')
    log = b"some stderr line\n" + proc.stdout + b"another line\n"
    facts, _notes = decode(log)
    assert facts.node == "gpu-9"
    assert set(facts.files) == set(host.files)
    assert facts.cmds == host.cmds
    assert "hunter2" not in facts.files["etc/containerd/conf.d/registry.toml"]


@pytest.mark.parametrize("log", [b"", b"plain text only\n",
                                 b'{"format":"' + WIRE_FORMAT.encode() + b'", "node": 5}\n',
                                 b'{"format":"' + WIRE_FORMAT.encode() + b'",\x00\xff\n'])
def test_decode_rejects_logs_without_valid_facts(log: bytes) -> None:
    with pytest.raises(WireError):
        decode(log)


# ----- agent mode on a host tree ------------------------------------------------------------

def test_agent_mode_runs_only_safe_commands_with_host_paths(tmp_path: Path) -> None:
    root = healthy_host().to_root(tmp_path / "host")
    proc = tmp_path / "proc"
    (proc / "driver" / "nvidia").mkdir(parents=True)
    (proc / "driver" / "nvidia" / "version").write_text("NVRM version: 580.95.05\n")
    (root / "proc").rename(tmp_path / "not-mounted")  # the agent does not mount /proc/driver
    col = agent_collect(str(root), "gpu-4", timeout=10, proc=proc)
    f = col.facts
    assert f.files["proc/driver/nvidia/version"] == "NVRM version: 580.95.05\n"
    stat = f.cmds["stat-containerd-config.txt"].split()
    assert stat[0] == "/etc/containerd/config.toml" and stat[1].isdigit()
    # Nothing is read from the fake tree's .gpuxray-cmd in agent mode: these are real runs.
    assert "systemctl-show-containerd.txt" not in f.cmds
    assert "no journal here" in f.cmd_errors["journal-containerd.txt"]
    assert set(f.cmds) | set(f.cmd_errors) <= {"journal-containerd.txt", "dmesg.txt",
                                               "uname.txt", "lsmod.txt",
                                               "stat-containerd-config.txt"}


# ----- via operands ----------------------------------------------------------------------------

CONTAINER_PATHS = {  # the mounts facts.md §2.4 / the driver DaemonSet give each operand
    "/runtime/config-dir": "etc/containerd",
    "/runtime/config-dir.d": "etc/containerd/conf.d",
    "/host-etc/os-release": "etc/os-release",
    "/proc/driver/nvidia/version": "proc/driver/nvidia/version",
}


class FakeExec:
    """``ls -1``/``cat`` against each node's fake host tree, through the container's mounts."""

    def __init__(self, roots: dict[str, Path], pod_node: dict[str, str],
                 deny: int | None = None) -> None:
        self.roots = roots
        self.pod_node = pod_node
        self.deny = deny
        self.calls: list[tuple[str, str, list[str]]] = []

    def _host(self, node: str, cpath: str) -> Path | None:
        for prefix, host in sorted(CONTAINER_PATHS.items(), key=lambda kv: -len(kv[0])):
            if cpath == prefix or cpath.startswith(prefix + "/"):
                return self.roots[node] / host / cpath[len(prefix):].lstrip("/")
        return None

    def run(self, namespace: str, pod: str, container: str,
            argv: list[str]) -> tuple[int, str, str]:
        guard(argv)
        self.calls.append((pod, container, argv))
        if self.deny:
            raise ExecDenied(self.deny, "pods \"x\" is forbidden: cannot create pods/exec")
        p = self._host(self.pod_node[pod], argv[-1])
        if p is None or not p.exists():
            return 2, "", f"{argv[0]}: {argv[-1]}: No such file or directory\n"
        if argv[0] == "ls":
            return 0, "".join(f"{c.name}\n" for c in sorted(p.iterdir())), ""
        if p.is_dir():
            return 1, "", f"cat: {argv[-1]}: Is a directory\n"
        return 0, p.read_text(), ""


def _pods(bundle: Path) -> list[dict[str, Any]]:
    items: list[dict[str, Any]] = json.loads((bundle / "cluster/pods.json").read_text())["items"]
    return items


def operand_cluster(tmp: Path) -> tuple[Path, dict[str, Path], dict[str, str]]:
    """The demo cluster with running toolkit and driver pods on each GPU node (added where the
    demo has none), a registry credential planted on gpu-2, and each node's fake host tree."""
    b = build_demo()
    b.host_file("gpu-2", "etc/containerd/conf.d/registry.toml",
                'version = 2\n[plugins."io.containerd.grpc.v1.cri".registry]\n'
                '  config_path = "/etc/containerd/certs.d"\n'
                '[plugins."io.containerd.grpc.v1.cri".registry.configs."r.example".auth]\n'
                '  auth = "dXNlcjpodW50ZXIy"\n')
    have = {p["metadata"].get("labels", {}).get("app")
            for p in _pods(b.write(tmp / "probe"))}
    for app, container in (("nvidia-container-toolkit-daemonset", "nvidia-container-toolkit-ctr"),
                           ("nvidia-driver-daemonset", "nvidia-driver-ctr")):
        if app in have:
            continue
        for n in ("gpu-1", "gpu-2", "gpu-3"):
            b.pod(OPERATOR_NS, f"{app}-{n}", node=n, containers=[b.container(container)],
                  labels={"app": app})
    bundle = b.write(tmp / "cluster")
    roots = roots_from_bundle(bundle, tmp / "roots")
    shutil.rmtree(bundle / "nodes")
    pod_node = {p["metadata"]["name"]: p["spec"].get("nodeName", "") for p in _pods(bundle)}
    return bundle, roots, pod_node


def _collect(bundle: Path, tmp: Path, ex: FakeExec) -> Path:
    out = tmp / "out"
    with served(bundle) as srv:
        kc = write_kubeconfig(srv, tmp / "kc")
        transport, _ = kube_transport(str(kc), None)

        def step(root: Path, client: Any, progress: Progress) -> list[tuple[str, str]]:
            return read_via_operands(root, client, ex, progress)

        write_bundle(str(out), transport, Progress(True), context="t", node_facts=step)
    return out


def test_via_operands_reads_files_and_check_finds_dropin(tmp_path: Path, gx: GX) -> None:
    bundle, roots, pod_node = operand_cluster(tmp_path)
    ex = FakeExec(roots, pod_node)
    out = _collect(bundle, tmp_path, ex)
    assert {argv[0] for _, _, argv in ex.calls} == {"ls", "cat"}
    assert {c for _, c, _ in ex.calls} == {"nvidia-container-toolkit-ctr", "nvidia-driver-ctr"}
    reg = out / "nodes/gpu-2/files/etc/containerd/conf.d/registry.toml"
    assert reg.is_file() and "dXNlcjpodW50ZXIy" not in reg.read_text()
    assert "<redacted>" in reg.read_text()
    assert (out / "nodes/gpu-1/files/etc/os-release").is_file()
    assert (out / "nodes/gpu-1/files/proc/driver/nvidia/version").is_file()
    assert not (out / "nodes/gpu-1/files/etc/containerd/conf.d/registry.toml").exists()
    assert not (out / "nodes/gpu-1/cmd").exists() or not any((out / "nodes/gpu-1/cmd").iterdir())
    _code, doc = gx("check", "--bundle", str(out), "-o", "json")
    hits = {f["subject"]["name"] for f in doc["findings"]
            if f["code"] == "GX501" and f["status"] == "fail"}
    assert hits == {"gpu-2", "gpu-3"}


def test_via_operands_rbac_denial_is_unknown_with_reason(tmp_path: Path) -> None:
    bundle, roots, pod_node = operand_cluster(tmp_path)
    ex = FakeExec(roots, pod_node, deny=403)
    out = _collect(bundle, tmp_path, ex)
    errs = {e["what"]: e["error"] for e in
            json.loads((out / "manifest.json").read_text())["errors"]}
    assert "pods/exec not allowed" in errs["nodes/"] and "forbidden" in errs["nodes/"]
    assert len(ex.calls) == 1  # a 403 is not retried pod by pod
    assert not (out / "nodes").exists()


@pytest.mark.parametrize("argv", [["rm", "-rf", "/"], ["sh", "-c", "cat /x"],
                                  ["cat", "--version"], []])
def test_guard_refuses_anything_but_cat_and_ls(argv: list[str]) -> None:
    with pytest.raises(ValueError):
        guard(argv)


def test_guard_allows_reads() -> None:
    assert guard(["ls", "-1", "/runtime/config-dir"]) == ["ls", "-1", "/runtime/config-dir"]
    assert guard(["cat", "/host-etc/os-release"])[0] == "cat"


# ----- deploy/ ---------------------------------------------------------------------------------

DEPLOY = Path(__file__).resolve().parents[1] / "deploy" / "node-agent"


def test_rbac_validates_and_grants_what_the_agent_sends() -> None:
    import kubernetes_validate
    import yaml

    docs = [d for d in yaml.safe_load_all((DEPLOY / "rbac.yaml").read_text()) if d]
    for d in docs:
        kubernetes_validate.validate(d, "1.31", strict=True)
    rules = {(r["resources"][0], v) for d in docs if d["kind"] in ("ClusterRole", "Role")
             for r in d["rules"] for v in r["verbs"]}
    # Every verb the collector sends (agent_writes + the reads of agent.py/operand_exec.py).
    for need in [("namespaces", "create"), ("namespaces", "delete"), ("namespaces", "list"),
                 ("daemonsets", "create"), ("pods", "list"), ("pods/log", "get"),
                 ("nodes", "list"), ("pods/exec", "create")]:
        assert need in rules
    assert all(v not in ("update", "patch", "*") for _, v in rules)


def test_dockerfile_entrypoint_is_a_valid_agent_command_line(tmp_path: Path) -> None:
    text = (DEPLOY / "Dockerfile").read_text()
    entry = json.loads(next(ln for ln in text.splitlines()
                            if ln.startswith("ENTRYPOINT"))[len("ENTRYPOINT"):])
    assert entry[:2] == ["gpuxray", "node"] and "--agent" in entry
    root = healthy_host().to_root(tmp_path / "host")
    argv = [str(root) if a == "/host" else a for a in entry[1:]]
    proc = subprocess.run([sys.executable, "-m", "gpuxray", *argv, "--name", "gpu-5"],
                          capture_output=True, check=False, timeout=60)
    assert proc.returncode == 0, proc.stderr
    facts, _ = decode(proc.stdout)
    assert facts.node == "gpu-5" and "etc/containerd/config.toml" in facts.files


def test_oversized_journal_is_cut_to_its_recent_tail_to_fit_the_pod_log() -> None:
    from gpuxray.model.snapshot import HostFacts
    from gpuxray.sources.nodefacts_wire import encode

    journal = "".join(f"2026-11-23T09:{i % 60:02d}:00+0000 line {i}\n" for i in range(20000))
    facts = HostFacts("gpu-1", {"etc/os-release": "ID=ubuntu\n"},
                      {"journal-containerd.txt": journal, "uname.txt": "Linux\n"}, {})
    line = encode(facts, [], budget=100_000)
    got, notes = decode(line)
    kept = got.cmds["journal-containerd.txt"]
    assert len(kept) <= 100_000 and journal.endswith(kept) and kept.startswith("2026-")
    assert got.cmds["uname.txt"] == "Linux\n" and got.files == facts.files
    assert any("journal-containerd.txt" in n for n in notes)
    assert decode(encode(facts, []))[0].cmds == facts.cmds  # under budget: untouched
