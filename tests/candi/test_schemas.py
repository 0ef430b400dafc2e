# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""The candi schemas accept their examples and reject bad input with a message naming the field."""

import copy
from pathlib import Path

import jsonschema
import pytest
import yaml

OPENAPI = Path(__file__).resolve().parents[2] / "candi" / "openapi"
SCHEMAS = ["cluster_configuration.yaml", "instance_class.yaml", "cloud_discovery_data.yaml"]


def load_spec(name: str) -> tuple[str, dict]:
    doc = yaml.safe_load((OPENAPI / name).read_text())
    (version,) = doc["apiVersions"]
    return doc["kind"], version["openAPISpec"]


def field_path(error: jsonschema.ValidationError) -> str:
    parts = []
    for p in error.absolute_path:
        parts.append(f"[{p}]" if isinstance(p, int) else f".{p}")
    return "".join(parts).lstrip(".") or "<root>"


def validate(name: str, obj: dict) -> list[str]:
    """One line per error: '<Kind> <field path>: <reason>', in a stable order."""
    kind, spec = load_spec(name)
    errors = jsonschema.Draft7Validator(spec).iter_errors(obj)
    return sorted(f"{kind} {field_path(e)}: {e.message}" for e in errors)


@pytest.mark.parametrize("name", SCHEMAS)
def test_examples_validate(name):
    _, spec = load_spec(name)
    assert spec["x-examples"], f"{name} has no x-examples"
    for example in spec["x-examples"]:
        assert validate(name, example) == []


def cluster_example() -> dict:
    _, spec = load_spec("cluster_configuration.yaml")
    return copy.deepcopy(spec["x-examples"][0])


def setpath(obj, path, value):
    *head, last = path
    for key in head:
        obj = obj[key]
    if value is DELETE:
        del obj[last]
    else:
        obj[last] = value


DELETE = object()
VM = ["masterNodeGroup", "instanceClass", "virtualMachine"]
MVM = "masterNodeGroup.instanceClass.virtualMachine"

INVALID = [
    (VM + ["ipAddresses", 0], "10.66.10.256", f"{MVM}.ipAddresses[0]: '10.66.10.256'"),
    (VM + ["ipAddresses", 1], "10.66.10", f"{MVM}.ipAddresses[1]: '10.66.10'"),
    (VM + ["ipAddresses", 2], "010.1.1.1", f"{MVM}.ipAddresses[2]: '010.1.1.1'"),
    (VM + ["ipAddresses", 2], "auto", f"{MVM}.ipAddresses[2]: 'auto'"),
    (VM + ["cpu", "coreFraction"], "0%", f"{MVM}.cpu.coreFraction: '0%'"),
    (VM + ["cpu", "coreFraction"], "101%", f"{MVM}.cpu.coreFraction: '101%'"),
    (VM + ["cpu", "cores"], 0, f"{MVM}.cpu.cores: 0 is less than the minimum of 1"),
    (VM + ["memory", "size"], "8 GB", f"{MVM}.memory.size: '8 GB'"),
    (VM + ["bootloader"], "UEFI", f"{MVM}.bootloader: 'UEFI' is not one of"),
    (VM + ["virtualMachineClassName"], DELETE,
     "masterNodeGroup.instanceClass.virtualMachine: 'virtualMachineClassName' is a required property"),
    (["masterNodeGroup", "instanceClass", "etcdDisk"], DELETE,
     "masterNodeGroup.instanceClass: 'etcdDisk' is a required property"),
    (["masterNodeGroup", "replicas"], 0, "masterNodeGroup.replicas: 0 is less than the minimum of 1"),
    (["provider", "namespace"], DELETE, "provider: 'namespace' is a required property"),
    (["provider", "namespace"], "Demo_NS", "provider.namespace: 'Demo_NS' does not match"),
    (["provider", "kubeconfigDataBase64"], "not base64!",
     "provider.kubeconfigDataBase64: 'not base64!' does not match"),
    (["provider", "networkPolicy"], "Open", "provider.networkPolicy: 'Open' is not one of"),
    (["provider", "ingressPorts"], [22, 70000], "provider.ingressPorts[1]: 70000 is greater than the maximum of 65535"),
    (["layout", ], "WithNAT", "layout: 'WithNAT' is not one of ['Standard']"),
    (["sshPublicKey"], "AAAAC3Nza user@host", "sshPublicKey: 'AAAAC3Nza user@host' does not match"),
    (["zones"], ["zone-a", "zone-a"], "zones: ['zone-a', 'zone-a'] has non-unique elements"),
    (["nodeGroups", 0, "name"], "Worker", "nodeGroups[0].name: 'Worker' does not match"),
    (["nodeGroups", 0, "instanceClass", "rootDisk", "image", "kind"], "VirtualDisk",
     "nodeGroups[0].instanceClass.rootDisk.image.kind: 'VirtualDisk' is not one of"),
    (["nodeGroups", 0, "nodeTemplate", "taints"], [{"key": "k", "effect": "Never"}],
     "nodeGroups[0].nodeTemplate.taints[0].effect: 'Never' is not one of"),
    (["masterNodeGroup", "instanceClass", "virtualMachine", "cpus"], 4,
     "masterNodeGroup.instanceClass.virtualMachine: Additional properties are not allowed ('cpus' was unexpected)"),
]


@pytest.mark.parametrize(("path", "value", "expected"), INVALID, ids=[i[2].split(":")[0] for i in INVALID])
def test_invalid_cluster_configuration_is_rejected_naming_the_field(path, value, expected):
    obj = cluster_example()
    setpath(obj, path, value)
    errors = validate("cluster_configuration.yaml", obj)
    assert len(errors) == 1, errors
    assert errors[0].startswith(f"DVPClusterConfiguration {expected}"), errors[0]


