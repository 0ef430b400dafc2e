# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""The scenario's steps, in order; each prints what it did and fails with what it waited for."""

from __future__ import annotations

import time
from collections import Counter

from capdvp import resources as r
from dvp_ccm.domain import taints
from dvp_common.dvp.resources import VIRTUAL_MACHINE as VM
from dvp_common.dvp.resources import VIRTUAL_MACHINE_OPERATION as VMOP
from dvp_common.kube import ApiError, Resource, get_or_none
from dvp_common.kube.resources import NODE, POD, SECRET, SERVICE
from dvp_common.kube.resources import PERSISTENT_VOLUME as PV
from dvp_common.kube.resources import PERSISTENT_VOLUME_CLAIM as PVC
from dvp_common.kube.resources import VOLUME_ATTACHMENT as VA
from dvp_webhooks import lookups

from demo import scrape
from demo import seed_objects as so
from demo.chaos import Chaos
from demo.environment import CAPI_NS, MODULE_NS, ZONES, Demo, Result, StepFailed, wait_until
from demo.hook_runner import HookRunner
from demo.ledger import Ledger, dvp_requests
from sim.builders import vmop
from testkit.harness.guest_controllers import UNINITIALIZED
from testkit.nodemanager import StandIn

NODE_GROUP, PER_ZONE = "worker", 1
VS = Resource("snapshot.storage.k8s.io", "v1", "volumesnapshots", "VolumeSnapshot")
APP_NS = "default"
STORAGE_CLASS = "replicated-fast"
UNREACHABLE = "node.kubernetes.io/unreachable"

