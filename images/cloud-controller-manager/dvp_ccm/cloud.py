# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""The DVP side, as the controllers need it: VMs and our Services from caches, a few writes.

Reads come from informers (VMs selected by our cluster UUID, Services by our cluster UUID and the ccm label), so
a full resync costs no DVP request. A live read happens only to confirm that a VM is really gone before a Node
is deleted, or to tell a foreign VM from a missing one. Every read and write goes through dvp_common.dvp's typed
kinds: each write is to an object that passes the ownership rule and carries its uid, so a same-named replacement
is never touched.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol

from dvp_common.dvp import DVPConnection, Services, ServicesWithHealthchecks, VirtualMachines
from dvp_common.dvp import labels as L
from dvp_common.dvp.adoption import Proof
from dvp_common.dvp.ownership import NotOurs
from dvp_common.dvp.services import owned_by_healthchecks

from dvp_ccm import indexes
from dvp_ccm.domain.instances import considered, labels, name, readable
from dvp_ccm.domain.loadbalancer import HEALTHCHECKS_KIND, SERVICE_KIND

Obj = dict[str, Any]


class Store(Protocol):
    """An informer's cache as the controllers read it (dvp_ccm.indexes names the indexes)."""

    def get(self, key: str) -> Obj | None: ...

    def items(self) -> list[Obj]: ...

    def by_index(self, name: str, value: str) -> list[Obj]: ...

    def count(self, name: str, value: str) -> int: ...

    def assume(self, obj: Obj) -> None: ...


