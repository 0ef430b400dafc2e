# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""The real Kubernetes API of the harness: two separate clusters, auth, CRDs, RBAC mode, clean shutdown."""

from __future__ import annotations

import socket

import pytest
from dvp_common.dvp import resources as R
from dvp_common.kube import Forbidden, KubeClient, NotFound, Resource, Unauthorized
from dvp_common.kube.resources import CONFIG_MAP, CRD, STORAGE_CLASS

from testkit.harness import apiserver, processes
from testkit.harness.apiserver import ControlPlane, dvp_crd_files
from testkit.harness.processes import HarnessError

MACHINE_V1BETA2 = Resource("cluster.x-k8s.io", "v1beta2", "machines", "Machine")
SNAPSHOT = Resource("snapshot.storage.k8s.io", "v1", "volumesnapshots", "VolumeSnapshot")
DECKHOUSE_MACHINE = Resource("infrastructure.cluster.x-k8s.io", "v1alpha1", "deckhousemachines", "DeckhouseMachine")


def crd_names(api) -> set[str]:
    client = api.client()
    try:
        return {c["metadata"]["name"] for c in client.list(CRD).items}
    finally:
        client.close()


def test_dvp_serves_our_dvp_crds_and_nothing_of_the_guest(dvp_api):
    # DVP is itself a Deckhouse cluster: the CCM reads its ModuleConfig service-with-healthchecks.
    names = crd_names(dvp_api)
    assert {f"{p}.virtualization.deckhouse.io" for p in (
        "virtualmachines", "virtualdisks", "virtualmachineblockdeviceattachments", "virtualdisksnapshots",
        "virtualimages", "clustervirtualimages", "virtualmachineclasses", "virtualmachineoperations",
        "virtualmachineipaddresses", "virtualmachineipaddressleases")} | {
        "servicewithhealthchecks.network.deckhouse.io", "moduleconfigs.deckhouse.io"} == names


def test_guest_serves_cluster_api_v1beta2_snapshots_and_our_crds(guest_api):
    names = crd_names(guest_api)
    assert {"machines.cluster.x-k8s.io", "clusters.cluster.x-k8s.io", "machinesets.cluster.x-k8s.io",
            "machinedeployments.cluster.x-k8s.io", "volumesnapshots.snapshot.storage.k8s.io",
            "volumesnapshotclasses.snapshot.storage.k8s.io", "volumesnapshotcontents.snapshot.storage.k8s.io",
            "deckhousemachines.infrastructure.cluster.x-k8s.io", "dvpinstanceclasses.deckhouse.io"} <= names
    assert not any(n.endswith(".virtualization.deckhouse.io") for n in names)
    client = guest_api.client()
    try:
        ns = guest_api.create_namespace("h")
        assert client.list(MACHINE_V1BETA2, ns).items == []
        assert client.list(SNAPSHOT, ns).items == []
        assert client.list(DECKHOUSE_MACHINE, ns).items == []
    finally:
        client.close()


def test_cluster_scoped_objects_do_not_cross_between_dvp_and_guest(dvp_api, guest_api):
    dvp, guest = dvp_api.client(), guest_api.client()
    try:
        dvp.create(STORAGE_CLASS, {"metadata": {"name": "only-in-dvp"}, "provisioner": "x.example"})
        assert dvp.get(STORAGE_CLASS, "only-in-dvp")["provisioner"] == "x.example"
        with pytest.raises(NotFound):
            guest.get(STORAGE_CLASS, "only-in-dvp")
    finally:
        dvp.delete(STORAGE_CLASS, "only-in-dvp", missing_ok=True)
        dvp.close()
        guest.close()


def test_a_wrong_token_is_unauthorized(dvp_api):
    client = KubeClient.from_url(dvp_api.url, token="not-the-token", ca_data=dvp_api.ca_pem)  # noqa: S106
    try:
        with pytest.raises(Unauthorized):
            client.list(R.VIRTUAL_MACHINE, "default")
    finally:
        client.close()


def test_the_kubeconfig_text_carries_server_ca_token_and_namespace(dvp_api, kubeconfig_for):
    ns = dvp_api.create_namespace("kc")
    client = KubeClient.from_kubeconfig(kubeconfig_for(dvp_api, ns))
    try:
        assert client.namespace == ns
        assert client.list(R.VIRTUAL_DISK, ns).items == []
    finally:
        client.close()


def test_namespaces_are_unique(dvp_api):
    names = {dvp_api.create_namespace("u") for _ in range(3)}
    assert len(names) == 3 and all(n.startswith("u-") for n in names)


