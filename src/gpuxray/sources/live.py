"""The live source: read a cluster through its API, read-only, into the Snapshot a bundle gives.

Why this shape:

* Auth and kubeconfig handling (contexts, exec/OIDC plugins, in-cluster service account) come from
  the official ``kubernetes`` client's config loading; requests go through its ``ApiClient`` with
  ``_preload_content=False`` and the raw bytes are decoded by msgspec into the model Structs
  (DESIGN.md "Dependencies": the client's models are ~100× slower and reject partial objects).
* Only ``GET`` is ever sent: LIST with ``limit``/``continue`` pagination, ``/version`` and pod
  logs. The number of requests is O(resource kinds × pages) plus O(operand pods) for logs — never
  O(nodes), so a 2,000-node cluster costs a handful of requests per kind.
* Faults are bounded: 429 (honouring ``Retry-After``), 5xx, timeouts and dropped connections are
  retried with exponential backoff a fixed number of times; a 410 Gone on an expired ``continue``
  token restarts that list from the beginning, a bounded number of times. A list that still fails
  mid-way is never reported as complete: its input is "not collected" with the reason, so the
  checks that need it say *unknown* (BUNDLE.md "errors").
* 403/404 on a resource (RBAC, a CRD that is not installed) marks only that input not collected.

The same gathering drives ``gpuxray collect``: a *sink* per resource either decodes pages into
Structs (analysis) or streams the raw items to ``cluster/<resource>.json`` (collect).
"""

from __future__ import annotations

import contextlib
import http
import math
import os
import random
import time
from collections.abc import Callable, Collection, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, Generic, Protocol, TypeVar

import msgspec
from rich.console import Console

from gpuxray import __version__
from gpuxray.errors import SourceError
from gpuxray.model import dra, k8s
from gpuxray.model.snapshot import (
    NOT_REQUESTED,
    OPERATOR_NAMESPACE_DEFAULT,
    Input,
    InputState,
    Manifest,
    PodLog,
    Snapshot,
)
from gpuxray.sources.apiresources import BY_INPUT, RESOURCES, ApiResource, log_path

T = TypeVar("T")

BUNDLE_FORMAT = "gpuxray-bundle/1"
LOG_TAIL_LINES = 2000
LOG_LIMIT_BYTES = 1 << 20  # the bundle reader keeps the last MiB too
RETRYABLE_STATUS = frozenset({429, 500, 502, 503, 504})
USER_AGENT = f"gpuxray/{__version__} (read-only)"

# Fetch the small operator-identifying lists first: the operator namespace they reveal scopes
# the configmaps LIST and which pods' logs are read.
ORDER: tuple[str, ...] = ("daemonsets", "clusterpolicies", "nvidiadrivers", "nodes", "pods",
                          "events", "deployments", "replicasets", "statefulsets", "jobs",
                          "runtimeclasses", "resourcequotas", "configmaps", "deviceclasses",
                          "resourceslices", "resourceclaims", "resourceclaimtemplates",
                          "computedomains")


@dataclass(frozen=True)
class RetryPolicy:
    """Bounds on retrying one request and on restarting one list."""

    attempts: int = 6
    backoff_s: float = 0.5
    max_backoff_s: float = 8.0
    retry_after_cap_s: float = 30.0
    connect_timeout_s: float = 10.0
    read_timeout_s: float = 60.0
    page_size: int = 500
    list_restarts: int = 2

    def backoff(self, attempt: int) -> float:
        base = min(self.max_backoff_s, math.ldexp(self.backoff_s, attempt))
        return base * (0.75 + random.random() / 2)  # jitter: clients do not retry in lockstep


DEFAULT_POLICY = RetryPolicy()


class FetchError(Exception):
    """A request that failed for good. ``status`` 0 means no HTTP answer (network, timeout)."""

    def __init__(self, status: int, reason: str) -> None:
        super().__init__(reason)
        self.status = status
        self.reason = reason


class Transport(Protocol):
    """One HTTP GET against the API server: (status, headers, body), or ConnectionError."""

    host: str

    def get(self, path: str, query: list[tuple[str, str]], accept: str,
            timeout: tuple[float, float]) -> tuple[int, dict[str, str], bytes]: ...


