"""The device-plugin config validator (GX413's engine): real-format documents against the
plugin's schema table (facts.md §6.1), with each problem's path; bad input never raises."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gpuxray.engines.plugin_config import validate
from gpuxray.knowledge.plugin_config import SCHEMA, key_homes

# The time-slicing example of NVIDIA's GPU Operator documentation, as users paste it.
DOCS_TIME_SLICING = """\
version: v1
flags:
  migStrategy: none
sharing:
  timeSlicing:
    renameByDefault: false
    failRequestsGreaterThanOne: false
    resources:
    - name: nvidia.com/gpu
      replicas: 4
"""
FULL = """\
version: v1
flags:
  migStrategy: mixed
  failOnInitError: true
  nvidiaDriverRoot: /run/nvidia/driver
  gdsEnabled: false
  gdrcopyEnabled: false
  mofedEnabled: false
  plugin:
    sharedDevicesAllocationPolicy: packed
    passDeviceSpecs: true
    deviceListStrategy: [cdi-annotations, cdi-cri]
    deviceIDStrategy: uuid
    containerDriverRoot: /driver-root
  gfd:
    oneshot: false
    noTimestamp: false
    sleepInterval: 60s
    outputFile: /etc/kubernetes/node-feature-discovery/features.d/gfd
    machineTypeFile: /sys/class/dmi/id/product_name
sharing:
  mps:
    resources:
    - name: nvidia.com/gpu
      replicas: 2
