"""Which pods ``gpuxray check`` must decode whole, told from their lean decode.

Why: most pods of a fleet are bound, Running, ready, and read by the checks only for their
names, node, resources, labels and owners (:class:`~gpuxray.model.k8s.PodLean`); decoding
their tolerations, images, env values, container states and timestamps — and sharing the
values those repeat — was about half of ``check`` on 100k pods. A pod is decoded whole when
any check may read more of it. Read from the checks, a pod is read past its lean fields when
it is:

* not bound, or bound but neither Running nor Succeeded: gate 1 (tolerations, affinity; seed
  §2), DRA gate 2, the admission checks (a Failed pod's reason), the troubled-pod screens
  (container states). A Succeeded pod is finished: no screen reads it past its name, node and
  phase (it holds nothing and is never troubled), so a fleet's completed Job pods — 8k of a
  pending storm's 100k, spread over the whole file — stay lean unless another rule wants them;
* Running with a container not ready or restarted, without container statuses, or with a
  status reason or message: gate 2's troubled pods and the signature scan of their states
  (seed §4, ``engines/operator.py`` ``pod_matches``);
* in the operator's namespace (operands: images, start times, states; seed §1) or in
  ``kube-system`` (a standalone device plugin);
* with init containers, or being deleted (a RuntimeClass alone is read by name: GX102, the
  containerd handler checks; DRA claims by their names and statuses, which the lean pod
  keeps: ``engines/dra.py`` ``pod_claims``);
* showing GPU intent (an ``nvidia.com/`` annotation, ``NVIDIA_VISIBLE_DEVICES`` set): GX303
  reads the env values, image and security context;
* named ``*-worker*`` (NFD's workers, GX413);
* the subject of a non-Normal event or with logs collected: the signature scan reads its
  container states.

``engines/podscan.py``'s one walk over the pods takes what the rule proves of a lean pod for
granted (bound, Running and ready or Succeeded, no reason, no intent…) and skips asking it
again. The test ``tests/test_check_lean_pods.py`` runs ``check`` both ways on every scenario
and bench shape and compares the reports byte for byte.
"""

from __future__ import annotations

from collections.abc import Callable, Collection

from gpuxray.model.k8s import PodLean

#: the prefix of every GPU resource and annotation read (as ``engines/podscan.py``)
GPU_VENDOR = "nvidia.com/"
#: the toolkit's device selection variable (as ``engines/podscan.py``)
VISIBLE_DEVICES = "NVIDIA_VISIBLE_DEVICES"
#: namespaces whose pods are always decoded whole besides the operator's
ALWAYS_WHOLE_NAMESPACES = frozenset({"kube-system"})


def whole_pod_rule(operator_namespace: str,
                   looked_at: Collection[tuple[str, str]]) -> Callable[[PodLean], bool]:
    """The test a lean pod is put to: True when a check may read more of it than
    :class:`PodLean` holds. ``looked_at``: (namespace, name) of the pods with logs or a
    non-Normal event."""
    namespaces = ALWAYS_WHOLE_NAMESPACES | {operator_namespace}
    looked_names = {name for _ns, name in looked_at}
    vendor, env_name, join = GPU_VENDOR, VISIBLE_DEVICES, "".join

    def needs_whole(pod: PodLean) -> bool:
        status = pod.status
        phase = status.phase
        if ((phase != "Running" and phase != "Succeeded") or status.reason or status.message
                or status.init_container_statuses):
            return True
        spec = pod.spec
        if not spec.node_name or spec.init_containers:
            return True
        if phase == "Running":  # a finished pod's containers are terminated, not ready
            statuses = status.container_statuses
            if not statuses:
                return True
            for st in statuses:
                if not st.ready or st.restart_count:
                    return True
        meta = pod.metadata
        name = meta.name
        if meta.deletion_timestamp or "-worker" in name:
            return True
        ns = meta.namespace or "default"
        if ns in namespaces or (name in looked_names and (ns, name) in looked_at):
            return True
        if meta.annotations and vendor in join(meta.annotations):
            return True
        for c in spec.containers:
            for e in c.env:
                if e.name == env_name:
                    return True
        return False

    return needs_whole
