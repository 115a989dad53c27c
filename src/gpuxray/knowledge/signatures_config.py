"""Signatures of configuration that does not fit the cluster it runs on: the MIG strategy the
device plugin and GFD run with against the node's MIG layout (GX419), and the operator's CRDs
left at an older release under a newer chart or operator (GX420).

Why a module of its own: neither family is a component failing; each is two correct pieces that
do not match, and each was read from the sources that print the mismatch:

* the MIG strategy: NVIDIA/k8s-device-plugin's strategy code at every layout it took
  (``mig-strategy.go`` at v0.9; ``cmd/nvidia-device-plugin/mig-strategy.go`` at v0.12;
  ``internal/rm/device_map.go`` from v0.13; GFD's ``mig-strategy.go`` in its own repository
  until v0.8 and ``internal/lm/mig-strategy.go`` in the plugin's from v0.15). ``single`` refuses
  a node whose GPUs carry more than one MIG profile or mix MIG-enabled and whole GPUs: the
  plugin stops, and GFD labels the product ``<model>-MIG-INVALID`` with count 0. ``mixed``
  accepts any layout; ``none`` advertises a MIG-enabled GPU whole, with no line at all (the
  bundle check reads that one from the labels).
* the CRDs: helm installs a chart's ``crds/`` only on first install and never upgrades them
  (https://helm.sh/docs/chart_best_practices/custom_resource_definitions/); the operator's chart
  added ``operator.upgradeCRD`` for that, default false until v25.3.0
  (NVIDIA/gpu-operator@v25.3.0:deployments/gpu-operator/values.yaml). A stale
  ``clusterpolicies.nvidia.com`` then refuses the new chart's fields in helm's OpenAPI
  validation (kube-openapi's ``ValidationError(<path>): unknown field``), in the API server's
  strict field validation (``strict decoding error: unknown field "spec.…"``, server-side apply's
  ``field not declared in schema``), or prunes them without a word; a missing
  ``nvidiadrivers.nvidia.com`` stops the operator's NVIDIADriver controller from starting
  (controller-runtime's ``if kind is a CRD, it should be installed before calling Start``).

Patterns are lower case, matched against the lower-cased line; each is keyed on the fixed
words of the message and the ``nvidia.com`` kinds, so the same wording about another resource
(a CDI spec's ``json: unknown field``, another operator's CRD) does not match.
"""

from __future__ import annotations

from gpuxray.knowledge.signature_types import (
    CONFIG,
    DESCRIBE,
    EVENT,
    LOG,
    STATUS,
    Cause,
    Example,
    Signature,
)

DP = "NVIDIA/k8s-device-plugin@"
GFD = "NVIDIA/gpu-feature-discovery@"
OP = "NVIDIA/gpu-operator@"
K = "kubernetes/kubernetes@"
GH = "https://github.com/"

CONFIG_CAUSES: tuple[Cause, ...] = (
    Cause("mig-strategy", "GX419",
          "the device plugin/GFD MIG strategy does not fit the node's MIG layout (single over "
          "several profiles or MIG and whole GPUs mixed; none over MIG-enabled GPUs)",
          "`kubectl get node <n> -L nvidia.com/mig.strategy,nvidia.com/mig.config,"
          "nvidia.com/gpu.product` and the ClusterPolicy's spec.mig.strategy "
          "(`kubectl get clusterpolicy -o jsonpath='{.items[0].spec.mig.strategy}'`)"),
    Cause("crd-stale", "GX420",
          "the operator's CRDs on the cluster are from an older release (helm never upgrades "
          "CRDs): new ClusterPolicy fields are rejected or pruned",
          "`kubectl get crd clusterpolicies.nvidia.com -o yaml | grep -c <the field named>` "
          "and `kubectl get crd | grep nvidia.com` against the operator release you run"),
)


