"""Every text a bundle holds about one pod, with where it came from, scanned for signatures.

A failure shows up in one of three places depending on when it happened (seed §4): the pod's
events (sandbox/create errors from the kubelet), its container statuses (``waiting``/``terminated``
messages and ``lastState`` of a crash-looping container), and its logs (current and previous).
Gathering them in one place keeps the checks and ``why`` on the same evidence.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
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


def _texts(snap: Snapshot, pod: Pod, logs: bool,
           bodies: dict[str, str]) -> Iterator[tuple[str, str, str, str]]:
    """(source, where, container, text) of every text known about ``pod``, in the order
    :func:`pod_texts` gives them; a log's body is cut once per distinct log text
    (``bodies``: bundle sources share one string among the pods that logged the same)."""
    ns = pod.metadata.namespace or "default"
    name = pod.metadata.name
    ev_src = snap.source(Input.EVENTS)
    for e in snap.events_by_object.get(("Pod", ns, name), ()):
        if e.type != "Normal":  # Scheduled/Pulled/Started: never an error line
            yield ev_src, "event", "", f"{e.reason}: {e.message}"
    pods_src = snap.source(Input.PODS)
    status = pod.status
    for statuses in (status.init_container_statuses, status.container_statuses):
        for st in statuses:
            for state in (st.state, st.last_state):
                if state.waiting is not None or state.terminated is not None:
                    for line in _state_texts(state):
                        yield pods_src, "status", st.name, line
    if status.message:
        yield pods_src, "status", "", f"{status.reason}: {status.message}"
    if not logs:
        return
    for log in snap.logs_by_pod.get((ns, name), ()):
        for raw, suffix in ((log.current, ".log"), (log.previous, ".previous.log")):
            if not raw:
                continue
            body = bodies.get(raw)
            if body is None:
                body = bodies[raw] = log_body(raw)
            yield f"logs/{ns}/{name}/{log.container}{suffix}", "log", log.container, body


def pod_texts(snap: Snapshot, pod: Pod, *, logs: bool = True) -> Iterator[PodText]:
    """Every text known about ``pod`` (its non-Normal events, container states, status
    message and logs), with where each came from: the texts :func:`scan_pods` scans."""
    for source, where, container, text in _texts(snap, pod, logs, {}):
        yield PodText(source, where, container, text)


@dataclass(frozen=True, slots=True)
class PodMatch:
    match: Match
    text: PodText

    @property
    def evidence(self) -> Evidence:
        where = f"container {self.text.container}: " if self.text.container else ""
        return Evidence(self.text.source, f"{where}{self.match.line}")


def scan_pod(snap: Snapshot, pod: Pod, *, logs: bool = True) -> list[PodMatch]:
    """Signature matches in everything known about ``pod`` (events, statuses, logs): those of
    each text of :func:`pod_texts`, in its order (:func:`scan_pods` for one pod)."""
    return scan_pods(snap, (pod,), logs=logs)[0]


def scan_pods(snap: Snapshot, pods: Iterable[Pod], *,
              logs: bool = True) -> list[list[PodMatch]]:
    """:func:`scan_pod` of each pod, in order.

    Each distinct text is scanned once per snapshot: a fleet repeats the same event messages,
    container states and healthy operand logs on thousands of pods, and a match depends only
    on the text (its ``origin`` is set to where this copy came from). The texts are walked
    here without building a :class:`PodText` for those that match nothing, and a log's body
    is cut once per distinct log text (bundle sources share one string among the pods that
    logged the same): of a fleet's 18k scanned pods, 16k operands with a healthy log, most of
    the time went to gathering texts that match nothing, not to the scan."""
    m = default_matcher()
    seen: dict[str, list[Match]] = memo(snap, ("podtext-scan", id(m)), dict)
    bodies: dict[str, str] = memo(snap, "podtext-log-bodies", dict)
    scan = m.scan_text
    result: list[list[PodMatch]] = []
    for pod in pods:
        out: list[PodMatch] = []
        result.append(out)
        for source, where, container, text in _texts(snap, pod, logs, bodies):
            found = seen.get(text)
            if found is None:
                found = seen[text] = scan(text)
            if found:  # a PodText only for a text that matched
                t = PodText(source, where, container, text)
                for match in found:
                    out.append(PodMatch(replace(match, origin=source) if source else match, t))
    return result


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
