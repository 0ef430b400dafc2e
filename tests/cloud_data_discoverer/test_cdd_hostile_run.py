# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""A hostile-input run through the discoverer's parsing, as one round chains it (no API: the pure functions
discoverer.py calls): the installer's Secret, our last discovery Secret and its vanished-classes record, DVP
StorageClasses, VirtualMachineClasses, ResourceQuotas, VirtualDisks, VMs, attachments and guest PVs, all of any
shape, with a token planted everywhere. Each step must end in its result or in the one error it documents, in
bounded time; what would be published keeps to the schema, and the token reaches none of it.

Deterministic: derandomized, no example database."""

from __future__ import annotations

import base64
import datetime as dt
import json
import time
from pathlib import Path

import jsonschema
import yaml
from cloud_data_discoverer.domain import catalog, conditions, discovery, instance_types, orphans, shapes
from cloud_data_discoverer.guest import CLUSTER_CONFIGURATION_KEY, _key
from dvp_common.dvp import labels as L
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

ROOT = Path(__file__).resolve().parents[2]
# Not a name, label value, resource name, quantity or UID (':' is in none of them), so no rule may publish it.
TOKEN = "Tok3n:5d0c7e2a9b41f38e6a2d"  # noqa: S105 - planted; must never come back
NOW = dt.datetime(2026, 1, 1, tzinfo=dt.UTC)
BOUND = 2.0  # seconds for a whole chain of small objects: anything near it means a step walks too much

leaf = st.one_of(st.none(), st.booleans(), st.integers(-2**70, 2**70), st.floats(allow_nan=True),
                 st.text(max_size=12), st.sampled_from([
                     TOKEN, f"Bearer {TOKEN}", "fast", "Delete", "Retain", "true", "5Gi", "1e999", "-1", "50%",
                     "VirtualDisk", "csi.dvp.deckhouse.io", "uuid-1", "2025-01-01T00:00:00Z", "Standard"]))
json_value = st.recursive(leaf, lambda inner: st.lists(inner, max_size=4) | st.dictionaries(
    st.sampled_from(["name", "kind", "min", "max", "size", "hard", "used", "a", TOKEN]) | st.text(max_size=6),
    inner, max_size=4), max_leaves=16)
names = st.one_of(st.sampled_from(["fast", "slow", "a.b", "vm-1", "disk-1", TOKEN]), json_value)
string_maps = st.one_of(st.dictionaries(st.sampled_from([
    "storageclass.kubernetes.io/is-default-class", "cloud-provider.deckhouse.io/skip-storage-class",
    L.CLUSTER_UUID, L.COMPONENT, TOKEN]), st.sampled_from(["true", "uuid-1", "csi", TOKEN]), max_size=3), json_value)
meta = st.one_of(json_value, st.fixed_dictionaries({}, optional={
    "name": names, "uid": st.one_of(st.just("0a1b-2c"), json_value), "labels": string_maps,
    "annotations": string_maps, "creationTimestamp": st.one_of(st.just("2025-01-01T00:00:00Z"), json_value),
    "deletionTimestamp": json_value}))
quota_status = st.fixed_dictionaries({}, optional={
    "hard": st.one_of(st.dictionaries(st.sampled_from(["requests.storage", "count/vm", TOKEN]),
                                      st.sampled_from(["10Gi", "1", "0", TOKEN]) | json_value, max_size=3),
                      json_value),
    "used": st.one_of(st.dictionaries(st.sampled_from(["requests.storage", "count/vm", TOKEN]),
                                      st.sampled_from(["9Gi", "1", TOKEN]) | json_value, max_size=3), json_value)})
spec = st.one_of(json_value, st.fixed_dictionaries({}, optional={
    "persistentVolumeClaim": st.one_of(st.fixed_dictionaries({"size": st.sampled_from(["1Gi", TOKEN])}),
                                       json_value),
    "blockDeviceRef": st.one_of(st.fixed_dictionaries({"kind": st.just("VirtualDisk"), "name": names}), json_value),
    "blockDeviceRefs": st.lists(st.fixed_dictionaries({"kind": st.just("VirtualDisk"), "name": names}) | json_value,
                                max_size=3),
    "csi": st.one_of(st.fixed_dictionaries({"driver": st.just("csi.dvp.deckhouse.io"), "volumeHandle": names}),
                     json_value),
    "sizingPolicies": st.lists(st.fixed_dictionaries({}, optional={
        "cores": json_value, "memory": json_value, "coreFractions": json_value, "dedicatedCores": json_value}),
        max_size=3) | json_value}))
objects = st.lists(st.one_of(json_value, st.fixed_dictionaries({"metadata": meta}, optional={
    "spec": spec, "status": st.one_of(quota_status, json_value), "reclaimPolicy": json_value,
    "allowVolumeExpansion": json_value})), max_size=4)
documents = st.one_of(json_value, st.fixed_dictionaries({}, optional={
    "apiVersion": st.sampled_from(["deckhouse.io/v1", TOKEN]) | json_value,
    "kind": st.sampled_from(["DVPCloudDiscoveryData", TOKEN]) | json_value,
    "layout": st.sampled_from(["Standard", TOKEN]) | json_value, "zones": json_value,
    "storageClasses": st.lists(st.fixed_dictionaries({"name": names}, optional={
        "reclaimPolicy": json_value, "isDefault": json_value, "volumeBindingMode": json_value}) | json_value,
        max_size=4) | json_value, TOKEN: json_value}))
texts = st.one_of(st.none(), st.text(max_size=40), documents.map(json.dumps),
                  st.integers(1, 5000).map(lambda n: "[" * n + "]" * n), st.just('{"a":' * 3000 + "1" + "}" * 3000))
installer_secrets = st.one_of(json_value, st.fixed_dictionaries({"data": st.one_of(json_value, st.fixed_dictionaries(
    {CLUSTER_CONFIGURATION_KEY: st.one_of(
        texts.map(lambda t: base64.b64encode((t or "").encode()).decode()),
        st.binary(max_size=40).map(lambda b: base64.b64encode(b).decode()),
        st.sampled_from([TOKEN, "not base64!", ""]), json_value)}))}))


def schema() -> dict:
    doc = yaml.safe_load((ROOT / "candi/openapi/cloud_discovery_data.yaml").read_text())
    return doc["apiVersions"][0]["openAPISpec"]


SCHEMA = schema()
# node-manager's schema of the catalog, as the guest API of the tests serves it
CATALOG_SCHEMA = yaml.safe_load((ROOT / "testkit/harness/schemas/instancetypescatalog.yaml").read_text())[
    "spec"]["versions"][0]["schema"]["openAPIV3Schema"]


def _installer(secret) -> tuple[dict, list[str]]:
    """The round's starting data and the texts it would publish about it."""
    try:
        starting = discovery.parse(_key(secret, CLUSTER_CONFIGURATION_KEY))
    except discovery.InvalidDiscoveryData as exc:
        return {}, [str(exc)]
    starting, problems = discovery.sanitize(starting, shapes.INSTALLER_DATA, "installer")
    return starting, [p.ref + p.reason for p in problems]


