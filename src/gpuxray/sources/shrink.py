"""One object for each string and small value that a fleet's pods repeat.

Why: decoded 100k pods hold ~2 KB of duplicate strings each (measured on the fleet bench
bundle: 5.6 KB per pod, 2.2 KB of it strings equal to one already held) — namespaces, node
names, images, phases, timestamps, quantities, label values, and the two default tolerations
every pod carries. JSON decoding makes a new string per occurrence; sharing them as each piece
of the file is decoded keeps the peak near what the distinct values need (the bench's peak
RSS target is 1.8× the bundle). Objects are only shared where nothing mutates them after
loading: the snapshot is read-only.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence

from gpuxray.model.k8s import ContainerState, EnvVar, Pod, ResourceRequirements, Toleration


class Sharer:
    """Shares values across every piece it is given (one per file). Only the values that
    save the most per unit of time spent are shared (measured on the fleet bench bundle, per
    100k pods: the two default tolerations 46 MB, images 31 MB, env variables 26 MB,
    timestamps 23 MB; ~0.5 s in all)."""

    def __init__(self) -> None:
        self._tolerations: dict[Toleration, Toleration] = {}
        self._env: dict[EnvVar, EnvVar] = {}

    def pods(self, pods: Sequence[Pod]) -> None:
        intern = sys.intern
        tols, envs = self._tolerations, self._env
        for p in pods:
            m = p.metadata
            if m.creation_timestamp:
                m.creation_timestamp = intern(m.creation_timestamp)
            s = p.spec
            if s.tolerations:
                s.tolerations = [tols.setdefault(t, t) for t in s.tolerations]
            for group in (s.containers, s.init_containers):
                for c in group:
                    c.image = intern(c.image)
                    if c.env:
                        c.env = [envs.setdefault(e, e) for e in c.env]
                    if not (c.resources.requests or c.resources.limits):
                        c.resources = _NO_RESOURCES
            st = p.status
            if st.start_time:
                st.start_time = intern(st.start_time)
            for cs in st.container_statuses:
                cs.image = intern(cs.image)
                run = cs.state.running
                if run is not None and run.started_at:
                    run.started_at = intern(run.started_at)
                if cs.last_state == _NO_STATE:
                    cs.last_state = _NO_STATE
            for cs in st.init_container_statuses:
                cs.image = intern(cs.image)
                if cs.last_state == _NO_STATE:
                    cs.last_state = _NO_STATE


#: one empty value for every container without resources or a last state (init containers
#: of the operands, most containers' last state): never mutated, the snapshot is read-only
_NO_RESOURCES = ResourceRequirements()
_NO_STATE = ContainerState()