class Cloud:
    def __init__(self, conn: DVPConnection, vms: Store, services: Store | None = None,
                 healthchecks: Store | None = None) -> None:
        """`healthchecks`: the ServiceWithHealthchecks cache, used once `healthchecks_synced` says it listed."""
        self.conn, self.vms, self.services_store = conn, vms, services
        self.healthchecks_store = healthchecks
        self.healthchecks_synced: Callable[[], bool] = lambda: False
        self.healthchecks_served: Callable[[], bool] = lambda: False
        self.services = Services(conn, L.CCM)
        self.swhc = ServicesWithHealthchecks(conn, L.CCM)
        self.kinds = {SERVICE_KIND: self.services, HEALTHCHECKS_KIND: self.swhc}
        self.vm_kind = VirtualMachines(conn, L.CCM)  # VMs made by capdvp or dhctl: read and labelled

    @property
    def uuid(self) -> str:
        return self.conn.cluster_uuid

    def _key(self, vm_name: str) -> str:
        return f"{self.conn.namespace}/{vm_name}"

    # VMs -----------------------------------------------------------------------------------------------------
    def vm(self, vm_name: str, node: str | None = None) -> Obj | None:
        """Our VM of that name; with `node` (the Node whose providerID names it) also an upstream VM of this cluster,
        to read only (`instances.readable`)."""
        vm = self.vms.get(self._key(vm_name))
        return vm if readable(vm, self.uuid, node) else None

    def vm_by_hostname(self, hostname: str) -> list[Obj]:
        return [vm for vm in self.vms.by_index(indexes.VM_HOSTNAME, hostname)
                if labels(vm).get(L.HOSTNAME) == hostname and considered(vm, self.uuid)]

    def vm_live(self, vm_name: str, node: str | None = None) -> tuple[Obj | None, bool]:
        """(the VM if ours, or read as `node`'s instance, whether a VM of that name exists at all): one GET, to
        confirm what the cache says."""
        vm = self.vm_kind.get_or_none(vm_name)
        return (vm if readable(vm, self.uuid, node) else None), vm is not None

    def vms_with_label(self, key: str) -> list[Obj]:
        return [vm for vm in self.vms.by_index(indexes.VM_LABEL_KEYS, key) if key in labels(vm)]

    def set_vm_labels(self, vm: Obj, changes: dict[str, str | None]) -> Obj:
        """Merge labels onto one of our VMs (None removes a key); ownership keys are never changed."""
        out = self.vm_kind.set_labels(name(vm), changes, vm)
        self.vms.assume(out)  # the next look (before the watch event) sees the labels: no second patch
        return out

    # Services ------------------------------------------------------------------------------------------------
    def service(self, svc_name: str) -> Obj | None:
        """Our DVP Service from the cache (foreign ones never enter it)."""
        if self.services_store is None:
            return self.services.get_or_none(svc_name)
        found = self.services_store.get(self._key(svc_name))
        return found if self.services.is_ours(found) else None

    def healthcheck_service(self, name: str) -> Obj | None:
        """Our ServiceWithHealthchecks: from its cache once synced, else one GET (only while DVP serves it)."""
        if self.healthchecks_store is not None and self.healthchecks_synced():
            found = self.healthchecks_store.get(self._key(name))
            return found if self.swhc.is_ours(found) else None
        if not self.healthchecks_served():
            return None
        found = self.swhc.get_or_none(name)
        return found if self.swhc.is_ours(found) else None

    def load_balancer(self, kind: str, name: str) -> Obj | None:
        """Our parent object of that kind; a Service made by a ServiceWithHealthchecks is its parent's, not ours."""
        if kind == HEALTHCHECKS_KIND:
            return self.healthcheck_service(name)
        found = self.service(name)
        return None if owned_by_healthchecks(found) else found

    def child_service(self, name: str) -> Obj | None:
        """The Service DVP made for our ServiceWithHealthchecks of that name (cached, if it carries our labels)."""
        found = self.service(name)
        return found if owned_by_healthchecks(found) else None

    def load_balancers_of(self, guest_key: str) -> list[Obj]:
        """Our parent objects of both kinds made for that guest Service (children of a ServiceWithHealthchecks
        excluded)."""
        found = [] if self.services_store is None else self.services_store.by_index(indexes.GUEST_SERVICE, guest_key)
        out = [s for s in found if self.services.is_ours(s) and not owned_by_healthchecks(s)]
        if self.healthchecks_store is not None and self.healthchecks_synced():
            made = self.healthchecks_store.by_index(indexes.GUEST_SERVICE, guest_key)
            out += [s for s in made if self.swhc.is_ours(s)]
        return out

    def ensure_load_balancer(self, kind: str, name: str, spec: Obj, annotations: dict[str, str], *,
                             known: bool, matches: Callable[[Obj], bool]) -> Obj:
        """`known`: the cache holds it (read first, else created first); `matches`: no write when the live one
        already does."""
        out = self.kinds[kind].ensure(name, spec, annotations=annotations, known=known, matches=matches)
        store = self.healthchecks_store if kind == HEALTHCHECKS_KIND else self.services_store
        if store is not None:  # the next reconcile (before the watch event) finds it: no create again
            store.assume(out)
        return out

    def read_load_balancer(self, kind: str, name: str) -> Obj | None:
        """The parent object of that kind and name, any owner, read live (one GET); None when there is none or DVP
        does not serve the kind. What adoption judges: the caches hold only our objects."""
        if kind == HEALTHCHECKS_KIND and not self.healthchecks_served() and not self.healthchecks_synced():
            return None
        return self.kinds[kind].get_or_none(name)

    def adopt_load_balancer(self, kind: str, current: Obj, proof: Proof, *, spec: Obj | None = None,
                            annotations: dict[str, str] | None = None) -> Obj:
        """`current` (as `read_load_balancer` read it: no read again) made ours with `proof` (`Objects.adopt`: one
        patch guarded by its uid and resourceVersion; NotOurs when the adoption rule says foreign, Conflict when it
        changed since the read). With `spec`, the same patch makes it say `spec` and exactly `annotations`, as
        `ensure_load_balancer` would next; without, `annotations` are only added. A Service made by a
        ServiceWithHealthchecks is its parent's: never adopted (NotOurs)."""
        if kind == SERVICE_KIND and owned_by_healthchecks(current):
            raise NotOurs("made by a ServiceWithHealthchecks", status=404, reason="NotOurs", kind=kind,
                          name=(current.get("metadata") or {}).get("name", ""), namespace=self.conn.namespace)
        objs = self.kinds[kind]
        if spec is None:
            out = objs.adopt(current, proof, annotations=annotations)
        else:
            update = objs.update_patch(current, spec, annotations=annotations)
            out = objs.adopt(current, proof, annotations=update["metadata"]["annotations"],
                             body={"spec": update["spec"]})
        store = self.healthchecks_store if kind == HEALTHCHECKS_KIND else self.services_store
        if store is not None and out is not current:
            store.assume(out)
        return out

    def delete_load_balancer(self, kind: str, name: str) -> bool:
        """Delete our object of that kind, judged on a live read (the cache may not hold a fresh one yet); a
        Service made by a ServiceWithHealthchecks is left to DVP's garbage collector."""
        if kind == HEALTHCHECKS_KIND and not self.healthchecks_served() and not self.healthchecks_synced():
            return False
        current = self.kinds[kind].get_or_none(name)
        if current is None or (kind == SERVICE_KIND and owned_by_healthchecks(current)):
            return False
        if (current.get("metadata") or {}).get("deletionTimestamp") and self.kinds[kind].is_ours(current):
            return False  # already being deleted (DVP holds it): no second DELETE on every look
        return self.kinds[kind].delete(name, current)

    def parent_objects(self, name: str) -> list[tuple[str, Obj]]:
        """(kind, object) of every parent object of that name, any owner, read live (what a release leaves);
        a Service made by a ServiceWithHealthchecks is its parent's and left out."""
        out = []
        for kind in (HEALTHCHECKS_KIND, SERVICE_KIND):
            if kind == HEALTHCHECKS_KIND and not self.healthchecks_served() and not self.healthchecks_synced():
                continue
            found = self.kinds[kind].get_or_none(name)
            if found is not None and not (kind == SERVICE_KIND and owned_by_healthchecks(found)):
                out.append((kind, found))
        return out


def vm_names(vms: list[Obj]) -> set[str]:
    return {name(vm) for vm in vms}


Prober = Callable[[str, int], bool]
