"""Planted credentials never leave gpuxray: not in bundles written by ``collect`` or
``node --save``, not in any report format of ``check``/``why``/``triage``, not on stderr.

Secrets are planted where real clusters keep them: registry ``auth``/``password``/
``identitytoken``/``token`` in containerd configs and drop-ins (and ``crictl info``), pod env
values (``*_TOKEN``, ``*PASSWORD*``, ``AWS_SECRET_ACCESS_KEY``), ``Authorization: Bearer``
headers in operand logs and the journal, and a kubeconfig's bearer token and client key.
"""

from __future__ import annotations

import base64
import json
import tarfile
from pathlib import Path

import pytest

from gpuxray.cli.main import run
from gpuxray.scenarios.builder import OPERATOR_NS, ClusterBuilder
from gpuxray.scenarios.demo import build_demo
from gpuxray.sources.redact import redact_text
from live_fixtures import served

SECRETS = {
    "registry-password": "Pa55w0rd-registry-4711",
    "registry-auth": base64.b64encode(b"robot:auth-secret-4711").decode(),
    "identitytoken": "idtok-4711-abcdefghijkl",
    "registry-token": "regtok-4711-abcdefghijkl",
    "env-token": "envtok-4711-abcdefghijkl",
    "env-password": "envpw-4711-abcdefghijkl",
    "aws": "wJalrXUtnFEMI/K7MDENG/bPxRfiCY4711KEY",
    "bearer-log": "bearer-log-4711-abcdefghijklmnop",
    "bearer-journal": "bearer-journal-4711-abcdefghijkl",
    "jwt": "eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiI0NzExIn0.c2lnbmF0dXJlNDcxMQ",
}

DROPIN = f"""version = 2
[plugins."io.containerd.grpc.v1.cri".registry.configs."registry.example.com".auth]
  username = "robot"
  password = "{SECRETS['registry-password']}"
  auth = "{SECRETS['registry-auth']}"
  identitytoken = "{SECRETS['identitytoken']}"
[plugins."io.containerd.grpc.v1.cri".registry.configs."other.example.com"]
  auth = {{ token = "{SECRETS['registry-token']}" }}
"""
CRICTL = json.dumps({"config": {"registry": {"configs": {"registry.example.com": {"auth": {
    "username": "robot", "password": SECRETS["registry-password"],
    "auth": SECRETS["registry-auth"], "identitytoken": SECRETS["identitytoken"]}}}}}})


def plant(b: ClusterBuilder, node: str = "gpu-2") -> ClusterBuilder:
    b.host_file(node, "etc/containerd/conf.d/zz-registry-auth.toml", DROPIN)
    b.host_cmd(node, "crictl-info.json", CRICTL)
    # the journal line GX504 quotes as evidence carries a bearer token
    jkey = f"nodes/{node}/cmd/journal-containerd.txt"
    b.files[jkey] = b.files[jkey].replace(
        "on client request.",
        f"on client request. Authorization: Bearer {SECRETS['bearer-journal']}", 1)
    assert SECRETS["bearer-journal"] in b.files[jkey]
    b.pod("ml", "leaky-0", containers=[b.container("main", gpus=1, env={
        "HF_TOKEN": SECRETS["env-token"], "DB_PASSWORD": SECRETS["env-password"],
        "AWS_SECRET_ACCESS_KEY": SECRETS["aws"], "SOME_URL": SECRETS["jwt"]})])
    driver = next(p for p in b.cluster["pods"]
                  if p["metadata"]["name"].startswith("nvidia-driver-daemonset"))
    b.log(OPERATOR_NS, driver["metadata"]["name"], "nvidia-driver-ctr",
          "Fetching https://registry.example.com/v2/token\n"
          f"> Authorization: Bearer {SECRETS['bearer-log']}\n"
          f"token={SECRETS['jwt']}\n"
          "modprobe: ERROR: could not insert 'nvidia': Key was rejected by service "
          f"(token={SECRETS['jwt']})\n")
    return b


def leaked(text: str | bytes) -> list[str]:
    if isinstance(text, bytes):
        text = text.decode("utf-8", errors="replace")
    return [k for k, v in SECRETS.items() if v in text]


