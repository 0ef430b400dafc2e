# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""The switch: this module installed over a cluster that Deckhouse's own (Go) cloud-provider-dvp built and ran.

Before any component starts, the project and the guest hold what upstream leaves (testkit.upstream: a dhctl master,
the workers capdvp made for a NodeGroup's Machines, a volume attached to the first worker, a LoadBalancer with its
parent Service), and another cluster's upstream-made objects beside them; the pre-switch report reads them. Then
the components start, and the cluster's everyday work goes on over those objects: the machines are adopted and
linked, the master Node is tainted when its VM stops, the LoadBalancer keeps its address and takes the machines the
grown NodeGroup adds, the volume moves to the other worker, grows and is snapshotted. Scale-down and deletes then
leave in the project only what dhctl owns and the other cluster's objects, every one with the uid it had before the
switch. A step that does not come about raises demo.environment.StepFailed.
"""

from __future__ import annotations

import io
from dataclasses import dataclass, field
from typing import Any

from capdvp import resources as r
from capdvp.domain import conditions as C
from dvp_ccm.domain import events as E
from dvp_ccm.domain import taints
from dvp_common.dvp import labels as L
from dvp_common.dvp.resources import VIRTUAL_DISK, VIRTUAL_MACHINE, VIRTUAL_MACHINE_IP_ADDRESS, VMBDA
from dvp_common.kube import get_or_none
from dvp_common.kube.resources import EVENT, NETWORK_POLICY, NODE, POD, SECRET, SERVICE
from dvp_common.kube.resources import PERSISTENT_VOLUME as PV
from dvp_common.kube.resources import PERSISTENT_VOLUME_CLAIM as PVC
from dvp_common.takeover.__main__ import main as report_main
from dvp_webhooks import lookups

from demo import seed_objects as so
from demo.environment import CAPI_NS, Demo, wait_until
from demo.hook_runner import HookRunner
from demo.walk import (
    APP_NS,
    NODE_GROUP,
    PER_ZONE,
    STORAGE_CLASS,
    VS,
    _attached,
    _cluster_uuid,
    _get,
    _linked,
    _node_group,
    _phase,
    _stop_and_start,
)
from testkit.nodemanager import StandIn
from testkit.upstream import guest as G
from testkit.upstream import parent as P
from testkit.upstream.world import GUEST, PARENT, KubeSink, another_cluster, make_machine, make_master

PREFIX = "dev"
OTHER_PREFIX = "other"
IMAGE = ("ClusterVirtualImage", "ubuntu-24-04")
PARENT_KINDS = (VIRTUAL_MACHINE, VIRTUAL_DISK, VMBDA, SECRET, SERVICE, NETWORK_POLICY, VIRTUAL_MACHINE_IP_ADDRESS)
# what a component says of an object it takes for another's: never of this cluster's
FOREIGN_REASONS = (E.INSTANCE_NOT_OURS, E.LB_NOT_OURS, C.FOREIGN_OBJECT)


@dataclass
class SwitchResult:
    before: dict[tuple[str, str], str]  # (kind, name) -> uid, every parent object before the components started
    after: dict[tuple[str, str], str] = field(default_factory=dict)  # the same after the walk's teardown
    removed: set[tuple[str, str]] = field(default_factory=set)  # this cluster's objects the walk's deletes remove
    theirs: dict[tuple[str, str], dict] = field(default_factory=dict)  # the other cluster's: labels before
    theirs_after: dict[tuple[str, str], dict] = field(default_factory=dict)  # and after
    foreign: list[str] = field(default_factory=list)  # events and DeckhouseMachine conditions saying "not ours"
    report_code: int = -1  # the pre-switch report's exit code
    report: str = ""
    lb_address: str = ""
    parent_lb_address: str = ""
    volume_nodes: list[str] = field(default_factory=list)
    lb_backends: list[str] = field(default_factory=list)  # VMs the parent Service selects once the group grew


def parent_objects(d: Demo) -> dict[tuple[str, str], dict]:
    out = {}
    for res in PARENT_KINDS:
        for obj in d.dvp.list(res, d.project).items:
            out[(res.kind, obj["metadata"]["name"])] = obj
    return out


def switch(d: Demo) -> SwitchResult:
    p = d.p
    with p.step("start the DVP and guest API servers, the guest's control plane and the DVP simulator"):
        d.start_apis()
        d.seed_dvp()
        d.start_guest_control_plane()
        d.start_simulator()
    with p.step("the module's hooks and chart (what the components read), no component running yet"):
        d.seed_guest()
        runner = HookRunner(d.guest, d.values())
        d.run_hooks(runner)
        d.render_and_apply(runner.values)
        d.run_hooks(runner, "afterHelm")
        uuid = _cluster_uuid(d)
        d.start_kubelets(cluster_uuid=uuid)
    node_manager = StandIn(d.guest, CAPI_NS, "dvp", {"uuid": uuid, "podSubnet": "10.111.0.0/16"})
    with p.step("a cluster as Deckhouse's module leaves it (testkit.upstream), another cluster's objects beside it"):
        workers, gone = _upstream_cluster(d, uuid, node_manager)
        theirs = another_cluster(KubeSink(d.dvp, d.guest), prefix=OTHER_PREFIX, namespace=d.project)
        # DVP makes the address of a VM that names none (named after the VM): counted before, not met later
        wait_until("DVP's address of every VM in the project", lambda: all(
            get_or_none(d.dvp, VIRTUAL_MACHINE_IP_ADDRESS, (vm.get("spec") or {}).get("virtualMachineIPAddressName")
                        or vm["metadata"]["name"], d.project) is not None
            for vm in d.dvp.list(VIRTUAL_MACHINE, d.project).items))
    before = parent_objects(d)
    result = SwitchResult(before={k: o["metadata"]["uid"] for k, o in before.items()})
    made_by_them = {(kind, name) for side, kind, name in theirs.made if side == PARENT}
    # DVP's own: the address it makes for a VM that names none is named after the VM
    made_by_them |= {("VirtualMachineIPAddress", name) for kind, name in made_by_them if kind == "VirtualMachine"}
    result.theirs = {k: before[k]["metadata"].get("labels") or {} for k in made_by_them if k in before}
    p.line(f"   project: {len(before)} objects, {len(result.theirs)} of them another cluster's")
    with p.step("the pre-switch report: python3 -m dvp_common.takeover (GET requests only)"):
        out, err = io.StringIO(), io.StringIO()
        result.report_code = report_main([
            "--guest-kubeconfig", str(d.work / "guest.kubeconfig"), "--parent-kubeconfig",
            str(d.work / "dvp.kubeconfig"), "--namespace", d.project, "--cluster-uuid", uuid], out=out, err=err)
        result.report = out.getvalue() + err.getvalue()
        for line in result.report.splitlines():
            p.line(f"   {line}")
    with p.step("start the components over it"):
        d.start_components()
    with p.step("discovery -> StorageClasses"):
        wait_until("the discovery data Secret", lambda: _get(d, SECRET, "d8-cloud-provider-discovery-data",
                                                             "kube-system"))
        d.run_hooks(runner)
        d.render_and_apply(runner.values)
    with p.step("the upstream machines adopted: Machines linked to their Nodes (capdvp), VMs labelled ours"):
        want = len(workers)
        wait_until(f"{want} Machines linked", lambda: len(_linked(d)) >= want, timeout=120)
        for m in workers:
            vm = wait_until(f"VM {m} labelled capdvp's", lambda m=m: (
                v := _get_dvp(d, VIRTUAL_MACHINE, m)) is not None and (v["metadata"].get("labels") or {}).get(
                L.COMPONENT) == L.CAPDVP and v)
            p.line(f"   VM {m}: uid {vm['metadata']['uid']}, labels {L.COMPONENT}={L.CAPDVP}")
        result.foreign += [f"DeckhouseMachine/{dm['metadata']['name']}: {c.get('reason')}: {c.get('message')}"
                           for dm in d.guest.list(r.DECKHOUSE_MACHINE, CAPI_NS).items
                           for c in (dm.get("status") or {}).get("conditions") or []
                           if c.get("reason") in FOREIGN_REASONS]
    master = P.master_hostname(PREFIX, 0)
    with p.step(f"the master's VM stops -> Node {master} tainted shut down (CCM); started -> untainted"):
        vm = next(v["metadata"]["name"] for v in d.dvp.list(VIRTUAL_MACHINE, d.project).items
                  if (v["metadata"].get("labels") or {}).get(L.HOSTNAME) == master)
        _stop_and_start(d, master, vm)
    with p.step("the LoadBalancer keeps its parent Service and address"):
        result.lb_address, result.parent_lb_address = _load_balancer(d)
    with p.step("the NodeGroup grows: the new machines (ours) join the LoadBalancer beside the adopted ones"):
        result.lb_backends = _grow(d, node_manager, len(workers))
    with p.step("the upstream volume: a Pod on each worker in turn, resized, snapshotted"):
        result.volume_nodes = _volume(d, workers)
    with p.step("deletes and scale-down -> only dhctl's and the other cluster's objects left"):
        _teardown(d, node_manager, workers)
        result.removed = gone | {("VirtualMachineIPAddress", m) for m in workers}
        stay = set(before) - result.removed
        # the grown machines' disks and Secrets go after their VMs (DVP's garbage collector): wait for the end
        wait_until("the project holding only what stays", lambda: set(parent_objects(d)) == stay, timeout=120)
    after = parent_objects(d)
    result.after = {k: o["metadata"]["uid"] for k, o in after.items()}
    result.theirs_after = {k: after[k]["metadata"].get("labels") or {} for k in result.theirs if k in after}
    result.foreign += [f"{e['involvedObject'].get('kind')}/{e['involvedObject'].get('name')}: "
                       f"{e.get('reason')}: {e.get('message')}" for e in d.guest.list(EVENT).items
                       if e.get("reason") in FOREIGN_REASONS]
    return result


def _get_dvp(d: Demo, res, name: str):
    return get_or_none(d.dvp, res, name, d.project)


def _upstream_cluster(d: Demo, uuid: str, node_manager: StandIn) -> tuple[list[str], set[tuple[str, str]]]:
    """The master (dhctl) and the `isolated-<prefix>` NetworkPolicy, the NodeGroup's machines (CAPI made the
    DeckhouseMachines; upstream's capdvp their VMs, disks and Secrets; upstream's CCM initialised their Nodes), the
    volume and the LoadBalancer. Returns the machines, and the parent objects the walk's deletes must remove."""
    put = KubeSink(d.dvp, d.guest)
    put(PARENT, NETWORK_POLICY, P.isolated_network_policy(PREFIX, uuid, d.project), d.project)
    svc = put(GUEST, SERVICE, G.lb_service("web", APP_NS), APP_NS)
    lb_name = L.lb_name(svc["metadata"]["uid"])
    lb_keys = {P.lb_label_key(lb_name): P.LB_VALUE}
    master_vm = make_master(put, PREFIX, 0, uuid, d.project)
    _node_group(d, PER_ZONE)
    zones = ((d.values()["cloudProviderDvp"].get("nodes") or {}).get("parameters") or {}).get("zones")
    node_manager.ensure_cluster({"zones": zones} if zones else {}, d.guest_api.kubeconfig())
    node_manager.converge(NODE_GROUP)
    machines = wait_until("CAPI's DeckhouseMachines of the NodeGroup", lambda: (
        ms := [m["metadata"]["name"] for m in d.guest.list(r.DECKHOUSE_MACHINE, CAPI_NS).items])
        and len(ms) >= PER_ZONE * len(zones or [""]) and sorted(ms), timeout=120)
    for m in machines:
        make_machine(put, m, uuid, d.project, extra_labels=lb_keys,
                     disks=(("20Gi", STORAGE_CLASS, IMAGE),))
    for hostname, vm_name in [(P.master_hostname(PREFIX, 0), master_vm["metadata"]["name"])] + \
            [(m, m) for m in machines]:
        _initialised_by_upstream(d, hostname, vm_name)
    claim = put(GUEST, PVC, G.claim("data", APP_NS, storage_class=STORAGE_CLASS), APP_NS)
    claim = put(GUEST, PVC, G.bound_claim(claim), APP_NS)
    put(GUEST, PV, G.volume(claim, storage_class=STORAGE_CLASS), None)
    disk = put(PARENT, VIRTUAL_DISK, P.csi_disk(claim["metadata"]["uid"], "", storage_class=STORAGE_CLASS),
               d.project)["metadata"]["name"]
    put(PARENT, VMBDA, P.vmbda(disk, machines[0], machines[0]), d.project)
    wait_until(f"VirtualDisk {disk} attached to {machines[0]}", lambda: (
        (_get_dvp(d, VMBDA, f"vmbda-{disk}-{machines[0]}") or {}).get("status") or {}).get("phase") == "Attached",
        timeout=120)
    lb = put(PARENT, SERVICE, P.lb_service(svc), d.project)
    d.p.line(f"   master VM {master_vm['metadata']['name']}; machines {', '.join(machines)}; volume {disk} on "
             f"{machines[0]}; LoadBalancer {lb['metadata']['name']}")
    gone = {("VirtualDisk", disk), ("VirtualMachineBlockDeviceAttachment", f"vmbda-{disk}-{machines[0]}"),
            ("Service", lb["metadata"]["name"])}
    for m in machines:
        gone |= {("VirtualMachine", m), ("VirtualDisk", f"{m}-boot"), ("Secret", f"cloud-init-{m}")}
    return machines, gone


