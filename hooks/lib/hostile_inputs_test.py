# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""Every hook over hostile inputs in the shapes its bindings deliver (lib/testing/hostile.py): each run succeeds with
output addon-operator can read, or fails with one line naming the object and field, writing nothing; no run
carries the planted token. Most examples run the hook's main in-process (hook.testrun plus lib/hookrun's
failure handling); a few run the hook file as shell-operator does, to prove the same at the process level."""

import copy
import datetime
import importlib
import os

import pytest
import yaml
from hypothesis import HealthCheck, event, example, given, settings
from hypothesis import strategies as st

from lib import testing as t
from lib import tls
from lib.testing import hostile as h
from lib.testing import migration_fixtures as mf

HOOKS = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# HOSTILE_EXAMPLES=1000 hunts deeper; the default keeps the whole file well under a minute.
IN_PROCESS = settings(max_examples=int(os.environ.get("HOSTILE_EXAMPLES", "40")), derandomize=True,
                      deadline=None, database=None,
                      suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
AS_PROCESS = settings(max_examples=4, derandomize=True, deadline=None, database=None,
                      suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])

PCC = copy.deepcopy(mf.PCC)
PCC["provider"]["kubeconfigDataBase64"] = h.b64(h.yaml_text(h.KUBECONFIG))
DISCOVERY = {"apiVersion": "deckhouse.io/v1", "kind": "DVPCloudDiscoveryData", "zones": ["default"],
             "storageClasses": [{"name": "replicated", "isDefault": True, "reclaimPolicy": "Delete"},
                                {"name": "Local SSD", "isEnabled": False}]}
VALUES = {
    "global": {"discovery": {"clusterDomain": "cluster.local", "clusterUUID": "3b5058e1"},
               "clusterConfiguration": {"cloud": {"prefix": "dev"}}},
    "cloudProviderDvp": {
        "provider": {"parameters": {"namespace": "tenant", "networkPolicy": "Isolated"}},
        "nodes": {"parameters": {"ingressPorts": [22, 443]}},
        "storage": {"parameters": {"excludedStorageClasses": ["local-.*"]}},
        "internal": {"providerDiscoveryData": DISCOVERY,
                     "credentialSecrets": {"d8-credentials": {"authScheme": "kubeconfig",
                                                              "secret": PCC["provider"]["kubeconfigDataBase64"]}},
                     "migration": {"pending": True, "projected": ["provider.parameters.namespace"]}},
    },
}
# Paths a hook reads that the realistic values may lack: mutations put anything there too.
VALUE_PATHS = [("global", "defaultClusterStorageClass"), ("cloudProviderDvp", "internal", "storageClasses"),
               ("cloudProviderDvp", "internal", "validationWebhookCert"),
               ("cloudProviderDvp", "internal", "capdvpControllerManagerWebhookCert"),
               ("cloudProviderDvp", "internal", "snapshotWebhookCert"),
               ("cloudProviderDvp", "internal", "migration", "fingerprint")]

pcc_data = h.b64_of(h.mutated(PCC), h.RAW_YAML, h.yaml_text)
discovery_data = h.b64_of(h.mutated(DISCOVERY), h.RAW_JSON, h.json_dump)
legacy = dict(config=pcc_data, discovery=discovery_data)
maybe = st.one_of  # shorthand: the realistic value or anything
CREDENTIALS_TYPE = "cloud-provider.deckhouse.io/credentials"


def _pem_bundle():
    spec = importlib.import_module("validation_webhook_certificate").CERT
    bundle = tls.issue(spec, spec.names("cluster.local"), datetime.datetime.now(datetime.UTC))
    return {k: h.b64(x) for k, x in bundle.items()}


PEM = _pem_bundle()
SHIPPED = importlib.import_module("ensure_crds").SHIPPED

tls_secret = {"tls_secret": {k: maybe(st.just(PEM[k]), st.text(max_size=10).map(h.b64), h.anything,
                                                 st.just(h.b64("-----BEGIN CERTIFICATE-----\nAAAA\n")))
                              for k in ("crt", "key", "ca")}}
state = {
    "legacy_cluster_configuration": legacy,
    "module_config": dict(version=maybe(st.just(2), h.anything), enabled=maybe(st.booleans(), h.anything),
                              hasProvider=maybe(st.booleans(), h.anything),
                              kubeconfig=maybe(st.none(), h.kubeconfig_b64())),
    "credentials_secret": dict(name=maybe(st.just("d8-credentials"), h.names),
                                   type=maybe(st.just(CREDENTIALS_TYPE), h.anything)),
    "node_groups": dict(name=maybe(st.sampled_from(["master", "front"]), h.names),
                            classKind=maybe(st.just("DVPInstanceClass"), h.anything),
                            className=maybe(st.sampled_from([mf.migration.instance_class_name("master")]),
                                            h.anything)),
    "instance_classes": dict(name=maybe(st.just(mf.migration.instance_class_name("master")), h.names)),
}
credential_data = st.one_of(
    st.dictionaries(st.sampled_from(["authScheme", "secret", "identity"]), st.one_of(
        st.just(h.b64("kubeconfig")), h.kubeconfig_b64().map(lambda k: h.b64(k) if isinstance(k, str) else k),
        h.anything), max_size=3),
    h.anything)
# The snapshots of every hook, by binding: what its jqFilter gives (FILTER_KEYS says which keys).
SHAPES = {
    "capdvp_webhook_certificate": tls_secret,
    "validation_webhook_certificate": tls_secret,
    "snapshot_webhook_certificate": tls_secret,
    "cni_configuration": {"cni_configuration": dict(data=maybe(
        st.dictionaries(st.sampled_from(["cni", "cilium", "flannel", "on"]), maybe(
            st.sampled_from(["cilium", "flannel", '{"mode":"VXLAN"}']).map(h.b64), h.anything), max_size=3),
        h.anything))},
    "credentials": {
        "credentials": dict(name=maybe(st.just("d8-credentials"), h.names), type=maybe(
            st.just(CREDENTIALS_TYPE), h.anything), data=credential_data),
        "legacy_cluster_configuration": legacy,
        "module_config": dict(kubeconfig=maybe(st.none(), h.kubeconfig_b64())),
    },
    "disable_load_balancer": {"disable_lb_configmap": dict(name=h.names)},
    "discovery_data": {"discoverer": dict(data=discovery_data),
                       "bootstrap_discovery_data": dict(data=discovery_data, namespace=maybe(st.sampled_from(
                           ["d8-cloud-provider-dvp", "kube-system"]), h.anything)),
                       "legacy_cluster_configuration": legacy},
    "ensure_crds": {"crds": dict(name=maybe(st.sampled_from([c.name for c in SHIPPED]), h.names),
                                     checksum=maybe(st.sampled_from([c.checksum for c in SHIPPED]), h.anything))},
    "legacy_cluster_configuration": state,
    "migration_resources": state | {
        "bundle_secret": dict(data=maybe(st.just(h.b64("---\n")), h.anything), seal=h.anything),
        "marker_configmap": dict(name=h.names), "commander_uuid": dict(name=h.names),
        "commander_agent": dict(data=maybe(st.sampled_from([
            '{"flags": {"cloudProviderNoPCCInputFormatSupported": "1"}}', '{"flags": [1]}', "[" * 5000, "7"]),
            h.anything))},
    "storage_classes": {"storage_classes": dict(
        name=h.names, ours=maybe(st.just(True), h.anything), isDefault=maybe(st.booleans(), h.anything),
        dvpStorageClass=maybe(st.sampled_from(["replicated", "Local SSD"]), h.anything),
        volumeBindingMode=maybe(st.just("WaitForFirstConsumer"), h.anything),
        reclaimPolicy=maybe(st.just("Delete"), h.anything),
        allowVolumeExpansion=maybe(st.booleans(), h.anything))},
    "wait_master_nodes_initialized": {"master_nodes": dict(name=h.names, uninitialized=maybe(
        st.just(False), h.anything))},
    "network_policies": {},
}
HOOK_NAMES = sorted(SHAPES)


def _config(name: str) -> dict:
    return t.hook_config(importlib.import_module(name))


def _first_binding(name: str) -> str | None:
    return next((b["name"] for b in _config(name).get("kubernetes", [])), None)


def _contexts(name: str) -> list[str]:
    config = _config(name)
    if not config.get("kubernetes"):
        return ["Schedule"]
    stage = ["afterHelm"] if "afterHelm" in config else ["beforeHelm"]
    return ["Synchronization", "Event", "Group", *stage]


@st.composite
def cases(draw, name: str) -> h.Case:
    snaps = {b: draw(h.snapshot(h.result(**fields))) for b, fields in SHAPES[name].items()}
    values = draw(h.mutated(VALUES, VALUE_PATHS))
    values = values if isinstance(values, dict) else {}
    config_values = {"cloudProviderDvp": {k: x for k, x in (values.get("cloudProviderDvp") or {}).items()
                                          if k != "internal"}} if isinstance(values.get("cloudProviderDvp"),
                                                                             dict) else {}
    return h.Case(snaps, values, config_values, draw(st.sampled_from(_contexts(name))))


@pytest.fixture(autouse=True)
def _offline(monkeypatch):
    """The two hooks that talk to an API get none: their failure must be one line too."""
    import network_policies
    from dvp_common.kube import KubeError

    def reconcile(policies, target, sleep=None):
        raise KubeError("connection refused")

    monkeypatch.setattr(network_policies, "reconcile", reconcile)
    monkeypatch.setenv("KUBECONFIG", os.path.join(HOOKS, "no-such-kubeconfig"))
    monkeypatch.delenv("KUBERNETES_SERVICE_HOST", raising=False)


def _case(snapshots=None, values=None, context="Synchronization", config_values=None) -> h.Case:
    return h.Case({b: [{"filterResult": x} for x in items] for b, items in (snapshots or {}).items()},
                  VALUES if values is None else values, config_values or {}, context)


def _with(path: str, value) -> dict:
    values = copy.deepcopy(VALUES)
    *parents, leaf = path.split(".")
    node = values
    for p in parents:
        node = node.setdefault(p, {})
    node[leaf] = value
    return values


def _check(name: str, case: h.Case) -> None:
    outcome = h.run_in_process(importlib.import_module(name), case, _first_binding(name))
    h.judge(outcome)
    event("succeeded" if outcome.ok else "failed: " + ": ".join(outcome.message.split(": ")[:3])[:80])


# Regression examples: each input below gave a traceback (or hung) before the fix next to its comment.
@pytest.mark.parametrize("name", ["capdvp_webhook_certificate", "validation_webhook_certificate",
                                  "snapshot_webhook_certificate"])
@IN_PROCESS
@given(data=st.data())
@example(data=None)
def test_certificate_hooks(name, data):
    if data is None:  # tls.from_secret: a list in tls.crt; tls.ensure: a list in values; a unicode cluster domain
        for case in (_case({"tls_secret": [{"crt": ["a"], "key": None, "ca": 7}]}),
                     _case(values=_with("cloudProviderDvp.internal." + importlib.import_module(name).CERT.value,
                                        [1])),
                     _case(values=_with("global.discovery.clusterDomain", "\u0442\u0435\u0441\u0442"))):
            _check(name, case)
        return
    _check(name, data.draw(cases(name)))


@IN_PROCESS
@given(case=cases("cni_configuration"))
@example(case=_case({"cni_configuration": [{"data": "a string"}]}))  # passthrough: .get on a string
@example(case=_case({"cni_configuration": [{"data": {"cni": {"a": 1}}}]}))  # a mapping written into the template
@example(case=_case({"cni_configuration": [{"data": {"cni": 10 ** 12}}]}))  # base64 decoding: bytes(10**12)
def test_cni_configuration(case):
    _check("cni_configuration", case)


@IN_PROCESS
@given(case=cases("credentials"))
@example(case=_case(values=_with("cloudProviderDvp.internal.credentialSecrets", ["d8-credentials"])))  # .values()
def test_credentials(case):
    _check("credentials", case)


@IN_PROCESS
@given(case=cases("disable_load_balancer"))
def test_disable_load_balancer(case):
    _check("disable_load_balancer", case)


@IN_PROCESS
@given(case=cases("discovery_data"))
@example(case=_case({"discoverer": [{"data": h.b64("[" * 100_000)}]}))  # json.loads: RecursionError
@example(case=_case({"discoverer": [{"data": h.b64('{"zones": ["a"], "x": ' + "9" * 5000 + "}")}]}))  # int digits
@example(case=_case({"discoverer": [{"data": h.b64('{"zones": [1e400]}')}]}))  # inf written as Infinity
@example(case=_case({"discoverer": [{"data": h.b64('{"zones": ["\\ud800"]}')}]}))  # a lone surrogate in RE2
def test_discovery_data(case):
    _check("discovery_data", case)


@IN_PROCESS
@given(case=cases("ensure_crds"))
@example(case=_case({"crds": [{"name": ["x"], "checksum": 1}]}))  # an unhashable name as a mapping key
def test_ensure_crds(case):
    _check("ensure_crds", case)


ALIAS_BOMB = "a: &a [x,x,x,x,x,x,x,x,x]\n" + "".join(
    f"{c}: &{c} [{', '.join(['*' + p] * 9)}]\n" for p, c in zip("abcdefgh", "bcdefghi", strict=True))
LEGACY_REGRESSIONS = [
    # schema.load(version) is cached: a list apiVersion was an unhashable cache key
    {"legacy_cluster_configuration": [{"config": h.b64("apiVersion: [1]\n"), "discovery": None}]},
    # a string ModuleConfig version compared with 2
    {"legacy_cluster_configuration": [{"config": h.b64(h.yaml_text(PCC)), "discovery": None}],
     "module_config": [{"version": "2", "enabled": True, "hasProvider": True, "kubeconfig": None}]},
    # an unhashable className looked up in a set
    {"legacy_cluster_configuration": [{"config": h.b64(h.yaml_text(PCC)), "discovery": None}],
     "module_config": [{"version": 2, "enabled": True, "hasProvider": True, "kubeconfig": None}],
     "credentials_secret": [{"name": "d8-credentials", "type": CREDENTIALS_TYPE}],
     "node_groups": [{"name": "master", "classKind": "DVPInstanceClass", "className": ["x"]}]},
    # YAML timestamps (not JSON) reached the values; .inf; non-string keys sorted with strings
    {"legacy_cluster_configuration": [{"config": h.b64(h.yaml_text(PCC) + "x: 2001-12-14\n"), "discovery": None}]},
    {"legacy_cluster_configuration": [{"config": h.b64(h.yaml_text(PCC).replace(
        "sshPublicKey: ssh-ed25519 AAAA admin", "sshPublicKey: .inf")), "discovery": None}]},
    {"legacy_cluster_configuration": [{"config": h.b64(h.yaml_text(PCC) + "1: x\n"), "discovery": None}]},
    # aliases expanding to 387 million nodes: the schema walk never ended
    {"legacy_cluster_configuration": [{"config": h.b64(ALIAS_BOMB), "discovery": None}]},
    # a v1 ModuleConfig kubeconfig that is a mapping went into the bundle
    {"module_config": [{"version": 1, "enabled": True, "hasProvider": True, "kubeconfig": {"a": 1}}]},
]


@IN_PROCESS
@given(case=cases("legacy_cluster_configuration"))
@example(case=None)
def test_legacy_cluster_configuration(case):
    for c in [_case(s, context="beforeHelm") for s in LEGACY_REGRESSIONS] if case is None else [case]:
        _check("legacy_cluster_configuration", c)


@IN_PROCESS
@given(case=cases("migration_resources"))
@example(case=None)
def test_migration_resources(case):
    regressions = [_case(s, context="afterHelm") for s in LEGACY_REGRESSIONS] + [
        # commander-info flags that are a list, data that is not text
        _case({"commander_uuid": [{"name": "d8-commander-uuid"}], "commander_agent": [{"data": '{"flags": [1]}'}],
               "module_config": [{"version": 1, "kubeconfig": "abc"}]}, context="afterHelm"),
        _case({"commander_uuid": [{"name": "d8-commander-uuid"}], "commander_agent": [{"data": {"flags": 1}}],
               "module_config": [{"version": 1, "kubeconfig": "abc"}]}, context="afterHelm")]
    for c in regressions if case is None else [case]:
        _check("migration_resources", c)


@IN_PROCESS
@given(case=cases("network_policies"))
@example(case=_case(values=_with("cloudProviderDvp.nodes.parameters.ingressPorts", 5), context="Schedule"))
@example(case=_case(values=_with("cloudProviderDvp.nodes.parameters.ingressPorts", 10 ** 12), context="Schedule"))
@example(case=_case(values=_with("cloudProviderDvp.internal.credentialSecrets", {"d8-credentials": {
    "secret": "not base64 \u00e9"}}), context="Schedule"))  # base64 decoding raised a ValueError
@example(case=_case(values=_with("cloudProviderDvp.provider.parameters.namespace", "a\nb"), context="Schedule"))
def test_network_policies(case):
    _check("network_policies", case)


@IN_PROCESS
@given(case=cases("storage_classes"))
@example(case=_case({"storage_classes": [{"name": "a", "ours": True, "dvpStorageClass": ["x"]}]},
                    _with("cloudProviderDvp.storage.parameters.excludedStorageClasses", ["a"])))  # RE2 on a list
@example(case=_case(values=_with("cloudProviderDvp.storage.parameters.excludedStorageClasses", [["a"]])))  # cache
@example(case=_case(values=_with("global.defaultClusterStorageClass", ["x"])))  # a list as a metric label
@example(case=_case({"storage_classes": [
    {"name": f"sc-{i}", "ours": True, "isDefault": i == 0, "dvpStorageClass": f"sc-{i}", "reclaimPolicy": "Delete",
     "volumeBindingMode": "WaitForFirstConsumer", "allowVolumeExpansion": True} for i in range(2000)]}))
def test_storage_classes(case):
    _check("storage_classes", case)


@IN_PROCESS
@given(case=cases("wait_master_nodes_initialized"))
@example(case=_case({"master_nodes": [{"name": "m-0", "uninitialized": True}]}, context="afterHelm"))  # no API
@example(case=_case({"master_nodes": [{"name": 1, "uninitialized": True}, {"name": "a", "uninitialized": True}]},
                    context="afterHelm"))  # names of mixed types sorted
def test_wait_master_nodes_initialized(case):
    _check("wait_master_nodes_initialized", case)


@pytest.mark.parametrize("name", HOOK_NAMES)
@AS_PROCESS
@given(data=st.data())
def test_hook_processes(name, data):
    """The same judgement of the hook file run as shell-operator runs it: exit 0, or exit 1 with exactly one
    stderr line and no output file written (a failure is never a partial values patch)."""
    case = data.draw(cases(name))
    env = {"KUBECONFIG": os.path.join(HOOKS, "no-such-kubeconfig")}
    if name == "network_policies":  # a DVP API that is not there: the run fails in one line within its bounds
        case.values = _with("cloudProviderDvp.provider.parameters.networkPolicy", "None") \
            if data.draw(st.booleans()) else case.values
    h.judge(h.run_as_process(os.path.join(HOOKS, f"{name}.py"), case, _first_binding(name), env))


def test_a_failed_run_says_only_its_reason():
    """A run that warned about a malformed extra Secret and then failed printed two stderr lines."""
    case = _case({"credentials": [{"name": "", "type": CREDENTIALS_TYPE, "data": {}}],
                  "module_config": [{"kubeconfig": h.b64("# just a comment\n")}]})
    outcome = h.run_as_process(os.path.join(HOOKS, "credentials.py"), case, "credentials")
    h.judge(outcome)
    assert outcome.message == ("invalid input: ModuleConfig cloud-provider-dvp: "
                               "spec.settings.provider.kubeconfigDataBase64: kubeconfig is not a mapping")


@pytest.mark.parametrize("name", [n for n in HOOK_NAMES if SHAPES[n]])
def test_the_shapes_are_the_filters_shapes(name):
    """Each drawn filterResult has exactly the keys the binding's jqFilter produces from any object."""
    config = _config(name)
    bindings = {b["name"]: b for b in config.get("kubernetes", [])}
    assert set(SHAPES[name]) == set(bindings)
    for binding, strategy in SHAPES[name].items():
        produced = t.jq(bindings[binding]["jqFilter"], {"metadata": {"name": "x"}, "data": {}})
        assert set(produced) == set(strategy), (binding, produced)


def test_a_yaml_document_reads_as_json_would():
    """The legacy configuration is read as Kubernetes reads YAML into JSON: timestamps stay text and keys are
    strings (the values addon-operator reads back must be JSON)."""
    from lib.snapshots import parse_yaml

    assert parse_yaml("a: 2001-12-14\n2: x\ntrue: y\nb: &x [1]\nc: *x\n", "o", "f") == {
        "a": "2001-12-14", "2": "x", "true": "y", "b": [1], "c": [1]}
    with pytest.raises(Exception, match=r"^o: f: is too large"):
        parse_yaml(ALIAS_BOMB, "o", "f")
    assert yaml.safe_load("a: 2001-12-14\n")["a"] != "2001-12-14"  # PyYAML alone would give a date
