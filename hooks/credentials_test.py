# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0

import os

import credentials as hook
import pytest
import yaml
from deckhouse import hook as sdk
from lib import testing as t
from lib.errors import InvalidInput

PATH = os.path.join(os.path.dirname(__file__), "credentials.py")
KUBECONFIG = yaml.safe_dump(
    {
        "apiVersion": "v1",
        "kind": "Config",
        "current-context": "dvp",
        "clusters": [
            {"name": "dvp", "cluster": {"server": "https://dvp.example:6443"}}
        ],
        "contexts": [{"name": "dvp", "context": {"cluster": "dvp", "user": "sa", "namespace": "tenant"}}],
        "users": [{"name": "sa", "user": {"token": "tok-en"}}],
    }
)
KUBECONFIG_B64 = t.b64(KUBECONFIG)
TYPE = "cloud-provider.deckhouse.io/credentials"


def creds(name="d8-credentials", **data):
    data = {"authScheme": "kubeconfig", "secret": KUBECONFIG_B64} | data
    return t.secret("d8-cloud-provider-dvp", name, {k: x for k, x in data.items() if x is not None}, TYPE)


def pcc(kubeconfig_b64=KUBECONFIG_B64):
    doc = {
        "apiVersion": "deckhouse.io/v1",
        "kind": "DVPClusterConfiguration",
        "provider": {"kubeconfigDataBase64": kubeconfig_b64, "namespace": "tenant"},
    }
    return t.secret(
        "kube-system",
        "d8-provider-cluster-configuration",
        {"cloud-provider-cluster-configuration.yaml": yaml.safe_dump(doc)},
    )


def run(snaps, values=None, ctx=t.synchronization):
    values = values if values is not None else {"cloudProviderDvp": {"internal": {}}}
    if ctx is t.group:
        bc = t.group(snaps)
    else:
        bc = ctx(hook, snaps) if ctx is t.synchronization else ctx(hook, snaps, hook.SNAPSHOT_CREDENTIALS)
    return sdk.testrun(hook.main, binding_context=bc, config_values={}, initial_values=values), bc, values


EXPECTED = {"d8-credentials": {"authScheme": "kubeconfig", "secret": KUBECONFIG_B64}}


def present(yes: bool) -> dict:
    return {"name": "d8_cloud_provider_dvp_credentials_missing", "group": "d8_cloud_provider_dvp_credentials",
            "action": "set", "value": 0 if yes else 1}


@pytest.mark.parametrize("ctx", [t.synchronization, t.event, t.group])
def test_secret_becomes_credential_secrets(ctx):
    out, bc, values = run(t.snapshots(hook, credentials=[creds()]), ctx=ctx)
    assert out.values_patches.data == [
        {"op": "add", "path": "/cloudProviderDvp/internal/credentialSecrets", "value": EXPECTED}
    ]
    assert out.kube_operations.data == [] and out.metrics.data == [present(True)]
    again = sdk.testrun(
        hook.main, binding_context=bc, config_values={}, initial_values=t.apply(values, out.values_patches.data)
    )
    assert again.values_patches.data == []
    t.assert_contract(hook, PATH, bc, values, {}, out)


def test_legacy_configuration_stands_in_until_the_secret_exists():
    out, _, _ = run(t.snapshots(hook, legacy_cluster_configuration=[pcc()]))
    assert out.values["cloudProviderDvp"]["internal"]["credentialSecrets"] == EXPECTED
    other = t.b64(KUBECONFIG.replace("tok-en", "other"))
    out, _, _ = run(t.snapshots(hook, credentials=[creds(secret=other)], legacy_cluster_configuration=[pcc()]))
    assert out.values["cloudProviderDvp"]["internal"]["credentialSecrets"]["d8-credentials"]["secret"] == other


def test_no_secret_gives_empty_map_and_removal_is_followed():
    start = {"cloudProviderDvp": {"internal": {"credentialSecrets": EXPECTED}}}
    out, bc, _ = run(t.snapshots(hook), values=start)
    assert out.values_patches.data == [
        {"op": "remove", "path": "/cloudProviderDvp/internal/credentialSecrets/d8-credentials"}
    ]
    # The components wait for credentials: the metric behind D8CloudProviderDVPCredentialsMissing says so.
    assert out.metrics.data == [present(False)]
    t.assert_contract(hook, PATH, bc, start, {}, out)
    out, _, _ = run(t.snapshots(hook, legacy_cluster_configuration=[pcc()]))
    assert out.metrics.data == [present(True)]


