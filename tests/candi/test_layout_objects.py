# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""The objects the layouts' OpenTofu would create, across a matrix of inputs (names at the limits, every enum
value of the instance-class schema, integer and string quantities), are accepted by the DVP API as written.

The schema server (testkit/schema_accepts.py) is the harness's DVP API (our CRDs and the simulator's admission
webhooks) or, with CPDVP_DVP_CRDS, a kube-apiserver loaded with DVP's real CRDs. Each case is planned by the real
OpenTofu and provider against it, with the parent's classes, images and StorageClasses seeded (the plan reads
them, and the provider types each manifest by that server's CRDs), and the objects are taken from the saved plan
(`tofu show -json`): the `object` of every kubernetes_manifest, which is what the provider sends (nulls dropped),
and the Secret of kubernetes_secret_v1 (its data base64-encoded, as the provider sends it). They are then created
in a fresh namespace of the same server, with no simulator, so only the schema and the admission judge them."""

from __future__ import annotations

import base64
import json
from collections import Counter
from typing import Any

import pytest
import yaml
from dvp_common.dvp import resources as R
from dvp_common.kube.resources import SECRET, Resource

from sim import seed
from testkit import schema_accepts
from testkit.candi.layout_inputs import STORAGE_CLASS, UUID, instance_class, node_group, seed_parent, variables
from testkit.candi.tofu_runner import CANDI, write_vars

pytestmark = pytest.mark.tools

NETWORK_POLICY = Resource("networking.k8s.io", "v1", "networkpolicies", "NetworkPolicy")
RES = {"VirtualMachine": R.VIRTUAL_MACHINE, "VirtualDisk": R.VIRTUAL_DISK, "Secret": SECRET,
       "VirtualMachineIPAddress": R.VIRTUAL_MACHINE_IP_ADDRESS, "NetworkPolicy": NETWORK_POLICY}


def schema_enums() -> dict[str, list[str]]:
    """Every enum of the instance-class schema the layouts read (candi/openapi/instance_class.yaml)."""
    spec = yaml.safe_load((CANDI / "openapi" / "instance_class.yaml").read_text())["apiVersions"][0]["openAPISpec"]
    vm = spec["properties"]["virtualMachine"]["properties"]
    return {"runPolicy": vm["runPolicy"]["enum"], "liveMigrationPolicy": vm["liveMigrationPolicy"]["enum"],
            "bootloader": vm["bootloader"]["enum"],
            "image.kind": spec["properties"]["rootDisk"]["properties"]["image"]["properties"]["kind"]["enum"]}


ENUMS = schema_enums()
MEMORY = ("4Gi", 4294967296, "1.5Gi", "4096M")  # an integer is bytes; DVP wants a string
SIZES = (21474836480, "20Gi", "20G", "20.5Gi")
CORES = (1, 2, 4)
CORE_FRACTIONS = ("5%", "100%", None, "50%")  # None: the layouts' default; all within the seeded class's policy
ADDITIONAL = (0, 1, 3, 14)  # 14: the most (with the root and etcd disks, DVP's 16 block devices)
IMAGE = "candi-matrix-image"
CASES = 8


def case(i: int) -> dict[str, Any]:
    """One layout input: master-node for even cases, static-node for odd ones, every axis cycled."""
    master = i % 2 == 0
    group = "master" if master else ("w" * 30 if i % 4 == 1 else "worker")
    index = 0 if master else 1
    long_names = i % 4 in (1, 2)
    turn = i + i // 4  # the axes below turn so that both steps meet every value
    # A hostname of 63 characters, the most a label value (and DVP's VM name) allows.
    prefix = ("p" * (63 - len(f"-{group}-{index}"))) if long_names else "candi"
    vm: dict[str, Any] = {"cpu": {"cores": CORES[i % len(CORES)]}, "memory": {"size": MEMORY[turn % len(MEMORY)]},
                          "virtualMachineClassName": "generic", "runPolicy": ENUMS["runPolicy"][turn % 4]}
    fraction = CORE_FRACTIONS[i % len(CORE_FRACTIONS)]
    if fraction:
        vm["cpu"]["coreFraction"] = fraction
    for key in ("liveMigrationPolicy", "bootloader"):
        values = (*ENUMS[key], None)  # None: the layouts' default
        if values[i % len(values)]:
            vm[key] = values[i % len(values)]
    if i % 3 == 0:
        vm |= {"additionalLabels": {"team": "t" * 63}, "additionalAnnotations": {"example.com/note": "n" * 300},
               "nodeSelector": {"example.com/pool": "masters"}, "priorityClassName": "system-node-critical",
               "tolerations": [{"key": "dedicated", "operator": "Equal", "value": "masters", "effect": "NoSchedule",
                                "tolerationSeconds": 300}, {"operator": "Exists"}]}
    if i % 3 == 1:  # Deckhouse's module's form (crds/instance_class.yaml@21af0b5e): the VM's required node affinity
        vm["nodeSelector"] = {"nodeSelectorTerms": [
            {"matchExpressions": [{"key": "example.com/pool", "operator": "In", "values": ["a", "b"]},
                                  {"key": "spare", "operator": "DoesNotExist"}]},
            {"matchFields": [{"key": "metadata.name", "operator": "NotIn", "values": ["dvp-node-3"]}]}]}
    count = ADDITIONAL[(i // 2) % len(ADDITIONAL)]
    count = count if master else min(count, 3)
    disks = [{"size": SIZES[(i + d) % len(SIZES)], "storageClass": STORAGE_CLASS} for d in range(count)]
    for d, entry in enumerate(disks):
        if count > 1:  # named (one at the 20-character limit); a single disk stays unnamed (keyed by index)
            entry["name"] = "d" * 20 if d == 0 else f"data-{d}"
    cls = instance_class(group, etcd=master)
    cls["spec"].update(virtualMachine=vm, additionalDisks=disks)
    cls["spec"]["rootDisk"].update(size=SIZES[i % len(SIZES)], image={
        "kind": ENUMS["image.kind"][turn % len(ENUMS["image.kind"])], "name": IMAGE})
    if master:
        cls["spec"]["etcdDisk"]["size"] = SIZES[(i + 1) % len(SIZES)]
    params: dict[str, Any] = {"layout": "Standard", "sshPublicKey": "ssh-ed25519 AAAA matrix@candi",
                              "ipAddresses": {group: ["10.77.0.60", "10.77.0.61"]} if i % 4 < 2 else {}}
    if i % 3 == 1:
        params |= {"zones": ["zone-a", "zone-b"], "region": "region-1",
                   "additionalVMLabels": {"example.com/role": "r" * 63}}
    return {"step": "master-node" if master else "static-node", "group": group, "index": index,
            "prefix": prefix, "class": cls, "params": params, "additional": count}


def case_variables(kubeconfig: str, ns: str, c: dict[str, Any]) -> dict[str, Any]:
    out = variables(kubeconfig, ns, nodeGroupName=c["group"], nodeIndex=c["index"],
                    clusterConfiguration={"cloud": {"prefix": c["prefix"]}})
    out["settings"]["spec"]["settings"]["nodes"]["parameters"] = c["params"]
    out["nodeGroups"][c["group"]] = node_group(c["group"], c["group"])
    out["instanceClasses"][c["group"]] = c["class"]
    return out


def test_the_matrix_covers_every_value():
    cases = [case(i) for i in range(CASES)]
    vms = [c["class"]["spec"]["virtualMachine"] for c in cases]
    for key in ("runPolicy", "liveMigrationPolicy", "bootloader"):
        assert {vm.get(key) for vm in vms} >= set(ENUMS[key]), key
    masters = [c["class"]["spec"] for c in cases if c["step"] == "master-node"]
    assert {m["virtualMachine"]["runPolicy"] for m in masters} == set(ENUMS["runPolicy"])
    assert {repr(m["virtualMachine"]["memory"]["size"]) for m in masters} == {repr(m) for m in MEMORY}
    assert {m["rootDisk"]["image"]["kind"] for m in masters} == set(ENUMS["image.kind"])
    assert {None} <= {vm.get("liveMigrationPolicy") for vm in vms} and {None} <= {vm.get("bootloader") for vm in vms}
    assert {c["class"]["spec"]["rootDisk"]["image"]["kind"] for c in cases} == set(ENUMS["image.kind"])
    assert {"nodeSelectorTerms" in (vm.get("nodeSelector") or {}) for vm in vms} == {True, False}
    assert {repr(vm["memory"]["size"]) for vm in vms} == {repr(m) for m in MEMORY}
    sizes = {repr(d["size"]) for c in cases for d in c["class"]["spec"]["additionalDisks"]}
    assert sizes == {repr(s) for s in SIZES}
    assert {c["additional"] for c in cases if c["step"] == "master-node"} == set(ADDITIONAL)
    assert {len(f"{c['prefix']}-{c['group']}-{c['index']}") for c in cases} >= {63}
    assert {c["step"] for c in cases} == {"master-node", "static-node"}
    assert {bool(c["params"]["ipAddresses"]) for c in cases} == {True, False}  # static and Auto addresses


def sent(value: Any, manifest: Any) -> Any:
    """What the provider sends of a planned `object` (its apply step): null attributes dropped, an object or map
    left with none dropped too unless the manifest wrote it (the schema type gives every field a slot), and an
    int-or-string value as the manifest wrote it."""
    def empty(v: Any, m: Any) -> bool:
        return isinstance(v, dict) and not v and m is None

    if isinstance(value, dict):
        out = {}
        for k, v in value.items():
            m = manifest.get(k) if isinstance(manifest, dict) else None
            if v is not None and not empty(kept := sent(v, m), m):
                out[k] = kept
        return out
    if isinstance(value, list):
        out = []
        for i, v in enumerate(value):
            m = manifest[i] if isinstance(manifest, list) and i < len(manifest) else None
            if v is not None and not empty(kept := sent(v, m), m):
                out.append(kept)
        return out
    if isinstance(value, str) and type(manifest) is int and str(manifest) == value:
        return manifest  # an int-or-string field is typed as a string; the provider sends an integer as written
    return value


def backfill(value: Any, unknown: Any, manifest: Any) -> Any:
    """The provider's apply step fills what the plan left unknown (its computed fields, metadata.labels and
    metadata.annotations by default) from the manifest."""
    if unknown is True:
        return manifest
    if isinstance(unknown, dict) and isinstance(manifest, dict):
        out = dict(value) if isinstance(value, dict) else {}
        for k, u in unknown.items():
            if k in manifest:
                out[k] = backfill(out.get(k), u, manifest[k])
        return out
    return value


def drop_nulls(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: drop_nulls(v) for k, v in value.items() if v is not None}
    return value


def secret_body(after: dict[str, Any]) -> dict[str, Any]:
    meta = after["metadata"][0]
    return {"apiVersion": "v1", "kind": "Secret", "type": after["type"],
            "metadata": drop_nulls({"name": meta["name"], "namespace": meta["namespace"],
                                    "labels": meta.get("labels") or None,
                                    "annotations": meta.get("annotations") or None}),
            "data": {k: base64.b64encode(v.encode()).decode() for k, v in (after.get("data") or {}).items()}}


def planned_objects(tofu, cwd) -> list[dict[str, Any]]:
    res = tofu.run(cwd, "plan", "-input=false", "-no-color", "-out=tfplan", timeout=900)
    assert res.rc == 0, res.out
    show = tofu.run(cwd, "show", "-json", "tfplan")
    assert show.rc == 0, show.out
    out = []
    for change in json.loads(show.out)["resource_changes"]:
        if change["mode"] != "managed" or change["change"]["actions"] != ["create"]:
            continue
        after = change["change"]["after"]
        if change["type"] == "kubernetes_manifest":
            unknown = (change["change"].get("after_unknown") or {}).get("object")
            out.append(sent(backfill(after["object"], unknown, after["manifest"]), after["manifest"]))
        elif change["type"] == "kubernetes_secret_v1":
            out.append(secret_body(after))
    return out


@pytest.fixture(scope="module")
def schema_api(control_plane, dvp_api):
    return schema_accepts.schema_server(control_plane, dvp_api)


@pytest.fixture(scope="module")
def parent(schema_api):
    """The parent project the plans read, on the schema server (so the provider types each object by that
    server's CRDs, as it would on DVP): classes, images and StorageClasses as the installer finds them."""
    client = schema_api.client()
    seed_parent(client)
    ns = schema_api.create_namespace("matrix-plan")
    seed.cluster_image(client, IMAGE)
    seed.image(client, ns, IMAGE)
    yield ns
    client.close()


@pytest.fixture(scope="module")
def steps(tofu, tmp_path_factory):
    """One initialised copy per layout step; each case writes its own variables (no state: all is created)."""
    made: dict[str, Any] = {}

    def step(name: str):
        if name not in made:
            made[name] = tofu.step(tmp_path_factory.mktemp(name), name, {})
        return made[name]

    return step


def accept_all(schema_api, objects: list[dict[str, Any]]) -> Counter:
    ns = schema_api.create_namespace("matrix-candi")
    client = schema_api.client()
    try:
        for body in objects:
            body = json.loads(json.dumps(body))
            body["metadata"]["namespace"] = ns
            schema_accepts.create_as_written(client, RES[body["kind"]], ns, body)
    finally:
        client.close()
    return Counter(body["kind"] for body in objects)


@pytest.mark.parametrize("i", range(CASES))
def test_layout_objects_are_accepted(tofu, schema_api, parent, steps, i):
    c = case(i)
    cwd = steps(c["step"])
    write_vars(cwd, case_variables(schema_api.kubeconfig(parent), parent, c))
    objects = planned_objects(tofu, cwd)
    hostname = f"{c['prefix']}-{c['group']}-{c['index']}"
    vm = next(o for o in objects if o["kind"] == "VirtualMachine")
    assert vm["metadata"]["name"] == hostname
    assert isinstance(vm["spec"]["memory"]["size"], str)
    terms = (c["class"]["spec"]["virtualMachine"].get("nodeSelector") or {}).get("nodeSelectorTerms")
    assert vm["spec"].get("affinity") == ({"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
        "nodeSelectorTerms": terms}}} if terms else None)
    for body in objects:  # what the components' ownership rule reads, on every object
        assert body["metadata"]["labels"]["dvp.deckhouse.io/cluster-uuid"] == UUID, body["metadata"]
        assert all(len(v) <= 63 for v in body["metadata"]["labels"].values())
    disks = 1 + (c["step"] == "master-node") + c["additional"]
    assert accept_all(schema_api, objects) == Counter(
        {"VirtualMachine": 1, "VirtualMachineIPAddress": 1, "Secret": 1, "VirtualDisk": disks})


@pytest.mark.parametrize("ports", [[22], [22, 6443, 65535], []])
def test_base_infrastructure_objects_are_accepted(tofu, schema_api, parent, steps, ports):
    cwd = steps("base-infrastructure")
    inputs = variables(schema_api.kubeconfig(parent), parent)
    inputs["settings"]["spec"]["settings"]["nodes"]["parameters"]["ingressPorts"] = ports
    write_vars(cwd, inputs)
    objects = planned_objects(tofu, cwd)
    assert accept_all(schema_api, objects) == Counter({"NetworkPolicy": 1})
    policy = objects[0]
    assert policy["metadata"]["labels"]["dvp.deckhouse.io/cluster-uuid"] == UUID
    assert [p["port"] for rule in policy["spec"]["ingress"] for p in rule.get("ports", [])] == ports
