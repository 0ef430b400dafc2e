# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""Creating a machine's VM and the objects it needs, each step safe to repeat after a crash."""

from __future__ import annotations

import logging
from dataclasses import dataclass, field

from dvp_common.kube import AdmissionDenied, AlreadyExists, ApiError, Forbidden, Invalid, QuotaExceeded, RBACDenied

from capdvp import resources as r
from capdvp.controllers.context import DONE, RETRY, Context, Result
from capdvp.controllers.guest import get_or_none
from capdvp.controllers.status import StatusDraft
from capdvp.domain import conditions as c
from capdvp.domain import manifests, names, ownership
from capdvp.domain.machine_spec import MachineSpec

log = logging.getLogger(__name__)

_RES = {"Secret": r.SECRET, "VirtualDisk": r.VIRTUAL_DISK}


@dataclass
class Outcome:
    vm: dict | None
    result: Result = DONE
    owned: list[dict] = field(default_factory=list)
    absent: frozenset[str] = frozenset()  # names just seen missing: no need to read them again


def _refuse_foreign(draft: StatusDraft, kind: str, name: str, ns: str) -> Outcome:
    msg = (f"{kind} {name} in DVP namespace {ns} was not created by capdvp for this machine; "
           "refusing to use or change it (rename or remove it in DVP, then replace the Machine)")
    draft.readiness(c.Condition(c.VM_READY, c.FALSE, c.FOREIGN_OBJECT, msg))
    draft.failure, draft.ready = (c.FAILURE_CREATE, msg), False
    return Outcome(None)


def _api_failure(draft: StatusDraft, what: str, exc: ApiError) -> Outcome:
    """Map a DVP refusal onto a condition (rule: dvp_common.kube.errors). DVP's validators (403 webhook denial,
    422 schema error) refuse the spec itself: terminal, with DVP's own words. Quota and missing permissions are
    fixable by an admin without touching the machine: retried, naming the verb and resource."""
    if isinstance(exc, QuotaExceeded):
        draft.readiness(c.Condition(c.VM_READY, c.FALSE, c.QUOTA_EXCEEDED,
                                    f"creating {what}: DVP quota exceeded: {exc.message}"))
        return Outcome(None, RETRY)
    if isinstance(exc, AdmissionDenied | Invalid):
        msg = f"creating {what}: DVP refused it: {exc.message}"
        draft.readiness(c.Condition(c.VM_READY, c.FALSE, c.CREATE_FAILED, msg))
        draft.failure, draft.ready = (c.FAILURE_CREATE, msg), False
        return Outcome(None)
    if isinstance(exc, RBACDenied):
        draft.readiness(c.Condition(c.VM_READY, c.FALSE, c.DVP_FORBIDDEN,
                                    f"creating {what}: the provider's DVP ServiceAccount may not {exc.denied_verb} "
                                    f"{exc.denied_resource}; grant it in the DVP project (docs/SECURITY.md)"))
        return Outcome(None, RETRY)
    if isinstance(exc, Forbidden):
        draft.readiness(c.Condition(c.VM_READY, c.FALSE, c.DVP_FORBIDDEN,
                                    f"creating {what}: forbidden by DVP: {exc.message}"))
        return Outcome(None, RETRY)
    raise exc


def _check_prerequisites(ctx: Context, spec: MachineSpec, draft: StatusDraft) -> Result | None:
    ns = ctx.config.dvp_namespace
    try:
        vmc = get_or_none(ctx.dvp, r.VIRTUAL_MACHINE_CLASS, spec.vm_class)
    except Forbidden:
        vmc = {}  # no read access to classes: let DVP judge the VM
        log.warning("cannot read VirtualMachineClass %s (forbidden); creating without the check", spec.vm_class)
    if vmc is None:
        draft.readiness(c.Condition(c.VM_READY, c.FALSE, c.VM_CLASS_NOT_FOUND,
                                    f"VirtualMachineClass {spec.vm_class!r} does not exist in DVP; create it or fix "
                                    "spec.virtualMachine.virtualMachineClassName of the DVPInstanceClass"))
        return Result(requeue_after=ctx.config.waiting_requeue)
    res = r.IMAGE_RESOURCES[spec.image.kind]
    image = get_or_none(ctx.dvp, res, spec.image.name, ns if res.namespaced else None)
    if image is None:
        where = f"DVP namespace {ns}" if res.namespaced else "DVP"
        draft.readiness(c.Condition(c.VM_READY, c.FALSE, c.BOOT_IMAGE_NOT_FOUND,
                                    f"{spec.image.kind} {spec.image.name!r} does not exist in {where}; create it or "
                                    "fix spec.rootDisk.image of the DVPInstanceClass"))
        return Result(requeue_after=ctx.config.waiting_requeue)
    return None