def walk(d: Demo) -> Result:
    p, began = d.p, time.monotonic()
    if d.s.images:
        with p.step("build and unpack the component images (imagekit; .tmp/images, .tmp/rootfs)"):
            d.prepare_images()
    with p.step("start the DVP and guest API servers (etcd + 2 kube-apiservers on 127.0.0.1; DVP's garbage "
                "collector: kube-controller-manager)"):
        d.start_apis()
        d.seed_dvp()
    with p.step("start the guest's own control plane (kube-controller-manager, kube-scheduler, kwok, CAPI)"):
        d.start_guest_control_plane()
    ledger = d.ledger = Ledger(d.dvp, d.project).start()
    requests_before = dvp_requests(d.dvp_api.url, d.dvp_api.token, str(d.dvp_api.ca_path))
    with p.step("start the DVP simulator (python -m sim, pools 127.66.0.0/24 and 127.77.0.0/24)"):
        d.start_simulator()
        d.start_kubelets()
    with p.step("run the module's hooks (beforeHelm) as shell-operator does"):
        d.seed_guest()
        runner = HookRunner(d.guest, d.values())
        d.run_hooks(runner)
    with p.step("render the chart with the hooks' values and apply what the components need"):
        applied = d.render_and_apply(runner.values)
        p.line("   applied: " + ", ".join(f"{n} {k}" for k, n in sorted(applied.items())))
        d.run_hooks(runner, "afterHelm")
    with p.step("start the components as processes; register the webhook configurations in the guest API"):
        d.start_components()
        if d.components.available("validation-webhook") and d.components.available("snapshot-webhooks"):
            p.line("   registered: " + ", ".join(d.register_webhooks(runner.values)))
    unavailable = {n: c.unavailable for n, c in d.components.items.items() if c.unavailable}
    chaos = Chaos(d.components, d.s.kills, d.s.seed, hold_dir=d.hold_dir).start()

    admission: dict[str, bool] = {}
    with p.step("admission through kube-apiserver: the credentials Secret, the DVPInstanceClass and NodeGroup"):
        if not d.components.available("validation-webhook"):
            p.line("   not available: the validation webhook did not start")
        else:
            admission = _admission(d)
            _node_group(d, PER_ZONE)

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
    node_manager = StandIn(d.guest, CAPI_NS, so.CLUSTER, {"uuid": _cluster_uuid(d), "podSubnet": "10.111.0.0/16"})
    with p.step(f"NodeGroup {NODE_GROUP} -> MachineDeployments -> Machines (CAPI) -> VMs Running (capdvp) -> "
                "Nodes (kwok) initialised (CCM)"):
        if not (d.components.available("capdvp-controller-manager")
                and d.components.available("cloud-controller-manager")):
            p.line("   not available: capdvp and the CCM are needed")
        else:
            names = _grow_nodes(d, node_manager)
    initialized = len(names)

    with p.step("a Pod with a PVC -> Running; resized, snapshotted, restored for a second Pod"):
        if not d.components.available("csi-controller"):
            p.line("   not available: the CSI controller did not start")
        elif not names:
            p.line("   not available: no node to run a Pod on")
        else:
            _volumes(d)

    lb_address = ""
    with p.step("a LoadBalancer Service -> DVP Service with an address"):
        if not d.components.available("cloud-controller-manager") or not names:
            p.line("   not available: the CCM (and nodes) are needed")
        else:
            lb_address = _load_balancer(d)

    with p.step("a VM stops -> its Node NotReady (node lifecycle) and tainted shut down (CCM); started -> Ready"):
        if not d.components.available("cloud-controller-manager") or not names:
            p.line("   not available: the CCM (and nodes) are needed")
        else:
            _stop_and_start(d, names[0])

    with p.step("scale down and teardown -> zero DVP objects left"):
        _teardown(d, node_manager, names, lb_address)
        wait_until("zero DVP objects in the project", lambda: _empty_or_none(ledger), timeout=90)
        kills_active = len(chaos.active)
        chaos.finish()
        if d.s.kills:  # the remaining kills land on idle controllers: a restart must not recreate anything
            wait_until(f"{chaos.target} SIGKILLs done", lambda: chaos.done, timeout=180)
            chaos.stop()
            # until each restarted controller logs that its caches synced and its controllers started: nothing
            # can be recreated before, and its first pass (over what its caches hold) begins there
            wait_until("the restarted controllers working again (caches synced)", chaos.restarted_working)
            per = ", ".join(f"{n} x{k}" for n, k in sorted(Counter(chaos.kills).items()))
            p.line(f"   SIGKILLed {len(chaos.kills)} time(s), {kills_active} on a DVP write in flight: {per}")
            for what in chaos.active:
                p.line(f"     killed with in flight: {what}")
        chaos.stop()
        if chaos.failed_restarts:
            raise StepFailed(f"restart after SIGKILL failed: {chaos.failed_restarts}")
        leftovers = ledger.live()
    requests_total = dvp_requests(d.dvp_api.url, d.dvp_api.token, str(d.dvp_api.ca_path)) - requests_before
    try:  # what Prometheus would read from each running component now that every step has run
        metrics = scrape.scrape({n: u for n, u in d.metrics_urls.items() if d.components.available(n)})
    except RuntimeError as exc:
        raise StepFailed(str(exc)) from None
    wait_until("the ledger's watches to see the last DELETED events", lambda: ledger.caught_up(leftovers),
               timeout=30)
    ledger.stop()
    return Result(created=dict(ledger.created), deleted=dict(ledger.deleted), leftovers=leftovers,
                  step_times=dict(p.step_times), dvp_requests=requests_total, hook_runs=runner.runs,
                  nodes_initialized=initialized, lb_address=lb_address, unavailable=unavailable,
                  wall=time.monotonic() - began, kills=list(chaos.kills), kills_active=kills_active,
                  killed_in_flight=list(chaos.active),
                  admission=admission, metrics=metrics)


