# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""KubeClient verbs against the local fake API server; retries with a fake sleep."""

from __future__ import annotations

import pytest
from dvp_common.kube import (
    NO_RETRY,
    AlreadyExists,
    Conflict,
    Fault,
    KubeClient,
    NotFound,
    RetryPolicy,
    ScriptedFaults,
    Transient,
)
from dvp_common.kube.resources import CONFIG_MAP, NODE, SECRET
from dvpc_kit import TOKEN

NS = "ns1"


def cm(name, data=None, labels=None):
    return {"metadata": {"name": name, "labels": labels or {}}, "data": data or {"k": "v"}}


@pytest.fixture
def client(api, fake_time):
    policy = RetryPolicy(attempts=4, base=0.5, cap=4.0, jitter=False)
    return KubeClient.from_url(api.url, token=TOKEN, retry=policy, sleep=fake_time.sleep, clock=fake_time.clock)


def test_create_get_replace_patch_delete(client, api):
    created = client.create(CONFIG_MAP, cm("a"), NS)
    assert (created["kind"], created["apiVersion"], created["metadata"]["namespace"]) == ("ConfigMap", "v1", NS)
    got = client.get(CONFIG_MAP, "a", NS)
    assert got["data"] == {"k": "v"} and got["metadata"]["uid"] == created["metadata"]["uid"]
    got["data"] = {"k": "v2"}
    replaced = client.replace(CONFIG_MAP, got)
    assert replaced["data"] == {"k": "v2"}
    with pytest.raises(Conflict) as info:
        client.replace(CONFIG_MAP, got)  # stale resourceVersion
    assert info.value.status == 409 and type(info.value) is Conflict
    patched = client.patch(CONFIG_MAP, "a", {"data": {"x": "1", "k": None}}, NS)
    assert patched["data"] == {"x": "1"}
    patched = client.patch(CONFIG_MAP, "a", [{"op": "add", "path": "/data/y", "value": "2"}], NS, patch_type="json")
    assert patched["data"] == {"x": "1", "y": "2"}
    assert api.headers[-1]["Content-Type"] == "application/json-patch+json"
    client.patch(CONFIG_MAP, "a", {"data": {"z": "3"}}, NS, patch_type="apply", field_manager="me", force=True)
    method, path, query = api.requests[-1]
    assert (method, query["fieldManager"], query["force"]) == ("PATCH", ["me"], ["true"])
    assert api.headers[-1]["Content-Type"] == "application/apply-patch+yaml"
    client.delete(CONFIG_MAP, "a", NS)
    with pytest.raises(NotFound):
        client.get(CONFIG_MAP, "a", NS)
    assert client.delete(CONFIG_MAP, "a", NS, missing_ok=True) is None
    with pytest.raises(NotFound):
        client.delete(CONFIG_MAP, "a", NS)


def test_requests_carry_bearer_token_and_paths(client, api):
    client.create(NODE, {"metadata": {"name": "n1"}})
    assert api.requests[-1][:2] == ("POST", "/api/v1/nodes")
    assert api.headers[-1]["Authorization"] == f"Bearer {TOKEN}"
    assert client.get(NODE, "n1")["metadata"]["name"] == "n1"


def test_update_status_touches_only_status(client, api):
    """On a kind with a status subresource (ConfigMaps have none: kube-apiserver answers 404 there)."""
    obj = client.create(NODE, {"metadata": {"name": "s", "labels": {"k": "v"}}})
    obj["status"] = {"phase": "Ready"}
    obj["metadata"]["labels"] = {"ignored": "yes"}
    out = client.update_status(NODE, obj)
    assert api.requests[-1][:2] == ("PUT", "/api/v1/nodes/s/status")
    assert out["status"] == {"phase": "Ready"} and out["metadata"]["labels"] == {"k": "v"}
    with pytest.raises(NotFound):
        client.update_status(CONFIG_MAP, {**client.create(CONFIG_MAP, cm("s"), NS), "status": {"phase": "Ready"}})


