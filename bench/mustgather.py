"""A generated bundle rewritten as the GPU Operator's must-gather (``hack/must-gather.sh``).

The same cluster as the bundle, seen the way support receives it: YAML of the ClusterPolicy and
of the operator namespace's pods and DaemonSets, ``kubectl describe`` text of every GPU node
(with its pod rows and allocated sums), the ``-o wide`` tables, the labels file and the operand
logs with kubectl's ``--prefix``. The tables, the labels file and the log prefixes use the test
suite's renderers (``tests/mustgather_fixtures.py``, which builds them with the real kubectl on
small clusters); the node describe text is rendered here in kubectl's layout, because asking a
served bundle for it costs one pod list per node. Per-pod ``.descr`` files are not written (the
reader takes the pods from the YAML; their events are covered by the node describe text).
"""

from __future__ import annotations

import sys
from collections import defaultdict
from datetime import UTC, datetime
from fractions import Fraction
from pathlib import Path
from typing import Any

import msgspec
import yaml

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from gpuxray.model.quantity import safe_quantity
from mustgather_fixtures import (
    age,
    ds_table,
    images_txt,
    labels_block,
    nodes_wide,
    pods_wide,
)

Obj = dict[str, Any]
NOW = "2026-11-29T12:00:00Z"
NS = "gpu-operator"


class _Res(msgspec.Struct, frozen=True):
    requests: dict[str, str] = {}
    limits: dict[str, str] = {}


class _Ctr(msgspec.Struct):
    resources: _Res = _Res()


class _Meta(msgspec.Struct, rename="camel"):
    name: str = ""
    namespace: str = ""
    creation_timestamp: str = ""


class _Spec(msgspec.Struct, rename="camel"):
    node_name: str = ""
    containers: list[_Ctr] = []


class _Status(msgspec.Struct, frozen=True):
    phase: str = ""


class _Pod(msgspec.Struct):
    metadata: _Meta
    spec: _Spec
    status: _Status = _Status()


class _Pods(msgspec.Struct):
    items: list[_Pod]


class _Raw(msgspec.Struct):
    items: list[msgspec.Raw]


