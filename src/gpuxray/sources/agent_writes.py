"""Every write gpuxray ever sends to a cluster, in one place (``collect --node-agent``).

Three verbs on two kinds, nothing else: POST a Namespace, POST a DaemonSet into it, DELETE that
Namespace (and, for ``--node-agent-cleanup``, DELETE namespaces carrying the agent's labels).
Requests go through the official client's ``ApiClient`` (its auth) with the body pre-encoded and
the response unread by its models, like :mod:`.live` does for GETs. Each write is recorded in
``log`` so the CLI can show, and tests assert, exactly what was written.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Protocol

from gpuxray.sources.live import FetchError, _one_line, _status_text


class WriteTransport(Protocol):
    host: str

    def send(self, method: str, path: str, body: bytes | None,
             timeout: tuple[float, float]) -> tuple[int, bytes]: ...


class KubeWriteTransport:
    """POST/DELETE through the official client's ApiClient (same credentials as the reads)."""

    def __init__(self, api_client: Any, host: str) -> None:
        self.api = api_client
        self.host = host

    def send(self, method: str, path: str, body: bytes | None,
             timeout: tuple[float, float]) -> tuple[int, bytes]:
        import urllib3
        from kubernetes.client.exceptions import ApiException

        headers = {"Accept": "application/json", "Content-Type": "application/json"}
        obj = json.loads(body) if body is not None else None
        try:
            if hasattr(self.api, "param_serialize"):  # kubernetes >= 33
                m, url, hdrs, ser_body, _ = self.api.param_serialize(
                    method, path, header_params=headers, body=obj,
                    auth_settings=["BearerToken"])
                resp = self.api.call_api(m, url, header_params=hdrs, body=ser_body,
                                         _request_timeout=timeout)
                try:
                    data = resp.read()
                finally:
                    raw = getattr(resp, "response", None)
                    if raw is not None:
                        raw.release_conn()
                return int(resp.status), bytes(data or b"")
            resp = self.api.call_api(  # kubernetes < 33
                path, method, header_params=headers, body=obj, auth_settings=["BearerToken"],
                _preload_content=False, _return_http_data_only=True, _request_timeout=timeout)
            try:
                return int(resp.status), bytes(resp.data or b"")
            finally:
                resp.release_conn()
        except ApiException as exc:
            if not exc.status:
                raise ConnectionError(str(exc.reason or exc)) from exc
            data = exc.body if isinstance(exc.body, bytes) else str(exc.body or "").encode()
            return int(exc.status), data
        except (urllib3.exceptions.HTTPError, OSError) as exc:
            raise ConnectionError(_one_line(exc)) from exc


@dataclass
class ClusterWrites:
    """The write verbs. ``log`` holds one ``"METHOD path"`` per write sent."""

    transport: WriteTransport
    timeout: tuple[float, float] = (10.0, 30.0)
    log: list[str] = field(default_factory=list)

    def _send(self, method: str, path: str, obj: dict[str, Any] | None) -> dict[str, Any]:
        self.log.append(f"{method} {path}")
        body = json.dumps(obj).encode() if obj is not None else None
        try:
            status, data = self.transport.send(method, path, body, self.timeout)
        except ConnectionError as exc:
            raise FetchError(0, str(exc) or "connection failed") from exc
        if not 200 <= status < 300:
            raise FetchError(status, _status_text(status, data))
        try:
            out = json.loads(data) if data else {}
        except ValueError:
            out = {}
        return out if isinstance(out, dict) else {}

    def create_namespace(self, ns: dict[str, Any]) -> dict[str, Any]:
        return self._send("POST", "/api/v1/namespaces", ns)

    def create_daemonset(self, namespace: str, ds: dict[str, Any]) -> dict[str, Any]:
        return self._send("POST", f"/apis/apps/v1/namespaces/{namespace}/daemonsets", ds)

    def delete_namespace(self, name: str) -> bool:
        """Delete (foreground: its objects go first). False when it was already gone."""
        try:
            self._send("DELETE", f"/api/v1/namespaces/{name}",
                       {"apiVersion": "v1", "kind": "DeleteOptions",
                        "propagationPolicy": "Foreground"})
        except FetchError as exc:
            if exc.status == 404:
                return False
            raise
        return True
