# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""Taking over the machines the upstream (Go) capdvp made: the VM, then its disks and cloud-init Secret.

The rule is dvp_common.dvp.adoption's (`decide`; the write is `Objects.adopt`: our labels once, under uid and
resourceVersion preconditions, logged with the proof); capdvp.domain.adoption gives the proofs and the scheme's
labels. The VM is adopted when the DeckhouseMachine reconciled names it and its labels are upstream's with our
cluster UUID or an empty or absent one; a disk or the Secret only when its name is the scheme's for that machine
and its ownerReference names the adopted VM's uid. Anything else stays foreign (the caller refuses it as before).
"""

from __future__ import annotations

import logging
from collections.abc import Mapping

from dvp_common.dvp import labels as L
from dvp_common.dvp.adoption import Proof, Verdict, decide
from dvp_common.dvp.objects import Objects
from dvp_common.kube import Conflict

from capdvp.controllers import events
from capdvp.controllers.context import Context
from capdvp.domain import adoption, names, ownership

log = logging.getLogger(__name__)
ADOPTED_EVENT = "Adopted"  # the Kubernetes Event's reason on the DeckhouseMachine (not a DVP condition)


def _adopt(ctx: Context, kinds: Objects, obj: dict, proof: Proof, expected: dict[str, str],
           extra_labels: Mapping[str, str] | None = None) -> dict | None:
    """`obj` adopted (with `extra_labels`, in the same patch), or None when the rule leaves it foreign. A change
    since it was read (Conflict) is an adoption by a concurrent pass when the same object is ours now; else it
    propagates (the pass is retried)."""
    if decide(obj, ctx.dvp.cluster_uuid, L.CAPDVP, proof, expected).verdict is not Verdict.ADOPT:
        return None
    try:
        out = kinds.adopt(obj, proof, expected, extra_labels=extra_labels)
    except Conflict:
        again = kinds.get_or_none(obj["metadata"]["name"])
        if again is not None and again["metadata"].get("uid") == obj["metadata"]["uid"] and kinds.is_ours(again):
            return again
        raise
    if ctx.on_adopt is not None:
        ctx.on_adopt(kinds.resource.kind)
    return out


def adopt_machine(ctx: Context, dm: dict, vm: dict, vm_labels: Mapping[str, str] | None = None) -> dict | None:
    """`vm` (not ours) adopted for the DeckhouseMachine `dm` with the disks and Secret upstream made for it; None
    when it is not upstream's VM of this machine (nothing written). `vm_labels`: the labels our own VM of this
    machine would carry besides ours (`adoption.created_vm_labels`), put on once by the adopting patch; one read
    and one write per object."""
    meta = dm["metadata"]
    machine, ns = meta["name"], meta.get("namespace", "")
    if vm["metadata"]["name"] != names.vm_name(machine):
        return None
    adopted = _adopt(ctx, ctx.dvp.vms, vm, adoption.vm_proof(ns, machine), adoption.vm_labels(machine, vm),
                     vm_labels)
    if adopted is None:
        return None
    done = [f"VirtualMachine {adopted['metadata']['name']}"]
    proof = adoption.owned_proof(adopted, ns, machine)
    spec = vm.get("spec") or {}
    disk_names = [ref.get("name") for ref in spec.get("blockDeviceRefs") or []
                  if ref.get("kind") == "VirtualDisk" and ref.get("name")]
    for name in disk_names:
        if not adoption.is_scheme_disk(machine, name):
            continue
        disk = ctx.dvp.disks.get_or_none(name)
        if disk is None or ctx.dvp.disks.is_ours(disk) or not adoption.owned_by(disk, adopted):
            continue
        if _adopt(ctx, ctx.dvp.disks, disk, proof, adoption.disk_labels(machine, disk)) is not None:
            done.append(f"VirtualDisk {name}")
    secret_name = names.cloud_init_secret_name(machine)
    secret = ctx.dvp.cloud_init.get_or_none(secret_name)
    if secret is not None and not ctx.dvp.cloud_init.is_ours(secret) and adoption.owned_by(secret, adopted):
        taken = _adopt(ctx, ctx.dvp.cloud_init, secret, proof, adoption.secret_labels(machine, secret),
                       adoption.secret_extra_labels(machine))
        if taken is not None:
            done.append(f"Secret {secret_name}")
    if not ownership.is_machines(adopted, ctx.dvp.cluster_uuid, machine):
        return None  # cannot happen: the hostname label was required
    message = (f"took over {', '.join(done)} from the upstream capdvp in DVP namespace {ctx.dvp.namespace} "
               f"(named by this DeckhouseMachine)")
    log.info("DeckhouseMachine %s/%s: %s", ns, machine, message)
    events.record(ctx.guest, dm, events.NORMAL, ADOPTED_EVENT, message, ctx.now())
    return adopted
