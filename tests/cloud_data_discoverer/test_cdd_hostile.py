# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""The discoverer under hostile or broken input: malformed DVP objects and installer data, an error page that
echoes our token, a DVP that drips its answers, data past a Secret's size, permanent refusals by the guest API.

The guest side is the real guest kube-apiserver (testkit/harness), a fresh namespace per test. The DVP side is
either a reader handing out whatever shapes the test wants (a real API server would refuse most of them; a
broken DVP or a proxy in front of it need not) or a real client against testkit/harness/hostile_http.py.
"""

from __future__ import annotations

import base64
import datetime as dt
import json
import logging
import secrets
import threading
from pathlib import Path
from typing import Any

import jsonschema
import pytest
import yaml
from cloud_data_discoverer.discoverer import Discoverer
from cloud_data_discoverer.domain import shapes
from cloud_data_discoverer.errors import Scrub
from cloud_data_discoverer.guest import Guest
from cloud_data_discoverer.metrics import Metrics
from dvp_common.dvp import DVPConnection, Inventory
from dvp_common.dvp.resources import RESOURCE_QUOTA
from dvp_common.kube import Fault, Forbidden, KubeClient, RetryPolicy, Transient
from dvp_common.kube.resources import CONFIG_MAP, SECRET
from dvp_common.runtime.logging import JsonFormatter
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from prometheus_client import generate_latest

from testkit.harness.hostile_http import HostileHTTP, dripping_body, echo_headers

ROOT = Path(__file__).resolve().parents[2]
# Never a valid name (upper case, underscore), so it cannot be published as one; not a JWT either.
TOKEN = "Tok3n_" + secrets.token_urlsafe(24)
INSTALLER = "d8-provider-cluster-configuration"
DISCOVERY = "d8-cloud-provider-discovery-data"
CONDITIONS = "d8-cloud-provider-conditions"


def schema() -> dict:
    doc = yaml.safe_load((ROOT / "candi/openapi/cloud_discovery_data.yaml").read_text())
    return doc["apiVersions"][0]["openAPISpec"]


class ShapesDVP:
    """An Inventory stand-in: each read returns its list, or raises it when it is an exception."""

    def __init__(self, **reads: Any) -> None:
        self.reads = {k: [] for k in ("quotas", "vm_classes", "storage_classes", "our_disks", "vms", "attachments")}
        self.reads.update(reads)

    def __getattr__(self, name: str):
        def read() -> list:
            value = self.reads[name]
            if isinstance(value, BaseException):
                raise value
            return value
        return read


class World:
    def __init__(self, guest_api, dvp, *, grace: float = 7 * 86400.0, guest_client: KubeClient | None = None,
                 ns: str | None = None):
        self.guest_api = guest_api
        self.admin = guest_api.client()
        self.ns = ns or guest_api.create_namespace("cddh")
        self.metrics = Metrics()
        self.sleeps: list[float] = []
        self.client = guest_client or guest_api.client()
        self.guest = Guest(self.client, attempts=3, backoff=0.01, cap=0.02, sleep=self.sleeps.append,
                           namespace=self.ns, catalog_name=f"{self.ns}-catalog")  # cluster-wide: its own
        self.clock = [dt.datetime(2026, 1, 1, tzinfo=dt.UTC)]
        self.disc = Discoverer(dvp, self.guest, self.metrics, "uuid-1", orphan_min_age=0,
                               now=lambda: self.clock[0], vanished_grace=grace, scrub=Scrub(lambda: [TOKEN]))

    def installer(self, raw: bytes) -> None:
        body = {"metadata": {"name": INSTALLER},
                "data": {"cloud-provider-discovery-data.json": base64.b64encode(raw).decode()}}
        try:
            current = self.admin.get(SECRET, INSTALLER, self.ns)
        except Exception:  # noqa: BLE001 - first time
            self.admin.create(SECRET, body, self.ns)
            return
        current["data"] = body["data"]
        self.admin.replace(SECRET, current, self.ns)

    def secret(self) -> dict | None:
        try:
            return self.admin.get(SECRET, DISCOVERY, self.ns)
        except Exception:  # noqa: BLE001 - not written
            return None

    def data(self) -> dict:
        return json.loads(base64.b64decode(self.secret()["data"]["discovery-data.json"]))

    def conditions(self) -> list[dict]:
        return json.loads(self.admin.get(CONFIG_MAP, CONDITIONS, self.ns)["data"]["conditions"])

    def sample(self, name: str, labels: dict | None = None) -> float | None:
        return self.metrics.registry.get_sample_value(name, labels or {})

    def outputs(self, records: list[logging.LogRecord]) -> str:
        """Everything the discoverer published: logs as written, the ConfigMap, the Secret, metrics, health."""
        secret = self.secret()
        cm = self.admin.get(CONFIG_MAP, CONDITIONS, self.ns)
        data = {k: base64.b64decode(v).decode() for k, v in ((secret or {}).get("data") or {}).items()}
        logs = "\n".join(JsonFormatter().format(r) + r.getMessage() for r in records)
        return "\n".join([logs, json.dumps(cm.get("data")), json.dumps(data),
                          generate_latest(self.metrics.registry).decode(), str(self.disc.readiness()),
                          str(self.disc.liveness())])


def sc(name: str, **extra) -> dict:
    return {"metadata": {"name": name}, "provisioner": "x", **extra}


def test_error_page_echoing_the_token_reaches_no_output(guest_api, caplog):
    """A 502 page quoting our Authorization header (plainly and percent-encoded)."""
    page = HostileHTTP({"/": echo_headers()})
    try:
        client = KubeClient.from_url(page.url, token=TOKEN, retry=RetryPolicy(attempts=2, base=0.01, jitter=False))
        with pytest.raises(Transient) as raw:
            client.list_all(RESOURCE_QUOTA, "p")
        assert TOKEN in str(raw.value)  # the threat is real: the page does carry the token
        w = World(guest_api, Inventory(DVPConnection(client, "p", "uuid-1")))
        with caplog.at_level(logging.INFO):
            result = w.disc.run_once()
    finally:
        page.stop()
    assert result.dvp_error
    [reach] = w.conditions()
    assert reach["ok"] is False and reach["message"].startswith(
        'the DVP API is unreachable: list ResourceQuota in namespace "p": 502')
    assert "<redacted>" in reach["message"]
    assert w.sample("cloud_data_discovery_cloud_conditions_error", {
        "name": "DVPAPIReachable", "message": "the DVP API is unreachable: HTTP 502"}) == 1
    assert TOKEN not in w.outputs(caplog.records)


def test_malformed_objects_are_skipped_and_the_round_goes_on(guest_api, caplog):
    dvp = ShapesDVP(
        storage_classes=[sc("fast"), {"metadata": {}}, sc(42), {"metadata": {"name": "x", "annotations": ["a"]}},
                         "text", sc("slow", reclaimPolicy="Retain")],
        vm_classes=[{"metadata": {"name": "generic"}, "spec": {"sizingPolicies": "1-4 cores"}},
                    {"metadata": {"name": "small"}, "spec": {"sizingPolicies": [{"cores": {"min": 1, "max": 2}}]}}],
        quotas=[{"metadata": {"name": "q"}, "status": {"hard": ["cpu"]}}])
    w = World(guest_api, dvp)
    w.installer(json.dumps({"zones": "zone-a", "layout": "Standard"}).encode())
    with caplog.at_level(logging.INFO):
        result = w.disc.run_once()
    assert result.failed is None and result.dvp_error is None and result.discovery_written
    data = w.data()
    jsonschema.validate(data, schema())
    assert data == {"apiVersion": "deckhouse.io/v1", "kind": "DVPCloudDiscoveryData", "layout": "Standard",
                    "zones": ["default"], "storageClasses": [
                        {"name": "fast", "volumeBindingMode": "WaitForFirstConsumer", "reclaimPolicy": "Delete",
                         "isEnabled": True},
                        {"name": "slow", "volumeBindingMode": "WaitForFirstConsumer", "reclaimPolicy": "Retain",
                         "isEnabled": True}]}
    skipped = [r.getMessage() for r in caplog.records if r.getMessage().startswith("skipped ")]
    assert skipped == [
        "skipped ResourceQuota \"q\": status.hard is not an object",
        "skipped VirtualMachineClass \"generic\": spec.sizingPolicies is not a list",
        "skipped StorageClass #1 (no usable name): metadata.name is missing or not a DNS-1123 name",
        "skipped StorageClass #2 (no usable name): metadata.name is missing or not a DNS-1123 name",
        "skipped StorageClass \"x\": metadata.annotations is not an object",
        "skipped StorageClass #4 (no usable name): the object is not a JSON object",
        f"skipped Secret \"{w.ns}/{INSTALLER}\": zones: not a list of distinct zone names (dropped)"]
    for kind, n in (("storage_class", 4), ("vm_class", 1), ("resource_quota", 1), ("installer_data", 1),
                    ("virtual_disk", 0)):
        assert w.sample("cloud_data_discovery_skipped_objects", {"type": kind}) == n
    assert w.conditions()[1] == {"name": "DiscoveryDataValid", "ok": False, "message":
                                 f'Secret "{w.ns}/{INSTALLER}": zones: not a list of distinct zone names (dropped)'}
    assert [t.virtual_machine_class for t in result.instance_types] == ["small"]
    assert w.disc.readiness() is None and w.sample("cloud_data_discovery_round_error") == 0


@pytest.mark.parametrize("raw,message", [
    (b"\xff\xfe{}", "key cloud-provider-discovery-data.json is not base64 of UTF-8 text"),
    (b'{"zones":' + b"[" * 5000 + b"]" * 5000 + b"}", "discovery data is nested too deep"),
])
def test_unusable_installer_data_keeps_the_last_good_secret(guest_api, raw, message):
    w = World(guest_api, ShapesDVP(storage_classes=[sc("a")]))
    w.disc.run_once()
    before = w.secret()
    w.installer(raw)
    result = w.disc.run_once()
    assert result.failed is None and not result.discovery_written
    assert w.secret()["metadata"]["resourceVersion"] == before["metadata"]["resourceVersion"]
    assert w.conditions()[1] == {"name": "DiscoveryDataValid", "ok": False,
                                 "message": f'Secret "{w.ns}/{INSTALLER}": {message}'}
    assert w.sample("cloud_data_discovery_cloud_conditions_error", {
        "name": "DiscoveryDataValid", "message": "the installer's data is unusable"}) == 1
    assert w.disc.liveness() is None


def test_a_failing_phase_makes_readiness_false_and_the_others_still_run(guest_api):
    dvp = ShapesDVP(storage_classes=[sc("a")], vm_classes=RuntimeError("a bug"))
    w = World(guest_api, dvp)
    result = w.disc.run_once()
    assert result.failed == "instance_types: internal error (RuntimeError)"
    assert result.discovery_written and w.data()["storageClasses"][0]["name"] == "a"
    assert w.disc.readiness() == "instance_types: internal error (RuntimeError)"
    assert w.sample("cloud_data_discovery_round_error") == 1
    assert w.sample("cloud_data_discovery_cloud_request_error", {"type": "instance_types"}) == 1
    assert w.disc.liveness() is None
    dvp.reads["vm_classes"] = []
    w.disc.run_once()
    assert w.disc.readiness() is None and w.sample("cloud_data_discovery_round_error") == 0


def test_vanished_classes_expire_after_the_grace_period(guest_api):
    dvp = ShapesDVP(storage_classes=[sc("keep"), sc("gone")])
    w = World(guest_api, dvp, grace=86400.0)
    w.installer(json.dumps({"storageClasses": [{"name": "legacy"}]}).encode())
    w.disc.run_once()
    assert [e["name"] for e in w.data()["storageClasses"]] == ["gone", "keep", "legacy"]
    dvp.reads["storage_classes"] = [sc("keep")]
    w.clock[0] += dt.timedelta(hours=1)
    w.disc.run_once()
    assert [e["name"] for e in w.data()["storageClasses"]] == ["gone", "keep", "legacy"]
    vanished = json.loads(base64.b64decode(w.secret()["data"]["vanished-storage-classes.json"]))
    assert vanished == {"gone": "2026-01-01T01:00:00Z", "legacy": "2026-01-01T00:00:00Z"}
    w.clock[0] += dt.timedelta(hours=23, minutes=30)  # legacy missed 24.5 h, gone 23.5 h
    w.disc.run_once()
    assert [e["name"] for e in w.data()["storageClasses"]] == ["gone", "keep"]
    w.clock[0] += dt.timedelta(hours=1)
    w.disc.run_once()
    assert [e["name"] for e in w.data()["storageClasses"]] == ["keep"]  # the installer's class stays away too
    w.disc.run_once()  # the record forgets a class once no source lists it (ours did, until the last round)
    assert [e["name"] for e in w.data()["storageClasses"]] == ["keep"]
    assert json.loads(base64.b64decode(w.secret()["data"]["vanished-storage-classes.json"])) == {
        "legacy": "2026-01-01T00:00:00Z"}


def test_data_past_a_secrets_size_is_not_written_and_liveness_holds(guest_api):
    dvp = ShapesDVP(storage_classes=[sc("small")])
    w = World(guest_api, dvp)
    w.disc.run_once()
    before = w.secret()["metadata"]["resourceVersion"]
    dvp.reads["storage_classes"] = [sc(f"{i:05d}-" + "x" * 240) for i in range(4000)]
    writes = w.client.metrics.total("update", "secrets") + w.client.metrics.total("create", "secrets")
    result = w.disc.run_once()
    assert result.refused.startswith(f'Secret "{w.ns}/{DISCOVERY}": the discovery data would take ')
    assert result.refused.endswith("over the 983040 a Secret can safely hold; the last written data is kept")
    assert w.client.metrics.total("update", "secrets") + w.client.metrics.total("create", "secrets") == writes
    assert w.secret()["metadata"]["resourceVersion"] == before
    assert w.disc.liveness() is None  # a restart would change nothing
    assert w.disc.readiness() == result.refused
    assert w.sample("cloud_data_discovery_update_resource_error") == 1


def test_a_permanent_refusal_is_not_retried(guest_api):
    refusing = guest_api.client(retry=RetryPolicy(attempts=1), faults=lambda req: Fault(
        status=422, reason="Invalid", message="data: Too long") if req.resource == "secrets" and req.verb in (
        "create", "update") else None)
    w = World(guest_api, ShapesDVP(storage_classes=[sc("a")]), guest_client=refusing)
    result = w.disc.run_once()
    assert result.refused == (f'Secret "{w.ns}/{DISCOVERY}": refused, not retried: create Secret '
                              f'"{w.ns}/{DISCOVERY}": 422 Invalid: data: Too long')
    assert w.sleeps == []  # neither the Secret nor the ConfigMap waited
    assert w.disc.liveness() is None and w.disc.readiness() == result.refused
    assert w.sample("cloud_data_discovery_update_resource_error") == 1


def test_a_dripping_dvp_does_not_hold_a_round(guest_api):
    """Every DVP answer drips a byte per 0.1 s, inside any read timeout; the reads' deadline ends it."""
    slow = HostileHTTP({"/": dripping_body()}, drip=0.1)
    try:
        client = KubeClient.from_url(slow.url, token=TOKEN)
        w = World(guest_api, Inventory(DVPConnection(client, "p", "uuid-1"), deadline=0.5))
        box: dict = {}
        thread = threading.Thread(target=lambda: box.update(result=w.disc.run_once()), daemon=True)
        thread.start()
        thread.join(30)  # the drips would last 10000 s: only a broken build waits this long
        assert not thread.is_alive()
        assert slow.hung_up.wait(10)
    finally:
        slow.stop()
    result = box["result"]
    assert result.dvp_error == ('list ResourceQuota in namespace "p": 0 DeadlineExceeded: '
                                "no complete answer within 0.5s")
    assert w.disc.readiness() == result.dvp_error
    assert w.sample("cloud_data_discovery_cloud_conditions_error", {
        "name": "DVPAPIReachable", "message": "the DVP API is unreachable: DeadlineExceeded"}) == 1


