"""Redaction rules for collected objects, one by one (BUNDLE.md: no credentials in a bundle)."""

from __future__ import annotations

import json

import pytest

from gpuxray.sources.redact import REDACTED, finish_item, redact_obj, sensitive_value


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
