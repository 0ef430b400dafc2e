# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0

import glob
import hashlib
import os

import ensure_crds as hook
import jsonschema
import kubernetes_validate
import pytest
import yaml
from deckhouse import hook as sdk
from lib import crds
from lib import testing as t

PATH = os.path.join(os.path.dirname(__file__), "ensure_crds.py")
NAMES = ["deckhouseclusters.infrastructure.cluster.x-k8s.io", "deckhousemachines.infrastructure.cluster.x-k8s.io",
         "deckhousemachinetemplates.infrastructure.cluster.x-k8s.io", "dvpinstanceclasses.deckhouse.io"]


def in_cluster(crd):
    out = crd.manifest()
    out["metadata"] |= {"uid": "u", "resourceVersion": "7", "generation": 1}
    out["status"] = {"acceptedNames": out["spec"]["names"]}
    return out


def run(objects, kind="sync"):
    snaps = t.snapshots(hook, crds=objects)
    bc = t.synchronization(hook, snaps) if kind == "sync" else t.event(hook, snaps, hook.SNAPSHOT, "Modified")
    return sdk.testrun(hook.main, binding_context=bc, config_values={}, initial_values={}), bc


@pytest.mark.parametrize("kind", ["sync", "event"])
def test_missing_crds_are_applied_then_left_alone(kind):
    # Every CRD file but the doc- twins, named as the file says (more may come; these four must be there).
    paths = sorted(p for p in glob.glob(os.path.join(t.ROOT, "crds", "*.yaml")) if "/doc-" not in p)
    files = [yaml.safe_load(t.read(p)) for p in paths]
    assert [c.name for c in hook.SHIPPED] == [f["metadata"]["name"] for f in files]
    assert set(NAMES) <= {c.name for c in hook.SHIPPED}
    out, bc = run([], kind)
    for f, c in zip(files, hook.SHIPPED, strict=True):
        f["metadata"].setdefault("annotations", {})[crds.CHECKSUM_ANNOTATION] = hashlib.sha256(
            t.read(c.path).encode()).hexdigest()[:16]
    assert out.kube_operations.data == [{"operation": "CreateOrUpdate", "object": f} for f in files]
    assert out.values_patches.data == [] and out.metrics.data == []
    t.assert_contract(hook, PATH, bc, {}, {}, out)
    again, _ = run([in_cluster(c) for c in hook.SHIPPED], kind)
    assert again.kube_operations.data == []


def test_only_a_changed_crd_is_written():
    old = [in_cluster(c) for c in hook.SHIPPED]
    i = [c.name for c in hook.SHIPPED].index("dvpinstanceclasses.deckhouse.io")
    old[i]["metadata"]["annotations"][crds.CHECKSUM_ANNOTATION] = "0000000000000000"
    out, _ = run(old)
    assert out.kube_operations.data == [{"operation": "CreateOrUpdate", "object": hook.SHIPPED[i].manifest()}]


def _crd(name):
    return next(c for c in hook.SHIPPED if c.name == name).manifest()


def test_every_applied_crd_is_a_valid_kubernetes_object():
    for crd in hook.SHIPPED:
        kubernetes_validate.validate(crd.manifest(), "1.33", strict=True)


def _paths(schema, prefix=""):
    out = set()
    for key, sub in (schema.get("properties") or {}).items():
        out.add(prefix + key)
        out |= _paths(sub, prefix + key + ".")
    if "items" in schema:
        out |= _paths(schema["items"], prefix + "[].")
    return out


def test_dvpinstanceclass_crd_is_structural_and_accepts_the_layout_schema_examples():
    crd = _crd("dvpinstanceclasses.deckhouse.io")
    root = crd["spec"]["versions"][0]["schema"]["openAPIV3Schema"]

    def structural(node, where):
        if "properties" in node or "items" in node or "additionalProperties" in node:
            assert node.get("type") in ("object", "array"), where
        assert "type" in node or node.get("x-kubernetes-int-or-string"), where
        for k, sub in (node.get("properties") or {}).items():
            structural(sub, f"{where}.{k}")
        if isinstance(node.get("items"), dict):
            structural(node["items"], where + "[]")

    structural(root, "")
    candi = yaml.safe_load(t.read("candi/openapi/instance_class.yaml"))
    layout_schema = candi["apiVersions"][0]["openAPISpec"]
    # The same fields on both sides: dhctl's schema declares even gpus, so that it refuses them as the CRD does.
    assert _paths(layout_schema) == _paths(root["properties"]["spec"])
    for example in layout_schema["x-examples"]:
        jsonschema.validate({"spec": example}, root)
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate({"spec": {"virtualMachine": {"cpu": {"cores": 0}, "memory": {"size": "1Gi"},
                                                         "virtualMachineClassName": "g"},
                                      "rootDisk": {"size": "1Gi", "image": {"kind": "VirtualImage", "name": "x"}}}},
                            root)


def test_dvpinstanceclass_russian_twin_describes_every_field_and_no_other():
    root = _crd("dvpinstanceclasses.deckhouse.io")["spec"]["versions"][0]["schema"]["openAPIV3Schema"]
    ru = yaml.safe_load(t.read("crds/doc-ru-dvpinstanceclass.yaml"))
    ru_root = ru["spec"]["versions"][0]["schema"]["openAPIV3Schema"]

    def described(node, prefix=""):
        out = {prefix} if node.get("description") else set()
        for k, sub in (node.get("properties") or {}).items():
            out |= described(sub, prefix + "." + k)
        if isinstance(node.get("items"), dict):
            out |= described(node["items"], prefix + "[]")
        return out

    assert described(ru_root) == described(root)


def test_steady_state_parses_no_crd():
    snaps = t.snapshots(hook, crds=[in_cluster(c) for c in hook.SHIPPED])
    assert t.fresh_run(hook, t.synchronization(hook, snaps), {}) == ([], [], [])
