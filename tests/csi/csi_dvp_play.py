# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""DVP's disk, attachment and snapshot controllers, played against a real kube-apiserver for the CSI tests.

Interim: only what the CSI driver observes (VirtualDisk phase/capacity/attachedToVirtualMachines, VMBDA phase,
VM status.blockDeviceRefs, VirtualDiskSnapshot phase), written through the status subresource as DVP would.
tests/dvp_sim will replace it. It polls (every PERIOD seconds) so it needs no watch bookkeeping of its own.
"""

from __future__ import annotations

import threading
from collections.abc import Callable

from dvp_common.dvp import resources as r
from dvp_common.kube import KubeClient, KubeError, NotFound
from dvp_csi.domain import disks, quantity
from dvp_csi.dvp.memory import FAILING_CLASS, MAX_BLOCK_DEVICES, WFFC_CLASS

PERIOD = 0.05
Hook = Callable[[dict, dict], None]


class DvpPlay:
    def __init__(self, client: KubeClient, namespace: str, *, on_attach: Hook | None = None,
                 on_detach: Hook | None = None, on_resize: Callable[[dict], None] | None = None) -> None:
        self.c, self.ns = client, namespace
        self.on_attach, self.on_detach, self.on_resize = on_attach, on_detach, on_resize
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, name="dvp-play", daemon=True)
        self.errors: list[str] = []

    def __enter__(self) -> DvpPlay:
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._stop.set()
        self._thread.join(10)

    def add_vm(self, name: str, hostname: str, cluster_uuid: str, static_disks: int = 1,
               phase: str = "Running") -> dict:
        refs = [{"kind": "VirtualDisk", "name": f"{name}-boot"}] + [
            {"kind": "VirtualDisk", "name": f"{name}-additional-disk-{i}"} for i in range(static_disks - 1)]
        self.c.create(r.VIRTUAL_MACHINE, {"metadata": {"name": name, "labels": {
            "dvp.deckhouse.io/hostname": hostname, "dvp.deckhouse.io/cluster-uuid": cluster_uuid,
            "dvp.deckhouse.io/component": "capdvp"}}, "spec": {
            "virtualMachineClassName": "generic", "cpu": {"cores": 1}, "memory": {"size": "1Gi"},
            "blockDeviceRefs": refs}}, self.ns)
        return self.status(r.VIRTUAL_MACHINE, name, {"phase": phase, "blockDeviceRefs": [
            {"kind": x["kind"], "name": x["name"], "hotplugged": False, "attached": True} for x in refs]})

    def status(self, res, name: str, status: dict) -> dict:
        return self.c.patch(res, name, {"status": status}, self.ns, subresource="status")

    # -- the controllers ------------------------------------------------------------------------------------
    def _loop(self) -> None:
        while not self._stop.wait(PERIOD):
            try:
                self.reconcile()
            except KubeError as exc:  # an object deleted under us: the next pass sees the new state
                if not isinstance(exc, NotFound):
                    self.errors.append(str(exc))

    def reconcile(self) -> None:
        vds = {d["metadata"]["name"]: d for d in self.c.list(r.VIRTUAL_DISK, self.ns).items}
        vms = {v["metadata"]["name"]: v for v in self.c.list(r.VIRTUAL_MACHINE, self.ns).items}
        atts = self.c.list(r.VMBDA, self.ns).items
        for disk in vds.values():
            self._disk(disk)
        # DVP's view of who holds a disk: the attachments that are Attached to an existing, running VM
        attached: dict[str, list[str]] = {}
        pending = []
        for att in atts:
            vm_name, disk_name = att["spec"]["virtualMachineName"], att["spec"]["blockDeviceRef"]["name"]
            vm, disk = vms.get(vm_name), vds.get(disk_name)
            if vm is None or disk is None or disks.phase(vm) != "Running":
                if disks.phase(att) != "Pending":
                    self.status(r.VMBDA, att["metadata"]["name"], {"phase": "Pending"})
            elif disks.phase(att) == "Attached":
                attached.setdefault(disk_name, []).append(vm_name)
            elif disks.phase(att) != "Failed":
                pending.append((att, vm, disk))
        for att, vm, disk in pending:
            vm_name, disk_name = vm["metadata"]["name"], disk["metadata"]["name"]
            others = [n for n in attached.get(disk_name, []) if n != vm_name]
            refs = (vm.get("status") or {}).get("blockDeviceRefs") or []
            if others or len(refs) >= MAX_BLOCK_DEVICES:
                cond = ({"type": "Attached", "status": "False", "reason": "Conflict", "message": others[0]}
                        if others else {"type": "DiskAttachmentCapacityAvailable", "status": "False",
                                        "reason": "CapacityReached", "message": "16 block devices"})
                self.status(r.VMBDA, att["metadata"]["name"], {"phase": "Failed", "conditions": [
                    {**cond, "lastTransitionTime": "2026-01-01T00:00:00Z"}]})
                continue
            if self.on_attach:
                self.on_attach(disk, vm)
            refs.append({"kind": "VirtualDisk", "name": disk_name, "hotplugged": True, "attached": True,
                         "virtualMachineBlockDeviceAttachmentName": att["metadata"]["name"]})
            vm.setdefault("status", {})["blockDeviceRefs"] = refs
            self.status(r.VIRTUAL_MACHINE, vm_name, {"blockDeviceRefs": refs})
            self.status(r.VMBDA, att["metadata"]["name"], {"phase": "Attached", "virtualMachineName": vm_name})
            attached.setdefault(disk_name, []).append(vm_name)
        for name, disk in vds.items():
            now = sorted(attached.get(name, []))
            before = sorted(disks.disk_attached_vms(disk))
            if now != before:
                for gone in set(before) - set(now):
                    vm = vms.get(gone)
                    if vm is not None:
                        refs = [x for x in (vm.get("status") or {}).get("blockDeviceRefs") or []
                                if x.get("name") != name]
                        self.status(r.VIRTUAL_MACHINE, gone, {"blockDeviceRefs": refs})
                    if self.on_detach:
                        self.on_detach(disk, vm or {})
                self.status(r.VIRTUAL_DISK, name, {"attachedToVirtualMachines": [
                    {"name": n, "mounted": True} for n in now]})
        for snap in self.c.list(r.VIRTUAL_DISK_SNAPSHOT, self.ns).items:
            if not disks.phase(snap):
                ok = snap["spec"]["virtualDiskName"] in vds
                self.status(r.VIRTUAL_DISK_SNAPSHOT, snap["metadata"]["name"],
                            {"phase": "Ready" if ok else "Failed", "consistent": True})

    def _disk(self, disk: dict) -> None:
        pvc = disk["spec"].get("persistentVolumeClaim") or {}
        name, status = disk["metadata"]["name"], disk.get("status") or {}
        size = quantity.parse(pvc.get("size")) or 0
        have = quantity.parse(status.get("capacity")) or 0
        if pvc.get("storageClassName") == FAILING_CLASS:
            if status.get("phase") != "Failed":
                self.status(r.VIRTUAL_DISK, name, {"phase": "Failed", "conditions": [{
                    "type": "Ready", "status": "False", "reason": "ProvisioningFailed", "message": "no backend",
                    "lastTransitionTime": "2026-01-01T00:00:00Z"}]})
            return
        if pvc.get("storageClassName") == WFFC_CLASS and not status.get("attachedToVirtualMachines"):
            if status.get("phase") != "WaitForFirstConsumer":
                self.status(r.VIRTUAL_DISK, name, {"phase": "WaitForFirstConsumer"})
            return
        if status.get("phase") == "Ready" and have >= size:
            return
        if have and size > have and self.on_resize:
            self.on_resize({**disk, "status": {**status, "capacity": quantity.format_bytes(size)}})
        self.status(r.VIRTUAL_DISK, name, {
            "phase": "Ready", "capacity": quantity.format_bytes(max(size, have)),
            "storageClassName": pvc.get("storageClassName"),
            "conditions": [{"type": "Ready", "status": "True", "reason": "Ready",
                            "lastTransitionTime": "2026-01-01T00:00:00Z"}]})
