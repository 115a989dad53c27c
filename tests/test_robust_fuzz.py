"""Property tests: every parser of hostile input either returns data or raises its documented
error — one line naming the input — and never hangs (hypothesis ``deadline``). Example counts
are bounded for CI; ``GPUXRAY_FUZZ_EXAMPLES=5000`` runs the long mode (docs/testing.md)."""

from __future__ import annotations

import json
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from gpuxray.checks.engine import run_all
from gpuxray.diagnose.readings import readings
from gpuxray.diagnose.triage import triage
from gpuxray.engines import mig, plugin_config
from gpuxray.engines.containerd import FactsReader, analyse, resolve_version
from gpuxray.errors import InputError
from gpuxray.knowledge.mig import lookup
from gpuxray.model import k8s
from gpuxray.model.quantity import QuantityError, parse_quantity, safe_quantity
from gpuxray.serve import faults, selectors
from gpuxray.sources import mustgather, nodefacts_wire, pasted
from gpuxray.sources.bundle import load_bundle_dir
from gpuxray.sources.decode import decode_objects
from gpuxray.sources.parsers import (
    apt,
    bugreport,
    cleanup,
    describe,
    dmesg,
    helm,
    hostcmds,
    journal,
    lsmod,
    lspci,
    mokutil,
    nvidia_smi,
    paste,
    pods_table,
    prefixed_logs,
    prom,
    stat,
    systemctl,
    tables,
    versions,
    wide,
)
from gpuxray.sources.redact import redact_text
from robust_fixtures import (
    FUZZ,
    assert_one_line,
    mutated,
    random_text,
    sample,
    text_like,
)

