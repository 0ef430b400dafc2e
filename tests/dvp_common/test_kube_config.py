# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""Credentials: kubeconfig through the one rule (text or base64, token, client pair, inline CA), ServiceAccount."""

from __future__ import annotations

import base64
import logging
import ssl

import pytest
import yaml
from dvp_common.kube import NO_RETRY, ConfigError, KubeClient, Transient
from dvp_common.kube import config as cfg
from dvp_common.kube.resources import CONFIG_MAP
from dvpc_certs import make_pki
from dvpc_kit import TOKEN

from sim.memory_api.http import HttpApi


def b64(data: bytes | str) -> str:
    return base64.b64encode(data.encode() if isinstance(data, str) else data).decode()


def kubeconfig(server="https://127.0.0.1:6443", user=None, cluster_extra=None, context="dvp", namespace="proj"):
    return yaml.safe_dump({
        "apiVersion": "v1", "kind": "Config", "current-context": context,
        "clusters": [{"name": "c", "cluster": {"server": server, **(cluster_extra or {})}}],
        "users": [{"name": "u", "user": user if user is not None else {"token": TOKEN}}],
        "contexts": [{"name": "dvp", "context": {"cluster": "c", "user": "u", "namespace": namespace}},
                     {"name": "other", "context": {"cluster": "c", "user": "u"}}],
    })


@pytest.fixture(scope="module")
def pki():
    return make_pki()


def test_text_and_base64_are_two_explicit_entry_points_never_guessed():
    raw = kubeconfig(cluster_extra={"insecure-skip-tls-verify": True})
    for creds in (cfg.from_kubeconfig(raw), cfg.from_kubeconfig(raw.encode()), cfg.from_kubeconfig_base64(b64(raw)),
                  cfg.from_kubeconfig_base64(b64(raw)[:20] + "\n" + b64(raw)[20:])):
        assert (creds.host, creds.token, creds.insecure, creds.namespace) == (
            "https://127.0.0.1:6443", TOKEN, True, "proj")
    with pytest.raises(ConfigError, match="^kubeconfig is not a mapping$"):
        cfg.from_kubeconfig(b64(raw))  # base64 is not YAML: no sniffing
    with pytest.raises(ConfigError, match="^kubeconfig is not base64 of UTF-8 text$"):
        cfg.from_kubeconfig_base64(raw)


def test_context_selects_namespace():
    assert cfg.from_kubeconfig(kubeconfig(), context="other").namespace is None


def test_certificate_data(pki):
    ca, _, client = pki
    creds = cfg.from_kubeconfig(kubeconfig(
        cluster_extra={"certificate-authority-data": b64(ca.cert)},
        user={"client-certificate-data": b64(client.cert), "client-key-data": b64(client.key)}))
    assert (creds.ca_data, creds.client_cert_data, creds.client_key_data, creds.token) == (
        ca.cert, client.cert, client.key, None)


def test_file_references_are_refused_without_reading_them(tmp_path, pki):
    ca, _, client = pki
    (tmp_path / "ca.crt").write_bytes(ca.cert)
    for text, field in (
        (kubeconfig(cluster_extra={"certificate-authority": str(tmp_path / "ca.crt")}),
         'clusters[name="c"].cluster.certificate-authority'),
        (kubeconfig(cluster_extra={"certificate-authority": "/dev/zero"}),
         'clusters[name="c"].cluster.certificate-authority'),
        (kubeconfig(user={"client-certificate": "tls.crt", "client-key-data": b64(client.key)}),
         'users[name="u"].user.client-certificate'),
        (kubeconfig(user={"tokenFile": "/var/run/secrets/kubernetes.io/serviceaccount/token"}),
         'users[name="u"].user.tokenFile'),
    ):
        with pytest.raises(ConfigError) as info:
            cfg.from_kubeconfig(text)
        assert str(info.value).startswith(f"kubeconfig: {field}: file references are not allowed; inline it as ")


@pytest.mark.parametrize(("text", "message"), [
    ("", "kubeconfig is empty"),
    ("- a\n- b: c", "kubeconfig is not a mapping"),
    (kubeconfig(context="missing"), "kubeconfig: current-context: names no entry of contexts"),
    (kubeconfig(server=""), 'kubeconfig: clusters[name="c"].cluster.server: is required'),
    (kubeconfig(user={"exec": {"command": "aws", "args": ["--token", TOKEN]}}),
     'kubeconfig: users[name="u"].user.exec: exec plugins are not supported; use an inline token or '
     "client-certificate-data with client-key-data"),
    (kubeconfig(user={"auth-provider": {"name": "oidc", "config": {"id-token": TOKEN}}}),
     'kubeconfig: users[name="u"].user.auth-provider: auth providers are not supported; use an inline token or '
     "client-certificate-data with client-key-data"),
    (kubeconfig(user={"username": "admin", "password": TOKEN}),
     'kubeconfig: users[name="u"].user.username: basic auth is not supported; use an inline token or '
     "client-certificate-data with client-key-data"),
    (kubeconfig(user={"client-certificate-data": b64("-----BEGIN CERTIFICATE-----")}),
     'kubeconfig: users[name="u"].user.client-key-data: is required with the other half of the client pair'),
    (kubeconfig(cluster_extra={"certificate-authority-data": "%%%" + TOKEN}),
     'kubeconfig: clusters[name="c"].cluster.certificate-authority-data: is not base64'),
    (kubeconfig(cluster_extra={"certificate-authority-data": b64("-----BEGIN CERTIFICATE-----\nAAAA\n"
                                                                 "-----END CERTIFICATE-----\n")}),
     'kubeconfig: clusters[name="c"].cluster.certificate-authority-data: is not a parsable PEM certificate'),
    (kubeconfig(server="127.0.0.1:6443"),
     'kubeconfig: clusters[name="c"].cluster.server: must be an https:// URL with a host'),
    (kubeconfig(server="http://127.0.0.1:6443"),
     'kubeconfig: clusters[name="c"].cluster.server: must be an https:// URL with a host'),
])
def test_bad_kubeconfig_is_one_clear_line_without_secrets(text, message):
    with pytest.raises(ConfigError) as info:
        cfg.from_kubeconfig(text)
    assert str(info.value) == message and TOKEN not in str(info.value)


