# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""The review a security-minded platform team (and DMT) would do, over every case of the values matrix."""

from __future__ import annotations

import pytest
import yaml
from chart import matrix
from chart.render import ROOT

from testkit.harness.objects import containers, pod_spec, workloads

CASES = sorted(matrix.CASES)
PRIVILEGED_POD = ("DaemonSet", "csi-node")
NON_ROOT_IDS = {64535, 65534}
PRIORITY_CLASSES = {"system-node-critical", "system-cluster-critical", "cluster-critical", "cluster-medium",
                    "cluster-low", "production-high", "production-medium", "production-low", "staging", "develop",
                    "standby"}
PROBE_HANDLERS = {"exec", "httpGet", "tcpSocket", "grpc"}


def _key(o):
    return (o["kind"], o["metadata"]["name"])


@pytest.mark.parametrize("name", CASES)
def test_rbac_has_no_wildcards(rendered, name):
    for role in (o for o in rendered(name) if o["kind"] in ("Role", "ClusterRole")):
        for rule in role["rules"]:
            for field in ("apiGroups", "resources", "verbs"):
                assert "*" not in rule.get(field, []), f"{_key(role)} {field}"
                assert all("*" not in item for item in rule.get(field, [])), f"{_key(role)} {field}"
            assert rule["verbs"], _key(role)


@pytest.mark.parametrize("name", CASES)
def test_every_object_carries_the_module_labels(rendered, name):
    for o in rendered(name):
        labels = o["metadata"].get("labels", {})
        assert (labels.get("heritage"), labels.get("module")) == ("deckhouse", "cloud-provider-dvp"), _key(o)


@pytest.mark.parametrize("name", CASES)
def test_every_container_requests_cpu_memory_and_ephemeral_storage(rendered, name):
    for w in workloads(rendered(name)):
        for c in containers(w):
            requests = c.get("resources", {}).get("requests", {})
            assert set(requests) >= {"cpu", "memory", "ephemeral-storage"}, (_key(w), c["name"])
            assert requests["ephemeral-storage"].endswith("Mi"), (_key(w), c["name"])
            assert int(requests["ephemeral-storage"][:-2]) >= 50, (_key(w), c["name"])


@pytest.mark.parametrize("name", CASES)
def test_every_container_has_liveness_and_readiness_with_one_handler(rendered, name):
    for w in workloads(rendered(name)):
        for c in pod_spec(w)["containers"]:
            for probe in ("livenessProbe", "readinessProbe"):
                assert probe in c, (_key(w), c["name"], probe)
                assert len(PROBE_HANDLERS & set(c[probe])) == 1, (_key(w), c["name"], probe)
                port = c[probe].get("httpGet", {}).get("port")
                declared = {p["name"] for cc in pod_spec(w)["containers"] for p in cc.get("ports", [])}
                assert port in declared, (_key(w), c["name"], probe, port)


@pytest.mark.parametrize("name", CASES)
def test_pods_run_non_root_read_only_without_escalation_and_with_runtime_default_seccomp(rendered, name):
    for w in workloads(rendered(name)):
        spec = pod_spec(w)
        pod_sc = spec.get("securityContext", {})
        if _key(w) == PRIVILEGED_POD:
            continue
        assert pod_sc.get("runAsNonRoot") is True, _key(w)
        assert pod_sc.get("runAsUser") in NON_ROOT_IDS and pod_sc.get("runAsGroup") == pod_sc.get("runAsUser")
        for c in containers(w):
            sc = c.get("securityContext", {})
            where = (_key(w), c["name"])
            assert sc.get("readOnlyRootFilesystem") is True, where
            assert sc.get("allowPrivilegeEscalation") is False, where
            assert not sc.get("privileged"), where
            assert sc.get("capabilities", {}).get("drop") == ["ALL"], where
            seccomp = sc.get("seccompProfile") or pod_sc.get("seccompProfile")
            assert seccomp == {"type": "RuntimeDefault"}, where


def test_only_the_csi_node_driver_is_privileged(rendered):
    objects = rendered("defaults")
    privileged = [(_key(w), c["name"]) for w in workloads(objects) for c in containers(w)
                  if c.get("securityContext", {}).get("privileged")]
    assert privileged == [(PRIVILEGED_POD, "csi-driver")]
    node = next(w for w in workloads(objects) if _key(w) == PRIVILEGED_POD)
    driver = next(c for c in containers(node) if c["name"] == "csi-driver")
    assert driver["securityContext"] == {"privileged": True, "readOnlyRootFilesystem": True,
                                         "seccompProfile": {"type": "RuntimeDefault"}}
    mounts = {m["mountPath"]: m.get("mountPropagation") for m in driver["volumeMounts"]}
    assert mounts["/var/lib/kubelet"] == "Bidirectional"
    # The sidecars of the privileged pod stay unprivileged.
    for c in containers(node):
        if c["name"] != "csi-driver":
            assert c["securityContext"]["allowPrivilegeEscalation"] is False
            assert "mountPropagation" not in str(c.get("volumeMounts"))