# ----- plain-text host parsers: total functions, no exception at all ------------------------
TOTAL_PARSERS: list[tuple[str, Callable[[str], Any], tuple[str, ...]]] = [
    ("journal", lambda t: journal.unit_events(journal.parse_journal(t)),
     ("node/journal-containerd.txt", "node/journal-containerd-reboot.txt",
      "node/journal-kernel.txt")),
    ("dmesg", dmesg.parse_kernel_log, ("node/dmesg-T.txt", "node/dmesg-raw.txt")),
    ("systemctl", systemctl.parse_systemctl_show, ("node/systemctl-show-containerd.txt",)),
    ("systemctl-usec", systemctl.parse_usec, ()),
    ("systemctl-ts", systemctl.parse_timestamp, ()),
    ("unit-file", systemctl.unit_directives, ("node/containerd.service",)),
    ("lsmod", lsmod.parse_lsmod, ("node/lsmod.txt", "node/lsmod-nouveau.txt")),
    ("mokutil", mokutil.parse_sb_state, ()),
    ("lspci", lspci.parse_lspci, ("node/lspci-hgx.txt", "node/lspci-pcie.txt")),
    ("stat", stat.parse_stat, ("node/stat-containerd-config.txt",)),
    ("os-release", versions.parse_os_release, ("node/os-release",)),
    ("driver-version", versions.parse_driver_version, ("node/proc-driver-nvidia-version",)),
    ("versions", lambda t: (versions.version_tuple(t), versions.parse_containerd_version(t),
                            versions.parse_fabricmanager_version(t), versions.parse_uname(t)),
     ()),
    ("apt", lambda t: apt.parse_apt_conf([("20auto-upgrades", t), ("50unattended", t)]),
     ("node/20auto-upgrades", "node/50unattended-upgrades")),
    ("describe-nodes", describe.parse_describe_nodes, ("mustgather/describe_node_cordoned.txt",)),
    ("describe-pods", describe.parse_describe_pods,
     ("mustgather/describe_pod_pending.txt", "mustgather/describe_pod_driver_crashloop.txt")),
    ("describe-daemonsets", describe.parse_describe_daemonsets,
     ("mustgather/describe_pod_pending.txt",)),
    ("describe-events", lambda t: describe.parse_describe_events(t, "Pod"),
     ("mustgather/describe_pod_pending.txt",)),
    ("describe-misc", lambda t: [describe.rfc1123_to_iso(t), describe.parse_taint(t),
                                 describe.parse_toleration(t)], ()),
    ("wide", lambda t: [(wide.ready_counts(r.get("READY", "")),
                         wide.restart_count(r.get("RESTARTS", ""))) for r in wide.parse_wide(t)],
     ("mustgather/gpu_nodes_wide.status", "mustgather/gpu_operand_pods_wide.status")),
    ("prefixed-logs", prefixed_logs.split_prefixed_logs, ()),
    ("bug-report", bugreport.parse_bug_report, ("mustgather/nvidia-bug-report-sample.log",)),
    ("bug-report-modules", bugreport.modules_to_lsmod, ()),
    ("bug-report-status", bugreport.status_to_show, ()),
    ("mg-labels", mustgather.parse_labels_file, ()),
    ("mig-parted", mig.parse_mig_parted, ()),
    ("plugin-config", plugin_config.validate, ()),
    ("triage", lambda t: triage([("pasted.txt", t)]),
     ("triage/describe-pod-insufficient.txt", "triage/driver-log-secureboot.txt",
      "triage/journal-containerd-restart.txt", "triage/toolkit-config-dump.txt")),
    ("paste-parts", paste.split_paste,
     ("mustgather/describe_node_cordoned.txt", "triage/driver-log-secureboot.txt")),
    ("paste-evidence", lambda t: pasted.paste_evidence([pasted.TextInput("pasted.txt", t)]),
     ("mustgather/describe_node_cordoned.txt", "triage/describe-pod-insufficient.txt",
      "triage/journal-containerd-restart.txt", "triage/get-pods-operands-init.txt")),
    ("paste-readings", lambda t: readings([("pasted.txt", p) for p in paste.split_paste(t)]),
     ("triage/device-plugin-config-error.txt", "triage/toolkit-config-dump.txt",
      "triage/events-untolerated-taint.txt")),
    ("nvidia-smi-text", nvidia_smi.parse_nvidia_smi_text, ()),
    ("dmesg-join", lambda t: dmesg.join_continuations(t.splitlines()),
     ("node/dmesg-T.txt", "node/dmesg-raw.txt")),
    ("paste-toml-extent", lambda t: paste.toml_extent(t.splitlines()),
     ("node/stat-containerd-config.txt",)),
    ("paste-log-target", lambda t: (paste.log_target(t), paste.namespace_of(t),
                                    paste.defaulted_container(t)), ()),
    ("helm-values", lambda t: (helm.values_from_commands(t), helm.values_from_yaml(t),
                               helm.parse_set_flags(t)), ()),
    ("paste-journal-units", paste.journal_by_unit,
     ("node/journal-containerd.txt", "triage/journal-containerd-restart.txt")),
    ("pods-table", lambda t: [pods_table.row_pod(r, "ns", "n")
                              for r in pods_table.parse_pods_table(t)],
     ("triage/get-pods-operands-init.txt", "mustgather/gpu_operand_pods_wide.status")),
    ("paste-reindent", pasted.reindent_describe, ("mustgather/describe_node_cordoned.txt",)),
    ("paste-cleanup", lambda t: cleanup.clean_lines(t.splitlines()),
     ("triage/get-pods-operands-init.txt", "node/lsmod.txt")),
    ("log-prefixes", lambda t: (cleanup.strip_log_timestamps(t.splitlines()),
                                cleanup.stern_to_prefixed(t.splitlines())), ()),
    ("host-commands", lambda t: (hostcmds.driver_version_file(t), hostcmds.ctk_version(t),
                                 hostcmds.uname_release(t),
                                 hostcmds.parse_container_cli_info(t), hostcmds.lsmod_grep(t),
                                 lspci.bound_drivers(t), tables.parse_policy_rows(t)),
     ("node/proc-driver-nvidia-version", "node/lsmod.txt", "node/lspci-pcie.txt")),
    ("get-tables", lambda t: ([tables.node_object(r) for r in tables.parse_node_rows(t)],
                              [tables.ds_object(r, "ns") for r in tables.parse_ds_rows(t)],
                              [tables.deploy_object(r, "ns") for r in tables.parse_deploy_rows(t)],
                              [tables.event_object(r, "ns", 0)
                               for r in tables.parse_event_rows(t)]),
     ("mustgather/gpu_nodes_wide.status", "mustgather/gpu_operand_pods_wide.status",
      "triage/events-untolerated-taint.txt")),
    ("quantity-safe", safe_quantity, ()),
    ("redact-text", redact_text, ("node/journal-containerd.txt", "triage/toolkit-config-dump.txt")),
]