"""


def paths(text: str) -> dict[str, bool]:
    return {i.path: i.fatal for i in validate(text)}


@pytest.mark.parametrize("doc", [DOCS_TIME_SLICING, FULL,
                                 '{"version": "v1", "flags": {"migStrategy": "single"}}'])
def test_valid_documents_have_no_issue(doc: str) -> None:
    assert validate(doc) == ()


@pytest.mark.parametrize(("doc", "path", "fatal"), [
    # the classic ticket: renameByDefault one level off
    ("version: v1\nflags:\n  renameByDefault: true\n", "flags.renameByDefault", False),
    ("version: v1\nsharing:\n  timeslicing:\n    resources: []\n", "sharing.timeslicing", False),
    ("version: v1\nflags:\n  plugin:\n    passDeviceSpec: true\n", "flags.plugin.passDeviceSpec",
     False),
    # gfd settings at the top of flags instead of flags.gfd
    ("version: v1\nflags:\n  oneshot: true\n", "flags.oneshot", False),
    ("version: v2\n", "version", True),
    ("flags: {}\n", "version", True),
    ("version: v1\nflags:\n  migStrategy: auto\n", "flags.migStrategy", True),
    ("version: v1\nflags:\n  gfd:\n    sleepInterval: soon\n", "flags.gfd.sleepInterval", True),
    ("version: v1\nflags:\n  failOnInitError: \"yes\"\n", "flags.failOnInitError", True),
    ("version: v1\nsharing:\n  timeSlicing:\n    resources:\n    - name: nvidia.com/gpu\n"
     "      replicas: 1\n", "sharing.timeSlicing.resources[0].replicas", True),
    # k8s-device-plugin@v0.20.0 cmd/nvidia-device-plugin/main.go validates the policy
    ("version: v1\nflags:\n  plugin:\n    sharedDevicesAllocationPolicy: spread\n",
     "flags.plugin.sharedDevicesAllocationPolicy", True),
    # flags/env only (main.go), no json tag in PluginCommandLineFlags: ignored in the file
    ("version: v1\nflags:\n  plugin:\n    nvidiaCDIHookPath: /usr/bin/nvidia-cdi-hook\n",
     "flags.plugin.nvidiaCDIHookPath", False),
    ("version: v1\nflags:\n  plugin:\n    driverRootCtrPath: /driver-root\n",
     "flags.plugin.driverRootCtrPath", False),
    # DisableResourceNamingInConfig drops resources and custom device lists (config.go)
    ("version: v1\nresources:\n  gpus:\n  - pattern: \"*A100*\"\n    name: a100\n",
     "resources", False),
    ("version: v1\nsharing:\n  timeSlicing:\n    resources:\n    - name: nvidia.com/gpu\n"
     "      devices: [0, 1]\n      replicas: 4\n", "sharing.timeSlicing.resources[0].devices",
     False),
    ("version: v1\nsharing:\n  timeSlicing:\n    resources:\n    - name: nvidia.com/gpu\n"
     "      replicas: 0\n", "sharing.timeSlicing.resources[0].replicas", True),
    ("version: v1\nsharing:\n  timeSlicing:\n    resources:\n    - name: nvidia.com/gpu\n",
     "sharing.timeSlicing.resources[0].replicas", True),
    ("version: v1\nsharing:\n  timeSlicing:\n    resources:\n    - name: amd.com/gpu\n"
     "      replicas: 4\n", "sharing.timeSlicing.resources[0].name", True),
    ("version: v1\nsharing:\n  mps:\n    resources:\n    - name: nvidia.com/mig-1g.10gb\n"
     "      replicas: 4\n", "sharing.mps.resources[0].name", True),
    ("version: v1\nsharing:\n  timeSlicing:\n    resources:\n    - name: nvidia.com/gpu\n"
     "      rename: gpu-shared\n      replicas: 4\n", "sharing.timeSlicing.resources[0].rename",
     False),
    ("version: v1\nsharing:\n  timeSlicing:\n    resources:\n      name: nvidia.com/gpu\n",
     "sharing.timeSlicing.resources", True),
    ("version: v1\nsharing:\n  timeSlicing:\n    resources:\n    - name: nvidia.com/gpu\n"
     "     replicas: 4\n", "<document>", True),
])
def test_problem_is_reported_with_its_path(doc: str, path: str, fatal: bool) -> None:
    found = paths(doc)
    assert path in found, found
    assert found[path] is fatal


def test_misplaced_key_names_where_it_belongs() -> None:
    [issue] = validate("version: v1\nflags:\n  renameByDefault: true\n")
    assert issue.kind == "misplaced" and not issue.fatal
    assert issue.belongs == ("sharing.mps", "sharing.timeSlicing")


def test_schema_table_knows_the_nested_homes() -> None:
    homes = key_homes()
    assert set(homes["renameByDefault"]) == {"sharing.timeSlicing", "sharing.mps"}
    assert homes["sleepInterval"] == ["flags.gfd"]
    assert homes["replicas"] == ["sharing.timeSlicing.resources[]", "sharing.mps.resources[]"]
    assert set(SCHEMA.fields) == {"version", "flags", "resources", "sharing", "imex"}


@pytest.mark.parametrize("junk", ["", "- a\n- b\n", "just text", "\x00\x01\x02binary",
                                  "{" * 5000, "a: [" * 2000, "[" * 100_000],
                         ids=["empty", "list", "text", "binary", "braces", "nested", "deep"])
def test_junk_is_one_issue_never_an_exception(junk: str) -> None:
    issues = validate(junk)
    assert len(issues) == 1 and issues[0].path == "<document>" and issues[0].fatal


def test_many_unknown_keys_are_capped() -> None:
    doc = "version: v1\n" + "".join(f"k{i}: 1\n" for i in range(500))
    assert len(validate(doc)) == 50


@settings(max_examples=150, deadline=None)
@given(st.recursive(st.none() | st.booleans() | st.integers() | st.text(max_size=8),
                    lambda c: st.lists(c, max_size=4)
                    | st.dictionaries(st.sampled_from(
                        ["version", "flags", "sharing", "timeSlicing", "mps", "resources",
                         "name", "replicas", "renameByDefault", "gfd", "plugin", "x"]), c,
                        max_size=4), max_leaves=20))
def test_any_structure_validates_without_raising(doc: object) -> None:
    import json

    for issue in validate(json.dumps(doc)):
        assert issue.path and issue.problem
