# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""The pre-switch report: what each component would make of what the upstream (Go) module left (pure).

Given the guest's and the parent project's objects and the cluster UUID, `plan` says of every object what
happens once this module runs, judged by the one adoption rule (`dvp_common.dvp.adoption.decide`) with the proofs
the components themselves look for:

- parent objects: `ours` (our labels already), `adopted` (the component that takes it over and its proof),
  `read` (this cluster's, read by a component and never written: a node VM dhctl made, named by its Node's
  providerID), `foreign` (left alone: another cluster's, another component's, or nothing of this cluster names
  it, e.g. dhctl's disks, addresses and NetworkPolicy, which no component changes), or `blocks` (this cluster's
  object a component would need and cannot take over: the proof found is too weak for it);
- guest objects that name a parent object (Nodes by providerID, CSI PersistentVolumes by volumeHandle,
  DeckhouseMachines by name, LoadBalancer Services by uid): `kept` when what they name is ours, adopted or read
  (or absent where the component makes it), `blocks` when it exists and stays foreign, or is gone.

The proofs are the components' (csi `access`, capdvp `domain.adoption`, the CCM's `instances` and
`loadbalancer`): a PV of this driver naming a disk (strong when bound to a live claim whose uid is in the name);
a DeckhouseMachine naming its VM and, through the VM's uid in their ownerReference, its disks and cloud-init
Secret; a Node naming its VM (which must carry our cluster UUID) and, through it, a CSI attachment of an adopted
disk; a guest LoadBalancer Service with the cleanup finalizer naming `a<uid32>`. Nothing is written; Secrets are
named, never read out.
"""

from __future__ import annotations

import enum
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from ..dvp import labels as L
from ..dvp import pv_proof
from ..dvp.adoption import Decision, Proof, Verdict, decide
from ..dvp.instances import node_proof
from ..node_groups import class_problems

Obj = Mapping[str, Any]
LB_FINALIZER = "service.kubernetes.io/load-balancer-cleanup"
CLOUD_INIT_TYPE = "provisioning.virtualization.deckhouse.io/cloud-init"
MACHINES_NAMESPACE = "d8-cloud-instance-manager"
PARENT, GUEST = "parent", "guest"
_ADDITIONAL = re.compile(r"-additional-disk-(\d{1,3})$")


class Outcome(enum.Enum):
    OURS = "ours"
    ADOPTED = "adopted"
    READ = "read"
    KEPT = "kept"
    FOREIGN = "foreign"
    BLOCKS = "blocks"


@dataclass(frozen=True)
class Guest:
    """The guest's objects the report reads (everything of each kind; what names no parent object is skipped)."""
    nodes: tuple[Obj, ...] = ()
    volumes: tuple[Obj, ...] = ()  # PersistentVolumes
    claims: tuple[Obj, ...] = ()  # PersistentVolumeClaims
    machines: tuple[Obj, ...] = ()  # DeckhouseMachines of `MACHINES_NAMESPACE`
    services: tuple[Obj, ...] = ()
    instance_classes: tuple[Obj, ...] = ()  # DVPInstanceClasses


@dataclass(frozen=True)
class Parent:
    """The parent project's objects the components work with."""
    vms: tuple[Obj, ...] = ()
    disks: tuple[Obj, ...] = ()
    attachments: tuple[Obj, ...] = ()
    addresses: tuple[Obj, ...] = ()
    secrets: tuple[Obj, ...] = ()  # only the cloud-init ones are judged
    services: tuple[Obj, ...] = ()
    healthchecks: tuple[Obj, ...] = ()  # ServiceWithHealthchecks
    network_policies: tuple[Obj, ...] = ()


@dataclass(frozen=True)
class Row:
    side: str  # PARENT or GUEST
    kind: str
    name: str  # "<namespace>/<name>" for a namespaced guest object
    outcome: Outcome
    component: str  # the component that takes it over or reads it; "" when none does
    reason: str  # one line
    proof: Proof | None = None

    def to_json(self) -> dict[str, Any]:
        proof = None if self.proof is None else {"kind": self.proof.kind, "name": self.proof.name,
                                                  "field": self.proof.field, "strong": self.proof.strong}
        return {"side": self.side, "kind": self.kind, "name": self.name, "outcome": self.outcome.value,
                "component": self.component, "reason": self.reason, "proof": proof}


