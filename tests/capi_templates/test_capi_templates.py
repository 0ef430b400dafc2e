# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0

import copy
import os
import re

import jsonschema
import pytest
import yaml
from chart import re2schema

from testkit.nodemanager import ROOT, RenderFailed, contract_v2, render_v1, render_v2

FULL = {
    "virtualMachine": {
        "cpu": {"cores": 4, "coreFraction": "50%"},
        "memory": {"size": "8Gi"},
        "virtualMachineClassName": "host-passthrough",
        "bootloader": "BIOS",
        "runPolicy": "AlwaysOn",
        "liveMigrationPolicy": "PreferSafe",
        "additionalLabels": {"team": "a"},
        "additionalAnnotations": {"x": "y"},
        "nodeSelector": {"zone": "a"},
        "priorityClassName": "high",
        "tolerations": [{"key": "k", "operator": "Exists", "effect": "NoSchedule"}],
    },
    "rootDisk": {
        "size": "50Gi",
        "storageClass": "replicated",
        "image": {"kind": "ClusterVirtualImage", "name": "ubuntu"},
    },
    "etcdDisk": {"size": "10Gi", "storageClass": "fast"},
    "additionalDisks": [{"size": "100Gi", "storageClass": "bulk"}, {"size": "1Ti", "storageClass": "slow"}],
}
MINIMAL = {
    "virtualMachine": {"cpu": {"cores": 2}, "memory": {"size": "4Gi"}, "virtualMachineClassName": "generic"},
    "rootDisk": {"size": "20Gi", "image": {"kind": "VirtualImage", "name": "img"}},
}
FULL_SPEC = {
    "vmClassName": "host-passthrough",
    "cpu": {"cores": 4, "cpuFraction": "50%"},
    "memory": "8Gi",
    "rootDiskSize": "50Gi",
    "rootDiskStorageClass": "replicated",
    "bootDiskImageRef": {"kind": "ClusterVirtualImage", "name": "ubuntu"},
    "bootloader": "BIOS",
    "runPolicy": "AlwaysOn",
    "liveMigrationPolicy": "PreferSafe",
    "priorityClassName": "high",
    "additionalLabels": {"team": "a"},
    "additionalAnnotations": {"x": "y"},
    "nodeSelector": {"zone": "a"},
    "tolerations": [{"key": "k", "operator": "Exists", "effect": "NoSchedule"}],
    "additionalDisks": [{"size": "100Gi", "storageClass": "bulk"}, {"size": "1Ti", "storageClass": "slow"}],
}
MINIMAL_SPEC = {
    "vmClassName": "generic",
    "cpu": {"cores": 2},  # the instance class names no core fraction: none, so DVP applies the VM class's default
    "memory": "4Gi",
    "rootDiskSize": "20Gi",
    "bootDiskImageRef": {"kind": "VirtualImage", "name": "img"},
}


def crd_schema(name):
    with open(os.path.join(ROOT, "crds", name)) as f:
        crd = yaml.safe_load(f)
    return crd["spec"]["versions"][0]["schema"]["openAPIV3Schema"]


def int_or_string(schema):
    """x-kubernetes-int-or-string as JSON Schema, so jsonschema checks what the apiserver checks."""
    if isinstance(schema, dict):
        out = {k: int_or_string(v) for k, v in schema.items()}
        if out.pop("x-kubernetes-int-or-string", False):
            # the schema's own anyOf (integer | string) is replaced: it does not carry the pattern
            out = {
                **{k: v for k, v in out.items() if k not in ("pattern", "type", "anyOf")},
                "anyOf": [{"type": "integer"}, {"type": "string", **{k: v for k, v in out.items() if k == "pattern"}}],
            }
        return out
    if isinstance(schema, list):
        return [int_or_string(x) for x in schema]
    return schema


MACHINE_TEMPLATE = int_or_string(crd_schema("deckhousemachinetemplate.yaml"))


@pytest.mark.parametrize(("ic", "spec"), [(FULL, FULL_SPEC), (MINIMAL, MINIMAL_SPEC)])
def test_v2_template_renders_a_valid_machine_template(ic, spec):
    obj = render_v2(ic)
    assert obj == {
        "apiVersion": "infrastructure.cluster.x-k8s.io/v1alpha1",
        "kind": "DeckhouseMachineTemplate",
        "spec": {"template": {"spec": spec}},
    }
    jsonschema.validate(obj, MACHINE_TEMPLATE)


