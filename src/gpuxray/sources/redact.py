"""Redaction of collected objects before they are written to a bundle (BUNDLE.md).

A bundle is attached to tickets, so it must not carry credentials: Secrets are never listed at
all, and in what is listed, environment values whose name or shape says "credential" become
``"<redacted>"``, as do ``--password=…``-style arguments and the last-applied annotation (it
repeats the whole spec, env values included). Checks read env *names* and non-secret values such
as ``NVIDIA_VISIBLE_DEVICES``, which are kept. The rules are data, tested one by one.
"""

# Annotations stay real objects: msgspec would compile each string annotation of the Structs
# here on first decode (see model/k8s.py).

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


# A superset of what SENSITIVE_VALUE and SENSITIVE_ARG can match, as one scan: a fleet's
# commands and env values are nearly all plain, and five searches each cost 5× one.
# Searched in lower-cased text: a case-insensitive alternation scans ~8× slower.
_VALUE_HINT = re.compile(r"eyj|gh[pos]_|github_pat_|glpat-|xox[abpr]-|akia|asia|sk-|"
                         r"private key|://|passw|secret|token|api-?key|credential")


# A superset of SENSITIVE_NAME (its anchored ``auth`` taken anywhere), as one scan.
_NAME_HINT = re.compile(r"passw|secret|token|api[_-]?key|access[_-]?key|private[_-]?key|"
                        r"credential|auth|pwd|session|cookie|bearer|signature")


def sensitive_value(name: str, value: str) -> bool:
    if SENSITIVE_NAME.search(name):
        return True
    return bool(_VALUE_HINT.search(value.lower())) and any(
        p.search(value) for p in SENSITIVE_VALUE)


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
    """Redact in place (and return) any JSON-like object: env lists, args, annotations.

    ``managedFields`` is not walked: the API server only accepts field *sets* there (``f:env``,
    ``k:{"name":…}`` keys over empty objects), which hold no values to redact; it is a quarter
    of a pod's tree."""
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
            elif key != "managedFields":
                redact_obj(val)
    elif isinstance(obj, list):
        for v in obj:
            redact_obj(v)
    return obj


def _redact_arg(arg: str) -> str:
    if not _VALUE_HINT.search(arg.lower()):
        return arg
    m = SENSITIVE_ARG.match(arg)
    if m:
        return m.group(1) + REDACTED
    return REDACTED if any(p.search(arg) for p in SENSITIVE_VALUE) else arg


class _Head(msgspec.Struct):
    kind: str = ""
    apiVersion: str = ""


# ----- the pod fast path -----------------------------------------------------------------------
# A fleet's pods are nearly all the bytes of a collection, and every pod has env or command
# lists, so decoding each into dicts to walk it was most of ``collect``'s time. For a Pod, the
# places :func:`redact_obj` acts on are known (container env/args/command, probe and hook exec
# commands, metadata.annotations); a typed probe reads just those. The probe is trusted only when
# the raw text holds no more of those keys than the probe saw (a key written with a ``\u``
# escape could hide, so any such escape takes the full walk too).
class _Env(msgspec.Struct):
    name: str = ""
    value: str | None = None


class _Exec(msgspec.Struct):
    command: list[str] | None = None


class _Handler(msgspec.Struct, rename="camel"):
    exec: _Exec | None = None


class _Lifecycle(msgspec.Struct, rename="camel"):
    post_start: _Handler | None = None
    pre_stop: _Handler | None = None


class _Container(msgspec.Struct, rename="camel"):
    env: list[_Env] | None = None
    args: list[str] | None = None
    command: list[str] | None = None
    lifecycle: _Lifecycle | None = None
    liveness_probe: _Handler | None = None
    readiness_probe: _Handler | None = None
    startup_probe: _Handler | None = None


class _PodSpec(msgspec.Struct, rename="camel"):
    containers: list[_Container] | None = None
    init_containers: list[_Container] | None = None
    ephemeral_containers: list[_Container] | None = None


class _Meta(msgspec.Struct):
    annotations: dict[str, str] | None = None


class _PodProbe(msgspec.Struct):
    kind: str = ""
    apiVersion: str = ""
    metadata: _Meta | None = None
    spec: _PodSpec | None = None


_POD_PROBE = msgspec.json.Decoder(_PodProbe)
_LAST_APPLIED = re.compile(  # the string body unrolled: one alternation per char is 10× slower
    rb'("kubectl\.kubernetes\.io/last-applied-configuration"\s*:\s*)"[^"\\]*(?:\\.[^"\\]*)*"')
_REDACTED_JSON = msgspec.json.encode(REDACTED)
_LAST_APPLIED_KEY = msgspec.json.encode(REDACTED_ANNOTATIONS[0]) + b":"
# annotations other than last-applied that are redacted whole: the probe leaves them to the walk
_OTHER_REDACTED: tuple[str, ...] = REDACTED_ANNOTATIONS[1:]