@pytest.fixture(scope="module")
def shared_ns(guest_api) -> str:
    return guest_api.create_namespace("cddany")


# Any shape at all --------------------------------------------------------------------------------------------
leaf = st.one_of(st.none(), st.booleans(), st.integers(-2**70, 2**70), st.floats(allow_nan=True),
                 st.text(max_size=12), st.sampled_from([TOKEN, f"Bearer {TOKEN}", "fast", "Delete", "true", "5Gi",
                                                        "VirtualDisk", "csi.dvp.deckhouse.io", "uuid-1", "50%"]))
json_value = st.recursive(leaf, lambda inner: st.lists(inner, max_size=3) | st.dictionaries(
    st.sampled_from(["name", "kind", "min", "max", "size", "a", TOKEN]) | st.text(max_size=6), inner, max_size=3),
    max_leaves=12)
names = st.one_of(st.sampled_from(["fast", "slow", "a.b", "vm-1", "q"]), json_value)
meta = st.one_of(json_value, st.fixed_dictionaries({}, optional={
    "name": names, "uid": st.one_of(st.just("0a1b-2c"), json_value),
    "labels": st.one_of(st.just({"dvp.deckhouse.io/cluster-uuid": "uuid-1"}), json_value),
    "annotations": st.one_of(st.just({"storageclass.kubernetes.io/is-default-class": "true"}), json_value),
    "creationTimestamp": st.one_of(st.just("2025-01-01T00:00:00Z"), json_value)}))
