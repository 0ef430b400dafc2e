# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""DeckhouseMachine reconciler: the Cluster API InfraMachine contract over a DVP VirtualMachine.

Order (the contract's recipe): deleted -> delete flow; no owner Machine or Cluster -> wait; paused -> stop;
terminal failure -> stop; finalizer; wait for infrastructure and bootstrap data; ensure the VM and its objects;
providerID; in-place updates; phase -> status. Exactly one status patch per reconcile, and only when it changed.
"""

from __future__ import annotations

import logging
from collections.abc import Callable

from capdvp import resources as r
from capdvp.controllers import adoption, guest, machine_create, machine_delete, machine_update, placement
from capdvp.controllers.context import DONE, Context, Result, parse_time
from capdvp.controllers.status import StatusDraft, write
from capdvp.domain import adoption as adopting
from capdvp.domain import conditions as c
from capdvp.domain import guest as guest_os
from capdvp.domain import names, ownership, phase, zones
from capdvp.domain.machine_spec import SpecError, parse_spec

log = logging.getLogger(__name__)

FINALIZER = "deckhousemachine.infrastructure.cluster.x-k8s.io"


class MachineReconciler:
    def __init__(self, ctx: Context, on_provisioned: Callable[[str, float], None] | None = None) -> None:
        """`on_provisioned(uid, seconds)`: the machine `uid` became provisioned, that long after its creation
        (metrics)."""
        self.ctx = ctx
        self.on_provisioned = on_provisioned

    def reconcile(self, namespace: str, name: str) -> Result:
        dm = guest.get_or_none(self.ctx.guest, r.DECKHOUSE_MACHINE, name, namespace)
        if dm is None:
            return DONE
        if dm["metadata"].get("deletionTimestamp"):
            return machine_delete.reconcile_delete(self.ctx, dm, FINALIZER)
        draft = StatusDraft()
        result = self._reconcile_normal(dm, draft)
        if draft.conditions or draft.ready is not None or draft.failure:
            write(self.ctx, r.DECKHOUSE_MACHINE, dm, draft)
        return result

    def _reconcile_normal(self, dm: dict, draft: StatusDraft) -> Result:
        ctx, meta = self.ctx, dm["metadata"]
        key = f"{meta.get('namespace')}/{meta['name']}"
        machine_name = guest.owner_machine_name(dm)
        machine = guest.get_or_none(ctx.guest, r.MACHINE, machine_name, meta.get("namespace")) if machine_name else None
        if machine is None:
            log.info("DeckhouseMachine %s: waiting for its owner Machine", key)
            return DONE  # the ownerReference update is an event
        cluster_name = (machine.get("spec") or {}).get("clusterName") or meta.get("labels", {}).get(
            guest.CLUSTER_NAME_LABEL)
        cluster = guest.get_or_none(ctx.guest, r.CLUSTER, cluster_name, meta.get("namespace")) if cluster_name else None
        if cluster is None:
            log.info("DeckhouseMachine %s: waiting for Cluster %r", key, cluster_name)
            return DONE
        if guest.is_paused(dm, cluster):
            draft.set(c.Condition(c.PAUSED, c.TRUE, c.CLUSTER_PAUSED, "reconciliation is paused"))
            return DONE
        draft.set(c.Condition(c.PAUSED, c.FALSE, c.NOT_PAUSED))
        status = dm.get("status") or {}
        if status.get("failureReason"):
            return DONE  # terminal: MachineHealthCheck replaces the Machine
        try:
            spec = parse_spec(dm.get("spec"))
        except SpecError as exc:
            draft.readiness(c.Condition(c.VM_READY, c.FALSE, c.INVALID_SPEC, f"DeckhouseMachine {key}: {exc}"))
            return DONE
        dm.update(guest.set_finalizer(ctx, r.DECKHOUSE_MACHINE, dm, FINALIZER, True))
        if not guest.infrastructure_ready(cluster):
            draft.readiness(c.Condition(c.VM_READY, c.FALSE, c.WAITING_FOR_CLUSTER_INFRASTRUCTURE,
                                        f"Cluster {cluster_name} infrastructure is not provisioned yet"))
            return DONE  # the Cluster's status change is an event
        vm = ctx.dvp.vms.get_or_none(names.vm_name(meta["name"]))
        absent: frozenset[str] = frozenset()
        control_plane = guest.CONTROL_PLANE_LABEL in (machine["metadata"].get("labels") or {})
        if vm is None:
            if status.get("initialization", {}).get("provisioned"):
                msg = f"VirtualMachine {names.vm_name(meta['name'])} disappeared from DVP after provisioning"
                draft.readiness(c.Condition(c.VM_READY, c.FALSE, c.VM_DELETED, msg))
                draft.failure, draft.ready = (c.FAILURE_UPDATE, msg), False
                return DONE
            user_data = guest.bootstrap_data(ctx, machine)
            if user_data is None:
                draft.readiness(c.Condition(c.VM_READY, c.FALSE, c.WAITING_FOR_BOOTSTRAP_SCRIPT,
                                            "waiting for the bootstrap data Secret of the Machine"))
                return DONE
            placed = placement.decide(ctx, dm, machine, cluster)
            if placed.error:
                draft.readiness(c.Condition(c.VM_READY, c.FALSE, c.FAILURE_DOMAIN_UNKNOWN,
                                            f"DeckhouseMachine {key}: {placed.error}"))
                return Result(requeue_after=ctx.config.waiting_requeue)  # the cluster's zones may change
            draft.failure_domain = placed.zone
            outcome = machine_create.create_vm(ctx, meta["name"], spec, control_plane, draft, placed.zone)
            if outcome.vm is None:
                return outcome.result
            vm, absent = outcome.vm, outcome.absent
        elif not ownership.is_machines(vm, ctx.dvp.cluster_uuid, meta["name"]) and \
                (taken := adoption.adopt_machine(
                    ctx, dm, vm, adopting.created_vm_labels(ctx.config.additional_vm_labels, spec))) is not None:
            vm = taken  # the upstream capdvp's VM of this machine: ours now, same uid, nothing recreated
        elif not ownership.is_machines(vm, ctx.dvp.cluster_uuid, meta["name"]):
            msg = (f"VirtualMachine {vm['metadata']['name']} in DVP namespace {ctx.dvp.namespace} was not "
                   "created by capdvp for this machine; refusing to adopt it")
            draft.readiness(c.Condition(c.VM_READY, c.FALSE, c.FOREIGN_OBJECT, msg))
            draft.failure, draft.ready = (c.FAILURE_CREATE, msg), False
            return DONE
        draft.failure_domain = zones.vm_zone(vm)  # where DVP was told to run it, whoever decided
        provisioned = bool(status.get("initialization", {}).get("provisioned"))
        owned: list[dict] = []
        # DVP runs a VM only once its Secret and disks exist, so a running VM needs no check.
        if not provisioned and (vm.get("status") or {}).get("phase") not in phase.RUNNING_PHASES:
            user_data = guest.bootstrap_data(ctx, machine)
            ensured = machine_create.ensure_owned(ctx, meta["name"], spec, vm, user_data, draft, absent)
            if ensured.vm is None:
                return ensured.result
            owned = ensured.owned
        self._set_provider_id(dm)
        addresses = [{"type": "Hostname", "address": vm["metadata"]["name"]},
                     {"type": "InternalDNS", "address": vm["metadata"]["name"]}]
        if provisioned:
            update = machine_update.reconcile_update(ctx, dm, spec, vm, control_plane, draft)
            if update is not None:
                draft.addresses = addresses + _ip_addresses(vm)
                return update
        outcome = phase.observe(vm, owned)
        draft.readiness(outcome.condition)
        draft.ready = outcome.ready
        draft.addresses = addresses + (_ip_addresses(vm) if outcome.ip else [])
        if outcome.ready:
            draft.provisioned = True
            made = parse_time(meta.get("creationTimestamp"))
            if not provisioned and made is not None and self.on_provisioned is not None:
                self.on_provisioned(meta.get("uid", ""), (self.ctx.now() - made).total_seconds())
        return self._guest(dm, machine, vm, outcome.ready, draft)

    def _guest(self, dm: dict, machine: dict, vm: dict, running: bool, draft: StatusDraft) -> Result:
        """GuestBooted (Ready turns False past the boot timeout) and LiveMigratable, from DVP's VM conditions."""
        was_booted = any(x.get("type") == c.GUEST_BOOTED and x.get("status") == c.TRUE
                         for x in (dm.get("status") or {}).get("conditions") or [])
        node = bool(((machine.get("status") or {}).get("nodeRef") or {}).get("name"))
        boot = guest_os.booted(vm, node, was_booted, self.ctx.now(), self.ctx.config.guest_boot_timeout, running)
        draft.set(boot.condition)
        if boot.timed_out and running:
            draft.set(c.Condition(c.READY, c.FALSE, boot.condition.reason, boot.condition.message))
        draft.set(guest_os.live_migratable(vm))
        return Result(requeue_after=boot.recheck_after) if boot.recheck_after else DONE

    def _set_provider_id(self, dm: dict) -> None:
        meta = dm["metadata"]
        want = names.provider_id(names.vm_name(meta["name"]))
        if (dm.get("spec") or {}).get("providerID") != want:
            dm.update(self.ctx.guest.patch(r.DECKHOUSE_MACHINE, meta["name"], {"spec": {"providerID": want}},
                                           meta.get("namespace")))


def _ip_addresses(vm: dict) -> list[dict]:
    ip = (vm.get("status") or {}).get("ipAddress")
    if not ip:
        return []
    return [{"type": "InternalIP", "address": ip}, {"type": "ExternalIP", "address": ip}]