@dataclass(frozen=True)
class Report:
    cluster_uuid: str
    namespace: str
    rows: tuple[Row, ...]

    @property
    def blocks(self) -> bool:
        return any(row.outcome is Outcome.BLOCKS for row in self.rows)

    def to_json(self) -> dict[str, Any]:
        counts = {o.value: sum(1 for row in self.rows if row.outcome is o) for o in Outcome}
        return {"clusterUUID": self.cluster_uuid, "namespace": self.namespace, "blocks": self.blocks,
                "counts": counts, "objects": [row.to_json() for row in self.rows]}


def _md(obj: Obj) -> Mapping[str, Any]:
    return obj.get("metadata") or {}


def _name(obj: Obj) -> str:
    return str(_md(obj).get("name") or "")


def _key(obj: Obj) -> str:
    ns = _md(obj).get("namespace")
    return f"{ns}/{_name(obj)}" if ns else _name(obj)


def _labels(obj: Obj) -> Mapping[str, str]:
    return _md(obj).get("labels") or {}


def _spec(obj: Obj) -> Mapping[str, Any]:
    return obj.get("spec") or {}


def _managed_by(obj: Obj) -> dict[str, str]:
    """managed-by must say deckhouse where upstream wrote it (the oldest capdvp releases wrote only the hostname)."""
    return {L.MANAGED_BY: L.MANAGED_BY_VALUE} if L.MANAGED_BY in _labels(obj) else {}


def _owned_by(obj: Obj, vm: Obj) -> bool:
    uid = _md(vm).get("uid")
    return bool(uid) and any(ref.get("uid") == uid and ref.get("kind") == "VirtualMachine"
                             and ref.get("name") == _name(vm) for ref in _md(obj).get("ownerReferences") or [])


def _owner_vm(obj: Obj) -> str | None:
    for ref in _md(obj).get("ownerReferences") or []:
        if ref.get("kind") == "VirtualMachine":
            return str(ref.get("name") or "")
    return None


# -- the proofs, as each component looks for them --------------------------------------------------------------
def pv_proofs(volumes: Iterable[Obj], claims: Iterable[Obj]) -> dict[str, tuple[str, Proof]]:
    """volumeHandle -> (PV name, proof) for the PVs of our driver, by the CSI driver's own rule
    (dvp_common.dvp.pv_proof)."""
    by_uid = {_md(c).get("uid"): c for c in claims if _md(c).get("uid")}
    return {handle: (proof.name, proof) for handle, proof in pv_proof.proofs(volumes, by_uid.get).items()}


def node_vms(nodes: Iterable[Obj]) -> tuple[dict[str, str], list[tuple[str, str]]]:
    """(VM name -> the Node whose providerID names it, [(Node, why its providerID names no VM)])."""
    out: dict[str, str] = {}
    bad: list[tuple[str, str]] = []
    for node in nodes:
        pid = str(_spec(node).get("providerID") or "")
        try:
            vm = L.parse_provider_id(pid) if pid else None
        except ValueError:
            bad.append((_name(node), f'spec.providerID "{pid}" is malformed: expected dvp://<vm name>'))
            continue
        if vm:
            out[vm] = _name(node)
    return out, bad


def lb_name_of(svc: Obj) -> str | None:
    """The parent object's name for a guest LoadBalancer Service we serve (no loadBalancerClass); None otherwise."""
    spec = _spec(svc)
    uid = _md(svc).get("uid")
    if spec.get("type") != "LoadBalancer" or spec.get("loadBalancerClass") or not uid:
        return None
    return L.lb_name(str(uid))


def _scheme_disk(machine: str, disk: str) -> bool:
    if disk == L.short_name(f"{machine}-boot"):
        return True
    found = _ADDITIONAL.search(disk)
    return bool(found) and disk == L.short_name(f"{machine}-additional-disk-{int(found.group(1))}")


