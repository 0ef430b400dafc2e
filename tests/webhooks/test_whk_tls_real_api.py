# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""Certificate rotation under the real guest kube-apiserver: the validation webhook registered as the chart
renders it, admission requests made through the API server (credentials Secrets), and the serving pair rotated
the way the kubelet may do it: the certificate before its key, or with the files' times kept.

The API server keeps its TLS connections to a webhook alive; a configuration with a CA bundle of its own gets a
client of its own, so each phase registers a new one (trusting exactly the CA it must) and every admission of
that phase comes over a new handshake with whatever pair the server then holds. Which pair that is, is read
from a handshake of our own (the served certificate's fingerprint)."""

from __future__ import annotations

import hashlib
import logging
import os
import secrets
import socket
import ssl
from pathlib import Path

import pytest
from dvp_common.admission.server import WebhookServer
from dvp_common.kube import NO_RETRY
from dvp_common.kube.resources import NAMESPACE, SECRET
from dvp_webhooks.handlers import ROUTES
from dvp_webhooks.lookups import Lookups
from whk_api import TAG_LABEL, Registrations, b64, eventually_denied

from testkit.harness import pki

CREDENTIALS = "cloud-provider.deckhouse.io/credentials"
VALIDATION = "d8-cloud-provider-dvp-validation"
KUBECONFIG = """apiVersion: v1
kind: Config
current-context: dvp
clusters: [{name: dvp, cluster: {server: "https://dvp.example:6443"}}]
users: [{name: sa, user: {token: rotation-test-token}}]
contexts: [{name: dvp, context: {cluster: dvp, user: sa}}]
"""


def fingerprint(pem: bytes) -> str:
    return hashlib.sha256(ssl.PEM_cert_to_DER_cert(pem.decode())).hexdigest()


def served(port: int) -> str:
    """The fingerprint of the certificate the server presents to a new connection (not verified: any pair)."""
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    ctx.check_hostname, ctx.verify_mode = False, ssl.CERT_NONE
    with socket.create_connection(("127.0.0.1", port), timeout=10) as raw, ctx.wrap_socket(raw) as conn:
        return hashlib.sha256(conn.getpeercert(binary_form=True)).hexdigest()


class Rotation:
    def __init__(self, guest_api, tmp_path: Path) -> None:
        self.api, self.client = guest_api, guest_api.client(retry=NO_RETRY)
        self.pairs = {name: pki.generate(tmp_path / name) for name in ("a", "b", "c", "other")}
        self.cert, self.key = tmp_path / "tls.crt", tmp_path / "tls.key"
        self.cert.write_bytes(self.pairs["a"].serving_cert.read_bytes())
        self.key.write_bytes(self.pairs["a"].serving_key.read_bytes())
        lookups = Lookups(guest_api.client(), module_namespace=guest_api.create_namespace("mod"))
        self.server = WebhookServer("127.0.0.1:0", ROUTES["validation"], lookups, str(self.cert),
                                    str(self.key)).start()
        self.registrations = Registrations(self.client)
        self.names = iter(range(10000))

    def fingerprint(self, pair: str) -> str:
        return fingerprint(self.pairs[pair].serving_cert.read_bytes())

    def admission_works(self, *trusted: str) -> None:
        """A new configuration trusting only the CAs of `trusted` over a new namespace: a credentials Secret
        with a bad authScheme is denied by the webhook itself (a failed handshake would be the API server's
        "failed calling webhook"), a good one is admitted."""
        tag = f"rot{secrets.token_hex(3)}"
        ns = self.api.create_namespace("rot")
        self.client.patch(NAMESPACE, ns, {"metadata": {"labels": {TAG_LABEL: tag}}})
        self.registrations.register("ValidatingWebhookConfiguration", VALIDATION, tag, self.server.port,
                                    "".join(self.pairs[p].ca_pem for p in trusted))

        def secret(auth_scheme: str, data: str):
            return lambda: self.client.create(SECRET, {
                "metadata": {"name": f"c{next(self.names)}"}, "type": CREDENTIALS,
                "stringData": {"authScheme": auth_scheme, "secret": data}}, ns)

        exc = eventually_denied(secret("token", b64(KUBECONFIG)))
        assert f'admission webhook "{tag}.credentials.cloud-provider-dvp.deckhouse.io" denied the request' in str(exc)
        assert "data.authScheme: must be kubeconfig" in str(exc)
        assert secret("kubeconfig", b64(KUBECONFIG))()["type"] == CREDENTIALS

    def close(self) -> None:
        self.registrations.close()
        self.server.stop()


@pytest.fixture
def rotation(guest_api, tmp_path):
    r = Rotation(guest_api, tmp_path)
    yield r
    r.close()


@pytest.mark.parametrize("first", ["certificate", "key"])
def test_a_half_written_pair_keeps_the_old_pair_serving_admission(rotation, caplog, first):
    """The kubelet may write the new certificate before its key (or the key first): until both are there the
    old pair serves every new handshake, the API server's included."""
    caplog.set_level(logging.WARNING, logger="dvp_common.admission.server")
    r = rotation
    files = {"certificate": (r.cert, r.pairs["b"].serving_cert), "key": (r.key, r.pairs["b"].serving_key)}
    second = "key" if first == "certificate" else "certificate"
    assert served(r.server.port) == r.fingerprint("a")
    r.admission_works("a")

    target, source = files[first]
    target.write_bytes(source.read_bytes())  # half the new pair
    assert served(r.server.port) == r.fingerprint("a")
    # a new client trusting the old CA (and another, so the API server cannot reuse a connection) handshakes
    # with the old pair: admission goes on
    r.admission_works("a", "other")
    assert served(r.server.port) == r.fingerprint("a")
    assert any(m.startswith("TLS certificate reload failed, the previous pair keeps serving")
               for m in caplog.messages)

    target, source = files[second]
    target.write_bytes(source.read_bytes())  # the pair is whole: the next handshake uses it
    assert served(r.server.port) == r.fingerprint("b")
    r.admission_works("b")


def test_a_rotation_that_keeps_the_files_times_is_picked_up_by_content(rotation):
    r = rotation
    r.admission_works("a")
    times = {p: (os.stat(p).st_atime_ns, os.stat(p).st_mtime_ns) for p in (r.cert, r.key)}
    r.cert.write_bytes(r.pairs["c"].serving_cert.read_bytes())
    r.key.write_bytes(r.pairs["c"].serving_key.read_bytes())
    for path, (atime, mtime) in times.items():
        os.utime(path, ns=(atime, mtime))
    assert {p: os.stat(p).st_mtime_ns for p in times} == {p: t[1] for p, t in times.items()}
    assert served(r.server.port) == r.fingerprint("c")
    r.admission_works("c")
