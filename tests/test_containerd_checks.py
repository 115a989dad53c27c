"""Scenario bundles for GX501, GX502, GX509, GX510 and GX301 (seed §5, facts.md §0-§2, §5.4)."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from containerd_fixtures import (
    REGISTRY_DROPIN,
    ROOT_V2,
    ROOT_V3,
    node_with_files,
    toolkit_dropin,
    toolkit_dropin_v3,
)
from gpuxray.checks.engine import run_all
from gpuxray.engines.containerd import node_runtime_handlers
from gpuxray.model.finding import Finding, Severity, Status
from gpuxray.scenarios.builder import ClusterBuilder
from gpuxray.sources.bundle import open_bundle

Write = Callable[[ClusterBuilder], Path]
CODES = ["GX501", "GX502", "GX509", "GX510", "GX301"]
ROOT = "etc/containerd/config.toml"
DROP = "etc/containerd/conf.d"


def findings(write_bundle: Write, b: ClusterBuilder, codes: list[str] = CODES) -> list[Finding]:
    with open_bundle(write_bundle(b)) as snap:
        return run_all(snap, codes)


def by(fs: list[Finding], code: str) -> list[Finding]:
    return [f for f in fs if f.code == code]


def healthy(b: ClusterBuilder, name: str = "gpu-1") -> None:
    node_with_files(b, name, {ROOT: ROOT_V2, f"{DROP}/99-nvidia.toml": toolkit_dropin()})
    b.runtimeclass("nvidia")


def test_healthy_node_has_no_findings(write_bundle: Write) -> None:
    b = ClusterBuilder()
    healthy(b)
    b.host_cmd("gpu-1", "systemctl-show-containerd.txt",
               "Restart=always\nActiveEnterTimestamp=Sat 2026-11-28 10:00:00 UTC\n")
    b.host_cmd("gpu-1", "stat-containerd-config.txt",
               "/etc/containerd/config.toml 1795856400\n"
               "/etc/containerd/conf.d/99-nvidia.toml 1795856400\n")  # 09:00 UTC
    b.host_cmd("gpu-1", "crictl-info.json", json.dumps({"config": {"containerd": {"runtimes": {
        r: {} for r in ("runc", "nvidia", "nvidia-cdi", "nvidia-legacy")}}}}))
    assert findings(write_bundle, b) == []


def test_gx501_names_culprit_and_lost_keys(write_bundle: Write) -> None:
    b = ClusterBuilder()
    healthy(b)
    b.host_file("gpu-1", f"{DROP}/registry.toml", REGISTRY_DROPIN)
    fs = findings(write_bundle, b)
    [f] = by(fs, "GX501")
    assert f.status is Status.FAIL and f.severity is Severity.ERROR
    assert (f.subject.kind, f.subject.name) == ("Node", "gpu-1")
    assert f.params["culprit"] == "/etc/containerd/conf.d/registry.toml"
    assert f.evidence[0].source == "nodes/gpu-1/files/etc/containerd/conf.d/registry.toml"
    assert f.params["lost_runtimes"] == ["nvidia", "nvidia-cdi", "nvidia-legacy"]
    assert ("io.containerd.grpc.v1.cri.containerd.runtimes.nvidia.options.BinaryName"
            in f.params["lost_keys"])
    # the same node lost its nvidia handler: GX301 from the files
    [h] = by(fs, "GX301")
    assert h.subject.name == "gpu-1" and h.params["from_files"] is True
    assert h.severity is Severity.ERROR


def test_gx501_warning_when_only_other_settings_lost(write_bundle: Write) -> None:
    b = ClusterBuilder()
    node_with_files(b, "gpu-1", {ROOT: ROOT_V2, f"{DROP}/registry.toml": REGISTRY_DROPIN,
                                 f"{DROP}/zz-nvidia.toml": toolkit_dropin()})
    b.runtimeclass("nvidia")
    fs = findings(write_bundle, b)
    [f] = by(fs, "GX501")
    assert f.severity is Severity.WARNING
    assert f.params["culprit"] == "/etc/containerd/conf.d/zz-nvidia.toml"
    assert f.params["lost_keys"] == ["io.containerd.grpc.v1.cri.registry.config_path"]
    assert by(fs, "GX301") == []


def test_gx501_none_on_2x(write_bundle: Write) -> None:
    b = ClusterBuilder()
    healthy(b)
    b.host_file("gpu-1", f"{DROP}/registry.toml", REGISTRY_DROPIN)
    b.host_cmd("gpu-1", "containerd-version.txt", "containerd containerd.io 2.1.4 abc\n")
    assert by(findings(write_bundle, b), "GX501") == []


def test_gx509_malformed_and_missing_import(write_bundle: Write) -> None:
    b = ClusterBuilder()
    node_with_files(b, "gpu-1", {ROOT: ROOT_V2, f"{DROP}/bad.toml": "version = 2\n[plugins\n"})
    node_with_files(b, "gpu-2", {ROOT: 'version = 2\nimports = ["/etc/containerd/x.toml"]\n'})
    b.runtimeclass("nvidia")
    fs = by(findings(write_bundle, b), "GX509")
    got = {(f.subject.name, f.params["kind"], f.evidence[0].source) for f in fs}
    assert got == {("gpu-1", "parse", "nodes/gpu-1/files/etc/containerd/conf.d/bad.toml"),
                   ("gpu-2", "missing-import", "nodes/gpu-2/files/etc/containerd/x.toml")}
    assert all(f.severity is Severity.ERROR for f in fs)


def test_gx509_cycle_is_no_finding_and_huge_glob_is(write_bundle: Write) -> None:
    b = ClusterBuilder()
    node_with_files(b, "gpu-1", {
        ROOT: 'version = 2\nimports = ["/etc/containerd/conf.d/*.toml"]\n',
        f"{DROP}/a.toml": 'version = 2\nimports = ["/etc/containerd/config.toml"]\n'
                          + toolkit_dropin().split("\n", 1)[1]})
    node_with_files(b, "gpu-2", {ROOT: 'version = 2\nimports = ["/etc/containerd/conf.d/*.toml"]\n',
                                 **{f"{DROP}/{i:04}.toml": "version = 2\n" for i in range(1200)}})
    b.runtimeclass("nvidia")
    fs = findings(write_bundle, b, ["GX501", "GX509", "GX301"])
    assert [f.subject.name for f in by(fs, "GX509")] == ["gpu-2"]
    assert by(fs, "GX509")[0].params["kind"] == "too-many-files"
    assert [f for f in fs if f.subject.name == "gpu-1"] == []


def test_gx509_refused_versions(write_bundle: Write) -> None:
    b = ClusterBuilder()
    v3 = 'version = 3\n[plugins."io.containerd.cri.v1.runtime".containerd.runtimes.nvidia]\n'
    node_with_files(b, "gpu-1", {ROOT: ROOT_V2, f"{DROP}/99-nvidia.toml": v3},
                    version="containerd containerd.io 1.7.27 x")
    node_with_files(b, "gpu-2", {ROOT: ROOT_V2, f"{DROP}/99-nvidia.toml":
                                 v3.replace("version = 3", "version = 4")},
                    version="containerd containerd.io 2.3.2 x")
    fs = by(findings(write_bundle, b), "GX509")
    assert {(f.subject.name, f.params["kind"]) for f in fs} == {
        ("gpu-1", "version-refused"), ("gpu-2", "dropin-higher")}


def test_gx502_files_newer_than_daemon_and_handlers_differ(write_bundle: Write) -> None:
    b = ClusterBuilder()
    healthy(b)
    b.host_cmd("gpu-1", "systemctl-show-containerd.txt",
               "ActiveEnterTimestamp=Sat 2026-11-28 10:00:00 UTC\n")
    b.host_cmd("gpu-1", "stat-containerd-config.txt",
               "/etc/containerd/config.toml 1795856400\n"
               "/etc/containerd/conf.d/99-nvidia.toml 1795866000\n")  # 2026-11-28 11:40 UTC
    b.host_cmd("gpu-1", "crictl-info.json",
               json.dumps({"config": {"containerd": {"runtimes": {"runc": {}}}}}))
    [f] = by(findings(write_bundle, b), "GX502")
    assert f.subject.name == "gpu-1" and f.status is Status.FAIL
    assert len(f.params["changes"]) == 2
    assert {e.source for e in f.evidence} >= {
        "nodes/gpu-1/cmd/stat-containerd-config.txt", "nodes/gpu-1/cmd/crictl-info.json"}


def test_gx502_unknown_without_inputs(write_bundle: Write) -> None:
    b = ClusterBuilder()
    healthy(b)
    [f] = by(findings(write_bundle, b), "GX502")
    assert f.status is Status.UNKNOWN and f.subject.name == "gpu-1"


def test_gx301_from_events(write_bundle: Write) -> None:
    b = ClusterBuilder()
    b.node("gpu-3", gpus=8)
    b.runtimeclass("nvidia")
    pod = b.pod("gpu-operator", "nvidia-device-plugin-daemonset-x7k2p", node="gpu-3",
                runtime_class="nvidia", phase="Pending",
                container_statuses=[{"name": "main", "ready": False, "restartCount": 0,
                                     "state": {"waiting": {"reason": "ContainerCreating"}}}])
    b.event(pod, "FailedCreatePodSandBox",
            'Failed to create pod sandbox: rpc error: code = Unknown desc = failed to get '
            'sandbox runtime: no runtime for "nvidia" is configured', component="kubelet",
            host="gpu-3")
    fs = findings(write_bundle, b, ["GX301"])
    [f] = fs
    assert (f.subject.name, f.status, f.params["from_events"]) == ("gpu-3", Status.FAIL, True)
    assert f.evidence[0].source == "cluster/events.json"


def test_gx301_unknown_when_nothing_decides(write_bundle: Write) -> None:
    b = ClusterBuilder()
    b.node("gpu-4", gpus=2)
    b.runtimeclass("nvidia")
    b.ensure("events")
    [f] = findings(write_bundle, b, ["GX301"])
    assert f.status is Status.UNKNOWN and f.subject.name == "gpu-4"
    # a device-plugin pod running on runtimeClassName nvidia proves the handler
    b.pod("gpu-operator", "nvidia-device-plugin-daemonset-abcde", node="gpu-4",
          runtime_class="nvidia")
    assert findings(write_bundle, b, ["GX301"]) == []


def test_unknowns_when_config_not_collected(write_bundle: Write) -> None:
    b = ClusterBuilder()
    b.node("gpu-5", gpus=1)
    b.host_cmd("gpu-5", "nvidia-smi.txt", "NVIDIA-SMI 580.95.05\n")
    b.runtimeclass("nvidia")
    fs = findings(write_bundle, b)
    assert {(f.code, f.status) for f in fs} == {
        ("GX501", Status.UNKNOWN), ("GX509", Status.UNKNOWN), ("GX502", Status.UNKNOWN),
        ("GX510", Status.UNKNOWN), ("GX301", Status.UNKNOWN)}
    with open_bundle(write_bundle(b)) as snap:
        assert node_runtime_handlers(snap.hosts["gpu-5"]) is None


def test_node_runtime_handlers_uses_node_runtime_version(write_bundle: Write) -> None:
    b = ClusterBuilder()
    node_with_files(b, "gpu-1", {ROOT: ROOT_V2, f"{DROP}/99-nvidia.toml": toolkit_dropin(),
                                 f"{DROP}/registry.toml": REGISTRY_DROPIN}, version=None)
    with open_bundle(write_bundle(b)) as snap:
        host = snap.hosts["gpu-1"]
        assert node_runtime_handlers(host, "containerd://1.7.27") == {"runc"}
        assert "nvidia" in (node_runtime_handlers(host, "containerd://2.1.4") or set())


def test_gx509_unreadable_dropin(write_bundle: Write) -> None:
    b = ClusterBuilder()
    healthy(b)
    root = write_bundle(b)
    link = root / "nodes/gpu-1/files/etc/containerd/conf.d/50-link.toml"
    link.symlink_to("/etc/hostname")
    with open_bundle(root) as snap:
        fs = run_all(snap, ["GX509"])
    [f] = fs
    assert f.params["kind"] == "unreadable"
    assert f.evidence[0].source == "nodes/gpu-1/files/etc/containerd/conf.d/50-link.toml"


def test_gx502_config_dump_differs(write_bundle: Write) -> None:
    b = ClusterBuilder()
    healthy(b)
    dump = ('version = 3\n[plugins."io.containerd.cri.v1.runtime".containerd.runtimes.runc]\n'
            'runtime_type = "io.containerd.runc.v2"\n')
    b.host_cmd("gpu-1", "containerd-config-dump.toml", dump)
    [f] = by(findings(write_bundle, b), "GX502")
    assert f.status is Status.FAIL
    assert f.evidence[0].source == "nodes/gpu-1/cmd/containerd-config-dump.toml"


def test_gx301_names_a_dropin_that_is_never_imported(write_bundle: Write) -> None:
    b = ClusterBuilder()
    node_with_files(b, "gpu-1", {ROOT: ROOT_V2.replace(
        'imports = ["/etc/containerd/conf.d/*.toml"]\n', ""),
        f"{DROP}/99-nvidia.toml": toolkit_dropin()})
    b.runtimeclass("nvidia")
    [f] = findings(write_bundle, b, ["GX301"])
    assert f.params["from_files"] is True
    assert "nodes/gpu-1/files/etc/containerd/conf.d/99-nvidia.toml" in {
        e.source for e in f.evidence}


# ----- 2.x: healthy v3 trees, the v3-root + v2-drop-in loss, refusals ---------------------------
def _v2x_cluster(b: ClusterBuilder, nodes: dict[str, tuple[str, dict[str, str]]]) -> None:
    b.runtimeclass("nvidia")
    for name, (version, files) in nodes.items():
        node_with_files(b, name, files,
                        version=f"containerd github.com/containerd/containerd/v2 v{version} x")


HEALTHY_V3 = {ROOT: ROOT_V3, f"{DROP}/99-nvidia.toml": toolkit_dropin_v3()}


def test_healthy_2x_cluster_with_toolkit_v3_dropin_has_no_gx501_gx509(
        write_bundle: Write, gx: Callable[..., tuple[int, object]]) -> None:
    """facts.md §0: a v3 root plus the toolkit's v3 drop-in deep-merges on every 2.x line."""
    b = ClusterBuilder()
    _v2x_cluster(b, {f"gpu-{v}": (v, HEALTHY_V3) for v in ("2.0.14", "2.1.4", "2.2.7",
                                                          "2.3.4", "2.3.7", "2.4.2")})
    bundle = write_bundle(b)
    _, doc = gx("check", "--bundle", str(bundle), "-o", "json")
    assert isinstance(doc, dict) and len(doc["findings"]) > 0
    fired = [(f["code"], f["subject"]["name"]) for f in doc["findings"]
             if f["code"] in ("GX501", "GX509", "GX510", "GX301") and f["status"] == "fail"]
    assert fired == []
    with open_bundle(bundle) as snap:
        for host in snap.hosts.values():
            assert node_runtime_handlers(host) == {"runc", "nvidia", "nvidia-cdi",
                                                   "nvidia-legacy"}


