"""``gpuxray capacity``: per node and GPU resource, capacity vs allocatable vs allocated (§6)."""

from __future__ import annotations

from typing import Any

import click

from gpuxray.checks.engine import run_all
from gpuxray.cli import reports
from gpuxray.cli.common import (
    echo_bytes,
    open_snapshot,
    out_console,
    output_option,
    source_from_kwargs,
    source_options,
)
from gpuxray.cli.reports import row_json
from gpuxray.cli.usage_opts import usage_from_kwargs, usage_options, with_usage
from gpuxray.engines.capacity import GpuRow, capacity_rows
from gpuxray.engines.dra_capacity import dra_pods, dra_row_usage, dra_rows
from gpuxray.engines.usage import PodUsage, RowUsage, pod_usage, row_usage, usage_of
from gpuxray.errors import UsageError
from gpuxray.model.finding import Finding
from gpuxray.model.snapshot import Input, Snapshot
from gpuxray.render import json as render_json

#: capacity reads only names, node, phase and resources of a pod (engines/capacity.py,
#: engines/usage.py, checks/capacity.py), so a bundle's pods are decoded as PodCore: half the
#: decode of a 100k-pod bundle. Tests turn it off to prove the output is the same.
CORE_PODS = True


def totals(rows: list[GpuRow]) -> dict[str, dict[str, int]]:
    out: dict[str, dict[str, int]] = {}
    for r in rows:
        t = out.setdefault(r.resource, {"capacity": 0, "allocatable": 0, "allocated": 0,
                                        "free": 0, "unhealthy": 0})
        t["capacity"] += r.capacity
        t["allocatable"] += r.allocatable
        t["allocated"] += r.allocated
        t["free"] += r.free
        t["unhealthy"] += r.unhealthy
    return out


#: What a capacity view can depend on (rows, sharing and MIG modes, the GX6 checks): listed
#: live instead of every kind and operand log. Held to the full listing's output by a test.
CAPACITY_KINDS = frozenset({Input.NODES, Input.PODS, Input.DAEMONSETS, Input.CLUSTERPOLICIES,
                            Input.CONFIGMAPS, Input.DEVICECLASSES, Input.RESOURCESLICES,
                            Input.RESOURCECLAIMS, Input.RESOURCECLAIMTEMPLATES,
                            Input.COMPUTEDOMAINS})


def _no_logs(_snap: Snapshot) -> tuple[str, ...]:
    """Operand logs are read on no node: nothing a capacity view shows depends on them
    (CAPACITY_KINDS lists no logs either); a bundle's or must-gather's 16k log files cost
    ~0.6-0.9 s on a 5k-node fleet."""
    return ()


@click.command("capacity")
@source_options
@output_option(("text", "json", "markdown", "html"))
@click.option("--node", "node_name", default=None, help="Show one node and who holds its GPUs.")
@click.option("--pods", "show_pods", is_flag=True, default=False,
              help="Per-pod view: GPUs allocated, utilisation, framebuffer, idle flag.")