# ----- the kubernetes client as a transport -------------------------------------------------
class KubeTransport:
    """Requests through the official client's ApiClient (its auth: tokens, exec plugins, TLS)."""

    def __init__(self, api_client: Any, host: str) -> None:
        self.api = api_client
        self.host = host

    def get(self, path: str, query: list[tuple[str, str]], accept: str,
            timeout: tuple[float, float]) -> tuple[int, dict[str, str], bytes]:
        import urllib3
        from kubernetes.client.exceptions import ApiException

        try:
            if hasattr(self.api, "param_serialize"):  # kubernetes >= 33 (generator v7)
                return self._get_v7(path, query, accept, timeout)
            resp = self.api.call_api(  # kubernetes < 33
                path, "GET", query_params=query, header_params={"Accept": accept},
                auth_settings=["BearerToken"], _preload_content=False,
                _return_http_data_only=True, _request_timeout=timeout)
        except ApiException as exc:
            if not exc.status:
                raise ConnectionError(str(exc.reason or exc)) from exc
            body = exc.body if isinstance(exc.body, bytes) else str(exc.body or "").encode()
            return int(exc.status), _lower(exc.headers), body
        except (urllib3.exceptions.HTTPError, OSError) as exc:
            raise ConnectionError(_one_line(exc)) from exc
        try:
            body = resp.data
        except (urllib3.exceptions.HTTPError, OSError) as exc:
            raise ConnectionError(_one_line(exc)) from exc
        finally:
            resp.release_conn()
        return int(resp.status), _lower(resp.headers), body

    def _get_v7(self, path: str, query: list[tuple[str, str]], accept: str,
                timeout: tuple[float, float]) -> tuple[int, dict[str, str], bytes]:
        """The v7-generated client: ``param_serialize`` applies auth (and refreshes exec/OIDC
        tokens), ``call_api`` returns the response unread and does not raise on a status."""
        import urllib3

        method, url, headers, _body, _post = self.api.param_serialize(
            "GET", path, query_params=query, header_params={"Accept": accept},
            auth_settings=["BearerToken"])
        resp = self.api.call_api(method, url, header_params=headers, _request_timeout=timeout)
        try:
            data = resp.read()
        except (urllib3.exceptions.HTTPError, OSError) as exc:
            raise ConnectionError(_one_line(exc)) from exc
        finally:
            raw = getattr(resp, "response", None)
            if raw is not None:
                raw.release_conn()
        return int(resp.status), _lower(resp.headers), bytes(data or b"")


def _lower(headers: Any) -> dict[str, str]:
    return {str(k).lower(): str(v) for k, v in dict(headers or {}).items()}


def _one_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {text[0][:200]}" if text else type(exc).__name__


def kube_transport(kubeconfig: str | None, context: str | None) -> tuple[KubeTransport, str]:
    """Load credentials like kubectl: ``--kubeconfig``/``$KUBECONFIG``/``~/.kube/config`` (with
    ``--context``), else the in-cluster service account. Returns the transport and the context
    name. Nothing is written anywhere; tokens stay in memory."""
    from kubernetes import client, config
    from kubernetes.config.config_exception import ConfigException

    cfg = client.Configuration()
    default = os.path.expanduser(config.kube_config.KUBE_CONFIG_DEFAULT_LOCATION)
    have_file = bool(kubeconfig) or bool(os.environ.get("KUBECONFIG")) or os.path.exists(default)
    try:
        if have_file:
            config.load_kube_config(config_file=kubeconfig, context=context,
                                    client_configuration=cfg,
                                    persist_config=False)  # type: ignore[no-untyped-call]
            _contexts, active = config.list_kube_config_contexts(kubeconfig)  # type: ignore[no-untyped-call]
            name = context or str((active or {}).get("name", ""))
        elif os.environ.get("KUBERNETES_SERVICE_HOST"):
            config.load_incluster_config(client_configuration=cfg)  # type: ignore[no-untyped-call]
            name = "in-cluster"
        else:
            raise SourceError("no kubeconfig (--kubeconfig, $KUBECONFIG, ~/.kube/config) and not "
                              "running in a cluster; use --bundle for an offline bundle")
    except SourceError:
        raise
    except (ConfigException, OSError, ValueError, TypeError, KeyError, AttributeError) as exc:
        raise SourceError(f"kubeconfig: {_one_line(exc)}") from exc
    except Exception as exc:  # yaml.YAMLError and friends from a malformed kubeconfig
        raise SourceError(f"kubeconfig: {_one_line(exc)}") from exc
    cfg.retries = False  # retries are ours: bounded, counted, honouring Retry-After
    api = client.ApiClient(cfg)
    api.user_agent = USER_AGENT
    return KubeTransport(api, str(cfg.host)), name


