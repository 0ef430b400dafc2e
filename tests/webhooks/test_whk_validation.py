# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""AdmissionReview tests of the validation webhook: credentials Secret, NodeGroup, DVPInstanceClass."""

from __future__ import annotations

import base64
import json

import pytest
from dvp_common.kube import Transient

from testkit.webhooks import FakeLookups, allowed, body, denied, run

SECRET_PATH = "/validate--v1-secret"  # noqa: S105 - a URL path
NG_PATH = "/validate-deckhouse-io-v1-nodegroup"
IC_PATH = "/validate-deckhouse-io-v1alpha1-dvpinstanceclass"
REF = 'Secret "d8-cloud-provider-dvp/d8-credentials"'
KUBECONFIG = """apiVersion: v1
kind: Config
current-context: dvp
clusters: [{name: dvp, cluster: {server: "https://dvp.example:6443"}}]
users: [{name: sa, user: {token: abc}}]
contexts: [{name: dvp, context: {cluster: dvp, user: sa, namespace: project}}]
"""
GOOD = base64.b64encode(KUBECONFIG.encode()).decode()


def b64(text: str) -> str:
    return base64.b64encode(text.encode()).decode()


def secret(type_: str = "cloud-provider.deckhouse.io/credentials", **data: str) -> dict:
    fields = {"authScheme": "kubeconfig", "secret": GOOD, **data}
    return {"apiVersion": "v1", "kind": "Secret", "type": type_,
            "metadata": {"name": "d8-credentials", "namespace": "d8-cloud-provider-dvp"},
            "data": {k: b64(v) for k, v in fields.items() if v is not None}}


def sec(op: str, obj: dict | None, old: dict | None = None) -> dict:
    return run(SECRET_PATH, body("Secret", op, obj, old, namespace="d8-cloud-provider-dvp"))


def test_credentials_valid_create_and_string_data():
    assert sec("CREATE", secret()) == allowed()
    obj = secret()
    obj["stringData"], obj["data"] = {"authScheme": "kubeconfig", "secret": GOOD}, {}
    assert sec("CREATE", obj) == allowed()


def test_other_secrets_pass_untouched():
    lookups = FakeLookups(fail=AssertionError("must not ask"))
    raw = body("Secret", "CREATE", secret(type_="Opaque", authScheme="x"), namespace="d8-cloud-provider-dvp")
    assert run(SECRET_PATH, raw, FakeLookups()) == allowed()
    assert lookups.asked == []


@pytest.mark.parametrize("fields,message", [
    ({"authScheme": "token"}, f"{REF}: data.authScheme: must be kubeconfig"),
    ({"authScheme": None}, f"{REF}: data.authScheme: must be kubeconfig"),
    ({"identity": "x"}, f"{REF}: data.identity: is not allowed with authScheme kubeconfig"),
    ({"identity": ""}, f"{REF}: data.identity: is not allowed with authScheme kubeconfig"),
    ({"secret": ""}, f"{REF}: data.secret: must not be empty"),
    ({"secret": None}, f"{REF}: data.secret: must not be empty"),
    ({"secret": "%%%"}, f"{REF}: data.secret: kubeconfig is not base64 of UTF-8 text"),
    ({"secret": b64("just: text")},
     f"{REF}: data.secret: kubeconfig: current-context: is not set and there is not exactly one context"),
    ({"secret": b64(KUBECONFIG.replace("{token: abc}", "{exec: {command: aws}}"))},
     f'{REF}: data.secret: kubeconfig: users[name="sa"].user.exec: exec plugins are not supported; use an inline '
     "token or client-certificate-data with client-key-data"),
])
def test_credentials_denied(fields, message):
    assert sec("CREATE", secret(**fields)) == denied(message)


def test_credentials_data_that_is_not_base64_is_named():
    obj = secret()
    obj["data"]["secret"] = "%%%"  # noqa: S105 - not a password: data the API server could not have encoded
    assert sec("CREATE", obj) == denied(f"{REF}: data.secret: is not valid base64 of UTF-8 text")


