# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""Which VM backs a Node, and what the Node should say about it (InstancesV2 semantics, as pure functions).

- providerID `dvp://<vm name>`; a Node without one is matched by the VM label `dvp.deckhouse.io/hostname`.
- Only VMs labelled with our cluster UUID are considered (the ownership rule); dhctl's master VMs carry no component
  label, capdvp's carry `capdvp`, so either counts; any other component label does not.
- Read as this cluster's instance (`named_by_node`), never written: a VM the Go module made (our cluster-UUID label,
  `dvp.deckhouse.io/hostname`, no component label) that a Node of this cluster names in its providerID. Judged by
  the one adoption rule (`dvp_common.dvp.adoption.decide`, its verdict only: nothing is adopted) with the Node as a
  strong proof (kubelets and the CCM write providerIDs, not guest users) and the hostname label the upstream
  layouts write (`<node name>`) as expected; a VM of another cluster's UUID or of a component stays foreign. The
  rule is `dvp_common.dvp.instances.named_by_node`, shared with the CSI controller (which attaches to it). Its
  Node's addresses, labels and stopped-VM taints follow it; load balancers never label it (no write to it).
- Addresses, from the VM's network status: the main network's `status.ipAddress` and each additional network's
  `status.networks[].ipAddress`. InternalIP: one per family (IPv4, IPv6), from the internal network (setting;
  default the main one, `Main`), a family it lacks from the first other network that has it, then the remaining
  addresses; ExternalIP: the chosen internal ones (as upstream copies the main address); then Hostname. Never an
  empty address; a family the VM stops reporting (guest agent silent) keeps the Node's last address of it.
- Topology: `topology.kubernetes.io/{region,zone}` from the VM's `spec.nodeSelector` (where DVP places the VM;
  the master layout sets it), else the VM's labels of the same keys, else the configured defaults (none: unset).
- Instance type: `<virtualMachineClassName>.<cores>c.<memory>` (e.g. `generic.2c.4Gi`), cut to a label value.
- Ours: `dvp.deckhouse.io/parent-node` = the DVP node the VM runs on (`status.nodeName`; it changes with a live
  migration), `dvp.deckhouse.io/vm-class` = `spec.virtualMachineClassName`. Every label follows the VM: a value
  the VM no longer gives (stopped: no parent node) leaves the last one in place.
"""

from __future__ import annotations

import hashlib
import ipaddress
import re
from dataclasses import dataclass
from typing import Any

from dvp_common.dvp import labels as L
from dvp_common.dvp.instances import named_by_node
from dvp_common.dvp.ownership import is_ours

Obj = dict[str, Any]
REGION = "topology.kubernetes.io/region"
ZONE = "topology.kubernetes.io/zone"
INSTANCE_TYPE = "node.kubernetes.io/instance-type"
PARENT_NODE = "dvp.deckhouse.io/parent-node"
VM_CLASS = "dvp.deckhouse.io/vm-class"
_LABEL_VALUE = re.compile(r"^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$")


class BadProviderID(ValueError):
    """A Node's providerID starts with dvp:// but names no VM we can address."""


@dataclass(frozen=True)
class VMRef:
    """How to find a Node's VM: by name (from the providerID) or by the hostname label."""

    name: str | None = None
    hostname: str | None = None


def labels(obj: Obj | None) -> dict[str, str]:
    return ((obj or {}).get("metadata") or {}).get("labels") or {}


def name(obj: Obj) -> str:
    return str((obj.get("metadata") or {}).get("name") or "")


def provider_id(node: Obj) -> str:
    return str((node.get("spec") or {}).get("providerID") or "")


def is_foreign(node: Obj) -> bool:
    """Another provider's Node: never touched."""
    pid = provider_id(node)
    return bool(pid) and not pid.startswith(L.PROVIDER_ID_PREFIX)


def vm_ref(node: Obj) -> VMRef | None:
    """None for a foreign Node; BadProviderID for a malformed `dvp://` one."""
    pid = provider_id(node)
    if not pid:
        return VMRef(hostname=name(node))
    try:
        vm_name = L.parse_provider_id(pid)
    except ValueError as exc:
        raise BadProviderID(f'Node "{name(node)}": spec.providerID "{pid}" is malformed: expected dvp://<vm name>') \
            from exc
    if vm_name is None:
        return None
    if len(vm_name) > L.MAX_NAME or not re.fullmatch(r"[a-z0-9]([-a-z0-9.]*[a-z0-9])?", vm_name):
        raise BadProviderID(f'Node "{name(node)}": spec.providerID "{pid}" names no valid VirtualMachine')
    return VMRef(name=vm_name)


def considered(vm: Obj | None, cluster_uuid: str) -> bool:
    """Ours to read and label: the shared ownership rule, for VMs made by capdvp or by dhctl's layouts."""
    return is_ours(vm, cluster_uuid, L.NODE_MAKERS)


