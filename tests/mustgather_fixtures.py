"""Build a must-gather directory the way the GPU Operator's ``hack/must-gather.sh`` writes it,
from a scenario built with :class:`ClusterBuilder`.

The scenario is written as a bundle and served by ``gpuxray serve``; the texts kubectl renders
client-side come from the REAL kubectl against it: ``kubectl describe nodes|pods|ds`` (the
``*.descr`` files) and ``kubectl get … -o yaml`` (the ``*.yaml`` files). ``kubectl get … -o wide``
tables are printed from the server's Table response, which ``serve`` does not implement, so those
(``*.status``) are rendered here in kubectl's layout (Go tabwriter, padding 3, ``HumanDuration``
ages). Logs use kubectl's ``--all-containers --prefix`` form (``[pod/<pod>/<container>] ``,
init containers first). ``gpu_nodes.labels`` is the script's sed/tr pipeline applied to the
``{.metadata.labels}`` JSON. Bug reports are rendered from the builder's host files/commands in
``nvidia-bug-report.sh``'s section format, one gzip member per section as the script appends them.
"""

from __future__ import annotations

import contextlib
import gzip
import json
import re
import subprocess
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from gpuxray.scenarios.builder import NOW, OPERATOR_NS, ClusterBuilder
from live_fixtures import kubectl_path, served, write_kubeconfig

Obj = dict[str, Any]
SEPARATOR = "____________________________________________"


# ----- kubectl's table layout -------------------------------------------------------------
def human_duration(seconds: int) -> str:
    """k8s.io/apimachinery ``duration.HumanDuration``."""
    if seconds < -1:
        return "<invalid>"
    if seconds < 0:
        return "0s"
    if seconds < 120:
        return f"{seconds}s"
    minutes = seconds // 60
    if minutes < 10:
        s = seconds % 60
        return f"{minutes}m" if s == 0 else f"{minutes}m{s}s"
    if minutes < 180:
        return f"{minutes}m"
    hours = seconds // 3600
    if hours < 8:
        m = minutes % 60
        return f"{hours}h" if m == 0 else f"{hours}h{m}m"
    if hours < 48:
        return f"{hours}h"
    if hours < 24 * 8:
        h = hours % 24
        return f"{hours // 24}d" if h == 0 else f"{hours // 24}d{h}h"
    if hours < 24 * 365 * 2:
        return f"{hours // 24}d"
    return f"{hours // (24 * 365)}y"


