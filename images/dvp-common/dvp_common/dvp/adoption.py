# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""Adoption with proof, never by name alone: when an object we did not make becomes ours.

The ownership rule (`ownership`) counts an object as ours only with our cluster-UUID label AND our component
label. The upstream (Go) module never writes the component label, so what it made (a CSI volume's disk, its
hot-plug attachment) would stay foreign for ever. `decide` is the one rule that lets such an object in:

1. An object with any component label was made by our module (some component of some cluster): it is ours
   already when the label and the cluster UUID are ours, and it is never adopted otherwise.
2. A cluster-UUID label naming another cluster: foreign, whatever the proof.
3. The labels the caller expects of the scheme that made it (`expected`, e.g. `virtualDiskName=<name>`) must all
   be there with those values: an object that does not look like the upstream one is not it.
4. The cluster-UUID label ours, empty or absent: adopted only with a `Proof`, an already-proven object of this
   cluster that names it (e.g. "PersistentVolume pv-x of this cluster (volumeHandle)"). A name alone is no proof:
   another cluster in the same DVP project makes same-named objects under the same scheme.
5. With the cluster-UUID label empty or absent (upstream releases that left it so), nothing on the object says
   which cluster made it, so the proof must be one no guest user can forge (`Proof.strong`): a claim bound to the
   volume whose uid, chosen by the API server, is in the object's name, or a Node (written by kubelets and the
   CCM, not by users). A PersistentVolume alone is not enough there: a user allowed to create one could name
   another cluster's disk in it.

An adoption is a merge patch adding our labels (`ownership.owned_labels`: component, cluster UUID, managed-by),
with what the adopter's own objects of that kind carry besides (`extra_labels`, `annotations`: written in the same
request, so an adopted object costs one write; the ownership labels win over an extra one), with
`metadata.uid` and `metadata.resourceVersion` as preconditions, so an object replaced or relabelled since it
was judged answers a conflict and is never touched. Pure: no I/O, the write is `Objects.adopt`.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from . import labels as L
from .ownership import owned_labels


@dataclass(frozen=True)
class Proof:
    """An already-proven object of this cluster that names the object to adopt, and by which field."""
    kind: str  # e.g. "PersistentVolume"
    name: str
    field: str  # e.g. "volumeHandle"
    strong: bool = False  # rests on what no guest user can write (rule 5)

    def __str__(self) -> str:
        return f"{self.kind} {self.name} of this cluster ({self.field})"


class Verdict(enum.Enum):
    OURS = "ours"  # ours already: nothing to write
    ADOPT = "adopt"  # provenance proven: write `patch`
    FOREIGN = "foreign"  # never touched; `reason` says why


@dataclass(frozen=True)
class Decision:
    verdict: Verdict
    reason: str  # one line
    proof: Proof | None = None
    patch: dict[str, Any] | None = None  # the merge patch that adopts (ADOPT only)
    provable: bool = False  # FOREIGN only for want of a proof: worth looking for one


    @property
    def ours(self) -> bool:
        return self.verdict is not Verdict.FOREIGN


def _foreign(reason: str) -> Decision:
    return Decision(Verdict.FOREIGN, reason)


def decide(obj: Mapping[str, Any] | None, cluster_uuid: str, component: str, proof: Proof | None,
           expected: Mapping[str, str] | None = None, *, extra_labels: Mapping[str, str] | None = None,
           annotations: Mapping[str, str | None] | None = None) -> Decision:
    """Whether `obj` is ours, becomes ours with `proof`, or stays foreign (see the module's rule). `extra_labels`,
    `annotations`: added by the adopting patch too (nothing else is written when the object is ours already)."""
    labels_ = owned_labels(cluster_uuid, component, dict(extra_labels or {}))  # judges uuid and component first
    if not obj:
        return _foreign("no such object")
    md = obj.get("metadata") or {}
    found = md.get("labels") or {}
    if L.COMPONENT in found:
        if found.get(L.COMPONENT) == component and found.get(L.CLUSTER_UUID) == cluster_uuid:
            return Decision(Verdict.OURS, "ours already")
        return _foreign(f"made by {L.COMPONENT}={found.get(L.COMPONENT)!r} of cluster "
                        f"{found.get(L.CLUSTER_UUID, '')!r}; never adopted")
    uuid = found.get(L.CLUSTER_UUID, "")
    if uuid and uuid != cluster_uuid:
        return _foreign(f"{L.CLUSTER_UUID} names another cluster")
    for key, value in (expected or {}).items():
        if found.get(key) != value:
            return _foreign(f"label {key}={found.get(key, '')!r}, expected {value!r}: not the scheme that makes it")
    if proof is None:
        return Decision(Verdict.FOREIGN, f"{L.CLUSTER_UUID} {'ours' if uuid else 'empty or absent'} but no object "
                        "of this cluster names it: a name alone proves nothing", provable=True)
    if not uuid and not proof.strong:
        return Decision(Verdict.FOREIGN, f"{L.CLUSTER_UUID} empty or absent and {proof} is a proof a guest user "
                        "could forge", provable=True)
    if not md.get("uid") or not md.get("resourceVersion"):
        return _foreign("no uid or resourceVersion to guard the adoption with")
    patch = {"metadata": {"uid": md["uid"], "resourceVersion": md["resourceVersion"], "labels": labels_}}
    if annotations:
        patch["metadata"]["annotations"] = dict(annotations)
    return Decision(Verdict.ADOPT, f"adopted: named by {proof}", proof, patch)
