"""``gpuxray capacity``: per node and GPU resource, capacity vs allocatable vs allocated (§6)."""

from __future__ import annotations

import json
from typing import Any

import click
from rich.text import Text

from gpuxray.cli.common import (
    open_snapshot,
    out_console,
    output_option,
    source_from_kwargs,
    source_options,
)
from gpuxray.engines.capacity import GpuRow, capacity_rows
from gpuxray.errors import UsageError
from gpuxray.model.snapshot import Input
from gpuxray.render import json as render_json
from gpuxray.render import text as render_text


def row_json(r: GpuRow) -> dict[str, Any]:
    return {"node": r.node, "resource": r.resource, "capacity": r.capacity,
            "allocatable": r.allocatable, "allocated": r.allocated, "free": r.free,
            "unhealthy": r.unhealthy, "sharing": r.sharing, "physical": r.physical,
            "physical_gpus": r.physical_gpus, "replicas": r.replicas,
            "schedulable": r.schedulable, "taints": list(r.taints),
            "name_present": r.name_present,
            "holders": [{"namespace": h.namespace, "pod": h.pod, "amount": h.amount,
                         "phase": h.phase} for h in r.holders]}


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


@click.command("capacity")
@source_options
@output_option()
@click.option("--node", "node_name", default=None, help="Show one node and who holds its GPUs.")
def command(output: str, node_name: str | None, **kw: Any) -> int:
    """GPU capacity, allocatable, allocated and free per node and resource name."""
    opts = source_from_kwargs(kw)
    with open_snapshot(opts) as snap:
        if not snap.has(Input.NODES):
            st = snap.state(Input.NODES)
            raise UsageError(f"cannot compute capacity: {st.source} {st.reason}")
        nodes = snap.nodes
        if node_name:
            node = snap.node_by_name.get(node_name)
            if node is None:
                raise UsageError(f"node {node_name!r} not found in {snap.origin}")
            nodes = [node]
        rows = capacity_rows(snap, nodes)
        pods_known = snap.has(Input.PODS)
        if output == "json":
            doc = render_json.document([], {
                "source": snap.origin, "nodes": [row_json(r) for r in rows],
                "totals": totals(rows), "allocated_known": pods_known})
            click.echo(json.dumps(doc, indent=2))
            return 0
        con = out_console()
        if not pods_known:
            con.print(Text(f"allocated unknown: {snap.source(Input.PODS)} "
                           f"{snap.state(Input.PODS).reason}", style="magenta"))
        render_text.print_table(
            con, "GPU capacity (allocated = requests of non-terminal pods bound to the node)",
            ["node", "resource", "sharing", "physical", "capacity", "allocatable", "allocated",
             "free", "unhealthy", "notes"],
            ([r.node, r.resource, r.sharing,
              None if r.physical is None else (f"{r.physical_gpus}x{r.replicas}"
                                               if (r.replicas or 1) > 1 else r.physical),
              r.capacity, r.allocatable, r.allocated if pods_known else "?", r.free,
              r.unhealthy, _notes(r)] for r in rows),
            right=("physical", "capacity", "allocatable", "allocated", "free", "unhealthy"))
        for res, t in totals(rows).items():
            con.print(Text(f"total {res}: capacity {t['capacity']}, allocatable "
                           f"{t['allocatable']}, allocated {t['allocated']}, free {t['free']}"))
        if node_name:
            for r in rows:
                render_text.print_table(con, f"holders of {r.resource} on {r.node}",
                                        ["namespace", "pod", "amount", "phase"],
                                        ([h.namespace, h.pod, h.amount, h.phase]
                                         for h in r.holders), right=("amount",))
    return 0


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
