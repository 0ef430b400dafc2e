# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""The scenario's steps, in order; each prints what it did and fails with what it waited for."""

from __future__ import annotations

import contextlib
import secrets
import time
from collections import Counter

from capdvp import resources as r
from dvp_common.kube import NotFound, get_or_none
from dvp_common.kube.resources import NODE, SECRET, SERVICE
from dvp_sim.world import KINDS

from demo import seed_objects as so
from demo.admission import review
from demo.chaos import Chaos
from demo.csi_client import CsiClient
from demo.hook_runner import HookRunner
from demo.ledger import Ledger, dvp_requests
from demo.scenario import CAPI_NS, MODULE_NS, Demo, Result, StepFailed, wait_until

NODE_GROUP, REPLICAS = "worker", 2
GIB = 1 << 30


def walk(d: Demo) -> Result:
    p, began = d.p, time.monotonic()
    with p.step("start the DVP and guest API servers (etcd + 2 kube-apiservers on 127.0.0.1)"):
        d.start_apis()
        d.seed_dvp()
    ledger = Ledger(d.dvp, d.project).start()
    requests_before = dvp_requests(d.dvp_api.url, d.dvp_api.token, str(d.dvp_api.ca_path))
    with p.step("start the DVP simulator (python -m dvp_sim, pools 127.66.0.0/24 and 127.77.0.0/24)"):
        d.start_simulator()
    with p.step("run the module's hooks (beforeHelm) as shell-operator does"):
        d.seed_guest()
        runner = HookRunner(d.guest, d.values())
        d.run_hooks(runner)
    with p.step("render the chart with the hooks' values and apply what the components need"):
        applied = d.render_and_apply(runner.values)
        p.line("   applied: " + ", ".join(f"{n} {k}" for k, n in sorted(applied.items())))
        d.run_hooks(runner, "afterHelm")
    with p.step("start the components as processes"):
        d.start_components()
    unavailable = {n: c.unavailable for n, c in d.components.items.items() if c.unavailable}
    chaos = Chaos(d.components, d.s.kills, d.s.seed, hold_dir=d.hold_dir).start()

    admission: dict[str, bool] = {}
    with p.step("admission: the credentials Secret through the validation webhook"):
        if not d.components.available("validation-webhook"):
            p.line("   not available: the validation webhook did not start")
        else:
            admission = _admission(d)

    with p.step("discovery -> StorageClasses"):
        if not d.components.available("cloud-data-discoverer"):
            p.line("   not available: cloud-data-discoverer did not start")
        else:
            wait_until("the discovery data Secret", lambda: _get(d, SECRET, "d8-cloud-provider-discovery-data",
                                                                 "kube-system"))
            d.run_hooks(runner)
            applied = d.render_and_apply(runner.values)
            classes = runner.values["cloudProviderDvp"]["internal"].get("storageClasses", [])
            p.line("   StorageClasses: " + ", ".join(f"{c['name']} (DVP {c['dvpStorageClass']}, "
                                                     f"{c['volumeBindingMode']})" for c in classes))
            p.line(f"   default: {runner.values['cloudProviderDvp']['internal'].get('defaultStorageClass')}")

    names: list[str] = []
    with p.step(f"NodeGroup {NODE_GROUP}: {REPLICAS} Machines -> DeckhouseMachines -> VMs Running"):
        if not d.components.available("capdvp-controller-manager"):
            p.line("   not available: capdvp did not start")
        else:
            names = _grow_nodes(d)
    initialized = 0
    if names and d.components.available("cloud-controller-manager"):
        with p.step("Nodes registered by kubelet -> initialised by the CCM"):
            initialized = _init_nodes(d, names)

    with p.step("a PVC -> VirtualDisk attached -> resized -> snapshot -> restored PVC"):
        if not d.components.available("csi-controller"):
            p.line("   not available: the CSI controller did not start")
        elif not names:
            p.line("   not available: no node to attach to")
        else:
            _volumes(d, names[0])

    lb_address = ""
    with p.step("a LoadBalancer Service -> DVP Service with an address"):
        if not d.components.available("cloud-controller-manager") or not names:
            p.line("   not available: the CCM (and nodes) are needed")
        else:
            lb_address = _load_balancer(d)

    with p.step("scale down and teardown -> zero DVP objects left"):
        _teardown(d, names, lb_address)
        wait_until("zero DVP objects in the project", lambda: _empty_or_none(ledger), timeout=90)
        kills_active = len(chaos.active)
        chaos.finish()
        if d.s.kills:  # the remaining kills land on idle controllers: a restart must not recreate anything
            wait_until(f"{chaos.target} SIGKILLs done", lambda: chaos.done, timeout=180)
            chaos.stop()
            time.sleep(2.0)
            per = ", ".join(f"{n} x{k}" for n, k in sorted(Counter(chaos.kills).items()))
            p.line(f"   SIGKILLed {len(chaos.kills)} time(s), {kills_active} on a DVP write in flight: {per}")
            for what in chaos.active:
                p.line(f"     killed with in flight: {what}")
        chaos.stop()
        if chaos.failed_restarts:
            raise StepFailed(f"restart after SIGKILL failed: {chaos.failed_restarts}")
        leftovers = ledger.live()
    requests_total = dvp_requests(d.dvp_api.url, d.dvp_api.token, str(d.dvp_api.ca_path)) - requests_before
    wait_until("the ledger's watches to see the last DELETED events", lambda: ledger.caught_up(leftovers),
               timeout=30)
    ledger.stop()
    return Result(created=dict(ledger.created), deleted=dict(ledger.deleted), leftovers=leftovers,
                  step_times=dict(p.step_times), dvp_requests=requests_total, hook_runs=runner.runs,
                  nodes_initialized=initialized, lb_address=lb_address, unavailable=unavailable,
                  wall=time.monotonic() - began, kills=list(chaos.kills), kills_active=kills_active,
                  killed_in_flight=list(chaos.active),
                  admission=admission)


