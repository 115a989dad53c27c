"""The HTTP side of ``gpuxray serve``: a threaded stdlib server, faults, and a request log.

Loopback by default: a bundle can hold a cluster's whole inventory. Every request is recorded
(method, path, status, injected fault) so tests can prove a client only ever read, and so a user
can see what a tool asked for (``--request-log``, JSON lines).
"""

from __future__ import annotations

import json
import socket
import threading
import time
from dataclasses import asdict, dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import IO, Any
from urllib.parse import parse_qs, urlsplit

from gpuxray.serve.api import Response, handle, status_response
from gpuxray.serve.faults import Fault, FaultPlan
from gpuxray.serve.store import BundleStore


@dataclass(frozen=True)
class RequestRecord:
    method: str
    path: str  # with query
    status: int  # 0: connection dropped on purpose
    fault: str = ""
    user_agent: str = ""


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True
    store: BundleStore
    plan: FaultPlan
    owner: BundleServer


class _Server6(_Server):
    address_family = socket.AF_INET6


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True  # headers and body are separate writes: no 40 ms stalls
    wbufsize = 1 << 16
    server: _Server
    server_version = "gpuxray-serve"

    def _any(self) -> None:
        srv = self.server
        length = int(self.headers.get("Content-Length") or 0)
        if length:
            self.rfile.read(min(length, 1 << 20))  # discard a write's body; never apply it
            if length > 1 << 20:
                self.close_connection = True  # the rest is unread: do not reuse the stream
        query = parse_qs(urlsplit(self.path).query)
        fault = srv.plan.pick(urlsplit(self.path).path, bool(query.get("continue", [""])[0]))
        ua = self.headers.get("User-Agent", "")
        if fault is not None and fault.kind == "drop":
            srv.owner.record(RequestRecord(self.command, self.path, 0, "drop", ua))
            self.close_connection = True
            return
        resp = _fault_response(fault) if fault is not None and fault.status else handle(
            srv.store, self.command, self.path, host=f"{srv.owner.address}:{srv.owner.port}",
            accept=self.headers.get("Accept", ""))
        # Recorded before a slow answer goes out, so a client that timed out still shows.
        srv.owner.record(RequestRecord(self.command, self.path, resp.status,
                                       fault.kind if fault else "", ua))
        if fault is not None and fault.kind == "slow":
            time.sleep(fault.delay)
        self.send_response(resp.status)
        self.send_header("Content-Type", resp.content_type)
        self.send_header("Content-Length", str(len(resp.body)))
        self.send_header("Cache-Control", "no-cache, private")
        for k, v in resp.headers.items():
            self.send_header(k, v)
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(resp.body)

    do_GET = do_HEAD = do_POST = do_PUT = do_PATCH = do_DELETE = do_OPTIONS = _any

    def log_message(self, format: str, *args: Any) -> None:
        pass  # the request log replaces the stdlib's stderr chatter


def _fault_response(fault: Fault) -> Response:
    code = fault.status
    if code == 410:
        return status_response(410, "Expired", "The provided continue parameter is too old to "
                               "display a consistent list result. You can start a new list "
                               "without the continue parameter.")
    if code == 429:
        r = status_response(429, "TooManyRequests", "Too many requests, please try again later.")
        r.headers["Retry-After"] = f"{fault.retry_after:g}"
        return r
    if code == 403:
        return status_response(403, "Forbidden", "forbidden: User \"system:anonymous\" cannot "
                               "get or list this resource (injected fault)")
    if code == 404:
        return status_response(404, "NotFound", "the server could not find the requested "
                               "resource (injected fault)")
    r = status_response(code, "InternalError" if code == 500 else "ServiceUnavailable",
                        f"injected fault {code}")
    if code == 503:
        r.headers["Retry-After"] = f"{fault.retry_after:g}"
    return r


class BundleServer:
    """A running server; use as a context manager or call :meth:`close`."""

    def __init__(self, store: BundleStore, address: str = "127.0.0.1", port: int = 0,
                 plan: FaultPlan | None = None, request_log: str | Path | None = None) -> None:
        self.store = store
        self.records: list[RequestRecord] = []
        self._lock = threading.Lock()
        self._log: IO[str] | None = open(request_log, "a") if request_log else None  # noqa: SIM115
        cls = _Server6 if ":" in address else _Server
        self.httpd = cls((address, port), _Handler)
        self.httpd.store = store
        self.httpd.plan = plan or FaultPlan()
        self.httpd.owner = self
        self._thread: threading.Thread | None = None

    @property
    def address(self) -> str:
        return str(self.httpd.server_address[0])

    @property
    def port(self) -> int:
        return int(self.httpd.server_address[1])

    @property
    def url(self) -> str:
        host = f"[{self.address}]" if ":" in self.address else self.address
        return f"http://{host}:{self.port}"

    def record(self, rec: RequestRecord) -> None:
        with self._lock:
            self.records.append(rec)
            if self._log is not None:
                self._log.write(json.dumps(asdict(rec)) + "\n")
                self._log.flush()

    def start(self) -> BundleServer:
        """Serve in a background thread (tests)."""
        self._thread = threading.Thread(target=self.httpd.serve_forever, kwargs={
            "poll_interval": 0.05}, name="gpuxray-serve", daemon=True)
        self._thread.start()
        return self

    def serve_forever(self) -> None:
        self.httpd.serve_forever(poll_interval=0.2)

    def close(self) -> None:
        if self._thread is not None:
            self.httpd.shutdown()
            self._thread.join(timeout=5)
            self._thread = None
        self.httpd.server_close()
        if self._log is not None:
            self._log.close()
            self._log = None

    def __enter__(self) -> BundleServer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def kubeconfig_text(url: str, name: str = "gpuxray-serve") -> str:
    """A kubeconfig pointing kubectl (or gpuxray) at the served bundle (no credentials)."""
    return json.dumps({
        "apiVersion": "v1", "kind": "Config", "current-context": name,
        "clusters": [{"name": name, "cluster": {"server": url}}],
        "users": [{"name": name, "user": {}}],
        "contexts": [{"name": name, "context": {"cluster": name, "user": name}}],
    }, indent=2) + "\n"
