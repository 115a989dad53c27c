"""Redaction of collected objects before they are written to a bundle (BUNDLE.md).

A bundle is attached to tickets, so it must not carry credentials: Secrets are never listed at
all, and in what is listed, environment values whose name or shape says "credential" become
``"<redacted>"``, as do ``--password=…``-style arguments and the last-applied annotation (it
repeats the whole spec, env values included). Checks read env *names* and non-secret values such
as ``NVIDIA_VISIBLE_DEVICES``, which are kept. The rules are data, tested one by one.
"""

from __future__ import annotations

import re
from typing import Any

import msgspec

REDACTED = "<redacted>"

# Free text (logs, journal, pasted text): credentials as they appear in lines, as one pattern.
# ``k``/``u`` keep the key (so a reader still sees *what* was there); the value is replaced.
_TEXT_SECRET = re.compile(
    # Authorization: Bearer/Basic <credential>; a bare "Bearer <token>"; key=value, key: value
    # and "key": "value" where the key names a credential
    r"(?P<k>(?i:authorization[\"']?\s*[:=]\s*[\"']?(?:bearer|basic|token)\s+|\bbearer\s+|"
    r"(?:passw(?:or)?d|secret|token|api[_-]?key|access[_-]?key|private[_-]?key|credentials?)"
    r"[\"']?\s*[:=]\s*[\"']?))(?!<redacted>)[^\s\"',;}]{4,}"
    # shapes that are credentials whatever the key: JWTs, vendor tokens, URL passwords
    r"|\beyJ[\w-]{8,}\.[\w-]{8,}\.[\w-]*"
    r"|\b(?:ghp_|gho_|ghs_|github_pat_|glpat-|xox[abpr]-|sk-)[\w-]{10,}"
    r"|\b(?:AKIA|ASIA)[A-Z0-9]{12,}"
    r"|(?P<u>://[^/\s:@]+:)[^/\s@]+@")
_PEM = re.compile(r"-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?(?:-----END [A-Z ]*PRIVATE KEY-----|"
                  r"\Z)")
# Case-sensitive literals searched in the lower-cased text: a fast pre-scan, so only lines with
# a hint pay for the full pattern (a multi-MiB journal costs one C scan).
_TEXT_HINT = re.compile(r"passw|secret|token|key|bearer|authoriz|credential|eyj|ghp_|gho_|ghs_|"
                        r"github_pat_|glpat-|xox|sk-|akia|asia|://")


def _secret_repl(m: re.Match[str]) -> str:
    if m.group("k") is not None:
        return m.group("k") + REDACTED
    if m.group("u") is not None:
        return m.group("u") + REDACTED + "@"
    return REDACTED


# Env var names that hold credentials.
SENSITIVE_NAME = re.compile(
    r"(?i)(passw|secret|token|api[_-]?key|access[_-]?key|private[_-]?key|credential|"
    r"(^|_)auth(orization)?($|_)|pwd|session|cookie|bearer|signature)")
# Values that are credentials whatever their name says.
SENSITIVE_VALUE = (
    re.compile(r"^eyJ[\w-]{8,}\.[\w-]{8,}\.[\w-]*$"),  # a JWT
    re.compile(r"^(ghp_|gho_|ghs_|github_pat_|glpat-|xox[abpr]-|AKIA|ASIA|sk-)[\w-]{10,}"),
    re.compile(r"-----BEGIN [A-Z ]*PRIVATE KEY-----"),
    re.compile(r"://[^/\s:@]+:[^/\s@]+@"),  # a URL with user:password
)
SENSITIVE_ARG = re.compile(
    r"(?i)^(--?[\w.-]*(passw|secret|token|api-?key|credential)[\w.-]*=)(.+)$")
REDACTED_ANNOTATIONS = ("kubectl.kubernetes.io/last-applied-configuration",)

_MARKERS = (b'"env"', b'"args"', b'"command"', b"last-applied-configuration")


def sensitive_value(name: str, value: str) -> bool:
    return bool(SENSITIVE_NAME.search(name)) or any(p.search(value) for p in SENSITIVE_VALUE)


def redact_text(text: str) -> str:
    """Credentials in free text (operand logs, the journal, pasted text) become ``<redacted>``.

    Applied where text enters gpuxray (bundle and must-gather loaders, ``collect``'s log writer,
    ``node``'s command outputs, triage input), so every renderer, evidence line and error message
    downstream only ever sees the redacted text."""
    low = text.lower()
    if len(low) != len(text):  # a few characters change length when lowered: no fast path
        return _PEM.sub(REDACTED, _TEXT_SECRET.sub(_secret_repl, text))
    if not _TEXT_HINT.search(low):
        return text
    if "private key" in low:
        text = _PEM.sub(REDACTED, text)
        low = text.lower()
    parts: list[str] = []
    last = 0
    for m in _TEXT_HINT.finditer(low):
        if m.start() < last:
            continue  # another hint on a line already done
        start = text.rfind("\n", 0, m.start()) + 1
        end = text.find("\n", m.end())
        end = len(text) if end < 0 else end
        parts += (text[last:start], _TEXT_SECRET.sub(_secret_repl, text[start:end]))
        last = end
    parts.append(text[last:])
    return "".join(parts)


def redact_obj(obj: Any) -> Any:
    """Redact in place (and return) any JSON-like object: env lists, args, annotations."""
    if isinstance(obj, dict):
        for key, val in obj.items():
            if key == "env" and isinstance(val, list):
                for e in val:
                    if (isinstance(e, dict) and isinstance(e.get("value"), str)
                            and sensitive_value(str(e.get("name", "")), e["value"])):
                        e["value"] = REDACTED
            elif key in ("args", "command") and isinstance(val, list):
                obj[key] = [_redact_arg(a) if isinstance(a, str) else a for a in val]
            elif key == "annotations" and isinstance(val, dict):
                for a in REDACTED_ANNOTATIONS:
                    if a in val:
                        val[a] = REDACTED
            else:
                redact_obj(val)
    elif isinstance(obj, list):
        for v in obj:
            redact_obj(v)
    return obj


def _redact_arg(arg: str) -> str:
    m = SENSITIVE_ARG.match(arg)
    if m:
        return m.group(1) + REDACTED
    return REDACTED if any(p.search(arg) for p in SENSITIVE_VALUE) else arg


class _Head(msgspec.Struct):
    kind: str = ""
    apiVersion: str = ""


def finish_item(raw: bytes, kind: str, api_version: str) -> bytes:
    """One LIST item as ``kubectl get -o json`` prints it: with ``kind``/``apiVersion`` (the API
    omits them on list items) and redacted. Items without anything to redact are not decoded
    into dicts at all, so large lists stream at msgspec speed."""
    raw = raw.strip()
    if not any(m in raw for m in _MARKERS):
        head = msgspec.json.decode(raw, type=_Head)
        if head.kind:
            return raw
        prefix = msgspec.json.encode({"kind": kind, "apiVersion": api_version})
        if raw == b"{}":
            return prefix
        return prefix[:-1] + b"," + raw[1:]
    obj = msgspec.json.decode(raw)
    if not isinstance(obj, dict):
        return raw
    out = {"kind": obj.pop("kind", "") or kind,
           "apiVersion": obj.pop("apiVersion", "") or api_version}
    out.update(redact_obj(obj))
    return msgspec.json.encode(out)