def _admission(d: Demo) -> dict[str, bool]:
    port, ca = d.webhook_ports["validation-webhook"], str(d.work / "validation-webhook-tls" / "ca.crt")
    good = so.credentials_secret(MODULE_NS, d.dvp_api.kubeconfig(d.project))
    bad = so.credentials_secret(MODULE_NS, d.dvp_api.kubeconfig(d.project))
    bad["data"]["authScheme"] = so.b64("password")
    out = {}
    for what, obj in (("good", good), ("bad", bad)):
        answer = wait_until("the validation webhook answering", lambda o=obj: _try_review(port, ca, o), timeout=15)
        out[what] = bool(answer["allowed"])
        reason = (answer.get("status") or {}).get("message", "")
        d.p.line(f"   Secret d8-credentials ({'authScheme kubeconfig' if what == 'good' else 'authScheme password'}):"
                 f" {'allowed' if answer['allowed'] else 'denied: ' + reason}")
    return out


def _try_review(port: int, ca: str, obj: dict):
    try:
        return review(port, ca, "/validate--v1-secret", obj)
    except OSError:
        return None


def _get(d: Demo, res, name: str, ns: str | None = None):
    return get_or_none(d.guest, res, name, ns)


def _empty_or_none(ledger: Ledger):
    live = ledger.live()
    return True if not live else None


def _grow_nodes(d: Demo) -> list[str]:
    g = d.guest
    cluster = g.create(r.CLUSTER, so.cluster(), CAPI_NS)
    g.patch(r.CLUSTER, cluster["metadata"]["name"], {"status": {"initialization": {"infrastructureProvisioned": True}}},
            CAPI_NS, subresource="status")
    spec = so.machine_spec("generic", "ubuntu-24-04")
    names = [f"{NODE_GROUP}-{secrets.token_hex(3)}" for _ in range(REPLICAS)]
    for name in names:
        g.create(SECRET, so.bootstrap_secret(name, NODE_GROUP), CAPI_NS)
        owner = g.create(r.MACHINE, so.machine(name, NODE_GROUP), CAPI_NS)
        g.create(r.DECKHOUSE_MACHINE, so.deckhouse_machine(name, NODE_GROUP, owner, spec), CAPI_NS)
        d.p.line(f"   Machine + bootstrap Secret + DeckhouseMachine {name}")
    for name in names:
        vm = wait_until(f"VirtualMachine of {name} Running", lambda n=name: _vm_running(d, n), timeout=90)
        d.p.line(f"   VM {vm['metadata']['name']} Running, address {vm['status'].get('ipAddress', '?')}")
        dm = wait_until(f"DeckhouseMachine {name} providerID", lambda n=name: (
            (g.get(r.DECKHOUSE_MACHINE, n, CAPI_NS).get("spec") or {}).get("providerID")))
        d.p.line(f"   DeckhouseMachine {name}: providerID {dm}")
    return names