@dataclass
class _Planner:
    uuid: str
    namespace: str
    guest: Guest
    parent: Parent
    rows: list[Row] = field(default_factory=list)
    verdicts: dict[tuple[str, str], Row] = field(default_factory=dict)  # parent (kind, name) -> its row

    def add(self, side: str, kind: str, name: str, outcome: Outcome, component: str, reason: str,
            proof: Proof | None = None) -> Row:
        row = Row(side, kind, name, outcome, component, reason, proof)
        self.rows.append(row)
        if side == PARENT:
            self.verdicts[(kind, name)] = row
        return row

    def judged(self, kind: str, obj: Obj, component: str, proof: Proof | None,
               expected: Mapping[str, str] | None = None, *, needed: bool = False) -> Row:
        """A parent object by the rule; `needed`: a component needs it (a guest object names it), so a proof too
        weak for it blocks the switch rather than leaving it alone."""
        found = _labels(obj)
        if found.get(L.CLUSTER_UUID) == self.uuid and found.get(L.COMPONENT) in L.COMPONENTS:
            # ours already, made by whichever component: judged by that component's label, never adopted again
            component = found[L.COMPONENT]
        decision: Decision = decide(obj, self.uuid, component, proof, expected)
        if decision.verdict is Verdict.OURS:
            return self.add(PARENT, kind, _name(obj), Outcome.OURS, component, decision.reason)
        if decision.verdict is Verdict.ADOPT:
            return self.add(PARENT, kind, _name(obj), Outcome.ADOPTED, component, decision.reason, proof)
        if needed and proof is not None and decision.provable:
            return self.add(PARENT, kind, _name(obj), Outcome.BLOCKS, component,
                            f"{decision.reason}; {component} needs it and cannot take it over", proof)
        return self.add(PARENT, kind, _name(obj), Outcome.FOREIGN, "", decision.reason)

    def taken(self, kind: str, name: str) -> Row | None:
        row = self.verdicts.get((kind, name))
        return row if row is not None and row.outcome in (Outcome.OURS, Outcome.ADOPTED, Outcome.READ) else None

    # -- the parent project -------------------------------------------------------------------------------------
    def run(self) -> Report:
        machines = {_name(m): m for m in self.guest.machines
                    if (_md(m).get("namespace") or MACHINES_NAMESPACE) == MACHINES_NAMESPACE}
        named_by_node, bad_nodes = node_vms(self.guest.nodes)
        proofs = pv_proofs(self.guest.volumes, self.guest.claims)
        lbs = {}
        for svc in self.guest.services:
            lb = lb_name_of(svc)
            if lb and LB_FINALIZER in (_md(svc).get("finalizers") or []):
                lbs[lb] = Proof("Service", _key(svc), "metadata.uid", strong=True)
        vms = {_name(vm): vm for vm in self.parent.vms}
        machine_vm: dict[str, str] = {}  # VM name -> machine, for VMs capdvp takes over

        for vm in self.parent.vms:
            name = _name(vm)
            if name in machines:
                proof = Proof("DeckhouseMachine", f"{MACHINES_NAMESPACE}/{name}", "name", strong=True)
                row = self.judged("VirtualMachine", vm, L.CAPDVP, proof, {**_managed_by(vm), L.HOSTNAME: name},
                                  needed=True)
                if row.outcome in (Outcome.OURS, Outcome.ADOPTED):
                    machine_vm[name] = name
            elif name in named_by_node:
                self._node_vm(vm, named_by_node[name])
            else:
                self.judged("VirtualMachine", vm, L.CAPDVP, None)

        for disk in self.parent.disks:
            name = _name(disk)
            owner = _owner_vm(disk)
            vm = vms.get(owner or "")
            if owner in machine_vm and vm is not None and _owned_by(disk, vm) and _scheme_disk(owner, name) and \
                    name in {r.get("name") for r in _spec(vm).get("blockDeviceRefs") or []}:
                proof = Proof("VirtualMachine", owner, f"ownerReference uid {_md(vm).get('uid')}; adopted for "
                              f"DeckhouseMachine {MACHINES_NAMESPACE}/{owner}", strong=True)
                self.judged("VirtualDisk", disk, L.CAPDVP, proof,
                            {**_managed_by(disk), L.VIRTUAL_DISK_NAME: name, L.HOSTNAME: owner})
            elif name in proofs:
                self.judged("VirtualDisk", disk, L.CSI, proofs[name][1],
                            {L.MANAGED_BY: L.MANAGED_BY_VALUE, L.VIRTUAL_DISK_NAME: name}, needed=True)
            elif owner and self.taken("VirtualMachine", owner) and self.verdicts[("VirtualMachine", owner)].outcome \
                    is Outcome.READ:
                self._dhctl("VirtualDisk", disk, owner)
            else:
                self.judged("VirtualDisk", disk, L.CSI, None)

        for att in self.parent.attachments:
            self._attachment(att, named_by_node)

        for addr in self.parent.addresses:
            owner = _owner_vm(addr)
            if owner and (row := self.taken("VirtualMachine", owner)) is not None and row.outcome is Outcome.READ:
                self._dhctl("VirtualMachineIPAddress", addr, owner)
            else:
                self.judged("VirtualMachineIPAddress", addr, L.DHCTL, None)

        for secret in self.parent.secrets:
            if secret.get("type") != CLOUD_INIT_TYPE:
                continue  # credentials and the like: not what a component adopts, never listed
            self._secret(secret, vms, machine_vm)

        for kind, objs in (("Service", self.parent.services), ("ServiceWithHealthchecks", self.parent.healthchecks)):
            for svc in objs:
                if kind == "Service" and (_spec(svc).get("type") != "LoadBalancer" or any(
                        ref.get("kind") == "ServiceWithHealthchecks" for ref in _md(svc).get("ownerReferences") or [])):
                    continue  # not a load balancer, or a ServiceWithHealthchecks' child (its parent's)
                self.judged(kind, svc, L.CCM, lbs.get(_name(svc)), needed=True)

        for policy in self.parent.network_policies:
            found = _labels(policy)
            if found.get(L.CLUSTER_UUID) == self.uuid and found.get(L.COMPONENT) in L.COMPONENTS:
                self.judged("NetworkPolicy", policy, L.DHCTL, None)
            else:
                self.add(PARENT, "NetworkPolicy", _name(policy), Outcome.FOREIGN, "", _policy_reason(policy, self.uuid))

        self._guest(machines, named_by_node, bad_nodes, proofs, lbs)
        return Report(self.uuid, self.namespace, tuple(sorted(self.rows, key=row_order)))

    def _node_vm(self, vm: Obj, node: str) -> None:
        """A VM a Node names that no DeckhouseMachine does (dhctl's masters and static nodes): the CCM reads it as
        this cluster's instance when it carries our cluster UUID (instances.named_by_node); never written."""
        found = _labels(vm)
        if found.get(L.CLUSTER_UUID) == self.uuid and found.get(L.COMPONENT) in L.COMPONENTS:
            self.judged("VirtualMachine", vm, L.DHCTL, None)
            return
        proof = node_proof(node)
        decision = decide(vm, self.uuid, L.DHCTL, proof, {L.HOSTNAME: node})
        if decision.verdict is Verdict.OURS:
            self.add(PARENT, "VirtualMachine", _name(vm), Outcome.OURS, L.DHCTL, decision.reason)
        elif decision.verdict is Verdict.ADOPT and _labels(vm).get(L.CLUSTER_UUID) == self.uuid:
            self.add(PARENT, "VirtualMachine", _name(vm), Outcome.READ, L.CCM,
                     f"read as this cluster's instance (named by {proof}); never written", proof)
        elif decision.provable or decision.verdict is Verdict.ADOPT:
            self.add(PARENT, "VirtualMachine", _name(vm), Outcome.BLOCKS, L.CCM,
                     f"Node {node} names it but its {L.CLUSTER_UUID} label is not this cluster's UUID: the CCM "
                     "would leave the Node alone", proof)
        else:
            self.add(PARENT, "VirtualMachine", _name(vm), Outcome.FOREIGN, "", decision.reason)

    def _dhctl(self, kind: str, obj: Obj, owner: str) -> None:
        """dhctl's disks and addresses of a node VM that is read: no component changes them."""
        uuid = _labels(obj).get(L.CLUSTER_UUID)
        if uuid and uuid != self.uuid:
            self.add(PARENT, kind, _name(obj), Outcome.FOREIGN, "", f"{L.CLUSTER_UUID} names another cluster")
            return
        self.add(PARENT, kind, _name(obj), Outcome.FOREIGN, "",
                 f"dhctl's, of VirtualMachine {owner} (its ownerReference); no component changes it, the layouts "
                 "keep it")

    def _attachment(self, att: Obj, named_by_node: Mapping[str, str]) -> None:
        """The CSI driver adopts `vmbda-<disk>-<node>` of a disk it took over, attached to the VM the Node names."""
        spec = _spec(att)
        ref = spec.get("blockDeviceRef") or {}
        disk, vm = str(ref.get("name") or ""), str(spec.get("virtualMachineName") or "")
        node = named_by_node.get(vm, "")
        disk_taken = ref.get("kind") == "VirtualDisk" and self.taken("VirtualDisk", disk) is not None and \
            self.verdicts[("VirtualDisk", disk)].component == L.CSI
        if disk_taken and node and _name(att) == f"vmbda-{disk}-{node}":
            proof = Proof("Node", node, f"providerID of VirtualMachine {vm}; VirtualDisk {disk} adopted", strong=True)
            self.judged("VirtualMachineBlockDeviceAttachment", att, L.CSI, proof,
                        {L.VIRTUAL_MACHINE_DISK_NAME: disk, L.VIRTUAL_MACHINE_NAME: node}, needed=True)
            return
        decision = decide(att, self.uuid, L.CSI, None, None)
        if disk_taken and decision.verdict is Verdict.FOREIGN and decision.provable:
            self.add(PARENT, "VirtualMachineBlockDeviceAttachment", _name(att), Outcome.BLOCKS, L.CSI,
                     f"attaches VirtualDisk {disk}, taken over by csi, to VirtualMachine {vm}, which no Node of this "
                     "cluster names: the driver could never detach it")
            return
        self.judged("VirtualMachineBlockDeviceAttachment", att, L.CSI, None)

    def _secret(self, secret: Obj, vms: Mapping[str, Obj], machine_vm: Mapping[str, str]) -> None:
        name, owner = _name(secret), _owner_vm(secret) or ""
        vm = vms.get(owner)
        if owner in machine_vm and vm is not None and name == f"cloud-init-{owner}" and _owned_by(secret, vm):
            found = _labels(secret)
            expected = {**_managed_by(secret), **({L.HOSTNAME: owner} if L.HOSTNAME in found else {})}
            proof = Proof("VirtualMachine", owner, f"ownerReference uid {_md(vm).get('uid')}; adopted for "
                          f"DeckhouseMachine {MACHINES_NAMESPACE}/{owner}", strong=True)
            self.judged("Secret", secret, L.CAPDVP, proof, expected)
        elif owner and (row := self.taken("VirtualMachine", owner)) is not None and row.outcome is Outcome.READ:
            self._dhctl("Secret", secret, owner)
        else:
            self.judged("Secret", secret, L.CAPDVP, None)

    # -- the guest ----------------------------------------------------------------------------------------------
    def _guest(self, machines: Mapping[str, Obj], named_by_node: Mapping[str, str],
               bad_nodes: list[tuple[str, str]], proofs: Mapping[str, tuple[str, Proof]],
               lbs: Mapping[str, Proof]) -> None:
        for node, why in bad_nodes:
            self.add(GUEST, "Node", node, Outcome.BLOCKS, L.CCM, why)
        for vm, node in named_by_node.items():
            self._names(GUEST, "Node", node, "VirtualMachine", vm, L.CCM, absent_ok=False)
        for handle, (pv, _proof) in proofs.items():
            self._names(GUEST, "PersistentVolume", pv, "VirtualDisk", handle, L.CSI, absent_ok=False)
        for machine in machines:
            self._names(GUEST, "DeckhouseMachine", f"{MACHINES_NAMESPACE}/{machine}", "VirtualMachine", machine,
                        L.CAPDVP, absent_ok=True)
        parents = {_name(s): "Service" for s in self.parent.services} | \
            {_name(s): "ServiceWithHealthchecks" for s in self.parent.healthchecks}
        for svc in self.guest.services:
            lb = lb_name_of(svc)
            if lb is None:
                continue
            kind = parents.get(lb, "Service")
            if lb not in lbs and lb in parents and self.taken(kind, lb) is None:
                self.add(GUEST, "Service", _key(svc), Outcome.BLOCKS, L.CCM,
                         f"{kind} {lb} exists but this Service lacks the {LB_FINALIZER} finalizer, so nothing "
                         "proves it is this Service's: the CCM would leave it alone")
                continue
            self._names(GUEST, "Service", _key(svc), kind, lb, L.CCM, absent_ok=True)

        for ic in self.guest.instance_classes:
            # Deckhouse's schema takes what no VM of this module can have: the class is refused on its next edit
            # and capdvp cannot make its machines, so it is changed before the switch (node_groups' one rule)
            problems = class_problems(ic)
            if problems:
                self.add(GUEST, "DVPInstanceClass", _name(ic), Outcome.BLOCKS, L.CAPDVP,
                         "; ".join(f"{field}: {sentence}" for field, sentence in problems))

    def _names(self, side: str, kind: str, name: str, target_kind: str, target: str, component: str, *,
               absent_ok: bool) -> None:
        row = self.verdicts.get((target_kind, target))
        if row is None:
            if absent_ok:
                self.add(side, kind, name, Outcome.KEPT, component,
                         f"no {target_kind} {target} in the project yet: {component} makes it")
            else:
                self.add(side, kind, name, Outcome.BLOCKS, component,
                         f"names {target_kind} {target}, which is not in the project")
        elif row.outcome in (Outcome.OURS, Outcome.ADOPTED, Outcome.READ):
            self.add(side, kind, name, Outcome.KEPT, component, f"{target_kind} {target} is {row.outcome.value}")
        else:
            state = "stays foreign" if row.outcome is Outcome.FOREIGN else "cannot be taken over"
            self.add(side, kind, name, Outcome.BLOCKS, component, f"names {target_kind} {target}, which {state}: "
                     f"{row.reason}")


