# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""Hostile requests through the real kube-apiserver (guest_api), with the webhooks registered as the chart renders
them (only the service reference becomes https://127.0.0.1:<port> and the scope this test's label):

- a VolumeSnapshot in one namespace naming another namespace's PVC through "../" (or with "?" or "#") never makes
  the mutating webhook read that PVC;
- every Secret of the credentials type is judged, whatever its labels (heritage: deckhouse included); Secrets of
  other types never reach it.
"""

from __future__ import annotations

import logging
import secrets

import pytest
from dvp_common.admission.server import WebhookServer
from dvp_common.kube import NO_RETRY, Resource
from dvp_common.kube.resources import NAMESPACE, PERSISTENT_VOLUME_CLAIM, SECRET
from dvp_webhooks.handlers import ROUTES
from dvp_webhooks.lookups import Lookups
from whk_api import TAG_LABEL, Registrations, b64, eventually_denied

from testkit.harness import pki

VOLUME_SNAPSHOT = Resource("snapshot.storage.k8s.io", "v1", "volumesnapshots", "VolumeSnapshot")
TOKEN = "rl-T0KEN-7c6b5a4d3e2f"  # noqa: S105 - a test credential
KUBECONFIG = f"""apiVersion: v1
kind: Config
current-context: dvp
clusters: [{{name: dvp, cluster: {{server: "https://dvp.example:6443"}}}}]
users: [{{name: sa, user: {{token: {TOKEN}}}}}]
contexts: [{{name: dvp, context: {{cluster: dvp, user: sa}}}}]
"""


class RecordingLookups(Lookups):
    """The real lookups against the guest API, recording which PVCs were read."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.pvcs: list[tuple[str, str]] = []

    def pvc(self, namespace: str, name: str):
        self.pvcs.append((namespace, name))
        return super().pvc(namespace, name)


@pytest.fixture
def world(guest_api, tmp_path):
    c = guest_api.client(retry=NO_RETRY)
    tag = f"sec{secrets.token_hex(3)}"
    tls = pki.generate(tmp_path / "pki")
    lookups = RecordingLookups(guest_api.client(), module_namespace=guest_api.create_namespace("mod"))
    servers = {mode: WebhookServer("127.0.0.1:0", routes, lookups, str(tls.serving_cert), str(tls.serving_key),
                                   logger=logging.getLogger("dvp_webhooks")).start()
               for mode, routes in ROUTES.items()}
    registrations = Registrations(c)

    def register(kind: str, name: str, mode: str) -> None:
        """The rendered configuration `name`, pointed at our server and scoped to namespaces labelled `tag`."""
        registrations.register(kind, name, tag, servers[mode].port, tls.ca_pem)

    def namespace(prefix: str, labelled: bool = True) -> str:
        ns = guest_api.create_namespace(prefix)
        if labelled:
            c.patch(NAMESPACE, ns, {"metadata": {"labels": {TAG_LABEL: tag}}})
        return ns

    class World:
        pass

    w = World()
    w.client, w.lookups, w.servers, w.register, w.namespace = c, lookups, servers, register, namespace
    yield w
    registrations.close()
    for srv in servers.values():
        srv.stop()


def test_snapshot_mutation_cannot_be_pointed_at_another_namespaces_pvc(world):
    c = world.client
    victim = world.namespace("victim", labelled=False)
    attacker = world.namespace("attacker")
    c.create(PERSISTENT_VOLUME_CLAIM, {"metadata": {"name": "db-data"}, "spec": {
        "storageClassName": "victim-private-class", "accessModes": ["ReadWriteOnce"],
        "resources": {"requests": {"storage": "1Gi"}}}}, victim)
    world.register("MutatingWebhookConfiguration", "d8-cloud-provider-dvp-volume-snapshot-mutation", "snapshot")
    n = iter(range(1000))

    def snapshot(pvc: str):
        return lambda: c.create(VOLUME_SNAPSHOT, {"metadata": {"name": f"s{next(n)}"}, "spec": {
            "source": {"persistentVolumeClaimName": pvc}}}, attacker)

    # an ordinary missing PVC first: proves the configuration is live
    assert "PersistentVolumeClaim" in str(eventually_denied(snapshot("absent")))
    for pvc in (f"../../{victim}/persistentvolumeclaims/db-data", "db-data?x=1", "db-data#x", f"..%2F{victim}"):
        exc = eventually_denied(snapshot(pvc))
        assert "spec.source.persistentVolumeClaimName must be a DNS-1123 subdomain" in str(exc)
        assert "victim-private-class" not in str(exc)
    assert world.lookups.pvcs == [(attacker, "absent")]  # the victim's PVC was never asked for


def test_every_credentials_secret_is_judged_whatever_its_labels(world, caplog):
    caplog.set_level(logging.INFO, logger="dvp_webhooks")
    c = world.client
    ns = world.namespace("creds")
    world.register("ValidatingWebhookConfiguration", "d8-cloud-provider-dvp-validation", "validation")
    n = iter(range(1000))

    def bad_secret(labels: dict):
        return lambda: c.create(SECRET, {"metadata": {"name": f"c{next(n)}", "labels": labels},
                                         "type": "cloud-provider.deckhouse.io/credentials",
                                         "stringData": {"authScheme": b64(KUBECONFIG), "secret": "kubeconfig"}}, ns)

    eventually_denied(bad_secret({}))
    exc = eventually_denied(bad_secret({"heritage": "deckhouse", "module": "cloud-provider-dvp"}))
    assert "data.authScheme: must be kubeconfig" in str(exc) and TOKEN not in str(exc) \
        and b64(KUBECONFIG) not in str(exc)
    good = c.create(SECRET, {"metadata": {"name": "good"}, "type": "cloud-provider.deckhouse.io/credentials",
                             "stringData": {"authScheme": "kubeconfig", "secret": b64(KUBECONFIG)}}, ns)
    assert good["type"] == "cloud-provider.deckhouse.io/credentials"
    # Secrets of other types never reach the webhook, whatever their labels: the API server selects by type, so
    # the module's other Secrets do not depend on the webhook being up
    c.create(SECRET, {"metadata": {"name": "tls", "labels": {"heritage": "deckhouse"}}, "type": "Opaque",
                      "stringData": {"a": "b"}}, ns)
    c.delete(SECRET, "good", ns)
    judged = [r.getMessage() for r in caplog.records if r.name == "dvp_webhooks" and f'"{ns}/' in r.getMessage()]
    assert any(f'CREATE Secret "{ns}/good": allowed' in m for m in judged)
    assert any(f'DELETE Secret "{ns}/good": allowed' in m for m in judged)
    assert not [m for m in judged if f'"{ns}/tls"' in m]