# ----- requests with bounded retries --------------------------------------------------------
class Client:
    """GETs with bounded retries; counts every request it sends (tests assert the count)."""

    def __init__(self, transport: Transport, policy: RetryPolicy = DEFAULT_POLICY,
                 sleep: Callable[[float], None] = time.sleep) -> None:
        self.transport = transport
        self.policy = policy
        self.sleep = sleep
        self.requests = 0

    def get(self, path: str, query: list[tuple[str, str]] | None = None,
            accept: str = "application/json") -> bytes:
        p = self.policy
        last = ""
        for attempt in range(p.attempts):
            self.requests += 1
            delay = p.backoff(attempt)
            try:
                status, headers, body = self.transport.get(
                    path, query or [], accept, (p.connect_timeout_s, p.read_timeout_s))
            except ConnectionError as exc:
                last = str(exc) or "connection failed"
            else:
                if 200 <= status < 300:
                    return body
                last = _status_text(status, body)
                if status not in RETRYABLE_STATUS:
                    raise FetchError(status, last)
                ra = _retry_after(headers.get("retry-after", ""))
                if ra is not None:
                    delay = min(ra, p.retry_after_cap_s)
            if attempt + 1 < p.attempts:
                self.sleep(delay)
        raise FetchError(0, f"gave up after {p.attempts} attempts: {last}")


def _retry_after(value: str) -> float | None:
    try:
        return max(0.0, float(value.strip()))
    except ValueError:
        return None


class _StatusBody(msgspec.Struct):
    message: str = ""


def _status_text(status: int, body: bytes) -> str:
    try:
        phrase = http.HTTPStatus(status).phrase
    except ValueError:
        phrase = "HTTP error"
    msg = ""
    with contextlib.suppress(msgspec.DecodeError, msgspec.ValidationError):
        msg = msgspec.json.decode(body, type=_StatusBody).message
    msg = msg.strip().splitlines()[0][:200] if msg.strip() else ""
    return f"{status} {phrase}" + (f": {msg}" if msg else "")


# ----- paginated lists into sinks -----------------------------------------------------------
class Sink(Protocol):
    """Receives the pages of one LIST. ``reset`` starts over (after a 410 restart)."""

    def reset(self) -> None: ...

    def page(self, body: bytes) -> None:
        """Take one page (the caller has read its ``continue`` token already)."""
        ...

    def commit(self) -> None: ...

    def abort(self) -> None: ...


class _ListMeta(msgspec.Struct):
    resourceVersion: str = ""
    continue_: str = msgspec.field(default="", name="continue")


class Page(msgspec.Struct, Generic[T], gc=False):
    items: list[T] | None = None
    metadata: _ListMeta = msgspec.field(default_factory=_ListMeta)


class TypedSink(Generic[T]):
    """Decodes each page straight into model Structs, keeping those ``keep`` accepts."""

    def __init__(self, res: ApiResource, typ: type[T],
                 keep: Callable[[T], bool] | None = None) -> None:
        self.res = res
        self.decoder: msgspec.json.Decoder[Page[T]] = msgspec.json.Decoder(Page[typ])  # type: ignore[valid-type]
        self.keep = keep
        self.items: list[T] = []
        self.count = 0

    def reset(self) -> None:
        self.items = []
        self.count = 0

    def page(self, body: bytes) -> None:
        pg = decode_page(self.decoder, body, self.res)
        items = pg.items or []
        self.count += len(items)
        self.items.extend(items if self.keep is None else [i for i in items if self.keep(i)])

    def commit(self) -> None:
        for o in self.items:  # list items carry no kind; the bundle's do (kubectl adds it)
            if getattr(o, "kind", None) == "":
                o.kind = self.res.kind  # type: ignore[attr-defined]

    def abort(self) -> None:
        self.items = []


