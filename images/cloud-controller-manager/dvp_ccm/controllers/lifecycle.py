# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""cloud-node-lifecycle: apply domain.lifecycle's decision to a Node (taints, deletion), nothing else.

Only Nodes with a `dvp://` providerID are looked at. Before a Node is deleted or tainted for a gone VM, the
VM's absence is confirmed with one live read; a VM that exists but is not ours stops everything (an Event).
Writes are guarded: taints by the Node's resourceVersion, deletion by its uid.
"""

from __future__ import annotations

import logging

from dvp_common.kube import Conflict, NotFound
from dvp_common.kube.resources import NODE

from dvp_ccm.controllers.context import Context
from dvp_ccm.domain import events as E
from dvp_ccm.domain import instances as I
from dvp_ccm.domain.lifecycle import decide, node_ready
from dvp_ccm.runner import DONE, Result

log = logging.getLogger("dvp_ccm.lifecycle")
MESSAGES = {
    E.TAINT_SHUTDOWN: "VirtualMachine {vm} is stopped: tainted {taint}",
    E.UNTAINT_SHUTDOWN: "VirtualMachine {vm} runs again: {taint} removed",
    E.TAINT_OUT_OF_SERVICE: "NotReady and VirtualMachine {vm} down beyond the grace period: tainted out-of-service",
    E.UNTAINT_OUT_OF_SERVICE: "Ready and VirtualMachine {vm} running: out-of-service taint removed",
}


class LifecycleController:
    def __init__(self, ctx: Context) -> None:
        self.ctx = ctx

    def reconcile(self, name: str) -> Result:
        node = self.ctx.nodes.get(name)
        if node is None or not I.provider_id(node) or I.is_foreign(node):
            return DONE
        try:
            ref = I.vm_ref(node)
        except I.BadProviderID as exc:
            self.ctx.events.record(node, "Warning", E.BAD_PROVIDER_ID, str(exc))
            return DONE
        assert ref is not None and ref.name
        vm = self.ctx.cloud.vm(ref.name, name)  # an upstream VM this Node names is read as its instance
        ready, _ = node_ready(node)
        if vm is None and not ready:
            vm, exists = self.ctx.cloud.vm_live(ref.name, name)  # the cache may lag: never delete on its word alone
            if vm is None and exists:
                self.ctx.events.record(node, "Warning", E.INSTANCE_NOT_OURS,
                                       f'Node "{name}": VirtualMachine "{ref.name}" is not a VM of this cluster; '
                                       "the Node is left alone")
                return DONE
        decision = decide(node, vm, self.ctx.now(), self.ctx.lifecycle)
        md = node["metadata"]
        try:
            if decision.delete:
                self.ctx.events.record(node, "Normal", E.DELETING_NODE,
                                       f'Node "{name}": VirtualMachine "{ref.name}" is gone; deleting the Node')
                self.ctx.guest.delete(NODE, name, preconditions={"uid": md["uid"]}, missing_ok=True)
                return DONE
            if decision.taints is not None:
                self.ctx.guest.patch(NODE, name, {"metadata": {"resourceVersion": md["resourceVersion"]},
                                                  "spec": {"taints": decision.taints}})
                for reason in decision.reasons:
                    taint = "node.cloudprovider.kubernetes.io/shutdown"
                    self.ctx.events.record(node, "Normal", reason,
                                           f'Node "{name}": ' + MESSAGES[reason].format(vm=ref.name, taint=taint))
        except Conflict:
            return Result(retry=True)
        except NotFound:
            return DONE
        return Result(requeue_after=decision.requeue_after)
