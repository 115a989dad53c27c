"""The node agent's wire format: one host's ``HostFacts`` as one JSON line on stdout.

``gpuxray node -o bundle-json`` prints it; ``collect --node-agent`` reads it back from the agent
pod's log and writes BUNDLE.md ``nodes/<node>/files|cmd`` with :func:`~.host.save_host`. One
line, tagged with a format name, so the reader can pick it out of a log that may also hold
stderr lines (kubelet interleaves both streams) and can reject anything else.
"""

from __future__ import annotations

from typing import Any

import msgspec

from gpuxray.model.snapshot import HostFacts

WIRE_FORMAT = "gpuxray-node-facts/1"
_PREFIX = b'{"format":"' + WIRE_FORMAT.encode() + b'"'


class WireFacts(msgspec.Struct, forbid_unknown_fields=False):
    format: str
    node: str
    files: dict[str, str] = {}
    cmds: dict[str, str] = {}
    cmd_errors: dict[str, str] = {}
    unreadable: dict[str, str] = {}
    notes: list[str] = []


_DECODER = msgspec.json.Decoder(WireFacts)


# The kubelet rotates a container's log at ``containerLogMaxSize`` (10 MiB by default) and the
# logs endpoint serves the current file only: the line must stay well below that.
WIRE_BUDGET_CHARS = 6 << 20
MIN_TRIM = 4096


def fit(cmds: dict[str, str], files: dict[str, str], notes: list[str],
        budget: int = WIRE_BUDGET_CHARS) -> dict[str, str]:
    """``cmds`` with the largest outputs (journal, dmesg) cut to their most recent half until
    everything fits ``budget``; each cut is noted. Files are left whole (each is already capped
    by the node source, and the containerd configs are the point)."""
    out = dict(cmds)
    fixed = sum(len(v) for v in files.values())
    while fixed + sum(len(v) for v in out.values()) > budget:
        name = max(out, key=lambda k: len(out[k]), default=None)
        if name is None or len(out[name]) < MIN_TRIM:
            break
        text = out[name][len(out[name]) // 2:]
        out[name] = text[text.find("\n") + 1:]
        notes.append(f"{name}: kept the last {len(out[name])} characters to fit the pod log")
    return out


def encode(facts: HostFacts, notes: list[str], budget: int = WIRE_BUDGET_CHARS) -> bytes:
    """One line (no newline inside: JSON escapes them), ``format`` first."""
    notes = list(notes)
    cmds = fit(facts.cmds, facts.files, notes, budget)
    doc: dict[str, Any] = {"format": WIRE_FORMAT, "node": facts.node, "files": facts.files,
                           "cmds": cmds, "cmd_errors": facts.cmd_errors,
                           "unreadable": dict(facts.unreadable), "notes": notes}
    return msgspec.json.encode(doc) + b"\n"


class WireError(ValueError):
    """The log holds no (valid) facts line."""


def decode(log: bytes) -> tuple[HostFacts, list[str]]:
    """The last facts line of ``log`` (a pod log), or WireError saying why there is none."""
    for line in reversed(log.splitlines()):
        line = line.strip()
        if not line.startswith(_PREFIX):
            continue
        try:
            w = _DECODER.decode(line)
        except (msgspec.DecodeError, msgspec.ValidationError) as exc:
            raise WireError(f"malformed node facts ({str(exc).splitlines()[0]})") from exc
        return HostFacts(w.node, w.files, w.cmds, w.cmd_errors, w.unreadable), w.notes
    tail = log.decode("utf-8", "replace").strip().splitlines()
    last = tail[-1][:200] if tail else "empty log"
    raise WireError(f"no node facts in the agent's log (last line: {last})")
