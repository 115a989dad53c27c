"""``gpuxray containerd``: simulate containerd's config load for a config tree and a containerd
version — files in merge order, who wrote each plugin section, what earlier files lost, the
runtime handlers, default runtime and CDI (seed §5, facts.md §1). ``--add FILE`` is a what-if:
the same tree with FILE dropped in where its name sorts into the import glob.

A malformed or refused config is a *finding* (GX509, exit 1), not an input error: it is the
diagnosis. Exit 2 is kept for files that cannot be found or read (``--config``, ``--add``).
"""

from __future__ import annotations

import os
import posixpath
import shutil
import subprocess
from pathlib import Path
from typing import Any

import click
from rich.text import Text

from gpuxray.checks.containerd import analysis_findings
from gpuxray.checks.engine import exit_code, sort_findings
from gpuxray.cli.common import fail_on_option, out_console, output_option, severity
from gpuxray.engines.containerd import (
    ROOT_CONFIG,
    Analysis,
    ConfigReader,
    DirReader,
    ProblemKind,
    analyse,
    resolve_version,
)
from gpuxray.engines.containerd.host import dropin_dirs, rendered_distribution
from gpuxray.engines.containerd.merge import nvidia_dump_lines
from gpuxray.engines.containerd.reader import MAX_FILE_BYTES
from gpuxray.engines.containerd.whatif import (
    NodeChange,
    change_host,
    change_tree,
    group,
    headline,
)
from gpuxray.errors import InputError, UsageError
from gpuxray.knowledge.distributions import Distribution
from gpuxray.model.finding import Finding, Subject
from gpuxray.render import json as render_json
from gpuxray.render import text as render_text


def analysis_json(a: Analysis) -> dict[str, Any]:
    return {
        "containerd_version": a.version.text,
        "containerd_version_source": a.version.source,
        "version_assumed": a.version.assumed,
        "merge_rules": a.version.line.value,
        "config_version": a.config_version,
        "files": [f.path for f in a.files],
        "file_details": [{"path": f.path, "version": f.version, "imported_by": f.imported_by}
                         for f in a.files],
        "runtimes": a.runtimes,
        "nvidia_dump_lines": nvidia_dump_lines(a),
        "default_runtime": a.default_runtime,
        "cdi": a.cdi,
        "sections": {name: {"writers": list(s.writers), "culprit": s.culprit,
                            "lost": [{"key": k.key, "value": k.value, "file": k.file,
                                      "culprit": k.culprit, "reason": k.reason}
                                     for k in s.lost]}
                     for name, s in sorted(a.sections.items())},
        "problems": [{"kind": p.kind.value, "path": p.path, "detail": p.detail,
                      "fatal": p.fatal} for p in a.problems],
        "notes": a.notes,
        "root_missing": a.root_missing,
        "unimported": a.unimported,
        "loads": not a.fatal,
    }


def _read_added(path: str) -> str:
    p = Path(path)
    try:
        if p.stat().st_size > MAX_FILE_BYTES:
            raise InputError(f"{path}: larger than {MAX_FILE_BYTES} bytes")
        return p.read_bytes().decode("utf-8")
    except FileNotFoundError as exc:
        raise InputError(f"{path}: no such file") from exc
    except UnicodeDecodeError as exc:
        raise InputError(f"{path}: not UTF-8 text") from exc
    except OSError as exc:
        raise InputError(f"{path}: {exc.strerror or exc}") from exc


def _read_small(path: Path | None) -> str | None:
    """A bundle node's ``cmd/containerd-version.txt`` next to ``--root nodes/<n>/files``."""
    try:
        return path.read_text(errors="replace")[:4096] if path and path.is_file() else None
    except OSError:
        return None


def _local_version() -> str | None:
    """This host's ``containerd --version`` when the tree is this host's own."""
    exe = shutil.which("containerd")
    if exe is None:
        return None
    try:
        p = subprocess.run([exe, "--version"], capture_output=True, text=True, timeout=10,
                           check=False)
    except (OSError, subprocess.SubprocessError):
        return None
    return p.stdout if p.returncode == 0 else None


