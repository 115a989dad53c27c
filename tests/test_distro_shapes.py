"""k3s, RKE2 and AKS GPU nodes (scenarios/distros.py): healthy shapes are quiet, the merge
engine reads the file their containerd really reads and agrees with the real containerd on it,
and the real mistakes of those shapes are found.

Healthy means nothing above info from ``check``, and ``why`` finds the GPU pods fine:
k3s and RKE2 agents with the GPU Operator (the config the distribution renders from its
template, with the runtimes it detected, and the toolkit's unread drop-in; also the moment
right after the toolkit ran), k3s with the packaged toolkit it detects and the device plugin
on RuntimeClass ``nvidia``, AKS GPU pools from AgentBaker's template on containerd 1.7 and
2.x with NVIDIA's device plugin, and the operator on AKS's preinstalled driver and toolkit.
Controls: a ``config.toml.tmpl`` without the base template or the detected runtimes (GX301
naming the template), the toolkit told the stock /etc/containerd/config.toml on k3s or left at
the operator's default on RKE2 (GX512), AKS without NVIDIA's default runtime (GX301 back), the
operator's RuntimeClass on a node without that handler (GX301), a k3s agent started before
the toolkit package (GX301 on k3s's file), a k3s node whose rendered
config was not collected (unknown naming that file), and a k3s unit without Restart=always
(GX503).
"""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any

import pytest

from gpuxray.checks.engine import run_all
from gpuxray.engines.containerd.host import analyse_host, root_config
from gpuxray.knowledge.distributions import K3S, RKE2
from gpuxray.model.finding import Severity, Status
from gpuxray.scenarios import distros as D
from gpuxray.scenarios import standalone as st
from gpuxray.scenarios.builder import ClusterBuilder
from gpuxray.sources.bundle import load_bundle_dir
from gpuxray.sources.host import collect_host
from real_containerd import binaries, require
from test_containerd_versions import compare
from test_healthy_shapes import _above_info, engine_dump

CORPUS = Path(__file__).resolve().parents[1] / ".." / "shared" / "corpus" / "containerd"
BINS = binaries()


def _materialise(root: Path, files: dict[str, str]) -> None:
    for p, t in files.items():
        f = root / p
        f.parent.mkdir(parents=True, exist_ok=True)
        for prefix in ("/etc/containerd/", "/var/lib/rancher/"):
            t = t.replace(f'"{prefix}', f'"{root}{prefix}')
        f.write_text(t)


def dumper(files: dict[str, str], version: str, root_key: str) -> str:
    """``containerd config dump`` of the node's files by the real binary of ``version`` where
    built, else the merge engine (the oracle test below requires the binaries)."""
    binary = BINS.get(version)
    if binary is None:
        if root_key == "etc/containerd/config.toml":
            return engine_dump(files, version)
        moved = {("etc/containerd/config.toml" if k == root_key else k): v
                 for k, v in files.items()}
        return engine_dump(moved, version)
    from real_containerd import config_dump

    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        _materialise(root, files)
        rc, out, err = config_dump(binary, root / root_key)
        assert rc == 0, f"containerd {version} config dump failed: {err[-500:]}"
        return out.replace(str(root), "")


SHAPES: dict[str, Any] = {
    "k3s-operator": lambda: D.build_operator(D.K3S_1_30, dumper=dumper),
    "k3s-operator-toolkit-just-ran": lambda: D.build_operator(D.K3S_1_30, dumper=dumper,
                                                             restarted=False),
    "rke2-operator": lambda: D.build_operator(D.RKE2_1_30, dumper=dumper),
    "aks-ubuntu2204-device-plugin": lambda: D.build_aks(D.AKS_UBUNTU2204, dumper=dumper),
    "aks-ubuntu2404-device-plugin": lambda: D.build_aks(D.AKS_UBUNTU2404, dumper=dumper),
    "aks-operator-preinstalled": lambda: D.build_aks_operator(dumper=dumper),
    "k3s-packaged-toolkit": lambda: D.build_k3s_packaged(dumper=dumper),
}


def _snap(b: ClusterBuilder, tmp: Path) -> Any:
    return load_bundle_dir(b.write(tmp / "b"))


