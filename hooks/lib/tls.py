# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""Self-signed serving certificates for in-cluster webhooks: a CA and one leaf per Service.

The leaf is reused while it is valid for the Service's names and more than RENEW_BEFORE from expiry; otherwise a
new CA and leaf are made together, so the caBundle and the serving pair always change in one Helm run."""

import base64
import datetime
import re
from typing import NamedTuple  # not a dataclass: generating its methods costs every hook run at import

from lib import bindings
from lib.errors import InvalidInput

RENEW_BEFORE = datetime.timedelta(days=30)
LEAF_LIFETIME = datetime.timedelta(days=365)
CA_LIFETIME = datetime.timedelta(days=3650)
_LABEL = r"[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?"
_DNS_NAME = rf"{_LABEL}(\.{_LABEL})*"  # compiled only when a certificate is issued


class ServingCert(NamedTuple):
    common_name: str
    service: str
    namespace: str
    secret: str  # the Secret the templates render from the value (keys ca.crt, tls.crt, tls.key)
    value: str  # the internal value name, e.g. "validationWebhookCert"

    def names(self, cluster_domain: str) -> list[str]:
        s, ns = self.service, self.namespace
        return [s, f"{s}.{ns}", f"{s}.{ns}.svc", f"{s}.{ns}.svc.{cluster_domain}"]

    def binding(self, name: str) -> dict:
        return bindings.kubernetes(
            name, "Secret", '{crt: .data["tls.crt"], key: .data["tls.key"], ca: .data["ca.crt"]}',
            namespace=self.namespace, names=[self.secret],
        )


def from_secret(item: dict | None) -> dict | None:
    """The PEM bundle a Secret snapshot holds, or None if it is incomplete or garbled (then we issue anew)."""
    if not item or not all(isinstance(item.get(k), str) for k in ("crt", "key", "ca")):
        return None
    try:
        out = {k: base64.b64decode(item[k], validate=True).decode() for k in ("crt", "key", "ca")}
    except (KeyError, ValueError):  # binascii.Error is a ValueError
        return None
    return out if all(out.values()) else None


def covers(sans: list[str], names: list[str]) -> bool:
    """Whether a leaf serves every name a client dials: the Service's qualified names (the API server calls a
    webhook at <service>.<namespace>.svc). The bare Service name resolves only inside the namespace, where no
    client of a webhook runs: a certificate Deckhouse's module issued (without it, and with
    <service>.<namespace>.<domain> besides) is kept at the switch instead of being replaced."""
    return {n for n in names if "." in n} <= set(sans)


def reusable(bundle: dict | None, names: list[str], now: datetime.datetime) -> bool:
    if not bundle or not all(isinstance(bundle.get(k), str) and bundle[k] for k in ("crt", "key", "ca")):
        return False
    from cryptography import x509
    from cryptography.exceptions import InvalidSignature
    from cryptography.hazmat.primitives import serialization

    try:
        leaf = x509.load_pem_x509_certificate(bundle["crt"].encode())
        ca = x509.load_pem_x509_certificate(bundle["ca"].encode())
        key = serialization.load_pem_private_key(bundle["key"].encode(), password=None)
        leaf.verify_directly_issued_by(ca)
        sans = leaf.extensions.get_extension_for_class(x509.SubjectAlternativeName).value
    except (ValueError, TypeError, x509.ExtensionNotFound, InvalidSignature):
        return False
    if key.public_key().public_numbers() != leaf.public_key().public_numbers():
        return False
    if not covers(sans.get_values_for_type(x509.DNSName), names):
        return False
    return all(c.not_valid_before_utc <= now and c.not_valid_after_utc - now > RENEW_BEFORE for c in (leaf, ca))


def issue(spec: ServingCert, names: list[str], now: datetime.datetime) -> dict:
    for n in names:
        if not re.fullmatch(_DNS_NAME, n, re.ASCII):
            raise InvalidInput("values", "global.discovery.clusterDomain", "must be a DNS name")
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

    def name(cn: str):
        return x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, cn)])

    ca_key = ec.generate_private_key(ec.SECP256R1())
    ca_name = name(f"{spec.common_name}-ca")
    ca = (
        x509.CertificateBuilder().subject_name(ca_name).issuer_name(ca_name).public_key(ca_key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5)).not_valid_after(now + CA_LIFETIME)
        .add_extension(x509.BasicConstraints(ca=True, path_length=0), critical=True)
        .add_extension(x509.KeyUsage(False, False, False, False, False, True, True, False, False), critical=True)
        .sign(ca_key, hashes.SHA256())
    )
    key = ec.generate_private_key(ec.SECP256R1())
    leaf = (
        x509.CertificateBuilder().subject_name(name(spec.common_name)).issuer_name(ca_name)
        .public_key(key.public_key()).serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5)).not_valid_after(now + LEAF_LIFETIME)
        .add_extension(x509.SubjectAlternativeName([x509.DNSName(n) for n in names]), critical=False)
        .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
        .add_extension(x509.KeyUsage(True, False, True, False, False, False, False, False, False), critical=True)
        .add_extension(x509.ExtendedKeyUsage([ExtendedKeyUsageOID.SERVER_AUTH]), critical=False)
        .sign(ca_key, hashes.SHA256())
    )
    pem = serialization.Encoding.PEM
    return {
        "crt": leaf.public_bytes(pem).decode(),
        "key": key.private_bytes(pem, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()).decode(),
        "ca": ca.public_bytes(pem).decode(),
    }


def still_fresh(bundle: dict, names: list[str], now: datetime.datetime) -> bool:
    """The cheap check of a bundle already verified in full: dates and names only, no cryptography import."""
    from lib import der

    try:
        checks = [der.read(bundle["crt"]), der.read(bundle["ca"])]
    except (der.Malformed, ValueError, IndexError, KeyError, TypeError):
        return False
    if not covers(checks[0][2], names):
        return False
    return all(nb <= now and na - now > RENEW_BEFORE for nb, na, _ in checks)


def ensure(spec: ServingCert, secret_item: dict | None, current: dict | None, cluster_domain: str,
           now: datetime.datetime) -> dict:
    """The bundle to publish: the stored Secret's, else the one already in values, else a new one.

    Values are written only by this function, after a full check; so when the Secret holds exactly the bundle
    in values, dates and names are all that can have changed (the steady state, without cryptography)."""
    names = spec.names(cluster_domain)
    stored = from_secret(secret_item)
    current = current if isinstance(current, dict) else None
    same = bool(stored and current and stored == {k: current.get(k) for k in ("crt", "key", "ca")})
    if same and still_fresh(stored, names, now):
        return stored
    for candidate in (stored, current):
        if reusable(candidate, names, now):
            return {k: candidate[k] for k in ("crt", "key", "ca")}
    return issue(spec, names, now)


def cluster_domain(values: dict) -> str:
    from lib import values as v

    domain = (v.get(values, "global.discovery.clusterDomain")
              or v.get(values, "global.clusterConfiguration.clusterDomain") or "cluster.local")
    if not isinstance(domain, str):
        raise InvalidInput("values", "global.discovery.clusterDomain", "must be a string")
    return domain


def main_for(spec: ServingCert, snapshot: str):
    """The main of a certificate hook: one Secret snapshot in, internal.<spec.value> out."""
    from lib import values as v
    from lib.snapshots import first

    def main(ctx) -> None:
        path = v.internal(spec.value)
        bundle = ensure(spec, first(ctx, snapshot), v.get(ctx.values, path),
                        cluster_domain(ctx.values), datetime.datetime.now(datetime.UTC))
        v.set_(ctx.values, path, bundle)

    return main
