# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""VirtualDisk: Pending -> [WaitForFirstConsumer] -> Provisioning -> Ready; Resizing and Migrating from Ready."""

from __future__ import annotations

import hashlib

from .. import conditions as C
from .. import indexes as ix
from .. import quantity
from ..world import deleting, meta, phase, spec, status
from . import quotas, snapshots
from .plan import Obj, Plan, changed, new_status, wait_phase

KIND = "VirtualDisk"
ADMITTED = frozenset({"WaitForFirstConsumer", "Provisioning", "Ready", "Resizing", "Migrating"})
DEFAULT_CLASS_ANNOTATIONS = ("storageclass.kubernetes.io/is-default-class",
                             "storageclass.beta.kubernetes.io/is-default-class")
SOURCE_KINDS = {"VirtualImage", "ClusterVirtualImage", "VirtualDiskSnapshot"}
# DatasourceReady=False reasons by source kind (DVP has one reason for a snapshot source, missing or not ready)
DATASOURCE_NOT_FOUND = {"VirtualImage": C.R_IMAGE_NOT_FOUND, "ClusterVirtualImage": C.R_CLUSTER_IMAGE_NOT_FOUND,
                        "VirtualDiskSnapshot": C.R_SNAPSHOT_NOT_READY}
DATASOURCE_NOT_READY = {"VirtualImage": C.R_IMAGE_NOT_READY, "ClusterVirtualImage": C.R_CLUSTER_IMAGE_NOT_READY,
                        "VirtualDiskSnapshot": C.R_SNAPSHOT_NOT_READY}


def serial(uid: str) -> str:
    """The disk serial DVP gives the block device: lowercase hex MD5 of the VirtualDisk uid.

    DVP (deckhouse/virtualization, images/virtualization-artifact/pkg/controller): a hot-plugged disk gets
    `kvbuilder.GenerateSerialFromObject(vd)` (service/attachment_service.go, NewAttachmentDiskFromVirtualDisk,
    passed to AddVolume), a disk in the VM's spec the same (kvbuilder/kvvm_utils.go); GenerateSerial is the hex
    MD5 of the uid. So the serial depends on the disk alone, never on the attachment or on who made it."""
    return hashlib.md5(uid.encode()).hexdigest()  # noqa: S324 - an identifier, as DVP computes it


def requested_size(vd: Obj) -> int | None:
    size = (spec(vd).get("persistentVolumeClaim") or {}).get("size")
    return quantity.parse(size) if size not in (None, "") else None


def source_of(vd: Obj, world) -> tuple[str, Obj | None] | None:
    """(kind/name, object or None) for an ObjectRef data source; None when the disk has no such source."""
    ds = spec(vd).get("dataSource") or {}
    ref = ds.get("objectRef") or {}
    if ds.get("type") != "ObjectRef" or ref.get("kind") not in SOURCE_KINDS:
        return None
    ns = None if ref["kind"] == "ClusterVirtualImage" else meta(vd).get("namespace")
    return f"{ref['kind']}/{ref['name']}", world.get(ref["kind"], ns, ref["name"])


def source_size(kind_name: str, src: Obj) -> int | None:
    st = status(src)
    raw = (st.get("size") or {}).get("unpacked") if kind_name.startswith(("VirtualImage", "ClusterVirtualImage")) \
        else snapshots.restore_size(src)
    return quantity.parse(raw) if raw else None


def storage_class(vd: Obj, world) -> tuple[str, Obj | None]:
    name = (spec(vd).get("persistentVolumeClaim") or {}).get("storageClassName") or ""
    if name:
        return name, world.get("StorageClass", None, name)
    for sc in world.list("StorageClass"):
        if any(str(meta(sc).get("annotations", {}).get(a, "")).lower() == "true" for a in DEFAULT_CLASS_ANNOTATIONS):
            return meta(sc)["name"], sc
    return "", None


def consumed(vd: Obj, world) -> bool:
    """A VM lists the disk, or an attachment asks for it: a WaitForFirstConsumer disk can now be provisioned."""
    ns, name = meta(vd).get("namespace"), meta(vd)["name"]
    for vm in world.by("VirtualMachine", ix.vm_devices, ix.ref(ns, KIND, name)):
        if any(r.get("kind") == KIND and r.get("name") == name for r in spec(vm).get("blockDeviceRefs") or []):
            return True
    for att in world.by("VirtualMachineBlockDeviceAttachment", ix.vmbda_device, ix.ref(ns, KIND, name)):
        ref = spec(att).get("blockDeviceRef") or {}
        if not deleting(att) and ref.get("kind") == KIND and ref.get("name") == name:
            return True
    return False


def attached_to(vd: Obj, world) -> list[Obj]:
    """VMs whose status shows this disk attached, as DVP reports them on the disk."""
    name = meta(vd)["name"]
    out = []
    for vm in world.by("VirtualMachine", ix.vm_attached, ix.ref(meta(vd).get("namespace"), KIND, name)):
        for ref in status(vm).get("blockDeviceRefs") or []:
            if ref.get("kind") == KIND and ref.get("name") == name and ref.get("attached"):
                out.append({"name": meta(vm)["name"], "mounted": True})
                break
    return sorted(out, key=lambda e: e["name"])


