# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""Our three CAPI CRDs: contract labels, subresources, one machine schema, defaults that match the code, doc-ru."""

from __future__ import annotations

import copy
import re
from pathlib import Path

import pytest
import yaml
from capdvp.domain.machine_spec import parse_spec

CRDS = Path(__file__).resolve().parents[2] / "crds"
CYRILLIC = "[\u0400-\u04ff]"
FILES = {"DeckhouseCluster": "deckhousecluster.yaml", "DeckhouseMachine": "deckhousemachine.yaml",
         "DeckhouseMachineTemplate": "deckhousemachinetemplate.yaml"}


def load(name: str) -> dict:
    return yaml.safe_load((CRDS / name).read_text())


def schema(kind: str) -> dict:
    (version,) = load(FILES[kind])["spec"]["versions"]
    return version["schema"]["openAPIV3Schema"]


@pytest.mark.parametrize("kind", FILES)
def test_contract_labels_and_shape(kind):
    crd = load(FILES[kind])
    assert crd["metadata"]["name"] == f"{kind.lower()}s.infrastructure.cluster.x-k8s.io"
    assert crd["metadata"]["labels"] == {
        "heritage": "deckhouse", "module": "cloud-provider-dvp", "cluster.x-k8s.io/provider": "infrastructure-dvp",
        "cluster.x-k8s.io/v1beta1": "v1alpha1", "cluster.x-k8s.io/v1beta2": "v1alpha1"}
    assert crd["spec"]["group"] == "infrastructure.cluster.x-k8s.io" and crd["spec"]["scope"] == "Namespaced"
    assert crd["spec"]["names"]["kind"] == kind
    (version,) = crd["spec"]["versions"]
    assert (version["name"], version["served"], version["storage"]) == ("v1alpha1", True, True)
    assert version["subresources"] == {"status": {}}


def test_template_holds_the_machine_spec_without_provider_id():
    machine = copy.deepcopy(schema("DeckhouseMachine")["properties"]["spec"])
    del machine["properties"]["providerID"]
    inner = copy.deepcopy(schema("DeckhouseMachineTemplate")["properties"]["spec"]["properties"]["template"][
        "properties"]["spec"])
    machine.pop("description"), inner.pop("description")
    assert inner == machine


def _defaults(node: dict) -> dict:
    out = {}
    for key, prop in (node.get("properties") or {}).items():
        if "default" in prop:
            out[key] = copy.deepcopy(prop["default"])
        if prop.get("type") == "object" and key in out:
            out[key] = {**out[key], **_defaults(prop)}
    return out


def test_schema_defaults_match_the_code_defaults():
    spec_schema = schema("DeckhouseMachine")["properties"]["spec"]
    defaults = _defaults(spec_schema)
    image_kind = spec_schema["properties"]["bootDiskImageRef"]["properties"]["kind"]["default"]
    by_schema = parse_spec({**defaults, "vmClassName": "generic", "rootDiskSize": "10Gi",
                            "bootDiskImageRef": {"kind": image_kind, "name": "img"}})
    by_code = parse_spec({"vmClassName": "generic", "rootDiskSize": "10Gi", "bootDiskImageRef": {"name": "img"}})
    assert by_schema == by_code
    assert defaults == {"cpu": {"cores": 4}, "memory": "8Gi", "bootloader": "EFI",
                        "runPolicy": "AlwaysOnUnlessStoppedManually"}


def _descriptions(node, path=()):
    if isinstance(node, dict):
        if isinstance(node.get("description"), str):
            yield path
        for key in ("properties", "items", "additionalProperties"):
            sub = node.get(key)
            if isinstance(sub, dict):
                if key == "properties":
                    for name, prop in sub.items():
                        yield from _descriptions(prop, (*path, name))
                else:
                    yield from _descriptions(sub, (*path, key))


@pytest.mark.parametrize("kind", FILES)
def test_doc_ru_twin_describes_every_field_in_russian(kind):
    ru = yaml.safe_load((CRDS / f"doc-ru-{FILES[kind]}").read_text())
    (version,) = ru["spec"]["versions"]
    ru_schema = version["schema"]["openAPIV3Schema"]
    assert set(_descriptions(ru_schema)) == set(_descriptions(schema(kind)))

    def texts(node):
        if isinstance(node, dict):
            for k, v in node.items():
                if k == "description":
                    yield v
                else:
                    yield from texts(v)
    assert all(re.search(CYRILLIC, t) for t in texts(ru_schema))


@pytest.mark.parametrize("name", sorted(FILES.values()))
def test_no_cyrillic_in_the_english_crds(name):
    assert not re.search(CYRILLIC, (CRDS / name).read_text())


# DVP's VirtualMachine enums (virtualization.deckhouse.io/v1alpha2): our CRDs admit exactly these.
DVP_LIVE_MIGRATION_POLICIES = ["AlwaysSafe", "PreferSafe", "AlwaysForced", "PreferForced"]


def test_live_migration_policy_enum_is_dvps_in_every_crd():
    machine = schema("DeckhouseMachine")["properties"]["spec"]["properties"]
    template = schema("DeckhouseMachineTemplate")["properties"]["spec"]["properties"]["template"]["properties"][
        "spec"]["properties"]
    (version,) = yaml.safe_load((CRDS / "dvpinstanceclass.yaml").read_text())["spec"]["versions"]
    instance_class = version["schema"]["openAPIV3Schema"]["properties"]["spec"]["properties"]["virtualMachine"][
        "properties"]
    for where in (machine, template):
        assert where["liveMigrationPolicy"]["enum"] == DVP_LIVE_MIGRATION_POLICIES
    # The class takes what Deckhouse's module's CRD lists, and its CEL rule refuses the two DVP does not take.
    assert instance_class["liveMigrationPolicy"]["enum"] == ["Manual", "Never", *DVP_LIVE_MIGRATION_POLICIES]