@pytest.mark.parametrize(("name", "fn", "samples"), TOTAL_PARSERS,
                         ids=[p[0] for p in TOTAL_PARSERS])
def test_text_parsers_never_raise(name: str, fn: Callable[[str], Any],
                                  samples: tuple[str, ...]) -> None:
    @FUZZ
    @given(text_like(*samples))
    def prop(text: str) -> None:
        fn(text)

    prop()


# ----- parsers with a documented error ------------------------------------------------------
@FUZZ
@given(text_like("node/nvidia-smi-q.xml"))
def test_nvidia_smi_raises_only_its_parse_error(text: str) -> None:
    try:
        nvidia_smi.parse_nvidia_smi_xml(text)
    except nvidia_smi.NvidiaSmiParseError as exc:
        assert_one_line(exc)


BILLION_LAUGHS = """<?xml version="1.0"?>
<!DOCTYPE nvidia_smi_log [
 <!ENTITY lol "lol">
 <!ENTITY lol1 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">
 <!ENTITY lol2 "&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;">
 <!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">
 <!ENTITY lol9 "&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;">
]>
<nvidia_smi_log><driver_version>&lol9;</driver_version></nvidia_smi_log>
"""
EXTERNAL_ENTITY = """<?xml version="1.0"?>
<!DOCTYPE nvidia_smi_log [ <!ENTITY xxe SYSTEM "file://{path}"> ]>
<nvidia_smi_log><driver_version>&xxe;</driver_version></nvidia_smi_log>
"""
EXTERNAL_DTD = """<?xml version="1.0"?>
<!DOCTYPE nvidia_smi_log SYSTEM "file://{path}">
<nvidia_smi_log><driver_version>&secret;</driver_version></nvidia_smi_log>
"""


def test_nvidia_smi_refuses_entity_expansion() -> None:
    with pytest.raises(nvidia_smi.NvidiaSmiParseError) as info:
        nvidia_smi.parse_nvidia_smi_xml(BILLION_LAUGHS)
    assert_one_line(info.value)
    assert "lollol" not in str(info.value)


@pytest.mark.parametrize("doc", [EXTERNAL_ENTITY, EXTERNAL_DTD], ids=["entity", "dtd"])
def test_nvidia_smi_never_reads_external_entities(doc: str, tmp_path: Path) -> None:
    secret = tmp_path / "secret.txt"
    secret.write_text("TOPSECRET-575.57.08")
    dtd = tmp_path / "evil.dtd"
    dtd.write_text(f'<!ENTITY secret "{secret.read_text()}">')
    target = secret if "xxe" in doc else dtd
    try:
        report = nvidia_smi.parse_nvidia_smi_xml(doc.format(path=target))
    except nvidia_smi.NvidiaSmiParseError as exc:
        assert_one_line(exc)
        assert "TOPSECRET" not in str(exc)
    else:  # parsed without the entity: nothing of the file may come through
        assert "TOPSECRET" not in report.driver_version


@FUZZ
@given(st.one_of(random_text, mutated(
    "# HELP DCGM_FI_DEV_GPU_UTIL GPU utilization.\n# TYPE DCGM_FI_DEV_GPU_UTIL gauge\n"
    'DCGM_FI_DEV_GPU_UTIL{gpu="0",UUID="GPU-1",Hostname="n1"} 37\n'
    'DCGM_FI_DEV_FB_USED{gpu="0",UUID="GPU-1"} 1024 1700000000000\n')))
def test_prometheus_text_raises_only_input_error(text: str) -> None:
    try:
        prom.parse_exposition(text, "metrics/n1.prom")
    except InputError as exc:
        assert_one_line(exc, "metrics/n1.prom")


@FUZZ
@given(st.one_of(random_text, st.from_regex(r"\A[+-]?[0-9.]{0,8}([eE][+-]?[0-9]{1,4})?"
                                            r"(Ki|Mi|Gi|Ti|Pi|Ei|n|u|m|k|M|G|T|P|E)?\Z")))
def test_quantity_raises_only_quantity_error(text: str) -> None:
    try:
        parse_quantity(text)
    except QuantityError as exc:
        assert_one_line(exc)


