# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""cloud-node: initialise tainted Nodes from their VM, and keep the addresses and labels of every DVP Node current.

Initialisation writes the addresses first (status), then providerID, topology and instance-type labels and the
removal of the uninitialized taint in one patch guarded by the Node's resourceVersion, so a Node is never
untainted without addresses and a concurrent taint change is never overwritten (409 -> retry).
"""

from __future__ import annotations

import logging

from dvp_common.dvp import labels as L
from dvp_common.kube import Conflict, NotFound
from dvp_common.kube.resources import NODE

from dvp_ccm.controllers.context import Context
from dvp_ccm.domain import events as E
from dvp_ccm.domain import instances as I
from dvp_ccm.domain import taints as T
from dvp_ccm.runner import DONE, Result

log = logging.getLogger("dvp_ccm.node")


class NodeController:
    def __init__(self, ctx: Context) -> None:
        self.ctx = ctx

    def find_vm(self, node: dict, ref: I.VMRef) -> dict | None:
        if ref.name:
            return self.ctx.cloud.vm(ref.name, I.name(node))  # an upstream VM it names is read too
        found = self.ctx.cloud.vm_by_hostname(ref.hostname or "")
        if len(found) > 1:
            names = ", ".join(sorted(I.name(v) for v in found))
            raise ValueError(f'Node "{I.name(node)}": {len(found)} VMs carry {L.HOSTNAME}={ref.hostname}: {names}')
        return found[0] if found else None

    def reconcile(self, name: str) -> Result:
        node = self.ctx.nodes.get(name)
        if node is None or I.is_foreign(node):
            return DONE
        try:
            ref = I.vm_ref(node)
        except I.BadProviderID as exc:
            self.ctx.events.record(node, "Warning", E.BAD_PROVIDER_ID, str(exc))
            return DONE
        assert ref is not None
        uninitialized = T.has(node, T.UNINITIALIZED)
        vm = self.find_vm(node, ref)
        if vm is None:
            if not uninitialized:
                return DONE  # gone VMs are the lifecycle controller's business
            if ref.name:
                _, exists = self.ctx.cloud.vm_live(ref.name, name)
                if exists:
                    self.ctx.events.record(node, "Warning", E.INSTANCE_NOT_OURS,
                                           f'Node "{name}": VirtualMachine "{ref.name}" is not a VM of this cluster')
                    return DONE
            self.ctx.events.record(node, "Warning", E.INSTANCE_NOT_FOUND,
                                   f'Node "{name}": no VirtualMachine of this cluster found for it')
            return Result(retry=True)
        wanted = I.addresses(vm, name, self.ctx.internal_network, I.current_addresses(node))
        if wanted and wanted != I.current_addresses(node):
            # status first: a Node is never untainted without addresses; the answer carries the new version
            node = self.ctx.guest.patch(NODE, name, {"status": {"addresses": wanted}}, subresource="status")
        if not uninitialized:
            return self._follow(node, vm)
        if not wanted:
            log.info('Node "%s": VirtualMachine "%s" has no IP address yet', name, I.name(vm))
            return Result(retry=True)
        return self._initialize(node, vm)

    def _follow(self, node: dict, vm: dict) -> Result:
        """An initialised Node's labels follow its VM (a live migration changes the parent node), from the VM
        cache: a resync costs no DVP request."""
        changes = I.label_changes(node, vm, self.ctx.default_region, self.ctx.default_zone)
        if not changes:
            return DONE
        try:
            self.ctx.guest.patch(NODE, I.name(node), {"metadata": {"labels": changes}})
        except NotFound:
            return DONE
        log.info('Node "%s": labels follow VirtualMachine "%s": %s', I.name(node), I.name(vm),
                 ", ".join(f"{k}={v}" for k, v in sorted(changes.items())))
        return DONE

    def _initialize(self, node: dict, vm: dict) -> Result:
        md = node["metadata"]
        patch: dict = {"metadata": {"resourceVersion": md["resourceVersion"],
                                    "labels": I.node_labels(vm, self.ctx.default_region, self.ctx.default_zone)},
                       "spec": {"taints": T.without(T.taints(node), T.UNINITIALIZED)}}
        if not I.provider_id(node):
            patch["spec"]["providerID"] = L.provider_id(I.name(vm))
        try:
            self.ctx.guest.patch(NODE, md["name"], patch)
        except Conflict:
            return Result(retry=True)  # changed meanwhile: the informer brings the new version
        except NotFound:
            return DONE
        self.ctx.events.record(node, "Normal", E.INITIALIZED,
                               f'Node "{md["name"]}" initialised from VirtualMachine "{I.name(vm)}"')
        return DONE
