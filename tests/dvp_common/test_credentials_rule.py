# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""One credentials rule (dvp_common.credentials): every Secret of the table gets the same verdict, with the same
problem lines, from the credentials hook run as shell-operator runs it, the validation webhook's rule and dhctl's
validator. Each frames the lines its own way (the hook stops at the first); the lines are the rule's."""

from __future__ import annotations

import base64
import json
import os

import credentials as hook
import pytest
from dvp_common import credentials
from dvp_common.admission.review import Request
from dvp_validator import schemas
from dvp_validator.domain import inputs, rules
from dvp_webhooks.domain import credentials as webhook
from lib import testing as t
from terraform_manager.inputs import payload

NAMESPACE = "d8-cloud-provider-dvp"
HOOK = os.path.join(os.path.dirname(hook.__file__), "credentials.py")
TOKEN = "cr-T0KEN-4c3b2a"  # noqa: S105 - a test credential; no verdict may carry it
KUBECONFIG = f"""apiVersion: v1
kind: Config
current-context: dvp
clusters: [{{name: dvp, cluster: {{server: "https://dvp.example:6443"}}}}]
contexts: [{{name: dvp, context: {{cluster: dvp, user: sa, namespace: project}}}}]
users: [{{name: sa, user: {{token: {TOKEN}}}}}]
"""
HINT = "use an inline token or client-certificate-data with client-key-data"
IDENTITY = "data.identity: is not allowed with authScheme kubeconfig"


def b64(text: str) -> str:
    return base64.b64encode(text.encode()).decode()


GOOD = b64(KUBECONFIG)


def data(kubeconfig: str | None = GOOD, **fields: str | None) -> dict[str, str]:
    """Secret data as the API server stores it (base64 of each value's text; `kubeconfig` is data.secret's); None
    leaves a key out."""
    values = {"authScheme": "kubeconfig", "secret": kubeconfig} | fields
    return {key: b64(value) for key, value in values.items() if value is not None}


# (case, the Secret's data, the rule's problem lines: [] = accepted)
TABLE = [
    ("valid", data(), []),
    ("kubeconfig missing", data(kubeconfig=None), ["data.secret: must not be empty"]),
    ("kubeconfig empty", data(kubeconfig=""), ["data.secret: must not be empty"]),
    ("kubeconfig blank", data(kubeconfig=" \n"), ["data.secret: must not be empty"]),
    ("kubeconfig not base64", data(kubeconfig="not base64 !!"),
     ["data.secret: kubeconfig is not base64 of UTF-8 text"]),
    ("kubeconfig not YAML", data(kubeconfig=b64("clusters: [unclosed")),
     ["data.secret: kubeconfig is not valid YAML (line 1)"]),
    ("kubeconfig not a mapping", data(kubeconfig=b64("just text")), ["data.secret: kubeconfig is not a mapping"]),
    ("no current context", data(kubeconfig=b64("clusters: []")),
     ["data.secret: kubeconfig: current-context: is not set and there is not exactly one context"]),
    ("exec plugin", data(kubeconfig=b64(KUBECONFIG.replace(f"{{token: {TOKEN}}}", f"{{exec: {{command: {TOKEN}}}}}"))),
     [f'data.secret: kubeconfig: users[name="sa"].user.exec: exec plugins are not supported; {HINT}']),
    ("identity empty", data(identity=""), [IDENTITY]),
    ("identity set", data(identity="someone"), [IDENTITY]),
    ("unknown authScheme", data(authScheme="token"), ["data.authScheme: must be kubeconfig"]),
    ("authScheme missing", data(authScheme=None), ["data.authScheme: must be kubeconfig"]),
    ("data value not base64", data() | {"secret": "%%%"}, ["data.secret: is not valid base64 of UTF-8 text"]),
    ("authScheme and secret swapped", data(authScheme=GOOD, kubeconfig="kubeconfig"),
     ["data.authScheme: must be kubeconfig", "data.secret: kubeconfig is not base64 of UTF-8 text"]),
    ("several problems", data(None, authScheme="token", identity=""),
     ["data.authScheme: must be kubeconfig", IDENTITY, "data.secret: must not be empty"]),
]


def secret(secret_data: dict[str, str]) -> dict:
    return {"apiVersion": "v1", "kind": "Secret", "type": credentials.TYPE,
            "metadata": {"name": credentials.NAME, "namespace": NAMESPACE, "uid": "u-1", "resourceVersion": "1"},
            "data": secret_data}


def hook_verdict(obj: dict) -> list[str]:
    """The hook's one stderr line (exit 1, nothing written), or [] once it wrote the credential to values."""
    snaps = t.snapshots(hook, credentials=[obj])
    run = t.run_process(HOOK, t.synchronization(hook, snaps), {"cloudProviderDvp": {"internal": {}}}, {})
    if run.returncode == 0:
        assert run.values_patches == [{"op": "add", "path": "/cloudProviderDvp/internal/credentialSecrets",
                                       "value": {credentials.NAME: {"authScheme": "kubeconfig", "secret": GOOD}}}]
        return []
    assert run.returncode == 1 and (run.values_patches, run.kube_operations, run.metrics) == ([], [], [])
    [line] = run.stderr.splitlines()
    prefix = f"invalid input: Secret {NAMESPACE}/{credentials.NAME}: "
    assert line.startswith(prefix), line
    return [line[len(prefix):]]