def create_vm(ctx: Context, machine: str, spec: MachineSpec, control_plane: bool, draft: StatusDraft) -> Outcome:
    ns, uuid = ctx.config.dvp_namespace, ctx.config.cluster_uuid
    absent = set()
    # A pre-existing disk or Secret under our names would be picked up by the VM: refuse before creating it.
    for kind, name in [("Secret", names.cloud_init_secret_name(machine))] + [
            ("VirtualDisk", n) for n in manifests.disk_names(machine, spec)]:
        found = get_or_none(ctx.dvp, _RES[kind], name, ns)
        if found is None:
            absent.add(name)
        elif not ownership.is_machines(found, uuid, machine):
            return _refuse_foreign(draft, kind, name, ns)
    waiting = _check_prerequisites(ctx, spec, draft)
    if waiting is not None:
        return Outcome(None, waiting)
    body = manifests.virtual_machine(machine, spec, uuid, control_plane, ctx.config.additional_vm_labels)
    try:
        vm = ctx.dvp.create(r.VIRTUAL_MACHINE, body, ns)
        log.info("created VirtualMachine %s/%s", ns, machine)
    except AlreadyExists:
        vm = get_or_none(ctx.dvp, r.VIRTUAL_MACHINE, names.vm_name(machine), ns)
        if vm is None:
            return Outcome(None, RETRY)
        if not ownership.is_machines(vm, uuid, machine):
            return _refuse_foreign(draft, "VirtualMachine", machine, ns)
    except ApiError as exc:
        return _api_failure(draft, f"VirtualMachine {machine}", exc)
    return Outcome(vm, absent=frozenset(absent))


def _secret_matches(secret: dict, wanted: dict) -> bool:
    return (secret.get("data") or {}).get("userData") == wanted["data"]["userData"]


def ensure_owned(ctx: Context, machine: str, spec: MachineSpec, vm: dict, user_data: bytes | None,
                 draft: StatusDraft, absent: frozenset[str] = frozenset()) -> Outcome:
    """Create whatever of the Secret and disks is missing; the VM stays Pending in DVP until all exist."""
    ns, uuid = ctx.config.dvp_namespace, ctx.config.cluster_uuid
    placeholder = user_data if user_data is not None else b""
    owned = []
    for want in manifests.owned_objects(machine, spec, uuid, vm, placeholder):
        kind, name = want["kind"], want["metadata"]["name"]
        res = _RES[kind]
        have = None if name in absent else get_or_none(ctx.dvp, res, name, ns)
        if have is not None and not ownership.is_machines(have, uuid, machine):
            return _refuse_foreign(draft, kind, name, ns)
        if kind == "Secret":
            if have is not None and (user_data is None or _secret_matches(have, want)):
                owned.append(have)
                continue
            if user_data is None:
                draft.readiness(c.Condition(c.VM_READY, c.FALSE, c.WAITING_FOR_BOOTSTRAP_SCRIPT,
                                            "waiting for the bootstrap data Secret of the Machine"))
                return Outcome(None)
            if have is not None:
                # Immutable Secret with stale bootstrap data (the VM has not run yet): replace it.
                ctx.dvp.delete(r.SECRET, name, ns, missing_ok=True,
                               preconditions={"uid": have["metadata"]["uid"]})
                log.info("replacing stale cloud-init Secret %s/%s", ns, name)
        elif have is not None:
            owned.append(have)
            continue
        try:
            created = ctx.dvp.create(res, want, ns)
            log.info("created %s %s/%s", kind, ns, name)
        except AlreadyExists:
            return Outcome(None, RETRY)  # a concurrent writer: look again on the next pass
        except ApiError as exc:
            return _api_failure(draft, f"{kind} {name}", exc)
        owned.append(created)
    return Outcome(vm, DONE, owned)


