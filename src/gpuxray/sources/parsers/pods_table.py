"""``kubectl get pods [-A] [-o wide]`` as pasted → one row per pod, and the Pod it stands for.

Why: a ticket's pods table is the operand state per node that the operator checks read (seed
§1, §4: the driver pod crash-looping, every later operand in ``Init:0/1``). Pasted tables are
rarely intact: the header is cut (``| grep nvidia``), tabs or a chat client shift the columns
(so cutting at the header's positions, as :mod:`wide` does for must-gather's own files, reads
the wrong cells), a STATUS holds spaces (an old scheduler reason ``requested number of GPUs
unavailable. Requested: 4, Available: 0``). So a row is read by its cells' shapes instead:
``[NAMESPACE] NAME READY STATUS RESTARTS AGE [IP NODE NOMINATED-NODE READINESS-GATES]``, where
READY is ``n/m`` and RESTARTS a count (``4 (65s ago)`` since kubectl 1.22).

The STATUS column is what kubectl's pod printer derives from the pod's phase, reason and
container states (kubernetes/kubernetes@v1.34.0:pkg/printers/internalversion/printers.go
``printPod``): ``Init:<reason>`` / ``Init:<done>/<total>`` for a waiting init container, a
container's waiting or terminated reason, else the pod's reason or phase. :func:`row_pod`
inverts that mapping, so the checks read the same fields kubectl read to print the row; what
the row does not show (container names, images, messages) stays empty.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from gpuxray.model import k8s

__all__ = ["PodRow", "parse_pods_table", "row_pod"]

MAX_ROW = 512  # a real row is under 300 characters; longer lines are not rows

_RFC1123 = r"[a-z0-9](?:[a-z0-9.-]{0,251}[a-z0-9])?"
_ROW = re.compile(
    rf"^(?:(?P<ns>{_RFC1123})\s+)?(?P<name>{_RFC1123})\s+(?P<ready>\d{{1,3}}/\d{{1,3}})\s+"
    r"(?P<status>\S.{0,200}?)\s+(?P<restarts>\d{1,9}(?: \([^)\s]{1,20} ago\))?)\s+"
    r"(?P<age>(?:\d{1,6}[smhdy])+|<unknown>|<invalid>)(?:\s+(?P<rest>.*))?$")
_HEADER = re.compile(r"^\s*(?:NAMESPACE\s+)?NAME\s+READY\s+STATUS\s+RESTARTS\s+AGE\b")
# kubectl's own waiting reasons that come with phase Pending (the pod never ran); any other
# waiting reason (CrashLoopBackOff, RunContainerError) is printed for a pod that started
_PENDING_WAITS = frozenset({"ContainerCreating", "PodInitializing", "ImagePullBackOff",
                            "ErrImagePull", "CreateContainerConfigError", "InvalidImageName",
                            "CreateContainerError", "ErrImageNeverPull"})
_WAITS = _PENDING_WAITS | {"CrashLoopBackOff", "RunContainerError", "PostStartHookError",
                           "PreStartHookError"}
_TERMINATED = {"Error": 1, "OOMKilled": 137, "Completed": 0, "ContainerCannotRun": 128,
               "DeadlineExceeded": 1, "StartError": 128}


@dataclass(frozen=True, slots=True)
class PodRow:
    namespace: str  # "" when the table has no NAMESPACE column
    name: str
    ready: tuple[int, int]
    status: str
    restarts: int
    node: str  # "" without -o wide (or <none>)
    lineno: int


def parse_pods_table(text: str) -> list[PodRow]:
    """Pod rows of ``text``: every line of the row shape, with or without a header (a table
    cut by ``grep`` has none). A header without ``NAMESPACE`` means the first cell is the name
    even where a row's shape would allow two."""
    out: list[PodRow] = []
    has_ns: bool | None = None
    for i, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        if len(line) > MAX_ROW or not line:
            continue
        h = _HEADER.match(line)
        if h:
            has_ns = line.startswith("NAMESPACE")
            continue
        m = _ROW.match(line)
        if not m:
            continue
        if m.group("status").isdigit():
            continue  # ``NAME READY UP-TO-DATE AVAILABLE AGE``: a Deployment's row, not a pod's
        ns, name = m.group("ns") or "", m.group("name")
        if has_ns is False and ns:
            continue  # a name column only: two cells before READY is not a row of this table
        if has_ns and not ns:
            continue
        rest = (m.group("rest") or "").split()
        node = rest[1] if len(rest) >= 2 and rest[1] != "<none>" else ""
        a, b = m.group("ready").split("/")
        restarts = int(m.group("restarts").split()[0])
        out.append(PodRow(ns, name, (int(a), int(b)), m.group("status").strip(), restarts,
                          node, i))
    return out