def test_v2_contract_lists_rollout_fields_that_exist_in_the_instance_class():
    contract = contract_v2()
    assert contract["version"] == "v2"
    ic = crd_schema("dvpinstanceclass.yaml")["properties"]["spec"]
    for field in contract["rolloutFields"]:
        node = ic
        for part in field.split("."):
            node = node["properties"][part]
    assert contract["rolloutFields"] == [
        "virtualMachine.virtualMachineClassName",
        "virtualMachine.bootloader",
        "virtualMachine.runPolicy",
        "virtualMachine.liveMigrationPolicy",
        "virtualMachine.cpu.cores",
        "virtualMachine.cpu.coreFraction",
        "virtualMachine.memory.size",
        "rootDisk.size",
        "rootDisk.storageClass",
        "rootDisk.image.kind",
        "rootDisk.image.name",
        "additionalDisks",
        "virtualMachine.additionalLabels",
        "virtualMachine.additionalAnnotations",
        "virtualMachine.nodeSelector",
        "virtualMachine.priorityClassName",
        "virtualMachine.tolerations",
    ]


def test_v2_template_uses_only_what_the_sandbox_allows():
    template = contract_v2()["template"]
    for forbidden in ("include", "tpl", "lookup", "now", "rand", "env", "genCA", "genPrivateKey", "Values", "Files"):
        assert not re.search(rf"\b{forbidden}\b", template), forbidden
    roots = set(re.findall(r"(?<![\w$)])\.(\w+)", template))
    assert roots <= {
        "instanceClass",
        "virtualMachine",
        "cpu",
        "memory",
        "size",
        "cores",
        "image",
        "kind",
        "name",
        "storageClass",
        "rootDisk",
    }


def test_v2_missing_required_field_fails_loudly():
    broken = copy.deepcopy(MINIMAL)
    del broken["virtualMachine"]["memory"]
    with pytest.raises(RenderFailed, match='map has no entry for key "memory"'):
        render_v2(broken)


@pytest.mark.parametrize(("ic", "spec"), [(FULL, FULL_SPEC), (MINIMAL, MINIMAL_SPEC)])
def test_v1_machine_template_matches_v2_and_is_valid(ic, spec):
    checksum, obj, cluster = render_v1("worker", ic)
    assert re.fullmatch(r"[0-9a-f]{64}", checksum)
    name = obj["metadata"]["name"]
    assert re.fullmatch(r"worker-[0-9a-f]{8}", name)
    assert obj["metadata"] == {
        "name": name,
        "namespace": "d8-cloud-instance-manager",
        "annotations": {"checksum/instance-class": checksum, "helm.sh/resource-policy": "keep"},
        "labels": {"heritage": "deckhouse", "module": "node-manager", "node-group": "worker"},
    }
    assert obj["spec"] == {"template": {"spec": spec}}
    jsonschema.validate(obj, MACHINE_TEMPLATE)
    assert cluster == {
        "apiVersion": "infrastructure.cluster.x-k8s.io/v1alpha1",
        "kind": "DeckhouseCluster",
        "metadata": {
            "name": "dvp",
            "namespace": "d8-cloud-instance-manager",
            "labels": {"heritage": "deckhouse", "module": "cloud-provider-dvp", "app": "capdvp-controller-manager"},
        },
    }
    jsonschema.validate(cluster, int_or_string(crd_schema("deckhousecluster.yaml")))


def test_the_registrations_zones_become_the_clusters_zones():
    _, _, cluster = render_v1("worker", MINIMAL, dvp={"zones": ["zone-a", "zone-b"], "additionalVMLabels": {"a": "b"}})
    assert cluster["spec"] == {"zones": ["zone-a", "zone-b"]}
    jsonschema.validate(cluster, int_or_string(crd_schema("deckhousecluster.yaml")))


def leaves(node, path=()):
    if isinstance(node, dict):
        for k, v in node.items():
            yield from leaves(v, (*path, k))
    elif isinstance(node, list):
        for i, v in enumerate(node):
            yield from leaves(v, (*path, i))
    else:
        yield path


def changed(ic, path):
    out = copy.deepcopy(ic)
    node = out
    for p in path[:-1]:
        node = node[p]
    value = node[path[-1]]
    node[path[-1]] = value + 1 if isinstance(value, int) else value + "x" if not value.endswith("%") else "99%"
    return out


@pytest.mark.parametrize("path", list(leaves(FULL)), ids=lambda p: ".".join(map(str, p)))
def test_v1_checksum_covers_every_field(path):
    # Upstream's checksum lost root size, core fraction and image kind to duplicate keys; ours covers all.
    base, _, _ = render_v1("worker", FULL)
    other, obj, _ = render_v1("worker", changed(FULL, path))
    assert other != base
    assert obj["metadata"]["name"] != render_v1("worker", FULL)[1]["metadata"]["name"]


def test_v1_checksum_is_stable():
    assert render_v1("worker", FULL)[0] == render_v1("worker", copy.deepcopy(FULL))[0]


