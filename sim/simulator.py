# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""The simulator: informers on every DVP kind, one work queue, workers applying the domain's plans.

Everything goes through dvp_common's KubeClient (watches, optimistic writes of the status subresource).
Workers run in parallel, as DVP's controllers do (a key is never held by two workers). Reconciles that
allocate from a shared pool or count their siblings (addresses, LoadBalancer IPs, attachment slots, quota,
operations blocked by earlier ones) have a queue and a worker per kind, so those decisions never race each
other; conflicts with other writers requeue the key. Garbage collection by ownerReference is not played here:
in DVP it is Kubernetes' own (kube-controller-manager), and the harness runs it beside every DVP API server.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from typing import Any

from dvp_common.kube import AlreadyExists, ApiError, Conflict, KubeClient, NotFound, Transient
from dvp_common.runtime import Informer, ShutDown, WorkQueue

from . import conditions as C
from . import indexes, wakeups
from .domain import addresses, attachments, disks, healthchecks, images, operations, services, snapshots, vms
from .domain.plan import Plan, Write
from .settings import SimConfig
from .world import KINDS, World, meta

log = logging.getLogger("dvp_sim")

Key = tuple[str, str, str]  # (kind, namespace, name)
Reconciler = Callable[[dict[str, Any], World, SimConfig], Plan]

RECONCILERS: dict[str, Reconciler] = {
    "VirtualDisk": disks.reconcile,
    "VirtualMachine": vms.reconcile,
    "VirtualMachineBlockDeviceAttachment": attachments.reconcile,
    "VirtualMachineOperation": operations.reconcile,
    "VirtualDiskSnapshot": snapshots.reconcile,
    "VirtualImage": images.reconcile,
    "ClusterVirtualImage": images.reconcile,
    "VirtualMachineIPAddress": addresses.reconcile_ip,
    "VirtualMachineIPAddressLease": addresses.reconcile_lease,
    "Service": services.reconcile,
    "ResourceQuota": disks.reconcile_quota,
    "ServiceWithHealthchecks": healthchecks.reconcile,
}
# Kinds whose reconciles decide from their siblings (pools, counts): one at a time per kind.
SERIAL_KINDS = frozenset({"VirtualMachineIPAddress", "VirtualMachineIPAddressLease", "Service",
                          "VirtualMachineBlockDeviceAttachment", "VirtualMachineOperation"})
PARALLEL = ""  # the queue of every key whose kind is not serial
SYNC_TIMEOUT = 30.0  # seconds for the first LIST of every informer


