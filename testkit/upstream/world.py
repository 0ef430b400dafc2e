# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""A whole cluster as the upstream (Go) cloud-provider-dvp leaves it, in the parent project and in the guest.

`upstream_world(put, ...)` makes, through `put(side, resource, body, namespace) -> stored` ("parent" or
"guest"), in the order that gives every name its uid: the guest LoadBalancer Services (their uids name the
parent Services), the `isolated-<prefix>` NetworkPolicy, per master the dhctl VM `<prefix>-master-<i>-<h6>` with
its root and etcd disks, address and cloud-init Secret (owned by the VM) and its Node, per worker the
DeckhouseMachine, capdvp's VM, disks and Secret and its Node, per volume the claim, the PV and the CSI disk
`pvc-<claim uid>` attached to the first worker (`vmbda-<disk>-<hostname>`), and per load balancer the parent
Service `a<uid32>` selecting the workers' VMs by its label.

`another_cluster(put, ...)` puts another cluster's parent objects beside them (its guest is not ours: kept in a
private snapshot). Sinks: `Snapshot` (pure: uids derived from the names, NodePorts numbered: the same objects every
run), `KubeSink` (real API servers through dvp_common's client), `recorded_sink` (testkit.recorded's memory APIs).
"""

from __future__ import annotations

import contextlib
import copy
import uuid as uuidlib
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from capdvp.resources import DECKHOUSE_MACHINE
from dvp_common.dvp import labels as L
from dvp_common.dvp import resources as r
from dvp_common.kube import AlreadyExists, KubeClient, Resource
from dvp_common.kube.resources import (
    NAMESPACE,
    NETWORK_POLICY,
    NODE,
    PERSISTENT_VOLUME,
    PERSISTENT_VOLUME_CLAIM,
    SECRET,
    SERVICE,
)

from . import guest as G
from . import parent as P

Obj = dict[str, Any]
Put = Callable[[str, Resource, Obj, "str | None"], Obj]
PARENT, GUEST = "parent", "guest"
UUID = "6f1c2d3e-4a5b-4c6d-8e7f-0a1b2c3d4e5f"
OTHER_UUID = "a0b1c2d3-e4f5-4a6b-8c7d-9e0f1a2b3c4d"
PREFIX = "dev"
_SEED = uuidlib.UUID("5b2f7a1e-3c4d-4e5f-8a6b-7c8d9e0f1a2b")


class Snapshot:
    """A pure sink: every object stored by side and kind, with a uid derived from where it is (the same every
    run) and resourceVersion "1"; a Service's ports get NodePorts 30000, 30001, ... as an API server would."""

    def __init__(self, seed: str = "") -> None:
        """`seed`: another seed, other uids (and so other `pvc-<uid>` and `a<uid32>` names) for the same objects."""
        self.objects: dict[str, dict[str, list[Obj]]] = {PARENT: {}, GUEST: {}}
        self._seed = uuidlib.uuid5(_SEED, seed) if seed else _SEED
        self._node_ports = iter(range(30000, 32768))

    def __call__(self, side: str, res: Resource, body: Obj, namespace: str | None) -> Obj:
        obj = copy.deepcopy(body)
        md = obj.setdefault("metadata", {})
        if namespace and res.namespaced:
            md["namespace"] = namespace
        md.setdefault("uid", str(uuidlib.uuid5(self._seed, f"{side}/{res.kind}/{namespace or ''}/{md['name']}")))
        md["resourceVersion"] = str(int(md.get("resourceVersion") or 0) + 1)
        if res.kind == "Service":
            for port in (obj.get("spec") or {}).get("ports") or []:
                if (obj["spec"].get("type") == "LoadBalancer") and not port.get("nodePort"):
                    port["nodePort"] = next(self._node_ports)
        items = self.objects[side].setdefault(res.kind, [])
        items[:] = [o for o in items if (o["metadata"].get("namespace"), o["metadata"]["name"]) !=
                    (md.get("namespace"), md["name"])]
        items.append(obj)
        return copy.deepcopy(obj)

    def of(self, side: str, kind: str) -> list[Obj]:
        return copy.deepcopy(self.objects[side].get(kind, []))


