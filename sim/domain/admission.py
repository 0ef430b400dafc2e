# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""DVP's validating webhooks for the kinds the provider writes, as pure rules: each returns DVP's denial message
(the admission server answers it with 403 Forbidden) or None. The rules, their sources and their tests are in
sim/CONTRACT.md; the messages are DVP's own words, so a component sees what real DVP answers."""

from __future__ import annotations

from collections.abc import Iterable

from .. import quantity
from ..world import meta, phase, spec, status
from . import addresses
from .plan import Obj

VM_NAME_MAX = 63  # DVP: the VM name flows into label values of KubeVirt's pods (63 at most)
KUBEVIRT_GROUP = "kubevirt.io"  # DVP keeps KubeVirt's labels and annotations for itself
PROVISIONING_PHASES = ("Pending", "Provisioning", "WaitForFirstConsumer")
DEPRECATED_PROVISIONER_LABEL = ("module", "local-path-provisioner")
DEFAULT_CORE_FRACTION = "100%"  # DVP's, when neither the VM nor its class's sizing policy names one


# VirtualMachine ------------------------------------------------------------------------------------------------
def virtual_machine(operation: str, vm: Obj, vm_class: Obj | None) -> str | None:
    name = meta(vm).get("name", "")
    if operation == "CREATE" and len(name) > VM_NAME_MAX:
        return f'the VirtualMachine name "{name}" is too long: it must be no more than {VM_NAME_MAX} characters'
    return reserved_keys(vm) or (sizing(vm, vm_class) if vm_class is not None else None)


def core_fraction(vm: Obj, vm_class: Obj | None) -> tuple[str, str | None]:
    """The VM's core fraction as DVP's defaulting webhook settles it (its CoreFractionDefaulter, before any
    validation): the spec's; else the `defaultCoreFraction` of the class's first sizing policy whose core range
    holds the VM's cores; else 100%. Second: DVP's refusal when that policy allows core fractions without 100% and
    names no default (the VM must then name one)."""
    cpu = spec(vm).get("cpu") or {}
    if cpu.get("coreFraction"):
        return str(cpu["coreFraction"]), None
    cores = _int(cpu.get("cores"))
    for policy in spec(vm_class).get("sizingPolicies") or [] if vm_class is not None else []:
        limits = policy.get("cores")
        if not limits or not _int(limits.get("min")) <= cores <= _int(limits.get("max")):
            continue
        if policy.get("defaultCoreFraction") is not None:
            return f"{policy['defaultCoreFraction']}%", None
        allowed = policy.get("coreFractions") or []
        if allowed and 100 not in allowed:
            return "", ('the default value for core fraction is not defined. For the specified configuration '
                        f'".spec.cpu.cores {cores}", the following core fractions are allowed: '
                        f'[{" ".join(f"{v}%" for v in allowed)}]. Please specify the ".spec.core.coreFraction" '
                        "value and try again")
        break
    return DEFAULT_CORE_FRACTION, None


def missing_class_warning(name: str) -> str:
    return (f'The VM class "{name}" does not exist; it may not have been created yet. Until it is created, the '
            "virtual machine will remain in a pending status.")


def reserved_keys(obj: Obj) -> str | None:
    for where, field in (("annotation", "annotations"), ("label", "labels")):
        if any(KUBEVIRT_GROUP in key for key in meta(obj).get(field) or {}):
            return f"using the {KUBEVIRT_GROUP} group's name in the {where} is prohibited"
    return None


def sizing(vm: Obj, vm_class: Obj) -> str | None:
    """The class's sizing policies: the first policy whose core range holds the VM's cores decides."""
    policies = spec(vm_class).get("sizingPolicies") or []
    if not policies:
        return None
    cpu, memory = spec(vm).get("cpu") or {}, spec(vm).get("memory") or {}
    cores = int(cpu.get("cores") or 0)
    policy = next((p for p in policies if _int((p.get("cores") or {}).get("min")) <= cores
                   <= _int((p.get("cores") or {}).get("max"))), None)
    if policy is None:
        return (f'virtual machine "{meta(vm).get("name")}" resources do not match any sizing policies in class '
                f'"{spec(vm).get("virtualMachineClassName")}"')
    fraction, undefined = core_fraction(vm, vm_class)
    if undefined:
        return undefined
    problems = [*_core_fraction(fraction, policy.get("coreFractions"))]
    size = str(memory.get("size") or "0")
    limits = policy.get("memory") or {}
    step = limits.get("step")
    if _bytes(limits.get("max")):
        problems += _range("VM memory", quantity.parse(size), _shown(size), limits.get("min"), limits.get("max"),
                           step)
    per_core = limits.get("perCore") or {}
    if _bytes(per_core.get("max")) and cores:
        value = quantity.parse(size) // cores
        problems += _range("VM per core memory", value, quantity.fmt(value), per_core.get("min"),
                           per_core.get("max"), step)
    return "sizing policy validate: " + "\n".join(problems) if problems else None