def _vm_running(d: Demo, hostname: str):
    vms = d.dvp.list(KINDS["VirtualMachine"], d.project, label_selector=f"dvp.deckhouse.io/hostname={hostname}").items
    return next((v for v in vms if (v.get("status") or {}).get("phase") == "Running"), None)


def _init_nodes(d: Demo, names: list[str]) -> int:
    for name in names:
        d.guest.create(NODE, so.node(name, NODE_GROUP))
    done = 0
    for name in names:
        node = wait_until(f"Node {name} initialised (taint removed, providerID set)", lambda n=name: _initialised(d, n))
        addrs = ", ".join(f"{a['type']}={a['address']}" for a in (node.get("status") or {}).get("addresses", []))
        d.p.line(f"   Node {name}: {node['spec']['providerID']}; {addrs}")
        done += 1
    return done


def _initialised(d: Demo, name: str):
    node = d.guest.get(NODE, name)
    taints = [t["key"] for t in node["spec"].get("taints") or []]
    return node if node["spec"].get("providerID") and so.UNINITIALIZED not in taints else None


def _volumes(d: Demo, node_name: str) -> None:
    sc = d.guest.get(d.guest_kinds.resource("storage.k8s.io/v1", "StorageClass"), "replicated-fast")
    with CsiClient(d.csi_socket) as csi:
        vol = csi.create_volume(f"pvc-{secrets.token_hex(4)}", 1 * GIB, sc.get("parameters") or {})
        d.p.line(f"   CreateVolume -> {vol.volume_id} ({vol.capacity_bytes // GIB}Gi)")
        ctx = csi.publish(vol.volume_id, node_name)
        d.p.line(f"   ControllerPublishVolume to {node_name} -> {dict(ctx)}")
        size = csi.expand(vol.volume_id, 2 * GIB)
        d.p.line(f"   ControllerExpandVolume -> {size // GIB}Gi")
        snap = csi.snapshot(vol.volume_id, f"snapshot-{secrets.token_hex(4)}")
        d.p.line(f"   CreateSnapshot -> {snap.snapshot_id} (ready {snap.ready_to_use})")
        restored = csi.create_volume(f"pvc-{secrets.token_hex(4)}", 2 * GIB, sc.get("parameters") or {},
                                     snapshot_id=snap.snapshot_id)
        d.p.line(f"   CreateVolume from the snapshot -> {restored.volume_id}")
        csi.unpublish(vol.volume_id, node_name)
        csi.delete_snapshot(snap.snapshot_id)
        csi.delete_volume(restored.volume_id)
        csi.delete_volume(vol.volume_id)
        d.p.line("   ControllerUnpublishVolume, DeleteSnapshot, DeleteVolume x2: done")
        if csi.retries:
            d.p.line(f"   CSI calls repeated as the sidecars would: {csi.retries}")


def _load_balancer(d: Demo) -> str:
    ns = "default"
    d.guest.create(SERVICE, so.lb_service("web"), ns)
    svc = wait_until("Service default/web load balancer ingress", lambda: (
        (d.guest.get(SERVICE, "web", ns).get("status") or {}).get("loadBalancer", {}).get("ingress")))
    dvp_services = [s["metadata"]["name"] for s in d.dvp.list(SERVICE, d.project).items]
    d.p.line(f"   DVP Service(s) {', '.join(dvp_services)}; guest Service ingress {svc[0].get('ip')}")
    return svc[0].get("ip", "")


def _teardown(d: Demo, names: list[str], lb_address: str) -> None:
    if lb_address:
        d.guest.delete(SERVICE, "web", "default")
        wait_until("Service default/web gone (CCM finalizer)", lambda: _get(d, SERVICE, "web", "default") is None)
        d.p.line("   LoadBalancer Service deleted")
    for name in names:
        d.guest.delete(r.DECKHOUSE_MACHINE, name, CAPI_NS)
    for name in names:
        wait_until(f"DeckhouseMachine {name} gone", lambda n=name: _get(d, r.DECKHOUSE_MACHINE, n, CAPI_NS) is None,
                   timeout=90)
        for res in (r.MACHINE, NODE):
            with contextlib.suppress(NotFound):
                d.guest.delete(res, name, CAPI_NS if res is r.MACHINE else None)
        d.p.line(f"   {name}: DeckhouseMachine gone (VM deleted by capdvp), Machine and Node removed")