def webhook_verdict(obj: dict) -> list[str]:
    """The validation webhook's rule on CREATE: every problem, joined into the denial."""
    req = Request(uid="u", operation="CREATE", kind="Secret", group="", name=credentials.NAME, namespace=NAMESPACE,
                  obj=obj, old=None)
    verdict = webhook.validate(req)
    if verdict.allowed:
        assert verdict.message == "" and verdict.warnings == ()
        return []
    prefix = f'Secret "{NAMESPACE}/{credentials.NAME}": '
    lines = verdict.message.split(f"; {prefix}")
    assert lines[0].startswith(prefix), verdict.message
    return [lines[0][len(prefix):], *lines[1:]]


@pytest.fixture(scope="module")
def loaded():
    return schemas.load()


def validator_verdict(obj: dict, loaded) -> list[str]:
    """dhctl's validator over the layouts' bootstrap payload holding this Secret: a violation per problem."""
    p = payload("bootstrap")
    p["vars"]["secrets"][credentials.NAME] = obj
    report = rules.validate(inputs.parse(json.dumps(p).encode()), loaded)
    prefix = f"Secret {NAMESPACE}/{credentials.NAME}: "
    out = []
    for v in report.errors:
        assert v.code == rules.CREDENTIALS_INVALID and v.message.startswith(prefix), v
        problem = v.message[len(prefix):]
        assert v.path == f"Secret/{credentials.NAME}.{problem.split(': ')[0]}", v
        out.append(problem)
    return out


@pytest.mark.parametrize(("case", "secret_data", "problems"), TABLE, ids=[case for case, _, _ in TABLE])
def test_hook_webhook_and_validator_judge_alike(case, secret_data, problems, loaded):
    obj = secret(secret_data)
    judged = credentials.judge(obj["type"], obj["data"])
    assert [str(p) for p in judged.problems] == problems
    assert judged.kubeconfig == (None if problems else GOOD)
    verdicts = {"hook": hook_verdict(obj), "webhook": webhook_verdict(obj),
                "validator": validator_verdict(obj, loaded)}
    # the hook stops at the first problem: its one line is the rule's first
    assert verdicts == {"hook": problems[:1], "webhook": problems, "validator": problems}
    assert TOKEN not in json.dumps(verdicts) and GOOD not in json.dumps(verdicts)


def test_string_data_is_folded_in_as_the_api_server_folds_it():
    """stringData (text, as written) wins over data and is named as the API stores it, in data."""
    assert credentials.judge(credentials.TYPE, data(authScheme="token"), {"authScheme": "kubeconfig"}) == (
        [], GOOD)
    assert [str(p) for p in credentials.judge(credentials.TYPE, {}, {"secret": "not base64 !!", "identity": ""})
            .problems] == ["data.authScheme: must be kubeconfig", IDENTITY,
                           "data.secret: kubeconfig is not base64 of UTF-8 text"]
    assert [str(p) for p in credentials.judge(credentials.TYPE, {}, {"authScheme": ["kubeconfig"], "secret": GOOD})
            .problems] == ["stringData.authScheme: must be a string"]


@pytest.mark.parametrize(("secret_type", "secret_data", "string_data", "problems"), [
    ("Opaque", data(), None, ["type: must be cloud-provider.deckhouse.io/credentials"]),
    (credentials.TYPE, ["a", "list"], None, ["data: must be a mapping"]),
    (credentials.TYPE, {}, "text", ["stringData: must be a mapping"]),
    (credentials.TYPE, data() | {"secret": 7}, None, ["data.secret: must be a base64 string"]),
    (credentials.TYPE, data() | {"authScheme": "a2\u00fcbmVjb25maWc="}, None,
     ["data.authScheme: is not valid base64 of UTF-8 text"]),
    (credentials.TYPE, data() | {"secret": b64(GOOD) + "=="}, None, ["data.secret: is not valid base64 of UTF-8 text"]),
    (credentials.TYPE, data() | {"secret": base64.b64encode(b"\xff\xfe").decode()}, None,
     ["data.secret: is not valid base64 of UTF-8 text"]),
])
def test_shapes_the_api_server_never_sends_are_named(secret_type, secret_data, string_data, problems):
    """What only a direct client or dhctl's payload can hold: one line naming the field."""
    assert [str(p) for p in credentials.judge(secret_type, secret_data, string_data).problems] == problems


def test_a_kubeconfig_already_judged_is_not_parsed_again():
    bad = b64("clusters: []")
    assert credentials.judge(credentials.TYPE, data(kubeconfig=bad), judged={bad}) == ([], bad)
    assert credentials.judge(credentials.TYPE, data(kubeconfig=bad)).kubeconfig is None