def test_k3s_template_renders_as_the_corpus_rendering() -> None:
    """render_k3s with the corpus's substitutions gives its rendering of k3s's template,
    byte for byte (../shared/corpus/containerd/k3s-containerd-template-v2/SOURCE.txt)."""
    path = CORPUS / "k3s-containerd-template-v2" / "config.rendered.toml"
    if not path.is_file():
        pytest.skip(f"corpus file {path} is not here")
    got = D.render_k3s(K3S, pause="rancher/mirrored-pause:3.6", systemd_cgroup=False,
                       cni=("/var/lib/rancher/k3s/data/current/bin",
                            "/var/lib/rancher/k3s/agent/etc/cni/net.d"),
                       runtimes=D.operator_runtimes("/usr/bin"))
    assert got == path.read_text()


@pytest.mark.parametrize("name", list(SHAPES))
def test_distribution_shape_is_quiet(name: str, tmp_path: Path, gx: Any) -> None:
    b = SHAPES[name]()
    bundle = b.write(tmp_path / "b")
    snap = load_bundle_dir(bundle)
    assert [(f.code, str(f.subject), f.message[:120]) for f in _above_info(run_all(snap))] == []
    for pod in ("ml/train-0", "ml/train-1"):
        _, doc = gx("why", pod, "--bundle", str(bundle), "-o", "json")
        assert doc["verdict"] is None, (pod, doc["verdict"])


@pytest.mark.parametrize("release", D.RELEASES, ids=lambda r: r.distribution.name)
def test_the_engine_reads_the_distributions_file(release: D.Release, tmp_path: Path) -> None:
    snap = _snap(D.build_operator(release, dumper=dumper), tmp_path)
    d = release.distribution
    for n in ("gpu-0", "gpu-1"):
        host = snap.hosts[n]
        kubelet = snap.node_by_name[n].status.node_info.kubelet_version
        assert root_config(host, kubelet) == d.config
        a = analyse_host(host, snap.node_by_name[n].status.node_info.container_runtime_version,
                         kubelet)
        assert a.root == d.config and [f.path for f in a.files] == [d.config]
        assert a.runtimes == ["nvidia", "nvidia-experimental", "runc"]
        assert a.unimported == ["/etc/containerd/conf.d/99-nvidia.toml"]
        assert a.version.text == "1.7.27-k3s1"
    # the moment the toolkit ran: its imports line makes containerd read the drop-in
    host = _snap(D.build_operator(release, restarted=False), tmp_path / "t").hosts["gpu-0"]
    a = analyse_host(host, release.runtime, release.kubelet)
    assert [f.path for f in a.files] == [d.config, "/etc/containerd/conf.d/99-nvidia.toml"]
    assert a.runtimes == ["nvidia", "nvidia-cdi", "nvidia-legacy", "runc"]
    assert a.unimported == []


# ----- the real containerd on every rendered config -------------------------------------------
def _oracle_cases() -> list[tuple[str, str, dict[str, str], str]]:
    """(id, containerd version, files, root key) for every config the shapes use."""
    cases = []
    for r in D.RELEASES:
        d = r.distribution
        key = d.config.lstrip("/")
        cases.append((f"{d.name}-rendered", r.oracle, {key: D.release_config(r)}, key))
        first = D.release_config(r, runtimes={})
        from gpuxray.scenarios import healthy as hs

        cases.append((f"{d.name}-toolkit-just-ran", r.oracle,
                      {key: D.IMPORTS_LINE + first,
                       D.TOOLKIT_DROPIN: hs.toolkit_dropin(first, cdi=True)}, key))
    k3s_key = K3S.config.lstrip("/")
    cases.append(("k3s-packaged-toolkit", "1.7.27",
                  {k3s_key: D.build_k3s_packaged().files[
                      f"nodes/k3s-gpu-0/files/{k3s_key}"]}, k3s_key))
    aks_key = "etc/containerd/config.toml"
    cases.append(("aks-containerd1", "1.7.27", {aks_key: D.render_agentbaker(False)}, aks_key))
    for v in ("2.1.9", "2.2.9", "2.3.4", "2.3.7"):
        cases.append((f"aks-containerd2-on-{v}", v, {aks_key: D.render_agentbaker(True)},
                      aks_key))
    return cases


