# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""The one status patch per reconcile: collect what was observed, write it only when it changed."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from dvp_common.kube import Resource

from capdvp.controllers.context import Context, format_time
from capdvp.domain import conditions as c


@dataclass
class StatusDraft:
    conditions: list[c.Condition] = field(default_factory=list)
    ready: bool | None = None  # None: keep what is there
    provisioned: bool | None = None
    addresses: list[dict] | None = None
    failure: tuple[str, str] | None = None
    clear_failure: bool = False
    failure_domain: str | None = None  # DeckhouseMachine: the VM's zone ("" = none)
    failure_domains: list[dict] | None = None  # DeckhouseCluster: the v1beta2 list ([] = none)

    def set(self, cond: c.Condition) -> None:
        self.conditions = [x for x in self.conditions if x.type != cond.type] + [cond]

    def readiness(self, cond: c.Condition) -> None:
        """Set VirtualMachineReady and mirror it into Ready, the condition CAPI reads."""
        self.set(cond)
        self.set(c.Condition(c.READY, cond.status, cond.reason, cond.message))


def render(current: dict[str, Any], draft: StatusDraft, now: str, generation: int) -> dict[str, Any]:
    new = dict(current)
    new["conditions"] = c.merge(current.get("conditions") or [], draft.conditions, now, generation)
    if draft.ready is not None:
        new["ready"] = draft.ready
    if draft.provisioned:
        # provisioned is one-way in the v1beta2 contract: once true it stays true.
        new["initialization"] = {**(current.get("initialization") or {}), "provisioned": True}
    if draft.addresses is not None:
        new["addresses"] = draft.addresses
    if draft.failure:
        new["failureReason"], new["failureMessage"] = draft.failure
    elif draft.clear_failure:
        new.pop("failureReason", None)
        new.pop("failureMessage", None)
    if draft.failure_domain is not None:
        _set_or_drop(new, "failureDomain", draft.failure_domain)
    if draft.failure_domains is not None:
        _set_or_drop(new, "failureDomains", draft.failure_domains)
    new["observedGeneration"] = generation
    return new


def _set_or_drop(status: dict[str, Any], key: str, value: Any) -> None:
    """An empty value is no field at all (the v1beta2 failureDomains list has at least one item)."""
    if value:
        status[key] = value
    else:
        status.pop(key, None)


def write(ctx: Context, res: Resource, obj: dict[str, Any], draft: StatusDraft) -> bool:
    """Patch status when it differs; returns whether a write happened."""
    meta = obj["metadata"]
    current = obj.get("status") or {}
    new = render(current, draft, format_time(ctx.now()), int(meta.get("generation") or 0))
    if new == current:
        return False
    body = {k: v for k, v in new.items()}
    for gone in set(current) - set(new):
        body[gone] = None  # merge patch: null removes the key
    ctx.guest.patch(res, meta["name"], {"status": body}, meta.get("namespace"), subresource="status")
    return True
