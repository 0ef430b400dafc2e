# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""Deleting a machine: detach hot-plugged volumes, delete the VM and its disks, release the finalizer.

The steps and their deadlines are decided by domain/deletion.py; this adapter reads what is left and executes the
step. Only objects that carry this cluster's UUID, the capdvp label and this machine's hostname are deleted, each
with the uid of the object judged (a same-named replacement is never touched); CSI volumes stay.
"""

from __future__ import annotations

import logging

from dvp_common.dvp import Attachments
from dvp_common.dvp import labels as L
from dvp_common.kube import ApiError, Transient

from capdvp import resources as r
from capdvp.controllers import adoption, guest
from capdvp.controllers.context import DONE, Context, Result, parse_time
from capdvp.domain import deletion, names, ownership

log = logging.getLogger(__name__)


def _detach_hotplugged(ctx: Context, vm: dict) -> None:
    ns, uuid = ctx.dvp.namespace, ctx.dvp.cluster_uuid
    # A node going away takes the attachments of its hot-plugged volumes with it, whichever of our components
    # made them (CSI for PVs): the disks themselves stay.
    attachments = Attachments(ctx.dvp.conn, L.CAPDVP, owners=frozenset({L.CAPDVP, L.CSI}))
    for ref in (vm.get("status") or {}).get("blockDeviceRefs") or []:
        if not ref.get("hotplugged") or ref.get("kind") != "VirtualDisk":
            continue
        name = ref.get("virtualMachineBlockDeviceAttachmentName")
        if not name:
            continue
        vmbda = attachments.get_or_none(name)
        if vmbda is None or vmbda["metadata"].get("deletionTimestamp"):
            continue
        # Only attachments of this cluster to this VM.
        if not attachments.is_ours(vmbda) or (vmbda.get("spec") or {}).get(
                "virtualMachineName") != vm["metadata"]["name"]:
            log.warning("not detaching VMBDA %s/%s: not an attachment of this cluster to VM %s", ns, name,
                        vm["metadata"]["name"])
            continue
        attachments.delete(name, vmbda)
        log.info("detached %s from VM %s (deleted VMBDA %s, cluster %s)", ref.get("name"), vm["metadata"]["name"],
                 name, uuid)


def _machine_disks(ctx: Context, machine: str) -> list[dict]:
    items = ctx.dvp.disks.list({L.HOSTNAME: machine})
    return [d for d in items if ownership.is_machines(d, ctx.dvp.cluster_uuid, machine)]


def reconcile_delete(ctx: Context, dm: dict, finalizer: str) -> Result:
    meta = dm["metadata"]
    if finalizer not in (meta.get("finalizers") or []):
        return DONE
    machine, ns, uuid, now = meta["name"], ctx.dvp.namespace, ctx.dvp.cluster_uuid, ctx.now()
    started = parse_time(meta["deletionTimestamp"])
    assert started is not None
    d = deletion.deadlines(started, ctx.config.vm_delete_timeout, ctx.config.disk_delete_timeout)
    vm: dict | None = None
    try:
        vm = ctx.dvp.vms.get_or_none(names.vm_name(machine))
        if vm is not None and not ownership.is_machines(vm, uuid, machine):
            # The upstream capdvp's VM of this machine (never reconciled by us yet): adopted, then deleted as ours.
            vm = adoption.adopt_machine(ctx, dm, vm) or vm
        if vm is not None and not ownership.is_machines(vm, uuid, machine):
            log.warning("VM %s/%s is not this machine's; leaving it alone", ns, machine)
            vm = None
        disks = _machine_disks(ctx, machine)
        left = deletion.Left(vm=vm["metadata"]["name"] if vm else None,
                             vm_deleting=bool(vm and vm["metadata"].get("deletionTimestamp")),
                             disks=[x["metadata"]["name"] for x in disks],
                             disks_deleting=frozenset(x["metadata"]["name"] for x in disks
                                                      if x["metadata"].get("deletionTimestamp")))
        step = deletion.machine_step(machine, left, now, d)
        if vm is not None and step.detach:
            _detach_hotplugged(ctx, vm)
        if vm is not None and step.delete_vm:
            ctx.dvp.vms.delete(machine, vm)
            log.info("deleting VM %s/%s", ns, machine)
        if step.delete_secret:
            secret = ctx.dvp.cloud_init.get_or_none(names.cloud_init_secret_name(machine))
            if secret is not None and ownership.is_machines(secret, uuid, machine):
                ctx.dvp.cloud_init.delete(secret["metadata"]["name"], secret)
        for disk in disks:
            if disk["metadata"]["name"] in step.delete_disks:
                ctx.dvp.disks.delete(disk["metadata"]["name"], disk)
    except (Transient, ApiError) as exc:
        step = deletion.machine_failed(machine, now, d)
        if step.next is deletion.Next.RETRY:
            raise
        log.warning("DVP clean-up of machine %s failed past its deadline (%s); releasing the finalizer", machine, exc)
    if step.next is deletion.Next.WAIT:
        return Result(requeue_after=ctx.config.recheck)
    if step.orphans:
        if ownership.ORPHANED_VM in step.orphans and vm is not None:
            log.warning("VM %s/%s still exists after %ss; marking it orphaned", ns, machine,
                        ctx.config.vm_delete_timeout)
        dm.update(guest.annotate(ctx, r.DECKHOUSE_MACHINE, dm, dict(step.orphans)))
    guest.set_finalizer(ctx, r.DECKHOUSE_MACHINE, dm, finalizer, False)
    log.info("DeckhouseMachine %s/%s released", meta.get("namespace"), machine)
    return DONE
