"""Redaction rules for collected objects, one by one (BUNDLE.md: no credentials in a bundle)."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gpuxray.sources.redact import (
    REDACTED,
    _pod_fast,
    finish_item,
    redact_obj,
    sensitive_value,
)


@pytest.mark.parametrize(("name", "value", "secret"), [
    ("DB_PASSWORD", "hunter2", True),
    ("WANDB_API_KEY", "abc", True),
    ("HF_TOKEN", "abc", True),
    ("AWS_SECRET_ACCESS_KEY", "abc", True),
    ("BASIC_AUTH", "u:p", True),
    ("ANYTHING", "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.sig", True),
    ("ANYTHING", "ghp_0123456789abcdefghij", True),
    ("PROXY", "http://user:pass@proxy:3128", True),
    ("NVIDIA_VISIBLE_DEVICES", "all", False),
    ("NVIDIA_DRIVER_CAPABILITIES", "compute,utility", False),
    ("AUTHOR", "me", False),
    ("PROXY", "http://proxy:3128", False),
])
def test_sensitive_values(name: str, value: str, secret: bool) -> None:
    assert sensitive_value(name, value) is secret


def test_redact_walks_every_env_list_and_args() -> None:
    obj = {"spec": {"template": {"spec": {"containers": [{
        "name": "c", "env": [{"name": "PASSWORD", "value": "x"},
                             {"name": "FROM_SECRET", "valueFrom": {"secretKeyRef": {"name": "s"}}},
                             {"name": "MODE", "value": "fast"}],
        "args": ["--token=abc", "--verbose", "--db-password=pw", "--name=x"]}]}}},
        "metadata": {"annotations": {
            "kubectl.kubernetes.io/last-applied-configuration": '{"PASSWORD":"x"}',
            "other": "kept"}}}
    redact_obj(obj)
    c = obj["spec"]["template"]["spec"]["containers"][0]  # type: ignore[index]
    assert c["env"] == [{"name": "PASSWORD", "value": REDACTED},
                        {"name": "FROM_SECRET", "valueFrom": {"secretKeyRef": {"name": "s"}}},
                        {"name": "MODE", "value": "fast"}]
    assert c["args"] == ["--token=<redacted>", "--verbose", "--db-password=<redacted>",
                         "--name=x"]
    assert obj["metadata"]["annotations"] == {  # type: ignore[index]
        "kubectl.kubernetes.io/last-applied-configuration": REDACTED, "other": "kept"}


def test_finish_item_adds_kind_and_keeps_bytes_when_nothing_to_redact() -> None:
    raw = b'{"metadata":{"name":"n"},"status":{"capacity":{"nvidia.com/gpu":"8"}}}'
    out = json.loads(finish_item(raw, "Node", "v1"))
    assert out == {"kind": "Node", "apiVersion": "v1", "metadata": {"name": "n"},
                   "status": {"capacity": {"nvidia.com/gpu": "8"}}}
    has_kind = b'{"kind":"Node","apiVersion":"v1","metadata":{"name":"n"}}'
    assert finish_item(has_kind, "Node", "v1") == has_kind
    assert json.loads(finish_item(b"{}", "Node", "v1")) == {"kind": "Node", "apiVersion": "v1"}
    pod = b'{"spec":{"containers":[{"env":[{"name":"API_KEY","value":"k"}]}]}}'
    got = json.loads(finish_item(pod, "Pod", "v1"))
    assert got["kind"] == "Pod"
    assert got["spec"]["containers"][0]["env"][0]["value"] == REDACTED


def test_rbac_grants_exactly_what_the_live_source_reads() -> None:
    """deploy/rbac.yaml and the resource table must not drift: nothing more, nothing less."""
    from pathlib import Path

    import yaml

    from gpuxray.sources.apiresources import RESOURCES

    docs = list(yaml.safe_load_all(
        (Path(__file__).parent.parent / "deploy" / "rbac.yaml").read_text()))
    granted: set[tuple[str, str]] = set()
    verbs: set[str] = set()
    namespaced_only: set[tuple[str, str]] = set()
    for d in docs:
        if d["kind"] not in ("ClusterRole", "Role"):
            continue
        for rule in d["rules"]:
            verbs.update(rule["verbs"])
            for g in rule.get("apiGroups", []):
                for r in rule.get("resources", []):
                    granted.add((g, r))
                    if d["kind"] == "Role":
                        namespaced_only.add((g, r))
    wanted = {(r.group, r.plural) for r in RESOURCES} | {("", "pods/log")}
    assert granted == wanted
    assert verbs <= {"get", "list", "watch"}
    assert namespaced_only == {("", "configmaps"), ("", "pods/log")}
    assert not any(r.endswith("secrets") for _, r in granted)


# ----- the pod fast path agrees with the full walk ---------------------------------------------
def _walked(raw: bytes) -> object:
    obj = json.loads(raw)
    return {"kind": obj.pop("kind", "") or "Pod", "apiVersion": obj.pop("apiVersion", "") or "v1",
            **redact_obj(obj)}


_TEXT = st.sampled_from(["x", "all", "hunter2", "--verbose", "--token=abc", "--db-password=pw",
                         "http://u:p@proxy:3128", "ghp_0123456789abcdefghij", "python",
                         '{"PASSWORD":"x"}', "e\u00e9", "a\\b", 'q"uote'])
_NAME = st.sampled_from(["MODE", "NVIDIA_VISIBLE_DEVICES", "DB_PASSWORD", "HF_TOKEN", "USER"])
_ENV = st.lists(st.fixed_dictionaries({"name": _NAME}, optional={"value": _TEXT}), max_size=3)
_EXEC = st.fixed_dictionaries({"exec": st.fixed_dictionaries(
    {"command": st.lists(_TEXT, max_size=3)})})
_CONTAINER = st.fixed_dictionaries({"name": st.just("c")}, optional={
    "env": _ENV, "args": st.lists(_TEXT, max_size=3), "command": st.lists(_TEXT, max_size=3),
    "livenessProbe": _EXEC, "lifecycle": st.fixed_dictionaries({}, optional={"preStop": _EXEC}),
})
_POD = st.fixed_dictionaries({
    "metadata": st.fixed_dictionaries({"name": st.just("p")}, optional={
        "annotations": st.dictionaries(st.sampled_from([
            "kubectl.kubernetes.io/last-applied-configuration", "a", "nvidia.com/x"]), _TEXT),
        "labels": st.dictionaries(st.sampled_from(["app", "env"]), st.sampled_from(["x"])),
    }),
    "spec": st.fixed_dictionaries({"containers": st.lists(_CONTAINER, max_size=2)}, optional={
        "initContainers": st.lists(_CONTAINER, max_size=1),
        # keys the probe does not know, in places it does not read
        "volumes": st.lists(st.fixed_dictionaries({"csi": st.fixed_dictionaries(
            {"volumeAttributes": st.dictionaries(st.sampled_from(["env", "command"]),
                                                 _TEXT)})}), max_size=1),
        "x-extension": st.fixed_dictionaries({}, optional={
            "env": _ENV, "command": st.lists(_TEXT, max_size=2)}),
    }),
}, optional={"kind": st.just("Pod"), "apiVersion": st.just("v1")})


@settings(max_examples=300, derandomize=True, deadline=None)
@given(pod=_POD, ascii_only=st.booleans())
def test_pod_fast_path_equals_the_full_walk(pod: dict[str, object], ascii_only: bool) -> None:
    raw = json.dumps(pod, ensure_ascii=ascii_only, separators=(",", ":")).encode()
    assert json.loads(finish_item(raw, "Pod", "v1")) == _walked(raw)


def test_pod_fast_path_is_taken_for_an_ordinary_pod() -> None:
    """The bulk of a fleet: env, commands, probes and a last-applied annotation, nothing
    secret. It must not fall back to the walk (that is what made collect slow)."""
    pod = {"metadata": {"name": "p", "annotations": {
        "kubectl.kubernetes.io/last-applied-configuration": '{"spec":{"x":"y"}}'},
        "managedFields": [{"fieldsV1": {"f:spec": {"f:containers": {
            'k:{"name":"main"}': {"f:env": {}, "f:command": {}}}}}}]},
        "spec": {"containers": [{"name": "main", "command": ["python", "train.py"],
                                 "env": [{"name": "MODE", "value": "fast"}],
                                 "readinessProbe": {"exec": {"command": ["cat", "/ok"]}}}]}}
    raw = json.dumps(pod).encode()
    fast = _pod_fast(raw)
    assert fast is not None
    out = json.loads(fast)
    assert out["metadata"]["annotations"] == {
        "kubectl.kubernetes.io/last-applied-configuration": REDACTED}
    assert out == _walked(raw)
    # a secret, an escaped key, or an unknown "env" key send it down the full walk
    pod["spec"]["containers"][0]["env"].append({"name": "DB_PASSWORD", "value": "x"})  # type: ignore[index]
    assert _pod_fast(json.dumps(pod).encode()) is None
    assert _pod_fast(raw.replace(b'"env"', b'"\\u0065nv"')) is None
    assert _pod_fast(raw.replace(b'"spec":', b'"x":{"env":1},"spec":')) is None


_FRAGMENT = st.sampled_from(["--", "-", "=", "a", "Z", "_", ".", ":", "/", "@", " ", "eyJ",
                             "hbGciOi", "ghp_", "GHO_", "github_pat_", "glpat-", "xoxb-", "AKIA",
                             "asia", "sk-", "-----BEGIN ", "RSA ", "PRIVATE KEY-----", "://",
                             "user", "PassWord", "SECRET", "tok", "en", "api", "key", "Api-Key",
                             "credential", "0123456789", "AUTH", "_auth_", "Authorization",
                             "pwd", "SESSION", "cookie", "Bearer", "signature", "ACCESS_KEY",
                             "private-key"])


@settings(max_examples=2000, derandomize=True, deadline=None)
@given(parts=st.lists(_FRAGMENT, max_size=12))
def test_value_hint_is_a_superset_of_every_value_and_arg_rule(parts: list[str]) -> None:
    """The one-scan pre-check may only skip strings that no rule would redact."""
    from gpuxray.sources import redact

    text = "".join(parts)
    if any(p.search(text) for p in redact.SENSITIVE_VALUE) or redact.SENSITIVE_ARG.match(text):
        assert redact._VALUE_HINT.search(text.lower()), text
    if redact.SENSITIVE_NAME.search(text):
        assert redact._NAME_HINT.search(text.lower()), text