def readable(vm: Obj | None, cluster_uuid: str, node_name: str | None = None) -> bool:
    """Ours (`considered`), or, for the Node `node_name` whose providerID names it, an upstream VM of this cluster
    read as its instance (`named_by_node`)."""
    return considered(vm, cluster_uuid) or (node_name is not None and named_by_node(vm, cluster_uuid, node_name))


def vm_ip(vm: Obj) -> str:
    return str((vm.get("status") or {}).get("ipAddress") or "").strip()


def vm_phase(vm: Obj | None) -> str:
    return str(((vm or {}).get("status") or {}).get("phase") or "")


MAIN_NETWORK = "Main"  # DVP's name of the VM's main network (type Main)


def family(ip: str) -> int | None:
    try:
        return ipaddress.ip_address(ip).version
    except ValueError:
        return None


def vm_addresses(vm: Obj) -> list[tuple[str, str]]:
    """(network, address) pairs the VM reports, the main network first; malformed or repeated ones skipped."""
    st = vm.get("status") or {}
    out: list[tuple[str, str]] = []
    pairs = [(MAIN_NETWORK, vm_ip(vm))] + [
        (str(n.get("name") or n.get("type") or ""), str(n.get("ipAddress") or "").strip())
        for n in st.get("networks") or [] if isinstance(n, dict) and n.get("type") != MAIN_NETWORK]
    for net, ip in pairs:
        if ip and family(ip) and ip not in {a for _, a in out}:
            out.append((net, ip))
    return out


def addresses(vm: Obj, node_name: str, internal_network: str = MAIN_NETWORK,
              current: list[dict[str, str]] | None = None) -> list[dict[str, str]]:
    """The Node's addresses; [] when the VM reports no IP yet (callers keep what the Node has). `current`: the
    Node's addresses now, whose InternalIP of a family the VM no longer reports is kept (the last known)."""
    found = vm_addresses(vm)
    if not found:
        return []
    found = sorted(found, key=lambda p: p[0] != internal_network)  # the internal network first (stable)
    chosen: dict[int, str] = {}
    for _, ip in found:
        chosen.setdefault(family(ip) or 0, ip)
    for a in current or []:
        fam = family(str(a.get("address") or ""))
        if a.get("type") == "InternalIP" and fam and fam not in chosen:
            chosen[fam] = str(a["address"])
    first = [ip for _, ip in found if ip in chosen.values()]
    first += [ip for ip in chosen.values() if ip not in first]  # a last-known address the VM no longer reports
    rest = [ip for _, ip in found if ip not in chosen.values()]
    host = labels(vm).get(L.HOSTNAME) or node_name
    return ([{"type": "InternalIP", "address": ip} for ip in first + rest]
            + [{"type": "ExternalIP", "address": ip} for ip in first] + [{"type": "Hostname", "address": host}])


def _label_value(text: str) -> str:
    text = re.sub(r"[^A-Za-z0-9_.-]", "-", text).strip("-_.")
    if len(text) > 63:
        text = text[:52].rstrip("-_.") + "-" + hashlib.sha256(text.encode()).hexdigest()[:10]
    return text


def instance_type(vm: Obj) -> str:
    spec = vm.get("spec") or {}
    cls = str(spec.get("virtualMachineClassName") or "")
    cores = (spec.get("cpu") or {}).get("cores")
    memory = (spec.get("memory") or {}).get("size")
    if not cls or not cores or not memory:
        return ""
    return _label_value(f"{cls}.{cores}c.{memory}")


def topology(vm: Obj, default_region: str = "", default_zone: str = "") -> dict[str, str]:
    selector = (vm.get("spec") or {}).get("nodeSelector") or {}
    out = {}
    for key, default in ((REGION, default_region), (ZONE, default_zone)):
        value = selector.get(key) or labels(vm).get(key) or default
        if value and _LABEL_VALUE.match(value) and len(value) <= 63:
            out[key] = value
    return out


def node_labels(vm: Obj, default_region: str = "", default_zone: str = "") -> dict[str, str]:
    out = topology(vm, default_region, default_zone)
    itype = instance_type(vm)
    if itype:
        out[INSTANCE_TYPE] = itype
    for key, value in ((PARENT_NODE, str((vm.get("status") or {}).get("nodeName") or "")),
                       (VM_CLASS, str((vm.get("spec") or {}).get("virtualMachineClassName") or ""))):
        if value and len(value) <= 63 and _LABEL_VALUE.match(value):
            out[key] = value
    return out


def label_changes(node: Obj, vm: Obj, default_region: str = "", default_zone: str = "") -> dict[str, str]:
    """The labels of `node_labels` the Node does not carry yet (a merge patch; nothing when all are current)."""
    have = labels(node)
    return {k: v for k, v in node_labels(vm, default_region, default_zone).items() if have.get(k) != v}


def current_addresses(node: Obj) -> list[dict[str, str]]:
    return [{"type": a.get("type"), "address": a.get("address")}
            for a in (node.get("status") or {}).get("addresses") or []]