def test_credentials_several_problems_in_one_message():
    assert sec("CREATE", secret(authScheme="token", identity="x")) == denied(
        f"{REF}: data.authScheme: must be kubeconfig; {REF}: data.identity: is not allowed with authScheme "
        "kubeconfig")


def test_credentials_type_change_denied_both_ways():
    old = secret()
    assert sec("UPDATE", secret(type_="Opaque"), old) == denied(
        f"{REF}: type is immutable ('cloud-provider.deckhouse.io/credentials' -> 'Opaque')")
    assert sec("UPDATE", old, secret(type_="Opaque")) == denied(
        f"{REF}: type is immutable ('Opaque' -> 'cloud-provider.deckhouse.io/credentials')")


def test_credentials_pre_existing_problem_warns_new_one_denies():
    bad_old = secret(identity="x")
    labelled = secret(identity="x")
    labelled["metadata"]["labels"] = {"team": "a"}
    assert sec("UPDATE", labelled, bad_old) == allowed(
        f"{REF}: data.identity: is not allowed with authScheme kubeconfig (already so before this change)")
    assert sec("UPDATE", secret(identity="x", authScheme="x"), bad_old) == denied(
        f"{REF}: data.authScheme: must be kubeconfig",
        f"{REF}: data.identity: is not allowed with authScheme kubeconfig (already so before this change)")
    assert sec("UPDATE", secret(), bad_old) == allowed()  # the fix is welcome


def test_credentials_delete_warns():
    assert sec("DELETE", None, secret()) == allowed(
        f"{REF}: deleting the DVP credentials; the provider loses access to DVP until they are created again")


def as_user(raw: bytes, username: str) -> bytes:
    doc = json.loads(raw)
    doc["request"]["userInfo"] = {"username": username, "groups": ["system:serviceaccounts"]}
    return json.dumps(doc).encode()


DECKHOUSE = "system:serviceaccount:d8-system:deckhouse"


def test_credentials_pause_while_migrating_is_for_deckhouse_itself_only():
    raw = body("Secret", "CREATE", secret(authScheme="x"), namespace="d8-cloud-provider-dvp")
    assert run(SECRET_PATH, as_user(raw, DECKHOUSE), FakeLookups(migrating=True)) == allowed(
        "cloud-provider-dvp: validation is paused while the module configuration migrates")
    # anyone else is judged, migrating or not; Deckhouse too when nothing migrates
    for username, migrating in (("admin", True), ("system:serviceaccount:d8-system:other", True), (DECKHOUSE, False)):
        lookups = FakeLookups(migrating=migrating)
        assert run(SECRET_PATH, as_user(raw, username), lookups) == denied(
            f"{REF}: data.authScheme: must be kubeconfig")
    # a valid Secret is admitted without any lookup
    lookups = FakeLookups(fail=AssertionError("must not ask"))
    good = body("Secret", "CREATE", secret(), namespace="d8-cloud-provider-dvp")
    assert run(SECRET_PATH, as_user(good, DECKHOUSE), lookups) == allowed() and lookups.asked == []


def test_lookup_failure_denies_with_500():
    exc = Transient("etcd is busy", status=503, kind="ConfigMap", name="d8-module-is-migrating", verb="get")
    raw = body("Secret", "CREATE", secret(authScheme="x"), namespace="d8-cloud-provider-dvp")
    out = run(SECRET_PATH, as_user(raw, DECKHOUSE), FakeLookups(fail=exc))
    assert out == denied(f"{REF}: cannot check the request now: {exc}", code=500)