def decode_page(decoder: msgspec.json.Decoder[Any], body: bytes, res: ApiResource) -> Any:
    try:
        return decoder.decode(body)
    except (msgspec.DecodeError, msgspec.ValidationError) as exc:
        first = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        raise FetchError(0, f"malformed {res.plural} response ({first})") from exc


@dataclass
class ListOutcome:
    items: int = 0
    pages: int = 0
    restarts: int = 0


class _PageHead(msgspec.Struct, gc=False):
    metadata: _ListMeta = msgspec.field(default_factory=_ListMeta)


_PAGE_HEAD = msgspec.json.Decoder(_PageHead)


def fetch_list(client: Client, res: ApiResource, sink: Sink, namespace: str | None = None,
               on_page: Callable[[int], None] | None = None) -> ListOutcome:
    """LIST ``res`` page by page into ``sink``. Raises FetchError; never returns a partial list.

    Paging is pipelined: the continue token is read from a page before the sink works on it,
    and the next page is requested in the background meanwhile, so the API server produces
    page n+1 while page n is redacted and written (one request in flight, order kept).
    On 410 Gone (the continue token expired while we paged) the list restarts from the first
    page, at most ``policy.list_restarts`` times (the API server's documented remedy).
    """
    out = ListOutcome()
    path = res.list_path(namespace)

    def query(token: str) -> list[tuple[str, str]]:
        q = [("limit", str(client.policy.page_size))]
        return [*q, ("continue", token)] if token else q

    with ThreadPoolExecutor(max_workers=1, thread_name_prefix="gpuxray-page") as pool:
        while True:
            sink.reset()
            token = ""
            pages = 0
            try:
                body = client.get(path, query(""))
                while True:
                    token = _next_token(body, res)
                    ahead = pool.submit(client.get, path, query(token)) if token else None
                    try:
                        sink.page(body)
                    except BaseException:
                        if ahead is not None:
                            ahead.cancel()  # or, already running, awaited as the pool closes
                        raise
                    pages += 1
                    if on_page:
                        on_page(pages)
                    if ahead is None:
                        out.pages = pages
                        return out
                    body = ahead.result()
            except FetchError as exc:
                if exc.status == 410 and token and out.restarts < client.policy.list_restarts:
                    out.restarts += 1
                    continue
                if pages:
                    raise FetchError(exc.status, f"incomplete list, stopped after {pages} "
                                                 f"page(s): {exc.reason}") from exc
                raise


def _next_token(body: bytes, res: ApiResource) -> str:
    return str(decode_page(_PAGE_HEAD, body, res).metadata.continue_)


# ----- gathering everything -----------------------------------------------------------------
class LogSink(Protocol):
    def put(self, namespace: str, pod: str, container: str, previous: bool,
            text: bytes) -> None: ...


class Progress:
    """Progress on stderr (rich), silent with ``-q``."""

    def __init__(self, quiet: bool, console: Console | None = None) -> None:
        self.console = None if quiet else (console or _stderr_console())

    def line(self, text: str) -> None:
        if self.console is not None:
            self.console.print(text, markup=False, highlight=False)


def _stderr_console() -> Console:
    import sys

    from gpuxray.console import make_console

    return make_console(sys.stderr)


@dataclass
class Gathered:
    inputs: dict[Input, InputState] = field(default_factory=dict)
    errors: list[tuple[str, str]] = field(default_factory=list)  # (bundle path, reason)
    operator_namespace: str = OPERATOR_NAMESPACE_DEFAULT
    version: bytes | None = None
    kept: dict[str, list[Any]] = field(default_factory=dict)  # small typed lists we read
    requests: int = 0


def source_name(res: ApiResource) -> str:
    return f"live:{res.plural}"


def struct_type(res: ApiResource) -> Any:
    return {
        Input.NODES: k8s.Node, Input.PODS: k8s.Pod, Input.EVENTS: k8s.Event,
        Input.DAEMONSETS: k8s.DaemonSet, Input.DEPLOYMENTS: k8s.Workload,
        Input.REPLICASETS: k8s.Workload, Input.JOBS: k8s.Workload,
        Input.STATEFULSETS: k8s.Workload, Input.RUNTIMECLASSES: k8s.RuntimeClass,
        Input.RESOURCEQUOTAS: k8s.ResourceQuota, Input.CONFIGMAPS: k8s.ConfigMap,
        Input.CLUSTERPOLICIES: k8s.CustomResource, Input.NVIDIADRIVERS: k8s.CustomResource,
        Input.DEVICECLASSES: dra.DeviceClass, Input.RESOURCESLICES: dra.ResourceSlice,
        Input.RESOURCECLAIMS: dra.ResourceClaim,
        Input.RESOURCECLAIMTEMPLATES: dra.ResourceClaimTemplate,
        Input.COMPUTEDOMAINS: dra.ComputeDomain,
    }[res.inp]