def test_proxy_variables_are_honoured_netrc_is_not(monkeypatch, tmp_path):
    monkeypatch.setenv("HTTPS_PROXY", "http://proxy.example:3128")
    monkeypatch.setenv("NO_PROXY", "internal.example")
    (tmp_path / ".netrc").write_text("machine dvp.example login u password p\n")
    monkeypatch.setenv("NETRC", str(tmp_path / ".netrc"))
    assert KubeClient.from_url("https://dvp.example", token=TOKEN).transport.session.proxies == {
        "https": "http://proxy.example:3128"}
    assert KubeClient.from_url("https://api.internal.example").transport.session.proxies == {}
    assert KubeClient.from_url("https://dvp.example").transport.session.trust_env is False


def test_credentials_repr_hides_secrets(pki):
    _, _, client = pki
    creds = cfg.from_url("https://h", token=TOKEN, client_cert=client.cert, client_key=client.key)
    assert TOKEN not in repr(creds) and "PRIVATE" not in repr(creds)


def test_service_account(tmp_path, pki):
    ca = pki[0]
    (tmp_path / "token").write_text(TOKEN + "\n")
    (tmp_path / "ca.crt").write_bytes(ca.cert)
    (tmp_path / "namespace").write_text("d8-cloud-provider-dvp")
    creds = cfg.from_service_account(tmp_path, env={"KUBERNETES_SERVICE_HOST": "10.0.0.1",
                                                    "KUBERNETES_SERVICE_PORT": "443"})
    assert (creds.host, creds.ca_data, creds.namespace, creds.bearer_token(now=0)) == (
        "https://10.0.0.1:443", ca.cert, "d8-cloud-provider-dvp", TOKEN)
    (tmp_path / "token").write_text("rotated")
    assert creds.bearer_token(now=30) == TOKEN  # cached for a minute
    assert creds.bearer_token(now=61) == "rotated"
    with pytest.raises(ConfigError, match="KUBERNETES_SERVICE_HOST is not set"):
        cfg.from_service_account(tmp_path, env={})


def _tls_server(pki, tmp_path, require_client_cert):
    ca, server, _ = pki
    ctx = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    (tmp_path / "s.crt").write_bytes(server.cert)
    (tmp_path / "s.key").write_bytes(server.key)
    ctx.load_cert_chain(tmp_path / "s.crt", tmp_path / "s.key")
    if require_client_cert:
        ctx.verify_mode = ssl.CERT_REQUIRED
        ctx.load_verify_locations(cadata=ca.cert.decode())
    return HttpApi(tls=ctx)


@pytest.mark.filterwarnings("ignore::urllib3.exceptions.InsecureRequestWarning")
def test_tls_with_ca_data_and_client_certificate(pki, tmp_path):
    ca, _, client = pki
    server = _tls_server(pki, tmp_path, require_client_cert=True)
    try:
        text = kubeconfig(server=server.url, cluster_extra={"certificate-authority-data": b64(ca.cert)},
                          user={"client-certificate-data": b64(client.cert), "client-key-data": b64(client.key)})
        kube = KubeClient.from_credentials(cfg.from_kubeconfig_base64(b64(text)))
        assert kube.list(CONFIG_MAP, "ns").items == []
        without_ca = KubeClient.from_url(server.url, token=TOKEN, retry=NO_RETRY)
        with pytest.raises(Transient, match="SSLError"):
            without_ca.list(CONFIG_MAP, "ns")
        insecure_no_cert = KubeClient.from_url(server.url, insecure=True, retry=NO_RETRY)
        with pytest.raises(Transient):
            insecure_no_cert.list(CONFIG_MAP, "ns")  # the server demands a client certificate
    finally:
        server.stop()


def test_nothing_secret_reaches_the_logs(api, caplog):
    caplog.set_level(logging.DEBUG)
    kube = KubeClient.from_url(api.url, token=TOKEN)
    kube.create(CONFIG_MAP, {"metadata": {"name": "x"}}, "ns")
    kube.get(CONFIG_MAP, "x", "ns")
    assert api.headers[-1]["Authorization"] == f"Bearer {TOKEN}"
    assert TOKEN not in caplog.text and TOKEN not in b64(caplog.text)


def test_file_or_service_account(tmp_path, monkeypatch):
    path = tmp_path / "guest.kubeconfig"
    path.write_text(kubeconfig(), encoding="utf-8")
    assert cfg.from_file_or_service_account(str(path)) == cfg.from_kubeconfig(kubeconfig())
    monkeypatch.delenv("KUBERNETES_SERVICE_HOST", raising=False)
    with pytest.raises(ConfigError, match="^not in a pod: KUBERNETES_SERVICE_HOST is not set$"):
        cfg.from_file_or_service_account("")
    with pytest.raises(OSError):
        cfg.from_file_or_service_account(str(tmp_path / "missing"))