@pytest.mark.parametrize("name", CASES)
def test_workload_hygiene(rendered, name):
    objects = rendered(name)
    for w in workloads(objects):
        spec = pod_spec(w)
        assert w["spec"]["revisionHistoryLimit"] <= 2, _key(w)
        assert spec["priorityClassName"] in PRIORITY_CLASSES, _key(w)
        names = [c["name"] for c in containers(w)]
        assert len(names) == len(set(names)), _key(w)
        for c in containers(w):
            env = [e["name"] for e in c.get("env", [])]
            assert len(env) == len(set(env)), (_key(w), c["name"])
            assert "@sha256:" in c["image"], (_key(w), c["name"])
            assert c.get("imagePullPolicy", "IfNotPresent") == "IfNotPresent"
            for port in c.get("ports", []):
                assert port["containerPort"] > 1024
                if spec.get("hostNetwork"):
                    assert 4200 <= port["containerPort"] <= 4299, (_key(w), c["name"], port)
        assert w["spec"]["selector"]["matchLabels"].items() <= w["spec"]["template"]["metadata"]["labels"].items()


@pytest.mark.parametrize("name", CASES)
def test_every_workload_has_a_vpa_covering_exactly_its_containers(rendered, name):
    objects = rendered(name)
    vpas = {o["spec"]["targetRef"]["name"]: o for o in objects if o["kind"] == "VerticalPodAutoscaler"}
    for w in workloads(objects):
        vpa = vpas.pop(w["metadata"]["name"])
        assert vpa["spec"]["targetRef"] == {"apiVersion": "apps/v1", "kind": w["kind"], "name": w["metadata"]["name"]}
        assert vpa["spec"]["updatePolicy"]["updateMode"] in ("Initial", "Recreate", "InPlaceOrRecreate")
        policies = vpa["spec"]["resourcePolicy"]["containerPolicies"]
        assert sorted(p["containerName"] for p in policies) == sorted(c["name"] for c in pod_spec(w)["containers"])
        for p in policies:
            assert _cpu(p["minAllowed"]["cpu"]) < _cpu(p["maxAllowed"]["cpu"]), (_key(w), p["containerName"])
            assert _mem(p["minAllowed"]["memory"]) < _mem(p["maxAllowed"]["memory"]), (_key(w), p["containerName"])
    assert vpas == {}, "VPAs without a workload"


@pytest.mark.parametrize("name", CASES)
def test_every_deployment_has_a_pdb_selecting_its_pods(rendered, name):
    objects = rendered(name)
    pdbs = [o for o in objects if o["kind"] == "PodDisruptionBudget"]
    for d in (o for o in objects if o["kind"] == "Deployment"):
        labels = d["spec"]["template"]["metadata"]["labels"]
        matching = [p for p in pdbs if p["metadata"]["namespace"] == d["metadata"]["namespace"]
                    and p["spec"]["selector"]["matchLabels"].items() <= labels.items()]
        assert len(matching) == 1, _key(d)
        assert not any(k.startswith("helm.sh/hook") for k in matching[0]["metadata"].get("annotations", {}))


@pytest.mark.parametrize("name", CASES)
def test_services_target_named_ports(rendered, name):
    for svc in (o for o in rendered(name) if o["kind"] == "Service"):
        for port in svc["spec"]["ports"]:
            assert isinstance(port["targetPort"], str), _key(svc)


def test_mount_points_list_exactly_the_mounts_of_the_pods_each_image_runs_in(rendered):
    """images/<dir>/mount-points.yaml declares every mount of every pod whose main image is built from <dir>
    (sidecars included: DMT wants each mount declared somewhere, and each declared dir really mounted)."""
    declared = {p.parent.name: set(yaml.safe_load(p.read_text()).get("dirs") or [])
                for p in (ROOT / "images").glob("*/mount-points.yaml")}
    used: dict[str, set[str]] = {}
    for name in CASES:
        for w in workloads(rendered(name)):
            image_dir = _image_dir(pod_spec(w)["containers"][0]["image"])
            mounts = used.setdefault(image_dir, set())
            for c in containers(w):
                mounts.update(m["mountPath"] for m in c.get("volumeMounts", [])
                              if m["mountPath"] not in ("/dev", "/sys", "/proc"))
    assert used == declared


_IMAGE_DIRS = {"cloudControllerManager": "cloud-controller-manager", "capdvpControllerManager":
               "capdvp-controller-manager", "cloudDataDiscoverer": "cloud-data-discoverer", "webhooks": "webhooks",
               "csiDriver": "csi-driver", "snapshotController": "snapshot-controller"}


def _image_dir(image: str) -> str:
    digests = matrix.case("defaults")["global"]["modulesImages"]["digests"]["cloudProviderDvp"]
    digest = image.rsplit("@", 1)[1]
    return _IMAGE_DIRS[next(k for k, v in digests.items() if v == digest)]


def _cpu(q: str) -> float:
    return float(q[:-1]) / 1000 if q.endswith("m") else float(q)


def _mem(q: str) -> float:
    units = {"Ki": 2**10, "Mi": 2**20, "Gi": 2**30}
    for suffix, factor in units.items():
        if q.endswith(suffix):
            return float(q[: -len(suffix)]) * factor
    return float(q)
