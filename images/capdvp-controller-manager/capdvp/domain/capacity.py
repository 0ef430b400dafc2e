# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""DeckhouseMachineTemplate status for scale from zero (Cluster API's autoscaler contract): what one Node made from
the template offers, known before any machine exists.

`capacity` holds what the guest sees: `cpu` = the VM's cores (coreFraction limits the time DVP grants, not the
number of vCPUs), `memory` = its memory size. DVP runs x86-64 guests of our Linux images, so `nodeInfo` is
amd64/linux. GPUs are refused by the DVPInstanceClass schema, so there is no device to count yet.
"""

from __future__ import annotations

from collections.abc import Mapping

from capdvp.domain.machine_spec import SpecError, parse_spec

ARCHITECTURE = "amd64"
OPERATING_SYSTEM = "linux"


def template_status(template: Mapping) -> dict:
    """`capacity` and `nodeInfo` for the template (SpecError when its machine spec does not parse)."""
    spec = parse_spec(((template.get("spec") or {}).get("template") or {}).get("spec"), "spec.template.spec")
    return {"capacity": {"cpu": str(spec.cores), "memory": spec.memory},
            "nodeInfo": {"architecture": ARCHITECTURE, "operatingSystem": OPERATING_SYSTEM}}


__all__ = ["SpecError", "template_status"]