@FUZZ
@given(st.one_of(random_text, st.from_regex(
    r"\A(\s*[1-7]g\.[0-9]{1,3}gb(\+me)?\s*[=:x]\s*[0-9]{1,6}\s*,?){0,4}\Z")))
def test_mig_layout_raises_only_spec_error(text: str) -> None:
    try:
        mig.parse_layout(text)
    except mig.MigSpecError as exc:
        assert_one_line(exc)


@FUZZ
@given(st.one_of(random_text, mutated(
    "version: v1\nmig-configs:\n  all-1g.10gb:\n    - devices: all\n      mig-enabled: true\n"
    "      mig-devices:\n        1g.10gb: 7\n  custom:\n    - devices: [0, 1]\n"
    "      mig-enabled: true\n      mig-devices: {\"3g.40gb\": 2}\n")))
def test_mig_parted_and_layouts_never_raise(text: str) -> None:
    cfg = mig.parse_mig_parted(text)
    for model_name in ("A100-80GB", "H100-80GB"):
        model = lookup(model_name)
        assert model is not None
        for name in list(cfg.configs)[:3]:
            mig.layout_for(cfg, name, model, 8)


# ----- Kubernetes JSON / YAML decode ---------------------------------------------------------
_POD = {"apiVersion": "v1", "kind": "List", "items": [{
    "kind": "Pod", "metadata": {"name": "p", "namespace": "ml", "labels": {"a": "b"}},
    "spec": {"nodeName": "n1", "containers": [{"name": "c", "resources": {
        "limits": {"nvidia.com/gpu": "1"}}}]},
    "status": {"phase": "Pending"}}]}
_JSON_VALUE = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(-2**70, 2**70), st.floats(allow_nan=False),
              st.text(max_size=20)),
    lambda inner: st.one_of(st.lists(inner, max_size=4),
                            st.dictionaries(st.sampled_from(
                                ["items", "kind", "metadata", "spec", "status", "name",
                                 "labels", "containers", "resources", "limits", "x"]),
                                inner, max_size=5)),
    max_leaves=20)
K8S_TYPES = [k8s.Node, k8s.Pod, k8s.Event, k8s.DaemonSet, k8s.Workload, k8s.RuntimeClass,
             k8s.ResourceQuota, k8s.ConfigMap, k8s.CustomResource]


@st.composite
def k8s_bytes(draw: st.DrawFn) -> tuple[bytes, str]:
    choice = draw(st.sampled_from(("json-mutant", "json-random", "yaml", "bytes")))
    if choice == "json-mutant":
        return draw(mutated(json.dumps(_POD, indent=1))).encode(), "pods.json"
    if choice == "json-random":
        return json.dumps(draw(_JSON_VALUE)).encode(), "pods.json"
    if choice == "yaml":
        import yaml

        base = yaml.safe_dump(_POD)
        return draw(st.one_of(mutated(base), random_text)).encode(), "pods.yaml"
    return draw(st.binary(max_size=300)), draw(st.sampled_from(("pods.json", "pods.yaml")))


@FUZZ
@given(k8s_bytes(), st.sampled_from(K8S_TYPES))
def test_k8s_decode_raises_only_input_error(data: tuple[bytes, str], typ: type) -> None:
    raw, name = data
    try:
        decode_objects(raw, typ, f"cluster/{name}")
    except InputError as exc:
        assert_one_line(exc, name)


YAML_BOMB = b"""a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]
b: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]
c: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]
d: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]
e: &e [*d,*d,*d,*d,*d,*d,*d,*d,*d]
f: &f [*e,*e,*e,*e,*e,*e,*e,*e,*e]
g: &g [*f,*f,*f,*f,*f,*f,*f,*f,*f]
h: &h [*g,*g,*g,*g,*g,*g,*g,*g,*g]
i: &i [*h,*h,*h,*h,*h,*h,*h,*h,*h]
"""


def test_yaml_alias_bomb_is_bounded() -> None:
    """Aliases share objects in the safe loader; converting must not expand them into 9^9."""
    import time

    t0 = time.monotonic()
    try:
        decode_objects(YAML_BOMB, k8s.Pod, "cluster/pods.yaml")
    except InputError as exc:
        assert_one_line(exc, "pods.yaml")
    assert time.monotonic() - t0 < 5