def _initialised_by_upstream(d: Demo, hostname: str, vm_name: str) -> None:
    """The VM's kubelet registered the Node; upstream's CCM set its providerID and lifted the uninitialized taint."""
    node = wait_until(f"Node {hostname} registered by its VM's kubelet", lambda: _get(d, NODE, hostname),
                      timeout=120)
    kept = [t for t in node["spec"].get("taints") or [] if t["key"] != taints.UNINITIALIZED]
    d.guest.patch(NODE, hostname, {"spec": {"providerID": L.provider_id(vm_name), "taints": kept}})


def _load_balancer(d: Demo) -> tuple[str, str]:
    svc = d.guest.get(SERVICE, "web", APP_NS)
    name = L.lb_name(svc["metadata"]["uid"])
    parent = wait_until(f"parent Service {name} with an address", lambda: (
        ((s := _get_dvp(d, SERVICE, name)) or {}).get("status") or {}).get("loadBalancer", {}).get("ingress") and s)
    ingress = wait_until("guest Service web with the parent's address", lambda: (
        (d.guest.get(SERVICE, "web", APP_NS).get("status") or {}).get("loadBalancer", {}).get("ingress")))
    theirs, ours = parent["status"]["loadBalancer"]["ingress"][0].get("ip", ""), ingress[0].get("ip", "")
    d.p.line(f"   parent Service {name} ({theirs}) -> guest Service web ingress {ours}")
    return ours, theirs


