"""``kubectl logs POD --all-containers --prefix`` → one text per container.

Why: must-gather writes each operand pod's logs of all containers (init containers included) into
one file, every line prefixed ``[pod/<pod>/<container>] ``. The checks read logs per container
(the driver container vs the validator init container tell different stories, seed §3), so the
file is split back into ``snap.logs[(namespace, pod, container)]``.

Lines without a prefix (kubectl's own error lines, or a file written without ``--prefix``) go to
the container of the previous prefixed line, or to ``default_container`` before any prefix.
"""

from __future__ import annotations

import re

__all__ = ["split_prefixed_logs"]

_PREFIX = re.compile(r"^\[pod/([^/\]\s]+)/([^\]\s]+)\] ?")


def split_prefixed_logs(text: str, default_container: str = "") -> dict[tuple[str, str], str]:
    """Map (pod, container) → that container's lines, in order, prefixes removed."""
    parts: dict[tuple[str, str], list[str]] = {}
    current: tuple[str, str] | None = None
    for line in text.splitlines():
        m = _PREFIX.match(line)
        if m:
            current = (m.group(1), m.group(2))
            parts.setdefault(current, []).append(line[m.end():])
            continue
        if current is None:
            if not line.strip() or not default_container:
                continue
            current = ("", default_container)
        parts.setdefault(current, []).append(line)
    return {k: "\n".join(v) + "\n" for k, v in parts.items()}