@pytest.mark.slow
def test_engine_agrees_with_real_containerd_on_rendered_configs(tmp_path: Path) -> None:
    cases = _oracle_cases()
    bins = require(*sorted({v for _, v, _, _ in cases}))
    disagree = []
    for ident, version, files, key in cases:
        root = tmp_path / ident
        _materialise(root, files)
        why = compare(version, bins[version], root / key)
        if why:
            disagree.append(f"{ident}: {why}")
    assert disagree == []
    assert len(cases) == 10


def test_agentbaker_v2_template_keeps_its_runtimes_on_containerd2(tmp_path: Path) -> None:
    """The containerd 2.x template says ``version = 2`` but writes the version-3 plugin IDs;
    the real 2.x daemons keep its runtimes and NVIDIA's default (and add runc)."""
    bins = require("2.1.9", "2.3.4")
    _materialise(tmp_path, {"etc/containerd/config.toml": D.render_agentbaker(True)})
    import tomllib

    from real_containerd import config_dump

    for v, binary in bins.items():
        rc, out, err = config_dump(binary, tmp_path / "etc/containerd/config.toml")
        assert rc == 0, err
        rt = tomllib.loads(out)["plugins"]["io.containerd.cri.v1.runtime"]["containerd"]
        assert rt["default_runtime_name"] == "nvidia-container-runtime", v
        assert sorted(rt["runtimes"]) == ["nvidia-container-runtime", "runc", "untrusted"], v


# ----- controls -------------------------------------------------------------------------------
TEMPLATE_WITHOUT_RUNTIMES = (  # a user's full template: k3s's layout, no base, no ExtraRuntimes
    'version = 2\n[plugins."io.containerd.internal.v1.opt"]\n'
    '  path = "{{ .NodeConfig.Containerd.Opt }}"\n[plugins."io.containerd.grpc.v1.cri"]\n'
    '  sandbox_image = "{{ .NodeConfig.AgentConfig.PauseImage }}"\n'
    '[plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc]\n'
    '  runtime_type = "io.containerd.runc.v2"\n')
RENDERED_WITHOUT_RUNTIMES = TEMPLATE_WITHOUT_RUNTIMES.replace(
    "{{ .NodeConfig.Containerd.Opt }}", "/var/lib/rancher/k3s/agent/containerd").replace(
    "{{ .NodeConfig.AgentConfig.PauseImage }}", "rancher/mirrored-pause:3.6")


def test_template_that_drops_the_runtimes_is_gx301_naming_it(tmp_path: Path) -> None:
    b = D.build_operator(D.K3S_1_30, dumper=dumper, template=TEMPLATE_WITHOUT_RUNTIMES,
                         rendered=RENDERED_WITHOUT_RUNTIMES)
    fs = [f for f in run_all(_snap(b, tmp_path)) if f.status == Status.FAIL]
    gx301 = sorted((f for f in fs if f.code == "GX301"), key=lambda f: f.subject.name)
    assert [(f.subject.name, f.severity, f.params["config"], f.params["runtimes"])
            for f in gx301] == [(n, Severity.ERROR, K3S.config, ["runc"])
                                for n in ("gpu-0", "gpu-1")]
    tmpl = "nodes/gpu-0/files/var/lib/rancher/k3s/agent/etc/containerd/config.toml.tmpl"
    ev = {e.source: e.detail for e in gx301[0].evidence}
    assert tmpl in ev and "neither the base template nor the detected runtimes" in ev[tmpl]
    rendered = "nodes/gpu-0/files/var/lib/rancher/k3s/agent/etc/containerd/config.toml"
    assert any(s == rendered and "config-v3.toml.d" in d for s, d in
               ((e.source, e.detail) for e in gx301[0].evidence))
    assert "nodes/gpu-0/files/etc/containerd/conf.d/99-nvidia.toml" in ev  # never read
    # a template that keeps the base renders the runtimes again: quiet
    ok = D.build_operator(D.K3S_1_30, dumper=dumper,
                          template='{{ template "base" . }}\n',
                          rendered=D.release_config(D.K3S_1_30))
    assert [f.code for f in _above_info(run_all(_snap(ok, tmp_path / "ok")))] == []