V2_NVIDIA_DROPIN = (toolkit_dropin(2))


def test_gx510_v3_root_v2_dropin_on_2_1_and_2_2_only(write_bundle: Write) -> None:
    b = ClusterBuilder()
    files = {ROOT: ROOT_V3, f"{DROP}/99-nvidia.toml": V2_NVIDIA_DROPIN}
    _v2x_cluster(b, {"n21": ("2.1.4", files), "n22": ("2.2.7", files),
                     "n23": ("2.3.7", files), "n24": ("2.4.2", files)})
    fs = findings(write_bundle, b)
    gx510 = by(fs, "GX510")
    assert [f.subject.name for f in gx510] == ["n21", "n22"]
    for f in gx510:
        assert f.severity is Severity.ERROR
        assert f.params["file"] == "/etc/containerd/conf.d/99-nvidia.toml"
        assert f.params["blocker_files"] == ["/etc/containerd/config.toml"]
        assert f.params["blocking_keys"] == ["containerd.runtimes"]
        assert f.params["lost_runtimes"] == ["nvidia", "nvidia-cdi", "nvidia-legacy"]
        assert f.params["kept_from"] == "2.3"
    # the same loss is not reported twice, and 2.3+/2.4 keep the handlers: nothing at all there
    assert by(fs, "GX501") == []
    assert {f.subject.name for f in by(fs, "GX301")} == {"n21", "n22"}
    assert [f for f in fs if f.subject.name in ("n23", "n24") and f.status is Status.FAIL] == []


