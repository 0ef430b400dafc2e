# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""capdvp against the DVP simulator on the real API: the whole controller (leader election, informers, workers)
with DVP's controllers played by sim. Create -> Running, a warm update (Stop -> patch -> Start), a hot
disk, delete: nothing left in DVP."""

from __future__ import annotations

import time

import pytest
from capdvp import resources as r
from capdvp.manager import Manager
from capdvp.settings import Settings
from dvp_common.dvp import conditions as D
from dvp_common.dvp.connection import DVPConnection, DVPSettings
from dvp_common.kube.resources import EVENT

from sim import SimConfig, Simulator, seed
from testkit.capdvp.real import RealEnv

WAIT = 90.0
SC = "capdvp-sim-sc"


@pytest.fixture
def running(dvp_api, guest_api):
    yield from _running(dvp_api, guest_api)


@pytest.fixture(params=["v1.8.0", "v1.0.0"])
def running_spelled(request, dvp_api, guest_api):
    """The same, with DVP writing the renamed reasons as the API version of the parameter spells them."""
    yield from _running(dvp_api, guest_api, dvp_api_version=request.param)


def _running(dvp_api, guest_api, **sim_fields):
    env = RealEnv(dvp_api, guest_api)
    seed.storage_class(env.dvp, SC)
    # One DVP node carries the label the placement test selects (DVP runs a VM only where its nodeSelector matches).
    sim = Simulator(dvp_api.client(), SimConfig(namespace=env.dvp_ns, default_latency=0.05, watch_timeout=1,
                                                node_labels={"dvp-node-2": {"zone": "a"}}, **sim_fields)).start()
    settings = Settings(dvp=DVPSettings(dvp_api.kubeconfig(), env.dvp_ns, env.uuid), reconcile=env.config,
                        watch_namespace=env.ns, leader_elect=False, health_bind=None, metrics_bind=None,
                        webhook_bind=None, workers=4)
    manager = Manager(settings, guest_api.client(), DVPConnection(dvp_api.client(), env.dvp_ns, env.uuid))
    manager.start()
    yield env, sim
    manager.shutdown()
    sim.stop()
    env.close()


def wait_until(what: str, predicate, describe=lambda: "") -> None:
    deadline = time.monotonic() + WAIT
    while time.monotonic() < deadline:
        if predicate():
            return
        time.sleep(0.1)
    raise AssertionError(f"timed out after {WAIT:g}s waiting for {what}; {describe()}")


def describe(env, name):
    def text():
        vm = env.vm(name) or {}
        ops = [(o["metadata"]["name"], (o.get("status") or {}).get("phase"))
               for o in env.dvp.list(r.VMOP, env.dvp_ns).items]
        dm = env.dm(name) or {}
        return (f"vm phase={(vm.get('status') or {}).get('phase')} memory={vm.get('spec', {}).get('memory')} "
                f"ops={ops} annotations={dm.get('metadata', {}).get('annotations')} "
                f"conditions={[(c['type'], c['reason']) for c in (dm.get('status') or {}).get('conditions', [])]}")
    return text


def _status(env, name) -> dict:
    return ((env.dm(name) or {}).get("status") or {})


def _cond(env, name, ctype) -> dict:
    return next((c for c in _status(env, name).get("conditions") or [] if c["type"] == ctype), {})


def test_lifecycle_with_the_simulator(running):
    env, _sim = running
    spec = env.spec(rootDiskStorageClass=SC, additionalDisks=[{"size": "1Gi", "storageClass": SC}])
    names = ["w-0", "w-1", "w-2"]
    for n in names:
        env.capi_machine(n, spec)
    wait_until("machines ready", lambda: all(_status(env, n).get("ready") for n in names))
    for n in names:
        st = _status(env, n)
        assert st["initialization"] == {"provisioned": True}
        ip = env.vm(n)["status"]["ipAddress"]
        assert ip and {"type": "InternalIP", "address": ip} in st["addresses"]

    # warm: memory -> Stop, patch, Start, all by watch events
    env.guest.patch(r.DECKHOUSE_MACHINE, "w-0", {"spec": {"memory": "8Gi"}}, env.ns)
    wait_until("warm update applied", lambda: _cond(env, "w-0", "InPlaceUpdate").get("reason") == "UpdateApplied"
               and _status(env, "w-0").get("ready"), describe(env, "w-0"))
    assert env.vm("w-0")["spec"]["memory"] == {"size": "8Gi"}
    ops = sorted((o["spec"]["type"], o["status"]["phase"]) for o in env.dvp.list(r.VMOP, env.dvp_ns).items)
    assert ops == [("Start", "Completed"), ("Stop", "Completed")]

    # hot: one more disk, attached without a restart
    env.guest.patch(r.DECKHOUSE_MACHINE, "w-1", {"spec": {"additionalDisks": [
        {"size": "1Gi", "storageClass": SC}, {"size": "2Gi", "storageClass": SC}]}}, env.ns)

    def attached():
        refs = (env.vm("w-1").get("status") or {}).get("blockDeviceRefs") or []
        return any(ref.get("name") == "w-1-additional-disk-1" and ref.get("hotplugged") and ref.get("attached")
                   for ref in refs)
    wait_until("hot-plugged disk attached", attached)
    assert env.vm("w-1")["status"]["phase"] == "Running"

    for n in names:
        env.guest.delete(r.DECKHOUSE_MACHINE, n, env.ns)
    wait_until("machines released", lambda: all(env.dm(n) is None for n in names))
    # Attachments terminate on their own schedule in DVP (and the simulator): wait for all, bounded.
    wait_until("DVP side empty", lambda: not any(env.names(res) for res in (
        r.VIRTUAL_MACHINE, r.VIRTUAL_DISK, r.SECRET, r.VMBDA, r.VMOP)))


def test_instance_class_placement_reaches_the_dvp_virtual_machine(running):
    # nodeSelector, tolerations, priority class, labels and annotations from the DVPInstanceClass (through the
    # machine template) are on the VM DVP stores: our DVP CRD schema keeps them, nothing is pruned.
    env, _sim = running
    spec = env.spec(rootDiskStorageClass=SC, additionalDisks=[], nodeSelector={"zone": "a"}, priorityClassName="high",
                    tolerations=[{"key": "k", "operator": "Exists", "effect": "NoSchedule"}],
                    additionalLabels={"team": "a"}, additionalAnnotations={"note": "x"})
    env.capi_machine("p-0", spec)
    wait_until("machine ready", lambda: _status(env, "p-0").get("ready"),
               lambda: str((env.vm("p-0") or {}).get("status")))
    vm = env.vm("p-0")
    assert vm["metadata"]["labels"]["team"] == "a"
    assert vm["metadata"]["labels"]["dvp.deckhouse.io/cluster-uuid"] == env.uuid
    assert vm["metadata"]["annotations"]["note"] == "x"
    assert (vm["spec"]["nodeSelector"], vm["spec"]["priorityClassName"], vm["spec"]["tolerations"]) == (
        {"zone": "a"}, "high", [{"key": "k", "operator": "Exists", "effect": "NoSchedule"}])
    assert vm["status"]["nodeName"] == "dvp-node-2", "DVP ran it on the one node its nodeSelector matches"


def test_a_vm_no_dvp_node_fits_shows_why_on_its_machine(running):
    # DVP keeps the VM Pending with Running=False/PodNotStarted: the machine names it, with DVP's words.
    env, _sim = running
    env.capi_machine("u-0", env.spec(rootDiskStorageClass=SC, additionalDisks=[], nodeSelector={"zone": "nowhere"}))
    wait_until("the machine names DVP's cause", lambda: _cond(env, "u-0", "VirtualMachineReady").get("reason") ==
               "VMPodNotStarted", describe(env, "u-0"))
    vm = env.vm("u-0")
    assert vm["status"]["phase"] == "Pending"
    assert _cond(env, "u-0", "VirtualMachineReady")["message"] == (
        f"VirtualMachine {vm['metadata']['name']} cannot be started by DVP (Running=PodNotStarted): 0/3 nodes are "
        "available: node(s) didn't match Pod's node affinity/selector")
    assert not _status(env, "u-0").get("ready")


def test_a_machine_is_ready_and_booted_under_either_dvp_spelling(running_spelled):
    # DVP v1.0.0 writes Running=True/VirtualMachineRunning, v1.8.0 Running=True/Running: the machine reads both.
    env, sim = running_spelled
    env.capi_machine("s-0", env.spec(rootDiskStorageClass=SC, additionalDisks=[]))
    wait_until("machine ready", lambda: _status(env, "s-0").get("ready"), describe(env, "s-0"))
    running = D.reason_of(D.VM_RUNNING, "Running")
    assert (_cond(env, "s-0", "VirtualMachineReady")["reason"], _cond(env, "s-0", "LiveMigratable")["status"]) == (
        "VMRunning", "True")
    assert next(c for c in env.vm("s-0")["status"]["conditions"] if c["type"] == "Running")["reason"] == \
        D.spelled(running, sim.config.dvp_api_version)


def _upstream_machine(env, name: str, spec: dict) -> dict:
    """The VM, disks and Secret as upstream's capdvp makes them (deckhouse/deckhouse
    modules/030-cloud-provider-dvp/images/capdvp-controller-manager/src/internal/controller/
    deckhousemachine_controller.go `createVM`; images/dvp-common/api/disk.go, compute.go): the VM named after the
    machine, labelled managed-by, cluster-uuid, hostname; `cloud-init-<m>`, `<m>-boot`, `<m>-additional-disk-<i>`
    with an ownerReference (no controller flag) to it; no component label anywhere."""
    from dvp_common.dvp import manifests as m

    disks = [f"{name}-boot"] + [f"{name}-additional-disk-{i}" for i in range(len(spec["additionalDisks"]))]
    vm = env.dvp.create(r.VIRTUAL_MACHINE, {"apiVersion": r.VIRTUAL_MACHINE.api_version, "kind": "VirtualMachine",
        "metadata": {"name": name, "labels": {"deckhouse.io/managed-by": "deckhouse",
                                              "dvp.deckhouse.io/cluster-uuid": env.uuid,
                                              "dvp.deckhouse.io/hostname": name}},
        "spec": {"runPolicy": "AlwaysOnUnlessStoppedManually", "liveMigrationPolicy": "PreferSafe",
                 "osType": "Generic", "bootloader": "EFI", "virtualMachineClassName": spec["vmClassName"],
                 "enableParavirtualization": True,
                 "provisioning": {"type": "UserDataRef",
                                  "userDataRef": {"kind": "Secret", "name": f"cloud-init-{name}"}},
                 "cpu": {"cores": 2, "coreFraction": "50%"}, "memory": {"size": spec["memory"]},
                 "blockDeviceRefs": [{"kind": "VirtualDisk", "name": d} for d in disks]}}, env.dvp_ns)
    owner = [{"apiVersion": r.VIRTUAL_MACHINE.api_version, "kind": "VirtualMachine", "name": name,
              "uid": vm["metadata"]["uid"]}]
    env.dvp.create(r.SECRET, m.cloud_init_secret({"name": f"cloud-init-{name}", "ownerReferences": owner},
                                                 b"#cloud-config\n"), env.dvp_ns)
    for i, disk in enumerate(disks):
        meta = {"name": disk, "ownerReferences": owner, "labels": {
            "deckhouse.io/managed-by": "deckhouse", "virtualDiskName": disk, "dvp.deckhouse.io/cluster-uuid": env.uuid,
            "dvp.deckhouse.io/hostname": name}}
        body = m.virtual_disk(meta, spec["rootDiskSize"], SC, m.image_source("ClusterVirtualImage", env.image)) \
            if i == 0 else m.virtual_disk(meta, spec["additionalDisks"][i - 1]["size"], SC)
        env.dvp.create(r.VIRTUAL_DISK, body, env.dvp_ns)
    return vm


def test_an_upstream_machine_is_adopted_and_deleted_with_the_simulator(running):
    # Made by upstream's capdvp and running under DVP; the DeckhouseMachine then comes to us: adopted on the first
    # pass (the VM is outside our label-selected informers until then), Ready with the same VM, deleted clean.
    env, _sim = running
    spec = env.spec(rootDiskStorageClass=SC, additionalDisks=[{"size": "1Gi", "storageClass": SC}])
    vm = _upstream_machine(env, "a-0", spec)
    wait_until("upstream VM running", lambda: (env.vm("a-0").get("status") or {}).get("phase") == "Running",
               lambda: str(env.vm("a-0").get("status")))
    env.capi_machine("a-0", spec)
    wait_until("adopted machine ready", lambda: _status(env, "a-0").get("ready"), describe(env, "a-0"))
    now = env.vm("a-0")
    assert now["metadata"]["uid"] == vm["metadata"]["uid"]
    for res in (r.VIRTUAL_MACHINE, r.VIRTUAL_DISK, r.SECRET):
        for o in env.dvp.list(res, env.dvp_ns).items:
            labels = o["metadata"]["labels"]
            assert (labels["dvp.deckhouse.io/component"], labels["dvp.deckhouse.io/cluster-uuid"],
                    labels["dvp.deckhouse.io/hostname"]) == ("capdvp", env.uuid, "a-0"), o["metadata"]["name"]
    events = [e for e in env.guest.list(EVENT, env.ns).items if e["reason"] == "Adopted"]
    assert [e["involvedObject"]["name"] for e in events] == ["a-0"]
    env.guest.delete(r.DECKHOUSE_MACHINE, "a-0", env.ns)
    wait_until("machine released", lambda: env.dm("a-0") is None)
    wait_until("DVP side empty", lambda: not any(env.names(res) for res in (
        r.VIRTUAL_MACHINE, r.VIRTUAL_DISK, r.SECRET)))
