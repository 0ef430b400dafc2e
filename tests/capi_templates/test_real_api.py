# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""The hooks' and capi/'s outputs against real kube-apiservers (testkit/harness): the credential a hook accepts
works for a client, and the objects node-manager and the admin would create from our templates and bundle are
accepted by the API server with our CRDs installed."""

import base64
import copy
import os
import sys

import yaml
from dvp_common.kube import KubeClient, Resource
from dvp_common.kube import config as kube_config
from dvp_common.kube.resources import NAMESPACE

from capi_templates.test_capi_templates import FULL, MINIMAL, render_v1, render_v2
from testkit.nodemanager import ROOT

sys.path.insert(0, os.path.join(ROOT, "hooks"))
import credentials as credentials_hook  # noqa: E402 - the hooks directory is a source root only for hooks
from deckhouse import hook as sdk  # noqa: E402
from lib import migration  # noqa: E402
from lib import testing as t  # noqa: E402
from lib.testing import migration_fixtures as f  # noqa: E402

INSTANCE_CLASS = Resource("deckhouse.io", "v1alpha1", "dvpinstanceclasses", "DVPInstanceClass", namespaced=False)
MACHINE_TEMPLATE = Resource("infrastructure.cluster.x-k8s.io", "v1alpha1", "deckhousemachinetemplates",
                            "DeckhouseMachineTemplate")
CLUSTER = Resource("infrastructure.cluster.x-k8s.io", "v1alpha1", "deckhouseclusters", "DeckhouseCluster")
SECRET = Resource("", "v1", "secrets", "Secret")


def test_a_service_account_kubeconfig_passes_the_credentials_hook_and_works(dvp_api):
    ns = dvp_api.create_namespace("creds")
    token = dvp_api.service_account_token(ns, "cluster-sa")
    kubeconfig = dvp_api.kubeconfig(ns, token=token)
    secret = t.secret("d8-cloud-provider-dvp", "d8-credentials",
                      {"authScheme": "kubeconfig", "secret": t.b64(kubeconfig)},
                      "cloud-provider.deckhouse.io/credentials")
    snaps = t.snapshots(credentials_hook, credentials=[secret])
    out = sdk.testrun(credentials_hook.main, binding_context=t.synchronization(credentials_hook, snaps),
                      config_values={}, initial_values={})
    value = out.values["cloudProviderDvp"]["internal"]["credentialSecrets"]["d8-credentials"]["secret"]
    assert base64.b64decode(value).decode() == kubeconfig
    client = KubeClient.from_credentials(kube_config.from_kubeconfig_base64(value))  # values hold base64
    try:
        assert client.get(NAMESPACE, ns)["metadata"]["name"] == ns
    finally:
        client.close()


def test_migration_bundle_objects_are_accepted(guest_api):
    client = guest_api.client()
    try:
        suffix = guest_api.create_namespace("ic").rsplit("-", 1)[-1]
        for doc in migration.bundle(f.PCC):
            if doc["kind"] == "DVPInstanceClass":
                doc = copy.deepcopy(doc)
                doc["metadata"]["name"] += f"-{suffix}"
                created = client.create(INSTANCE_CLASS, doc)
                assert created["spec"]["virtualMachine"]["cpu"]["cores"] == 4
                # Defaults of our CRD are applied by the server.
                assert created["spec"]["virtualMachine"]["bootloader"] == "EFI"
    finally:
        client.close()


def test_rendered_machine_templates_and_cluster_are_accepted(guest_api):
    ns = guest_api.create_namespace("capi")
    client = guest_api.client()
    try:
        for i, ic in enumerate((FULL, MINIMAL)):
            obj = render_v2(ic)
            obj["metadata"] = {"name": f"v2-{i}"}
            created = client.create(MACHINE_TEMPLATE, obj, ns)
            assert created["spec"]["template"]["spec"]["vmClassName"] == obj["spec"]["template"]["spec"]["vmClassName"]
            _, v1, cluster = render_v1("worker", ic)
            v1["metadata"]["namespace"] = ns
            client.create(MACHINE_TEMPLATE, v1, ns)
        cluster["metadata"]["namespace"] = ns
        client.create(CLUSTER, cluster, ns)
    finally:
        client.close()


def test_capi_secret_content_round_trips_through_the_api(guest_api):
    ns = guest_api.create_namespace("capisecret")
    data = {}
    for name in sorted(os.listdir(os.path.join(ROOT, "capi"))):
        with open(os.path.join(ROOT, "capi", name), "rb") as fh:
            data[name] = base64.b64encode(fh.read()).decode()
    client = guest_api.client()
    try:
        client.create(SECRET, {"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "capi"}, "data": data}, ns)
        got = client.get(SECRET, "capi", ns)["data"]
        assert yaml.safe_load(base64.b64decode(got["template.yaml"]))["version"] == "v2"
    finally:
        client.close()


def _class(name, **changes):
    doc = {"apiVersion": "deckhouse.io/v1alpha1", "kind": "DVPInstanceClass", "metadata": {"name": name},
           "spec": copy.deepcopy(MINIMAL)}
    for path, value in changes.items():
        node = doc["spec"]
        *parents, leaf = path.split("__")
        for p in parents:
            node = node[p]
        node[leaf] = value
    return doc


def test_instance_class_refuses_what_a_machine_cannot_carry(guest_api):
    import pytest
    from dvp_common.kube import Invalid, NotFound

    client = guest_api.client()
    try:
        with pytest.raises(Invalid) as exc:
            client.create(INSTANCE_CLASS, _class("ic-vd", rootDisk__image={"kind": "VirtualDisk", "name": "boot"}))
        assert "spec.rootDisk.image.kind: Invalid value: kind: VirtualDisk cannot be a node image" in str(
            exc.value)
        with pytest.raises(Invalid) as exc:
            client.create(INSTANCE_CLASS, _class("ic-gpu", virtualMachine__gpus=[{"gpuClassName": "a100"}]))
        assert "spec.virtualMachine.gpus: Invalid value" in str(exc.value)
        assert "gpus: not supported by this module yet (DVP passes GPUs through VirtualMachine spec.gpus" in str(
            exc.value)
        for name in ("ic-vd", "ic-gpu"):
            with pytest.raises(NotFound):
                client.get(INSTANCE_CLASS, name)
        created = client.create(INSTANCE_CLASS, _class("ic-full", virtualMachine=copy.deepcopy(FULL["virtualMachine"])))
        assert created["spec"]["virtualMachine"]["tolerations"] == FULL["virtualMachine"]["tolerations"]
        assert created["spec"]["virtualMachine"]["nodeSelector"] == {"zone": "a"}
        client.delete(INSTANCE_CLASS, "ic-full")
    finally:
        client.close()


def test_instance_class_refuses_what_the_machine_template_refuses(guest_api):
    import pytest
    from dvp_common.kube import Invalid

    client = guest_api.client()
    try:
        disk = {"size": "1Gi", "storageClass": "s"}
        for i, (path, value, message) in enumerate([
            ("virtualMachine__memory__size", "-12Gi", "spec.virtualMachine.memory.size: Invalid value"),
            ("rootDisk__size", "50e9", "spec.rootDisk.size: Invalid value"),
            ("rootDisk__size", "500m", "spec.rootDisk.size: Invalid value"),
            ("virtualMachine__virtualMachineClassName", "Generic_Class",
             "spec.virtualMachine.virtualMachineClassName: Invalid value"),
            ("additionalDisks", [disk] * 15, "spec.additionalDisks: Too many"),
        ]):
            with pytest.raises(Invalid) as exc:
                client.create(INSTANCE_CLASS, _class(f"ic-bad-{i}", **{path: value}))
            assert message in str(exc.value)
        created = client.create(INSTANCE_CLASS, _class("ic-edge", rootDisk__size=53687091200,
                                                       additionalDisks=[disk] * 14))
        assert created["spec"]["rootDisk"]["size"] == 53687091200
        client.delete(INSTANCE_CLASS, "ic-edge")
    finally:
        client.close()