@pytest.mark.parametrize(("release", "config"), [
    (D.K3S_1_30, "/etc/containerd/config.toml"),  # the stock path, given explicitly
    (D.RKE2_1_30, ""),                            # nothing given: the operator's default
], ids=["k3s-stock-path", "rke2-operator-default"])
def test_toolkit_told_the_stock_config_is_gx512(release: D.Release, config: str,
                                               tmp_path: Path) -> None:
    b = D.build_operator(release, dumper=dumper, toolkit_config="/etc/containerd/config.toml")
    if not config:
        b.find("clusterpolicies", "cluster-policy")["spec"]["toolkit"]["env"] = []
    fs = [f for f in run_all(_snap(b, tmp_path)) if f.status == Status.FAIL]
    d = release.distribution
    gx512 = sorted((f for f in fs if f.code == "GX512"), key=lambda f: f.subject.name)
    assert [(f.subject.name, f.severity, f.params["toolkit_config"], f.params["config"],
             f.params["expected_socket"]) for f in gx512] == [
        (n, Severity.ERROR, "/etc/containerd/config.toml", d.config,
         "/run/k3s/containerd/containerd.sock") for n in ("gpu-0", "gpu-1")]
    socket_ev = [e for e in gx512[0].evidence if "CONTAINERD_SOCKET" in e.detail]
    assert len(socket_ev) == 1 and "/run/containerd/containerd.sock" in socket_ev[0].detail
    # k3s's containerd has no nvidia handler: GX301 on the distribution's file
    assert sorted((f.subject.name, f.params["config"]) for f in fs if f.code == "GX301") == [
        ("gpu-0", d.config), ("gpu-1", d.config)]


def test_wrong_toolkit_path_is_a_warning_once_k3s_found_the_runtime(tmp_path: Path) -> None:
    b = D.build_operator(D.K3S_1_30, toolkit_config="/etc/containerd/config.toml")
    key = K3S.config.lstrip("/")
    for n in ("gpu-0", "gpu-1"):  # k3s restarted since and added the runtimes it found
        b.host_file(n, key, D.release_config(D.K3S_1_30))
    fs = [f for f in run_all(_snap(b, tmp_path)) if f.status == Status.FAIL]
    assert sorted((f.code, f.subject.name, f.severity, f.params.get("handler_present"))
                  for f in fs if f.code in ("GX512", "GX301")) == [
        ("GX512", "gpu-0", Severity.WARNING, True), ("GX512", "gpu-1", Severity.WARNING, True)]


def test_aks_without_nvidia_default_runtime_is_gx301_again(tmp_path: Path) -> None:
    """The same pool with runc as the default runtime (AgentBaker's non-GPU template): nothing
    injects the driver into the plugin, and no ``nvidia`` handler exists."""
    b = D.build_aks(D.AKS_UBUNTU2204)
    text = D.render_agentbaker(False).replace(
        'default_runtime_name = "nvidia-container-runtime"', 'default_runtime_name = "runc"')
    text = text.replace("runtimes.nvidia-container-runtime", "runtimes.runc").replace(
        'BinaryName = "/usr/bin/nvidia-container-runtime"', 'BinaryName = "/usr/bin/runc"')
    for n in D.AKS_POOL.gpu_nodes:
        b.host_file(n, "etc/containerd/config.toml", text)
    fs = [f for f in run_all(_snap(b, tmp_path)) if f.code == "GX301"]
    assert sorted((f.subject.name, f.status, f.severity, f.params["runtimes"]) for f in fs) == [
        (n, Status.FAIL, Severity.WARNING, ["runc", "untrusted"]) for n in D.AKS_POOL.gpu_nodes]


def test_operator_runtimeclass_without_its_handler_is_gx301(tmp_path: Path) -> None:
    """AKS operator shape whose node config lost ``nvidia-container-runtime`` (the handler the
    ClusterPolicy's runtimeClass names): an error for that handler."""
    b = D.build_aks_operator()
    text = D.render_agentbaker(False).replace("nvidia-container-runtime]", "nvidia]").replace(
        "nvidia-container-runtime.options]", "nvidia.options]").replace(
        'default_runtime_name = "nvidia-container-runtime"', 'default_runtime_name = "nvidia"')
    for n in ("gpu-0", "gpu-1"):
        b.host_file(n, "etc/containerd/config.toml", text)
    fs = [f for f in run_all(_snap(b, tmp_path)) if f.code == "GX301"]
    assert sorted((f.subject.name, f.severity, f.params["handler"]) for f in fs) == [
        (n, Severity.ERROR, "nvidia-container-runtime") for n in ("gpu-0", "gpu-1")]


