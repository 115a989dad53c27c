"""The device-handing components' signature families (knowledge/signatures_devices.py, and the
wording variants the same audit added to signatures in other modules): each example line ranks
first the code of the cause its source means, through the same triage a paste goes through;
look-alike lines of other causes stay on their own codes."""

from __future__ import annotations

import pytest

from gpuxray.diagnose.triage import triage
from gpuxray.knowledge.signatures import SIGNATURES, Signature
from gpuxray.knowledge.signatures_devices import DEVICES_SIGNATURES

_BY_ID = {s.id: s for s in SIGNATURES}

# signature id -> the code each of its example lines must rank first
FAMILY = {
    "mig-manager-state-label": "GX407",
    "mig-parted-hooks": "GX407",
    "dra-device-unhealthy": "GX203",
    "dra-feature-gates": "GX415",
    "dra-computedomain-node": "GX415",
    "dra-config-rejected": "GX308",
    "dra-device-held": "GX308",
    "gfd-nodefeature-write": "GX414",
    "plugin-mps-daemon-unhealthy": "GX202",
    # widened in their own modules by this audit
    "plugin-mps-invalid": "GX413",
    "plugin-no-nvml": "GX514",
    "config-manager-switch": "GX413",
    "gfd-mig-single-empty": "GX407",
}


def _top_code(text: str) -> str | None:
    causes = triage([("paste", text)]).causes
    return causes[0].cause.code if causes else None


def test_devices_family_is_joined_and_tabled() -> None:
    ids = {s.id for s in SIGNATURES}
    assert {s.id for s in DEVICES_SIGNATURES} <= ids
    assert {s.id for s in DEVICES_SIGNATURES} <= set(FAMILY)
    assert set(FAMILY) <= ids


@pytest.mark.parametrize("sig_id", sorted(FAMILY))
def test_each_example_ranks_its_code_first(sig_id: str) -> None:
    sig: Signature = _BY_ID[sig_id]
    for ex in sig.examples:
        assert _top_code(ex.line) == FAMILY[sig_id], (sig_id, ex.line)


@pytest.mark.parametrize("sig", DEVICES_SIGNATURES, ids=lambda s: s.id)
def test_examples_cite_the_component_at_a_tag(sig: Signature) -> None:
    for ex in sig.examples:
        assert ex.source.startswith(("NVIDIA/mig-parted@", "NVIDIA/k8s-dra-driver-gpu@",
                                     "NVIDIA/k8s-device-plugin@")), \
            ex.source


# (line, code): look-alikes that must keep their own cause
_LOOK_ALIKES = (
    # the wrapper alone (the plugin's Prepare failing for its own reason) stays the plugin's
    ("Failed to prepare dynamic resources: NodePrepareResources failed for claim ml/job-0: "
     "error preparing devices for claim 5f0c: prepare devices failed: MPS control daemon is "
     "not yet ready", "GX308"),
    # mig-manager moving the state label to failed is the layout failing, as before
    ("Changing the 'nvidia.com/mig.config.state' node label to 'failed'", "GX407"),
    # the validator's own symlink step is not config-manager's
    ("error validating driver installation: error creating symlinks: failed to create symlink "
     "creator", None),
    # the device plugin's Xid line stays the unhealthy device (not the DRA driver's)
    ("XidCriticalError: Xid=79 on Device=GPU-8d7b; marking device as unhealthy.", "GX203"),
)


@pytest.mark.parametrize(("line", "code"), _LOOK_ALIKES)
def test_look_alikes_keep_their_cause(line: str, code: str | None) -> None:
    got = _top_code(line)
    if code is None:
        assert got is None or got not in {"GX413", "GX408"}
    else:
        assert got == code, line