def kubeconfig_with(user):
    doc = yaml.safe_load(KUBECONFIG)
    doc["users"][0]["user"] = user
    return t.b64(yaml.safe_dump(doc))


OBJ = "Secret d8-cloud-provider-dvp/d8-credentials"
HINT = "use an inline token or client-certificate-data with client-key-data"
EXEC = 'kubeconfig: users[name="sa"].user.exec: exec plugins are not supported; ' + HINT
REJECTIONS = [
    ({"authScheme": "token"}, f"{OBJ}: data.authScheme: must be kubeconfig"),
    ({"authScheme": None}, f"{OBJ}: data.authScheme: must be kubeconfig"),
    ({"secret": ""}, f"{OBJ}: data.secret: must not be empty"),
    ({"identity": "someone"}, f"{OBJ}: data.identity: is not allowed with authScheme kubeconfig"),
    ({"identity": ""}, f"{OBJ}: data.identity: is not allowed with authScheme kubeconfig"),  # present is enough
    ({"secret": "not base64 !!"}, f"{OBJ}: data.secret: kubeconfig is not base64 of UTF-8 text"),
    ({"secret": t.b64("clusters: [unclosed")}, f"{OBJ}: data.secret: kubeconfig is not valid YAML (line 1)"),
    ({"secret": t.b64("just text")}, f"{OBJ}: data.secret: kubeconfig is not a mapping"),
    ({"secret": t.b64("clusters: []")},
     f"{OBJ}: data.secret: kubeconfig: current-context: is not set and there is not exactly one context"),
    (
        {"secret": kubeconfig_with({"exec": {"command": "aws"}})},
        f'{OBJ}: data.secret: kubeconfig: users[name="sa"].user.exec: exec plugins are not supported; {HINT}',
    ),
    (
        {"secret": kubeconfig_with({"auth-provider": {"name": "oidc"}})},
        f'{OBJ}: data.secret: kubeconfig: users[name="sa"].user.auth-provider: auth providers are not supported; '
        f"{HINT}",
    ),
    (
        {"secret": kubeconfig_with({"username": "u"})},
        f'{OBJ}: data.secret: kubeconfig: users[name="sa"].user.username: basic auth is not supported; {HINT}',
    ),
]


@pytest.mark.parametrize(("data", "message"), REJECTIONS)
def test_bad_credentials_are_rejected_in_one_line_without_the_secret(data, message):
    snaps = t.snapshots(hook, credentials=[creds(**data)])
    with pytest.raises(InvalidInput) as err:
        run(snaps)
    assert str(err.value) == message
    assert "tok-en" not in str(err.value)


def test_process_rejection_writes_nothing_and_prints_one_line():
    snaps = t.snapshots(hook, credentials=[creds(secret=kubeconfig_with({"exec": {"command": "x"}}))])
    t.assert_process_rejects(
        PATH,
        t.synchronization(hook, snaps),
        {"cloudProviderDvp": {"internal": {}}},
        {},
        f"{OBJ}: data.secret: {EXEC}",
    )


def test_legacy_kubeconfig_is_checked_too():
    snaps = t.snapshots(hook, legacy_cluster_configuration=[pcc(kubeconfig_with({"exec": {"command": "x"}}))])
    with pytest.raises(
        InvalidInput,
        match=r"^Secret kube-system/d8-provider-cluster-configuration: "
        r"data\[cloud-provider-cluster-configuration.yaml\].provider.kubeconfigDataBase64: kubeconfig: "
        r"users\[name=\"sa\"\].user.exec: exec plugins",
    ):
        run(snaps)


def test_steady_state_does_not_parse_the_kubeconfig_again():
    snaps = t.snapshots(hook, credentials=[creds()])
    values = {"cloudProviderDvp": {"internal": {"credentialSecrets": EXPECTED}}}
    assert t.fresh_run(hook, t.synchronization(hook, snaps), values) == ([], [], [])
    # A changed kubeconfig is parsed and checked.
    bad = t.snapshots(hook, credentials=[creds(secret=kubeconfig_with({"exec": {"command": "x"}}))])
    with pytest.raises(InvalidInput):
        sdk.testrun(hook.main, binding_context=t.synchronization(hook, bad), config_values={}, initial_values=values)


def module_config_v1(kubeconfig_b64):
    return {"apiVersion": "deckhouse.io/v1alpha1", "kind": "ModuleConfig", "metadata": {"name": "cloud-provider-dvp"},
            "spec": {"version": 1, "settings": {"provider": {"kubeconfigDataBase64": kubeconfig_b64,
                                                             "namespace": "tenant"}}}}


