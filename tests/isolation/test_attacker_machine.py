# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""Tenant isolation, a guest writer of Cluster API objects: a Machine whose VM name is that of a master VM dhctl
made for this very cluster (same cluster UUID, component dhctl) is refused by capdvp, and the master's VM, disks and
cloud-init Secret keep their resourceVersions, also when the Machine is deleted. capdvp's own tests cover another
cluster's VM of the same name (tests/capdvp/test_real_api.py) and a forged providerID through the admission
webhook (tests/capdvp/test_admission_real.py)."""

from __future__ import annotations

from capdvp import resources as r
from dvp_common.dvp import labels as L

from sim.builders import disk, vm
from testkit.capdvp.real import RealEnv

KINDS = (r.VIRTUAL_MACHINE, r.VIRTUAL_DISK, r.SECRET, r.VMBDA, r.VMOP)


def state(env: RealEnv) -> dict:
    return {(res.kind, o["metadata"]["name"]): o["metadata"]["resourceVersion"]
            for res in KINDS for o in env.dvp.list(res, env.dvp_ns).items}


def test_a_machine_named_like_a_dhctl_master_is_refused_and_the_master_is_untouched(dvp_api, guest_api):
    env = RealEnv(dvp_api, guest_api)
    master = {L.CLUSTER_UUID: env.uuid, L.COMPONENT: L.DHCTL, L.MANAGED_BY: L.MANAGED_BY_VALUE,
              L.HOSTNAME: "master-0"}
    try:
        for obj, res in ((disk("master-0-boot"), r.VIRTUAL_DISK), (vm("master-0", ["master-0-boot"]),
                                                                    r.VIRTUAL_MACHINE)):
            obj["metadata"]["labels"] = master
            env.dvp.create(res, obj, env.dvp_ns)
        env.dvp.create(r.SECRET, {"metadata": {"name": "cloud-init-master-0", "labels": master},
                                  "data": {"userData": ""}}, env.dvp_ns)
        before = state(env)
        env.capi_machine("master-0")
        env.reconcile("master-0")
        status = env.dm("master-0")["status"]
        assert status["failureReason"] == "CreateError"
        assert status["failureMessage"] == (f"VirtualMachine master-0 in DVP namespace {env.dvp_ns} was not created "
                                            "by capdvp for this machine; refusing to adopt it")
        env.guest.delete(r.DECKHOUSE_MACHINE, "master-0", env.ns)
        env.reconcile("master-0")
        assert env.dm("master-0") is None
        assert state(env) == before
    finally:
        env.close()
