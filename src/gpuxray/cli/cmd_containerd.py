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
from fnmatch import fnmatchcase
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
    OverlayReader,
    ProblemKind,
    analyse,
    resolve_version,
)
from gpuxray.engines.containerd.merge import import_patterns, nvidia_dump_lines
from gpuxray.engines.containerd.reader import MAX_FILE_BYTES
from gpuxray.errors import InputError, UsageError
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


def place_added(before: Analysis, name: str) -> tuple[str, bool]:
    """Where a drop-in named ``name`` lands: in the first import glob whose pattern its name
    matches (then its position is its sort order), else appended to the root's imports."""
    for pat in import_patterns(before):
        cand = posixpath.join(posixpath.dirname(pat), name)
        if fnmatchcase(cand, pat):
            return cand, False
    return posixpath.join(posixpath.dirname(before.root), name), True


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


@click.command("containerd")
@click.option("--root", "root_dir", type=click.Path(file_okay=False), default=None,
              help="Read the host tree under DIR (DIR/etc/containerd/config.toml and imports); "
                   "a bundle's nodes/<node>/files works too (its cmd/containerd-version.txt "
                   "gives the version).")
@click.option("--config", "config_path", default=None,
              help="The root config file (default /etc/containerd/config.toml).")
@click.option("--containerd-version", "ctd_version", default=None,
              help="containerd version to simulate (e.g. 1.7.27, 2.1.4); default: assumed.")
@click.option("--add", "add_file", type=click.Path(dir_okay=False), default=None,
              help="What-if: add FILE as a drop-in and show what changes.")
@output_option()
@fail_on_option
def command(root_dir: str | None, config_path: str | None, ctd_version: str | None,
            add_file: str | None, output: str, fail_on: str) -> int:
    """Simulate containerd's config merge: sections, lost keys, runtime handlers.

    Malformed or refused configs are reported as GX509 findings (exit 1).
    """
    if root_dir is not None and not Path(root_dir).is_dir():
        raise InputError(f"{root_dir}: not a directory")
    reader: ConfigReader = DirReader(root_dir or "/")
    root = posixpath.normpath(config_path or ROOT_CONFIG)
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
    before = analyse(reader, rv, root)
    if before.root_missing and config_path is not None:
        raise InputError(f"{root}: no such file")
    subject = Subject("Node", Path(root_dir).resolve().name if root_dir else os.uname().nodename)
    extra: dict[str, Any] = analysis_json(before)
    shown = before
    if add_file is not None:
        text = _read_added(add_file)
        vpath, appended = place_added(before, posixpath.basename(add_file))
        after = analyse(OverlayReader(reader, {vpath: (text, add_file)}), rv, root,
                        extra_imports=(vpath,) if appended else ())
        old = {(k.section, k.key, k.file) for k in before.lost}
        wiped = [k for k in after.lost if (k.section, k.key, k.file) not in old]
        extra = analysis_json(after)
        extra["what_if"] = {
            "file": add_file, "placed_as": vpath, "appended": appended,
            "runtimes_before": before.runtimes, "runtimes_after": after.runtimes,
            "default_runtime_before": before.default_runtime,
            "default_runtime_after": after.default_runtime,
            "runtimes_removed": [r for r in before.runtimes if r not in after.runtimes],
            "runtimes_added": [r for r in after.runtimes if r not in before.runtimes],
            "wiped": [{"section": k.section, "key": k.key, "file": k.file,
                       "reason": k.reason} for k in wiped],
        }
        shown = after
    findings: list[Finding] = sort_findings(analysis_findings(shown, subject))
    if output == "json":
        click.echo(render_json.render(findings, extra), nl=False)
        return exit_code(findings, severity(fail_on))
    if add_file is not None:
        _print(before, f"Before: {root}")
        wi = extra["what_if"]
        _print(shown, f"After adding {add_file} as {wi['placed_as']}"
               + (" (appended to imports)" if wi["appended"] else ""))
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