def test_v1_module_config_kubeconfig_stands_in_last():
    out, bc, values = run(t.snapshots(hook, module_config=[module_config_v1(KUBECONFIG_B64)]))
    assert out.values_patches.data == [
        {"op": "add", "path": "/cloudProviderDvp/internal/credentialSecrets", "value": EXPECTED}]
    t.assert_contract(hook, PATH, bc, values, {}, out)
    other = t.b64(KUBECONFIG.replace("tok-en", "other"))
    out, _, _ = run(t.snapshots(hook, module_config=[module_config_v1(other)], legacy_cluster_configuration=[pcc()]))
    assert out.values["cloudProviderDvp"]["internal"]["credentialSecrets"] == EXPECTED
    with pytest.raises(InvalidInput) as err:
        run(t.snapshots(hook, module_config=[module_config_v1(kubeconfig_with({"exec": {"command": "x"}}))]))
    assert str(err.value) == f"ModuleConfig cloud-provider-dvp: spec.settings.provider.kubeconfigDataBase64: {EXEC}"


@pytest.mark.parametrize("provider", ["a string", ["a", "list"], 5])
def test_a_legacy_provider_that_is_not_a_mapping_is_named(provider):
    doc = {"apiVersion": "deckhouse.io/v1", "kind": "DVPClusterConfiguration", "provider": provider}
    secret = t.secret("kube-system", "d8-provider-cluster-configuration",
                      {"cloud-provider-cluster-configuration.yaml": yaml.safe_dump(doc)})
    snaps = t.snapshots(hook, legacy_cluster_configuration=[secret])
    message = ("Secret kube-system/d8-provider-cluster-configuration: "
               "data[cloud-provider-cluster-configuration.yaml].provider: must be a mapping")
    with pytest.raises(InvalidInput) as err:
        run(snaps)
    assert str(err.value) == message
    t.assert_process_rejects(PATH, t.synchronization(hook, snaps), {"cloudProviderDvp": {"internal": {}}}, {}, message)


def test_a_legacy_kubeconfig_that_is_not_a_string_is_named():
    doc = {"apiVersion": "deckhouse.io/v1", "provider": {"kubeconfigDataBase64": ["x"], "namespace": "n"}}
    secret = t.secret("kube-system", "d8-provider-cluster-configuration",
                      {"cloud-provider-cluster-configuration.yaml": yaml.safe_dump(doc)})
    with pytest.raises(InvalidInput) as err:
        run(t.snapshots(hook, legacy_cluster_configuration=[secret]))
    assert str(err.value) == ("Secret kube-system/d8-provider-cluster-configuration: "
                              "data[cloud-provider-cluster-configuration.yaml].provider.kubeconfigDataBase64: "
                              "must be a base64 string")


def test_a_v1_module_config_whose_provider_is_a_string_has_no_kubeconfig():
    mc = module_config_v1(KUBECONFIG_B64)
    mc["spec"]["settings"]["provider"] = "a string"
    out, _, _ = run(t.snapshots(hook, module_config=[mc]))
    assert out.values["cloudProviderDvp"]["internal"]["credentialSecrets"] == {}


@pytest.mark.parametrize(("name", "data"), [(name, data) for (data, _), name in zip(
    REJECTIONS, ["other", "d8-credentials-old", "zzz", "a", "d8-credentials2", "x"] * 2, strict=False)])
def test_a_malformed_credentials_secret_beside_a_valid_one_is_left_out(name, data):
    snaps = t.snapshots(hook, credentials=[creds(), creds(name, **data)])
    out, bc, values = run(snaps)
    assert out.values_patches.data == [
        {"op": "add", "path": "/cloudProviderDvp/internal/credentialSecrets", "value": EXPECTED}]
    process = t.run_process(PATH, bc, values, {})
    assert process.returncode == 0
    assert process.values_patches == out.values_patches.data
    [line] = process.stderr.splitlines()
    assert line.startswith(f"warning: left out: Secret d8-cloud-provider-dvp/{name}: data.")
    assert "tok-en" not in process.stderr and KUBECONFIG_B64 not in process.stderr


def test_a_valid_other_credentials_secret_is_kept_and_a_malformed_d8_credentials_still_fails():
    out, _, _ = run(t.snapshots(hook, credentials=[creds(), creds("other")]))
    assert set(out.values["cloudProviderDvp"]["internal"]["credentialSecrets"]) == {"d8-credentials", "other"}
    with pytest.raises(InvalidInput, match="^Secret d8-cloud-provider-dvp/d8-credentials: data.authScheme"):
        run(t.snapshots(hook, credentials=[creds(authScheme="token"), creds("other")]))


