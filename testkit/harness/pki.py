# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""Throw-away PKI for the test API servers: a CA, a loopback serving certificate and a ServiceAccount key."""

from __future__ import annotations

import datetime
import ipaddress
from dataclasses import dataclass
from pathlib import Path

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

VALIDITY = datetime.timedelta(days=2)  # outlives any test session, nothing more


@dataclass(frozen=True)
class Pki:
    ca_cert: Path
    serving_cert: Path
    serving_key: Path
    sa_key: Path  # signs ServiceAccount tokens
    sa_pub: Path

    @property
    def ca_pem(self) -> str:
        return self.ca_cert.read_text()


def _key() -> ec.EllipticCurvePrivateKey:
    return ec.generate_private_key(ec.SECP256R1())  # fast to generate, accepted everywhere


def _key_pem(key: ec.EllipticCurvePrivateKey) -> bytes:
    return key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                             serialization.NoEncryption())


def _write(path: Path, data: bytes, mode: int = 0o600) -> Path:
    path.write_bytes(data)
    path.chmod(mode)
    return path


def generate(directory: Path) -> Pki:
    now = datetime.datetime.now(datetime.UTC) - datetime.timedelta(minutes=5)  # tolerate clock skew
    ca_key = _key()
    ca_name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "cloud-provider-dvp test CA")])
    ca = (x509.CertificateBuilder().subject_name(ca_name).issuer_name(ca_name).public_key(ca_key.public_key())
          .serial_number(x509.random_serial_number()).not_valid_before(now).not_valid_after(now + VALIDITY)
          .add_extension(x509.BasicConstraints(ca=True, path_length=0), critical=True)
          .add_extension(x509.KeyUsage(digital_signature=True, key_cert_sign=True, crl_sign=True,
                                       content_commitment=False, key_encipherment=False, data_encipherment=False,
                                       key_agreement=False, encipher_only=False, decipher_only=False),
                         critical=True)
          # Python 3.13's ssl verifies strictly (VERIFY_X509_STRICT): key identifiers on both certificates
          .add_extension(x509.SubjectKeyIdentifier.from_public_key(ca_key.public_key()), critical=False)
          .sign(ca_key, hashes.SHA256()))
    srv_key = _key()
    san = x509.SubjectAlternativeName([x509.DNSName("localhost"), x509.IPAddress(ipaddress.ip_address("127.0.0.1"))])
    srv = (x509.CertificateBuilder()
           .subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "kube-apiserver")]))
           .issuer_name(ca_name).public_key(srv_key.public_key()).serial_number(x509.random_serial_number())
           .not_valid_before(now).not_valid_after(now + VALIDITY).add_extension(san, critical=False)
           .add_extension(x509.ExtendedKeyUsage([x509.oid.ExtendedKeyUsageOID.SERVER_AUTH]), critical=False)
           .add_extension(x509.AuthorityKeyIdentifier.from_issuer_public_key(ca_key.public_key()), critical=False)
           .sign(ca_key, hashes.SHA256()))
    sa_key = _key()
    directory.mkdir(parents=True, exist_ok=True)
    return Pki(
        ca_cert=_write(directory / "ca.crt", ca.public_bytes(serialization.Encoding.PEM), 0o644),
        serving_cert=_write(directory / "apiserver.crt", srv.public_bytes(serialization.Encoding.PEM), 0o644),
        serving_key=_write(directory / "apiserver.key", _key_pem(srv_key)),
        sa_key=_write(directory / "sa.key", _key_pem(sa_key)),
        sa_pub=_write(directory / "sa.pub", sa_key.public_key().public_bytes(
            serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo), 0o644),
    )
