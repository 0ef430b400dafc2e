# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""Deleting a machine: detach hot-plugged volumes, delete the VM and its disks, release the finalizer.

Waits are bounded by the DeckhouseMachine's own deletionTimestamp (no in-memory timers, so a restart keeps the
deadline): past it, what is left is annotated as orphaned and the finalizer goes anyway. Only objects that carry
this cluster's UUID, the capdvp label and this machine's hostname are deleted; CSI volumes stay.
"""

from __future__ import annotations

import datetime as dt
import logging

from dvp_common.kube import ApiError, Transient

from capdvp import resources as r
from capdvp.controllers import guest
from capdvp.controllers.context import DONE, Context, Result, format_time, parse_time
from capdvp.domain import names, ownership

log = logging.getLogger(__name__)

RECHECK = 5.0  # seconds; deletions are also watched, this only bounds a missed event


def _deadline(dm: dict, seconds: float) -> dt.datetime:
    start = parse_time(dm["metadata"]["deletionTimestamp"])
    assert start is not None
    return start + dt.timedelta(seconds=seconds)


def _detach_hotplugged(ctx: Context, vm: dict) -> None:
    ns, uuid = ctx.config.dvp_namespace, ctx.config.cluster_uuid
    for ref in (vm.get("status") or {}).get("blockDeviceRefs") or []:
        if not ref.get("hotplugged") or ref.get("kind") != "VirtualDisk":
            continue
        name = ref.get("virtualMachineBlockDeviceAttachmentName")
        if not name:
            continue
        vmbda = guest.get_or_none(ctx.dvp, r.VMBDA, name, ns)
        if vmbda is None or vmbda["metadata"].get("deletionTimestamp"):
            continue
        # Only attachments of this cluster to this VM: the disk stays (it belongs to a PV or to us).
        labels = vmbda["metadata"].get("labels") or {}
        if labels.get(ownership.CLUSTER_UUID) != uuid or (vmbda.get("spec") or {}).get(
                "virtualMachineName") != vm["metadata"]["name"]:
            log.warning("not detaching VMBDA %s/%s: not an attachment of this cluster to VM %s", ns, name,
                        vm["metadata"]["name"])
            continue
        ctx.dvp.delete(r.VMBDA, name, ns, missing_ok=True)
        log.info("detached %s from VM %s (deleted VMBDA %s)", ref.get("name"), vm["metadata"]["name"], name)


def _machine_disks(ctx: Context, machine: str) -> list[dict]:
    labels = ownership.machine_labels(ctx.config.cluster_uuid, machine)
    labels.pop(ownership.MANAGED_BY)
    items = ctx.dvp.list(r.VIRTUAL_DISK, ctx.config.dvp_namespace, label_selector=labels).items
    return [d for d in items if ownership.is_machines(d, ctx.config.cluster_uuid, machine)]


def reconcile_delete(ctx: Context, dm: dict, finalizer: str) -> Result:
    meta = dm["metadata"]
    if finalizer not in (meta.get("finalizers") or []):
        return DONE
    machine, ns, uuid, now = meta["name"], ctx.config.dvp_namespace, ctx.config.cluster_uuid, ctx.now()
    vm_deadline = _deadline(dm, ctx.config.vm_delete_timeout)
    disk_deadline = _deadline(dm, ctx.config.vm_delete_timeout + ctx.config.disk_delete_timeout)
    orphans: dict[str, str] = {}
    try:
        vm = guest.get_or_none(ctx.dvp, r.VIRTUAL_MACHINE, names.vm_name(machine), ns)
        if vm is not None and not ownership.is_machines(vm, uuid, machine):
            log.warning("VM %s/%s is not this machine's; leaving it alone", ns, machine)
            vm = None
        if vm is not None:
            _detach_hotplugged(ctx, vm)
            if not vm["metadata"].get("deletionTimestamp"):
                ctx.dvp.delete(r.VIRTUAL_MACHINE, machine, ns, missing_ok=True,
                               preconditions={"uid": vm["metadata"]["uid"]})
                log.info("deleting VM %s/%s", ns, machine)
            if now < vm_deadline:
                return Result(requeue_after=RECHECK)
            log.warning("VM %s/%s still exists after %ss; marking it orphaned", ns, machine,
                        ctx.config.vm_delete_timeout)
            orphans[ownership.ORPHANED_VM] = machine
            orphans[ownership.ORPHANED_VM_TIMESTAMP] = format_time(now)
        else:
            # The VM is gone: its cloud-init Secret may have lost its owner early; remove ours explicitly.
            secret = guest.get_or_none(ctx.dvp, r.SECRET, names.cloud_init_secret_name(machine), ns)
            if secret is not None and ownership.is_machines(secret, uuid, machine):
                ctx.dvp.delete(r.SECRET, secret["metadata"]["name"], ns, missing_ok=True)
        disks = _machine_disks(ctx, machine)
        for d in disks:
            if not d["metadata"].get("deletionTimestamp"):
                ctx.dvp.delete(r.VIRTUAL_DISK, d["metadata"]["name"], ns, missing_ok=True,
                               preconditions={"uid": d["metadata"]["uid"]})
        if disks:
            if vm is None and now < disk_deadline:
                return Result(requeue_after=RECHECK)
            for d in disks:
                orphans[names.orphaned_disk_annotation(d["metadata"]["name"])] = d["metadata"]["name"]
    except (Transient, ApiError) as exc:
        # DVP unreachable or refusing: keep trying until the deadline, then let the machine go.
        if now < disk_deadline:
            raise
        log.warning("DVP clean-up of machine %s failed past its deadline (%s); releasing the finalizer", machine, exc)
        orphans[ownership.ORPHANED_VM] = machine
        orphans[ownership.ORPHANED_VM_TIMESTAMP] = format_time(now)
    if orphans:
        dm.update(guest.annotate(ctx, r.DECKHOUSE_MACHINE, dm, orphans))
    guest.set_finalizer(ctx, r.DECKHOUSE_MACHINE, dm, finalizer, False)
    log.info("DeckhouseMachine %s/%s released", meta.get("namespace"), machine)
    return DONE