def test_k3s_node_without_its_config_is_unknown_naming_it(tmp_path: Path) -> None:
    b = D.build_operator(D.K3S_1_30)
    for k in [k for k in b.files if "/files/var/lib/rancher/" in k]:
        del b.files[k]
    fs = [f for f in run_all(_snap(b, tmp_path)) if f.code == "GX501"]
    assert sorted((f.subject.name, f.status, f.params["missing"]) for f in fs) == [
        (n, Status.UNKNOWN, f"nodes/{n}/files{K3S.config}") for n in ("gpu-0", "gpu-1")]


def test_k3s_unit_without_restart_always_is_gx503(tmp_path: Path) -> None:
    b = D.build_operator(D.K3S_1_30)
    path, text = D.agent_unit(K3S)
    b.host_file("gpu-1", path, text.replace("Restart=always", "Restart=on-failure"))
    fs = [f for f in run_all(_snap(b, tmp_path)) if f.code == "GX503"]
    assert [(f.subject.name, f.status, f.params["restart"], f.params["unit"]) for f in fs] == [
        ("gpu-1", Status.FAIL, "on-failure", "k3s-agent.service")]


def test_host_collection_reads_the_distributions_files(tmp_path: Path) -> None:
    """``gpuxray node --root``: the rendered config, the user template, the version-3 drop-ins
    and the service unit are collected; the engine analyses the rendered file."""
    root = tmp_path / "host"
    d = RKE2
    files = {d.config.lstrip("/"): D.release_config(D.RKE2_1_30),
             f"{d.config_dir.lstrip('/')}/config.toml.tmpl": '{{ template "base" . }}\n',
             f"{d.config_dir.lstrip('/')}/config-v3.toml.d/10-x.toml": "version = 3\n",
             D.agent_unit(d)[0]: D.agent_unit(d)[1],
             "etc/os-release": "ID=ubuntu\n"}
    for p, t in files.items():
        (root / p).parent.mkdir(parents=True, exist_ok=True)
        (root / p).write_text(t)
    col = collect_host(root, "gpu-9")
    assert sorted(col.facts.files) == sorted(files)
    assert root_config(col.facts) == d.config
    assert analyse_host(col.facts, "containerd://1.7.27-k3s1").runtimes == [
        "nvidia", "nvidia-experimental", "runc"]


def test_standalone_flavours_keep_their_pool() -> None:
    """The pool parameters the AKS flavours use leave the EKS flavours as they were."""
    assert st.EKS_AL2023_C1.pool == st.EKS_POOL
    assert st.EKS_POOL.gpu_nodes == st.GPU_NODES and st.EKS_POOL.fb_total == 23028.0


def test_node_agent_mounts_the_distributions_config_dir() -> None:
    """The live node agent on k3s/RKE2 nodes also mounts the rendered config's directory (only
    for the distributions the selected nodes' kubelets name)."""
    from gpuxray.knowledge import agent_manifests as am

    extra = am.distribution_mounts(["v1.30.14+k3s1", "v1.30.14+k3s1", "v1.30.14+rke2r1",
                                    "v1.31.4"])
    assert [(m.name, m.path, m.kind) for m in extra] == [
        ("k3s-containerd", K3S.config_dir, "Directory"),
        ("rke2-containerd", RKE2.config_dir, "Directory")]
    assert am.distribution_mounts(["v1.31.4", "v1.30.5-eks-1234"]) == ()
    ds = am.daemonset("ns", "r1", image="i", node_selector={}, all_taints=False, hold_s=60,
                      extra_mounts=extra[:1])
    spec = ds["spec"]["template"]["spec"]
    assert {"name": "k3s-containerd", "hostPath": {"path": K3S.config_dir,
                                                   "type": "Directory"}} in spec["volumes"]
    assert {"name": "k3s-containerd", "mountPath": f"/host{K3S.config_dir}",
            "readOnly": True} in spec["containers"][0]["volumeMounts"]