@usage_options
def command(output: str, node_name: str | None, show_pods: bool, **kw: Any) -> int:
    """GPU capacity, allocatable, allocated, free and used per node and resource name."""
    url, window, policy = usage_from_kwargs(kw)
    opts = source_from_kwargs(kw)
    with open_snapshot(opts, core_pods=CORE_PODS, kinds=CAPACITY_KINDS,
                       log_nodes=_no_logs) as snap0:
        snap = with_usage(snap0, url, window, policy)
        if not snap.has(Input.NODES):
            st = snap.state(Input.NODES)
            raise UsageError(f"cannot compute capacity: {st.source} {st.reason}")
        nodes = None  # all nodes: the rows the checks use too, computed once
        if node_name:
            node = snap.node_by_name.get(node_name)
            if node is None:
                raise UsageError(f"node {node_name!r} not found in {snap.origin}")
            nodes = [node]
        rows = capacity_rows(snap, nodes)
        drows = dra_rows(snap, nodes)
        used = {(r.node, r.resource): row_usage(snap, r) for r in rows}
        used.update({(r.node, r.resource): dra_row_usage(snap, r) for r in drows})
        rows = [*rows, *drows]
        pods_known = all(r.allocated_known for r in rows)
        wanted = {r.node for r in rows} if node_name else {n.metadata.name for n in snap.nodes}
        pods = [p for p in pod_usage(snap) if p.node in wanted]
        findings = [f for f in run_all(snap, ["GX6"]) if _concerns(snap, f, wanted)]
        if output == "json":
            nodes_json = []
            for r in rows:
                rj = row_json(r)
                rj["used"] = used[(r.node, r.resource)].as_json()
                nodes_json.append(rj)
            doc = render_json.document(findings, {
                "source": snap.origin, "nodes": nodes_json,
                "totals": totals(rows), "allocated_known": pods_known,
                "usage": usage_json(snap), "pods": [p.as_json() for p in pods],
                "dra_pods": dra_pods(drows)})
            echo_bytes(render_json.dumps_bytes(doc))
            return 0
        if output in reports.DOCUMENT_OUTPUTS:
            reports.emit_capacity([{**row_json(r), "used": used[(r.node, r.resource)].as_json()}
                                   for r in rows], output, snap, totals=totals(rows),
                                  allocated_known=pods_known)
            return 0
        # the text renderer (and rich) only for text: ~35 ms of a JSON run's start
        from rich.text import Text

        from gpuxray.render import text as render_text

        con = out_console()
        if not snap.has(Input.PODS):
            how = ("taken from `kubectl describe node` sums" if pods_known else "unknown")
            con.print(Text(f"allocated {how}: {snap.source(Input.PODS)} "
                           f"{snap.state(Input.PODS).reason}", style="magenta"))
        render_text.print_table(
            con, "GPU capacity (allocated = requests of non-terminal pods bound to the node)",
            ["node", "resource", "sharing", "physical", "capacity", "allocatable", "allocated",
             "free", "unhealthy", "util %", "fb used MiB", "power W", "notes"],
            ([r.node, r.resource, r.sharing,
              (f"{r.physical_gpus}x{r.replicas}" if (r.replicas or 1) > 1
               and r.physical_gpus is not None else r.physical),
              r.capacity, r.allocatable, r.allocated if r.allocated_known else "?",
              r.free if r.allocated_known else "?",
              r.unhealthy, *_used_cells(used[(r.node, r.resource)]), _notes(r)] for r in rows),
            right=("physical", "capacity", "allocatable", "allocated", "free", "unhealthy",
                   "util %", "fb used MiB", "power W"))
        con.print(Text(_usage_line(snap), style="dim"))
        for res, t in totals(rows).items():
            alloc = t["allocated"] if pods_known else "?"
            free = t["free"] if pods_known else "?"
            con.print(Text(f"total {res}: capacity {t['capacity']}, allocatable "
                           f"{t['allocatable']}, allocated {alloc}, free {free}"))
        if node_name:
            for r in rows:
                render_text.print_table(con, f"holders of {r.resource} on {r.node}",
                                        ["namespace", "pod", "amount", "phase"],
                                        ([h.namespace, h.pod, h.amount, h.phase]
                                         for h in r.holders), right=("amount",))
                u = used[(r.node, r.resource)]
                if u.known:
                    render_text.print_table(
                        con, f"{r.resource} on {r.node}: per GPU ({u.basis})",
                        ["gpu", "uuid", "mig", "pod", "util %", "util max %", "fb used MiB",
                         "power W"],
                        ([g.gpu, g.uuid, f"{g.mig_profile} #{g.mig_instance}"
                          if g.mig_instance is not None else "", _pod_of(snap, r, g.gpu_key),
                          _cell(g.util_pct), _cell(g.util_max_pct), _cell(g.fb_used_mib),
                          _cell(g.power_w)] for g in u.gpus),
                        right=("util %", "util max %", "fb used MiB", "power W"))
        if show_pods:
            _print_pods(con, pods, policy_text(snap))
            if drows:
                render_text.print_table(
                    con, "DRA devices held by claims",
                    ["node", "driver", "device", "product", "claim", "pods"],
                    ([x["node"], x["driver"], x["device"], x["product"], x["claim"],
                      ", ".join(x["pods"]) or "none"]  # type: ignore[arg-type]
                     for x in dra_pods(drows)))
        if findings:
            render_text.print_findings(con, findings, title="Capacity findings")
    return 0


