# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""Creating a machine's VM and the objects it needs, each step safe to repeat after a crash."""

from __future__ import annotations

import logging
from dataclasses import dataclass, field

from dvp_common.dvp import NotOurs
from dvp_common.dvp.objects import Objects
from dvp_common.kube import AdmissionDenied, ApiError, Forbidden, Invalid, QuotaExceeded, RBACDenied

from capdvp.controllers.context import DONE, RETRY, Context, Result
from capdvp.controllers.status import StatusDraft
from capdvp.domain import conditions as c
from capdvp.domain import manifests, names, ownership
from capdvp.domain.machine_spec import MachineSpec

log = logging.getLogger(__name__)


def _kind(ctx: Context, kind: str) -> Objects:
    return ctx.dvp.cloud_init if kind == "Secret" else ctx.dvp.disks


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
        reason = c.DVP_SCHEMA_INVALID if isinstance(exc, Invalid) else c.DVP_ADMISSION_DENIED
        draft.readiness(c.Condition(c.VM_READY, c.FALSE, reason, msg))
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
    ns = ctx.dvp.namespace
    try:
        vmc = ctx.dvp.classes.get_or_none(spec.vm_class)
    except Forbidden:
        vmc = {}  # no read access to classes: let DVP judge the VM
        log.warning("cannot read VirtualMachineClass %s (forbidden); creating without the check", spec.vm_class)
    if vmc is None:
        draft.readiness(c.Condition(c.VM_READY, c.FALSE, c.VM_CLASS_NOT_FOUND,
                                    f"VirtualMachineClass {spec.vm_class!r} does not exist in DVP; create it or fix "
                                    "spec.virtualMachine.virtualMachineClassName of the DVPInstanceClass"))
        return Result(requeue_after=ctx.config.waiting_requeue)
    image = ctx.dvp.images.get_or_none(spec.image.kind, spec.image.name)
    if image is None:
        where = "DVP" if spec.image.kind == "ClusterVirtualImage" else f"DVP namespace {ns}"
        draft.readiness(c.Condition(c.VM_READY, c.FALSE, c.BOOT_IMAGE_NOT_FOUND,
                                    f"{spec.image.kind} {spec.image.name!r} does not exist in {where}; create it or "
                                    "fix spec.rootDisk.image of the DVPInstanceClass"))
        return Result(requeue_after=ctx.config.waiting_requeue)
    return None


def create_vm(ctx: Context, machine: str, spec: MachineSpec, control_plane: bool, draft: StatusDraft,
              zone: str = "") -> Outcome:
    ns, uuid = ctx.dvp.namespace, ctx.dvp.cluster_uuid
    absent = set()
    # A pre-existing disk or Secret under our names would be picked up by the VM: refuse before creating it.
    for kind, name in [("Secret", names.cloud_init_secret_name(machine))] + [
            ("VirtualDisk", n) for n in manifests.disk_names(machine, spec)]:
        found = _kind(ctx, kind).get_or_none(name)
        if found is None:
            absent.add(name)
        elif not ownership.is_machines(found, uuid, machine):
            return _refuse_foreign(draft, kind, name, ns)
    waiting = _check_prerequisites(ctx, spec, draft)
    if waiting is not None:
        return Outcome(None, waiting)
    body = manifests.virtual_machine(machine, spec, uuid, control_plane, ctx.config.additional_vm_labels, zone)
    try:
        # An existing VM of that name is returned when ours (a concurrent or repeated create), else NotOurs.
        vm = ctx.dvp.vms.create(body)
        log.info("created VirtualMachine %s/%s", ns, machine)
        if not ownership.is_machines(vm, uuid, machine):
            return _refuse_foreign(draft, "VirtualMachine", machine, ns)
    except NotOurs:
        return _refuse_foreign(draft, "VirtualMachine", machine, ns)
    except ApiError as exc:
        return _api_failure(draft, f"VirtualMachine {machine}", exc)
    return Outcome(vm, absent=frozenset(absent))


def _secret_matches(secret: dict, wanted: dict) -> bool:
    return (secret.get("data") or {}).get("userData") == wanted["data"]["userData"]


def ensure_owned(ctx: Context, machine: str, spec: MachineSpec, vm: dict, user_data: bytes | None,
                 draft: StatusDraft, absent: frozenset[str] = frozenset()) -> Outcome:
    """Create whatever of the Secret and disks is missing; the VM stays Pending in DVP until all exist."""
    ns, uuid = ctx.dvp.namespace, ctx.dvp.cluster_uuid
    placeholder = user_data if user_data is not None else b""
    owned = []
    for want in manifests.owned_objects(machine, spec, uuid, vm, placeholder):
        kind, name = want["kind"], want["metadata"]["name"]
        kinds = _kind(ctx, kind)
        have = None if name in absent else kinds.get_or_none(name)
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
                kinds.delete(name, have)
                log.info("replacing stale cloud-init Secret %s/%s", ns, name)
        elif have is not None:
            owned.append(have)
            continue
        try:
            created = kinds.create(want)
            log.info("created %s %s/%s", kind, ns, name)
        except NotOurs:
            return _refuse_foreign(draft, kind, name, ns)
        except ApiError as exc:
            return _api_failure(draft, f"{kind} {name}", exc)
        if not ownership.is_machines(created, uuid, machine):
            return _refuse_foreign(draft, kind, name, ns)  # another machine's, made meanwhile under this name
        owned.append(created)
    return Outcome(vm, DONE, owned)