_KINDS = {PARENT: ("VirtualMachine", "VirtualDisk", "VirtualMachineBlockDeviceAttachment", "VirtualMachineIPAddress",
                   "Secret", "Service", "ServiceWithHealthchecks", "NetworkPolicy"),
          GUEST: ("Node", "DeckhouseMachine", "PersistentVolume", "Service", "DVPInstanceClass")}


def row_order(row: Row) -> tuple[int, int, str]:
    kinds = _KINDS[row.side]
    return (0 if row.side == PARENT else 1, kinds.index(row.kind) if row.kind in kinds else len(kinds), row.name)


def _policy_reason(policy: Obj, uuid: str) -> str:
    found = _labels(policy).get(L.CLUSTER_UUID)
    if found and found != uuid:
        return f"{L.CLUSTER_UUID} names another cluster"
    if L.COMPONENT in _labels(policy):
        return f"made by {L.COMPONENT}={_labels(policy)[L.COMPONENT]!r} of cluster {found or ''!r}; never adopted"
    return "left to dhctl's layouts (no component changes a NetworkPolicy)"


def plan(guest: Guest, parent: Parent, cluster_uuid: str, namespace: str = "") -> Report:
    """Every parent object and every guest object naming one, judged (see the module's docstring)."""
    if not cluster_uuid:
        raise ValueError("cluster UUID is empty: refusing to judge ownership")
    return _Planner(cluster_uuid, namespace, guest, parent).run()


OUTCOME_WIDTH = max(len(o.value) for o in Outcome)


def table(report: Report) -> str:
    """The report as a text table: one line per object (outcome, side, kind/name, component, reason), a summary."""
    rows = [(row.outcome.value, row.side, f"{row.kind}/{row.name}", row.component or "-", row.reason)
            for row in report.rows]
    head = ("OUTCOME", "SIDE", "OBJECT", "COMPONENT", "REASON")
    widths = [max(len(r[i]) for r in [head, *rows]) for i in range(4)]
    lines = ["  ".join(cell.ljust(widths[i]) if i < 4 else cell for i, cell in enumerate(r)).rstrip()
             for r in [head, *rows]]
    counts = ", ".join(f"{sum(1 for r in report.rows if r.outcome is o)} {o.value}" for o in Outcome)
    verdict = "the switch is blocked" if report.blocks else "nothing blocks the switch"
    lines.append(f"{len(report.rows)} objects: {counts}; {verdict}")
    return "\n".join(lines)
