"""APT configuration (``/etc/apt/apt.conf.d/*``) as unattended-upgrades reads it.

Why: the GPU Operator's docs advise turning off automatic kernel upgrades on GPU nodes: a
new kernel under a driver container leaves no matching module until the driver is rebuilt
(seed §3). The relevant keys are ``APT::Periodic::Unattended-Upgrade`` (on/off),
``Unattended-Upgrade::Allowed-Origins`` and ``Unattended-Upgrade::Package-Blacklist``.

The apt.conf syntax: ``Key "value";``, ``Key { "v1"; "v2"; };``, nested scopes
``A { B "1"; };`` = ``A::B``, comments ``//``, ``#`` and ``/* … */``, ``#clear``/``#include``
directives. Keys are case-insensitive. Files are read in name order; a later scalar wins,
list items append.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field

__all__ = ["AptConfig", "parse_apt_conf"]

_TOKEN = re.compile(r'"(?:[^"\\]|\\.)*"|[{};]|[^\s{};"]+')


@dataclass
class AptConfig:
    """Scalars and lists by lower-cased key; ``where`` remembers (file, line) of each key."""

    values: dict[str, list[str]] = field(default_factory=dict)
    where: dict[str, tuple[str, int]] = field(default_factory=dict)

    def get(self, key: str) -> str | None:
        v = self.values.get(key.lower())
        return v[-1] if v else None

    def items(self, key: str) -> list[str]:
        return list(self.values.get(key.lower(), []))


def _strip_comments(text: str) -> str:
    text = re.sub(r"/\*.*?\*/", lambda m: "\n" * m.group(0).count("\n"), text, flags=re.S)
    out = []
    for line in text.splitlines():
        s = line.lstrip()
        if s.startswith("#"):  # comments and #clear/#include directives
            out.append("")
            continue
        # ``//`` outside quotes starts a comment
        buf, inq = [], False
        i = 0
        while i < len(line):
            c = line[i]
            if c == '"':
                inq = not inq
            if not inq and line.startswith("//", i):
                break
            buf.append(c)
            i += 1
        out.append("".join(buf))
    return "\n".join(out)


def parse_apt_conf(files: Iterable[tuple[str, str]], into: AptConfig | None = None) -> AptConfig:
    """Parse (name, text) pairs in the order given. Unbalanced braces or junk never raise:
    the parser resynchronises at the next ``;``."""
    cfg = into or AptConfig()
    for name, text in files:
        clean = _strip_comments(text)
        scope: list[str] = []
        pending: list[str] = []
        lines = clean.splitlines()
        for lineno, line in enumerate(lines, start=1):
            for tok in _TOKEN.findall(line):
                if tok == "{":
                    if pending:
                        scope.append(pending[0])
                        # ``Key "value" {`` is unusual; ignore the value
                    else:
                        scope.append("")
                    pending = []
                elif tok == "}":
                    if scope:
                        scope.pop()
                    pending = []
                elif tok == ";":
                    _store(cfg, scope, pending, name, lineno)
                    pending = []
                else:
                    pending.append(tok)
    return cfg


def _unquote(tok: str) -> str:
    if len(tok) >= 2 and tok[0] == tok[-1] == '"':
        return tok[1:-1]
    return tok


def _store(cfg: AptConfig, scope: list[str], pending: list[str], name: str, lineno: int) -> None:
    if not pending:
        return
    parts = [s for s in scope if s]
    if len(pending) == 1:
        # an item of a list scope: ``"linux-";``
        if not parts or pending[0][0] != '"':
            return
        key = "::".join(parts).lower()
        cfg.values.setdefault(key, []).append(_unquote(pending[0]))
        cfg.where[key] = (name, lineno)
        return
    key = "::".join([*parts, pending[0]]).lower().rstrip(":")
    value = _unquote(pending[1])
    if pending[0].endswith("::"):  # ``Key:: "item";`` appends to a list
        cfg.values.setdefault(key, []).append(value)
    else:
        cfg.values[key] = [value]
    cfg.where[key] = (name, lineno)
