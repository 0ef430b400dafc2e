# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""An in-memory DVP for unit tests, csi-sanity without a cluster, and benchmarks.

It plays the DVP controllers the driver depends on: disks become Ready (or WaitForFirstConsumer / Failed),
VMBDAs attach to running VMs and list the VM on the disk, snapshots become Ready, resizes complete. Optional
hooks let a test attach a real block device (a loop device) when DVP would hot-plug the disk.
"""

from __future__ import annotations

import copy
import itertools
import threading
import time
import uuid
from collections.abc import Callable, Mapping
from datetime import UTC, datetime

from dvp_common.quantity import format_bytes
from dvp_common.rfc3339 import format_time

from ..domain import disks
from . import objects
from .port import DvpAlreadyExists, DvpNotFound, DvpQuotaExceeded, DvpUnavailable, Kind, Obj, WaitTimeout

AttachHook = Callable[[Obj, Obj], None]  # (disk, vm)
FAILING_CLASS = "failing"  # a DVP StorageClass name whose disks fail to provision
WFFC_CLASS = "wffc"
MAX_BLOCK_DEVICES = 16  # a DVP StorageClass name whose disks wait for their first consumer


def _now() -> str:
    return format_time(datetime.now(UTC))


def _merge(dst: dict, patch: Mapping) -> None:
    for k, v in patch.items():
        if v is None:
            dst.pop(k, None)
        elif isinstance(v, Mapping) and isinstance(dst.get(k), dict):
            _merge(dst[k], v)
        else:
            dst[k] = copy.deepcopy(v)


class MemoryDvp:
    def __init__(self, namespace: str = "dvp-project", *, latency: float = 0.0, quota_bytes: int | None = None,
                 settle: float = 0.0) -> None:
        self.namespace = namespace
        self.latency = latency  # added to every request, to model a remote API
        self.settle = settle  # DVP controllers act this long after a change (0: at once)
        self.quota_bytes = quota_bytes
        self.reachable = True
        self.requests = 0
        self.on_attach: AttachHook | None = None
        self.on_detach: AttachHook | None = None
        self.on_resize: Callable[[Obj], None] | None = None
        self._objs: dict[tuple[Kind, str], Obj] = {}
        self._cond = threading.Condition()
        self._rv = itertools.count(1)

    # -- seeding --------------------------------------------------------------------------------------------
    def put(self, kind: Kind, obj: Obj) -> Obj:
        """Store an object as DVP would hold it (VMs, foreign disks); no ownership checks."""
        with self._cond:
            obj = copy.deepcopy(obj)
            md = obj.setdefault("metadata", {})
            md.setdefault("namespace", self.namespace)
            md.setdefault("uid", str(uuid.uuid4()))
            md.setdefault("creationTimestamp", _now())
            md["resourceVersion"] = str(next(self._rv))
            self._objs[(kind, md["name"])] = obj
            self._cond.notify_all()
            return copy.deepcopy(obj)

    def add_vm(self, name: str, hostname: str, cluster_uuid: str, *, static_disks: int = 1,
               phase: str = "Running") -> Obj:
        refs = [{"kind": "VirtualDisk", "name": f"{name}-boot"}] + [
            {"kind": "VirtualDisk", "name": f"{name}-additional-disk-{i}"} for i in range(static_disks - 1)]
        return self.put(Kind.VIRTUAL_MACHINE, {
            "metadata": {"name": name, "labels": {"dvp.deckhouse.io/hostname": hostname,
                                                   "dvp.deckhouse.io/cluster-uuid": cluster_uuid,
                                                   "dvp.deckhouse.io/component": "capdvp"}},
            "spec": {"blockDeviceRefs": refs}, "status": {"phase": phase}})

    def set_vm_phase(self, name: str, phase: str) -> None:
        with self._cond:
            self._objs[(Kind.VIRTUAL_MACHINE, name)]["status"]["phase"] = phase
            self._touch(Kind.VIRTUAL_MACHINE, name)

    def remove(self, kind: Kind, name: str) -> None:
        """Make an object vanish as if DVP deleted it (a VM gone under a node)."""
        with self._cond:
            self._objs.pop((kind, name), None)
            self._cond.notify_all()

    def snapshot_state(self) -> dict[tuple[str, str], Obj]:
        with self._cond:
            return {(k.value, n): copy.deepcopy(o) for (k, n), o in self._objs.items()}

    # -- DvpApi ---------------------------------------------------------------------------------------------
    def _enter(self) -> None:
        self.requests += 1
        if self.latency:
            time.sleep(self.latency)
        if not self.reachable:
            raise DvpUnavailable("connection refused (in-memory DVP set unreachable)")

    def ping(self) -> None:
        self._enter()

    def get(self, kind: Kind, name: str) -> Obj | None:
        self._enter()
        with self._cond:
            obj = self._objs.get((kind, name))
            return copy.deepcopy(obj) if obj else None

    def list(self, kind: Kind, labels: Mapping[str, str]) -> list[Obj]:
        self._enter()
        with self._cond:
            return [copy.deepcopy(o) for (k, _), o in self._objs.items() if k == kind and all(
                (o["metadata"].get("labels") or {}).get(key) == val for key, val in labels.items())]

    def create(self, kind: Kind, body: Obj) -> Obj:
        self._enter()
        with self._cond:
            name = body["metadata"]["name"]
            if (kind, name) in self._objs:
                raise DvpAlreadyExists(f"{kind.value} {name} already exists")
            if kind is Kind.VIRTUAL_DISK and self.quota_bytes is not None:
                used = sum(disks.disk_capacity(o) for (k, _), o in self._objs.items() if k is Kind.VIRTUAL_DISK)
                want = disks.disk_capacity(body)
                if used + want > self.quota_bytes:
                    raise DvpQuotaExceeded(f"exceeded quota: requests.storage, requested {want}, "
                                           f"used {used}, limited {self.quota_bytes}")
            obj = self.put(kind, {**body, "status": {}})
        self._later(lambda: self._reconcile(kind, name))
        return obj

    def delete(self, kind: Kind, name: str) -> bool:
        self._enter()
        with self._cond:
            obj = self._objs.pop((kind, name), None)
            if obj is None:
                return False
            if kind is Kind.VMBDA:
                self._detached(obj)
            self._cond.notify_all()
            return True

    def patch(self, kind: Kind, name: str, merge_patch: Obj) -> Obj:
        self._enter()
        with self._cond:
            obj = self._objs.get((kind, name))
            if obj is None:
                raise DvpNotFound(f"{kind.value} {name} not found")
            _merge(obj, merge_patch)
            self._touch(kind, name)
            out = copy.deepcopy(obj)
        self._later(lambda: self._reconcile(kind, name))
        return out

    def wait(self, kind: Kind, name: str, done: Callable[[Obj | None], bool], timeout: float) -> Obj | None:
        self._enter()  # a watch is one request, however long it lasts
        deadline = time.monotonic() + timeout
        with self._cond:
            while True:
                obj = self._objs.get((kind, name))
                current = copy.deepcopy(obj) if obj else None
                if done(current):
                    return current
                left = deadline - time.monotonic()
                if left <= 0:
                    raise WaitTimeout(f"timed out after {timeout:g}s waiting for {kind.value} {name}", current)
                self._cond.wait(left)

    # -- the simulated DVP controllers ----------------------------------------------------------------------
    def _later(self, fn: Callable[[], None]) -> None:
        if self.settle:
            threading.Timer(self.settle, fn).start()
        else:
            fn()

    def _touch(self, kind: Kind, name: str) -> None:
        self._objs[(kind, name)]["metadata"]["resourceVersion"] = str(next(self._rv))
        self._cond.notify_all()

    def _reconcile(self, kind: Kind, name: str) -> None:
        with self._cond:
            obj = self._objs.get((kind, name))
            if obj is None:
                return
            if kind is Kind.VIRTUAL_DISK:
                self._reconcile_disk(obj)
            elif kind is Kind.VMBDA:
                self._reconcile_vmbda(obj)
            elif kind is Kind.VIRTUAL_DISK_SNAPSHOT:
                src = self._objs.get((Kind.VIRTUAL_DISK, obj["spec"]["virtualDiskName"]))
                obj["status"] = {"phase": "Ready" if src else "Failed", "consistent": True}
            self._touch(kind, name)

    def _reconcile_disk(self, disk: Obj) -> None:
        pvc = disk["spec"].get("persistentVolumeClaim") or {}
        status = disk.setdefault("status", {})
        if pvc.get("storageClassName") == FAILING_CLASS:
            status.update(phase="Failed", conditions=[{"type": "Ready", "status": "False",
                                                       "reason": "ProvisioningFailed", "message": "no backend"}])
            return
        size = disks.size_bytes(pvc.get("size"))
        old = disks.size_bytes(status.get("capacity"))
        status["storageClassName"] = pvc.get("storageClassName")
        if pvc.get("storageClassName") == WFFC_CLASS and not status.get("attachedToVirtualMachines"):
            status["phase"] = "WaitForFirstConsumer"
            return
        status["phase"] = "Ready"
        status["capacity"] = format_bytes(max(size, old))
        status["conditions"] = [{"type": "Ready", "status": "True", "reason": "Ready"}]
        if old and size > old and self.on_resize:
            self.on_resize(copy.deepcopy(disk))

    def _reconcile_vmbda(self, att: Obj) -> None:
        vm = self._objs.get((Kind.VIRTUAL_MACHINE, att["spec"]["virtualMachineName"]))
        disk = self._objs.get((Kind.VIRTUAL_DISK, att["spec"]["blockDeviceRef"]["name"]))
        status = att.setdefault("status", {})
        if vm is None or disk is None or disks.phase(vm) != "Running":
            status["phase"] = "Pending"
            return
        others = [a for a in disks.disk_attached_vms(disk) if a != vm["metadata"]["name"]]
        if others:
            status.update(phase="Failed", conditions=[{"type": "Attached", "status": "False", "reason": "Conflict",
                                                       "message": f"disk is attached to {others[0]}"}])
            return
        attached = disk.setdefault("status", {}).setdefault("attachedToVirtualMachines", [])
        refs = vm.setdefault("status", {}).setdefault("blockDeviceRefs", [
            {"kind": r["kind"], "name": r["name"], "hotplugged": False} for r in vm["spec"].get("blockDeviceRefs", [])])
        if not attached and len(refs) >= MAX_BLOCK_DEVICES:
            status.update(phase="Pending", conditions=[
                {"type": "Attached", "status": "False", "reason": "NotAttached",
                 "message": "Virtual machine block device capacity reached."},
                {"type": disks.CAPACITY_CONDITION, "status": "False", "reason": disks.CAPACITY_REACHED,
                 "message": f"Can not attach {len(refs) + 1} block devices ({MAX_BLOCK_DEVICES} is maximum) to "
                            f"`VirtualMachine` {vm['metadata']['name']!r}"}])
            return
        if not attached:
            refs.append({"kind": "VirtualDisk", "name": disk["metadata"]["name"], "hotplugged": True,
                         "attached": True, "virtualMachineBlockDeviceAttachmentName": att["metadata"]["name"]})
            attached.append({"name": vm["metadata"]["name"], "mounted": True})
            if disks.phase(disk) == "WaitForFirstConsumer":
                self._reconcile_disk(disk)
            if self.on_attach:
                self.on_attach(copy.deepcopy(disk), copy.deepcopy(vm))
        status.update(phase="Attached", virtualMachineName=vm["metadata"]["name"])
        self._touch(Kind.VIRTUAL_DISK, disk["metadata"]["name"])

    def _detached(self, att: Obj) -> None:
        vm_name = objects.spec_vm(att)
        disk = self._objs.get((Kind.VIRTUAL_DISK, att["spec"]["blockDeviceRef"]["name"]))
        if disk is None:
            return
        before = disks.disk_attached_vms(disk)
        disk.setdefault("status", {})["attachedToVirtualMachines"] = [
            a for a in disk["status"].get("attachedToVirtualMachines") or [] if a.get("name") != vm_name]
        vm = self._objs.get((Kind.VIRTUAL_MACHINE, vm_name))
        if vm is not None:
            refs = (vm.get("status") or {}).get("blockDeviceRefs") or []
            vm["status"]["blockDeviceRefs"] = [r for r in refs if r.get("name") != disk["metadata"]["name"]]
        if vm_name in before and self.on_detach:
            self.on_detach(copy.deepcopy(disk), copy.deepcopy(self._objs.get((Kind.VIRTUAL_MACHINE, vm_name)) or {}))
        self._touch(Kind.VIRTUAL_DISK, disk["metadata"]["name"])