def _grow(d: Demo, node_manager: StandIn, had: int) -> list[str]:
    """One more machine per zone, made by this module's capdvp; returns the VMs the parent Service then selects."""
    g = d.guest
    g.patch(lookups.NODE_GROUP, NODE_GROUP, {"spec": {"cloudInstances": {"minPerZone": PER_ZONE + 1,
                                                                         "maxPerZone": PER_ZONE + 1}}})
    node_manager.converge(NODE_GROUP)
    want = 2 * had
    wait_until(f"{want} Machines linked", lambda: len(_linked(d)) >= want, timeout=120)
    name = L.lb_name(g.get(SERVICE, "web", APP_NS)["metadata"]["uid"])

    def backends() -> list[str]:
        selector = (_get_dvp(d, SERVICE, name) or {}).get("spec", {}).get("selector") or {}
        vms = [v["metadata"]["name"] for v in d.dvp.list(VIRTUAL_MACHINE, d.project).items if selector and all(
            (v["metadata"].get("labels") or {}).get(k) == val for k, val in selector.items())]
        return sorted(vms) if len(vms) == want else []
    selected = wait_until(f"parent Service {name} selecting the {want} workers' VMs", backends)
    d.p.line(f"   parent Service {name} selects {', '.join(selected)}")
    return selected