@pytest.mark.parametrize("ip", ["0.0.0.0",  # noqa: S104 - an address value, not a bind
                                "255.255.255.255", "10.0.0.1", "192.168.100.254", "Auto"])
def test_valid_addresses_are_accepted(ip):
    obj = cluster_example()
    obj["masterNodeGroup"]["instanceClass"]["virtualMachine"]["ipAddresses"] = [ip]
    assert validate("cluster_configuration.yaml", obj) == []


def test_instance_class_rejects_etcd_disk_without_storage_class():
    _, spec = load_spec("instance_class.yaml")
    obj = copy.deepcopy(spec["x-examples"][0])
    del obj["etcdDisk"]["storageClass"]
    assert validate("instance_class.yaml", obj) == [
        "DVPInstanceClass etcdDisk: 'storageClass' is a required property"
    ]


def test_discovery_data_requires_a_zone():
    _, spec = load_spec("cloud_discovery_data.yaml")
    obj = copy.deepcopy(spec["x-examples"][0])
    obj["zones"] = []
    assert validate("cloud_discovery_data.yaml", obj) == ["DVPCloudDiscoveryData zones: [] should be non-empty"]


def description_paths(node, prefix=()):
    """Paths of every 'description' in a schema tree (YAML anchors already expanded)."""
    if isinstance(node, dict):
        for key, value in node.items():
            if key == "description":
                yield prefix
            elif key != "x-examples":
                yield from description_paths(value, (*prefix, key))


@pytest.mark.parametrize("name", SCHEMAS)
def test_russian_twin_mirrors_the_schema(name):
    en = yaml.safe_load((OPENAPI / name).read_text())
    ru = yaml.safe_load((OPENAPI / f"doc-ru-{name}").read_text())
    assert ru["kind"] == en["kind"]
    assert [v["apiVersion"] for v in ru["apiVersions"]] == [v["apiVersion"] for v in en["apiVersions"]]
    en_paths = set(description_paths(en))
    ru_paths = set(description_paths(ru))
    assert ru_paths - en_paths == set(), "doc-ru describes fields the schema does not have"
    # Every described object field (not enum leaves of a shared list) has its Russian text.
    missing = {p for p in en_paths - ru_paths if "tolerations" not in p or p[-1] == "tolerations"}
    assert missing == set(), sorted(missing)


def instance_class_example() -> dict:
    _, spec = load_spec("instance_class.yaml")
    return copy.deepcopy(spec["x-examples"][0])


# Deckhouse's module lists Manual and Never too (crds/instance_class.yaml@21af0b5e2fcf016a7e5e0528b72345dc290008e0,
# candi/openapi/cluster_configuration.yaml@96778f6a35592c7ce515f0377c28f34df942706e), but DVP's VirtualMachine CRD
# (crds/virtualmachines.yaml of deckhouse/virtualization v1.8.0) takes neither.
@pytest.mark.parametrize("policy", ["Manual", "Never"])
def test_instance_class_takes_only_dvps_live_migration_policies(policy):
    obj = instance_class_example()
    obj["virtualMachine"]["liveMigrationPolicy"] = policy
    assert validate("instance_class.yaml", obj) == [
        f"DVPInstanceClass virtualMachine.liveMigrationPolicy: '{policy}' is not one of "
        "['AlwaysSafe', 'PreferSafe', 'AlwaysForced', 'PreferForced']"]
    obj["virtualMachine"]["liveMigrationPolicy"] = "PreferSafe"
    assert validate("instance_class.yaml", obj) == []


def test_instance_class_node_selector_takes_a_label_map_or_upstreams_terms():
    # crds/instance_class.yaml@21af0b5e2fcf016a7e5e0528b72345dc290008e0: a core NodeSelector
    obj = instance_class_example()
    obj["virtualMachine"]["nodeSelector"] = {"nodeSelectorTerms": [
        {"matchExpressions": [{"key": "pool", "operator": "In", "values": ["a"]}]},
        {"matchFields": [{"key": "metadata.name", "operator": "In", "values": ["dvp-node-3"]}]}]}
    assert validate("instance_class.yaml", obj) == []
    obj["virtualMachine"]["nodeSelector"] = {"rack": "r1"}
    assert validate("instance_class.yaml", obj) == []
    obj["virtualMachine"]["nodeSelector"] = {"nodeSelectorTerms": [
        {"matchExpressions": [{"key": "pool", "operator": "Near"}]}]}
    assert validate("instance_class.yaml", obj) == [
        "DVPInstanceClass virtualMachine.nodeSelector.nodeSelectorTerms[0].matchExpressions[0].operator: 'Near' is "
        "not one of ['In', 'NotIn', 'Exists', 'DoesNotExist', 'Gt', 'Lt']"]


def test_instance_class_additional_disks_take_a_dns_label_name():
    obj = instance_class_example()
    obj["additionalDisks"] = [{"name": "logs", "size": "10Gi", "storageClass": "fast"},
                              {"size": "5Gi", "storageClass": "fast"}]
    assert validate("instance_class.yaml", obj) == []
    obj["additionalDisks"][0]["name"] = "Logs_1"
    assert validate("instance_class.yaml", obj) == [
        "DVPInstanceClass additionalDisks[0].name: 'Logs_1' does not match '^[a-z0-9]([-a-z0-9]*[a-z0-9])?$'"]
