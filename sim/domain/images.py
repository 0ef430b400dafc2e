# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""VirtualImage and ClusterVirtualImage: Pending -> Provisioning -> Ready, every image of the configured size."""

from __future__ import annotations

from .. import conditions as C
from .. import quantity
from ..world import deleting
from .plan import Obj, Plan, changed, new_status, wait_phase


def reconcile(image: Obj, world, cfg) -> Plan:
    plan = Plan()
    if deleting(image):
        return plan
    kind = image.get("kind") or "VirtualImage"
    st = new_status(image)
    current = st.get("phase") or ""
    if current == "":
        st["phase"] = "Pending"
        world.enter(image, "Pending")
        plan.wake(cfg.delay(kind, "Pending"))
    elif current == "Pending" and wait_phase(plan, world, image, kind, "Pending", cfg):
        st["phase"] = "Provisioning"
        st["progress"] = "0%"
        world.enter(image, "Provisioning")
        plan.wake(cfg.delay(kind, "Provisioning"))
    elif current == "Provisioning" and wait_phase(plan, world, image, kind, "Provisioning", cfg):
        size = quantity.fmt(quantity.parse(cfg.image_size))
        st.update(phase="Ready", progress="100%", format="qcow2", cdrom=False,
                  size={"stored": size, "unpacked": size, "storedBytes": str(quantity.parse(size)),
                        "unpackedBytes": str(quantity.parse(size))})
        C.put(st, C.READY, True, C.R_READY)
    plan.status = changed(image, st)
    return plan