def test_rbac_mode_checks_service_account_tokens(rbac_api):
    rbac = Resource("rbac.authorization.k8s.io", "v1", "roles", "Role")
    binding = Resource("rbac.authorization.k8s.io", "v1", "rolebindings", "RoleBinding")
    ns = rbac_api.create_namespace("rbac")
    token = rbac_api.service_account_token(ns, "reader")
    admin, reader = rbac_api.client(), rbac_api.client(token=token)
    try:
        with pytest.raises(Forbidden):
            reader.list(R.VIRTUAL_DISK, ns)
        admin.create(rbac, {"metadata": {"name": "read-disks"}, "rules": [{
            "apiGroups": ["virtualization.deckhouse.io"], "resources": ["virtualdisks"], "verbs": ["get", "list"]}]},
                     ns)
        admin.create(binding, {"metadata": {"name": "reader"}, "roleRef": {
            "apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": "read-disks"},
            "subjects": [{"kind": "ServiceAccount", "name": "reader", "namespace": ns}]}, ns)
        assert reader.list(R.VIRTUAL_DISK, ns).items == []
        with pytest.raises(Forbidden):
            reader.list(R.VIRTUAL_MACHINE, ns)
    finally:
        admin.close()
        reader.close()


def test_a_missing_binary_fails_with_the_fix_and_starts_nothing(monkeypatch, tmp_path):
    monkeypatch.setattr(processes, "BIN_DIR", tmp_path)
    plane = ControlPlane(tmp_path / "work")
    with pytest.raises(HarnessError, match=r"etcd is not built \(.*/etcd missing\): run `make tools`"):
        plane.start({"dvp": ("AlwaysAllow", [])})
    assert plane.etcd is None and plane.servers == {}


def test_a_missing_controller_manager_fails_a_dvp_before_anything_starts(monkeypatch, tmp_path):
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for name in ("etcd", "kube-apiserver"):
        (bin_dir / name).symlink_to(processes.BIN_DIR / name)
    monkeypatch.setattr(processes, "BIN_DIR", bin_dir)
    plane = ControlPlane(tmp_path / "work")
    with pytest.raises(HarnessError, match=r"kube-controller-manager is not built .*: run `make tools`"):
        plane.start({"dvp": ("AlwaysAllow", dvp_crd_files())})
    assert plane.etcd is None and plane.servers == {}


def test_only_a_dvp_gets_kubernetes_garbage_collector(control_plane, dvp_api):
    assert "dvp" in control_plane.collectors and "guest" not in control_plane.collectors
    collector = control_plane.collectors["dvp"]
    assert collector.alive()
    argv = collector.process.argv
    assert "--controllers=garbage-collector-controller" in argv and "--secure-port=0" in argv
    assert not any(a.startswith(("--service-account-private-key-file", "--root-ca-file")) for a in argv)
    client = dvp_api.client()
    try:  # its probe is gone: collected before the session got the server
        ns = dvp_api.create_namespace("gc")
        owner = client.create(CONFIG_MAP, {"metadata": {"name": "owner"}}, ns)
        client.create(CONFIG_MAP, {"metadata": {"name": "dependent", "ownerReferences": [{
            "apiVersion": "v1", "kind": "ConfigMap", "name": "owner", "uid": owner["metadata"]["uid"]}]}}, ns)
        client.delete(CONFIG_MAP, "owner", ns)
        assert client.wait_for(CONFIG_MAP, "dependent", lambda o: o is None, 30, ns) is None
        assert client.list(CONFIG_MAP, "default", field_selector="metadata.name=harness-gc-probe-dependent").items == []
    finally:
        client.close()


def test_an_unknown_authorization_mode_is_refused(control_plane):
    with pytest.raises(HarnessError, match="authorization must be one of"):
        control_plane.add_server("odd", "Webhook", [])


def test_stop_reaps_every_process_and_frees_the_ports(tmp_path):
    plane = ControlPlane(tmp_path / "plane").start({"solo": ("AlwaysAllow", dvp_crd_files())})
    procs = [plane.etcd.proc, plane.servers["solo"].process.proc, plane.collectors["solo"].process.proc]
    port = int(plane.servers["solo"].url.rsplit(":", 1)[1])
    assert plane.timings["solo.ready"] > 0 and plane.timings["solo.gc"] > 0
    plane.stop()
    assert all(p.returncode is not None for p in procs)
    with socket.socket() as sock:
        assert sock.connect_ex(("127.0.0.1", port)) != 0


def test_crd_files_must_hold_crds(tmp_path):
    bad = tmp_path / "x.yaml"
    bad.write_text("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n")
    with pytest.raises(HarnessError, match="expected CustomResourceDefinition documents, found 'ConfigMap'"):
        apiserver.crds.read([bad])