def _waiting(reason: str, restarts: int) -> k8s.ContainerStatus:
    return k8s.ContainerStatus(restart_count=restarts, state=k8s.ContainerState(
        waiting=k8s.ContainerStateWaiting(reason=reason)))


def _running(ready: bool, restarts: int = 0) -> k8s.ContainerStatus:
    return k8s.ContainerStatus(ready=ready, restart_count=restarts,
                               state=k8s.ContainerState(running=k8s.ContainerStateRunning()))


def _terminated(reason: str, restarts: int = 0) -> k8s.ContainerStatus:
    code = _TERMINATED.get(reason, 1)
    m = re.fullmatch(r"(?:ExitCode|Signal):(\d{1,3})", reason)
    if m:
        code = int(m.group(1)) + (128 if reason.startswith("Signal") else 0)
    return k8s.ContainerStatus(restart_count=restarts, state=k8s.ContainerState(
        terminated=k8s.ContainerStateTerminated(reason=reason, exit_code=code)))


def row_pod(row: PodRow, namespace: str, node: str) -> k8s.Pod:
    """The Pod a row stands for (``printPod`` inverted): phase, reason, init and container
    states, readiness and restarts as kubectl read them to print the row."""
    ready, total = row.ready
    total = max(total, ready, 1)
    status = row.status
    pod = k8s.Pod(metadata=k8s.ObjectMeta(name=row.name, namespace=namespace),
                  spec=k8s.PodSpec(node_name=node))
    st = pod.status
    containers: list[k8s.ContainerStatus]
    if status.startswith("Init:"):
        what = status[5:]
        m = re.fullmatch(r"(\d{1,3})/(\d{1,3})", what)
        if m:
            done, n = int(m.group(1)), max(int(m.group(2)), int(m.group(1)) + 1)
            inits = [_terminated("Completed") for _ in range(done)] + [_running(False)] + \
                [k8s.ContainerStatus(state=k8s.ContainerState(
                    waiting=k8s.ContainerStateWaiting(reason="PodInitializing")))
                 for _ in range(n - done - 1)]
        elif what in _WAITS:
            inits = [_waiting(what, row.restarts)]
        else:
            inits = [_terminated(what, row.restarts)]
        for i, s in enumerate(inits):
            s.name = f"<init {i + 1}>"  # the row does not name them
        pod.spec.init_containers = [k8s.Container(name=s.name) for s in inits]
        st.phase = "Pending"
        st.init_container_statuses = inits
        containers = [_waiting("PodInitializing", 0) for _ in range(total)]
    elif status == "Running":
        st.phase = "Running"
        containers = [_running(i < ready, row.restarts if i == 0 else 0) for i in range(total)]
    elif status in _WAITS:
        st.phase = "Pending" if status in _PENDING_WAITS and row.restarts == 0 else "Running"
        containers = [_running(True) for _ in range(ready)] + \
            [_waiting(status, row.restarts)] + [_running(False) for _ in range(total - ready - 1)]
    elif status in _TERMINATED or status.startswith(("ExitCode:", "Signal:")):
        st.phase = "Succeeded" if status == "Completed" else (
            "Running" if row.restarts else "Failed")
        containers = [_running(True) for _ in range(ready)] + \
            [_terminated(status, row.restarts) for _ in range(total - ready)]
    elif status == "Terminating":
        st.phase = "Running"
        pod.metadata.deletion_timestamp = "unknown"
        containers = [_running(i < ready) for i in range(total)]
    elif status in ("Pending", "Succeeded", "Failed", "Unknown"):
        st.phase = status
        containers = []
    else:
        # the pod's own reason (UnexpectedAdmissionError, OutOfnvidia.com/gpu, Evicted,
        # NodeAffinity): kubelet rejected or evicted it, phase Failed
        st.phase, st.reason = "Failed", status
        containers = []
    for i, s in enumerate(containers):
        s.name = s.name or f"<container {i + 1}>"
    st.container_statuses = containers
    return pod