def detect_operator_namespace(daemonsets: list[k8s.DaemonSet],
                              clusterpolicies: list[k8s.CustomResource]) -> str:
    """Where the operator's operands run (facts.md: operand DaemonSet names), like the Snapshot
    property does for bundles without a manifest."""
    for ds in daemonsets:
        if ds.metadata.name.startswith("nvidia-device-plugin") and ds.metadata.namespace:
            return ds.metadata.namespace
    for cp in clusterpolicies:
        if cp.status.namespace:
            return cp.status.namespace
    for ds in daemonsets:
        if ds.metadata.name.startswith("nvidia-") and ds.metadata.namespace:
            return ds.metadata.namespace
    return OPERATOR_NAMESPACE_DEFAULT


class _GroupVersion(msgspec.Struct):
    version: str = ""


class _ApiGroup(msgspec.Struct):
    versions: list[_GroupVersion] = []


def served_versions(client: Client, group: str, memo: dict[str, frozenset[str]]) -> frozenset[str]:
    """The versions the server's discovery lists for ``group`` (``GET /apis/<group>``), asked
    once per gather and only after a LIST at the newest version answered 404: a cluster of
    Kubernetes 1.32 serves DRA as v1beta1 only, one without DRA not at all."""
    if group not in memo:
        try:
            doc = msgspec.json.decode(client.get(f"/apis/{group}"), type=_ApiGroup)
            memo[group] = frozenset(v.version for v in doc.versions)
        except (FetchError, msgspec.DecodeError, msgspec.ValidationError):
            memo[group] = frozenset()
    return memo[group]


def gather(client: Client, make_sink: Callable[[ApiResource, Callable[[Any], bool] | None], Sink],
           logs: LogSink | None, progress: Progress, *, log_tail: int = LOG_TAIL_LINES,
           kinds: Collection[Input] | None = None) -> Gathered:
    """Read every resource of the table (and operand logs) into sinks; record what failed.
    ``kinds``: only these inputs are listed (and logs only if ``Input.LOGS`` is among them);
    the others are marked not collected, so a check that needs one says unknown."""
    g = Gathered()
    try:
        g.version = client.get("/version")
        g.inputs[Input.VERSION] = InputState(True, "live:version")
    except FetchError as exc:
        if exc.status in (0, 401):
            host = getattr(client.transport, "host", "")
            raise SourceError(f"cannot read the API server {host}: {exc.reason}") from exc
        g.inputs[Input.VERSION] = InputState(False, "live:version", exc.reason)
        g.errors.append(("cluster/version.json", exc.reason))

    by_plural = {r.plural: r for r in RESOURCES}
    served: dict[str, frozenset[str]] = {}
    keep_typed = {"daemonsets", "clusterpolicies", "pods"}
    for plural in ORDER:
        res = by_plural[plural]
        if kinds is not None and res.inp not in kinds:
            g.inputs[res.inp] = InputState(False, source_name(res), NOT_REQUESTED)
            continue
        namespace = g.operator_namespace if res.operator_namespace_only else None
        keep: Callable[[Any], bool] | None = None
        if plural == "pods":  # logs are read for the operator's pods only
            ns = g.operator_namespace
            keep = lambda p, ns=ns: (p.metadata.namespace or "default") == ns  # noqa: E731
        elif plural in keep_typed:
            keep = lambda _o: True  # noqa: E731
        # an older version is tried only where the server does not serve this one (404) and
        # its discovery of the group lists it
        failure: FetchError | None = None
        for at in res.versions():
            if at is not res and at.version not in served_versions(client, res.group, served):
                continue
            sink = make_sink(at, keep)
            try:
                out = fetch_list(client, at, sink, namespace)
            except FetchError as exc:
                sink.abort()
                failure = exc
                if exc.status == 404:
                    continue
                break
            failure = None
            break
        if failure is not None:
            g.inputs[res.inp] = InputState(False, source_name(res), failure.reason)
            g.errors.append((res.bundle_file, failure.reason))
            progress.line(f"  {plural:<16} not collected: {failure.reason}")
        else:
            sink.commit()
            kept = getattr(sink, "items", None)
            if plural in keep_typed and kept is not None:
                g.kept[plural] = kept
            g.inputs[res.inp] = InputState(True, source_name(res))
            n = getattr(sink, "count", 0)
            progress.line(f"  {plural:<16} {n:>7} items  {out.pages} page(s)"
                          + (f"  {out.restarts} restart(s)" if out.restarts else "")
                          + (f"  ({at.api_version})" if at is not res else ""))
        if plural == "clusterpolicies":  # known by now, whatever could be read
            g.operator_namespace = detect_operator_namespace(
                g.kept.get("daemonsets", []), g.kept.get("clusterpolicies", []))

    if logs is None or (kinds is not None and Input.LOGS not in kinds):
        g.inputs[Input.LOGS] = InputState(False, "live:pods/log", "not requested")
    elif not g.inputs[Input.PODS].collected:
        g.inputs[Input.LOGS] = InputState(False, "live:pods/log",
                                          f"pods not listed: {g.inputs[Input.PODS].reason}")
    else:
        g.inputs[Input.LOGS] = _gather_logs(client, g, logs, progress, log_tail)
    # Node files and DCGM scrapes are not API objects: like a bundle without nodes/ or metrics/.
    g.inputs[Input.HOSTS] = InputState(False, "nodes/", "not collected")
    g.inputs[Input.METRICS] = InputState(False, "metrics/", "not collected")
    g.requests = client.requests
    return g