# Deckhouse's own hook tests, replayed (facts only): deckhouse/deckhouse
# modules/030-cloud-provider-dvp/hooks/credentials_test.go@6df7b1e6e6c5ab5aa8ced5b563ae449e20182c74 (CRED) and the
# credential assertions of dvp_cluster_configuration_test.go@76036b9813b1aa448a721ffcdf0ca3b15d868072 (DCC).
# Upstream publishes any credentials Secret's fields decoded; ours publishes only the kubeconfig scheme, the
# kubeconfig kept base64 and judged first (dvp_common.credentials; docs/MIGRATION.md, Hooks).


def test_upstream_single_credentials_secret():
    # CRED "Single credential secret": its authScheme "Kubeconfig" and secret "apiVe" (no kubeconfig) are refused
    # in one line; a kubeconfig Secret becomes the one entry, without identity
    with pytest.raises(InvalidInput) as err:
        run(t.snapshots(hook, credentials=[creds(authScheme="Kubeconfig", secret=t.b64("apiVe"))]))
    assert str(err.value) == f"{OBJ}: data.authScheme: must be kubeconfig"
    out, _, _ = run(t.snapshots(hook, credentials=[creds()]))
    assert out.values["cloudProviderDvp"]["internal"]["credentialSecrets"] == EXPECTED


def test_upstream_two_credentials_secrets():
    # CRED "Two credential secrets": the second one (authScheme userpass, with identity) is left out with a
    # warning, not published
    extra = creds("d8-credentials-extra", authScheme="userpass", identity="user1", secret="pass1")  # noqa: S106 - test data
    out, bc, values = run(t.snapshots(hook, credentials=[creds(), extra]))
    assert out.values["cloudProviderDvp"]["internal"]["credentialSecrets"] == EXPECTED
    process = t.run_process(PATH, bc, values, {})
    assert process.returncode == 0
    assert process.stderr.splitlines() == [
        "warning: left out: Secret d8-cloud-provider-dvp/d8-credentials-extra: data.authScheme: must be kubeconfig"]


def test_upstream_a_secret_of_another_type_is_not_credentials():
    # CRED "Non-credential secret is ignored": shell-operator's field selector keeps it out of the snapshot
    [binding] = [b for b in t.hook_config(hook)["kubernetes"] if b["name"] == hook.SNAPSHOT_CREDENTIALS]
    assert binding["fieldSelector"] == {"matchExpressions": [
        {"field": "type", "operator": "Equals", "value": "cloud-provider.deckhouse.io/credentials"}]}
    out, _, _ = run(t.snapshots(hook))
    assert out.values["cloudProviderDvp"]["internal"]["credentialSecrets"] == {}


def test_upstream_no_secrets():
    # CRED "No secrets": an empty map (and the missing-credentials metric)
    out, _, _ = run(t.snapshots(hook), values={"cloudProviderDvp": {"internal": {"credentialSecrets": {}}}})
    assert out.values["cloudProviderDvp"]["internal"]["credentialSecrets"] == {}
    assert out.metrics.data == [present(False)]


def test_upstream_legacy_kubeconfig_stands_in_and_never_over_the_real_secret():
    # DCC "State B: PCC present, new resources not yet applied" (d8-credentials from its kubeconfig, base64 as
    # given) and "State B: ... real d8-credentials Secret already populated" (the Secret wins)
    out, _, _ = run(t.snapshots(hook, legacy_cluster_configuration=[pcc()]))
    assert out.values["cloudProviderDvp"]["internal"]["credentialSecrets"] == {
        "d8-credentials": {"authScheme": "kubeconfig", "secret": KUBECONFIG_B64}}
    real = t.b64(KUBECONFIG.replace("tok-en", "real"))
    out, _, _ = run(t.snapshots(hook, credentials=[creds(secret=real)], legacy_cluster_configuration=[pcc()]))
    assert out.values["cloudProviderDvp"]["internal"]["credentialSecrets"]["d8-credentials"]["secret"] == real


def test_upstream_v1_module_config_kubeconfig():
    # DCC "State A: no PCC and legacy ModuleConfig v1 has kubeconfig": credentials before the bundle is applied
    out, _, _ = run(t.snapshots(hook, module_config=[module_config_v1(KUBECONFIG_B64)]))
    assert out.values["cloudProviderDvp"]["internal"]["credentialSecrets"] == EXPECTED