# ----- containerd config engine --------------------------------------------------------------
_CONTAINERD = """version = 2
imports = ["/etc/containerd/conf.d/*.toml"]
[plugins."io.containerd.grpc.v1.cri".containerd]
  default_runtime_name = "nvidia"
[plugins."io.containerd.grpc.v1.cri".containerd.runtimes.nvidia]
  runtime_type = "io.containerd.runc.v2"
[plugins."io.containerd.grpc.v1.cri".containerd.runtimes.nvidia.options]
  BinaryName = "/usr/bin/nvidia-container-runtime"
"""
_DROPIN = """version = 3
[plugins."io.containerd.cri.v1.runtime".containerd.runtimes.runc]
  runtime_type = "io.containerd.runc.v2"
[plugins.'io.containerd.cri.v1.images'.registry.configs."r.example".auth]
  password = "hunter2"
"""


@FUZZ
@given(st.one_of(random_text, mutated(_CONTAINERD)), st.one_of(random_text, mutated(_DROPIN)),
       st.sampled_from(["1.6.20", "1.7.27", "2.0.5", "2.1.1", None]))
def test_containerd_engine_never_raises(root: str, dropin: str, version: str | None) -> None:
    files = {"etc/containerd/config.toml": root,
             "etc/containerd/conf.d/99-nvidia.toml": dropin}
    a = analyse(FactsReader(files), resolve_version((version, "test")))
    assert isinstance(a.runtimes, list)


# ----- pasted text for triage ----------------------------------------------------------------
@FUZZ
@given(st.binary(max_size=600))
def test_pasted_file_raises_only_input_error(data: bytes) -> None:
    with tempfile.TemporaryDirectory() as d:
        p = Path(d) / "paste.txt"
        p.write_bytes(data)
        try:
            got = pasted.read_pasted(str(p))
        except InputError as exc:
            assert_one_line(exc, "paste.txt")
            return
        triage([(ti.name, ti.text) for ti in got.inputs], got.skipped)


# ----- bundles and must-gathers of random trees ----------------------------------------------
_BUNDLE_PATHS = st.sampled_from([
    "manifest.json", "cluster/nodes.json", "cluster/pods.json", "cluster/events.json",
    "cluster/daemonsets.json", "cluster/version.json", "cluster/runtimeclasses.yaml",
    "cluster/configmaps.json", "cluster/clusterpolicies.json", "cluster/resourcequotas.json",
    "nodes/n1/files/etc/containerd/config.toml", "nodes/n1/files/etc/containerd/conf.d/x.toml",
    "nodes/n1/cmd/journal-containerd.txt", "nodes/n1/cmd/dmesg.txt", "nodes/n1/cmd/lsmod.txt",
    "nodes/n1/cmd/nvidia-smi-q.xml", "nodes/n1/cmd/systemctl-show-containerd.txt",
    "nodes/n1/cmd/containerd-version.txt", "nodes/n1/cmd/lspci.txt.err",
    "logs/gpu-operator/nvidia-driver-daemonset-abc/nvidia-driver-ctr.log",
    "logs/gpu-operator/nvidia-driver-daemonset-abc/nvidia-driver-ctr.previous.log",
    "metrics/n1.prom",
])
_CONTENT = st.one_of(
    st.binary(max_size=200),
    random_text.map(str.encode),
    _JSON_VALUE.map(lambda v: json.dumps(v).encode()),
    mutated(json.dumps(_POD)).map(str.encode),
    mutated(_CONTAINERD).map(str.encode),
)


def _write_tree(root: Path, files: dict[str, bytes]) -> None:
    for rel, data in files.items():
        p = root / rel
        if p.exists() and p.is_dir():
            continue
        try:
            p.parent.mkdir(parents=True, exist_ok=True)
            p.write_bytes(data)
        except (NotADirectoryError, FileExistsError, IsADirectoryError):
            continue