def log_targets(pod: k8s.Pod) -> Iterator[tuple[str, bool]]:
    """(container, previous?) pairs worth a log request: containers that have started (a
    container still waiting has no log; the API answers 400), and ``--previous`` only where a
    container restarted or terminated before — crash loops and failed init steps (§3)."""
    statuses = list(pod.status.init_container_statuses) + list(pod.status.container_statuses)
    for st in statuses:
        started = st.state.running is not None or st.state.terminated is not None
        prev = st.restart_count > 0 or st.last_state.terminated is not None
        if started or prev:
            yield st.name, False
        if prev:
            yield st.name, True


def _gather_logs(client: Client, g: Gathered, sink: LogSink, progress: Progress,
                 tail: int, nodes: Collection[str] | None = None) -> InputState:
    """Logs of the operator's pods (``nodes``: of those on these nodes only)."""
    pods = [p for p in g.kept.get("pods", [])
            if (p.metadata.namespace or "default") == g.operator_namespace
            and (nodes is None or p.spec.node_name in nodes)]
    ok = failed = 0
    for pod in pods:
        ns, name = pod.metadata.namespace or "default", pod.metadata.name
        for container, previous in log_targets(pod):
            q = [("container", container), ("tailLines", str(tail)),
                 ("limitBytes", str(LOG_LIMIT_BYTES))]
            if previous:
                q.append(("previous", "true"))
            try:
                text = client.get(log_path(ns, name), q, accept="text/plain, */*")
            except FetchError as exc:
                if exc.status == 403:  # no pods/log permission: no point asking again
                    progress.line(f"  {'logs':<16} not collected: {exc.reason}")
                    return InputState(False, "live:pods/log", exc.reason)
                if exc.status in (400, 404):  # not started / no previous instance: no log
                    continue
                failed += 1
                suffix = ".previous.log" if previous else ".log"
                g.errors.append((f"logs/{ns}/{name}/{container}{suffix}", exc.reason))
                continue
            sink.put(ns, name, container, previous, text)
            ok += 1
    progress.line(f"  {'logs':<16} {ok:>7} logs   of {len(pods)} pod(s) in {g.operator_namespace}"
                  + (f", {failed} failed" if failed else ""))
    return InputState(True, "live:pods/log", f"partial: {failed} log(s) failed" if failed else "")