# NodeGroup ---------------------------------------------------------------------------------------------------
def ng(name: str, kind: str | None = "DVPInstanceClass", ic: str | None = "worker",
       node_type: str = "CloudEphemeral") -> dict:
    spec: dict = {"nodeType": node_type}
    if kind is not None:
        spec["cloudInstances"] = {"classReference": {"kind": kind, "name": ic}}
    return {"apiVersion": "deckhouse.io/v1", "kind": "NodeGroup", "metadata": {"name": name}, "spec": spec}


def ic(name: str, etcd: bool = False, consumers: list | None = None) -> dict:
    spec: dict = {"virtualMachine": {"cpu": {"cores": 2}, "memory": {"size": "4Gi"},
                                     "virtualMachineClassName": "generic"},
                  "rootDisk": {"size": "20Gi", "image": {"kind": "ClusterVirtualImage", "name": "ubuntu"}}}
    if etcd:
        spec["etcdDisk"] = {"size": "10Gi", "storageClass": "fast"}
    obj = {"apiVersion": "deckhouse.io/v1alpha1", "kind": "DVPInstanceClass", "metadata": {"name": name},
           "spec": spec}
    if consumers is not None:
        obj["status"] = {"nodeGroupConsumers": consumers}
    return obj


def ngr(op: str, obj: dict, old: dict | None = None, lookups: FakeLookups | None = None) -> dict:
    return run(NG_PATH, body("NodeGroup", op, obj, old), lookups or FakeLookups(instance_classes=[
        ic("worker"), ic("master-ic", etcd=True)]))


def test_node_group_allowed():
    assert ngr("CREATE", ng("w1")) == allowed()
    assert ngr("CREATE", ng("master", ic="master-ic", node_type="CloudPermanent")) == allowed()
    assert ngr("CREATE", ng("static", kind=None, node_type="Static")) == allowed()  # not ours
    assert ngr("CREATE", ng("other", kind="AWSInstanceClass", ic="x")) == allowed()  # not ours


def test_node_group_class_may_not_exist_yet():
    assert ngr("CREATE", ng("w2", ic="later")) == allowed(
        'NodeGroup.deckhouse.io "w2": DVPInstanceClass.deckhouse.io "later" does not exist yet; machines are '
        "created once it does")


@pytest.mark.parametrize("obj,message", [
    (ng("p", kind="AWSInstanceClass", ic="x", node_type="CloudPermanent"),
     'NodeGroup.deckhouse.io "p": spec.cloudInstances.classReference.kind must be DVPInstanceClass for a '
     "CloudPermanent group, got 'AWSInstanceClass'"),
    (ng("p", ic=""), 'NodeGroup.deckhouse.io "p": spec.cloudInstances.classReference.name is required'),
    (ng("master", ic="worker", node_type="CloudPermanent"),
     'NodeGroup.deckhouse.io "master": DVPInstanceClass.deckhouse.io "worker" is used by NodeGroup "master" and '
     "needs spec.etcdDisk (master_etcd_disk_required)"),
    (ng("w1", ic="master-ic"),
     'NodeGroup.deckhouse.io "w1": DVPInstanceClass.deckhouse.io "master-ic" has spec.etcdDisk but is used by '
     'NodeGroup w1; only "master" may have an etcd disk (etcd_disk_forbidden_for_non_master)'),
])
def test_node_group_denied(obj, message):
    assert ngr("CREATE", obj) == denied(message)


def test_node_group_pre_existing_etcd_problem_warns():
    old = ng("w1", ic="master-ic")
    new = ng("w1", ic="master-ic")
    new["spec"]["nodeTemplate"] = {"labels": {"a": "b"}}
    assert ngr("UPDATE", new, old) == allowed(
        'NodeGroup.deckhouse.io "w1": DVPInstanceClass.deckhouse.io "master-ic" has spec.etcdDisk but is used by '
        'NodeGroup w1; only "master" may have an etcd disk (etcd_disk_forbidden_for_non_master) (already so before '
        "this change)")
    assert ngr("UPDATE", ng("w1", ic="master-ic"), ng("w1", ic="worker"))["response"]["allowed"] is False


