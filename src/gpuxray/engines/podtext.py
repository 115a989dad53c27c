"""Every text a bundle holds about one pod, with where it came from, scanned for signatures.

A failure shows up in one of three places depending on when it happened (seed §4): the pod's
events (sandbox/create errors from the kubelet), its container statuses (``waiting``/``terminated``
messages and ``lastState`` of a crash-looping container), and its logs (current and previous).
Gathering them in one place keeps the checks and ``why`` on the same evidence.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, replace

from gpuxray.engines.signatures import Match, default_matcher
from gpuxray.model.finding import Evidence
from gpuxray.model.k8s import ContainerState, Pod
from gpuxray.model.snapshot import Input, Snapshot, memo

MAX_LOG_LINES = 4000  # the tail of each log is enough: failures are at the end


@dataclass(frozen=True, slots=True)
class PodText:
    source: str  # evidence source (file path)
    where: str  # "event", "status" or "log"
    container: str
    text: str


def _state_texts(state: ContainerState) -> Iterator[str]:
    if state.waiting and (state.waiting.reason or state.waiting.message):
        yield f"{state.waiting.reason}: {state.waiting.message}".strip(": ")
    if state.terminated and (state.terminated.reason or state.terminated.message):
        yield (f"{state.terminated.reason} (exit {state.terminated.exit_code}): "
               f"{state.terminated.message}").strip(": ")


#: every separator ``str.splitlines`` cuts at but "\n"
_OTHER_BREAKS = re.compile("[\r\v\f\x1c\x1d\x1e\x85\u2028\u2029]")


def log_body(text: str) -> str:
    """The last ``MAX_LOG_LINES`` lines of a log, joined by "\n" (``splitlines`` then join).

    Most operand logs are short and plain: for them that is the text itself less one final
    newline, found with two C-speed scans instead of a list of every line and a join (a fleet
    has 16k operand logs, each scanned once)."""
    if text.count("\n") < MAX_LOG_LINES and not _OTHER_BREAKS.search(text):
        return text[:-1] if text.endswith("\n") else text
    return "\n".join(text.splitlines()[-MAX_LOG_LINES:])


def pod_texts(snap: Snapshot, pod: Pod, *, logs: bool = True) -> Iterator[PodText]:
    ns = pod.metadata.namespace or "default"
    name = pod.metadata.name
    for e in snap.events_for("Pod", ns, name):
        if e.type == "Normal":
            continue  # Scheduled/Pulled/Started: never an error line
        yield PodText(snap.source(Input.EVENTS), "event", "", f"{e.reason}: {e.message}")
    pods_src = snap.source(Input.PODS)
    for st in (*pod.status.init_container_statuses, *pod.status.container_statuses):
        for state in (st.state, st.last_state):
            for t in _state_texts(state):
                yield PodText(pods_src, "status", st.name, t)
    if pod.status.message:
        yield PodText(pods_src, "status", "", f"{pod.status.reason}: {pod.status.message}")
    if not logs:
        return
    for log in snap.logs_of(ns, name):
        for text, suffix in ((log.current, ".log"), (log.previous, ".previous.log")):
            if not text:
                continue
            src = f"logs/{ns}/{name}/{log.container}{suffix}"
            yield PodText(src, "log", log.container, log_body(text))


@dataclass(frozen=True, slots=True)
class PodMatch:
    match: Match
    text: PodText

    @property
    def evidence(self) -> Evidence:
        where = f"container {self.text.container}: " if self.text.container else ""
        return Evidence(self.text.source, f"{where}{self.match.line}")


def scan_pod(snap: Snapshot, pod: Pod, *, logs: bool = True) -> list[PodMatch]:
    """Signature matches in everything known about ``pod`` (events, statuses, logs).

    Each distinct text is scanned once per snapshot: a fleet repeats the same event messages,
    container states and healthy operand logs on thousands of pods, and a match depends only
    on the text (its ``origin`` is set to where this copy came from)."""
    m = default_matcher()
    seen: dict[str, list[Match]] = memo(snap, ("podtext-scan", id(m)), dict)
    out: list[PodMatch] = []
    for t in pod_texts(snap, pod, logs=logs):
        found = seen.get(t.text)
        if found is None:
            found = seen[t.text] = m.scan_text(t.text)
        for match in found:
            out.append(PodMatch(replace(match, origin=t.source) if t.source else match, t))
    return out


def log_tail(snap: Snapshot, namespace: str, pod: str, container: str | None = None,
             n: int = 3) -> list[Evidence]:
    """The last ``n`` non-empty log lines of a pod (one container, or each), as evidence."""
    out: list[Evidence] = []
    for log in snap.logs_of(namespace, pod):
        if container and log.container != container:
            continue
        for text, suffix in ((log.current, ".log"), (log.previous, ".previous.log")):
            if not text:
                continue
            lines = list(dict.fromkeys(ln for ln in text.splitlines() if ln.strip()))[-n:]
            src = f"logs/{namespace}/{pod}/{log.container}{suffix}"
            out.extend(Evidence(src, ln[:500]) for ln in lines)
    return out
