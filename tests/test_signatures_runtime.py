"""The runtime side's signature families (knowledge/signatures_runtime.py): every real line each
one carries ranks the cause the message means first, through the engine the bundle checks and
triage use; and the look-alikes that share their words stay apart."""

from __future__ import annotations

import pytest

from gpuxray.engines.signatures import full_matcher, rank
from gpuxray.knowledge.signatures import SIGNATURES, Signature
from gpuxray.knowledge.signatures_runtime import RUNTIME_SIGNATURES

# the code each family's lines must rank first, read from the code around each message
EXPECTED = {
    "kubelet-plugin-stream-ended": "GX202",
    "kubelet-plugin-dial-failed": "GX202",
    "admission-plugin-not-registered": "GX310",
    "admission-allocate-rpc-error": "GX310",
    "hook-subcommand-unknown": "GX307",
    "containerd-default-runtime-undefined": "GX509",
    "containerd-shim-not-installed": "GX307",
    "containerd-runtime-name-invalid": "GX509",
    "crio-default-runtime-undefined": "GX301",
    "crio-runtime-path-invalid": "GX307",
    "crio-hooks-dir-openshift-path": "GX512",
    "oci-hook-kind-failed": "GX307",
    "crun-nvidia-hook-failed": "GX307",
    "oci-driver-file-mount-missing": "GX307",
    "cdi-host-device-missing": "GX305",
    "cdi-conflicting-device": "GX305",
    "ctk-lowlevel-runtime-missing": "GX307",
    "ctk-requirements-not-met": "GX311",
    "ctk-cdi-unresolved": "GX305",
    "ctk-cdi-registry-errors": "GX305",
    "ctk-cdi-vendor-mixed": "GX307",
    "hook-cli-missing": "GX307",
    "hook-config-missing": "GX307",
    "hook-request-refused": "GX307",
    "cdi-hook-step-failed": "GX307",
    "cdi-hook-binary-missing": "GX307",
    "ctk-config-version-unsupported": "GX409",
    "ctk-configure-load-failed": "GX509",
    "ctk-configure-flush-failed": "GX301",
    "ctk-cdi-generate-failed": "GX305",
    "ctk-cdi-invalid-mode": "GX305",
    "ctk-cdi-refresh-unit-failed": "GX305",
    "ctk-cdi-refresh-condition": "GX305",
    "cli-other-stage": "GX307",
    "cli-shared-libraries": "GX307",
    "cli-nvml-unknown-init": "GX304",
    "cli-nvml-unknown-detection": "GX304",
    "cli-kernel-module-load": "GX304",
    "ctk-runtime-config-invalid": "GX307",
    "ctk-lowlevel-runtime-unusable": "GX307",
    "ctk-discover-failed": "GX307",
    "ctk-cdi-mount-request-invalid": "GX305",
    "cdi-hook-container-state": "GX307",
    "ctk-load-modules-failed": "GX304",
    "ctk-cdi-list-registry-errors": "GX305",
    "ctk-configure-runtime-unrecognized": "GX301",
    "cdi-spec-invalid": "GX305",
    "cdi-registry-configure-failed": "GX305",
    "admission-request-changed": "GX310",
    "admission-plugin-allocate-error": "GX310",
    "kubelet-checkpoint-write": "GX310",
    "kubelet-registration-refused": "GX202",
    "crio-runtime-type-invalid": "GX307",
    "plugin-device-map-nvml-unknown": "GX304",
    "plugin-mig-strategy-mismatch": "GX419",
    "plugin-setup-failed": "GX202",
    "ctk-runtime-legacy-wrap": "GX307",
    "ctk-device-nodes-failed": "GX304",
    "cli-rpc-timeout": "GX307",
    "cli-unknown-mig-device": "GX307",
    "cli-no-pci-gpu": "GX604",
    "ctk-runtime-mode-invalid": "GX307",
    "nvcdi-libcuda-missing": "GX305",
    "nvcdi-no-device-nodes": "GX305",
    "nvcdi-device-identifier": "GX307",
    "ctk-cdi-annotation-invalid": "GX305",
    "hook-oci-spec-unreadable": "GX307",
    "hook-config-option-invalid": "GX307",
}

# lines whose own detail names a deeper cause than their family's: NVML's library missing is
# why no CDI spec could be generated
EXPECTED_LINE = {"failed to initialize NVML: ERROR_LIBRARY_NOT_FOUND": "GX304"}


def _top(text: str) -> list[str]:
    return list(dict.fromkeys(c.cause.code for c in rank(full_matcher().scan_text(text))))


def test_every_runtime_family_is_joined_and_expected() -> None:
    ids = {s.id for s in SIGNATURES}
    assert {s.id for s in RUNTIME_SIGNATURES} <= ids
    assert set(EXPECTED) == {s.id for s in RUNTIME_SIGNATURES}


@pytest.mark.parametrize("sig", RUNTIME_SIGNATURES, ids=lambda s: s.id)
def test_each_real_line_ranks_its_cause_first(sig: Signature) -> None:
    assert sig.examples
    for ex in sig.examples:
        assert sig in full_matcher().match_line(ex.line), ex.line
        want = next((c for k, c in EXPECTED_LINE.items() if k in ex.line), EXPECTED[sig.id])
        codes = _top(ex.line)
        assert codes and codes[0] == want, (ex.line, codes)