def _print(a: Analysis, title: str) -> None:
    con = out_console()
    con.print(Text(title, style="bold underline"))
    rv = a.version
    con.print(Text(f"containerd {rv.text} ({'assumed' if rv.assumed else rv.source}); "
                   f"merge rules {rv.line}; merged config version {a.config_version}"))
    render_text.print_table(con, "Files in merge order", ["#", "file", "version", "imported by"],
                            ([i + 1, f.path, f.version or "-", f.imported_by or "(root)"]
                             for i, f in enumerate(a.files)), right=("#",))
    render_text.print_table(con, "Plugin sections", ["section", "written by", "effective from",
                                                     "lost keys"],
                            ([name, ", ".join(posixpath.basename(w) for w in s.writers),
                              s.culprit, len(s.lost)] for name, s in sorted(a.sections.items())),
                            right=("lost keys",))
    if a.lost:
        render_text.print_table(con, "Lost settings", ["section", "key", "set in", "lost by",
                                                       "why"],
                                ([k.section, k.key, k.file, k.culprit, k.reason]
                                 for k in a.lost))
    for p in a.fatal:
        who = ("the CRI plugin would not load" if p.kind is ProblemKind.CRI_DEFAULT_RUNTIME
               else "containerd would not start with this config")
        con.print(Text(f"{who}: {p.path}: {p.detail} (the values below are the merge up to "
                       "that point)", style="bold red"))
    con.print(Text(f"runtime handlers: {', '.join(a.runtimes) or 'none'}"))
    lines = nvidia_dump_lines(a)
    con.print(Text("`containerd config dump | grep -c runtimes.nvidia` would show: "
                   + (str(lines) if lines is not None else "nothing (the dump fails)")))
    con.print(Text(f"default runtime: {a.default_runtime}"))
    con.print(Text(f"CDI: {a.cdi or 'not supported by this version'}"))
    for n in a.notes:
        con.print(Text(f"note: {n}", style="yellow"))


def _what_if_json(ch: NodeChange) -> dict[str, Any]:
    before, after = ch.before, ch.after
    assert before is not None and after is not None
    old = {(k.section, k.key, k.file) for k in before.lost}
    wiped = [k for k in after.lost if (k.section, k.key, k.file) not in old]
    p = ch.refused
    return {
        "placed_as": ch.placed_as, "appended": ch.appended, "removed": ch.removed,
        "runtimes_before": before.runtimes, "runtimes_after": after.runtimes,
        "default_runtime_before": before.default_runtime,
        "default_runtime_after": after.default_runtime,
        "runtimes_removed": ch.handlers_lost, "runtimes_added": ch.handlers_gained,
        "nvidia_dump_lines_before": nvidia_dump_lines(before),
        "nvidia_dump_lines_after": nvidia_dump_lines(after),
        "settings_changed": [{"setting": k, "before": b, "after": a}
                             for k, b, a in ch.settings_changed],
        "refused": None if p is None else {"kind": p.kind.value, "file": p.path,
                                           "detail": p.detail, "daemon": p.daemon},
        "outcome": ch.outcome,
        "wiped": [{"section": k.section, "key": k.key, "file": k.file, "reason": k.reason}
                  for k in wiped],
    }


def _new_findings(ch: NodeChange, subject: Subject) -> list[Finding]:
    assert ch.before is not None and ch.after is not None
    seen = {(f.code, f.message) for f in analysis_findings(ch.before, subject)}
    return [f for f in analysis_findings(ch.after, subject) if (f.code, f.message) not in seen]