def _volume(d: Demo, workers: list[str]) -> list[str]:
    g, ns, ran = d.guest, APP_NS, []
    pv = g.get(PVC, "data", ns)["spec"]["volumeName"]
    for i, node in enumerate(workers[:2]):
        name = f"app-{i}"
        body: dict[str, Any] = so.pod(name, "data")
        body["spec"]["nodeSelector"] = {"kubernetes.io/hostname": node}
        g.create(POD, body, ns)
        wait_until(f"Pod {name} Running on {node}", lambda n=name: _phase(d, POD, n, ns, "Running"), timeout=120)
        va = wait_until(f"VolumeAttachment of {pv} attached to {node}", lambda n=node: (
            va := _attached(d, pv)) is not None and va["spec"]["nodeName"] == n and va, timeout=120)
        d.p.line(f"   Pod {name} on {node}: {pv} attached ({va['metadata']['name'][:16]}...)")
        ran.append(node)
        if i == 0:
            g.patch(PVC, "data", {"spec": {"resources": {"requests": {"storage": "2Gi"}}}}, ns)
            wait_until("PV resized to 2Gi", lambda: g.get(PV, pv)["spec"]["capacity"]["storage"] == "2Gi",
                       timeout=120)
            g.create(VS, so.volume_snapshot("data-snap", "data"), ns)
            wait_until("VolumeSnapshot data-snap ready", lambda: (
                (_get(d, VS, "data-snap", ns) or {}).get("status") or {}).get("readyToUse"), timeout=120)
            d.p.line("   PVC data resized -> 2Gi; VolumeSnapshot data-snap ready")
        g.delete(POD, name, ns)
        wait_until(f"Pod {name} gone", lambda n=name: _get(d, POD, n, ns) is None, timeout=120)
    return ran


