# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""DeckhouseMachineTemplate reconciler: keeps status.capacity and status.nodeInfo in step with the template's spec
(domain/capacity.py), so the cluster autoscaler can scale a MachineDeployment up from zero."""

from __future__ import annotations

import logging

from capdvp import resources as r
from capdvp.controllers import guest
from capdvp.controllers.context import DONE, Context, Result
from capdvp.domain.capacity import SpecError, template_status

log = logging.getLogger(__name__)


class TemplateReconciler:
    def __init__(self, ctx: Context) -> None:
        self.ctx = ctx

    def reconcile(self, namespace: str, name: str) -> Result:
        template = guest.get_or_none(self.ctx.guest, r.DECKHOUSE_MACHINE_TEMPLATE, name, namespace)
        if template is None or template["metadata"].get("deletionTimestamp"):
            return DONE
        try:
            wanted = template_status(template)
        except SpecError as exc:
            # The webhook refuses such a template; one made before it ran keeps its status untouched.
            log.warning("DeckhouseMachineTemplate %s/%s: %s", namespace, name, exc)
            return DONE
        current = template.get("status") or {}
        wanted["observedGeneration"] = int(template["metadata"].get("generation") or 0)
        if all(current.get(k) == v for k, v in wanted.items()):
            return DONE
        # A merge patch replaces the capacity map as a whole: a resource the class no longer has goes with it.
        body = {"status": {**wanted, "capacity": {**{k: None for k in current.get("capacity") or {}},
                                                  **wanted["capacity"]}}}
        self.ctx.guest.patch(r.DECKHOUSE_MACHINE_TEMPLATE, name, body, namespace, subresource="status")
        return DONE