def test_containerd_command_reads_a_k3s_host_tree(tmp_path: Path, gx: Any) -> None:
    """``gpuxray containerd --root DIR`` on a k3s host takes k3s's rendered config as the root
    when no --config is given."""
    root = tmp_path / "host"
    (root / K3S.config_dir.lstrip("/")).mkdir(parents=True)
    (root / K3S.config.lstrip("/")).write_text(D.release_config(D.K3S_1_30))
    _, doc = gx("containerd", "--root", str(root), "--containerd-version", "1.7.27", "-o",
                "json")
    assert doc["files"] == [K3S.config] and doc["root_missing"] is False
    assert doc["runtimes"] == ["nvidia", "nvidia-experimental", "runc"]


def test_k3s_started_before_the_toolkit_package_is_gx301(tmp_path: Path) -> None:
    """k3s detects the runtime only at its start: a node where the package came later has no
    ``nvidia`` handler until k3s restarts, and the finding says so on k3s's own file."""
    b = D.build_k3s_packaged()
    key = K3S.config.lstrip("/")
    node = D.K3S_POOL.gpu_nodes[1]
    b.host_file(node, key, D.render_k3s(
        K3S, pause="rancher/mirrored-pause:3.6", systemd_cgroup=True,
        cni=(f"{K3S.data_dir}/data/current/bin", f"{K3S.data_dir}/agent/etc/cni/net.d"),
        runtimes={}))
    fs = [f for f in run_all(_snap(b, tmp_path)) if f.code == "GX301" and
          f.status == Status.FAIL]
    assert [(f.subject.name, f.severity, f.params["config"], f.params["runtimes"])
            for f in fs] == [(node, Severity.ERROR, K3S.config, ["runc"])]
    assert any("k3s adds nvidia itself" in e.detail and "/usr/bin" in e.detail
               for e in fs[0].evidence)


DOCKER_CONTAINERD = 'disabled_plugins = ["cri"]\n'  # containerd.io's shipped config.toml


def test_dockers_containerd_config_on_a_k3s_node_is_not_gx513(tmp_path: Path) -> None:
    """Docker beside k3s: /etc/containerd/config.toml disables cri for Docker's own containerd,
    which the kubelet does not use; k3s's containerd reads its rendered file. On a stock node
    the same file is GX513."""
    b = D.build_operator(D.K3S_1_30, dumper=dumper)
    for n in ("gpu-0", "gpu-1"):
        b.host_file(n, "etc/containerd/config.toml", DOCKER_CONTAINERD)
    assert [f.code for f in _above_info(run_all(_snap(b, tmp_path)))] == []
    stock = D.build_aks(D.AKS_UBUNTU2204)
    for n in D.AKS_POOL.gpu_nodes:
        stock.host_file(n, "etc/containerd/config.toml", DOCKER_CONTAINERD)
    fs = [f for f in run_all(_snap(stock, tmp_path / "s")) if f.code == "GX513"]
    assert sorted((f.subject.name, f.status) for f in fs) == [
        (n, Status.FAIL) for n in D.AKS_POOL.gpu_nodes]


def test_containerd_command_names_a_k3s_dropin_never_imported(tmp_path: Path, gx: Any) -> None:
    """A drop-in under k3s's own ``config-v3.toml.d`` that the rendered 1.x config does not
    import is named as never read, by ``containerd --root`` and by the fleet what-if alike."""
    root = tmp_path / "host"
    (root / K3S.config_dir.lstrip("/") / "config-v3.toml.d").mkdir(parents=True)
    (root / K3S.config.lstrip("/")).write_text(D.release_config(D.K3S_1_30))
    dropin = f"{K3S.config_dir}/config-v3.toml.d/99-nvidia.toml"
    (root / dropin.lstrip("/")).write_text("version = 3\n")
    _, doc = gx("containerd", "--root", str(root), "--containerd-version", "1.7.27", "-o",
                "json")
    assert doc["unimported"] == [dropin]
    # an explicit --config of another file does not borrow the distribution's glob
    (root / "etc/containerd").mkdir(parents=True)
    (root / "etc/containerd/config.toml").write_text("version = 2\n")
    _, doc2 = gx("containerd", "--root", str(root), "--config", "/etc/containerd/config.toml",
                 "--containerd-version", "1.7.27", "-o", "json")
    assert doc2["unimported"] == []
    host = collect_host(root, "gpu-9").facts
    from gpuxray.engines.containerd.whatif import change_host

    ch = change_host(host, "containerd://1.7.27-k3s1", add=None, remove=())
    assert ch.before is not None and ch.before.unimported == [dropin]