def used_bytes(vd: Obj, world, storage_class: str = "") -> int:
    """Storage the namespace's other admitted disks take (their capacity, or the size they asked for); only those
    of `storage_class` when one is named."""
    return namespace_used(world, meta(vd).get("namespace") or "", storage_class, meta(vd).get("uid"))


def namespace_used(world, namespace: str, storage_class: str = "", skip_uid: str | None = None) -> int:
    total = 0
    for other in world.list(KIND, namespace):
        if meta(other).get("uid") == skip_uid or phase(other) not in ADMITTED:
            continue
        if storage_class and (status(other).get("storageClassName") or storage_class_name(other)) != storage_class:
            continue
        cap = status(other).get("capacity")
        size = max(quantity.parse(cap) if cap else 0, requested_size(other) or 0)
        total += size
    return total


def storage_class_name(vd: Obj) -> str:
    return (spec(vd).get("persistentVolumeClaim") or {}).get("storageClassName") or ""


def reconcile_quota(quota: Obj, world, cfg) -> Plan:
    ns = meta(quota).get("namespace") or ""
    return quotas.reconcile(quota, world, cfg, lambda sc: namespace_used(world, ns, sc))


def reconcile(vd: Obj, world, cfg) -> Plan:
    plan = Plan()
    if deleting(vd):
        return plan
    uid = str(meta(vd).get("uid"))
    if (meta(vd).get("annotations") or {}).get(C.SERIAL_ANNOTATION) != serial(uid):
        plan.patch = {"metadata": {"annotations": {C.SERIAL_ANNOTATION: serial(uid)}}}
    st = new_status(vd)
    st["observedGeneration"] = meta(vd).get("generation", 1)
    attached = attached_to(vd, world)
    if attached:
        st["attachedToVirtualMachines"] = attached
    else:
        st.pop("attachedToVirtualMachines", None)
    current = st.get("phase") or ""
    pvc = (st.get("target") or {}).get("persistentVolumeClaimName")
    if pvc and current != "PVCLost" and world.pvc_lost(meta(vd).get("namespace"), pvc):
        # C11: the disk's PVC is gone: PVCLost for good (DVP does not make a new one), Ready=False/PVCLost
        st["phase"] = "PVCLost"
        C.put(st, C.READY, False, C.R_PVC_LOST, f"PVC {pvc} not found")
    elif current == "":
        st["phase"] = "Pending"
        C.put(st, C.READY, False, C.R_NOT_STARTED, "the disk is waiting to be provisioned")
        world.enter(vd, "Pending")
    elif current in ("Pending", "WaitForFirstConsumer"):
        _admit(plan, vd, st, world, cfg)
    elif current == "Provisioning":
        size = _size(vd, world)
        if size is not None and wait_phase(plan, world, vd, KIND, "Provisioning", cfg):
            _ready(st, size)
    elif current == "Ready":
        _grow_or_migrate(plan, vd, st, world, cfg)
    elif current == "Resizing":
        size = requested_size(vd)
        if size is not None and wait_phase(plan, world, vd, KIND, "Resizing", cfg):
            _ready(st, size)
            C.drop(st, C.RESIZING)  # DVP removes the condition once nothing is left to grow
    elif current == "Migrating" and wait_phase(plan, world, vd, KIND, "Migrating", cfg):
        # the data is on a new PVC of the new class now: it becomes the disk's target
        st["storageClassName"] = storage_class(vd, world)[0]
        state = dict(st.get("migrationState") or {})
        st["migrationState"] = {**state, "result": "Succeeded"}
        if state.get("targetPVC"):
            st["target"] = {"persistentVolumeClaimName": state["targetPVC"]}
        st["phase"] = "Ready"
    plan.status = changed(vd, st)
    return plan


def _size(vd: Obj, world) -> int | None:
    size = requested_size(vd)
    if size is not None:
        return size
    src = source_of(vd, world)
    if src and src[1] is not None:
        return source_size(src[0], src[1])
    return None


def _ready(st: Obj, size: int) -> None:
    st["phase"] = "Ready"
    st["capacity"] = quantity.fmt(size)
    st["progress"] = "100%"
    C.put(st, C.READY, True, C.R_READY)