def _ts(text: str | None) -> datetime | None:
    if not text:
        return None
    return datetime.strptime(text, "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=UTC)


def age(text: str | None, now: str = NOW) -> str:
    t, n = _ts(text), _ts(now)
    if t is None or n is None:
        return "<unknown>"
    return human_duration(int((n - t).total_seconds()))


def table(header: list[str], rows: list[list[str]]) -> str:
    """``kubectl get`` output: Go tabwriter (minwidth 6, padding 3), last column unpadded."""
    widths = [max(6, *(len(r[i]) + 3 for r in [header, *rows])) for i in range(len(header) - 1)]
    out = []
    for r in [header, *rows]:
        out.append("".join(c.ljust(w) for c, w in zip(r[:-1], widths, strict=True)) + r[-1])
    return "\n".join(out) + "\n"


def nodes_wide(nodes: list[Obj], now: str = NOW) -> str:
    rows = []
    for n in nodes:
        ready = next((c for c in n["status"].get("conditions", []) if c["type"] == "Ready"), None)
        status = "Unknown" if ready is None else (
            "Ready" if ready["status"] == "True" else "NotReady")
        if n["spec"].get("unschedulable"):
            status += ",SchedulingDisabled"
        labels = n["metadata"].get("labels", {})
        roles = ",".join(sorted(k.split("/", 1)[1] for k in labels
                                if k.startswith("node-role.kubernetes.io/"))) or "<none>"
        addr = {a["type"]: a["address"] for a in n["status"].get("addresses", [])}
        info = n["status"].get("nodeInfo", {})
        rows.append([n["metadata"]["name"], status, roles,
                     age(n["metadata"].get("creationTimestamp"), now),
                     info.get("kubeletVersion", ""), addr.get("InternalIP", "<none>"),
                     addr.get("ExternalIP", "<none>"), info.get("osImage", "<unknown>"),
                     info.get("kernelVersion", "<unknown>"),
                     info.get("containerRuntimeVersion", "<unknown>")])
    return table(["NAME", "STATUS", "ROLES", "AGE", "VERSION", "INTERNAL-IP", "EXTERNAL-IP",
                  "OS-IMAGE", "KERNEL-VERSION", "CONTAINER-RUNTIME"], rows)


def pod_status_cell(p: Obj) -> str:
    """kubectl's ``printPod`` STATUS column."""
    st = p.get("status", {})
    reason = st.get("reason") or st.get("phase", "Pending")
    inits = p["spec"].get("initContainers", [])
    initializing = False
    for i, cs in enumerate(st.get("initContainerStatuses", [])):
        state = cs.get("state", {})
        term, wait = state.get("terminated"), state.get("waiting")
        if term and term.get("exitCode", 0) == 0:
            continue
        if cs.get("started") and state.get("running"):
            continue  # a running native sidecar
        if term:
            reason = "Init:" + (term.get("reason") or f"ExitCode:{term.get('exitCode', 0)}")
        elif wait and wait.get("reason") and wait["reason"] != "PodInitializing":
            reason = "Init:" + wait["reason"]
        else:
            reason = f"Init:{i}/{len(inits)}"
        initializing = True
        break
    if not initializing:
        running = False
        for cs in reversed(st.get("containerStatuses", [])):
            state = cs.get("state", {})
            if state.get("waiting", {}).get("reason"):
                reason = state["waiting"]["reason"]
            elif state.get("terminated", {}).get("reason"):
                reason = state["terminated"]["reason"]
            elif state.get("running") and cs.get("ready"):
                running = True
        if reason == "Completed" and running:
            reason = "Running"
    return str(reason)


def pods_wide(pods: list[Obj], now: str = NOW) -> str:
    rows = []
    for p in pods:
        st = p.get("status", {})
        css = st.get("containerStatuses", [])
        total = len(p["spec"].get("containers", []))
        ready = sum(1 for c in css if c.get("ready"))
        restarts = sum(int(c.get("restartCount", 0)) for c in css)
        last = max((c.get("lastState", {}).get("terminated", {}).get("finishedAt") or ""
                    for c in css), default="")
        rcell = str(restarts) + (f" ({age(last, now)} ago)" if restarts and last else "")
        rows.append([p["metadata"]["name"], f"{ready}/{total}", pod_status_cell(p), rcell,
                     age(p["metadata"].get("creationTimestamp"), now),
                     st.get("podIP") or "<none>", p["spec"].get("nodeName") or "<none>",
                     st.get("nominatedNodeName") or "<none>", "<none>"])
    return table(["NAME", "READY", "STATUS", "RESTARTS", "AGE", "IP", "NODE", "NOMINATED NODE",
                  "READINESS GATES"], rows)


def ds_table(dss: list[Obj], now: str = NOW) -> str:
    rows = []
    for d in dss:
        st = d.get("status", {})
        sel = d["spec"]["template"]["spec"].get("nodeSelector") or {}
        rows.append([d["metadata"]["name"], str(st.get("desiredNumberScheduled", 0)),
                     str(st.get("currentNumberScheduled", 0)), str(st.get("numberReady", 0)),
                     str(st.get("updatedNumberScheduled", 0)),
                     str(st.get("numberAvailable", 0)),
                     ",".join(f"{k}={v}" for k, v in sorted(sel.items())) or "<none>",
                     age(d["metadata"].get("creationTimestamp"), now)])
    return table(["NAME", "DESIRED", "CURRENT", "READY", "UP-TO-DATE", "AVAILABLE",
                  "NODE SELECTOR", "AGE"], rows)


def labels_block(node: Obj) -> str:
    """must-gather.sh: ``-ojsonpath={.metadata.labels} | sed 's|,|,- |g' | tr ',' '\\n' |
    sed 's/{"/- /' | tr : = | sed 's/"//g' | sed 's/}/\\n/'`` then ``echo ""``."""
    js = json.dumps(node["metadata"].get("labels", {}), separators=(",", ":"), sort_keys=True)
    s = js.replace(",", ",- ").replace(",", "\n")
    s = "\n".join(re.sub(r'\{"', "- ", ln, count=1) for ln in s.split("\n"))
    s = s.replace(":", "=").replace('"', "")
    s = "\n".join(ln.replace("}", "\n", 1) for ln in s.split("\n"))
    return f"{node['metadata']['name']}\n{s}\n"


def images_txt(pods: list[Obj]) -> str:
    return "".join(f"\n{p['metadata']['name']}:\t"
                   + "".join(c["image"] + " " for c in p["spec"]["containers"]) for p in pods)


def prefixed_log(b: ClusterBuilder, ns: str, pod: Obj, previous: bool) -> str:
    name = pod["metadata"]["name"]
    suffix = ".previous.log" if previous else ".log"
    out = []
    for c in [*pod["spec"].get("initContainers", []), *pod["spec"]["containers"]]:
        text = b.files.get(f"logs/{ns}/{name}/{c['name']}{suffix}")
        if text:
            out += [f"[pod/{name}/{c['name']}] {ln}" for ln in text.splitlines()]
    return "\n".join(out) + "\n" if out else ""


# ----- nvidia-bug-report ------------------------------------------------------------------
def _lsmod_to_proc_modules(lsmod: str) -> str:
    rows = []
    for ln in lsmod.splitlines()[1:]:
        parts = ln.split()
        if len(parts) >= 3:
            deps = (parts[3].rstrip(",") + ",") if len(parts) > 3 else "-"
            rows.append(f"{parts[0]} {parts[1]} {parts[2]} {deps} Live 0x0000000000000000 (POE)")
    return "\n".join(rows) + "\n"


def _fm_status(show: str) -> str:
    props = dict(ln.split("=", 1) for ln in show.splitlines() if "=" in ln)
    if props.get("LoadState") == "not-found":
        return "Unit nvidia-fabricmanager.service could not be found.\n"
    return ("● nvidia-fabricmanager.service - NVIDIA fabric manager service\n"
            f"     Loaded: {props.get('LoadState', 'loaded')} "
            "(/lib/systemd/system/nvidia-fabricmanager.service; enabled; vendor preset: enabled)\n"
            f"     Active: {props.get('ActiveState', 'inactive')} ({props.get('SubState', 'dead')})"
            " since Sun 2026-11-29 10:00:00 UTC; 2h ago\n")


def bug_report_sections(b: ClusterBuilder, node: str) -> list[str]:
    files = {k.split("/files/", 1)[1]: v for k, v in b.files.items()
             if k.startswith(f"nodes/{node}/files/")}
    cmds = {k.split("/cmd/", 1)[1]: v for k, v in b.files.items()
            if k.startswith(f"nodes/{node}/cmd/")}
    uname = cmds.get("uname.txt", f"Linux {node} 5.15.0-126-generic #136-Ubuntu SMP x86_64 "
                                  "x86_64 x86_64 GNU/Linux\n").strip()
    secs = [f"{SEPARATOR}\n\nStart of NVIDIA bug report log file.  Please include this file, "
            "along\nwith a detailed description of your problem, when reporting a graphics\n"
            "driver bug via the NVIDIA Linux forum (see forums.developer.nvidia.com)\nor by "
            "sending email to 'linux-bugs@nvidia.com'.\n\nnvidia-bug-report.sh Version: "
            f"35230809\n\nDate: Sun Nov 29 12:00:00 UTC 2026\nuname: {uname}\n"
            "command line flags: \n\n"]

    def file_section(path: str, text: str) -> str:
        return (f"{SEPARATOR}\n\n*** /{path}\n*** ls: -r--r--r-- 1 root root 0 2026-11-29 "
                f"12:00:00.000000000 +0000 /{path}\n{text}\n")

    secs.append(f"{SEPARATOR}\n\n*** /etc/redhat-release does not exist\n\n")
    for path, text in sorted(files.items()):
        secs.append(file_section(path, text))
    if "lspci-nvidia.txt" in cmds:
        secs.append(f"{SEPARATOR}\n\n/usr/bin/lspci -nn\n\n00:00.0 Host bridge [0600]: Intel "
                    "Corporation Device [8086:09a2] (rev 04)\n" + cmds["lspci-nvidia.txt"])
    if "dmesg.txt" in cmds:
        secs.append(f"{SEPARATOR}\n\ndmesg:\n\n{cmds['dmesg.txt']}")
    if "lsmod.txt" in cmds:
        secs.append(file_section("proc/modules", _lsmod_to_proc_modules(cmds["lsmod.txt"])))
    if "systemctl-show-fabricmanager.txt" in cmds:
        secs.append(f"{SEPARATOR}\n\nsystemctl status nvidia-fabricmanager.service\n\n"
                    + _fm_status(cmds["systemctl-show-fabricmanager.txt"]) + "\n")
    if "nvidia-smi.txt" in cmds:
        secs.append(f"{SEPARATOR}\n\n/usr/bin/nvidia-smi\n\n{cmds['nvidia-smi.txt']}\n")
    secs.append(f"{SEPARATOR}\n\nEnd of NVIDIA bug report log file.\n")
    return secs


def bug_report_gz(b: ClusterBuilder, node: str) -> bytes:
    """One gzip member per section, as ``… | gzip -c >> nvidia-bug-report.log.gz`` leaves it."""
    return b"".join(gzip.compress(s.encode(), mtime=0) for s in bug_report_sections(b, node))


# ----- the must-gather directory ----------------------------------------------------------
@contextlib.contextmanager
def kubectl_for(bundle: Path, tmp: Path) -> Iterator[Any]:
    """A ``kubectl(*args) -> str`` bound to ``gpuxray serve`` over ``bundle``."""
    exe = kubectl_path()
    with served(bundle) as srv:
        kc = write_kubeconfig(srv, tmp / "kubeconfig")

        def run(*args: str) -> str:
            r = subprocess.run([exe, "--kubeconfig", str(kc), "--cache-dir", str(tmp / "cache"),
                                *args], capture_output=True, text=True, timeout=120, check=False)
            if r.returncode != 0:
                raise RuntimeError(f"kubectl {' '.join(args)}: {r.stderr.strip()}")
            return r.stdout

        yield run


def _split_described(text: str) -> dict[str, str]:
    out: dict[str, str] = {}
    for block in re.split(r"\n\n\n(?=Name:)", text):
        m = re.match(r"Name:\s+(\S+)", block)
        if m:
            out[m.group(1)] = block.rstrip("\n") + "\n"
    return out


def _matches_gpu(obj: Obj) -> bool:
    """The script's ``-ojsonpath='{.metadata.labels}' | grep -E '(nvidia|gpu)'``."""
    return bool(re.search(r"(nvidia|gpu)", json.dumps(obj["metadata"].get("labels", {}))))


def write_mustgather(b: ClusterBuilder, dest: Path, *, namespace: str = OPERATOR_NS,
                     bug_reports: bool = True) -> Path:
    """Write the bundle of ``b`` under ``dest/bundle`` and its must-gather under ``dest/mg``."""
    bundle = b.write(dest / "bundle")
    mg = dest / "nvidia-gpu-operator_20261129_1200"
    mg.mkdir(parents=True)
    nodes = b.cluster.get("nodes", [])
    pods = [p for p in b.cluster.get("pods", []) if p["metadata"].get("namespace") == namespace]
    dss = [d for d in b.cluster.get("daemonsets", [])
           if d["metadata"].get("namespace") == namespace]
    operator = next((p for p in pods if p["metadata"].get("labels", {}).get("app")
                     == "gpu-operator"), None)
    log = [f"Using ARTIFACT_DIR={mg}", f"Using '{namespace}' as operator namespace"]
    with kubectl_for(bundle, dest) as kubectl:
        cps = b.cluster.get("clusterpolicies", [])
        if cps:
            cp_name = cps[0]["metadata"]["name"]
            (mg / "cluster_policy.yaml").write_text(
                kubectl("get", "-oyaml", f"clusterpolicies.nvidia.com/{cp_name}"))
        else:
            (mg / "cluster_policy.missing").touch()
        if b.cluster.get("nvidiadrivers"):
            (mg / "nvidiadrivers.yaml").write_text(
                kubectl("get", "nvidiadrivers.nvidia.com", "-oyaml"))
        pci = [n for n in nodes if n["metadata"].get("labels", {}).get(
            "feature.node.kubernetes.io/pci-10de.present") == "true"]
        (mg / "gpu_nodes.labels").write_text("".join(labels_block(n) + "\n" for n in pci))
        gpu = [n for n in nodes
               if n["metadata"].get("labels", {}).get("nvidia.com/gpu.present") == "true"]
        (mg / "gpu_nodes.status").write_text(nodes_wide(gpu))
        (mg / "gpu_nodes.descr").write_text(
            kubectl("describe", "nodes", "-l", "nvidia.com/gpu.present=true") if gpu else "")
        if operator is not None:
            name = operator["metadata"]["name"]
            (mg / "gpu_operator_pod.status").write_text(pods_wide([operator]))
            (mg / "gpu_operator_pod.yaml").write_text(
                kubectl("get", f"pod/{name}", "-oyaml", "-n", namespace))
            for prev in (False, True):
                text = b.files.get(f"logs/{namespace}/{name}/"
                                   f"{operator['spec']['containers'][0]['name']}"
                                   + (".previous.log" if prev else ".log"), "")
                (mg / ("gpu_operator_pod.previous.log" if prev
                       else "gpu_operator_pod.log")).write_text(text)
        (mg / "gpu_operand_pods.status").write_text(pods_wide(pods))
        (mg / "gpu_operand_pods.yaml").write_text(kubectl("get", "pods", "-oyaml", "-n",
                                                          namespace))
        (mg / "gpu_operand_pod_images.txt").write_text(images_txt(pods))
        described = _split_described(kubectl("describe", "pods", "-n", namespace)) \
            if pods else {}
        for p in pods:
            name = p["metadata"]["name"]
            if not _matches_gpu(p) or p is operator:
                continue
            (mg / f"gpu_operand_pod_{name}.log").write_text(prefixed_log(b, namespace, p, False))
            (mg / f"gpu_operand_pod_{name}.previous.log").write_text(
                prefixed_log(b, namespace, p, True))
            (mg / f"gpu_operand_pod_{name}.descr").write_text(described.get(name, ""))
        (mg / "gpu_operand_ds.status").write_text(ds_table(dss))
        (mg / "gpu_operand_ds.yaml").write_text(kubectl("get", "ds", "-oyaml", "-n", namespace))
        ds_descr = _split_described(kubectl("describe", "ds", "-n", namespace)) if dss else {}
        for d in dss:
            if _matches_gpu(d):
                name = d["metadata"]["name"]
                (mg / f"gpu_operand_ds_{name}.descr").write_text(ds_descr.get(name, ""))
    if bug_reports:
        for p in pods:
            if p["metadata"].get("labels", {}).get("app") == "nvidia-driver-daemonset":
                node = p["spec"].get("nodeName")
                if node:
                    log.append(f"Saving nvidia-bug-report from {node} ...")
                    (mg / f"nvidia-bug-report_{node}.log.gz").write_bytes(bug_report_gz(b, node))
    (mg / "must-gather.log").write_text("\n".join(log) + "\n")
    (mg / "must-gather.stderr.log").write_text("")
    return mg