@settings(derandomize=True, database=None, deadline=None, max_examples=200,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(installer=installer_secrets, last=texts, vanished=texts, storage=objects, vmcs=objects, quotas=objects,
       disks=objects, vms=objects, bdas=objects, pvs=objects, published_conditions=texts)
def test_any_input_ends_in_a_result_or_its_documented_error(installer, last, vanished, storage, vmcs, quotas,
                                                            disks, vms, bdas, pvs, published_conditions):
    start = time.monotonic()
    starting, said = _installer(installer)
    entries, skipped = shapes.judge(shapes.STORAGE_CLASS, "StorageClass", storage, discovery.storage_class_entry)
    present = {n for n in map(shapes.name_or_none, storage) if n}
    try:
        previous = discovery.parse(last)
    except discovery.InvalidDiscoveryData as exc:
        said.append(str(exc))
        previous = {}
    previous, problems = discovery.sanitize(previous, shapes.DISCOVERY_DATA, "last")
    skipped += problems
    data, record = discovery.expire(discovery.base(starting, previous), present, discovery.parse_vanished(vanished),
                                    NOW, 7 * 86400.0)
    published = discovery.render(discovery.merge(data, entries))
    jsonschema.validate(json.loads(published), SCHEMA)

    types, more = instance_types.catalog(vmcs)
    skipped += more
    built, left_out = catalog.build(types)
    published_types = catalog.instance_types(built)
    jsonschema.validate({"instanceTypes": published_types}, CATALOG_SCHEMA)
    quota, more = conditions.quota_conditions(quotas, 0.9)
    skipped += more
    rendered_conditions = conditions.render([conditions.reachability(None), *quota])
    assert conditions.parse(rendered_conditions) == json.loads(rendered_conditions)
    assert isinstance(conditions.parse(published_conditions), list)
    referenced, more = orphans.referenced_names(pvs, vms, bdas)
    skipped += more
    found, more = orphans.find_orphans(disks, referenced, "uuid-1", L.CLUSTER_UUID, L.COMPONENT, NOW, 0)
    skipped += more
    assert time.monotonic() - start < BOUND

    assert all(s.kind in shapes.KINDS for s in skipped)
    assert all(shapes.is_name(t.virtual_machine_class) for t in types)
    assert all(shapes.is_name(d.name) for d in found)
    outputs = [published, discovery.render(record), rendered_conditions, *said, repr(types), repr(found),
               *(s.ref + s.reason for s in skipped), *(c.label for c in quota), json.dumps(published_types),
               *(o.ref + o.reason for o in left_out)]
    assert not [text for text in outputs if TOKEN in text]