def _concerns(snap: Snapshot, f: Finding, nodes: set[str]) -> bool:
    """Whether a capacity finding is about the nodes shown (a pod: by the node it is bound to)."""
    if f.subject.kind == "Pod":
        pod = snap.pod_by_key.get((f.subject.namespace or "default", f.subject.name))
        return pod is not None and pod.spec.node_name in nodes
    return f.subject.kind != "Node" or f.subject.name in nodes


def usage_json(snap: Snapshot) -> dict[str, Any]:
    u = usage_of(snap)
    if u is None:
        st = snap.state(Input.METRICS)
        return {"status": "unknown", "reason": f"{st.source} {st.reason}".strip()}
    return {"status": "measured", "basis": u.basis, "window": u.window, "source": u.source,
            "idle_util_pct": u.policy.util_pct, "idle_fb_mib": u.policy.fb_mib,
            "node_errors": dict(u.node_errors)}


def _cell(v: float | None) -> str:
    return "unknown" if v is None else f"{v:g}"


def _used_cells(u: RowUsage) -> list[str]:
    if not u.known:
        return ["unknown", "unknown", "unknown"]
    return [_cell(u.util_pct), _cell(u.fb_used_mib), _cell(u.power_w)]


def _usage_line(snap: Snapshot) -> str:
    u = usage_of(snap)
    if u is None:
        st = snap.state(Input.METRICS)
        return f"used: unknown ({st.source} {st.reason})".strip()
    errs = "; ".join(f"{n}: {e}" for n, e in sorted(u.node_errors.items()))
    return f"used: {u.basis_text}" + (f"; unreadable: {errs}" if errs else "")


def policy_text(snap: Snapshot) -> str:
    u = usage_of(snap)
    pol = u.policy if u is not None else None
    if pol is None:
        return ""
    return f"idle = util ≤ {pol.util_pct:g}% while holding ≥ {pol.fb_mib:g} MiB"


def _pod_of(snap: Snapshot, r: GpuRow, key: tuple[str, str, str]) -> str:
    u = usage_of(snap)
    if u is None:
        return ""
    pods = sorted({f"{g.namespace}/{g.pod}" for g in u.series if g.gpu_key == key and g.pod})
    if r.sharing in ("time-slicing", "mps"):
        return "not attributable (time-slicing)"
    return ", ".join(pods)


def _print_pods(con: Any, pods: list[PodUsage], policy: str) -> None:
    from gpuxray.render import text as render_text

    render_text.print_table(
        con, "GPU pods: allocation vs use" + (f" ({policy})" if policy else ""),
        ["namespace", "pod", "node", "GPUs", "util %", "util max %", "fb used MiB", "idle",
         "basis / why unknown"],
        ([p.namespace, p.pod, p.node, p.gpus_allocated, _cell(p.util_pct),
          _cell(p.util_max_pct), _cell(p.fb_used_mib),
          {True: "IDLE", False: "no", None: "unknown"}[p.idle],
          p.basis if p.status == "measured" else f"{p.status}: {p.reason}"] for p in pods),
        right=("GPUs", "util %", "util max %", "fb used MiB"))


def _notes(r: GpuRow) -> str:
    notes = []
    if not r.schedulable:
        notes.append("cordoned")
    if r.taints:
        notes.append("taints: " + ",".join(r.taints))
    if not r.name_present:
        notes.append("not advertised")
    elif r.capacity == 0:
        notes.append("capacity 0 (plugin gone > 5 min)")
    elif r.allocatable == 0:
        notes.append("allocatable 0 (plugin just disconnected?)")
    return "; ".join(notes)
