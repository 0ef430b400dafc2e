# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""The whole controller on the real API: leader election, informers on both clusters, workers, health.

Machines are driven only by watch events (no test calls reconcile): create -> provisioned -> delete -> gone.
"""

from __future__ import annotations

import base64
import threading
import time
import urllib.request

import pytest
from capdvp import resources as r
from capdvp.manager import Manager
from capdvp.settings import Settings
from dvp_common.dvp.connection import DVPConnection, DVPSettings
from dvp_common.kube import NotFound
from dvp_common.kube.resources import LEASE

from testkit.capdvp.real import RealEnv

WAIT = 60.0


@pytest.fixture
def env(dvp_api, guest_api):
    e = RealEnv(dvp_api, guest_api)
    yield e
    e.close()


def play_dvp(env: RealEnv, stop: threading.Event) -> None:
    """DVP's VM controller in one line of behaviour: a VM whose disks and Secret exist starts running."""
    client = env.dvp_api.client()
    try:
        while not stop.wait(0.1):
            disks = {o["metadata"]["name"] for o in client.list(r.VIRTUAL_DISK, env.dvp_ns).items}
            secrets = {o["metadata"]["name"] for o in client.list(r.SECRET, env.dvp_ns).items}
            for vm in client.list(r.VIRTUAL_MACHINE, env.dvp_ns).items:
                spec, name = vm["spec"], vm["metadata"]["name"]
                ready = spec["provisioning"]["userDataRef"]["name"] in secrets and all(
                    ref["name"] in disks for ref in spec["blockDeviceRefs"])
                if ready and (vm.get("status") or {}).get("phase") != "Running":
                    client.patch(r.VIRTUAL_MACHINE, name, {"status": {"phase": "Running", "ipAddress": "10.66.1.1"}},
                                 env.dvp_ns, subresource="status")
    finally:
        client.close()


def settled(manager: Manager, env) -> bool:
    """The handlers of the machine, VM and disk informers saw the newest version there is of their objects (the
    last one written, etcd's revisions growing), and no key is queued."""
    def newest(client, res, ns) -> tuple[str, str]:
        obj = max(client.list(res, ns).items, key=lambda o: int(o["metadata"]["resourceVersion"]))
        return f"{ns}/{obj['metadata']['name']}", obj["metadata"]["resourceVersion"]
    return (manager.guest_informers[r.DECKHOUSE_MACHINE].last_handled == newest(env.guest, r.DECKHOUSE_MACHINE, env.ns)
            and manager.dvp_informers[r.VIRTUAL_MACHINE].last_handled == newest(env.dvp, r.VIRTUAL_MACHINE, env.dvp_ns)
            and manager.dvp_informers[r.VIRTUAL_DISK].last_handled == newest(env.dvp, r.VIRTUAL_DISK, env.dvp_ns)
            and manager.machines.queue.idle())


def wait_until(what: str, predicate) -> None:
    deadline = time.monotonic() + WAIT
    while time.monotonic() < deadline:
        if predicate():
            return
        time.sleep(0.1)
    raise AssertionError(f"timed out after {WAIT:g}s waiting for {what}")


def test_machines_are_driven_by_watches_alone(env):
    settings = Settings(dvp=DVPSettings(env.dvp_api.kubeconfig(), env.dvp_ns, env.uuid), reconcile=env.config,
                        watch_namespace=env.ns, leader_elect=True, leader_election_namespace=env.ns,
                        health_bind="127.0.0.1:0", metrics_bind=None, webhook_bind=None, workers=4)
    manager = Manager(settings, env.guest_api.client(),
                      DVPConnection(env.dvp_api.client(), env.dvp_ns, env.uuid),
                      exit_on_lost_lease=lambda: pytest.fail("lost the lease"))
    stop = threading.Event()
    player = threading.Thread(target=play_dvp, args=(env, stop), daemon=True)
    player.start()
    manager.start()
    try:
        names = [f"w-{i}" for i in range(5)]
        for n in names:
            env.capi_machine(n)

        def provisioned(n):
            dm = env.dm(n)
            return bool(((dm or {}).get("status") or {}).get("initialization", {}).get("provisioned"))
        wait_until("5 machines provisioned", lambda: all(provisioned(n) for n in names))
        lease = env.guest.get(LEASE, settings.leader_election_id, env.ns)
        assert lease["spec"]["holderIdentity"]
        with urllib.request.urlopen(f"http://{manager.health.address}/readyz", timeout=5) as resp:  # noqa: S310
            assert resp.status == 200
        for n in names:
            env.guest.delete(r.DECKHOUSE_MACHINE, n, env.ns)
        wait_until("machines released", lambda: all(env.dm(n) is None for n in names))
        assert env.names(r.VIRTUAL_MACHINE) == env.names(r.VIRTUAL_DISK) == env.names(r.SECRET) == []
    finally:
        stop.set()
        manager.shutdown()


def test_a_changed_bootstrap_secret_alone_replaces_the_cloud_init_secret(env):
    """No DVP player: the VM stays Pending, so new bootstrap data must reach DVP, woken by the Secret's watch."""
    settings = Settings(dvp=DVPSettings(env.dvp_api.kubeconfig(), env.dvp_ns, env.uuid), reconcile=env.config,
                        watch_namespace=env.ns, health_bind=None, metrics_bind=None, webhook_bind=None, workers=2)
    manager = Manager(settings, env.guest_api.client(), DVPConnection(env.dvp_api.client(), env.dvp_ns, env.uuid))
    manager.start()
    try:
        env.capi_machine("boot")

        def user_data() -> bytes | None:
            try:
                secret = env.dvp.get(r.SECRET, "cloud-init-boot", env.dvp_ns)
            except NotFound:
                return None
            return base64.b64decode(secret["data"]["userData"])
        wait_until("the cloud-init Secret", lambda: user_data() == b"#cloud-config\n")
        wait_until("the machine's Pending status", lambda: "Secret cloud-init-boot: present" in str(env.dm("boot")))
        # the events of the controller's own writes are handled and its queue is empty: nothing else wakes it now
        wait_until("the controller idle", lambda: settled(manager, env))
        new = base64.b64encode(b"#cloud-config\nhostname: boot\n").decode()
        env.guest.patch(r.SECRET, "boot-bootstrap", {"data": {"value": new}}, env.ns)
        wait_until("the new bootstrap data in DVP", lambda: user_data() == b"#cloud-config\nhostname: boot\n")
    finally:
        manager.shutdown()