def _admission(d: Demo) -> dict[str, bool]:
    """A bad credentials Secret is refused by kube-apiserver on the webhook's word (nothing changes); a good write
    goes through. Waits until the API server calls the webhook (it loads new configurations asynchronously)."""
    bad = so.credentials_secret(MODULE_NS, d.dvp_api.kubeconfig(d.project))
    bad["data"]["authScheme"] = so.b64("password")
    out: dict[str, bool] = {}

    def refused() -> str | None:
        try:
            d.guest.patch(SECRET, "d8-credentials", {"data": bad["data"]}, MODULE_NS)
        except ApiError as exc:
            return str(exc) if "authScheme" in str(exc) else None
        d.guest.patch(SECRET, "d8-credentials", {"data": so.credentials_secret(MODULE_NS, d.dvp_api.kubeconfig(
            d.project))["data"]}, MODULE_NS)  # written before the webhook was called: put the good one back
        return None

    reason = wait_until("kube-apiserver calling the validation webhook", refused, timeout=30)
    out["bad"] = False
    d.p.line(f"   Secret d8-credentials with authScheme password: denied: {reason}")
    d.guest.patch(SECRET, "d8-credentials", {"metadata": {"annotations": {"demo/checked": "true"}}}, MODULE_NS)
    out["good"] = True
    d.p.line("   Secret d8-credentials (authScheme kubeconfig) updated: allowed")
    return out


def _node_group(d: Demo, per_zone: int) -> None:
    ic = so.instance_class(NODE_GROUP, "generic", "ubuntu-24-04", STORAGE_CLASS)
    ng = so.node_group(NODE_GROUP, NODE_GROUP, per_zone, list(ZONES))
    for res, obj in ((lookups.DVP_INSTANCE_CLASS, ic), (lookups.NODE_GROUP, ng)):
        if get_or_none(d.guest, res, obj["metadata"]["name"]) is None:
            d.guest.create(res, obj)
    d.p.line(f"   DVPInstanceClass {NODE_GROUP}, NodeGroup {NODE_GROUP} ({per_zone} per zone in "
             f"{', '.join(ZONES)}): allowed")


def _cluster_uuid(d: Demo) -> str:
    return d.credentials_env("dvp-credentials-capdvp")["CLUSTER_UUID"]


def _get(d: Demo, res, name: str, ns: str | None = None):
    return get_or_none(d.guest, res, name, ns)


def _empty_or_none(ledger: Ledger):
    live = ledger.live()
    return True if not live else None


def _linked(d: Demo) -> list[dict]:
    """Machines of the group that CAPI linked to a Node."""
    return [m for m in d.guest.list(r.MACHINE, CAPI_NS, label_selector=f"node-group={NODE_GROUP}").items
            if ((m.get("status") or {}).get("nodeRef") or {}).get("name")]


def _grow_nodes(d: Demo, node_manager: StandIn) -> list[str]:
    # the registration's `dvp` subtree (templates/registration.yaml): the zones of the nodes' settings
    zones = ((d.values()["cloudProviderDvp"].get("nodes") or {}).get("parameters") or {}).get("zones")
    node_manager.ensure_cluster({"zones": zones} if zones else {}, d.guest_api.kubeconfig())
    deployments = node_manager.converge(NODE_GROUP)
    d.p.line("   node-manager (stand-in): MachineDeployment " + ", ".join(
        f"{name} ({zone})" for zone, name in sorted(deployments.items())))
    want = PER_ZONE * len(ZONES)
    wait_until(f"{want} Machines linked to initialised Nodes", lambda: len(_linked(d)) >= want and all(
        _initialised(d, m["status"]["nodeRef"]["name"]) for m in _linked(d)), timeout=120)
    names = []
    for machine in sorted(_linked(d), key=lambda m: m["spec"]["failureDomain"]):
        node = d.guest.get(NODE, machine["status"]["nodeRef"]["name"])
        addrs = ", ".join(f"{a['type']}={a['address']}" for a in (node.get("status") or {}).get("addresses", []))
        d.p.line(f"   Machine {machine['metadata']['name']} ({machine['spec']['failureDomain']}) -> "
                 f"{node['spec']['providerID']} -> Node {node['metadata']['name']}: {addrs}")
        names.append(node["metadata"]["name"])
    return names


def _initialised(d: Demo, name: str):
    node = _get(d, NODE, name)
    if node is None:
        return None
    taints = [t["key"] for t in node["spec"].get("taints") or []]
    return node if node["spec"].get("providerID") and UNINITIALIZED not in taints else None


def _phase(d: Demo, res, name: str, ns: str, phase: str):
    obj = _get(d, res, name, ns)
    return obj if obj is not None and (obj.get("status") or {}).get("phase") == phase else None