def _core_fraction(value: str, allowed: list[int] | None) -> Iterable[str]:
    if allowed is None:
        return []
    try:
        fraction = int(value.replace("%", ""))
    except ValueError:
        return [f'unable to parse CPU core fraction: strconv.Atoi: parsing "{value.replace("%", "")}": '
                "invalid syntax"]
    return [] if fraction in allowed else [f"VM core fraction value {fraction} is not within the allowed values"]


def _range(what: str, value: int, shown: str, low, high, step) -> list[str]:
    lo, hi = _bytes(low), _bytes(high)
    span = f"[{_shown(low)}, {_shown(high)}]"
    out = []
    if value < lo:
        out.append(f"requested {what} ({shown}) is less than the minimum allowed, available range {span}")
    if value > hi:
        out.append(f"requested {what} ({shown}) exceeds the maximum allowed, available range {span}")
    if _bytes(step):
        grid, at = [], lo
        while at < hi:
            grid.append(at)
            at += _bytes(step)
        grid.append(hi)
        for left, right in zip(grid, grid[1:], strict=False):
            if value in (left, right):
                break
            if left < value < right:
                out.append(f"requested {what} does not match any available values, nearest valid values are "
                           f"[{quantity.fmt(left)}, {quantity.fmt(right)}]")
                break
    return out


def _int(value) -> int:
    return int(value or 0)


def _bytes(value) -> int:
    return quantity.parse(value) if value not in (None, "") else 0


def _shown(value) -> str:
    """A quantity as Kubernetes prints it: binary sizes canonical ("8192Mi" -> "8Gi"), others as written."""
    text = str(value if value is not None else "0")
    return quantity.fmt(quantity.parse(text)) if text.endswith("i") else text


# VirtualDisk ---------------------------------------------------------------------------------------------------
def virtual_disk(operation: str, disk: Obj, old: Obj | None, storage_class: Obj | None,
                 mounted_vm: Obj | None) -> str | None:
    """`storage_class`: the class the new spec names (None when absent or unnamed); `mounted_vm`: the VM the disk
    is mounted to, read only when the class changes."""
    pvc = spec(disk).get("persistentVolumeClaim") or {}
    if operation == "CREATE":
        name = meta(disk).get("name", "")
        if "." in name:
            return (f"the VirtualDisk name \"{name}\" is invalid: '.' is forbidden, allowed name symbols are "
                    "[0-9a-zA-Z-]")
        if "size" in pvc and _bytes(pvc.get("size")) == 0:
            return "virtual disk size must be greater than 0"
        if not spec(disk).get("dataSource") and "size" not in pvc:
            return ("if the data source is not specified, it's necessary to set spec.PersistentVolumeClaim.size to "
                    "create blank virtual disk")
        return _deprecated(pvc.get("storageClassName"), storage_class)
    if old is None or spec(old) == spec(disk):
        return None
    return _size_change(disk, old) or _spec_change(disk, old, storage_class, mounted_vm)


def _deprecated(name: str | None, storage_class: Obj | None) -> str | None:
    key, value = DEPRECATED_PROVISIONER_LABEL
    if name and storage_class is not None and (meta(storage_class).get("labels") or {}).get(key) == value:
        return f'the provisioner of the "{name}" storage class is deprecated; please use a different one'
    return None


def _provisioned(disk: Obj) -> bool:
    ready = next((c for c in status(disk).get("conditions") or [] if c.get("type") == "Ready"), {})
    return ready.get("status") == "True" or phase(disk) not in PROVISIONING_PHASES


