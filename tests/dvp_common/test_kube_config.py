# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""Credentials: kubeconfig (raw/base64, token, client certificate, CA as data or file), ServiceAccount, TLS."""

from __future__ import annotations

import base64
import logging
import ssl

import pytest
import yaml
from dvp_common.kube import NO_RETRY, ConfigError, KubeClient, Transient
from dvp_common.kube import config as cfg
from dvp_common.kube.resources import CONFIG_MAP
from dvpc_apiserver import FakeApiServer
from dvpc_certs import make_pki
from dvpc_kit import TOKEN


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


def test_raw_and_base64_kubeconfig_give_the_same_credentials():
    raw = kubeconfig(cluster_extra={"insecure-skip-tls-verify": True})
    for text in (raw, b64(raw), b64(raw)[:20] + "\n" + b64(raw)[20:], raw.encode()):
        creds = cfg.from_kubeconfig(text)
        assert (creds.host, creds.token, creds.insecure, creds.namespace) == (
            "https://127.0.0.1:6443", TOKEN, True, "proj")


def test_context_selects_namespace():
    assert cfg.from_kubeconfig(kubeconfig(), context="other").namespace is None


def test_certificate_data_and_files(tmp_path, pki):
    ca, _, client = pki
    creds = cfg.from_kubeconfig(kubeconfig(
        cluster_extra={"certificate-authority-data": b64(ca.cert)},
        user={"client-certificate-data": b64(client.cert), "client-key-data": b64(client.key)}))
    assert (creds.ca_data, creds.client_cert_data, creds.client_key_data, creds.token) == (
        ca.cert, client.cert, client.key, None)
    (tmp_path / "ca.crt").write_bytes(ca.cert)
    (tmp_path / "tls.crt").write_bytes(client.cert)
    (tmp_path / "tls.key").write_bytes(client.key)
    creds = cfg.from_kubeconfig(kubeconfig(
        cluster_extra={"certificate-authority": str(tmp_path / "ca.crt")},
        user={"client-certificate": "tls.crt", "client-key": "tls.key"}), base_dir=tmp_path)
    assert (creds.ca_data, creds.client_cert_data, creds.client_key_data) == (ca.cert, client.cert, client.key)


@pytest.mark.parametrize(("text", "message"), [
    ("", "kubeconfig is empty"),
    ("!!!notbase64", "kubeconfig is neither YAML nor base64 of YAML"),
    ("- a\n- b: c", "kubeconfig is not a mapping"),
    (kubeconfig(context="missing"), 'kubeconfig: contexts[name="missing"] not found'),
    (kubeconfig(server=""), 'kubeconfig: clusters[name="c"].cluster.server is not set'),
    (kubeconfig(user={"exec": {"command": "aws", "args": ["--token", TOKEN]}}),
     'kubeconfig: users[name="u"].user.exec is not supported; use a token or a client certificate'),
    (kubeconfig(user={"auth-provider": {"name": "oidc", "config": {"id-token": TOKEN}}}),
     'kubeconfig: users[name="u"].user.auth-provider is not supported; use a token or a client certificate'),
    (kubeconfig(user={"username": "admin", "password": TOKEN}),
     'kubeconfig: users[name="u"].user basic auth is not supported; use a token or a client certificate'),
    (kubeconfig(user={"client-certificate-data": b64("-----BEGIN x")}),
     "client certificate and client key must be given together"),
    (kubeconfig(cluster_extra={"certificate-authority-data": "%%%" + TOKEN}),
     'kubeconfig: clusters[name="c"].cluster.certificate-authority-data is not base64 PEM'),
    (kubeconfig(server="127.0.0.1:6443"), "server must be an http(s) URL"),
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
    return FakeApiServer(token=None, tls=ctx)


@pytest.mark.filterwarnings("ignore::urllib3.exceptions.InsecureRequestWarning")
def test_tls_with_ca_data_and_client_certificate(pki, tmp_path):
    ca, _, client = pki
    server = _tls_server(pki, tmp_path, require_client_cert=True)
    try:
        text = kubeconfig(server=server.url, cluster_extra={"certificate-authority-data": b64(ca.cert)},
                          user={"client-certificate-data": b64(client.cert), "client-key-data": b64(client.key)})
        kube = KubeClient.from_kubeconfig(b64(text))
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
    kube = KubeClient.from_kubeconfig(b64(kubeconfig(server=api.url)))
    kube.create(CONFIG_MAP, {"metadata": {"name": "x"}}, "ns")
    kube.get(CONFIG_MAP, "x", "ns")
    assert api.state.headers[-1]["Authorization"] == f"Bearer {TOKEN}"
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
