"""``collect`` options for node facts: ``--node-agent`` (writes, opt-in, confirmed),
``--via-operands`` (pods/exec, read-only commands) and ``--node-agent-cleanup``."""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any, TypeVar

import click

from gpuxray.cli.common import err_console
from gpuxray.errors import UsageError
from gpuxray.knowledge import agent_manifests as am

F = TypeVar("F", bound=Callable[..., Any])

_OPTIONS: tuple[Callable[[F], F], ...] = (
    click.option("--node-agent", is_flag=True, default=False,
                 help="Also collect node files/journal/dmesg by running a short-lived DaemonSet "
                      "in a namespace of its own (WRITES to the cluster; deleted at the end)."),
    click.option("--via-operands", is_flag=True, default=False,
                 help="Also collect node files through the GPU Operator's pods (pods/exec, "
                      "cat/ls only; writes nothing)."),
    click.option("--node-agent-cleanup", is_flag=True, default=False,
                 help="Delete expired gpuxray-agent-* namespaces (with --all-agents: every one) "
                      "and exit."),
    click.option("--all-agents", "cleanup_all", is_flag=True, default=False,
                 help="With --node-agent-cleanup: delete every agent namespace, expired or not."),
    click.option("--nodes", "selector", default=am.DEFAULT_SELECTOR, show_default=True,
                 help="Node label selector (key=value[,key=value]) for the agent."),
    click.option("--image", default=am.DEFAULT_IMAGE, show_default=True,
                 help="Node agent image (deploy/node-agent/Dockerfile)."),
    click.option("--all-taints", is_flag=True, default=False,
                 help="Tolerate every NoSchedule/NoExecute taint, not only nvidia.com/gpu."),
    click.option("--yes", "-y", is_flag=True, default=False,
                 help="Do not ask before writing to the cluster (required without a TTY)."),
    click.option("--timeout", "node_timeout", type=click.FloatRange(min=0.1), default=300.0,
                 show_default=True, help="Seconds each node's agent has to report."),
    click.option("--parallel", type=click.IntRange(min=1, max=256), default=16,
                 show_default=True, help="Concurrent agent log reads."),
    click.option("--poll", type=click.FloatRange(min=0.01), default=2.0, hidden=True),
)


def agent_options(fn: F) -> F:
    for opt in reversed(_OPTIONS):
        fn = opt(fn)
    return fn


def _confirm(what: str, yes: bool) -> None:
    """Say that we write; ask y/N on a TTY; refuse without --yes otherwise."""
    con = err_console()
    con.print(f"gpuxray: {what}", markup=False, highlight=False)
    if yes:
        return
    if not sys.stdin.isatty():
        raise UsageError("refusing to write to the cluster without --yes (stdin is not a TTY)")
    if not click.confirm("Proceed?", default=False, err=True):
        raise UsageError("aborted: nothing was written")


def node_step(opts: dict[str, Any]) -> Callable[[Any], Any] | None:
    """The ``collect`` node-facts step the options ask for (None: cluster objects only)."""
    from gpuxray.sources.agent import AgentOptions, agent_step, operands_step

    if opts["node_agent"] and opts["via_operands"]:
        raise UsageError("--node-agent and --via-operands are alternatives: pick one")
    if opts["via_operands"]:
        return operands_step
    if not opts["node_agent"]:
        return None
    try:
        am.parse_selector(opts["selector"])
    except ValueError as exc:
        raise UsageError(str(exc)) from exc
    _confirm(f"--node-agent WRITES to the cluster: it creates a namespace "
             f"{am.NAMESPACE_PREFIX}<random> holding a DaemonSet ({opts['image']}) on nodes "
             f"{opts['selector']}, reads its pods' logs, then deletes the namespace.",
             opts["yes"])
    ao = AgentOptions(selector=opts["selector"], image=opts["image"],
                      all_taints=opts["all_taints"], timeout_s=opts["node_timeout"],
                      parallel=opts["parallel"], poll_s=opts["poll"])
    return lambda transport: agent_step(transport, ao)


def cleanup_command(kubeconfig: str | None, context: str | None, quiet: bool,
                    opts: dict[str, Any]) -> int:
    from gpuxray.sources.agent import cleanup_stale
    from gpuxray.sources.agent_writes import ClusterWrites, KubeWriteTransport
    from gpuxray.sources.live import DEFAULT_POLICY, Client, Progress, kube_transport

    _confirm("--node-agent-cleanup DELETES expired gpuxray-agent-* namespaces "
             "(labelled app.kubernetes.io/managed-by=gpuxray).", opts["yes"])
    transport, _name = kube_transport(kubeconfig, context)
    progress = Progress(quiet)
    deleted = cleanup_stale(Client(transport, DEFAULT_POLICY),
                            ClusterWrites(KubeWriteTransport(transport.api, transport.host)),
                            progress, all_agents=opts["cleanup_all"])
    progress.line(f"gpuxray: {len(deleted)} namespace(s) deleted")
    return 0