@FUZZ
@given(st.dictionaries(_BUNDLE_PATHS, _CONTENT, min_size=1, max_size=8), st.booleans())
def test_random_bundle_tree_loads_or_refuses(files: dict[str, bytes], lenient: bool) -> None:
    with tempfile.TemporaryDirectory() as d:
        root = Path(d)
        _write_tree(root, files)
        try:
            snap = load_bundle_dir(root, lenient=lenient)
        except InputError as exc:
            assert_one_line(exc)
            return
        findings = list(run_all(snap))
        assert all(f.code for f in findings)


_MG_PATHS = st.sampled_from([
    "cluster_policy.yaml", "gpu_nodes.labels", "gpu_nodes.descr", "gpu_nodes.status",
    "gpu_operator_pod.yaml", "gpu_operand_pods.yaml", "gpu_operand_ds.yaml",
    "gpu_operand_pod_nvidia-driver-daemonset-x.log", "gpu_operand_pod_nvidia-driver-x.descr",
    "gpu_operand_ds_nvidia-driver-daemonset.descr", "nvidia-bug-report_n1.log",
    "nvidia-bug-report_n1.log.gz", "must-gather.log", "runtimeclasses.yaml", "version.txt",
])
_MG_CONTENT = st.one_of(
    _CONTENT,
    mutated(sample("mustgather/describe_pod_pending.txt")).map(str.encode),
    mutated(sample("mustgather/gpu_nodes_wide.status")).map(str.encode),
    mutated(sample("mustgather/nvidia-bug-report-sample.log")).map(str.encode),
)


@FUZZ
@given(st.dictionaries(_MG_PATHS, _MG_CONTENT, min_size=1, max_size=6), st.booleans())
def test_random_mustgather_tree_loads_or_refuses(files: dict[str, bytes], lenient: bool) -> None:
    with tempfile.TemporaryDirectory() as d:
        root = Path(d) / "gpu-operator-must-gather"
        root.mkdir()
        _write_tree(root, {"cluster_policy.missing": b"", **files})
        try:
            snap = load_bundle_dir(Path(d), lenient=lenient)
        except InputError as exc:
            assert_one_line(exc)
            return
        list(run_all(snap))
        list(mustgather.iter_text_inputs(root))


# ----- node-agent wire lines and the served API's selectors ---------------------------------
_WIRE = ('{"format":"gpuxray-nodefacts/1","node":"gpu-1","files":{"etc/os-release":"ID=ubuntu"},'
         '"cmds":{"lsmod.txt":"nvidia 1 0"},"cmd_errors":{},"unreadable":{},"notes":[]}')


@FUZZ
@given(st.one_of(st.binary(max_size=300), mutated(_WIRE).map(str.encode),
                 random_text.map(lambda t: (nodefacts_wire._PREFIX.decode(errors="replace")
                                            + t).encode())))
def test_agent_wire_raises_only_wire_error(log: bytes) -> None:
    try:
        nodefacts_wire.decode(log)
    except nodefacts_wire.WireError as exc:
        assert_one_line(exc)


@FUZZ
@given(st.one_of(random_text, st.from_regex(
    r"\A([a-z./-]{0,12}(=|==|!=| in | notin |)[(]?[a-z0-9,.-]{0,12}[)]?,?){0,3}\Z")))
def test_selectors_raise_only_selector_error(text: str) -> None:
    for parse in (selectors.parse_labels, selectors.parse_fields):
        try:
            parse(text)
        except selectors.SelectorError as exc:
            assert_one_line(exc)


@FUZZ
@given(st.one_of(random_text, st.from_regex(
    r"\A(429|500|410|drop|slow)(:([a-z-]{1,12}(=[0-9a-z/.]{0,8})?,?){0,3})?\Z")))
def test_fault_specs_raise_only_spec_error(text: str) -> None:
    try:
        faults.FaultPlan.parse([text])
    except faults.FaultSpecError as exc:
        assert_one_line(exc)


@FUZZ
@given(st.one_of(random_text, mutated(
    "GET /v2/ HTTP/1.1\nAuthorization: Bearer abcdefghijklmnop\npassword=hunter2hunter2\n"
    "url=https://u:pw1234@r.example.com/v2\nHF_TOKEN: hf_abcdefgh\n")))
def test_redaction_is_idempotent_and_keeps_line_count(text: str) -> None:
    once = redact_text(text)
    assert redact_text(once) == once
    assert once.count("\n") == text.count("\n") or "PRIVATE KEY" in text.upper()
