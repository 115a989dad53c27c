"""The CLI around the reports: kubectl plugin (real kubectl), kubectl-style -n/-A on check,
shell completion, NO_COLOR, and HTML piped to ``head``."""

from __future__ import annotations

import io
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from gpuxray.cli.main import run
from reports_fixtures import fragmented, require_binary

PLUGIN = "kubectl-gpu_xray"


def _plugin_path() -> str:
    """PATH with the directory of the installed ``kubectl-gpu_xray`` script first."""
    found = shutil.which(PLUGIN)
    if found is None:
        cand = Path(sys.executable).parent / PLUGIN
        found = str(cand) if cand.exists() else None
    if found is None:
        if os.environ.get("CI"):
            pytest.fail(f"{PLUGIN} is not installed (pip install -e . declares it)")
        pytest.skip(f"{PLUGIN} not installed")
    return os.pathsep.join([str(Path(found).parent), os.environ.get("PATH", "")])


def _kubectl(*args: str, path: str) -> subprocess.CompletedProcess[str]:
    kubectl = require_binary("kubectl")
    env = {**os.environ, "PATH": path, "KUBECONFIG": os.devnull, "NO_COLOR": "1"}
    return subprocess.run([kubectl, *args], capture_output=True, text=True, env=env,
                          timeout=120, check=False)


@pytest.mark.slow
def test_kubectl_finds_the_plugin(tmp_path: Path) -> None:
    path = _plugin_path()
    r = _kubectl("gpu-xray", "--version", path=path)
    assert r.returncode == 0 and "0." in r.stdout, r.stderr
    r = _kubectl("gpu-xray", "demo", path=path)
    assert r.returncode == 0 and "GX202" in r.stdout, r.stderr
    bundle = fragmented().write(tmp_path / "b")
    r = _kubectl("gpu-xray", "why", "ml/train", "--bundle", str(bundle), "-o", "json",
                 path=path)
    assert r.returncode == 1, r.stderr  # a finding at --fail-on error
    assert json.loads(r.stdout)["verdict"]["code"] == "GX206"


def test_check_namespace_filters_pod_findings(tmp_path: Path,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    b = fragmented()
    b.pod("team-b", "wants-9", gpus=9)  # GX205 in another namespace
    bundle = str(b.write(tmp_path / "b"))

    def subjects(*args: str) -> set[tuple[str, str | None, str]]:
        run(["check", "--bundle", bundle, "-o", "json", *args])
        doc = json.loads(capsys.readouterr().out)
        return {(f["subject"]["kind"], f["subject"]["namespace"], f["subject"]["name"])
                for f in doc["findings"]}

    everything = subjects()
    assert ("Pod", "ml", "train") in everything and ("Pod", "team-b", "wants-9") in everything
    ml = subjects("-n", "ml")
    assert ml == {s for s in everything if s[1] in (None, "ml")}
    assert ("Pod", "team-b", "wants-9") not in ml
    assert subjects("-n", "ml", "-A") == everything
    assert subjects("--all-namespaces") == everything


@pytest.mark.parametrize("shell,marker", [("bash", "complete -o"), ("zsh", "#compdef gpuxray"),
                                          ("fish", "--command gpuxray")])
def test_completion_scripts(shell: str, marker: str,
                            capsys: pytest.CaptureFixture[str]) -> None:
    assert run(["completion", shell]) == 0
    out = capsys.readouterr().out
    assert marker in out and "_GPUXRAY_COMPLETE" in out


def test_bash_completion_completes_commands() -> None:
    env = {**os.environ, "_GPUXRAY_COMPLETE": "bash_complete", "COMP_WORDS": "gpuxray ex",
           "COMP_CWORD": "1"}
    r = subprocess.run([sys.executable, "-m", "gpuxray"], capture_output=True, text=True,
                       env=env, timeout=60, check=False)
    assert "plain,exporter" in r.stdout.splitlines()


def test_completion_rejects_unknown_shell(capsys: pytest.CaptureFixture[str]) -> None:
    assert run(["completion", "tcsh"]) == 2


class _Terminal(io.StringIO):
    """A stdout that says it is a terminal, where colour would otherwise be on."""

    def isatty(self) -> bool:
        return True


@pytest.mark.parametrize("no_color", [True, False])
def test_no_color_means_no_escape_codes(no_color: bool, tmp_path: Path,
                                        monkeypatch: pytest.MonkeyPatch) -> None:
    bundle = fragmented().write(tmp_path / "b")
    term = _Terminal()
    monkeypatch.setattr(sys, "stdout", term)
    monkeypatch.setenv("COLUMNS", "100")
    if no_color:
        monkeypatch.setenv("NO_COLOR", "1")
    else:
        monkeypatch.delenv("NO_COLOR", raising=False)
    assert run(["check", "--bundle", str(bundle)]) == 1
    out = term.getvalue()
    assert "GX206" in out
    assert ("\x1b[" in out) is not no_color


def test_html_piped_to_head(tmp_path: Path) -> None:
    bundle = fragmented().write(tmp_path / "b")
    p = subprocess.run(f"{sys.executable} -m gpuxray check --bundle {bundle} -o html | head -1",
                       shell=True, capture_output=True, text=True, timeout=60, check=False)
    assert p.returncode == 0 and p.stdout.strip() == "<!DOCTYPE html>"
    assert "Traceback" not in p.stderr and "Broken pipe" not in p.stderr