def _fleet(bundle: str, add: tuple[str, str, str] | None, remove: tuple[str, ...],
           output: str) -> int:
    """``--bundle``: the change on every node, each with its own version and files."""
    from gpuxray.engines.nodefacts import hosts_for_checks
    from gpuxray.sources.bundle import open_bundle

    changes: list[NodeChange] = []
    findings: list[Finding] = []
    with open_bundle(bundle) as snap:
        for host in hosts_for_checks(snap).values():
            node = snap.node_by_name.get(host.node)
            hint = node.status.node_info.container_runtime_version if node is not None else ""
            ch = change_host(host, hint or None, add=add, remove=remove)
            changes.append(ch)
            if ch.after is not None:
                findings += _new_findings(ch, Subject("Node", host.node))
    if not changes:
        raise InputError(f"{bundle}: no nodes/ with host files in the bundle")
    groups = group(changes)
    head = headline(changes)
    code = 1 if any(c.loses_nvidia for c in changes) else 0
    if output == "json":
        doc = {"what_if": {
            "file": add[2] if add else None, "remove": list(remove), "headline": head,
            "nodes_total": len(changes),
            "nodes_breaking": sum(c.loses_nvidia for c in changes),
            "groups": [{"outcome": g.outcome, "count": len(g.nodes), "nodes": list(g.nodes),
                        "containerd_versions": list(g.versions),
                        "handlers_lost": list(g.handlers_lost),
                        "handlers_gained": list(g.handlers_gained),
                        "settings_changed": list(g.settings), "detail": g.detail}
                       for g in groups],
            "nodes": [{"node": c.node,
                       "containerd_version": c.version.text if c.version else None,
                       "containerd_version_source": c.version.source if c.version else None,
                       "version_assumed": c.version.assumed if c.version else None,
                       "outcome": c.outcome, "reason": c.reason or None,
                       **(_what_if_json(c) if c.after is not None else {})}
                      for c in changes]}}
        click.echo(render_json.render(sort_findings(findings), doc), nl=False)
        return code
    con = out_console()
    what = " and ".join(([f"adding {add[2]}"] if add else [])
                        + ([f"removing {', '.join(remove)}"] if remove else []))
    con.print(Text(f"What-if for {len(changes)} node(s) of {bundle}: {what}",
                   style="bold underline"))
    rows = []
    for g in groups:
        more = f" (+{len(g.nodes) - 8})" if len(g.nodes) > 8 else ""
        rows.append([g.outcome, f"{len(g.nodes)}: {', '.join(g.nodes[:8])}{more}",
                     ", ".join(g.versions) or "-", ", ".join(g.handlers_lost) or "-",
                     ", ".join(g.handlers_gained) or "-", ", ".join(g.settings) or "-",
                     g.detail or ""])
    render_text.print_table(con, "Outcome per group of nodes",
                            ["outcome", "nodes", "containerd", "handlers lost",
                             "handlers gained", "settings reset", "detail"], rows)
    con.print(Text(head, style="bold red" if code else "bold"))
    return code


def _host_distribution(base: Path) -> Distribution | None:
    """k3s/RKE2 when the host tree holds the file that distribution renders for its own
    containerd (knowledge/distributions.py), as the bundle engine decides."""
    return rendered_distribution(lambda path: (base / path.lstrip("/")).is_file())


@click.command("containerd")
@click.option("--root", "root_dir", type=click.Path(file_okay=False), default=None,
              help="Read the host tree under DIR (DIR/etc/containerd/config.toml and imports); "
                   "a bundle's nodes/<node>/files works too (its cmd/containerd-version.txt "
                   "gives the version).")
@click.option("--config", "config_path", default=None,
              help="The root config file (default /etc/containerd/config.toml, or the "
                   "k3s/RKE2 rendered config under /var/lib/rancher where that exists).")
@click.option("--containerd-version", "ctd_version", default=None,
              help="containerd version to simulate (e.g. 1.7.27, 2.1.4); default: assumed.")
@click.option("--add", "add_file", type=click.Path(dir_okay=False), default=None,
              help="What-if: add FILE as a drop-in and show what changes.")
@click.option("--remove", "remove", multiple=True,
              help="What-if: remove the drop-in NAME (a file name, or an absolute host path); "
                   "repeatable.")