@pytest.fixture(scope="module")
def planted(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return plant(build_demo()).write(tmp_path_factory.mktemp("redact") / "b")


def test_the_planted_bundle_really_holds_the_secrets(planted: Path) -> None:
    raw = b"".join(p.read_bytes() for p in planted.rglob("*") if p.is_file())
    assert sorted(leaked(raw)) == sorted(SECRETS)


REPORTS = [(args, fmt) for args in (("check",), ("why", "ml/train-llm-0"), ("why", "ml/leaky-0"))
           for fmt in ("text", "json", "markdown", "html")]
REPORTS += [(("capacity",), "text"), (("capacity",), "json")]


@pytest.mark.parametrize(("args", "fmt"), REPORTS, ids=lambda v: v if isinstance(v, str)
                         else "-".join(v))
def test_reports_never_quote_a_secret(planted: Path, capsys: pytest.CaptureFixture[str],
                                      args: tuple[str, ...], fmt: str) -> None:
    code = run([*args, "--bundle", str(planted), "-o", fmt, "--keep-going"])
    out = capsys.readouterr()
    assert code in (0, 1, 3), out.err
    assert leaked(out.out + out.err) == []


def test_triage_of_a_pasted_log_never_quotes_a_secret(planted: Path,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    log = next(planted.glob("logs/gpu-operator/nvidia-driver-daemonset*/*.log"))
    for fmt in ("text", "json"):
        run(["triage", str(log), "-o", fmt])
        out = capsys.readouterr()
        assert leaked(out.out + out.err) == []


def test_collect_writes_no_secret(planted: Path, tmp_path: Path,
                                  capsys: pytest.CaptureFixture[str]) -> None:
    kc_token = "kubeconfig-bearer-4711-abcdefgh"
    with served(planted) as srv:
        cfg = {"apiVersion": "v1", "kind": "Config", "current-context": "c",
               "clusters": [{"name": "c", "cluster": {"server": srv.url}}],
               "users": [{"name": "u", "user": {"token": kc_token}}],
               "contexts": [{"name": "c", "context": {"cluster": "c", "user": "u"}}]}
        kc = tmp_path / "kc"
        kc.write_text(json.dumps(cfg))
        out = tmp_path / "b.tgz"
        assert run(["collect", "-o", str(out), "--kubeconfig", str(kc)]) == 0
    std = capsys.readouterr()
    assert leaked(std.out + std.err) == [] and kc_token not in std.out + std.err
    with tarfile.open(out) as tar:
        for m in tar.getmembers():
            f = tar.extractfile(m)
            if f is None:
                continue
            data = f.read()
            assert leaked(data) == [], m.name
            assert kc_token.encode() not in data, m.name
        names = tar.getnames()
    assert any(n.endswith("nvidia-driver-ctr.log") for n in names)  # the log itself is kept


def test_node_save_writes_no_secret(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    host = tmp_path / "host"
    (host / "etc/containerd/conf.d").mkdir(parents=True)
    (host / "etc/containerd/config.toml").write_text(
        'version = 2\nimports = ["/etc/containerd/conf.d/*.toml"]\n')
    (host / "etc/containerd/conf.d/zz-registry-auth.toml").write_text(DROPIN)
    (host / "etc/hostname").write_text("gpu-9\n")
    cmd = host / ".gpuxray-cmd"
    cmd.mkdir()
    (cmd / "crictl-info.json").write_text(CRICTL)
    (cmd / "journal-containerd.txt").write_text(
        f"Nov 29 10:00:00 gpu-9 containerd[1]: Authorization: Bearer {SECRETS['bearer-journal']}\n")
    save = tmp_path / "saved"
    for fmt in ("text", "json"):
        run(["node", "--root", str(host), "--save", str(save), "-o", fmt])
        std = capsys.readouterr()
        assert leaked(std.out + std.err) == []
    raw = b"".join(p.read_bytes() for p in save.rglob("*") if p.is_file())
    assert raw and leaked(raw) == []
    assert b"zz-registry-auth" in b"".join(str(p).encode() for p in save.rglob("*"))


@pytest.mark.parametrize(("text", "secret"), [
    ("Authorization: Bearer abcdefghijklmnop", "abcdefghijklmnop"),
    ("authorization=Basic cm9ib3Q6cGFzcw==", "cm9ib3Q6cGFzcw=="),
    ("curl -H 'Authorization: Bearer abc.def-ghi_jkl'", "abc.def-ghi_jkl"),
    (f"x-token: {SECRETS['jwt']}", SECRETS["jwt"]),
    ("password=hunter2hunter2 and more", "hunter2hunter2"),
    ('"password": "hunter2hunter2"', "hunter2hunter2"),
    ("AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG", "wJalrXUtnFEMI/K7MDENG"),
    ("HF_TOKEN: hf_abcdefghijklmn", "hf_abcdefghijklmn"),
    ("https://robot:s3cr3tpass@registry.example.com/v2/", "s3cr3tpass"),
    ("ghp_abcdefghijklmnopqrstuvwx in a line", "ghp_abcdefghijklmnopqrstuvwx"),
])
def test_redact_text_removes(text: str, secret: str) -> None:
    assert secret not in redact_text(text)


@pytest.mark.parametrize("text", [
    "TokenExpirationSeconds:  3607",
    "level=info msg=\"token_file not set\"",
    "Insufficient nvidia.com/gpu",
    "NVIDIA_VISIBLE_DEVICES=all",
    "Xid 79 GPU has fallen off the bus",
])
def test_redact_text_keeps_diagnostic_lines(text: str) -> None:
    assert redact_text(text) == text
