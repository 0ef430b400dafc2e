# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""ControllerPublish/Unpublish through VMBDAs, and detaching volumes of VMs that no longer run
(a dead VM must not pin a volume).

No double attach: a volume whose VMBDA points at another running VM is FailedPrecondition until the attacher has
unpublished it there, and Unpublish waits (bounded) until DVP no longer lists the old VM on the disk.
"""

from __future__ import annotations

import logging
import time

import grpc
from dvp_common.dvp import disk_state, state
from dvp_common.dvp.objects import Obj
from dvp_common.kube import AdmissionDenied, Conflict, WaitTimeout

from .access import Dvp
from .domain import disks, names
from .domain.errors import CsiError, not_found
from .domain.labels import HOSTNAME
from .settings import Settings

log = logging.getLogger(__name__)
ATTACHED = "Attached"
FAILED = "Failed"


class Attachments:
    def __init__(self, dvp: Dvp, settings: Settings) -> None:
        self.dvp = dvp
        self.s = settings

    def publish(self, volume_id: str, node_id: str, timeout: float) -> dict[str, str]:
        disk = self.dvp.volume(volume_id)
        vm = self.dvp.vm_of_node(node_id)
        if vm is None:
            raise not_found(f"node {node_id}: no VirtualMachine of this cluster has that hostname")
        vm_name = vm["metadata"]["name"]
        self.dvp.adopt_attachments(volume_id, node_id, vm_name)  # upstream's: found, never made twice
        mine, cleared = self._clear_other_vms(volume_id, vm_name, disk)
        name = mine[0]["metadata"]["name"] if mine else names.vmbda_name(volume_id, vm_name)
        if not mine:
            used = disks.vm_block_devices(vm)
            if used >= self.s.max_block_devices:
                raise CsiError(grpc.StatusCode.RESOURCE_EXHAUSTED,
                               f"node {node_id}: VirtualMachine {vm_name} already has {used} block devices "
                               f"(DVP allows {self.s.max_block_devices})")
            try:
                self.dvp.attachments.create(self.dvp.attachments.new(volume_id, vm_name, node_id))
            except AdmissionDenied as exc:
                # DVP refuses a new attachment of a disk while an earlier one is still Terminating (perhaps the one
                # just deleted, which may be gone by now): retried.
                if cleared or any(a["metadata"].get("deletionTimestamp")
                                  for a in self.dvp.attachments.of_disk(volume_id)):
                    raise CsiError(grpc.StatusCode.ABORTED, f"volume {volume_id}: an earlier attachment is still "
                                   f"terminating; retry once it is gone ({exc})") from exc
                raise
        self._wait_attached(name, timeout)
        return {names.SERIAL_KEY: names.disk_serial(disk["metadata"]["uid"])}

    def _clear_other_vms(self, volume_id: str, vm_name: str, disk: Obj) -> tuple[list[Obj], bool]:
        """Our attachments of the disk to `vm_name`, and whether a stale one (of a dead VM) was just deleted."""
        mine, cleared = [], False
        for att in self.dvp.attachments.of_disk(volume_id):
            other = disks.vmbda_vm(att)
            if other == vm_name:
                mine.append(att)
            elif self.dvp.vm_alive(other):
                raise CsiError(grpc.StatusCode.FAILED_PRECONDITION,
                               f"volume {volume_id} is attached to VirtualMachine {other}; unpublish it there first")
            else:
                log.info("detaching volume %s from VirtualMachine %s, which no longer runs", volume_id, other)
                self.dvp.attachments.delete(att["metadata"]["name"], att)  # the one read, by uid
                cleared = True
        for other in disk_state.attached_vms(disk):
            if other != vm_name and self.dvp.vm_alive(other):
                raise CsiError(grpc.StatusCode.FAILED_PRECONDITION,
                               f"volume {volume_id} is still attached to VirtualMachine {other} (detach in progress)")
        return mine, cleared

    def _wait_attached(self, name: str, timeout: float) -> None:
        def done(a: Obj | None) -> bool:
            return a is None or state.phase(a) in (ATTACHED, FAILED) or disks.capacity_reached(a)

        try:
            att = self.dvp.attachments.wait(name, done, min(timeout, self.s.timeouts.attach), disks.describe)
        except WaitTimeout as exc:
            raise CsiError(grpc.StatusCode.DEADLINE_EXCEEDED,
                           f"VirtualMachineBlockDeviceAttachment {name} is not attached yet "
                           f"({exc.last_state})") from exc
        if att is None:
            raise CsiError(grpc.StatusCode.ABORTED,
                           f"VirtualMachineBlockDeviceAttachment {name} was deleted while attaching")
        if state.phase(att) == ATTACHED:
            return
        # Pending at the VM's limit, or Failed: either way a fresh attachment is made on retry (perhaps on
        # another node), so this one must not stay behind and attach later.
        self.dvp.attachments.delete(name, att)
        if disks.capacity_reached(att):
            capacity = state.condition(att, disks.CAPACITY_CONDITION) or {}
            detail = capacity.get("message") or "no free block device slot"
            raise CsiError(grpc.StatusCode.RESOURCE_EXHAUSTED, f"VirtualMachineBlockDeviceAttachment {name}: {detail}")
        reason = (state.condition(att, "Attached") or {}).get("message") or "Failed"
        raise CsiError(grpc.StatusCode.INTERNAL, f"VirtualMachineBlockDeviceAttachment {name} failed: {reason}")

    def unpublish(self, volume_id: str, node_id: str, timeout: float) -> None:
        disk = self.dvp.adopted_disk(self.dvp.disks.get_or_none(volume_id))
        if disk is not None and not self.dvp.disks.is_ours(disk):
            raise not_found(f"volume {volume_id}: no VirtualDisk of this cluster's CSI volumes has that name")
        # A missing disk still gets its attachments (ours, found by label) removed: then it counts as unpublished.
        vm = self.dvp.vm_of_node(node_id)
        vm_name = vm["metadata"]["name"] if vm else ""
        if disk is not None:
            self.dvp.adopt_attachments(volume_id, node_id, vm_name)  # upstream's attachment, so it can be detached
        gone = []
        for att in self.dvp.attachments.of_disk(volume_id):
            labels_ = att["metadata"].get("labels") or {}
            if disks.vmbda_vm(att) == vm_name or labels_.get(HOSTNAME) == node_id:
                if not att["metadata"].get("deletionTimestamp"):  # one already going (the reaper's): waited for only
                    self.dvp.attachments.delete(att["metadata"]["name"], att)  # the one read, by uid
                gone.append(att)
        if not disks.vm_alive(vm):
            return  # nothing runs there: DVP drops the device with the VM
        deadline = time.monotonic() + min(timeout, self.s.timeouts.detach)
        try:
            for att in gone:
                uid = att["metadata"]["uid"]
                self.dvp.attachments.wait(att["metadata"]["name"],
                                          lambda a, u=uid: a is None or a["metadata"]["uid"] != u,
                                          max(0.0, deadline - time.monotonic()))
            if disk is not None:
                self.dvp.disks.wait(volume_id, lambda d: d is None or vm_name not in disk_state.attached_vms(d),
                                    max(0.0, deadline - time.monotonic()))
        except WaitTimeout as exc:
            raise CsiError(grpc.StatusCode.UNAVAILABLE,
                           f"volume {volume_id} is still attached to VirtualMachine {vm_name}; retry") from exc

    def reap_dead_vms(self) -> list[str]:
        """Delete our VMBDAs whose VM is gone or stopped; returns the VMBDA names removed."""
        removed = []
        alive: dict[str, bool] = {}
        for att in self.dvp.attachments.list():
            if att["metadata"].get("deletionTimestamp"):
                continue  # already being detached (DVP holds it until the VM lets go)
            vm = disks.vmbda_vm(att)
            if vm not in alive:
                alive[vm] = self.dvp.vm_alive(vm)
            if not alive[vm]:
                log.info("detaching %s: VirtualMachine %s no longer runs", att["metadata"]["name"], vm)
                try:
                    if self.dvp.attachments.delete(att["metadata"]["name"], att):  # the one read, by uid
                        removed.append(att["metadata"]["name"])
                except Conflict:
                    log.info("%s was replaced since it was read; left alone", att["metadata"]["name"])
        return removed
