# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""Tenant isolation, node failure across components: the VM under a node with an attached volume is deleted in DVP. The
CCM (cloud-node-lifecycle, the real Manager) taints the Node node.kubernetes.io/out-of-service after its grace
period; the CSI controller (the real driver with its dead-VM reaper) deletes the VMBDA of the dead VM; the volume
then attaches on another node. Real kube-apiservers for DVP and the guest, DVP played by sim."""

from __future__ import annotations

import threading

import pytest
from ccm_real import Env, eventually, now_text
from dvp_ccm.domain import taints as T
from dvp_ccm.domain.lifecycle import LifecycleConfig
from dvp_common.dvp import resources as r
from dvp_csi.access import Dvp

from testkit.csi.env import make_settings, serve
from testkit.csi.requests import create, publish, unpublish

STORAGE_CLASS = "sim-fast"  # seeded by the CCM kit's Env


@pytest.fixture
def env(dvp_api, guest_api):
    e = Env(dvp_api, guest_api)
    yield e
    e.close()


def vmbdas(env: Env) -> list[str]:
    return sorted(o["metadata"]["name"] for o in env.dvp.list(r.VMBDA, env.ns).items)


def test_a_deleted_vm_releases_its_volume_to_another_node(env, dvp_api, tmp_path):
    dead, alive = f"{env.prefix}-fa", f"{env.prefix}-fb"
    env.vm("fa", hostname=dead)
    env.vm("fb", hostname=alive)
    env.node("fa", provider_id="dvp://fa", taints=[])
    env.node("fb", provider_id="dvp://fb", taints=[])
    driver_client = dvp_api.client()
    settings = make_settings(tmp_path, namespace=env.ns, cluster_uuid=env.uuid, node_name=dead,
                             dead_vm_reap_interval=1)
    stop = threading.Event()
    try:
        for csi in serve(settings, Dvp.over(driver_client, env.ns, env.uuid)):
            c = csi.controller
            c.CreateVolume(create("pvc-data", sc=STORAGE_CLASS))
            c.ControllerPublishVolume(publish("pvc-data", node=dead))
            assert vmbdas(env) == ["vmbda-pvc-data-fa"]
            csi.driver.start_reaper(stop)
            # A long hold: the tainted Node stays for the test to look at (the CCM deletes it after the hold).
            env.manager(controllers=frozenset({"cloud-node-lifecycle"}),
                        lifecycle=LifecycleConfig(out_of_service=True, grace=2.0, hold=120.0, recheck=0.5))

            env.dvp.delete(r.VIRTUAL_MACHINE, "fa", env.ns)
            env.set_ready(dead, False, since=now_text(-600))  # kubelet's heartbeats stopped long ago
            taint = eventually(lambda: (n := env.get_node(dead)) and T.find(n, T.OUT_OF_SERVICE),
                               what="out-of-service taint on the dead node")
            assert (taint["value"], taint["effect"]) == (T.OUT_OF_SERVICE_VALUE, "NoExecute")
            eventually(lambda: vmbdas(env) == [], what="the reaper deletes the dead VM's VMBDA")
            # The attacher's late detach (VolumeAttachment of the dead node removed after the taint) succeeds.
            c.ControllerUnpublishVolume(unpublish("pvc-data", node=dead))
            assert len(c.ControllerPublishVolume(publish("pvc-data", node=alive)).publish_context["serial"]) == 32
            assert vmbdas(env) == ["vmbda-pvc-data-fb"]
            disk = env.dvp.get(r.VIRTUAL_DISK, "pvc-data", env.ns)
            assert [a["name"] for a in disk["status"]["attachedToVirtualMachines"]] == ["fb"]
            assert env.get_node(alive) is not None and not T.has(env.get_node(alive), T.OUT_OF_SERVICE)
    finally:
        stop.set()
        driver_client.close()