@pytest.mark.parametrize(("line", "code"), [
    # journald/logrus quote the error as a field: the handler lines still name GX301
    ('level=error msg="RunPodSandbox for &PodSandboxMetadata{Name:p,} failed, error" '
     'error="failed to get sandbox runtime: no runtime for \\"nvidia\\" is configured"', "GX301"),
    ('error="failed to get runtimeHandler \\"nvidia\\": no runtime for \\"nvidia\\" is '
     'configured"', "GX301"),
    ('error="failed to find runtime handler \\"nvidia\\""', "GX301"),
    # the toolkit too old for containerd 2.x's config, even when configure wraps it
    ("unable to load config for runtime containerd: unsupported config version: 3", "GX409"),
    # the image's CUDA requirement wins over the runtime's wrapper around it
    ("failed to create NVIDIA Container Runtime: failed to construct OCI spec modifier: "
     "requirements not met: unsatisfied condition: cuda>=12.4 (cuda=12.2)", "GX311"),
    # a CDI spec naming a device node the host lacks: the spec, not the runtime
    ("could not apply required modification to OCI specification: error modifying OCI spec: "
     "failed to inject CDI devices: failed to inject devices: failed to stat CDI host device "
     '"/dev/dri/card0": no such file or directory: unknown', "GX305"),
    # the device plugin's stream dropping is an advertising problem, not admission
    ('E0101 client.go:90] "ListAndWatch ended unexpectedly for device plugin" err="rpc error: '
     'code = Canceled desc = grpc: the client connection is closing" resource="nvidia.com/gpu"',
     "GX202"),
])
def test_lines_rank_the_cause_they_mean(line: str, code: str) -> None:
    assert _top(line)[:1] == [code]


@pytest.mark.parametrize(("line", "sig_id"), [
    # runc 1.2's full wrapper is the core hook signature's; the tail-only family stays off it
    # so one line is not counted twice
    ("error running createContainer hook #0: exit status 1, stdout: , stderr: x",
     "oci-hook-kind-failed"),
    ("error running prestart hook #0: exit status 1, stdout: , stderr: x", "oci-hook-kind-failed"),
    # crun failing another vendor's hook is not the NVIDIA runtime's
    ("error executing hook `/usr/libexec/oci/hooks.d/oci-systemd-hook` (exit code: 1)",
     "crun-nvidia-hook-failed"),
    # runc failing to mount something that is not a driver file
    ('error mounting "proc" to rootfs at "/proc": mount proc:/proc: no such file or directory',
     "oci-driver-file-mount-missing"),
    # config versions the toolkit has always read
    ("unable to load config: unsupported config version: 1", "ctk-config-version-unsupported"),
    # the unsupported version is its own family, not a broken containerd config
    ("unable to load config for runtime containerd: unsupported config version: 3",
     "ctk-configure-load-failed"),
    # kubelet's newer wording is the core signature's
    ("Allocate failed due to cannot allocate unregistered device nvidia.com/gpu, which is "
     "unexpected", "admission-plugin-not-registered"),
    # a plugin refusing the request names its own reason: not a transport failure
    ("Allocate failed due to rpc error: code = Unknown desc = invalid request: maximum request "
     "size for shared resources is 1; found 2, which is unexpected",
     "admission-allocate-rpc-error"),
    # a CDI device name without the vendor=device shape is no conflict report
    ("conflicting device names in request", "cdi-conflicting-device"),
])
def test_look_alikes_stay_apart(line: str, sig_id: str) -> None:
    assert sig_id not in {s.id for s in full_matcher().match_line(line)}


def test_wrapped_create_error_keeps_both_steps() -> None:
    """A runc 1.2 create error with the CDI hook's stderr: the hook step decides GX307 and the
    wrapper adds to it, while nothing else is voted."""
    line = ("Error: failed to create containerd task: failed to create shim task: OCI runtime "
            "create failed: runc create failed: unable to start container process: error during "
            "container init: error running createRuntime hook #0: exit status 1, stdout: , "
            "stderr: time=\"2025-03-04T10:00:00Z\" level=error msg=\"failed to create link "
            "[libcuda.so.1 /usr/lib64/libcuda.so]: failed to create symlink: file exists\"")
    ranked = rank(full_matcher().scan_text(line))
    assert [c.cause.code for c in ranked] == ["GX307"]
    assert ranked[0].deciding
    assert {"oci-hook-kind-failed", "cdi-hook-step-failed", "oci-create-failed"} <= set(
        ranked[0].signatures)


def test_an_example_in_the_place_of_deciding_is_refused() -> None:
    """The family modules' helper takes ``deciding`` positionally before the examples: an
    example written right after ``kinds`` would otherwise make a deciding signature with no
    example."""
    from gpuxray.knowledge.signature_types import family_signature

    with pytest.raises(TypeError):
        family_signature("x", "x", "x", {"handler-missing": 1.0}, ("log",),
                         ("a line", "https://github.com/o/r/issues/1"))  # type: ignore[arg-type]
