# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""service-lb-controller: a DVP load balancer per guest LoadBalancer Service, VMs labelled to back it, status
copied.

The DVP object is a ServiceWithHealthchecks when the parent serves it (lbkinds), else a Service. Order of an
ensure: the cleanup finalizer on the guest Service; our object of the other kind under that name deleted first
(a switch; the new one is created only once the old is gone, so DVP's LB can give its address to the new one,
which asks for it); the DVP object (only when the cached one differs); for a Service that filters nodes, its own
label on the VMs of the nodes that pass (and off the others); then status.loadBalancer once DVP reports an ingress
(the ServiceWithHealthchecks' status, else its child Service's). The shared backend label (every other Service's
selector) is one reconcile of its own, key BACKENDS: on the VMs of eligible nodes while any such Service wants a
load balancer, on none otherwise. A selector that changes switches only once its VMs carry the label.
Informers bring the ingress (no polling). Cleanup deletes both kinds, reads what is left under that name and lets
domain.loadbalancer.release_outcome decide: the finalizer is removed last, once nothing of ours is left (a
restart at any point resumes the same work). A DVP object of that name that is not ours, and a VM not ours
carrying a load balancer's label, are never changed (the ownership rule): a Warning names them and the work
goes on, so no foreign object keeps a guest Service Terminating. A write that meets a newer version (409) is
retried with backoff.
"""

from __future__ import annotations

import logging
from concurrent.futures import ThreadPoolExecutor

from dvp_common.dvp import labels as L
from dvp_common.dvp.ownership import NotOurs
from dvp_common.dvp.services import owned_by_healthchecks
from dvp_common.kube import Conflict, NotFound
from dvp_common.kube.resources import SERVICE

from dvp_ccm import indexes
from dvp_ccm.controllers.context import Context
from dvp_ccm.domain import events as E
from dvp_ccm.domain import instances as I
from dvp_ccm.domain import loadbalancer as LB
from dvp_ccm.runner import DONE, Result

log = logging.getLogger("dvp_ccm.service")
NOT_OURS_RECHECK = 300.0  # seconds: someone may remove the foreign Service; no hot loop meanwhile
SWITCH_RECHECK = 1.0  # seconds between looks while the object of the other kind is being removed
UPSTREAM_RECHECK = 30.0  # seconds between looks while an adopted parent is served by the Go module's VMs only
RELEASE_RECHECK = 5.0  # seconds between looks while DVP still holds our deleted parent object
OTHER = {LB.SERVICE_KIND: LB.HEALTHCHECKS_KIND, LB.HEALTHCHECKS_KIND: LB.SERVICE_KIND}
BACKENDS = "@backends"  # the shared backend label's key (a Service's key is "<namespace>/<name>")
ADOPTED, FOREIGN, ABSENT = "adopted", "foreign", "absent"  # what an adoption found


class ServiceController:
    def __init__(self, ctx: Context) -> None:
        assert ctx.services is not None
        self.ctx = ctx
        self._told: set[tuple[str, str, str]] = set()  # (guest key, VM, label) already reported as left alone

    def reconcile(self, key: str) -> Result:
        if key == BACKENDS:
            return self._shared_backends()
        svc = self.ctx.services.get(key) if self.ctx.services is not None else None
        try:
            if svc is None:
                return self._orphans(key)
            if LB.needs_cleanup(svc):
                return self._cleanup(svc)
            if not LB.wants_lb(svc):
                return DONE
            return self._ensure(svc)
        except Conflict:
            return Result(retry=True)

    # ensure ------------------------------------------------------------------------------------------------
    def _ensure(self, svc: dict, adopt: bool = True) -> Result:
        try:
            timing = self.ctx.healthchecks if self.ctx.use_healthchecks() else None
            want = LB.desired(svc, self.ctx.cloud.uuid, self.ctx.lb_annotation_prefixes, timing)
        except LB.BadService as exc:
            self.ctx.events.record(svc, "Warning", E.UNSUPPORTED_SERVICE, str(exc))
            return DONE
        md = svc["metadata"]
        served_before = LB.has_finalizer(svc)  # by us, or by the Go module before the switch
        if not served_before:
            svc = self.ctx.guest.patch(SERVICE, md["name"], {"metadata": {
                "resourceVersion": md["resourceVersion"], "finalizers": [*(md.get("finalizers") or []),
                                                                          LB.FINALIZER]}}, md["namespace"])
        want = self._keep_adopted_kind(svc, want)
        if self._other_kind_present(want):
            return Result(requeue_after=SWITCH_RECHECK)
        current = self.ctx.cloud.load_balancer(want.kind, want.name)
        if current is None and served_before and adopt:
            # Served before, and no parent of ours in the caches: the Go module's, read before anything is made.
            found = self._adopt(svc, want)
            if found == ADOPTED:
                return self._ensure(svc, adopt=False)  # reconciled as ours now, from the adopted object
            if found == FOREIGN:
                return self._not_ours(svc, want)
        backends = None if want.shared else self._backends(svc)
        if not LB.spec_matches(current, want):
            if LB.selector_changes(current, want) and not self._selector_ready(svc, want, backends, current):
                if self._held_by_upstream(current):  # the Go module's VMs serve it until ours can
                    self._status(svc, self._found(want, current))
                    if not self._eligible_vms():
                        return Result(requeue_after=UPSTREAM_RECHECK)
                return Result(requeue_after=SWITCH_RECHECK)
            try:
                spec = want.create_spec() if current is None else want.spec
                current = self.ctx.cloud.ensure_load_balancer(
                    want.kind, want.name, spec, want.annotations, known=current is not None,
                    matches=lambda live: LB.spec_matches(live, want))
            except NotOurs:
                if adopt and self._adopt(svc, want) == ADOPTED:
                    return self._ensure(svc, adopt=False)  # reconciled as ours now, from the adopted object
                return self._not_ours(svc, want)
            except NotFound:  # the kind is no longer served (module switched off): discover again
                self.ctx.kind_not_served()
                return Result(retry=True)
        for stale in self.ctx.cloud.load_balancers_of(LB.key(svc)):  # the guest Service recreated meanwhile
            if stale["metadata"]["name"] != want.name:
                self._release(stale["metadata"]["name"], L.lb_label_key(stale["metadata"]["name"]), svc)
        self._label_vms(want.label_key, backends or set(), svc)  # shared: its own label from an earlier policy goes
        return self._status(svc, self._found(want, current))

    def _found(self, want: LB.Desired, current: dict | None) -> list[dict]:
        """The address DVP gives the parent object (a ServiceWithHealthchecks': else its child Service's)."""
        found = LB.ingress(current)
        if not found and want.kind == LB.HEALTHCHECKS_KIND:
            found = LB.ingress(self.ctx.cloud.child_service(want.name))
        return found

    def _not_ours(self, svc: dict, want: LB.Desired) -> Result:
        self.ctx.events.record(svc, "Warning", E.LB_NOT_OURS,
                               f'Service "{LB.key(svc)}": DVP {want.kind} "{want.name}" exists and is not '
                               "managed by this cluster; left alone")
        return Result(requeue_after=NOT_OURS_RECHECK)

    def _adopt(self, svc: dict, want: LB.Desired) -> str:
        """The Go module's parent object of this name adopted with the guest Service as proof (`LB.adoption_proof`):
        read live, the kind we want first, then the other (the Go module may have chosen it; a Service made by a
        ServiceWithHealthchecks sends us to its parent). One patch from that read: our labels and, once the
        selector may switch (`_selector_ready`), our spec and annotations too, so the reconcile that follows finds
        nothing to write. ADOPTED, FOREIGN (one exists that is not to be adopted: another cluster's, left alone)
        or ABSENT."""
        proof = LB.adoption_proof(svc, want.name)
        if proof is None:
            return ABSENT
        for kind in (want.kind, OTHER[want.kind]):
            try:
                found = self.ctx.cloud.read_load_balancer(kind, want.name)
            except NotFound:  # the kind is not served
                continue
            if found is None or (kind == LB.SERVICE_KIND and owned_by_healthchecks(found)):
                continue  # a ServiceWithHealthchecks' child: its parent is the other kind, read next
            # a parent of the other kind keeps it: its replacement would have to ask for the address again
            target = want if kind == want.kind else self._as_kind(svc, kind)
            spec, annotations = None, ({LB.ADOPTED_KIND: kind} if target is not None and kind != want.kind else None)
            if target is not None and self._switchable(svc, target, found):
                spec, annotations = target.spec, target.annotations
            try:
                adopted = self.ctx.cloud.adopt_load_balancer(kind, found, proof, spec=spec, annotations=annotations)
            except NotOurs as exc:
                log.info('DVP %s "%s" not adopted: %s', kind, want.name, exc)
                return FOREIGN
            if adopted is found:
                return ADOPTED  # ours already (the caches had not seen it yet)
            self.ctx.adopted(kind)
            kept = f"; it stays a {kind}, so its address stays" if target is not None and kind != want.kind else ""
            self.ctx.events.record(svc, E.NORMAL, E.ADOPTED_LB,
                                   f'Service "{LB.key(svc)}": DVP {kind} "{want.name}" made for it by the previous '
                                   f"module is managed by this cluster now (named by {proof}){kept}")
            return ADOPTED
        return ABSENT

    def _switchable(self, svc: dict, want: LB.Desired, current: dict) -> bool:
        """Whether `current` may take `want`'s selector now (the ensure's rule: `_selector_ready`)."""
        if not LB.selector_changes(current, want):
            return True
        return self._selector_ready(svc, want, None if want.shared else self._backends(svc), current)

    def _as_kind(self, svc: dict, kind: str) -> LB.Desired | None:
        """What `svc` wants as a parent object of `kind`, kept against our choice; None when that kind cannot
        serve it (a UDP-only Service has no TCP port to probe for a ServiceWithHealthchecks)."""
        timing = self.ctx.healthchecks if kind == LB.HEALTHCHECKS_KIND else None
        kept = LB.desired(svc, self.ctx.cloud.uuid, self.ctx.lb_annotation_prefixes, timing, kept=True)
        return kept if kept.kind == kind else None

    def _keep_adopted_kind(self, svc: dict, want: LB.Desired) -> LB.Desired:
        """`want` as the kind of our parent object of the other kind when adoption marked it kept (`LB.kept_kind`):
        never deleted for a switch, so the address it holds stays."""
        other = OTHER[want.kind]
        if LB.kept_kind(self.ctx.cloud.load_balancer(other, want.name)) != other:
            return want
        return self._as_kind(svc, other) or want

    def _selector_ready(self, svc: dict, want: LB.Desired, backends: set[str] | None,
                        current: dict | None = None) -> bool:
        """Whether the VMs the new selector names carry its label: the shared one is put on by BACKENDS (queued
        by the Service's event), a Service's own label here, before the switch. Never to a selector naming none of
        our VMs while the current one names the Go module's VMs of this cluster (an adopted parent keeps serving)."""
        if backends is not None:
            self._label_vms(want.label_key, backends, svc)
            return bool(backends) or not self._held_by_upstream(current)
        vms = self._eligible_vms()
        if not vms and self._held_by_upstream(current):
            return False
        return all(L.LB_BACKEND in I.labels(self.ctx.cloud.vm(name)) for name in vms)

    def _held_by_upstream(self, current: dict | None) -> bool:
        """Whether `current`'s selector names a VM the Go module made that is this cluster's (`_upstream_instance`)."""
        selector = ((current or {}).get("spec") or {}).get("selector") or {}
        if not selector:
            return False
        first = next(iter(selector))
        return any(all(I.labels(vm).get(k) == v for k, v in selector.items()) and self._upstream_instance(vm)
                   for vm in self.ctx.cloud.vms_with_label(first))

    def _other_kind_present(self, want: LB.Desired) -> bool:
        """Deletes our object of the other kind under this name; True until it (and a child Service) is gone."""
        other = self.ctx.cloud.load_balancer(OTHER[want.kind], want.name)
        if other is not None:
            log.info('DVP %s "%s": switching to %s (the address is asked for again)', OTHER[want.kind],
                     want.name, want.kind)
            self.ctx.cloud.delete_load_balancer(OTHER[want.kind], want.name)
            return True
        # a ServiceWithHealthchecks' child Service keeps the name until DVP's garbage collector removes it
        return want.kind == LB.SERVICE_KIND and self.ctx.cloud.child_service(want.name) is not None

    def _eligible_vms(self) -> dict[str, str]:
        """Our VMs behind eligible nodes, with their addresses (a VM without one cannot take traffic)."""
        vms: dict[str, str] = {}
        for node in self.ctx.nodes.by_index(indexes.NODE_LB_ELIGIBLE, indexes.ELIGIBLE):
            try:
                ref = I.vm_ref(node)
            except I.BadProviderID:
                continue
            vm = self.ctx.cloud.vm(ref.name) if ref and ref.name else None
            if vm is not None and I.vm_ip(vm):
                vms[I.name(vm)] = I.vm_ip(vm)
        return vms

    def _backends(self, svc: dict) -> set[str]:
        """Names of our VMs behind eligible nodes, filtered by kube-proxy's health check for ETP Local."""
        vms = self._eligible_vms()
        port = LB.local_traffic(svc)
        if port is None or self.ctx.prober is None:
            return set(vms)
        prober = self.ctx.prober
        with ThreadPoolExecutor(max_workers=min(16, max(1, len(vms)))) as pool:
            healthy = dict(zip(vms, pool.map(lambda ip: prober(ip, port), vms.values()), strict=True))
        return {n for n, ok in healthy.items() if ok}

    def _shared_backends(self) -> Result:
        """The shared label on the VMs of eligible nodes while a Service selects it, else on none."""
        assert self.ctx.services is not None
        wanted = self.ctx.services.count(indexes.SERVICE_BACKENDS, LB.SHARED) > 0
        try:
            self._label_vms(L.LB_BACKEND, set(self._eligible_vms()) if wanted else set())
        except Conflict:
            return Result(retry=True)
        return DONE

    def _label_vms(self, label_key: str, wanted: set[str], svc: dict | None = None) -> None:
        """Our VMs in `wanted` carry the label, our others do not; a VM not ours is left alone and reported."""
        found = self.ctx.cloud.vms_with_label(label_key)
        ours, foreign = LB.split_vms(found, self.ctx.cloud.uuid)
        instances = {I.name(vm) for vm in found if self._upstream_instance(vm)}  # keep their label until they go
        self._left_alone(svc, [n for n in foreign if n not in instances], label_key)
        for vm in ours:
            if I.name(vm) not in wanted:
                self.ctx.cloud.set_vm_labels(vm, {label_key: None})
        for vm_name in sorted(wanted):
            vm = self.ctx.cloud.vm(vm_name)
            if vm is not None and I.labels(vm).get(label_key) != L.LB_LABEL_VALUE:
                self.ctx.cloud.set_vm_labels(vm, {label_key: L.LB_LABEL_VALUE})

    def _upstream_instance(self, vm: dict) -> bool:
        """A VM the Go module made that a Node of this cluster names in its providerID (`I.named_by_node`): this
        cluster's, read only, so never written and never reported as foreign."""
        host = I.labels(vm).get(L.HOSTNAME) or ""
        node = self.ctx.nodes.get(host) if host else None
        return node is not None and I.provider_id(node) == L.provider_id(I.name(vm)) \
            and I.named_by_node(vm, self.ctx.cloud.uuid, host)

    def _left_alone(self, svc: dict | None, vm_names: list[str], label_key: str) -> None:
        """Logged once per guest Service, VM and label; a Warning on the guest Service when there is one."""
        guest = LB.key(svc) if svc is not None else "-"
        for vm_name in vm_names:
            if (guest, vm_name, label_key) in self._told:
                continue
            self._told.add((guest, vm_name, label_key))
            message = LB.vm_not_ours_message(guest, vm_name, label_key)
            if svc is None:
                log.warning("%s", message)
            else:
                self.ctx.events.record(svc, E.WARNING, E.LB_NOT_OURS, message)  # logs it too

    def _status(self, svc: dict, ingress: list[dict]) -> Result:
        current = ((svc.get("status") or {}).get("loadBalancer") or {}).get("ingress") or []
        if ingress and ingress != current:
            md = svc["metadata"]
            self.ctx.guest.patch(SERVICE, md["name"], {"status": {"loadBalancer": {"ingress": ingress}}},
                                 md["namespace"], subresource="status")
            ips = ", ".join(i.get("ip") or i.get("hostname") or "" for i in ingress)
            self.ctx.events.record(svc, "Normal", E.ENSURED_LB, f'Service "{LB.key(svc)}": load balancer at {ips}')
        return DONE

    # cleanup -----------------------------------------------------------------------------------------------
    def _release(self, lb_name: str, label_key: str, svc: dict | None = None) -> None:
        """Our parent objects of that name deleted, its label off our VMs; foreign objects left alone."""
        for kind in (LB.HEALTHCHECKS_KIND, LB.SERVICE_KIND):  # a child Service goes with its parent
            try:
                self.ctx.cloud.delete_load_balancer(kind, lb_name)
            except NotOurs:
                log.info('DVP %s "%s" is not ours: not deleted', kind, lb_name)
        self._label_vms(label_key, set(), svc)

    def _cleanup(self, svc: dict) -> Result:
        name, label_key = LB.names(svc)
        self._release(name, label_key, svc)
        outcome = LB.release_outcome(LB.key(svc), name, self.ctx.cloud.parent_objects(name), self.ctx.cloud.uuid,
                                     RELEASE_RECHECK)
        if not outcome.done:
            return Result(requeue_after=outcome.requeue_after)
        md = svc["metadata"]
        rest = [f for f in md.get("finalizers") or [] if f != LB.FINALIZER]
        try:
            if LB.ingress(svc) and not md.get("deletionTimestamp"):  # no longer a load balancer: no address
                svc = self.ctx.guest.patch(SERVICE, md["name"], {"status": {"loadBalancer": {"ingress": None}}},
                                           md["namespace"], subresource="status")
            # the finalizer goes last: until then a restart repeats the cleanup
            self.ctx.guest.patch(SERVICE, md["name"], {"metadata": {
                "resourceVersion": svc["metadata"]["resourceVersion"], "finalizers": rest or None}}, md["namespace"])
        except NotFound:
            return DONE
        for event_type, reason, message in outcome.events:
            self.ctx.events.record(svc, event_type, reason, message)
        self._told = {t for t in self._told if t[0] != LB.key(svc)}  # told again if it comes back
        return DONE

    def _orphans(self, key: str) -> Result:
        """The guest Service is gone (deleted while we were away, finalizer removed by hand): release its LB."""
        for dvp_svc in self.ctx.cloud.load_balancers_of(key):
            lb_name = dvp_svc["metadata"]["name"]
            self._release(lb_name, L.lb_label_key(lb_name))
        return DONE
