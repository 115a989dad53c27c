"""``gpuxray mig``: MIG profile tables, layout validation, wish-list packing, mig-parted configs and
each node's layout and waste (seed §6 "MIG"; facts.md §6.3, §7).

Exit status: 0 when everything asked for is feasible (waste is reported, not failed: GX603 is
info); 1 when a layout is infeasible, a config has problems, a wish-list does not fit or a node's
layout is invalid; 2 for usage or input errors; 3 when only some node's layout could not be worked
out (its inputs are missing).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import click
from rich.text import Text

from gpuxray.checks.engine import run_all
from gpuxray.cli.common import (
    open_snapshot,
    out_console,
    output_option,
    source_from_kwargs,
    source_options,
)
from gpuxray.engines.mig import (
    GpuLayout,
    MigPartedConfig,
    MigSpecError,
    PackResult,
    layout_for,
    pack,
    parse_layout,
    parse_mig_parted,
    validate,
)
from gpuxray.engines.migstate import NodeMigState, node_mig_states
from gpuxray.errors import InputError, UsageError
from gpuxray.knowledge.mig import MODELS, GpuModel, lookup, model_for_pci
from gpuxray.model.finding import Finding
from gpuxray.model.snapshot import Input
from gpuxray.render import json as render_json
from gpuxray.render import text as render_text

CONFIG_LIMIT = 4 << 20


def _model(name: str | None) -> GpuModel | None:
    if name is None:
        return None
    m = lookup(name)
    if m is None:
        raise UsageError(f"unknown GPU model {name!r}; known: {', '.join(MODELS)}")
    return m


def _spec(text: str, what: str) -> dict[str, int]:
    try:
        return parse_layout(text)
    except MigSpecError as exc:
        raise UsageError(f"{what}: {exc}") from exc


def _read_config(path: str) -> tuple[str, MigPartedConfig]:
    p = Path(path)
    try:
        if p.stat().st_size > CONFIG_LIMIT:
            raise InputError(f"{path}: larger than {CONFIG_LIMIT >> 20} MiB")
        data = p.read_bytes()
    except OSError as exc:
        raise InputError(f"{path}: cannot read ({exc.strerror or exc})") from exc
    if b"\x00" in data:
        raise InputError(f"{path}: not a text file")
    text = data.decode("utf-8", errors="replace")
    # A ConfigMap manifest holding the config under data: use its config.yaml (or first key).
    cfg = parse_mig_parted(text)
    if not cfg.configs:
        try:
            import yaml

            doc = yaml.safe_load(text)
        except Exception:
            doc = None
        if isinstance(doc, dict) and doc.get("kind") == "ConfigMap" and isinstance(
                doc.get("data"), dict) and doc["data"]:
            data_map = doc["data"]
            key = "config.yaml" if "config.yaml" in data_map else sorted(data_map)[0]
            return f"{path} (data.{key})", parse_mig_parted(str(data_map[key]))
    return path, cfg


def profile_rows(model: GpuModel) -> list[dict[str, Any]]:
    return [{"profile": p.name, "memory_slices": p.mem, "compute_slices": p.compute,
             "max_instances": p.max_instances, "starts": list(p.starts),
             "memory_gb": p.memory_gb, "media_extensions": p.media} for p in model.profiles]


def config_results(cfg: MigPartedConfig, model: GpuModel | None, gpus: int
                   ) -> list[dict[str, Any]]:
    """Each named config on each model it targets (device-filter) or on ``--model``."""
    out: list[dict[str, Any]] = []
    for name, entries in cfg.configs.items():
        models: list[GpuModel] = []
        for e in entries:
            for d in e.device_filter:
                m = model_for_pci(d)
                if m is not None and m not in models:
                    models.append(m)
        if model is not None:
            models = [model] if (not models or model in models) else []
        for m in models:
            lay = layout_for(cfg, name, m, gpus)
            if lay is None:
                continue
            out.append({"config": name, "model": m.name, "gpus": gpus,
                        "per_gpu": [None if g is None else g.as_json() for g in lay.per_gpu],
                        "valid": not lay.invalid, "unused_memory_slices": lay.unused_mem,
                        "unused_compute_slices": lay.unused_compute,
                        "unused_memory_gb": lay.unused_gb})
        if not models:
            out.append({"config": name, "model": None, "gpus": gpus, "per_gpu": [],
                        "valid": None, "note": "no --model given and no device-filter names a "
                                               "known model"})
    return out


def node_json(st: NodeMigState) -> dict[str, Any]:
    lay = st.layout
    return {"node": st.node, "config": st.config, "model": st.model.name if st.model else None,
            "missing": st.missing, "gpus": lay.gpus if lay else None,
            "per_gpu": [None if g is None else g.as_json() for g in lay.per_gpu] if lay else [],
            "valid": (not lay.invalid) if lay else None,
            "unused_memory_slices": lay.unused_mem if lay else None,
            "unused_compute_slices": lay.unused_compute if lay else None,
            "unused_memory_gb": lay.unused_gb if lay else None}


def _layout_text(g: GpuLayout | None) -> str:
    if g is None:
        return "MIG disabled"
    if not g.ok:
        return "INVALID: " + "; ".join(f"{p.reason}: {p.detail}" for p in g.problems)
    return " ".join(f"{p.profile}@{p.slots()}" for p in g.placements)


@click.command("mig")
@click.option("--model", "model_name", default=None,
              help=f"GPU model: {', '.join(MODELS)} (or a100, h100, h200, a30, b200).")
@click.option("--layout", "layout", default=None, metavar="PROFILE=N[,…]",
              help="Validate one GPU's layout, e.g. 3g.20gb=1,2g.10gb=1,1g.5gb=2.")
@click.option("--want", "want", default=None, metavar="PROFILE=N[,…]",
              help="Pack these instances onto --gpus GPUs, e.g. 1g.5gb=10,3g.20gb=3.")
@click.option("--gpus", "gpus", type=click.IntRange(0, 4096), default=1, show_default=True,
              help="GPUs of --model to pack onto (or to apply --config to).")
@click.option("--config", "config_path", default=None, metavar="FILE",
              help="A mig-parted config (or its ConfigMap manifest) to validate.")
@click.option("--nodes", "nodes", is_flag=True, default=False,
              help="Show each node's layout from the cluster (implied by --bundle).")
@source_options
@output_option()
def command(output: str, model_name: str | None, layout: str | None, want: str | None,
            gpus: int, config_path: str | None, nodes: bool, **kw: Any) -> int:
    """MIG profiles, layout validation and planning per GPU model; nodes' layouts and waste."""
    opts = source_from_kwargs(kw)
    model = _model(model_name)
    if (layout or want) and model is None:
        raise UsageError("--layout and --want need --model")
    doc: dict[str, Any] = {}
    bad = False
    findings: list[Finding] = []
    validation: GpuLayout | None = None
    plan: PackResult | None = None
    if model is not None:
        doc["model"] = {"name": model.name, "memory_gb": model.memory_gb,
                        "memory_slices": model.mem_slices,
                        "compute_slices": model.compute_slices,
                        "max_instances": model.max_instances,
                        "pci_ids": [f"0x{i:04X}" for i in model.pci_ids],
                        "placements_derived": model.derived, "source": model.source,
                        "profiles": profile_rows(model)}
    if model is not None and layout:
        validation = validate(model, _spec(layout, "--layout"))
        doc["validation"] = validation.as_json()
        bad |= not validation.ok
    if model is not None and want:
        try:
            plan = pack(model, gpus, _spec(want, "--want"))
        except MigSpecError as exc:
            raise UsageError(f"--want: {exc}") from exc
        doc["plan"] = plan.as_json()
        bad |= bool(plan.unplaced)
    cfg_rows: list[dict[str, Any]] = []
    if config_path:
        shown, cfg = _read_config(config_path)
        cfg_rows = config_results(cfg, model, gpus)
        doc["config"] = {"path": shown,
                         "issues": [{"path": i.path, "message": i.message} for i in cfg.issues],
                         "results": cfg_rows}
        bad |= bool(cfg.issues) or any(r.get("valid") is False for r in cfg_rows)
    states: list[NodeMigState] = []
    incomplete = False
    if opts.bundle or opts.kubeconfig or opts.context or nodes:
        with open_snapshot(opts) as snap:
            if not snap.has(Input.NODES):
                st = snap.state(Input.NODES)
                raise UsageError(f"cannot show nodes' MIG layouts: {st.source} {st.reason}")
            states = list(node_mig_states(snap))
            findings = run_all(snap, ["GX603"])
        doc["nodes"] = [node_json(s) for s in states]
        bad |= any(s.layout is not None and bool(s.layout.invalid) for s in states)
        incomplete = any(s.missing for s in states)
    if not doc:
        doc["models"] = {name: profile_rows(m) for name, m in MODELS.items()}
    if output == "json":
        click.echo(json.dumps(render_json.document(findings, doc), indent=2,
                              ensure_ascii=False))
    else:
        _print(doc, model, validation, plan, cfg_rows, states, findings)
    return 1 if bad else 3 if incomplete else 0