def _admit(plan: Plan, vd: Obj, st: Obj, world, cfg) -> None:
    """Pending/WaitForFirstConsumer: check source, size, class and quota, then start provisioning."""
    src = source_of(vd, world)
    if src is not None:
        what, obj = src
        source_kind = what.split("/", 1)[0]
        if obj is None:
            C.put(st, C.DATASOURCE_READY, False, DATASOURCE_NOT_FOUND[source_kind], f"{what} not found")
            C.put(st, C.READY, False, C.R_DS_NOT_FOUND, f"the data source {what} is not found")
            return
        if phase(obj) != "Ready":
            C.put(st, C.DATASOURCE_READY, False, DATASOURCE_NOT_READY[source_kind],
                  f"{what} is {phase(obj) or 'Pending'}")
            C.put(st, C.READY, False, C.R_DS_NOT_READY, f"the data source {what} is not ready yet")
            return
        C.put(st, C.DATASOURCE_READY, True, C.R_DATASOURCE_READY)
    size = _size(vd, world)
    if size is None:
        st["phase"] = "Failed"
        C.put(st, C.READY, False, C.R_FAILED, "spec.persistentVolumeClaim.size is required without a sized source")
        return
    sc_name, sc = storage_class(vd, world)
    if sc is None:
        reason = f'StorageClass "{sc_name}" not found' if sc_name else "no StorageClass given and none is default"
        C.put(st, C.STORAGE_CLASS_READY, False, C.R_STORAGE_CLASS_NOT_READY, reason)
        C.put(st, C.READY, False, C.R_SC_NOT_READY, reason)
        return
    C.put(st, C.STORAGE_CLASS_READY, True, C.R_STORAGE_CLASS_READY)
    if cfg.quota_bytes is not None and st.get("phase") == "Pending":
        used = used_bytes(vd, world)
        if used + size > cfg.quota_bytes:
            C.put(st, C.READY, False, C.R_QUOTA, f"requested {quantity.fmt(size)} with {quantity.fmt(used)} in use "
                  f"exceeds the project quota of {quantity.fmt(cfg.quota_bytes)}")
            return
    if st.get("phase") == "Pending":
        refused = quotas.refusal(world, meta(vd).get("namespace") or "", sc_name, size,
                                 lambda c: used_bytes(vd, world, c))
        if refused:
            C.put(st, C.READY, False, C.R_QUOTA, refused)
            return
    st["storageClassName"] = sc_name
    if sc.get("volumeBindingMode") == "WaitForFirstConsumer" and not consumed(vd, world):
        if st.get("phase") != "WaitForFirstConsumer":
            st["phase"] = "WaitForFirstConsumer"
            C.put(st, C.READY, False, C.R_WAIT_CONSUMER, "the disk waits for a virtual machine to use it")
        return
    if st.get("phase") == "Pending" and not wait_phase(plan, world, vd, KIND, "Pending", cfg):
        C.put(st, C.READY, False, C.R_NOT_STARTED, "the disk is waiting to be provisioned")
        return
    st["phase"] = "Provisioning"
    st["progress"] = "0%"
    st["target"] = {"persistentVolumeClaimName": f"vd-{meta(vd)['name']}-{str(meta(vd).get('uid'))[:8]}"}
    C.put(st, C.READY, False, C.R_PROVISIONING, "the disk is being provisioned")
    world.enter(vd, "Provisioning")
    plan.wake(cfg.delay(KIND, "Provisioning"))


def _grow_or_migrate(plan: Plan, vd: Obj, st: Obj, world, cfg) -> None:
    size = requested_size(vd)
    capacity = quantity.parse(st["capacity"]) if st.get("capacity") else 0
    if size is not None and size > capacity:
        refused = None
        if cfg.quota_bytes is not None and used_bytes(vd, world) + size > cfg.quota_bytes:
            refused = f"growing to {quantity.fmt(size)} exceeds the project quota"
        refused = refused or quotas.refusal(world, meta(vd).get("namespace") or "", st.get("storageClassName") or "",
                                            size, lambda c: used_bytes(vd, world, c))
        if refused:
            # DVP's resizing handler: the quota forbids the PVC's patch, and the disk stays Ready at its capacity
            pvc = (st.get("target") or {}).get("persistentVolumeClaimName") or ""
            C.put(st, C.RESIZING, False, C.R_RESIZING_NOT_AVAILABLE,
                  f'Disk resizing is not allowed: persistentvolumeclaims "{pvc}" is forbidden: {refused}.',
                  meta(vd).get("generation"))
            return
        st["phase"] = "Resizing"
        C.put(st, C.RESIZING, True, C.R_RESIZING, "The virtual disk resizing has started.", meta(vd).get("generation"))
        world.enter(vd, "Resizing")
        plan.wake(cfg.delay(KIND, "Resizing"))
        return
    C.drop(st, C.RESIZING)  # nothing to grow: DVP keeps no Resizing condition
    want = (spec(vd).get("persistentVolumeClaim") or {}).get("storageClassName")
    if want and want != st.get("storageClassName") and world.get("StorageClass", None, want) is not None:
        st["phase"] = "Migrating"
        source = (st.get("target") or {}).get("persistentVolumeClaimName", "")
        st["migrationState"] = {"sourcePVC": source,
                                "targetPVC": f"vd-{meta(vd)['name']}-{str(meta(vd).get('uid'))[:8]}-{want}"[:63]}
        world.enter(vd, "Migrating")
        plan.wake(cfg.delay(KIND, "Migrating"))