def test_delete_preconditions_and_finalizers(client):
    obj = client.create(CONFIG_MAP, {**cm("f"), "metadata": {"name": "f", "finalizers": ["x/y"]}}, NS)
    with pytest.raises(Conflict):
        client.delete(CONFIG_MAP, "f", NS, preconditions={"uid": "other"})
    out = client.delete(CONFIG_MAP, "f", NS, preconditions={"uid": obj["metadata"]["uid"]}, propagation="Foreground")
    assert out["metadata"]["deletionTimestamp"]
    client.patch(CONFIG_MAP, "f", {"metadata": {"finalizers": None}}, NS)
    with pytest.raises(NotFound):
        client.get(CONFIG_MAP, "f", NS)


def test_list_selectors_and_paging(client):
    for i in range(5):
        client.create(CONFIG_MAP, cm(f"c{i}", labels={"app": "x" if i % 2 else "y", "i": str(i)}), NS)
    client.create(CONFIG_MAP, cm("other", labels={"app": "x"}), "ns2")
    assert [o["metadata"]["name"] for o in client.list(CONFIG_MAP, NS, label_selector={"app": "x"}).items] == [
        "c1", "c3"]
    assert len(client.list(CONFIG_MAP, label_selector="app=x").items) == 3  # all namespaces
    assert [o["metadata"]["name"] for o in client.list(CONFIG_MAP, NS, field_selector="metadata.name=c4").items] == [
        "c4"]
    page = client.list(CONFIG_MAP, NS, limit=2)
    assert len(page.items) == 2 and page.continue_ and page.resource_version
    rest = client.list(CONFIG_MAP, NS, limit=2, continue_=page.continue_)
    assert [o["metadata"]["name"] for o in rest.items] == ["c2", "c3"]
    assert rest.resource_version == page.resource_version
    assert all(o["kind"] == "ConfigMap" for o in page.items)
    everything = client.list_all(CONFIG_MAP, NS, page_size=2)
    assert [o["metadata"]["name"] for o in everything.items] == [f"c{i}" for i in range(5)]


def test_namespace_is_required_for_namespaced_objects(client):
    with pytest.raises(ValueError, match="Secret s: namespace is required"):
        client.get(SECRET, "s")


def test_get_retries_5xx_with_exponential_backoff(client, api, fake_time):
    client.create(CONFIG_MAP, cm("r"), NS)
    api.script("GET", "/configmaps/r", 503, {"reason": "ServiceUnavailable", "message": "x"}, times=3)
    assert client.get(CONFIG_MAP, "r", NS)["metadata"]["name"] == "r"
    assert fake_time.sleeps == [0.5, 1.0, 2.0]
    assert api.count("GET", "/configmaps/r") == 4


def test_retry_gives_up_after_attempts(client, api, fake_time):
    api.script("GET", "/configmaps/r", 500, {"message": "down"}, times=10)
    with pytest.raises(Transient):
        client.get(CONFIG_MAP, "r", NS)
    assert api.count("GET", "/configmaps/r") == 4 and len(fake_time.sleeps) == 3


def test_retry_after_is_honoured(client, api, fake_time):
    client.create(CONFIG_MAP, cm("r"), NS)
    api.script("GET", "/configmaps/r", 429, {"reason": "TooManyRequests", "message": "later"},
               headers={"Retry-After": "7"})
    client.get(CONFIG_MAP, "r", NS)
    assert fake_time.sleeps == [7.0]


def test_full_jitter_stays_under_the_ceiling():
    policy = RetryPolicy(base=1.0, cap=8.0)
    for attempt, ceiling in [(0, 1.0), (1, 2.0), (2, 4.0), (3, 8.0), (6, 8.0)]:
        delays = [policy.delay(attempt) for _ in range(200)]
        assert all(0 <= d <= ceiling for d in delays) and max(delays) > ceiling / 2
    assert RetryPolicy(max_retry_after=30).delay(0, retry_after=120) == 30
    assert RetryPolicy(base=0.01, cap=0.02, jitter=False).delay(5000) == 0.02  # a long failure streak