obj = st.one_of(json_value, st.fixed_dictionaries({"metadata": meta}, optional={
    "spec": json_value, "status": json_value, "reclaimPolicy": json_value, "allowVolumeExpansion": json_value}))
failure = st.sampled_from([Transient(f"502: Authorization: Bearer {TOKEN}", status=502),
                           Forbidden(f"token {TOKEN} is not allowed", status=403)])
reads = st.one_of(st.lists(obj, max_size=4), failure)
installer = st.one_of(st.binary(max_size=40), json_value.map(lambda v: json.dumps(v).encode()),
                      st.fixed_dictionaries({}, optional={
                          "zones": json_value, "layout": json_value, "storageClasses": json_value,
                          "apiVersion": json_value, TOKEN: json_value}).map(lambda v: json.dumps(v).encode()))


@settings(max_examples=40, derandomize=True, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture,
                                                                 HealthCheck.too_slow])
@given(storage=reads, vmcs=reads, quotas=reads, disks=reads, vms=reads, bdas=reads, raw=installer)
def test_any_shape_gives_a_completed_round_and_no_secret(guest_api, shared_ns, storage, vmcs, quotas, disks, vms,
                                                         bdas, raw):
    """One namespace for all examples: each round starts from what the examples before it left."""
    dvp = ShapesDVP(storage_classes=storage, vm_classes=vmcs, quotas=quotas, our_disks=disks, vms=vms,
                    attachments=bdas)
    w = World(guest_api, dvp, ns=shared_ns)
    w.installer(raw)
    records: list[logging.LogRecord] = []
    handler = logging.Handler()
    handler.emit = records.append  # type: ignore[method-assign]
    logger = logging.getLogger("cloud_data_discoverer")
    logger.addHandler(handler)
    try:
        result = w.disc.run_once()
    finally:
        logger.removeHandler(handler)
    assert result.failed is None, result.failed  # no phase broke: every shape is judged, none crashes
    secret = w.secret()
    if secret is not None:
        jsonschema.validate(w.data(), schema())
    for sample in w.metrics.orphaned.collect()[0].samples + w.metrics.instance_types.collect()[0].samples:
        assert shapes.is_name(sample.labels.get("name") or sample.labels["virtual_machine_class"])
    for sample in w.metrics.conditions.collect()[0].samples:
        assert "\n" not in sample.labels["message"] and len(sample.labels["message"]) < 300
    assert TOKEN not in w.outputs(records)