def _attached(d: Demo, pv: str):
    return next((va for va in d.guest.list(VA).items if va["spec"]["source"].get("persistentVolumeName") == pv
                 and (va.get("status") or {}).get("attached")), None)


def _volumes(d: Demo) -> None:
    g, ns = d.guest, APP_NS
    g.create(PVC, so.claim("data", STORAGE_CLASS, "1Gi"), ns)
    g.create(POD, so.pod("app", "data"), ns)
    app = wait_until("Pod app Running", lambda: _phase(d, POD, "app", ns, "Running"), timeout=120)
    pvc = wait_until("PVC data Bound", lambda: _phase(d, PVC, "data", ns, "Bound"))
    pv = pvc["spec"]["volumeName"]
    handle = g.get(PV, pv)["spec"]["csi"]["volumeHandle"]
    d.p.line(f"   Pod app on {app['spec']['nodeName']} (kube-scheduler); PVC data -> {pv} -> VirtualDisk {handle}")
    va = wait_until(f"VolumeAttachment of {pv} attached", lambda: _attached(d, pv), timeout=120)
    d.p.line(f"   VolumeAttachment {va['metadata']['name'][:16]}... attached (attach-detach controller, "
             "external-attacher)")
    g.patch(PVC, "data", {"spec": {"resources": {"requests": {"storage": "2Gi"}}}}, ns)
    wait_until("PV resized to 2Gi", lambda: g.get(PV, pv)["spec"]["capacity"]["storage"] == "2Gi", timeout=120)
    d.p.line("   PVC data resized -> 2Gi (external-resizer)")
    g.create(VS, so.volume_snapshot("data-snap", "data"), ns)
    snap = wait_until("VolumeSnapshot data-snap ready", lambda: (
        (_get(d, VS, "data-snap", ns) or {}).get("status") or {}).get("readyToUse") and g.get(VS, "data-snap", ns),
        timeout=120)
    d.p.line(f"   VolumeSnapshot data-snap (class {snap['spec'].get('volumeSnapshotClassName')}) -> "
             f"{snap['status'].get('boundVolumeSnapshotContentName')} (ready True)")
    g.create(PVC, so.claim("restored", STORAGE_CLASS, "2Gi", snapshot="data-snap"), ns)
    g.create(POD, so.pod("restorer", "restored"), ns)
    wait_until("Pod restorer Running", lambda: _phase(d, POD, "restorer", ns, "Running"), timeout=120)
    restored = wait_until("PVC restored Bound", lambda: _phase(d, PVC, "restored", ns, "Bound"))
    restored_pv = restored["spec"]["volumeName"]
    wait_until(f"VolumeAttachment of {restored_pv} attached", lambda: _attached(d, restored_pv), timeout=120)
    d.p.line(f"   PVC restored from the snapshot -> {restored_pv}, Pod restorer Running")
    for name in ("app", "restorer"):
        g.delete(POD, name, ns)
    g.delete(VS, "data-snap", ns)
    for name in ("data", "restored"):
        g.delete(PVC, name, ns)
    for name in (pv, restored_pv):
        wait_until(f"PV {name} gone (detached, deleted by the provisioner)", lambda n=name: _get(d, PV, n) is None,
                   timeout=120)
    wait_until("VolumeSnapshot data-snap gone", lambda: _get(d, VS, "data-snap", ns) is None, timeout=120)
    d.p.line("   Pods, snapshot and claims deleted: volumes detached and deleted")


def _load_balancer(d: Demo) -> str:
    ns = APP_NS
    d.guest.create(SERVICE, so.lb_service("web"), ns)
    svc = wait_until("Service default/web load balancer ingress", lambda: (
        (d.guest.get(SERVICE, "web", ns).get("status") or {}).get("loadBalancer", {}).get("ingress")))
    dvp_services = [s["metadata"]["name"] for s in d.dvp.list(SERVICE, d.project).items]
    d.p.line(f"   DVP Service(s) {', '.join(dvp_services)}; guest Service ingress {svc[0].get('ip')}")
    return svc[0].get("ip", "")