class Simulator:
    def __init__(self, client: KubeClient, config: SimConfig | None = None) -> None:
        self.config = (config or SimConfig()).validate()
        self.client = client
        self.informers: dict[str, Informer] = {}
        for kind, res in KINDS.items():
            ns = self.config.namespace if res.namespaced else None
            inf = Informer(client, res, ns, watch_timeout=self.config.watch_timeout)
            for index in indexes.of(kind):
                inf.add_index(index.__name__, index)
            inf.add_handlers(on_add=lambda o, k=kind: self._changed(k, [o]),
                             on_update=lambda old, o, k=kind: self._changed(k, [old, o]),
                             on_delete=lambda o, k=kind: self._deleted(k, o))
            self.informers[kind] = inf
        self.world = World({k: inf.items for k, inf in self.informers.items()},
                           lookups={k: inf.get for k, inf in self.informers.items()},
                           indexed={k: inf.by_index for k, inf in self.informers.items()})
        # Under a quota every disk's admission reads the others' sizes.
        quota = self.config.quota_bytes is not None or self.config.quota_status
        serial = SERIAL_KINDS | ({"VirtualDisk", "ResourceQuota"} if quota else set())
        self.queues = {q: WorkQueue(base_delay=0.02, max_delay=2.0) for q in (PARALLEL, *serial)}
        self._stop = threading.Event()
        self._threads: list[threading.Thread] = []
        self.stats = {"reconciles": 0, "writes": 0, "conflicts": 0, "errors": 0}
        self._stats_lock = threading.Lock()

    @classmethod
    def from_kubeconfig(cls, kubeconfig: str, config: SimConfig | None = None) -> Simulator:
        cfg = config or SimConfig()
        return cls(KubeClient.from_kubeconfig(kubeconfig, faults=cfg.faults), cfg)

    # lifecycle -------------------------------------------------------------------------------------------------
    def start(self) -> Simulator:
        for kind, inf in self.informers.items():
            t = threading.Thread(target=inf.run, args=(self._stop,), name=f"dvp-sim-{kind}", daemon=True)
            t.start()
            self._threads.append(t)
        for kind, inf in self.informers.items():
            if not inf.synced.wait(SYNC_TIMEOUT):
                self.stop()
                raise RuntimeError(f"dvp_sim: the {kind} informer did not sync within {SYNC_TIMEOUT:.0f}s "
                                   "(are the DVP CRDs installed? sim.dvp_crds.dvp_crd_files())")
        workers = [(PARALLEL, i) for i in range(self.config.workers)] + [(q, 0) for q in self.queues if q]
        for q, i in workers:
            worker = threading.Thread(target=self._work, args=(self.queues[q],), name=f"dvp-sim-worker-{q}{i}",
                                      daemon=True)
            worker.start()
            self._threads.append(worker)
        return self

    def stop(self, timeout: float | None = None) -> None:
        """Stop the workers and the informers; bounded by the watch timeout (watches end on their own)."""
        self._stop.set()
        for queue in self.queues.values():
            queue.shutdown()
        limit = timeout if timeout is not None else self.config.watch_timeout + 5
        for t in self._threads:
            t.join(limit)
        self._threads = []

    def __enter__(self) -> Simulator:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def lose_pvc(self, namespace: str, disk: str) -> None:
        """The storage of `disk` is gone (its PVC deleted under it, a failed volume): DVP then reports the disk
        PVCLost (contract C11). The simulator keeps no PVCs, so this is how a test makes one disappear."""
        vd = self.world.get("VirtualDisk", namespace, disk)
        pvc = ((vd or {}).get("status") or {}).get("target", {}).get("persistentVolumeClaimName")
        if not pvc:
            raise ValueError(f"VirtualDisk {namespace}/{disk} has no PVC yet")
        self.world.lose_pvc(namespace, pvc)
        self._add(("VirtualDisk", namespace, disk))

    def _count(self, what: str) -> None:
        with self._stats_lock:
            self.stats[what] += 1

    # events ----------------------------------------------------------------------------------------------------
    def _changed(self, kind: str, versions: list[dict[str, Any]], deleted: bool = False) -> None:
        """`versions`: [new] on add or delete, [old, new] on update."""
        obj = versions[-1]
        ns = meta(obj).get("namespace") or ""
        for key in wakeups.related(self.world, self.config, kind, versions, deleted):
            if key[0] in RECONCILERS and key[2]:
                self._add(key)
        if kind in RECONCILERS:
            self._add((kind, ns, meta(obj)["name"]))

    def _deleted(self, kind: str, obj: dict[str, Any]) -> None:
        self.world.forget(kind, meta(obj).get("namespace") or "", meta(obj)["name"])
        self._changed(kind, [obj], deleted=True)

    def _add(self, key: Key) -> None:
        self.queues.get(key[0], self.queues[PARALLEL]).add(key)

    # work ------------------------------------------------------------------------------------------------------
    def _work(self, queue: WorkQueue) -> None:
        while not self._stop.is_set():
            try:
                key = queue.get(timeout=0.5)
            except ShutDown:
                return
            if key is None:
                continue
            try:
                requeue = self._process(key)
                queue.forget(key)
                if requeue is not None:
                    queue.add_after(key, requeue)
            except (Conflict, AlreadyExists):
                self._count("conflicts")
                queue.add_rate_limited(key)
            except NotFound:
                pass  # deleted meanwhile; its DELETED event brings whatever follows
            except (Transient, ApiError) as exc:
                self._count("errors")
                log.info("dvp_sim: %s %s/%s: %s; retrying", key[0], key[1], key[2], exc)
                queue.add_rate_limited(key)
            except Exception:  # a bug in a reconciler must not kill the simulator
                self._count("errors")
                log.exception("dvp_sim: %s %s/%s failed", *key)
                queue.add_rate_limited(key)
            finally:
                queue.done(key)

    def _process(self, key: Key) -> float | None:
        kind, ns, name = key
        obj = self.world.get(kind, ns or None, name)
        if obj is None:
            return None
        self._count("reconciles")
        plan = RECONCILERS[kind](obj, self.world, self.config)
        self._apply(kind, obj, plan)
        return plan.requeue_after

    def _apply(self, kind: str, obj: dict[str, Any], plan: Plan) -> None:
        for write in plan.first:
            self._write(write)
        for create_kind, body in plan.creates:
            res = KINDS[create_kind]
            created = self.client.create(res, body, meta(body).get("namespace"))
            self._count("writes")
            self.world.remember(create_kind, created)
        if plan.verify_missing is not None:
            vkind, vns, vname = plan.verify_missing
            try:
                self.client.get(KINDS[vkind], vname, vns or None)
                return  # it exists after all: our cache was behind
            except NotFound:
                pass
        current = obj
        if plan.patch is not None:
            current = self._write(Write(kind, current, patch=plan.patch))
        if plan.status is not None:
            self._write(Write(kind, current, status=plan.status))
        for del_kind, del_ns, del_name in plan.deletes:
            self.client.delete(KINDS[del_kind], del_name, del_ns or None, missing_ok=True)
            self._count("writes")

    def _write(self, write: Write) -> dict[str, Any]:
        res = KINDS[write.kind]
        ns = meta(write.obj).get("namespace")
        if write.patch is not None:
            out = self.client.patch(res, meta(write.obj)["name"], write.patch, ns)
        else:
            spelled = C.spelled(write.status, self.config.dvp_api_version)
            if spelled == (write.obj.get("status") or {}):
                return write.obj  # only the spelling differed: a steady state writes nothing
            body = {k: v for k, v in write.obj.items() if k != "status"}
            body["status"] = spelled
            out = self.client.update_status(res, body, ns)
        self._count("writes")
        self.world.remember(write.kind, out)
        return out