def test_plain_create_is_not_retried(client, api, fake_time):
    api.script("POST", "/configmaps", 503, {"message": "x"})
    with pytest.raises(Transient):
        client.create(CONFIG_MAP, cm("p"), NS)
    assert api.count("POST") == 1 and fake_time.sleeps == []


def test_idempotent_create_survives_a_lost_answer(api, fake_time):
    faults = ScriptedFaults([Fault(status=504, after=True)], match=lambda r: r.verb == "create")
    client = KubeClient.from_url(api.url, token=TOKEN, faults=faults, sleep=fake_time.sleep,
                                 retry=RetryPolicy(jitter=False))
    out = client.create(CONFIG_MAP, cm("idem"), NS, get_existing=True)
    assert out["metadata"]["name"] == "idem"
    assert api.count("POST") == 2 and api.count("GET", "/configmaps/idem") == 1
    with pytest.raises(AlreadyExists):
        client.create(CONFIG_MAP, cm("idem"), NS)


def test_delete_retry_that_finds_it_gone_is_success(api, fake_time):
    faults = ScriptedFaults([Fault(status=500, after=True)], match=lambda r: r.verb == "delete")
    client = KubeClient.from_url(api.url, token=TOKEN, faults=faults, sleep=fake_time.sleep)
    client.create(CONFIG_MAP, cm("d"), NS)
    assert client.delete(CONFIG_MAP, "d", NS) is None
    assert api.count("DELETE") == 2


def test_json_patch_without_test_op_is_not_retried_but_with_one_is(client, api):
    client.create(CONFIG_MAP, cm("j"), NS)
    api.script("PATCH", "/configmaps/j", 503, {"message": "x"})
    with pytest.raises(Transient):
        client.patch(CONFIG_MAP, "j", [{"op": "add", "path": "/data/a", "value": "1"}], NS, patch_type="json")
    api.script("PATCH", "/configmaps/j", 503, {"message": "x"})
    rv = client.get(CONFIG_MAP, "j", NS)["metadata"]["resourceVersion"]
    out = client.patch(CONFIG_MAP, "j", [{"op": "test", "path": "/metadata/resourceVersion", "value": rv},
                                         {"op": "add", "path": "/data/a", "value": "1"}], NS, patch_type="json")
    assert out["data"]["a"] == "1" and api.count("PATCH") == 3


def test_metrics_count_every_request_by_verb_and_resource(client, api):
    client.create(CONFIG_MAP, cm("m"), NS)
    client.get(CONFIG_MAP, "m", NS)
    api.script("GET", "/configmaps/m", 500, {"message": "x"})
    client.get(CONFIG_MAP, "m", NS)
    client.list(CONFIG_MAP, NS)
    assert client.metrics.snapshot() == {"create configmaps": 1, "get configmaps": 3, "list configmaps": 1}
    assert client.metrics.errors == {("get", "configmaps", 500): 1}
    reg = client.metrics.registry
    assert reg.get_sample_value("dvp_client_requests_total",
                                {"verb": "get", "resource": "configmaps", "code": "200"}) == 2
    assert reg.get_sample_value("dvp_client_request_errors_total",
                                {"verb": "get", "resource": "configmaps", "code": "500"}) == 1
    assert reg.get_sample_value("dvp_client_request_duration_seconds_count",
                                {"verb": "get", "resource": "configmaps"}) == 3


def test_no_retry_policy(api):
    client = KubeClient.from_url(api.url, token=TOKEN, retry=NO_RETRY)
    api.script("GET", "/configmaps/x", 503, {"message": "x"})
    with pytest.raises(Transient):
        client.get(CONFIG_MAP, "x", NS)


def test_many_threads_share_one_client_without_pool_churn(client, api, caplog):
    import logging
    from concurrent.futures import ThreadPoolExecutor

    caplog.set_level(logging.WARNING, logger="urllib3")
    client.create(CONFIG_MAP, cm("shared"), NS)
    with ThreadPoolExecutor(max_workers=32) as pool:
        names = list(pool.map(lambda _: client.get(CONFIG_MAP, "shared", NS)["metadata"]["name"], range(200)))
    assert names == ["shared"] * 200
    assert "Connection pool is full" not in caplog.text