# ----- the Snapshot -------------------------------------------------------------------------
class _MemoryLogs:
    def __init__(self) -> None:
        self.found: dict[tuple[str, str, str], dict[str, str]] = {}

    def put(self, namespace: str, pod: str, container: str, previous: bool, text: bytes) -> None:
        self.found.setdefault((namespace, pod, container), {})[
            "previous" if previous else "current"] = text.decode("utf-8", errors="replace")

    def logs(self) -> dict[tuple[str, str, str], PodLog]:
        return {k: PodLog(k[0], k[1], k[2], v.get("current"), v.get("previous"),
                          f"live:pods/log {k[0]}/{k[1]} -c {k[2]}")
                for k, v in self.found.items()}


class _VersionDoc(msgspec.Struct):
    gitVersion: str = ""
    major: str = ""
    minor: str = ""


#: For a command whose logs matter on a few nodes only: given the snapshot without logs, the
#: nodes whose operand logs to read (None: all of them).
LogNodes = Callable[[Snapshot], "Collection[str] | None"]


def snapshot_from(client: Client, progress: Progress, context: str,
                  log_tail: int = LOG_TAIL_LINES, *, kinds: Collection[Input] | None = None,
                  log_nodes: LogNodes | None = None) -> Snapshot:
    """Gather through ``client`` and build the Snapshot (what ``live_snapshot`` returns).

    ``kinds``: see :func:`gather`. ``log_nodes``: the lists are read first, then only the
    operand logs on the nodes it names for the snapshot they make — a ``why`` reads the logs
    of its pod's node, not one request per operand container of the fleet."""
    sinks: dict[str, TypedSink[Any]] = {}

    def make_sink(res: ApiResource, keep: Callable[[Any], bool] | None) -> Sink:
        sinks[res.plural] = TypedSink(res, struct_type(res))
        return sinks[res.plural]

    mem = _MemoryLogs()
    if log_nodes is None:
        g = gather(client, make_sink, mem, progress, log_tail=log_tail, kinds=kinds)
        return _snapshot(client, g, sinks, mem, context)
    g = gather(client, make_sink, None, progress, log_tail=log_tail, kinds=kinds)
    nodes = log_nodes(_snapshot(client, g, sinks, mem, context))
    if (kinds is None or Input.LOGS in kinds) and g.inputs[Input.PODS].collected:
        g.inputs[Input.LOGS] = _gather_logs(client, g, mem, progress, log_tail, nodes)
        g.requests = client.requests
    return _snapshot(client, g, sinks, mem, context)


def _snapshot(client: Client, g: Gathered, sinks: dict[str, TypedSink[Any]], mem: _MemoryLogs,
              context: str) -> Snapshot:
    fields: dict[str, Any] = {}
    for plural, sink in sinks.items():
        if g.inputs[BY_PLURAL_INPUT[plural]].collected:
            fields[plural] = sink.items
    if g.version is not None:
        try:
            v = msgspec.json.decode(g.version, type=_VersionDoc)
            fields["version"] = k8s.ClusterVersion(server_version=k8s.VersionInfo(
                git_version=v.gitVersion, major=v.major, minor=v.minor))
        except (msgspec.DecodeError, msgspec.ValidationError):
            g.inputs[Input.VERSION] = InputState(False, "live:version", "malformed /version")
    host = getattr(client.transport, "host", "")
    manifest = Manifest(format=BUNDLE_FORMAT, collected_at=now_iso(),
                        collector=f"gpuxray {__version__}", source_kind="live",
                        context=context, operator_namespace=g.operator_namespace,
                        errors=tuple(g.errors))
    return Snapshot(inputs=g.inputs, logs=mem.logs(), manifest=manifest,
                    origin=f"live:{context or host}", **fields)


BY_PLURAL_INPUT: dict[str, Input] = {r.plural: r.inp for r in BY_INPUT.values()}


def now_iso() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def live_snapshot(kubeconfig: str | None, context: str | None, quiet: bool, *,
                  kinds: Collection[Input] | None = None,
                  log_nodes: LogNodes | None = None) -> Snapshot:
    """The Snapshot of the cluster ``kubeconfig``/``context`` point at (read-only); ``kinds``
    and ``log_nodes`` narrow what is read (:func:`snapshot_from`)."""
    transport, name = kube_transport(kubeconfig, context)
    progress = Progress(quiet)
    progress.line(f"gpuxray: reading {transport.host} (context {name or '-'}), read-only")
    return snapshot_from(Client(transport, DEFAULT_POLICY), progress, name, kinds=kinds,
                         log_nodes=log_nodes)