def _teardown(d: Demo, node_manager: StandIn, workers: list[str]) -> None:
    g, ns = d.guest, APP_NS
    pv = g.get(PVC, "data", ns)["spec"]["volumeName"]
    g.delete(VS, "data-snap", ns)
    g.delete(PVC, "data", ns)
    wait_until(f"PV {pv} gone (detached, deleted by the provisioner)", lambda: _get(d, PV, pv) is None, timeout=120)
    wait_until("VolumeSnapshot data-snap gone", lambda: _get(d, VS, "data-snap", ns) is None, timeout=120)
    g.delete(SERVICE, "web", ns)
    wait_until("Service web gone (CCM finalizer)", lambda: _get(d, SERVICE, "web", ns) is None)
    g.patch(lookups.NODE_GROUP, NODE_GROUP, {"spec": {"cloudInstances": {"minPerZone": 0, "maxPerZone": 1}}})
    node_manager.converge(NODE_GROUP)
    wait_until("no Machine of the group left", lambda: not g.list(
        r.MACHINE, CAPI_NS, label_selector=f"node-group={NODE_GROUP}").items, timeout=120)
    wait_until("the machines' VMs gone", lambda: all(_get_dvp(d, VIRTUAL_MACHINE, m) is None for m in workers),
               timeout=120)
    d.p.line(f"   PVC, snapshot, Service web deleted; NodeGroup {NODE_GROUP} -> 0")

