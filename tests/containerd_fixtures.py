"""Config trees for the containerd engine and check tests (seed §5, facts.md §1-§2)."""

from __future__ import annotations

from gpuxray.engines.containerd import Analysis, FactsReader, analyse, resolve_version
from gpuxray.scenarios.builder import ClusterBuilder

CRI = 'plugins."io.containerd.grpc.v1.cri"'
CRI_RT3 = 'plugins."io.containerd.cri.v1.runtime"'
CRI_IMG3 = 'plugins."io.containerd.cri.v1.images"'

ROOT_V2 = f'''version = 2
imports = ["/etc/containerd/conf.d/*.toml"]

[{CRI}]
  sandbox_image = "registry.k8s.io/pause:3.9"
  [{CRI}.containerd]
    default_runtime_name = "runc"
  [{CRI}.containerd.runtimes.runc]
    runtime_type = "io.containerd.runc.v2"
  [{CRI}.containerd.runtimes.runc.options]
    SystemdCgroup = true
'''


def toolkit_dropin(version: int = 2) -> str:
    """What nvidia-ctk writes for a v2 source: the whole CRI section copied, plus the three
    nvidia runtimes (facts.md §2.1, §2.3)."""
    out = [f"version = {version}", f"[{CRI}]", '  sandbox_image = "registry.k8s.io/pause:3.9"',
           f"[{CRI}.containerd]", '  default_runtime_name = "runc"',
           f"[{CRI}.containerd.runtimes.runc]", '  runtime_type = "io.containerd.runc.v2"',
           f"[{CRI}.containerd.runtimes.runc.options]", "  SystemdCgroup = true"]
    for name, suffix in (("nvidia", ""), ("nvidia-cdi", ".cdi"), ("nvidia-legacy", ".legacy")):
        out += [f"[{CRI}.containerd.runtimes.{name}]",
                '  runtime_type = "io.containerd.runc.v2"',
                f"[{CRI}.containerd.runtimes.{name}.options]",
                f'  BinaryName = "/usr/local/nvidia/toolkit/nvidia-container-runtime{suffix}"']
    return "\n".join(out) + "\n"


#: Seed §5: the three-line registry drop-in.
REGISTRY_DROPIN = f'''version = 2
[{CRI}.registry]
  config_path = "/etc/containerd/certs.d"
'''


def run(files: dict[str, str], version: str = "1.7.27", **kw: object) -> Analysis:
    """Analyse a tree given as {host path: text}."""
    reader = FactsReader({k.lstrip("/"): v for k, v in files.items()})
    return analyse(reader, resolve_version((version, "test")), **kw)  # type: ignore[arg-type]


def node_with_files(b: ClusterBuilder, name: str, files: dict[str, str], *,
                    version: str | None = "containerd containerd.io 1.7.27 05044ec0a9a7",
                    gpus: int = 4) -> None:
    b.node(name, gpus=gpus)
    for path, text in files.items():
        b.host_file(name, path, text)
    if version is not None:
        b.host_cmd(name, "containerd-version.txt", version + "\n")


#: A containerd 2.x root as the toolkit leaves it (imports added, runc kept; the shape of
#: NVIDIA/nvidia-container-toolkit@v1.20.0 config_test.go "v3: minimal config").
ROOT_V3 = f'''version = 3
imports = ["/etc/containerd/conf.d/*.toml"]
[{CRI_RT3}.containerd.runtimes.runc]
  runtime_type = "io.containerd.runc.v2"
[{CRI_RT3}.containerd.runtimes.runc.options]
  BinaryName = "/usr/bin/runc"
  SystemdCgroup = true
'''


def toolkit_dropin_v3() -> str:
    """What nvidia-ctk writes for a v3 source: the three nvidia runtimes and the copied runc
    (facts.md §2.1)."""
    out = ["version = 3"]
    for name, suffix in (("nvidia", ""), ("nvidia-cdi", ".cdi"), ("nvidia-legacy", ".legacy")):
        out += [f"[{CRI_RT3}.containerd.runtimes.{name}]",
                '  runtime_type = "io.containerd.runc.v2"',
                f"[{CRI_RT3}.containerd.runtimes.{name}.options]",
                f'  BinaryName = "/usr/bin/nvidia-container-runtime{suffix}"',
                "  SystemdCgroup = true"]
    out += [f"[{CRI_RT3}.containerd.runtimes.runc]", '  runtime_type = "io.containerd.runc.v2"',
            f"[{CRI_RT3}.containerd.runtimes.runc.options]", '  BinaryName = "/usr/bin/runc"',
            "  SystemdCgroup = true"]
    return "\n".join(out) + "\n"