def _print(doc: dict[str, Any], model: GpuModel | None, validation: GpuLayout | None,
           plan: PackResult | None, cfg_rows: list[dict[str, Any]],
           states: list[NodeMigState], findings: list[Finding]) -> None:
    con = out_console()
    models = [model] if model is not None else (list(MODELS.values()) if "models" in doc else [])
    for m in models:
        render_text.print_table(
            con, f"{m.name}: {m.mem_slices} memory slices × {m.slice_gb:g} GB, "
                 f"{m.compute_slices} compute slices, ≤ {m.max_instances} instances"
                 + (" (placements derived)" if m.derived else ""),
            ["profile", "mem slices", "compute slices", "max", "start slots"],
            ([p.name, p.mem, p.compute, p.max_instances, ",".join(map(str, p.starts))]
             for p in m.profiles), right=("mem slices", "compute slices", "max"))
    if validation is not None:
        style = "green" if validation.ok else "bold red"
        con.print(Text(f"layout {','.join(f'{k}={v}' for k, v in validation.counts.items())}: "
                       + ("valid" if validation.ok else "INFEASIBLE"), style=style))
        con.print(Text("  " + _layout_text(validation)))
        if validation.ok:
            con.print(Text(f"  unused: {validation.unused_mem} memory slice(s) "
                           f"(≈{validation.unused_gb:g} GB), {validation.unused_compute} "
                           "compute slice(s)"))
    if plan is not None:
        render_text.print_table(
            con, f"plan: {plan.gpus} × {plan.model.name}",
            ["gpu", "layout", "unused mem slices", "unused compute slices", "unused GB"],
            ([i, _layout_text(g), g.unused_mem, g.unused_compute, f"{g.unused_gb:g}"]
             for i, g in enumerate(plan.layouts)),
            right=("unused mem slices", "unused compute slices", "unused GB"))
        con.print(Text(f"placed {plan.placed}; GPUs used {len(plan.layouts)} of {plan.gpus}"))
        if plan.unplaced:
            con.print(Text(f"does not fit: {dict(plan.unplaced)}", style="bold red"))
    if "config" in doc:
        for issue in doc["config"]["issues"]:
            con.print(Text(f"config issue: {issue['path'] or '(top)'}: {issue['message']}",
                           style="bold red"))
        render_text.print_table(
            con, f"mig-parted config {doc['config']['path']}",
            ["config", "model", "layout per GPU", "unused mem slices", "unused compute"],
            ([r["config"], r["model"] or "?", _rows_layout(r), r.get("unused_memory_slices"),
              r.get("unused_compute_slices")] for r in cfg_rows),
            right=("unused mem slices", "unused compute"))
    if "nodes" in doc and not states:
        con.print(Text("no node asks for a MIG layout (nvidia.com/mig.config unset or "
                       "all-disabled)"))
    if states:
        render_text.print_table(
            con, "nodes (nvidia.com/mig.config)",
            ["node", "config", "model", "GPUs", "layout / why unknown", "unused mem slices",
             "unused compute"],
            ([s.node, s.config, s.model.name if s.model else "?",
              s.layout.gpus if s.layout else "?",
              s.missing or _node_layout(s), s.layout.unused_mem if s.layout else "?",
              s.layout.unused_compute if s.layout else "?"] for s in states),
            right=("GPUs", "unused mem slices", "unused compute"))
    if findings:
        render_text.print_findings(con, findings)


def _rows_layout(r: dict[str, Any]) -> str:
    parts = []
    for i, g in enumerate(r.get("per_gpu") or []):
        if g is None:
            parts.append(f"{i}: disabled")
        elif not g["valid"]:
            parts.append(f"{i}: INVALID ({g['problems'][0]['reason']})")
        else:
            parts.append(f"{i}: " + ",".join(f"{k}={v}" for k, v in g["layout"].items()))
    return "; ".join(parts) or r.get("note", "")


def _node_layout(s: NodeMigState) -> str:
    if s.layout is None:
        return "?"
    distinct = {(_layout_text(g)) for g in s.layout.per_gpu}
    if len(distinct) == 1:
        return f"all: {distinct.pop()}"
    return "; ".join(f"{i}: {_layout_text(g)}" for i, g in enumerate(s.layout.per_gpu))