@click.option("--bundle", "-b", "bundle", type=click.Path(), default=None,
              help="Fleet what-if: apply --add/--remove to every node of this bundle, each "
                   "with its own containerd version and files; exit 1 when a node would lose "
                   "the nvidia handler.")
@output_option()
@fail_on_option
def command(root_dir: str | None, config_path: str | None, ctd_version: str | None,
            add_file: str | None, remove: tuple[str, ...], bundle: str | None, output: str,
            fail_on: str) -> int:
    """Simulate containerd's config merge: sections, lost keys, runtime handlers.

    Malformed or refused configs are reported as GX509 findings (exit 1). With --bundle, the
    --add/--remove change is predicted for every node and grouped by outcome.
    """
    add = None
    if add_file is not None:
        add = (posixpath.basename(add_file), _read_added(add_file), add_file)
    if bundle is not None:
        if root_dir is not None or config_path is not None or ctd_version is not None:
            raise UsageError("--bundle takes each node's own files and version: no --root, "
                             "--config or --containerd-version with it")
        if add is None and not remove:
            raise UsageError("--bundle needs --add FILE and/or --remove NAME")
        return _fleet(bundle, add, remove, output)
    if root_dir is not None and not Path(root_dir).is_dir():
        raise InputError(f"{root_dir}: not a directory")
    reader: ConfigReader = DirReader(root_dir or "/")
    dist = _host_distribution(Path(root_dir or "/"))
    root = posixpath.normpath(config_path or (dist.config if dist else ROOT_CONFIG))
    # the distribution's own drop-in glob only when its rendered file is the root read
    dropins = dropin_dirs(dist) if dist is not None and root == dist.config else None
    if not posixpath.isabs(root):
        if root_dir is not None:
            raise UsageError("--config must be an absolute host path when --root is given")
        root = posixpath.normpath(posixpath.join(os.getcwd(), root))
    bundle_cmd = Path(root_dir).parent / "cmd" / "containerd-version.txt" if root_dir else None
    rv = resolve_version((ctd_version, "--containerd-version"),
                         (_read_small(bundle_cmd), str(bundle_cmd)),
                         (None if root_dir else _local_version(), "containerd --version"))
    if ctd_version and rv.assumed:
        raise UsageError(f"--containerd-version {ctd_version!r} is not a version")
    before = analyse(reader, rv, root, dropin_dirs=dropins)
    if before.root_missing and config_path is not None:
        raise InputError(f"{root}: no such file")
    subject = Subject("Node", Path(root_dir).resolve().name if root_dir else os.uname().nodename)
    extra: dict[str, Any] = analysis_json(before)
    shown = before
    if add is not None or remove:
        ch = change_tree(reader, rv, add=add, remove=remove, root=root, dropins=dropins)
        assert ch.after is not None
        shown = ch.after
        extra = analysis_json(shown)
        extra["what_if"] = {"file": add_file, **_what_if_json(ch)}
    findings: list[Finding] = sort_findings(analysis_findings(shown, subject))
    if output == "json":
        click.echo(render_json.render(findings, extra), nl=False)
        return exit_code(findings, severity(fail_on))
    if shown is not before:
        _print(before, f"Before: {root}")
        wi = extra["what_if"]
        what = " ".join(([f"adding {add_file} as {wi['placed_as']}"
                          + (" (appended to imports)" if wi["appended"] else "")]
                         if add_file else [])
                        + ([f"removing {', '.join(wi['removed']) or '(nothing matched)'}"]
                           if remove else []))
        _print(shown, f"After {what}")
        con = out_console()
        con.print(Text(f"handlers before: {wi['runtimes_before']}  after: "
                       f"{wi['runtimes_after']}", style="bold"))
        for w in wi["wiped"]:
            con.print(Text(f"would wipe {w['section']}.{w['key']} (set in {w['file']})",
                           style="red"))
    else:
        _print(before, f"containerd config: {root}"
               + (f" under {root_dir}" if root_dir else ""))
    render_text.print_findings(out_console(), findings)
    return exit_code(findings, severity(fail_on))
