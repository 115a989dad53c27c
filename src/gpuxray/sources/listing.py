"""A paged LIST decoded whole: what the node agent and the operand reader both need to find their
nodes and pods (``limit`` + ``continue``, the API's chunking:
https://kubernetes.io/docs/reference/using-api/api-concepts/#retrieving-large-results-sets-in-chunks).
"""

from __future__ import annotations

from typing import Any

import msgspec

from gpuxray.sources.live import Client, FetchError


class _Page(msgspec.Struct, gc=False):
    items: list[Any] = []
    metadata: dict[str, Any] = {}


def list_all(client: Client, path: str, typ: Any, query: list[tuple[str, str]]) -> list[Any]:
    """A paged LIST decoded into ``typ`` (kept whole: node and agent-pod lists are small)."""
    dec = msgspec.json.Decoder(_Page)
    out: list[Any] = []
    token = ""
    while True:
        q = [*query, ("limit", "500")] + ([("continue", token)] if token else [])
        try:
            pg = dec.decode(client.get(path, q))
            out.extend(msgspec.convert(i, typ) for i in pg.items)
        except (msgspec.DecodeError, msgspec.ValidationError) as exc:
            raise FetchError(0, f"malformed response from {path} ({exc})") from exc
        token = str(pg.metadata.get("continue") or "")
        if not token:
            return out