class KubeSink:
    """Real API servers: a body without a uid is created (its namespace first), one with a uid replaced."""

    def __init__(self, parent: KubeClient, guest: KubeClient) -> None:
        self.clients = {PARENT: parent, GUEST: guest}
        self._namespaces: set[tuple[str, str]] = set()

    def __call__(self, side: str, res: Resource, body: Obj, namespace: str | None) -> Obj:
        client = self.clients[side]
        if namespace and res.namespaced and (side, namespace) not in self._namespaces:
            with contextlib.suppress(AlreadyExists):
                client.create(NAMESPACE, {"metadata": {"name": namespace}})
            self._namespaces.add((side, namespace))
        obj = copy.deepcopy(body)
        obj.setdefault("apiVersion", res.api_version)
        obj.setdefault("kind", res.kind)
        if (obj.get("metadata") or {}).get("uid"):
            return client.replace(res, obj, namespace)
        return client.create(res, obj, namespace)


def recorded_sink(parent: Any, guest: Any) -> Put:
    """testkit.recorded.RecordedApi (or sim.memory_api) on each side: `put` as other controllers write."""
    apis = {PARENT: parent, GUEST: guest}
    return lambda side, res, body, namespace: apis[side].put(res, copy.deepcopy(body), namespace)


@dataclass
class UpstreamWorld:
    """What `upstream_world` made: the names a test asserts on (parent objects by kind, guest keys)."""
    uuid: str
    prefix: str
    namespace: str
    masters: list[str] = field(default_factory=list)  # VM names
    nodes: list[str] = field(default_factory=list)
    machines: list[str] = field(default_factory=list)  # DeckhouseMachine = VM names
    volumes: list[str] = field(default_factory=list)  # PV = disk names
    attachments: list[str] = field(default_factory=list)
    load_balancers: list[str] = field(default_factory=list)  # parent Service names
    services: list[str] = field(default_factory=list)  # guest "<namespace>/<name>"
    made: list[tuple[str, str, str]] = field(default_factory=list)  # (side, kind, name) in the order made


def make_machine(put: Put, machine: str, uuid: str | None, namespace: str, *, vm_labels: Obj | None = None,
                 secret_labels: Obj | None = None, extra_labels: Obj | None = None,
                 disks: tuple[tuple[str, str, tuple[str, str] | None], ...] = (
                     ("20Gi", "fast", ("ClusterVirtualImage", "ubuntu-24-04")), ("10Gi", "slow", None)),
                 made: list | None = None) -> Obj:
    """capdvp's VM of `machine`, its disks (`<m>-boot`, then `<m>-additional-disk-<i>`) and `cloud-init-<m>`, each
    owned by the VM (P.CAPDVP_SOURCE); returns the VM as stored."""
    names = [f"{machine}-boot"] + [f"{machine}-additional-disk-{i}" for i in range(len(disks) - 1)]
    vm = put(PARENT, r.VIRTUAL_MACHINE, P.machine_vm(machine, uuid, labels=vm_labels, disks=names,
                                                     extra_labels=extra_labels), namespace)
    put(PARENT, SECRET, P.machine_cloud_init(machine, vm, secret_labels), namespace)
    for name, (size, sc, image) in zip(names, disks, strict=True):
        put(PARENT, r.VIRTUAL_DISK, P.machine_disk(machine, name, uuid, vm, size=size, storage_class=sc,
                                                   image=image), namespace)
    if made is not None:
        made += [(PARENT, "VirtualMachine", machine), (PARENT, "Secret", f"cloud-init-{machine}")] + \
            [(PARENT, "VirtualDisk", n) for n in names]
    return vm


def make_master(put: Put, prefix: str, index: int, uuid: str, namespace: str, made: list | None = None) -> Obj:
    """dhctl's master `index`: VM, root and etcd disks, address, cloud-init Secret (owned by the VM); the VM as
    stored."""
    hostname = P.master_hostname(prefix, index)
    root, etcd = P.root_disk(prefix, index, uuid), P.etcd_disk(prefix, index, uuid)
    address = P.ip_address(hostname, uuid)
    vm = put(PARENT, r.VIRTUAL_MACHINE, P.master_vm(prefix, index, uuid, root, etcd, address=address), namespace)
    owned = [(r.VIRTUAL_DISK, P.root_disk(prefix, index, uuid, owner=vm)),
             (r.VIRTUAL_DISK, P.etcd_disk(prefix, index, uuid, owner=vm)),
             (r.VIRTUAL_MACHINE_IP_ADDRESS, P.ip_address(hostname, uuid, owner=vm)),
             (SECRET, P.master_cloud_init(vm, owner=vm))]
    for res, body in owned:
        put(PARENT, res, body, namespace)
    if made is not None:
        made += [(PARENT, "VirtualMachine", vm["metadata"]["name"])] + \
            [(PARENT, res.kind, body["metadata"]["name"]) for res, body in owned]
    return vm


