# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""A hostile-input run against every route of both webhook servers, over real TLS (the servers as they run in
the pod, lookups in memory): arbitrary JSON shapes inside and outside an AdmissionReview envelope and arbitrary
bytes, with secrets planted in Secret data. Each request must get, within a bounded time, an AdmissionReview
answer carrying its uid when one was readable (HTTP 400 with an empty uid when not), never an internal error,
no traceback logged below error level, and no planted secret in the answer or any log line.

Deterministic: derandomized, no example database."""

from __future__ import annotations

import base64
import json
import logging
import time

import pytest
import requests
from capdvp.admission import ROUTES as CAPDVP_ROUTES
from dvp_common.admission.decider import DEADLINE
from dvp_common.admission.review import API_VERSIONS
from dvp_common.admission.server import WebhookServer
from dvp_webhooks.handlers import ROUTES as PROVIDER_ROUTES
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from testkit.harness import pki
from testkit.webhooks import GROUPS as PROVIDER_GROUPS
from testkit.webhooks import FakeLookups

SECRET = "hostile-S3CRET-9f2e7a61"  # noqa: S105 - planted; must never come back
KUBECONFIG = ("apiVersion: v1\nkind: Config\ncurrent-context: c\nclusters: [{name: c, cluster: {server: "
              f"'https://dvp.example:6443'}}}}]\nusers: [{{name: u, user: {{token: {SECRET}}}}}]\n"
              "contexts: [{name: c, context: {cluster: c, user: u}}]\n")


def b64(text: str) -> str:
    return base64.b64encode(text.encode()).decode()


PLANTED = (SECRET, b64(SECRET), b64(KUBECONFIG), b64(b64(KUBECONFIG)))
# capdvp's webhooks run on the same admission server: the same hostile run covers them
ROUTES = {**PROVIDER_ROUTES, "capdvp": CAPDVP_ROUTES}
GROUPS = {**PROVIDER_GROUPS, "DeckhouseMachine": ("infrastructure.cluster.x-k8s.io", "v1alpha1", "deckhousemachines"),
          "DeckhouseMachineTemplate": ("infrastructure.cluster.x-k8s.io", "v1alpha1", "deckhousemachinetemplates")}
BOUND = DEADLINE + 2.0  # the server's own deadline per request, and slack for a loaded machine
ROUTE_LIST = sorted((mode, path) for mode, routes in ROUTES.items() for path in routes)
RUN = settings(derandomize=True, database=None, deadline=None, max_examples=60,
               suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])

scalars = st.one_of(st.none(), st.booleans(), st.integers(-2**70, 2**70), st.floats(allow_nan=False),
                    st.text(max_size=16), st.sampled_from(
                        ["", "kubeconfig", "CREATE", "master", "CloudEphemeral", "CloudPermanent", "Static", "true",
                         "a?b", "../../x/persistentvolumeclaims/y", "cloud-provider.deckhouse.io/credentials", "data",
                         "DVPInstanceClass", "csi.dvp.deckhouse.io", "Delete", "Retain", "fast", "10Gi"]))
values = st.recursive(scalars, lambda inner: st.lists(inner, max_size=4) | st.dictionaries(
    st.text(max_size=10) | st.sampled_from(["name", "namespace", "spec", "metadata", "source", "type", "kind"]),
    inner, max_size=4), max_leaves=16)
names = st.one_of(st.sampled_from(["data", "worker", "fast", "a.b", "d8-credentials", "x" * 254, "Bad_Name"]), values)
secret_values = st.sampled_from(PLANTED)


def maybe(plausible, chance: int = 3):
    """`plausible` most of the time (chance-1 in chance), any value else."""
    return st.integers(1, chance).flatmap(lambda n: plausible if n > 1 else values)


# The fields the rules read, with values they expect, any value in any of them now and then.
SPECS = {
    "Secret": {},
    "NodeGroup": {"nodeType": maybe(st.sampled_from(["CloudEphemeral", "CloudPermanent", "Static"])),
                  "cloudInstances": maybe(st.fixed_dictionaries({"classReference": maybe(st.fixed_dictionaries({
                      "kind": maybe(st.just("DVPInstanceClass")), "name": names}))}, optional={
                      "minPerZone": values, "maxPerZone": values, "zones": values}))},
    "DVPInstanceClass": {"virtualMachine": values, "rootDisk": values, "etcdDisk": values},
    "VolumeSnapshot": {"source": maybe(st.fixed_dictionaries({}, optional={
        "persistentVolumeClaimName": names, "volumeSnapshotContentName": names})),
        "volumeSnapshotClassName": maybe(names)},
    "VolumeSnapshotContent": {"driver": maybe(st.just("csi.dvp.deckhouse.io")), "deletionPolicy": values,
                              "source": maybe(st.fixed_dictionaries({}, optional={
                                  "volumeHandle": names, "snapshotHandle": names})),
                              "volumeSnapshotRef": maybe(st.fixed_dictionaries({"name": names, "namespace": names})),
                              "volumeSnapshotClassName": names, "sourceVolumeMode": values},
    "VolumeSnapshotClass": {},
}
MACHINE_SPEC = {"vmClassName": maybe(st.just("generic")), "cpu": maybe(st.fixed_dictionaries({}, optional={
    "cores": values, "coreFraction": values})), "memory": maybe(st.sampled_from(["8Gi", ".5Gi", "1.2.3Gi"])),
    "rootDiskSize": maybe(st.just("20Gi")), "bootDiskImageRef": maybe(st.fixed_dictionaries({
        "kind": maybe(st.just("ClusterVirtualImage")), "name": names})),
    "additionalDisks": values, "providerID": maybe(st.just("dvp://x")), "tolerations": values,
    "runPolicy": values, "liveMigrationPolicy": maybe(st.just("PreferForced"))}
SPECS["DeckhouseMachine"] = MACHINE_SPEC
SPECS["DeckhouseMachineTemplate"] = {"template": maybe(st.fixed_dictionaries({"spec": st.fixed_dictionaries(
    {}, optional=MACHINE_SPEC)}))}


@st.composite
def objects(draw, kind: str):
    """Objects shaped like `kind`: the fields its rules read, mostly plausible, sometimes anything; a Secret
    carries planted secrets in its data."""
    group, version, _ = GROUPS[kind]
    meta = draw(maybe(st.fixed_dictionaries({"name": names}, optional={
        "namespace": maybe(st.just("d8-cloud-provider-dvp")), "labels": values, "annotations": values,
        "uid": values}), chance=6))
    obj: dict = {"apiVersion": f"{group}/{version}" if group else version, "kind": kind, "metadata": meta}
    spec = {k: draw(v) for k, v in SPECS[kind].items() if draw(st.integers(0, 3))}
    if SPECS[kind]:
        obj["spec"] = draw(maybe(st.just(spec), chance=6))
    if kind == "Secret":
        obj["type"] = draw(maybe(st.just("cloud-provider.deckhouse.io/credentials"), chance=6))
    if kind == "VolumeSnapshotClass":
        obj.update({"driver": draw(maybe(st.just("csi.dvp.deckhouse.io"))), "deletionPolicy": draw(values),
                    "parameters": draw(values)})
    for key in ("data", "stringData"):
        if draw(st.booleans()):
            obj[key] = draw(maybe(st.dictionaries(st.sampled_from(["authScheme", "secret", "identity", "x"]),
                                                  secret_values | st.just("kubeconfig") | values, max_size=3)))
    return obj


REQUEST_KEYS = ("uid", "kind", "operation", "name", "namespace", "object", "oldObject", "userInfo", "dryRun")


@st.composite
def reviews(draw, kind: str):
    """The envelope the API server sends, a third of the time with one part broken or missing."""
    group, version, resource = GROUPS[kind]
    op = draw(st.sampled_from(["CREATE", "UPDATE", "DELETE"]))
    req = {"uid": "7f1c2b3a-uid", "kind": {"group": group, "version": version, "kind": kind},
           "resource": {"group": group, "version": version, "resource": resource}, "operation": op,
           "name": draw(st.one_of(st.none(), names)),
           "namespace": draw(st.sampled_from([None, "d8-cloud-provider-dvp", "ns1"])),
           "object": draw(objects(kind)) if op != "DELETE" else None,
           "oldObject": draw(objects(kind)) if op != "CREATE" else None,
           "userInfo": draw(st.sampled_from([{"username": "system:serviceaccount:d8-system:deckhouse"},
                                             {"username": "admin", "groups": ["system:masters"]}])),
           "dryRun": draw(st.booleans())}
    doc = {"apiVersion": draw(st.sampled_from(API_VERSIONS)), "kind": "AdmissionReview", "request": req}
    broken = draw(st.sampled_from([None] * 18 + [*REQUEST_KEYS, "apiVersion", "request"]))
    if broken in ("apiVersion", "request"):
        doc[broken] = draw(values)
    elif broken and draw(st.booleans()):
        del req[broken]
    elif broken:
        req[broken] = draw(values)
    return doc


raw_bodies = st.one_of(
    st.binary(max_size=256),
    values.map(lambda v: json.dumps(v).encode()),
    st.integers(1, 2000).map(lambda n: b'{"request":' * n + b"{}" + b"}" * n),  # deep, up to past the limit
    st.integers(1, 2000).map(lambda n: b"[" * n),  # unterminated
    st.sampled_from([b"", b"\xef\xbb\xbf{}", b'{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview",'
                     b'"request":{"uid":"u","object":{"a":"\xff"}}}', b"1e999999", b'"' + SECRET.encode() + b'"',
                     b'{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":"'
                     + SECRET.encode() + b'"']))


@pytest.fixture(scope="module")
def servers(tmp_path_factory):
    tls = pki.generate(tmp_path_factory.mktemp("pki"))
    lookups = FakeLookups(
        instance_classes=[{"metadata": {"name": "worker"}, "spec": {}, "status": {"nodeGroupConsumers": ["a"]}}],
        node_groups=[{"metadata": {"name": "a"}, "spec": {"nodeType": "CloudEphemeral", "cloudInstances": {
            "classReference": {"kind": "DVPInstanceClass", "name": "worker"}}}}],
        pvcs=[{"metadata": {"name": "data", "namespace": "ns1"}, "spec": {"storageClassName": "fast"}}],
        storage_classes=[{"metadata": {"name": "fast"}, "provisioner": "csi.dvp.deckhouse.io"}],
        snapshot_classes=[{"metadata": {"name": "fast", "annotations": {
            "snapshot.storage.kubernetes.io/is-default-class": "true"}}, "driver": "csi.dvp.deckhouse.io",
            "deletionPolicy": "Delete"}])
    running = {mode: WebhookServer("127.0.0.1:0", routes, lookups, str(tls.serving_cert),
                                   str(tls.serving_key)).start() for mode, routes in ROUTES.items()}
    session = requests.Session()
    yield running, session, str(tls.ca_cert)
    session.close()
    for srv in running.values():
        srv.stop()


class Captured(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)


def send(servers, mode: str, path: str, raw: bytes) -> tuple[requests.Response, list[logging.LogRecord]]:
    """One POST over TLS; every log record of any logger meanwhile (the server logs in its own threads)."""
    running, session, ca = servers
    handler, root = Captured(), logging.getLogger()
    old_level = root.level
    root.addHandler(handler)
    root.setLevel(logging.DEBUG)
    try:
        start = time.monotonic()
        resp = session.post(f"https://127.0.0.1:{running[mode].port}{path}", data=raw, timeout=BOUND + 5, verify=ca,
                            headers={"Content-Type": "application/json"})
        elapsed = time.monotonic() - start
    finally:
        root.removeHandler(handler)
        root.setLevel(old_level)
    assert elapsed < BOUND, f"{path}: answered after {elapsed:.1f} s"
    return resp, handler.records


def readable_uid(raw: bytes) -> tuple[str, str] | None:
    """(uid, apiVersion) when the body is an AdmissionReview whose uid can be read, as the API server sends."""
    try:
        doc = json.loads(raw)
    except (ValueError, RecursionError):
        return None
    if not isinstance(doc, dict) or doc.get("apiVersion") not in API_VERSIONS or doc.get("kind") != "AdmissionReview":
        return None
    req = doc.get("request")
    uid = req.get("uid") if isinstance(req, dict) else None
    return (uid, doc["apiVersion"]) if isinstance(uid, str) and 0 < len(uid) <= 128 else None


def check(resp: requests.Response, records: list[logging.LogRecord], raw: bytes, path: str) -> None:
    assert resp.headers["Content-Type"] == "application/json"
    out = resp.json()
    assert set(out) == {"apiVersion", "kind", "response"} and out["kind"] == "AdmissionReview"
    answer = out["response"]
    assert isinstance(answer["allowed"], bool)
    known = readable_uid(raw)
    if known:
        assert resp.status_code == 200 and (answer["uid"], out["apiVersion"]) == known, (path, out)
    else:
        assert resp.status_code == 400 and answer["uid"] == "" and answer["allowed"] is False, (path, out)
    if not answer["allowed"]:
        status = answer["status"]
        assert status["code"] in (400, 403) and isinstance(status["message"], str), (path, out)  # no 500
    for record in records:
        text = record.getMessage()
        if record.levelno < logging.ERROR:
            assert record.exc_info is None and "Traceback" not in text, (record.levelname, text)
        assert not any(p in text for p in PLANTED), text
    assert not any(p in resp.text for p in PLANTED), resp.text


@pytest.mark.parametrize(("mode", "path"), ROUTE_LIST)
@RUN
@given(data=st.data())
def test_any_review_shape_gets_a_well_formed_answer_in_bounded_time(servers, mode, path, data):
    review = data.draw(reviews(ROUTES[mode][path].kind))
    raw = json.dumps(review).encode()
    check(*send(servers, mode, path, raw), raw, path)


@RUN
@given(raw=raw_bodies, which=st.sampled_from(ROUTE_LIST))
def test_any_bytes_get_an_answer_or_400_in_bounded_time(servers, raw, which):
    mode, path = which
    check(*send(servers, mode, path, raw), raw, path)
