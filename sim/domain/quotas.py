# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""ResourceQuota on VirtualDisk storage, as DVP's PVCs meet it.

DVP makes one PVC per VirtualDisk, and Kubernetes' quota admission charges that PVC's request to
`requests.storage` and `<class>.storageclass.storage.k8s.io/requests.storage`. The simulator makes no PVCs, so it
charges the disks themselves: a disk is admitted only while every storage limit of every quota of its namespace
(spec.hard) has room for it beside the disks already admitted; otherwise it waits with Ready=False/QuotaExceeded,
quoting the quota as the API server words its refusal. With `quota_status` it also plays the quota controller of
kube-controller-manager for these keys (status.hard, status.used), which a real cluster runs and the harness does
not.
"""

from __future__ import annotations

from dvp_common.dvp.quotas import REQUESTS_STORAGE, class_key

from .. import indexes as ix
from .. import quantity
from ..world import meta, spec, status
from .plan import Obj, Plan, changed, new_status

KIND = "ResourceQuota"


def _bytes(value) -> int:
    try:
        return quantity.parse(value)
    except ValueError:
        return 0


def charged(world, namespace: str, disks_used) -> dict[str, int]:
    """Storage bytes per quota key of the admitted disks (`disks_used(storage_class)` sums them; "" : all)."""
    out: dict[str, int] = {}
    for quota in world.by(KIND, ix.namespace, namespace):
        for key in (spec(quota).get("hard") or {}):
            if key == REQUESTS_STORAGE:
                out[key] = disks_used("")
            elif key.endswith(class_key("")):
                out[key] = disks_used(key.removesuffix(class_key("")))
    return out


def refusal(world, namespace: str, storage_class: str, size: int, disks_used) -> str | None:
    """The API server's quota message for a PVC of `size` bytes that does not fit, or None."""
    for quota in world.by(KIND, ix.namespace, namespace):
        hard = spec(quota).get("hard") or {}
        for key, used in ((REQUESTS_STORAGE, disks_used("")),
                          (class_key(storage_class), disks_used(storage_class))):
            if key in hard and used + size > _bytes(hard[key]):
                return (f"exceeded quota: {meta(quota)['name']}, requested: {key}={quantity.fmt(size)}, "
                        f"used: {key}={quantity.fmt(used)}, limited: {key}={hard[key]}")
    return None


def reconcile(quota: Obj, world, cfg, disks_used) -> Plan:
    plan = Plan()
    if not cfg.quota_status:
        return plan
    st = new_status(quota)
    hard = dict(spec(quota).get("hard") or {})
    used = dict(status(quota).get("used") or {})
    for key, value in charged(world, meta(quota).get("namespace") or "", disks_used).items():
        used[key] = quantity.fmt(value)
    st["hard"], st["used"] = hard, {k: v for k, v in used.items() if k in hard}
    plan.status = changed(quota, st)
    return plan
