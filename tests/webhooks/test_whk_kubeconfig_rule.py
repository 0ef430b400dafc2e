# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""One kubeconfig rule: every kubeconfig of the table gets the same verdict from the credentials hook, the
validation webhook and a component's start-up (DVP_KUBERNETES_CONFIG_BASE64 -> DVPConnection), and a refusal
is one line naming the field, never a value. So does every encoding of the value: one (base64), one decoder."""

from __future__ import annotations

import base64
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from dvp_common.credentials import TYPE
from dvp_common.dvp.connection import DVPConnection, DVPSettings
from dvp_common.kube import ConfigError
from lib import credentials as hook_rule
from lib.errors import InvalidInput

from testkit.harness import pki
from testkit.webhooks import body, run

ROOT = Path(__file__).resolve().parents[2]
TOKEN = "kc-T0KEN-9f8e7d6c5b4a"  # noqa: S105 - a test credential; no verdict may carry it
HINT = "use an inline token or client-certificate-data with client-key-data"
U = 'users[name="sa"].user'
C = 'clusters[name="dvp"].cluster'


@pytest.fixture(scope="module")
def material(tmp_path_factory):
    tls = pki.generate(tmp_path_factory.mktemp("pki"))
    return {"ca": b64(tls.ca_pem), "cert": b64(tls.serving_cert.read_text()), "key": b64(tls.serving_key.read_text())}


def b64(text: str) -> str:
    return base64.b64encode(text.encode()).decode()


def doc(user=None, cluster=None, **top) -> dict:
    return {"apiVersion": "v1", "kind": "Config", "current-context": "dvp",
            "clusters": [{"name": "dvp", "cluster": {"server": "https://dvp.example:6443", **(cluster or {})}}],
            "users": [{"name": "sa", "user": user if user is not None else {"token": TOKEN}}],
            "contexts": [{"name": "dvp", "context": {"cluster": "dvp", "user": "sa", "namespace": "project"}}],
            **top}


def text(d) -> str:
    return d if isinstance(d, str) else yaml.safe_dump(d)


# (case, kubeconfig document or text (material substituted), None = accepted, else the rule's one line)
TABLE = [
    ("token", doc(), None),
    ("client pair and CA", doc(user={"client-certificate-data": "{cert}", "client-key-data": "{key}"},
                               cluster={"certificate-authority-data": "{ca}"}), None),
    ("tokenFile", doc(user={"tokenFile": "/var/run/secrets/kubernetes.io/serviceaccount/token"}),
     f"kubeconfig: {U}.tokenFile: file references are not allowed; inline it as token"),
    ("CA file /dev/zero", doc(cluster={"certificate-authority": "/dev/zero"}),
     f"kubeconfig: {C}.certificate-authority: file references are not allowed; inline it as "
     "certificate-authority-data"),
    ("client key file", doc(user={"client-certificate-data": "{cert}", "client-key": "/etc/shadow"}),
     f"kubeconfig: {U}.client-key: file references are not allowed; inline it as client-key-data"),
    ("exec", doc(user={"exec": {"command": "aws", "args": ["--token", TOKEN]}}),
     f"kubeconfig: {U}.exec: exec plugins are not supported; {HINT}"),
    ("exec in an unused user", {**doc(), "users": [{"name": "sa", "user": {"token": TOKEN}},
                                                   {"name": "other", "user": {"exec": {"command": "x"}}}]},
     f'kubeconfig: users[name="other"].user.exec: exec plugins are not supported; {HINT}'),
    ("auth-provider", doc(user={"auth-provider": {"name": "oidc", "config": {"id-token": TOKEN}}}),
     f"kubeconfig: {U}.auth-provider: auth providers are not supported; {HINT}"),
    ("basic auth", doc(user={"username": "admin", "password": TOKEN}),
     f"kubeconfig: {U}.username: basic auth is not supported; {HINT}"),
    ("no credentials", doc(user={}), f"kubeconfig: {U}: has no credentials; {HINT}"),
    ("certificate without key", doc(user={"client-certificate-data": "{cert}"}),
     f"kubeconfig: {U}.client-key-data: is required with the other half of the client pair"),
    ("server without scheme", doc(cluster={"server": "dvp.example:6443"}),
     f"kubeconfig: {C}.server: must be an https:// URL with a host"),
    ("plain http server", doc(cluster={"server": "http://dvp.example"}),
     f"kubeconfig: {C}.server: must be an https:// URL with a host"),
    ("unparsable CA", doc(cluster={"certificate-authority-data": b64("-----BEGIN CERTIFICATE-----\nAAAA\n"
                                                                     "-----END CERTIFICATE-----\n")}),
     f"kubeconfig: {C}.certificate-authority-data: is not a parsable PEM certificate"),
    ("CA not base64", doc(cluster={"certificate-authority-data": "%%" + TOKEN}),
     f"kubeconfig: {C}.certificate-authority-data: is not base64"),
    ("a users entry that is a string", {**doc(), "users": ["sa"]}, "kubeconfig: users[0]: must be a mapping"),
    ("a name that is a list", {**doc(), "clusters": [{"name": ["dvp"], "cluster": {}}]},
     "kubeconfig: clusters[0].name: must be a non-empty string"),
    ("current-context that is a list", doc(**{"current-context": ["dvp"]}),
     "kubeconfig: current-context: must be a string"),
    ("clusters that is a mapping", {**doc(), "clusters": {"dvp": {}}}, "kubeconfig: clusters: must be a list"),
    ("context naming no user", {**doc(), "contexts": [{"name": "dvp", "context": {"cluster": "dvp", "user": "x"}}]},
     'kubeconfig: contexts[name="dvp"].context.user: names no entry of users'),
    ("YAML aliases", "a: &x [1]\nb: *x\n", "kubeconfig YAML aliases are not allowed (line 2)"),
    ("deep flow nesting", "a: " + "[" * 5000 + "]" * 5000 + "\n", "kubeconfig is nested deeper than 12 levels"),
    ("deep block nesting", "a:\n" + "".join(" " * i + f"k{i}:\n" for i in range(1, 300)),
     "kubeconfig is nested deeper than 12 levels"),
    ("not a mapping", "- just\n- a list\n", "kubeconfig is not a mapping"),
    ("too large", "a: '" + "x" * (128 << 10) + "'\n", f"kubeconfig is larger than {128 << 10} bytes"),
]
IDS = [case for case, _, _ in TABLE]


def kubeconfig_b64(d, material) -> str:
    t = text(d)
    for k, v in material.items():
        t = t.replace("{" + k + "}", v)
    return b64(t)


def hook_verdict(kc: str) -> str | None:
    item = {"name": "d8-credentials", "type": TYPE,
            "data": {"authScheme": b64("kubeconfig"), "secret": b64(kc)}}
    try:
        hook_rule.from_secret(item, "d8-cloud-provider-dvp")
    except InvalidInput as exc:
        prefix = "Secret d8-cloud-provider-dvp/d8-credentials: data.secret: "
        assert str(exc).startswith(prefix) and "\n" not in str(exc)
        return str(exc)[len(prefix):]
    return None


def webhook_verdict(kc: str) -> str | None:
    secret = {"apiVersion": "v1", "kind": "Secret", "type": TYPE,
              "metadata": {"name": "d8-credentials", "namespace": "d8-cloud-provider-dvp"},
              "data": {"authScheme": b64("kubeconfig"), "secret": b64(kc)}}
    out = run("/validate--v1-secret", body("Secret", "CREATE", secret, namespace="d8-cloud-provider-dvp"))
    if out["response"]["allowed"]:
        return None
    prefix = 'Secret "d8-cloud-provider-dvp/d8-credentials": data.secret: '
    message = out["response"]["status"]["message"]
    assert message.startswith(prefix), message
    return message[len(prefix):]


def component_verdict(kc: str) -> str | None:
    try:
        settings = DVPSettings.from_env({"DVP_KUBERNETES_CONFIG_BASE64": kc, "DVP_NAMESPACE": "project",
                                         "CLUSTER_UUID": "u-1"})
        DVPConnection.from_settings(settings).close()
    except ConfigError as exc:
        # the start-up names the variable where the others say "kubeconfig"; the reason is the same
        return str(exc).replace("DVP settings: DVP_KUBERNETES_CONFIG_BASE64 ", "kubeconfig ")
    return None


@pytest.mark.parametrize(("case", "kubeconfig", "verdict"), TABLE, ids=IDS)
def test_hook_webhook_and_component_agree(case, kubeconfig, verdict, material):
    kc = kubeconfig_b64(kubeconfig, material)
    verdicts = {"hook": hook_verdict(kc), "webhook": webhook_verdict(kc), "component": component_verdict(kc)}
    assert verdicts == {"hook": verdict, "webhook": verdict, "component": verdict}
    assert TOKEN not in json.dumps(verdicts)


def test_a_component_process_refuses_a_token_file_in_one_line(tmp_path):
    """python -m dvp_ccm, as its Deployment starts it: exit 2 and one log line naming the field."""
    guest = tmp_path / "guest.kubeconfig"
    guest.write_text(text(doc()))
    bad = kubeconfig_b64(doc(user={"tokenFile": "/var/run/secrets/kubernetes.io/serviceaccount/token"}), {})
    env = {**os.environ, "DVP_KUBERNETES_CONFIG_BASE64": bad, "DVP_NAMESPACE": "project", "CLUSTER_UUID": "u-1"}
    proc = subprocess.run([sys.executable, "-m", "dvp_ccm", "--cloud-provider=dvp", f"--kubeconfig={guest}",
                           "--controllers=cloud-node"], capture_output=True, text=True, env=env, cwd=ROOT,
                          timeout=60, check=False)
    lines = proc.stderr.splitlines()
    assert proc.returncode == 2 and len(lines) == 1, proc.stderr
    assert json.loads(lines[0])["msg"] == (f"dvp_ccm: kubeconfig: {U}.tokenFile: file references are not "
                                           "allowed; inline it as token")


NOT_BASE64 = "kubeconfig is not base64 of UTF-8 text"
# (case, the `secret` value made from the base64 of a good kubeconfig, None = accepted, else the one line)
ENCODINGS = [
    ("one line", lambda b: b, None),
    ("wrapped at 76 columns", lambda b: "\n".join(b[i:i + 76] for i in range(0, len(b), 76)), None),
    ("CRLF line breaks and a final newline", lambda b: "\r\n".join(b[i:i + 64] for i in range(0, len(b), 64)) + "\n",
     None),
    ("surrounding spaces", lambda b: f"  {b} ", NOT_BASE64),
    ("a tab inside", lambda b: b[:8] + "\t" + b[8:], NOT_BASE64),
    ("the YAML text itself", lambda b: base64.b64decode(b).decode(), NOT_BASE64),
    ("base64 twice: no guessing", lambda b: b64(b), "kubeconfig is not a mapping"),
    ("padding missing", lambda b: b64(text(doc()) + "x").rstrip("="), NOT_BASE64),
    ("URL-safe alphabet", lambda b: b64(text(doc()) + "\u00ff?>").replace("+", "-").replace("/", "_"), NOT_BASE64),
    ("not UTF-8", lambda b: base64.b64encode(b"\xff\xfe" + text(doc()).encode()).decode(), NOT_BASE64),
]


@pytest.mark.parametrize(("case", "encode", "verdict"), ENCODINGS, ids=[case for case, _, _ in ENCODINGS])
def test_one_encoding_one_decoder(case, encode, verdict):
    kc = encode(kubeconfig_b64(doc(), {}))
    verdicts = {"hook": hook_verdict(kc), "webhook": webhook_verdict(kc), "component": component_verdict(kc)}
    assert verdicts == {"hook": verdict, "webhook": verdict, "component": verdict}