def _s(id: str, needle: str, pattern: str, votes: dict[str, float], kinds: tuple[str, ...],
       deciding: bool = False, *examples: tuple[str, str]) -> Signature:
    return Signature(id, needle, pattern, tuple(votes.items()), kinds, deciding,
                     tuple(Example(line, src) for line, src in examples))


_APPLY = (LOG, EVENT, STATUS, DESCRIBE)  # helm/kubectl output, a controller's log, an event

CONFIG_SIGNATURES: tuple[Signature, ...] = (
    # ---- the MIG strategy against the layout (GX419) ------------------------------------------
    # single requires one MIG profile on the whole node: the plugin's device map refuses a
    # second one (a panic before v0.13, "invalid MIG configuration: …" after), GFD labels the
    # node invalid with the same words
    _s("mig-single-several-profiles", "more than one mig device type present on node",
       r"more than one mig device type present on node",
       {"mig-strategy": 4.0}, (LOG,), True,
       ("panic: More than one MIG device type present on node",
        DP + "v0.9.0:mig-strategy.go"),
       ("error building device map from config.resources: invalid MIG configuration: more "
        "than one MIG device type present on node", DP + "v0.17.0:internal/rm/device_map.go"),
       ("error building device map: error building MIG device map: more than one MIG device "
        "type present on node", DP + "v0.13.0:internal/rm/device_map.go"),
       ("W0312 10:02:10.000000 1 mig-strategy.go:245] Invalid configuration detected for "
        "mig-strategy=single: more than one MIG device type present on node",
        DP + "v0.18.2:internal/lm/mig-strategy.go"),
       ("Error generating NVML labels: Error generating labels from MIG "
        "strategy: More than one MIG device type present on node",
        GFD + "v0.4.1:mig-strategy.go")),
    # single requires every GPU of the node in the same MIG mode
    _s("mig-single-mixed-mode", "same migenabled value|mig enabled and disable detected",
       r"all devices on the node must (?:all )?be configured with the same migenabled value|"
       r"invalid configuration detected for mig-strategy=single: devices with mig enabled and "
       r"disable detected",
       {"mig-strategy": 4.0}, (LOG,), True,
       ("panic: For mig.strategy=single all devices on the node must all be configured with "
        "the same migEnabled value", DP + "v0.9.0:mig-strategy.go"),
       ("For mig.strategy=single all devices on the node must all be configured with the same "
        "migEnabled value", DP + "v0.12.3:cmd/nvidia-device-plugin/mig-strategy.go"),
       ("error building device map from config.resources: all devices on the node must be "
        "configured with the same migEnabled value", DP + "v0.17.0:internal/rm/device_map.go"),
       ("W1201 08:14:55.201223 1 mig-strategy.go:244] Invalid configuration detected for "
        "mig-strategy=single: devices with MIG enabled and disable detected",
        GFD + "v0.8.2:internal/lm/mig-strategy.go")),
    # single also asserts every MIG device alike by visiting each one's attributes
    # (assertAllMigDevicesAreValid with uniform set): under mixed the same words are followed
    # by "At least one device with migEnabled=true …", so go-nvlib's visit chain right after
    # "invalid MIG configuration: " happens only under single
    _s("mig-single-visit-failed", "invalid mig configuration",
       r"invalid mig configuration: error visiting devices\b",
       {"mig-strategy": 3.0, "mig-failed": 1.0}, (LOG,), True,
       ("error building device map from config.resources: invalid MIG configuration: error "
        "visiting devices: error visiting device: error visiting MIG device: error getting "
        "device attributes: ERROR_NOT_SUPPORTED", DP + "v0.14.0:internal/rm/device_map.go")),
    # GFD's product label for a node single cannot serve (count, memory and replicas 0). GFD
    # writes it for three reasons (internal/lm/mig-strategy.go): a GPU in MIG mode with no MIG
    # devices (the layout not applied, or lost until the GPU is reset), MIG and whole GPUs
    # mixed, or several MIG profiles; two are the layout's, one the strategy's. The label as
    # `kubectl get node -o json | jq .metadata.labels` prints it is quoted
    _s("gfd-mig-invalid-label", "-mig-invalid",
       r"nvidia\.com/gpu\.product\"?\s*[=:]\s*\"?\S*-mig-invalid\b",
       {"mig-failed": 3.0, "mig-strategy": 2.5}, (DESCRIBE, LOG, CONFIG), True,
       ("nvidia.com/gpu.product=NVIDIA-A100-SXM4-80GB-MIG-INVALID",
        DP + "v0.17.0:internal/lm/mig-strategy.go"),
       ("nvidia.com/gpu.product: A100-SXM4-40GB-MIG-INVALID",
        GFD + "v0.8.2:internal/lm/mig-strategy.go"),
       ('"nvidia.com/gpu.product": "NVIDIA-A100-80GB-PCIe-MIG-INVALID",',
        DP + "v0.17.0:internal/lm/mig-strategy.go")),
    # single over a GPU in MIG mode with no MIG devices: the layout was never applied (GX407);
    # mixed would only have warned, so the strategy is the smaller half
    # (GFD up to v0.4 stopped on it instead: "No MIG devices present on node")
    _s("gfd-mig-single-empty", "at least one mig device is enabled but empty|"
       "no mig devices present on node",
       r"invalid configuration detected for mig-strategy=single: at least one mig device is "
       r"enabled but empty|labels from mig strategy: no mig devices present on node",
       {"mig-failed": 2.5, "mig-strategy": 1.0}, (LOG,), False,
       ("W0312 10:02:10.000000 1 mig-strategy.go:245] Invalid configuration detected for "
        "mig-strategy=single: at least one MIG device is enabled but empty",
        DP + "v0.17.0:internal/lm/mig-strategy.go"),
       ("gpu-feature-discovery: 2021/03/01 10:02:10 Unexpected error: Error generating NVML "
        "labels: Error generating labels from MIG strategy: No MIG devices present on node",
        GFD + "v0.4.1:mig-strategy.go")),
    # ---- the operator's CRDs behind the chart (GX420) ---------------------------------------
    # helm validates the rendered ClusterPolicy against the cluster's OpenAPI schema, which the
    # old CRD publishes (kube-openapi pkg/util/proto/validation: "ValidationError(%s): %v",
    # "unknown field %q in %s")
    # (keyed on the schema's name, com.nvidia.v1[alpha1].<Kind>..., which kube-openapi spells
    # from the CRD: the path in the parentheses is the object's, and pastes retyped by hand
    # misspell it, gpu-operator issue 435's "ClusterOolicy")
    _s("crd-openapi-unknown-field", "\" in com.nvidia.v1",
       r"validationerror\([\w.\[\]]+\):\s*unknown field "
       r"\"[^\"]+\" in com\.nvidia\.v1(?:alpha1)?\.",
       {"crd-stale": 4.0}, _APPLY, True,
       ("Error: INSTALLATION FAILED: unable to build kubernetes objects from release manifest: "
        "error validating \"\": error validating data: [ValidationError(ClusterPolicy.spec): "
        "unknown field \"cdi\" in com.nvidia.v1.ClusterPolicy.spec, "
        "ValidationError(ClusterPolicy.spec.daemonsets): unknown field \"labels\" in "
        "com.nvidia.v1.ClusterPolicy.spec.daemonsets]", GH + "NVIDIA/gpu-operator/issues/529"),
       ("Error: unable to build kubernetes objects from release manifest: error validating \"\": "
        "error validating data: ValidationError(ClusterPolicy.spec.driver): unknown field "
        "\"kernelModuleConfig\" in com.nvidia.v1.ClusterPolicy.spec.driver",
        GH + "NVIDIA/gpu-operator/issues/342")),
    # the API server's strict field validation (kubectl's default from 1.27; the CR handler
    # reports the paths pruning would drop) and its warning under the default Warn level
    _s("crd-strict-unknown-field", "cannot be handled as a clusterpolicy|cannot be handled as a "
       "nvidiadriver|cannot be handled as an nvidiadriver",
       r"(?:clusterpolicy|nvidiadriver) in version \"v1(?:alpha1)?\" cannot be handled as an? "
       r"(?:clusterpolicy|nvidiadriver): strict decoding error: unknown field \"spec\.",
       {"crd-stale": 4.0}, _APPLY, True,
       ("Error from server (BadRequest): error when creating \"cluster-policy.yaml\": "
        "ClusterPolicy in version \"v1\" cannot be handled as a ClusterPolicy: strict decoding "
        "error: unknown field \"spec.hostPaths\"",
        K + "v1.27.0:staging/src/k8s.io/apiserver/pkg/endpoints/handlers/rest.go"),
       ("Error from server (BadRequest): error when creating \"nvd.yaml\": NVIDIADriver in "
        "version \"v1alpha1\" cannot be handled as a NVIDIADriver: strict decoding error: "
        "unknown field \"spec.kernelModuleType\"",
        K + "v1.30.0:staging/src/k8s.io/apiextensions-apiserver/pkg/apiserver/"
        "customresource_handler.go")),
    # server-side apply (Argo CD, Flux, kubectl --server-side) types the patch with the CRD's
    # schema (structured-merge-diff's "field not declared in schema")
    _s("crd-ssa-not-declared", "field not declared in schema",
       r"kind=(?:clusterpolicy|nvidiadriver)\)?:? .*field not declared in schema",
       {"crd-stale": 4.0}, _APPLY, True,
       ("failed to create typed patch object (/cluster-policy; nvidia.com/v1, "
        "Kind=ClusterPolicy): .spec.hostPaths: field not declared in schema",
        K + "v1.27.0:staging/src/k8s.io/apimachinery/pkg/util/managedfields/internal/"
        "structuredmerge.go")),
    # the NVIDIADriver CRD never installed under an operator that watches it (v23.9.0 on): the
    # manager's cache cannot start; kubectl says the same of a CR it cannot map
    _s("crd-kind-not-served", "no matches for kind",
       r"no matches for kind \\?\"(?:nvidiadriver|clusterpolicy)\\?\" in versions? "
       r"\[?\\?\"nvidia\.com/",
       {"crd-stale": 3.5}, _APPLY, True,
       ('{"level":"error","ts":"2026-11-29T11:50:03Z","logger":'
        '"controller-runtime.source.EventHandler","msg":"if kind is a CRD, it should be '
        'installed before calling Start","kind":"NVIDIADriver.nvidia.com","error":"no matches '
        'for kind \\"NVIDIADriver\\" in version \\"nvidia.com/v1alpha1\\""}',
        OP + "v24.9.0:vendor/sigs.k8s.io/controller-runtime/pkg/internal/source/kind.go"),
       ('error: resource mapping not found for name: "default" namespace: "" from '
        '"nvidiadriver.yaml": no matches for kind "NVIDIADriver" in version '
        '"nvidia.com/v1alpha1"',
        OP + "v24.9.0:vendor/k8s.io/apimachinery/pkg/api/meta/errors.go")),
    # an old CRD that still requires a field the new chart dropped
    _s("crd-required-removed-field", "clusterpolicy.nvidia.com",
       r"clusterpolicy\.nvidia\.com \"[^\"]*\" is invalid: \[?spec\.[\w.]+: required value",
       {"crd-stale": 3.5}, _APPLY, True,
       ("Error: UPGRADE FAILED: cannot patch \"cluster-policy\" with kind ClusterPolicy: "
        "ClusterPolicy.nvidia.com \"cluster-policy\" is invalid: spec.operator.deployGFD: "
        "Required value", GH + "NVIDIA/gpu-operator/issues/120")),
)