def _ready(node: dict | None) -> str:
    return next((c["status"] for c in ((node or {}).get("status") or {}).get("conditions") or []
                 if c["type"] == "Ready"), "")


def _stop_and_start(d: Demo, name: str, vm: str | None = None) -> None:
    """The VM stops: kwok's kubelet in it stops, the node lifecycle controller marks the Node unreachable, the CCM
    sees the VM stopped and taints the Node shut down; started again, the Node is Ready and both taints go. `vm`:
    the Node's VM when it is not named after the Node (dhctl's masters)."""
    vm = vm or name
    _operate(d, vm, "Stop")
    node = wait_until(f"Node {name} NotReady, unreachable and shut down", lambda: (
        n := _get(d, NODE, name)) is not None and _ready(n) == "Unknown" and taints.has(n, UNREACHABLE)
        and taints.has(n, taints.SHUTDOWN)
        and n)
    d.p.line(f"   VM {vm} stopped -> Node Ready={_ready(node)}, tainted {UNREACHABLE} (node lifecycle controller) "
             f"and {taints.SHUTDOWN} (CCM)")
    _operate(d, vm, "Start")
    node = wait_until(f"Node {name} Ready again, untainted", lambda: (
        n := _get(d, NODE, name)) is not None and _ready(n) == "True" and not taints.has(n, UNREACHABLE)
        and not taints.has(n, taints.SHUTDOWN)
        and n)
    d.p.line(f"   VM {vm} started -> Node Ready={_ready(node)}, neither taint left")


def _operate(d: Demo, vm: str, kind: str) -> None:
    """A VirtualMachineOperation, as a user runs one: created, awaited Completed, then deleted."""
    op = f"{vm}-{kind.lower()}"
    d.dvp.create(VMOP, vmop(op, vm, kind), d.project)

    def finished():
        obj = get_or_none(d.dvp, VMOP, op, d.project)
        return obj if ((obj or {}).get("status") or {}).get("phase") in ("Completed", "Failed") else None
    try:
        done = wait_until(f"VirtualMachineOperation {op} finished", finished)
    except StepFailed as exc:
        status = (get_or_none(d.dvp, VMOP, op, d.project) or {}).get("status")
        vm_phase = ((get_or_none(d.dvp, VM, vm, d.project) or {}).get("status") or {}).get("phase")
        raise StepFailed(f"{exc}; its status {status}; VM {vm} {vm_phase}") from None
    d.dvp.delete(VMOP, op, d.project)
    if done["status"]["phase"] != "Completed":
        raise StepFailed(f"VirtualMachineOperation {op} {done['status']['phase']}: {done['status']}")


def _teardown(d: Demo, node_manager: StandIn, names: list[str], lb_address: str) -> None:
    if lb_address:
        d.guest.delete(SERVICE, "web", APP_NS)
        wait_until("Service default/web gone (CCM finalizer)", lambda: _get(d, SERVICE, "web", APP_NS) is None)
        d.p.line("   LoadBalancer Service deleted")
    if get_or_none(d.guest, lookups.NODE_GROUP, NODE_GROUP) is None:
        return
    d.guest.patch(lookups.NODE_GROUP, NODE_GROUP, {"spec": {"cloudInstances": {"minPerZone": 0, "maxPerZone": 1}}})
    node_manager.converge(NODE_GROUP)
    wait_until("no Machine of the group left", lambda: not d.guest.list(
        r.MACHINE, CAPI_NS, label_selector=f"node-group={NODE_GROUP}").items, timeout=120)
    # CAPI leaves the Nodes of a cluster whose control plane it does not manage; the CCM deletes a Node whose VM
    # is gone once the node lifecycle controller saw it NotReady
    wait_until("their Nodes gone (NotReady, VM gone: the CCM deletes them)",
               lambda: all(_get(d, NODE, n) is None for n in names))
    d.p.line(f"   NodeGroup {NODE_GROUP} -> 0: Machines and VMs gone (CAPI, capdvp); Nodes {', '.join(names)} "
             "deleted by the CCM")