def test_gx509_refusals_carry_the_daemon_message(write_bundle: Write) -> None:
    b = ClusterBuilder()
    v3_drop = toolkit_dropin_v3()
    v4_drop = v3_drop.replace("version = 3", "version = 4")
    _v2x_cluster(b, {"a234": ("2.3.4", {ROOT: ROOT_V2, f"{DROP}/99-nvidia.toml": v3_drop}),
                     "a237": ("2.3.7", {ROOT: ROOT_V2, f"{DROP}/99-nvidia.toml": v3_drop}),
                     "b22": ("2.2.7", {ROOT: ROOT_V2, f"{DROP}/99-nvidia.toml": v4_drop})})
    fs = {f.subject.name: f for f in by(findings(write_bundle, b), "GX509")}
    assert sorted(fs) == ["a234", "b22"]
    assert fs["a234"].params["daemon_message"] == (
        "drop-in config version 3 higher than root config version 2")
    assert fs["b22"].params["daemon_message"] == (
        "failed to load TOML from /etc/containerd/conf.d/99-nvidia.toml: expected containerd "
        "config version equal to or less than `3`, got `4`")


def test_gx510_nodes_get_the_merge_table_in_document_reports(write_bundle: Write) -> None:
    """A node whose v2 drop-in the 2.0.2-2.2 migration kept out gets the same merge section as
    a GX501 node, naming the drop-in and the handlers it lost."""
    from click.testing import CliRunner

    from gpuxray.cli.main import cli

    b = ClusterBuilder()
    files = {ROOT: ROOT_V3, f"{DROP}/99-nvidia.toml": V2_NVIDIA_DROPIN}
    _v2x_cluster(b, {"n21": ("2.1.4", files), "n23": ("2.3.7", files)})
    root = write_bundle(b)
    out = CliRunner().invoke(cli, ["check", "--bundle", str(root), "-o", "markdown"]).output
    merge = out.split("## containerd config merge", 1)
    assert len(merge) == 2, "no merge section for a GX510 node"
    section = merge[1].split("\n## ", 1)[0]
    assert "n21" in section and "n23" not in section
    assert "99-nvidia.toml" in section and "nvidia-cdi" in section