def test_every_instance_class_field_reaches_the_machine_or_is_refused_by_the_crd():
    # gpus and etcdDisk are the only class fields a machine does not carry: gpus is refused by the CRD (CEL rule),
    # etcdDisk belongs to dhctl's CloudPermanent masters.
    ic = crd_schema("dvpinstanceclass.yaml")["properties"]["spec"]["properties"]
    carried = {"virtualMachine": set(FULL["virtualMachine"]), "rootDisk": set(FULL["rootDisk"])}
    assert set(ic["virtualMachine"]["properties"]) - carried["virtualMachine"] == {"gpus"}
    assert set(ic["rootDisk"]["properties"]) == carried["rootDisk"]
    assert set(ic) - {"virtualMachine", "rootDisk", "additionalDisks"} == {"etcdDisk"}
    rule = ic["virtualMachine"]["x-kubernetes-validations"]
    assert rule[0]["rule"] == "!has(self.gpus) || size(self.gpus) == 0"


def test_instance_class_image_kinds_are_those_a_machine_boot_disk_accepts():
    ic_kinds = crd_schema("dvpinstanceclass.yaml")["properties"]["spec"]["properties"]["rootDisk"]["properties"][
        "image"]["properties"]["kind"]["enum"]
    machine = MACHINE_TEMPLATE["properties"]["spec"]["properties"]["template"]["properties"]["spec"]["properties"]
    # VirtualDisk is listed as Deckhouse's module lists it, and refused by the CRD's CEL rule with what to do instead.
    assert set(ic_kinds) - {"VirtualDisk"} <= set(machine["bootDiskImageRef"]["properties"]["kind"]["enum"])
    image = crd_schema("dvpinstanceclass.yaml")["properties"]["spec"]["properties"]["rootDisk"]["properties"]["image"]
    assert [r["rule"] for r in image["x-kubernetes-validations"]] == ["self.kind != 'VirtualDisk'"]


def _rollout_covers(path: tuple) -> bool:
    dotted = [str(p) for p in path if not isinstance(p, int)]
    return any(dotted[:len(f.split("."))] == f.split(".") for f in contract_v2()["rolloutFields"])


@pytest.mark.parametrize("path", [p for p in leaves(FULL) if p[0] != "etcdDisk"], ids=lambda p: ".".join(map(str, p)))
def test_every_field_the_template_renders_is_a_rollout_field(path):
    # A DeckhouseMachineTemplate is immutable and nothing copies a template change onto existing machines:
    # a rendered field that is not a rollout field would never reach a machine.
    value = path_get(FULL, path)
    other = changed(FULL, path) if not isinstance(value, str) or path[-1] not in ENUMS else set_path(
        FULL, path, ENUMS[path[-1]])
    assert render_v2(other) != render_v2(FULL), "the field is not rendered"
    assert _rollout_covers(path), f"{'.'.join(map(str, path))} is rendered but not a rollout field"


ENUMS = {"bootloader": "EFI", "runPolicy": "Manual", "liveMigrationPolicy": "Never", "kind": "VirtualImage",
         "operator": "Equal", "effect": "NoExecute"}


def path_get(node, path):
    for p in path:
        node = node[p]
    return node


def set_path(ic, path, value):
    out = copy.deepcopy(ic)
    path_get(out, path[:-1])[path[-1]] = value
    return out


def _field(schema, *path):
    node = schema
    for p in path:
        node = node["items"] if p == "[]" else node["properties"][p]
    return node


IC = int_or_string(crd_schema("dvpinstanceclass.yaml"))["properties"]["spec"]
DMT = MACHINE_TEMPLATE["properties"]["spec"]["properties"]["template"]["properties"]["spec"]
PAIRS = {  # DVPInstanceClass field -> the DeckhouseMachineTemplate field it becomes
    "memory": (("virtualMachine", "memory", "size"), ("memory",)),
    "rootDisk": (("rootDisk", "size"), ("rootDiskSize",)),
    "additionalDisk": (("additionalDisks", "[]", "size"), ("additionalDisks", "[]", "size")),
    "className": (("virtualMachine", "virtualMachineClassName"), ("vmClassName",)),
    "coreFraction": (("virtualMachine", "cpu", "coreFraction"), ("cpu", "cpuFraction")),
}
VALUES = ["-12Gi", "50e9", "500m", "1.2.3Gi", "8Gi", "0.5Gi", "+1Ti", "1k", 8589934592, -1, "", "8Gi\n", " 8Gi",
          "Generic_Class", "generic", "host-passthrough", "a.b", "-a", "50%", "100%", "0%", "101%"]


@pytest.mark.parametrize("pair", list(PAIRS))
def test_instance_class_admits_exactly_what_the_machine_template_admits(pair):
    # Otherwise the error appears only when node-manager creates the template, long after the class was accepted.
    ic_path, dmt_path = PAIRS[pair]
    ic, dmt = _field(IC, *ic_path), _field(DMT, *dmt_path)
    for value in VALUES:
        admitted = [re2schema.Draft4(s).is_valid(value) for s in (ic, dmt)]
        assert admitted[0] == admitted[1], f"{pair} {value!r}: DVPInstanceClass {admitted[0]}, template {admitted[1]}"


def test_instance_class_takes_at_most_the_disks_a_machine_takes():
    assert _field(IC, "additionalDisks")["maxItems"] == _field(DMT, "additionalDisks")["maxItems"] == 14