def _pod_fast(raw: bytes) -> bytes | None:
    """The redacted pod without decoding it into dicts, or None when the full walk must run."""
    if b"\\u" in raw:
        return None
    try:
        pod = _POD_PROBE.decode(raw)
    except (msgspec.DecodeError, msgspec.ValidationError):
        return None
    seen = {b'"env"': 0, b'"args"': 0, b'"command"': 0, b'"annotations"': 0}
    last_applied, last_applied_value = False, None
    annotations = pod.metadata.annotations if pod.metadata is not None else None
    if annotations is not None:
        seen[b'"annotations"'] += 1
        if any(a in annotations for a in _OTHER_REDACTED):
            return None
        last_applied_value = annotations.get(REDACTED_ANNOTATIONS[0])
        last_applied = last_applied_value is not None and last_applied_value != REDACTED
    spec = pod.spec
    envs: list[_Env] = []
    words: list[str] = []
    for group in ((spec.containers, spec.init_containers, spec.ephemeral_containers)
                  if spec is not None else ()):
        for c in group or ():
            if c.env is not None:
                seen[b'"env"'] += 1
                envs += c.env
            commands = [c.command, *(h.exec.command for h in _handlers(c) if h.exec)]
            for lst, key in ((c.args, b'"args"'), *((x, b'"command"') for x in commands)):
                if lst is not None:
                    seen[key] += 1
                    words += lst
    # one scan of the pod's names and of its values and words; only a hit pays for the rules
    values = [e.value for e in envs if e.value is not None]
    if _NAME_HINT.search("\n".join(e.name for e in envs if e.value is not None).lower()) and any(
            e.value is not None and sensitive_value(e.name, e.value) for e in envs):
        return None
    if _VALUE_HINT.search("\n".join((*values, *words)).lower()) and (
            any(sensitive_value("", v) for v in values)
            or any(_redact_arg(w) != w for w in words)):
        return None
    # Every "env" in the text, key or value, against the keys the probe read: more in the text
    # (a key elsewhere, or just a value spelled the same) sends the pod to the walk.
    if any(raw.count(key) != n for key, n in seen.items()):
        return None
    if last_applied:
        # the value as the API server escapes it, found verbatim; else the pattern finds it
        whole = _LAST_APPLIED_KEY + msgspec.json.encode(last_applied_value)
        at = raw.find(whole)
        if at >= 0 and raw.find(whole, at + 1) < 0:
            raw = b"".join((raw[:at], _LAST_APPLIED_KEY, _REDACTED_JSON, raw[at + len(whole):]))
        else:
            raw, n = _LAST_APPLIED.subn(lambda m: m.group(1) + _REDACTED_JSON, raw)
            if n != 1:
                return None
    return _headed(raw, pod.kind, pod.apiVersion, "Pod", "v1")


def _handlers(c: _Container) -> list[_Handler]:
    hs = [c.liveness_probe, c.readiness_probe, c.startup_probe]
    if c.lifecycle is not None:
        hs += [c.lifecycle.post_start, c.lifecycle.pre_stop]
    return [h for h in hs if h is not None]


def _headed(raw: bytes, has_kind: str, has_version: str, kind: str,
            api_version: str) -> bytes | None:
    """``raw`` with ``kind`` and ``apiVersion`` (the API omits them on list items); None when
    only one of them is there (rare: the full path rebuilds the object)."""
    if has_kind and has_version:
        return raw
    if has_kind or has_version:
        return None
    prefix = msgspec.json.encode({"kind": kind, "apiVersion": api_version})
    if raw == b"{}":
        return prefix
    return prefix[:-1] + b"," + raw[1:]


def finish_item(raw: bytes, kind: str, api_version: str) -> bytes:
    """One LIST item as ``kubectl get -o json`` prints it: with ``kind``/``apiVersion`` (the API
    omits them on list items) and redacted. Items without anything to redact, and ordinary pods,
    are not decoded into dicts at all, so large lists stream at msgspec speed."""
    raw = raw.strip()
    fast: bytes | None = None
    if not any(m in raw for m in _MARKERS):
        head = msgspec.json.decode(raw, type=_Head)
        fast = _headed(raw, head.kind, head.apiVersion, kind, api_version)
    elif kind == "Pod" and raw[:1] == b"{":
        fast = _pod_fast(raw)
    if fast is not None:
        return fast
    obj = msgspec.json.decode(raw)
    if not isinstance(obj, dict):
        return raw
    out = {"kind": obj.pop("kind", "") or kind,
           "apiVersion": obj.pop("apiVersion", "") or api_version}
    out.update(redact_obj(obj))
    return msgspec.json.encode(out)