# DVPInstanceClass ----------------------------------------------------------------------------------------------
def icr(op: str, obj: dict | None, old: dict | None = None, groups: list | None = None) -> dict:
    return run(IC_PATH, body("DVPInstanceClass", op, obj, old), FakeLookups(node_groups=groups or []))


def test_instance_class_rules():
    groups = [ng("master", ic="cp", node_type="CloudPermanent"), ng("w1", ic="wk"), ng("w2", ic="wk")]
    assert icr("CREATE", ic("cp", etcd=True), groups=groups) == allowed()
    assert icr("CREATE", ic("wk"), groups=groups) == allowed()
    assert icr("CREATE", ic("unused", etcd=True), groups=groups) == allowed()
    assert icr("UPDATE", ic("cp"), ic("cp", etcd=True), groups=groups) == denied(
        'DVPInstanceClass.deckhouse.io "cp": DVPInstanceClass.deckhouse.io "cp" is used by NodeGroup "master" and '
        "needs spec.etcdDisk (master_etcd_disk_required)")
    assert icr("UPDATE", ic("wk", etcd=True), ic("wk"), groups=groups) == denied(
        'DVPInstanceClass.deckhouse.io "wk": DVPInstanceClass.deckhouse.io "wk" has spec.etcdDisk but is used by '
        'NodeGroup w1, w2; only "master" may have an etcd disk (etcd_disk_forbidden_for_non_master)')
    # consumers known only from status count too
    assert icr("UPDATE", ic("st", etcd=True, consumers=["w9"]), ic("st", consumers=["w9"]))["response"][
        "allowed"] is False
    # already bad, and the change does not fix it: warned
    assert icr("UPDATE", ic("wk", etcd=True), ic("wk", etcd=True), groups=groups)["response"] == {
        "uid": "705ab4f5-6393-11e8-b7cc-42010a800002", "allowed": True, "warnings": [
            'DVPInstanceClass.deckhouse.io "wk": DVPInstanceClass.deckhouse.io "wk" has spec.etcdDisk but is used '
            'by NodeGroup w1, w2; only "master" may have an etcd disk (etcd_disk_forbidden_for_non_master) '
            "(already so before this change)"]}


def test_instance_class_vm_metadata_dvp_refuses_is_denied():
    bad = ic("wk")
    bad["spec"]["virtualMachine"]["additionalLabels"] = {"vm.kubevirt.io/name": "x", "team": "t" * 64}
    bad["spec"]["virtualMachine"]["additionalAnnotations"] = {"kubevirt.io/x": ""}
    assert icr("CREATE", bad) == denied(
        'DVPInstanceClass.deckhouse.io "wk": spec.virtualMachine.additionalLabels: value '
        f"'{'t' * 64}' of 'team' is not a label value (at most 63 of [A-Za-z0-9-_.], alphanumeric ends); "
        'DVPInstanceClass.deckhouse.io "wk": spec.virtualMachine.additionalLabels: key \'vm.kubevirt.io/name\' '
        "contains kubevirt.io, which DVP reserves; "
        'DVPInstanceClass.deckhouse.io "wk": spec.virtualMachine.additionalAnnotations: key \'kubevirt.io/x\' '
        "contains kubevirt.io, which DVP reserves")


def test_instance_class_delete_in_use():
    groups = [ng("w1", ic="wk"), ng("w2", ic="wk")]
    assert icr("DELETE", None, ic("wk"), groups=groups) == denied(
        'DVPInstanceClass.deckhouse.io "wk": used by NodeGroup w1, w2; move those groups to another class first '
        "(instance_class_in_use)")
    assert icr("DELETE", None, ic("st", consumers=["gone"])) == denied(
        'DVPInstanceClass.deckhouse.io "st": used by NodeGroup gone; move those groups to another class first '
        "(instance_class_in_use)")
    assert icr("DELETE", None, ic("free"), groups=groups) == allowed()