def _size_change(disk: Obj, old: Obj) -> str | None:
    new_size = (spec(disk).get("persistentVolumeClaim") or {}).get("size")
    old_size = (spec(old).get("persistentVolumeClaim") or {}).get("size")
    if new_size == old_size or not _provisioned(disk):
        return None
    if new_size is None:
        return "spec.persistentVolumeClaim.size cannot be omitted once set"
    if _bytes(new_size) < _bytes(old_size):
        return (f"spec.persistentVolumeClaim.size value ({_shown(new_size)}) should be greater than or equal to the "
                f"current value ({_shown(old_size)})")
    return None


def mounted_to(disk: Obj) -> str:
    return next((e.get("name", "") for e in status(disk).get("attachedToVirtualMachines") or [] if e.get("mounted")),
                "")


def _spec_change(disk: Obj, old: Obj, storage_class: Obj | None, vm: Obj | None) -> str | None:
    ready = next((c for c in status(disk).get("conditions") or [] if c.get("type") == "Ready"), {})
    if ready.get("status") == "True" or phase(disk) in ("Ready", "PVCLost"):
        if spec(disk).get("dataSource") != spec(old).get("dataSource"):
            return "data source cannot be changed if the VirtualDisk has already been provisioned"
        new_class = (spec(disk).get("persistentVolumeClaim") or {}).get("storageClassName")
        if new_class != (spec(old).get("persistentVolumeClaim") or {}).get("storageClassName") and new_class:
            if not mounted_to(disk):
                return "storage class cannot be changed if the VirtualDisk not mounted to virtual machine"
            if vm is None or phase(vm) not in ("Running", "Migrating"):
                return "storage class cannot be changed unless the VirtualDisk is mounted to a running virtual machine"
            if any(r.get("hotplugged") for r in status(vm).get("blockDeviceRefs") or []):
                return ("for now, changing the storage class is not allowed if the virtual machine has hot-plugged "
                        "block devices")
    elif phase(disk) == "Terminating":
        return "spec cannot be changed if the VirtualDisk is the process of termination"
    elif phase(disk) == "Pending":
        return _deprecated((spec(disk).get("persistentVolumeClaim") or {}).get("storageClassName"), storage_class)
    return None


# VirtualMachineBlockDeviceAttachment ---------------------------------------------------------------------------
def attachment(operation: str, att: Obj, old: Obj | None, siblings: list[Obj]) -> str | None:
    """`siblings`: the other attachments of the namespace."""
    if operation == "UPDATE":
        if old is not None and spec(old) != spec(att):
            return ("VirtualMachineBlockDeviceAttachment is an idempotent resource: specification changes are not "
                    "available")
        return None
    other = conflicting(att, siblings)
    if other is None:
        return None
    return (f"another VirtualMachineBlockDeviceAttachment {meta(att).get('namespace')}/{meta(other)['name']} already "
            f"exists with the same block device {(spec(att).get('blockDeviceRef') or {}).get('name')} for hot-plugging")


def conflicting(att: Obj, siblings: list[Obj]) -> Obj | None:
    """The attachment of the same disk that came first: one already processed (any phase but Failed, Terminating
    included) or an unprocessed one created earlier (name order breaks a tie). Images never conflict."""
    ref = spec(att).get("blockDeviceRef") or {}
    if ref.get("kind") != "VirtualDisk":
        return None
    created = meta(att).get("creationTimestamp") or "9999"
    for other in siblings:
        if meta(other).get("name") == meta(att).get("name") or spec(other).get("blockDeviceRef") != ref:
            continue
        if phase(other) not in ("", "Failed"):
            return other
        theirs = meta(other).get("creationTimestamp") or ""
        if theirs < created or (theirs == created and meta(other)["name"] < meta(att).get("name", "")):
            return other
    return None


# VirtualMachineIPAddress ---------------------------------------------------------------------------------------
def ip_address(operation: str, vmip: Obj, old: Obj | None, lease: Obj | None) -> str | None:
    """`lease`: the lease of the address's static IP, if any. DVP checks a static IP on create and when an update
    changes it: the IP must not be allocated to a lease DVP has not released."""
    static_ip = spec(vmip).get("staticIP") or ""
    if not static_ip or (operation == "UPDATE" and spec(old).get("staticIP") == static_ip):
        return None
    if lease is not None and not addresses.released(lease):
        return (f"the VirtualMachineIPAddress cannot be created: the specified IP address {static_ip} has already "
                "been allocated and has not been released")
    return None