def upstream_world(put: Put, *, uuid: str = UUID, prefix: str = PREFIX, namespace: str = "tenant",
                   masters: int = 1, workers: int = 1, volumes: int = 1, load_balancers: int = 1,
                   app_namespace: str = "app", machines_namespace: str = G.MACHINES_NS,
                   csi_uuid: str | None = "", guest: bool = True) -> UpstreamWorld:
    """A cluster built and run by upstream (see the module's docstring). `csi_uuid`: the cluster UUID label of the
    CSI disks ("" or None: the older releases' empty or absent one; `uuid` for the newer); `guest`: False makes
    the guest objects but does not count them as this world's (another cluster's, in its own guest)."""
    w = UpstreamWorld(uuid, prefix, namespace)
    made = w.made
    lb_keys: dict[str, str] = {}
    guest_services = []
    for i in range(load_balancers):
        svc = put(GUEST, SERVICE, G.lb_service(f"{prefix}-web-{i}", app_namespace), app_namespace)
        guest_services.append(svc)
        name = L.lb_name(svc["metadata"]["uid"])
        lb_keys[P.lb_label_key(name)] = P.LB_VALUE
        made.append((GUEST, "Service", f"{app_namespace}/{svc['metadata']['name']}"))
        w.services.append(f"{app_namespace}/{svc['metadata']['name']}")
    put(PARENT, NETWORK_POLICY, P.isolated_network_policy(prefix, uuid, namespace), namespace)
    made.append((PARENT, "NetworkPolicy", f"isolated-{prefix}"))
    for i in range(masters):
        vm = make_master(put, prefix, i, uuid, namespace, made)
        w.masters.append(vm["metadata"]["name"])
        hostname = P.master_hostname(prefix, i)
        put(GUEST, NODE, G.node(hostname, vm["metadata"]["name"]), None)
        made.append((GUEST, "Node", hostname))
        w.nodes.append(hostname)
    workers_made = []
    for i in range(workers):
        machine = f"{prefix}-worker-{i}"
        put(GUEST, DECKHOUSE_MACHINE, G.deckhouse_machine(machine, namespace=machines_namespace), machines_namespace)
        made.append((GUEST, "DeckhouseMachine", f"{machines_namespace}/{machine}"))
        make_machine(put, machine, uuid, namespace, extra_labels=lb_keys, made=made)
        put(GUEST, NODE, G.node(machine, machine), None)
        made.append((GUEST, "Node", machine))
        w.machines.append(machine)
        w.nodes.append(machine)
        workers_made.append(machine)
    for i in range(volumes):
        claim = put(GUEST, PERSISTENT_VOLUME_CLAIM, G.claim(f"data-{i}", app_namespace), app_namespace)
        claim = put(GUEST, PERSISTENT_VOLUME_CLAIM, G.bound_claim(claim), app_namespace)
        pv = put(GUEST, PERSISTENT_VOLUME, G.volume(claim), None)
        disk = put(PARENT, r.VIRTUAL_DISK, P.csi_disk(claim["metadata"]["uid"], csi_uuid), namespace)
        name = disk["metadata"]["name"]
        made += [(GUEST, "PersistentVolumeClaim", f"{app_namespace}/data-{i}"),
                 (GUEST, "PersistentVolume", pv["metadata"]["name"]), (PARENT, "VirtualDisk", name)]
        w.volumes.append(name)
        if workers_made:
            host = workers_made[0]
            att = put(PARENT, r.VMBDA, P.vmbda(name, host, host), namespace)
            made.append((PARENT, "VirtualMachineBlockDeviceAttachment", att["metadata"]["name"]))
            w.attachments.append(att["metadata"]["name"])
    for svc in guest_services:
        lb = put(PARENT, SERVICE, P.lb_service(svc), namespace)
        made.append((PARENT, "Service", lb["metadata"]["name"]))
        w.load_balancers.append(lb["metadata"]["name"])
    if not guest:
        w.nodes, w.machines, w.services = [], [], []
    return w


def another_cluster(put: Put, *, uuid: str = OTHER_UUID, prefix: str = "other", namespace: str = "tenant",
                    **kw: Any) -> UpstreamWorld:
    """Another upstream-built cluster's parent objects in the same project (its guest objects stay in a private
    snapshot, with uids of its own: they are not in our guest). With our `prefix` its masters, machines, their
    disks, Secrets and NetworkPolicy have the very names ours have (put it in a project of its own then)."""
    theirs = Snapshot(uuid)

    def routed(side: str, res: Resource, body: Obj, ns: str | None) -> Obj:
        return put(side, res, body, ns) if side == PARENT else theirs(side, res, body, ns)

    return upstream_world(routed, uuid=uuid, prefix=prefix, namespace=namespace, guest=False, **kw)
