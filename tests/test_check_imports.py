"""``check`` imports only what its input needs.

A bundle without node files, MIG layouts, DRA objects or logs parses no host text, merges no
containerd config, plans no MIG layout, walks no claim and redacts no log, so the modules that
do those (each compiling its patterns or tables on import) stay unimported: together they were
~0.1 s of every ``check``'s start (bench ``pending-storm``). The command runs in a fresh
interpreter, as a user's does.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "bench"))

from generate import generate

SRC = Path(__file__).resolve().parent.parent / "src"

#: imported only by the code paths that read what such a bundle lacks
NOT_NEEDED = (
    "gpuxray.sources.parsers.apt", "gpuxray.sources.parsers.dmesg",
    "gpuxray.sources.parsers.journal", "gpuxray.sources.parsers.lsmod",
    "gpuxray.sources.parsers.lspci", "gpuxray.sources.parsers.mokutil",
    "gpuxray.sources.parsers.nvidia_smi", "gpuxray.sources.parsers.versions",
    "gpuxray.engines.containerd", "gpuxray.engines.unit_restarts",
    "gpuxray.engines.mig", "gpuxray.knowledge.mig",
    "gpuxray.engines.dra", "gpuxray.engines.dra_gate1", "gpuxray.engines.dra_gate2",
    "gpuxray.engines.dra_cel", "gpuxray.sources.redact",
)

_PROBE = """
import sys
from gpuxray.cli.main import run
code = run(["check", "--bundle", sys.argv[1], "-o", "json"])
names = sys.argv[2:]
print(repr((code, sorted(m for m in sys.modules
                         if m in names or m.startswith(tuple(n + "." for n in names))))),
      file=sys.stderr)
"""


def test_check_on_a_bundle_without_node_files_imports_none_of_their_readers(
        tmp_path: Path) -> None:
    root = generate(tmp_path / "b", 60, 20, shape="pending-storm")
    assert not (root / "nodes").exists() and not (root / "logs").exists()
    out = subprocess.run([sys.executable, "-c", _PROBE, str(root), *NOT_NEEDED],
                         capture_output=True, text=True, check=False,
                         env={"PYTHONPATH": str(SRC), "PATH": "/usr/bin:/bin"})
    code, imported = ast.literal_eval(out.stderr.strip().splitlines()[-1])
    assert code in (1, 3), out.stderr[-2000:]
    assert '"findings"' in out.stdout
    assert imported == []


def test_constants_repeated_to_spare_an_import_stay_equal() -> None:
    """The checks repeat two constants of modules they import lazily; the two copies agree."""
    from gpuxray.checks import containerd as checks_containerd
    from gpuxray.checks import operator_config
    from gpuxray.engines import dra
    from gpuxray.engines.containerd import merge

    assert checks_containerd.ROOT_CONFIG == merge.ROOT_CONFIG
    assert operator_config.DRA_DRIVER_LABEL == dra.DRA_DRIVER_LABEL
