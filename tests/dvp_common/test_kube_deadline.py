# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""The total deadline of every request, against a real loopback server that drips its answer; answers of the
wrong shape from the same server.

Each drip comes well inside the read timeout, so the read timeout alone never fires: only the deadline ends
the request. The server (testkit/harness/hostile_http.py) notes when the client hangs up; the tests wait on that.
"""

from __future__ import annotations

import json
import threading

import pytest
from dvp_common.kube import KubeClient, RetryPolicy, Transient, deadline
from dvp_common.kube.resources import CONFIG_MAP
from dvp_common.kube.transport import DEFAULT_DEADLINE, Transport
from dvpc_kit import TOKEN

from testkit.harness.hostile_http import HostileHTTP, dripping_body, dripping_head, json_answer

OK_BODY = json.dumps({"kind": "ConfigMap", "apiVersion": "v1", "metadata": {"name": "ok"}}).encode()


@pytest.fixture
def dripper():
    """Each drip comes 0.1 s after the last, far inside the 5 s read timeout of client_for."""
    server = HostileHTTP({"/ok": json_answer(OK_BODY), "/slow-body": dripping_body(),
                          "/slow-head": dripping_head()}, drip=0.1)
    yield server
    server.stop()


def client_for(server: HostileHTTP, **kwargs) -> KubeClient:
    transport = Transport(KubeClient.from_url(server.url, token=TOKEN).transport.credentials, timeout=(5.0, 5.0))
    return KubeClient(transport, retry=RetryPolicy(attempts=3, base=0.01, cap=0.01, jitter=False), **kwargs)


def cut(call) -> Transient:
    """Run `call` in a thread; it must fail with DeadlineExceeded long before the dripped answer ends
    (10000 s of drips): the join's bound only keeps a broken build from hanging the suite."""
    box: dict = {}

    def run() -> None:
        try:
            box["result"] = call()
        except Exception as exc:  # noqa: BLE001 - handed to the test
            box["error"] = exc

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(30)
    assert not thread.is_alive(), "the request outlived its deadline"
    error = box.get("error")
    assert isinstance(error, Transient), box
    return error


def test_a_dripping_body_is_cut_at_the_call_deadline(dripper):
    client = client_for(dripper, deadline=0.5)
    error = cut(lambda: client.get(CONFIG_MAP, "slow-body", "ns"))
    assert error.reason == "DeadlineExceeded"
    assert str(error) == 'get ConfigMap "ns/slow-body": 0 DeadlineExceeded: no complete answer within 0.5s'
    assert dripper.hung_up.wait(10)
    # the budget covers the retries too: one attempt used it all, none follows
    assert dripper.requests == ["/api/v1/namespaces/ns/configmaps/slow-body"]
    # the client goes on working after a cut
    assert client.get(CONFIG_MAP, "ok", "ns")["metadata"]["name"] == "ok"


def test_a_dripping_status_line_is_cut_too(dripper):
    client = client_for(dripper)
    error = cut(lambda: client.get(CONFIG_MAP, "slow-head", "ns", deadline=0.4))
    assert error.reason == "DeadlineExceeded" and "within 0.4s" in str(error)
    assert dripper.hung_up.wait(10)


def test_per_call_deadline_overrides_the_client_default_and_list_all_shares_one(dripper):
    client = client_for(dripper)
    assert client.deadline == DEFAULT_DEADLINE == 60.0
    assert client.get(CONFIG_MAP, "ok", "ns", deadline=5)["metadata"]["name"] == "ok"
    error = cut(lambda: client.list_all(CONFIG_MAP, "slow-body", deadline=0.3))
    assert error.reason == "DeadlineExceeded" and error.verb == "list"


def test_watch_opening_is_bounded(dripper):
    client = client_for(dripper, deadline=0.4)
    error = cut(lambda: client.watch(CONFIG_MAP, "slow-head"))
    assert error.reason == "DeadlineExceeded" and error.verb == "watch"


def test_retries_stop_where_the_budget_ends(api, fake_time):
    """Retry-After 7 s against a 10 s budget: one retry fits, a second would end past the deadline."""
    client = KubeClient.from_url(api.url, token=TOKEN, retry=RetryPolicy(attempts=5), sleep=fake_time.sleep,
                                 clock=fake_time.clock, deadline=10)
    api.script("GET", "/configmaps/x", 503, {"reason": "ServiceUnavailable", "message": "busy"}, times=5,
               headers={"Retry-After": "7"})
    with pytest.raises(Transient, match="503 ServiceUnavailable: busy"):
        client.get(CONFIG_MAP, "x", "ns1")
    assert fake_time.sleeps == [7.0]
    assert [r for r in api.requests if r[1].endswith("/configmaps/x")].__len__() == 2


def test_a_late_cut_never_reaches_a_connection_given_back(dripper):
    """The pool takes a connection back from its exchange: a deadline passing afterwards touches nothing, and
    answers read to the end keep the connection alive for the next request."""
    client = client_for(dripper)
    for _ in range(3):
        assert client.get(CONFIG_MAP, "ok", "ns")["metadata"]["name"] == "ok"
    with deadline.bounded(100) as exchange:
        assert client.transport.session.get(dripper.url + "/api/v1/namespaces/ns/configmaps/ok").ok
        assert exchange.expire() is False  # the connection went back to the pool: nothing of ours to cut
    assert exchange.expire() is True  # finished: nothing to do
    assert client.get(CONFIG_MAP, "ok", "ns")["metadata"]["name"] == "ok"
    assert dripper.connections == 1


@pytest.mark.parametrize("body,message", [
    (b"[1, 2]", "answer is not a JSON object"),
    (b"[" * 100000 + b"]" * 100000, "answer is not JSON"),
    (b'{"items": {"a": 1}}', "answer's items is not a list"),
])
def test_answers_of_the_wrong_shape_are_errors_not_crashes(body, message):
    server = HostileHTTP({"/configmaps": json_answer(body)})
    try:
        with pytest.raises(Transient) as info:
            client_for(server).list(CONFIG_MAP, "ns")
    finally:
        server.stop()
    assert info.value.message == message


def test_list_items_that_are_not_objects_are_passed_on_for_the_caller_to_judge():
    server = HostileHTTP({"/configmaps": json_answer(b'{"metadata": [], "items": [1, "x", {"metadata": {}}]}')})
    try:
        page = client_for(server).list(CONFIG_MAP, "ns")
    finally:
        server.stop()
    assert page.items == [1, "x", {"metadata": {}, "apiVersion": "v1", "kind": "ConfigMap"}]
    assert (page.resource_version, page.continue_) == ("", None)
