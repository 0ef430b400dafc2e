# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""Taking over what the upstream (Go) module made: n upstream objects per kind adopted by the component that owns
the kind, on the simulator's in-memory DVP API (sim.memory_api with DVP's admission rules, RTT_S per request).

Kinds, each through the component's own code path, n per size (bench.measure.sizes):
- capdvp: n machines, each a VM, its boot and additional disk and cloud-init Secret (testkit.upstream's shapes),
  adopted by the first reconcile of each DeckhouseMachine (MachineReconciler, the whole pass);
- CSI disk: n volumes' disks, each named by a bound PV of the guest (`Dvp.volume`, what every call on a volume does
  first), the PVs and claims from the driver's proof cache (`guest_proofs`, synced before the window);
- CSI attachment: n hot-plug attachments of adopted disks, 10 per node (`Dvp.adopt_attachments`, what publish and
  unpublish do);
- CCM LB Service: n parent Services of guest LoadBalancer Services, adopted by the first reconcile of each guest
  Service (ServiceController on informers, their LIST and WATCH before the window); our VMs already carry the
  shared backend label, so the adopting patch gives the parent our spec too.

DVP requests are counted at the API boundary: every request the component's client sends (testkit.recorded's
hook on the in-memory transport), reads and writes alike, divided by the objects adopted (counted by the
components' own adoption callbacks). Goal: at most 2 per object (one read to judge it, one guarded write) and the
same at every n. Wall time of the adoption is set against a floor: a bare client on the same API (same RTT_S)
reading and patching each object once, GET and a uid-guarded label PATCH, the least any adoption can send.
Guest requests are reported beside (the proofs are read there).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator

from bench.measure import figure, growth, sizes

RTT_S = 0.002  # the in-memory API's answer time: a round trip to a near DVP API server (as bench.csi)
UUID = "5f7c3a2e-0000-4000-8000-00000000a0d7"
NS = "tenant-a"
APP = "app"
PER_NODE = 10  # attachments per node's VM
KINDS = ("capdvp machine", "CSI disk", "CSI attachment", "CCM LB Service")
Seeded = list[tuple[object, dict, str]]  # (resource, stored object, namespace): what the floor reads and patches


def _dvp(namespace: str = NS):
    from testkit.recorded import RecordedApi

    return RecordedApi(admission=True, namespaces=(namespace,), latency=RTT_S)


def _floor(seeded: Seeded) -> float:
    """Seconds for a bare client to read and patch every object once on a fresh API holding the same objects."""
    from dvp_common.dvp import labels as L
    from dvp_common.dvp.ownership import owned_labels

    api = _dvp()
    objs = [(res, api.put(res, {k: v for k, v in obj.items() if k != "metadata"} | {"metadata": {
        k: v for k, v in obj["metadata"].items() if k not in ("uid", "resourceVersion", "creationTimestamp")}}),
        ns) for res, obj, ns in seeded]
    client = api.client
    start = time.perf_counter()
    for res, obj, ns in objs:
        name = obj["metadata"]["name"]
        live = client.get(res, name, ns)
        md = live["metadata"]
        client.patch(res, name, {"metadata": {"uid": md["uid"], "resourceVersion": md["resourceVersion"],
                                              "labels": owned_labels(UUID, L.CSI)}}, ns)
    return time.perf_counter() - start


def _dvp_requests(api, since: int) -> int:
    return len(api.calls) - since


# capdvp -------------------------------------------------------------------------------------------------------
def capdvp(n: int) -> dict:
    from capdvp import resources as r
    from dvp_common.kube.resources import SECRET

    from testkit.capdvp.world import DVP_NS, World
    from testkit.capdvp.world import UUID as WORLD_UUID
    from testkit.upstream import make_machine, recorded_sink

    world = World(latency=RTT_S)
    put = recorded_sink(world.dvp, world.guest)
    names = [f"m-{i:04d}" for i in range(n)]
    for name in names:
        make_machine(put, name, WORLD_UUID, DVP_NS)
        world.dvp.set_status(r.VIRTUAL_MACHINE, name, DVP_NS, {"phase": "Running", "ipAddress": "10.10.0.5"})
        world.capi_machine(name)
    seeded = [(res, o, DVP_NS) for res in (r.VIRTUAL_MACHINE, r.VIRTUAL_DISK, SECRET)
              for o in world.dvp.items(res, DVP_NS)]
    adopted: list[str] = []
    world.ctx.on_adopt = adopted.append
    guest_before, dvp_before = len(world.guest.calls), len(world.dvp.calls)
    start = time.perf_counter()
    for name in names:
        world.reconcile(name)
    took = time.perf_counter() - start
    assert len(adopted) == len(seeded) == 4 * n, (len(adopted), len(seeded))
    return {"objects": len(adopted), "dvp": _dvp_requests(world.dvp, dvp_before),
            "guest": len(world.guest.calls) - guest_before, "wall_s": took, "floor_s": _floor(seeded)}


# CSI ----------------------------------------------------------------------------------------------------------
def _csi_world(n: int):
    from dvp_common.dvp import labels as L
    from dvp_common.dvp.resources import VIRTUAL_DISK, VIRTUAL_MACHINE
    from dvp_common.kube.resources import NODE, PERSISTENT_VOLUME, PERSISTENT_VOLUME_CLAIM

    from testkit.recorded import RecordedApi
    from testkit.upstream import guest as G
    from testkit.upstream import parent as P

    dvp, guest = _dvp(), RecordedApi(namespaces=(APP,), latency=RTT_S)
    disks = []
    for i in range(n):
        claim = guest.put(PERSISTENT_VOLUME_CLAIM, G.claim(f"data-{i:04d}", APP))
        claim = guest.put(PERSISTENT_VOLUME_CLAIM, G.bound_claim(claim))
        guest.put(PERSISTENT_VOLUME, G.volume(claim))
        disk = P.csi_disk(claim["metadata"]["uid"], UUID)
        disk["status"] = {"phase": "Ready"}
        disks.append(dvp.put(VIRTUAL_DISK, disk, NS)["metadata"]["name"])
    for k in range(max(1, n // PER_NODE)):
        vm = {"metadata": {"name": f"vm-{k:03d}", "labels": {L.MANAGED_BY: L.MANAGED_BY_VALUE, L.CLUSTER_UUID: UUID,
                                                             L.COMPONENT: L.CAPDVP, L.HOSTNAME: f"node-{k:03d}"}},
              "spec": {"virtualMachineClassName": "generic"}, "status": {"phase": "Running"}}
        dvp.put(VIRTUAL_MACHINE, vm, NS)
        guest.put(NODE, G.node(f"node-{k:03d}", f"vm-{k:03d}"))
    return dvp, guest, disks


def _csi_access(dvp, guest, adopted: list[str]):
    """The driver's DVP access as `dvp_csi.driver` wires it: the guest's PVs and claims from its proof cache,
    listed once before the window (their LIST and WATCH are the cache's, not a volume's)."""
    from dvp_csi.access import Dvp
    from dvp_csi.guest_proofs import GuestProofs

    access = Dvp.over(dvp.client, NS, UUID, guest.client)
    access.on_adopt = adopted.append
    access.proof_cache = cache = GuestProofs(guest.client)
    cache.cached([])  # starts its informers
    for inf in (cache.pvs, cache.claims):
        if not inf.synced.wait(60):
            raise RuntimeError(f"the CSI proof cache's {inf.resource.plural} did not sync")
    return access


def csi_disks(n: int) -> dict:
    from dvp_common.dvp.resources import VIRTUAL_DISK

    dvp, guest, disks = _csi_world(n)
    seeded = [(VIRTUAL_DISK, o, NS) for o in dvp.items(VIRTUAL_DISK, NS)]
    adopted: list[str] = []
    access = _csi_access(dvp, guest, adopted)
    guest_before, dvp_before = len(guest.calls), len(dvp.calls)
    start = time.perf_counter()
    for disk in disks:
        access.volume(disk)
    took = time.perf_counter() - start
    _close(access)
    assert len(adopted) == n, len(adopted)
    return {"objects": n, "dvp": _dvp_requests(dvp, dvp_before), "guest": len(guest.calls) - guest_before,
            "wall_s": took, "floor_s": _floor(seeded)}


def csi_attachments(n: int) -> dict:
    from dvp_common.dvp.resources import VIRTUAL_MACHINE_BLOCK_DEVICE_ATTACHMENT as VMBDA

    from testkit.upstream import parent as P

    dvp, guest, disks = _csi_world(n)
    nodes = max(1, n // PER_NODE)
    placed = [(disk, f"node-{i % nodes:03d}", f"vm-{i % nodes:03d}") for i, disk in enumerate(disks)]
    for disk, node, vm in placed:
        att = P.vmbda(disk, node, vm)
        att["status"] = {"phase": "Attached"}
        dvp.put(VMBDA, att, NS)
    seeded = [(VMBDA, o, NS) for o in dvp.items(VMBDA, NS)]
    adopted: list[str] = []
    access = _csi_access(dvp, guest, adopted)
    for disk in disks:  # the disks first (their own figure): an attachment is adopted only for a disk of ours
        access.volume(disk)
    del adopted[:]
    guest_before, dvp_before = len(guest.calls), len(dvp.calls)
    start = time.perf_counter()
    for disk, node, vm in placed:
        access.adopt_attachments(disk, node, vm)
    took = time.perf_counter() - start
    _close(access)
    assert len(adopted) == n, len(adopted)
    return {"objects": n, "dvp": _dvp_requests(dvp, dvp_before), "guest": len(guest.calls) - guest_before,
            "wall_s": took, "floor_s": _floor(seeded)}


def _close(access) -> None:
    if access.proof_cache is not None:
        access.proof_cache.close()


# CCM ----------------------------------------------------------------------------------------------------------
def ccm(n: int) -> dict:
    from dvp_ccm import indexes
    from dvp_ccm.cloud import Cloud
    from dvp_ccm.controllers.context import Context
    from dvp_ccm.controllers.service import BACKENDS, ServiceController
    from dvp_ccm.domain import loadbalancer as LB
    from dvp_ccm.events import EventRecorder
    from dvp_common.dvp import DVPConnection
    from dvp_common.dvp import labels as L
    from dvp_common.dvp.resources import SERVICE as DVP_SERVICE
    from dvp_common.dvp.resources import SERVICE_WITH_HEALTHCHECKS, VIRTUAL_MACHINE
    from dvp_common.kube.resources import NODE, SERVICE
    from dvp_common.runtime import Informer

    from testkit.recorded import RecordedApi
    from testkit.upstream import guest as G
    from testkit.upstream import parent as P

    dvp, guest = _dvp(), RecordedApi(namespaces=(APP,), latency=RTT_S)
    for k in range(3):  # nodes of ours (capdvp's VMs), eligible
        dvp.put(VIRTUAL_MACHINE, {"metadata": {"name": f"vm-{k}", "labels": {
            L.MANAGED_BY: L.MANAGED_BY_VALUE, L.CLUSTER_UUID: UUID, L.COMPONENT: L.CAPDVP,
            L.HOSTNAME: f"node-{k}"}}, "spec": {"virtualMachineClassName": "generic"},
            "status": {"phase": "Running", "ipAddress": f"10.66.0.{10 + k}"}}, NS)
        guest.put(NODE, G.node(f"node-{k}", f"vm-{k}", internal_ip=f"10.66.0.{10 + k}"))
    keys = []
    for i in range(n):
        body = G.lb_service(f"web-{i:04d}", APP)
        for j, port in enumerate(body["spec"]["ports"]):
            port["nodePort"] = 30000 + (i * 2 + j) % 2000
        svc = guest.put(SERVICE, body)
        parent = P.lb_service(svc)
        parent["status"] = {"loadBalancer": {"ingress": [{"ip": f"192.0.{2 + i // 250}.{i % 250 + 1}"}]}}
        dvp.put(DVP_SERVICE, parent, NS)
        keys.append(f"{APP}/{svc['metadata']['name']}")
    seeded = [(DVP_SERVICE, o, NS) for o in dvp.items(DVP_SERVICE, NS)]
    conn = DVPConnection(dvp.client, NS, UUID)
    ours = {L.CLUSTER_UUID: UUID, L.COMPONENT: L.CCM}
    kw = {"watch_timeout": 300}
    nodes, services = Informer(guest.client, NODE, **kw), Informer(guest.client, SERVICE, **kw)
    vms = Informer(dvp.client, VIRTUAL_MACHINE, NS, label_selector={L.CLUSTER_UUID: UUID}, **kw)
    parents = Informer(dvp.client, DVP_SERVICE, NS, label_selector=ours, **kw)
    swhc = Informer(dvp.client, SERVICE_WITH_HEALTHCHECKS, NS, label_selector=ours, **kw)
    indexes.install(vms, nodes, services, [parents, swhc])
    stop = threading.Event()
    informers = [nodes, services, vms, parents]
    threads = [threading.Thread(target=inf.run, args=(stop,), daemon=True) for inf in informers]
    for t in threads:
        t.start()
    for inf in informers:
        if not inf.synced.wait(60):
            raise RuntimeError(f"informer {inf.resource.plural} did not sync")
    cloud = Cloud(conn, vms, parents, swhc)  # ServiceWithHealthchecks not served: plain Services, as upstream's
    adopted: list[str] = []
    ctx = Context(guest=guest.client, cloud=cloud, nodes=nodes, events=EventRecorder(guest.client),
                  services=services)
    ctx.adopted = adopted.append
    controller = ServiceController(ctx)
    controller.reconcile(BACKENDS)  # the shared backend label on our VMs (its own reconcile, before any Service's)
    try:
        guest_before, dvp_before = len(guest.calls), len(dvp.calls)
        start = time.perf_counter()
        results = [controller.reconcile(key) for key in keys]
        took = time.perf_counter() - start
        dvp_requests = _dvp_requests(dvp, dvp_before)
        guest_requests = len(guest.calls) - guest_before
    finally:
        stop.set()
    assert len(adopted) == n and all(not r.retry and not r.requeue_after for r in results), (len(adopted), results[:3])
    assert all(o["spec"]["selector"] == LB.shared_selector(UUID) for o in dvp.items(DVP_SERVICE, NS))
    return {"objects": n, "dvp": dvp_requests, "guest": guest_requests, "wall_s": took, "floor_s": _floor(seeded)}


RUNS: dict[str, Callable[[int], dict]] = {"capdvp machine": capdvp, "CSI disk": csi_disks,
                                          "CSI attachment": csi_attachments, "CCM LB Service": ccm}


def figures() -> Iterator[dict]:
    for kind in KINDS:
        per: dict[int, float] = {}
        for n in sizes():
            res = RUNS[kind](n)
            per[n] = res["dvp"] / res["objects"]
            what = f"adoption {kind} n={n} ({res['objects']} objects)"
            yield figure(f"{what}: DVP requests per adopted object", round(per[n], 3), "requests", "<= 2")
            yield figure(f"{what}: guest requests per adopted object", round(res["guest"] / res["objects"], 3),
                         "requests", "constant in n")
            sent = (res["dvp"] + res["guest"]) / res["objects"]  # every request costs one RTT_S, as the floor's
            yield figure(f"{what}: wall time / floor ({res['wall_s']:.2f} s / {res['floor_s']:.2f} s, a bare "
                         "GET and PATCH per object)", round(res["wall_s"] / res["floor_s"], 2), "ratio",
                         f"~ {sent / 2:.2f} (its {sent:.2f} requests per object over the floor's 2)")
        yield figure(f"adoption {kind}: DVP requests per object, largest n over smallest", growth(per), "ratio",
                     "1.0 (constant in n)")