def _rfc1123(ts: str) -> str:
    t = datetime.strptime(ts, "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=UTC)
    return t.strftime("%a, %d %b %Y %H:%M:%S +0000")


def _fmt(res: str, q: Fraction) -> str:
    """A sum the way kubectl prints a Quantity: whole cores or millicores, binary suffixes."""
    if res == "cpu":
        m = q * 1000
        return str(int(q)) if q == int(q) else f"{int(m)}m"
    if res in ("memory", "ephemeral-storage") or res.startswith("hugepages-"):
        n = int(q)
        for suf, f in (("Gi", 1 << 30), ("Mi", 1 << 20), ("Ki", 1 << 10)):
            if n and n % f == 0:
                return f"{n // f}{suf}"
        return str(n)
    return str(int(q))


def _pct(q: Fraction, alloc: Fraction) -> str:
    return f" ({int(q * 100 / alloc)}%)" if alloc else ""


def _kv_block(title: str, rows: list[tuple[str, str]], width: int = 20) -> list[str]:
    if not rows:
        return [f"{title + ':':<{width}}<none>"]
    out = [f"{title + ':':<{width}}{rows[0][0]}{rows[0][1]}"]
    out += [" " * width + f"{k}{v}" for k, v in rows[1:]]
    return out


def _table(rows: list[list[str]], indent: str = "  ") -> list[str]:
    widths = [max(len(r[i]) for r in rows) + 2 for i in range(len(rows[0]) - 1)]
    return [indent + "".join(c.ljust(w) for c, w in zip(r[:-1], widths, strict=True)) + r[-1]
            for r in rows]


def describe_node(n: Obj, pods: list[_Pod]) -> str:
    """``kubectl describe node`` for one node (k8s.io/kubectl describe.go ``describeNode``)."""
    md, st, spec = n["metadata"], n["status"], n.get("spec", {})
    labels = sorted(md.get("labels", {}).items())
    ann = sorted(md.get("annotations", {}).items())
    roles = ",".join(sorted(k.split("/", 1)[1] for k, _ in labels
                            if k.startswith("node-role.kubernetes.io/"))) or "<none>"
    taints = [f"{t['key']}{'=' + t['value'] if t.get('value') else ''}:{t['effect']}"
              for t in spec.get("taints", [])]
    out = [f"{'Name:':<20}{md['name']}", f"{'Roles:':<20}{roles}"]
    out += _kv_block("Labels", [(f"{k}=", v) for k, v in labels])
    out += _kv_block("Annotations", [(f"{k}: ", v) for k, v in ann])
    out.append(f"{'CreationTimestamp:':<20}{_rfc1123(md['creationTimestamp'])}")
    out += _kv_block("Taints", [(t, "") for t in taints])
    out.append(f"{'Unschedulable:':<20}{'true' if spec.get('unschedulable') else 'false'}")
    out += ["Lease:", f"  HolderIdentity:  {md['name']}", "  AcquireTime:     <unset>",
            f"  RenewTime:       {_rfc1123(NOW)}", "Conditions:"]
    conds = [["Type", "Status", "LastHeartbeatTime", "LastTransitionTime", "Reason", "Message"],
             ["----", "------", "-----------------", "------------------", "------", "-------"]]
    for c in st.get("conditions", []):
        conds.append([c["type"], c["status"], _rfc1123(c.get("lastHeartbeatTime", NOW)),
                      _rfc1123(c.get("lastTransitionTime", NOW)), c.get("reason", ""),
                      c.get("message", "")])
    out += _table(conds)
    out.append("Addresses:")
    out += [f"  {a['type']}:  {a['address']}" for a in st.get("addresses", [])]
    for title, key in (("Capacity", "capacity"), ("Allocatable", "allocatable")):
        items = sorted(st.get(key, {}).items())
        w = max(len(k) for k, _ in items) + 3
        out.append(f"{title}:")
        out += [f"  {k + ':':<{w}}{v}" for k, v in items]
    info = st.get("nodeInfo", {})
    out.append("System Info:")
    for label, key in (("Kernel Version", "kernelVersion"), ("OS Image", "osImage"),
                       ("Operating System", "operatingSystem"), ("Architecture", "architecture"),
                       ("Container Runtime Version", "containerRuntimeVersion"),
                       ("Kubelet Version", "kubeletVersion")):
        out.append(f"  {label + ':':<28}{info.get(key, '')}")
    out.append(f"{'PodCIDR:':<30}{spec.get('podCIDR', '')}")
    live = [p for p in pods if p.status.phase not in ("Succeeded", "Failed")]
    out.append(f"{'Non-terminated Pods:':<30}({len(live)} in total)")
    alloc = {k: safe_quantity(v) for k, v in st.get("allocatable", {}).items()}
    rows = [["Namespace", "Name", "CPU Requests", "CPU Limits", "Memory Requests",
             "Memory Limits", "Age"],
            ["---------", "----", "------------", "----------", "---------------",
             "-------------", "---"]]
    req: dict[str, Fraction] = defaultdict(Fraction)
    lim: dict[str, Fraction] = defaultdict(Fraction)
    for p in live:
        pr: dict[str, Fraction] = defaultdict(Fraction)
        pl: dict[str, Fraction] = defaultdict(Fraction)
        for c in p.spec.containers:
            for k, v in c.resources.limits.items():
                pl[k] += safe_quantity(v)
            for k, v in {**c.resources.limits, **c.resources.requests}.items():
                pr[k] += safe_quantity(v)  # a missing request defaults to the limit
        for k, v in pr.items():
            req[k] += v
        for k, v in pl.items():
            lim[k] += v
        rows.append([p.metadata.namespace, p.metadata.name,
                     *(_fmt(r, d[r]) + _pct(d[r], alloc.get(r, Fraction(0)))
                       for r in ("cpu",) for d in (pr, pl)),
                     *(_fmt(r, d[r]) + _pct(d[r], alloc.get(r, Fraction(0)))
                       for r in ("memory",) for d in (pr, pl)),
                     age(p.metadata.creation_timestamp or NOW, NOW)])
    out += _table(rows)
    out += ["Allocated resources:", "  (Total limits may be over 100 percent, i.e., "
            "overcommitted.)"]
    ares = [["Resource", "Requests", "Limits"], ["--------", "--------", "------"]]
    names = ["cpu", "memory", "ephemeral-storage", "hugepages-1Gi", "hugepages-2Mi"]
    names += sorted(k for k in alloc if "/" in k)
    for r in names:
        a = alloc.get(r, Fraction(0)) if "/" not in r else Fraction(0)  # no % for devices
        ares.append([r, _fmt(r, req[r]) + _pct(req[r], a), _fmt(r, lim[r]) + _pct(lim[r], a)])
    out += _table(ares)
    out.append("Events:              <none>")
    return "\n".join(out) + "\n"


def _prefixed(bundle: Path, p: Obj) -> str:
    name = p["metadata"]["name"]
    lines: list[str] = []
    for c in [*p["spec"].get("initContainers", []), *p["spec"]["containers"]]:
        f = bundle / "logs" / NS / name / f"{c['name']}.log"
        if f.is_file():
            lines += [f"[pod/{name}/{c['name']}] {ln}" for ln in f.read_text().splitlines()]
    return "\n".join(lines) + "\n" if lines else ""


def _yaml_list(items: list[Obj]) -> str:
    return yaml.dump({"apiVersion": "v1", "items": items, "kind": "List",
                      "metadata": {"resourceVersion": ""}}, Dumper=yaml.CSafeDumper,
                     default_flow_style=False, sort_keys=True)


def _items(path: Path) -> list[Obj]:
    if not path.exists():
        return []
    return [msgspec.json.decode(r) for r in msgspec.json.decode(path.read_bytes(), type=_Raw).items]


def write_mustgather(bundle: Path, out: Path) -> Path:
    """Write ``out`` (a must-gather directory) from ``bundle``; returns ``out``."""
    out.mkdir(parents=True, exist_ok=True)
    cl = bundle / "cluster"
    nodes = _items(cl / "nodes.json")
    light = msgspec.json.decode((cl / "pods.json").read_bytes(), type=_Pods).items
    by_node: dict[str, list[_Pod]] = defaultdict(list)
    for p in light:
        if p.spec.node_name:
            by_node[p.spec.node_name].append(p)
    ops = [p for p in (msgspec.json.decode(r) for r in
                       msgspec.json.decode((cl / "pods.json").read_bytes(), type=_Raw).items
                       if b'"namespace":"gpu-operator"' in bytes(r))
           if p["metadata"].get("namespace") == NS]
    dss = [d for d in _items(cl / "daemonsets.json") if d["metadata"].get("namespace") == NS]
    cps = _items(cl / "clusterpolicies.json")
    if cps:
        (out / "cluster_policy.yaml").write_text(yaml.dump(cps[0], Dumper=yaml.CSafeDumper))
    else:
        (out / "cluster_policy.missing").touch()
    pci = [n for n in nodes if n["metadata"].get("labels", {}).get(
        "feature.node.kubernetes.io/pci-10de.present") == "true"]
    (out / "gpu_nodes.labels").write_text("".join(labels_block(n) + "\n" for n in pci))
    gpu = [n for n in nodes if n["metadata"].get("labels", {}).get("nvidia.com/gpu.present")
           == "true"]
    (out / "gpu_nodes.status").write_text(nodes_wide(gpu))
    with open(out / "gpu_nodes.descr", "w") as fh:
        fh.write("\n\n".join(describe_node(n, by_node.get(n["metadata"]["name"], []))
                             for n in gpu))
    operator = next((p for p in ops if p["metadata"].get("labels", {}).get("app")
                     == "gpu-operator"), None)
    operands = [p for p in ops if p is not operator]
    if operator is not None:
        (out / "gpu_operator_pod.status").write_text(pods_wide([operator]))
        (out / "gpu_operator_pod.yaml").write_text(yaml.dump(operator, Dumper=yaml.CSafeDumper))
        (out / "gpu_operator_pod.log").write_text(_prefixed(bundle, operator))
    (out / "gpu_operand_pods.status").write_text(pods_wide(ops))
    (out / "gpu_operand_pods.yaml").write_text(_yaml_list(ops))
    (out / "gpu_operand_pod_images.txt").write_text(images_txt(ops))
    for p in operands:
        text = _prefixed(bundle, p)
        if text:
            (out / f"gpu_operand_pod_{p['metadata']['name']}.log").write_text(text)
    (out / "gpu_operand_ds.status").write_text(ds_table(dss))
    (out / "gpu_operand_ds.yaml").write_text(_yaml_list(dss))
    (out / "must-gather.log").write_text(f"Using ARTIFACT_DIR={out}\n"
                                         f"Using '{NS}' as operator namespace\n")
    (out / "must-gather.stderr.log").write_text("")
    return out
