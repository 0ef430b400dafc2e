# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""Controller runner outcomes and typed settings."""

from __future__ import annotations

import pytest
from capdvp.controllers.context import DONE, RETRY, Result
from capdvp.runner import Controller, Metrics
from capdvp.settings import ConfigInvalid, load
from dvp_common.kube import Transient
from prometheus_client import CollectorRegistry

ENV = {"DVP_KUBERNETES_CONFIG_BASE64": "a3ViZWNvbmZpZw==", "DVP_NAMESPACE": "tenant-a", "CLUSTER_UUID": "u-1"}


class Clock:
    def __init__(self) -> None:
        self.t = 100.0

    def __call__(self) -> float:
        return self.t


def controller(result):
    from dvp_common.runtime import WorkQueue
    clock = Clock()
    registry = CollectorRegistry()
    calls = []

    def reconcile(ns, name):
        calls.append((ns, name))
        if isinstance(result, Exception):
            raise result
        return result
    ctl = Controller("test", reconcile, queue=WorkQueue(base_delay=1.0, clock=clock), metrics=Metrics(registry))
    return ctl, clock, registry, calls


def _sample(registry, outcome):
    return registry.get_sample_value("capdvp_reconcile_total", {"controller": "test", "outcome": outcome})


@pytest.mark.parametrize(("result", "outcome", "delays"), [
    (DONE, "ok", []),
    (Result(requeue_after=30.0), "ok", [30.0]),
    (RETRY, "retry", [1.0]),
    (Transient("connection refused"), "error", [1.0]),
])
def test_outcomes_schedule_the_right_requeue(result, outcome, delays):
    ctl, clock, registry, calls = controller(result)
    ctl.process_one(("ns", "m"))
    assert calls == [("ns", "m")]
    assert [round(due - clock.t, 3) for due, _, _ in ctl.queue._delayed] == delays
    assert _sample(registry, outcome) == 1.0


def test_backoff_grows_per_failure_and_resets_on_success():
    ctl, clock, _, _ = controller(RETRY)
    for _ in range(3):
        ctl.process_one(("ns", "m"))
    assert ctl.queue.failures(("ns", "m")) == 3
    ctl.reconcile = lambda ns, name: DONE
    ctl.process_one(("ns", "m"))
    assert ctl.queue.failures(("ns", "m")) == 0


def test_settings_from_flags_and_env():
    s = load(["--leader-elect", "--leader-election-namespace=d8-cloud-provider-dvp",
              "--health-probe-bind-address=:8081", "--webhook-bind-address=:9443",
              "--webhook-cert-dir=/etc/capdvp/webhook-tls", "--log-level=Debug"],
             {**ENV, "ADDITIONAL_VM_LABELS": '{"team": "a"}', "KUBERNETES_SERVICE_HOST": "10.222.0.1",
              "KUBERNETES_SERVICE_PORT": "443"})
    assert s.leader_elect and s.leader_election_id == "70c82521.cluster.x-k8s.io"
    assert (s.health_bind, s.webhook_bind, s.metrics_bind) == ("0.0.0.0:8081", "0.0.0.0:9443", None)  # noqa: S104
    assert s.reconcile.dvp_namespace == "tenant-a" and s.reconcile.cluster_uuid == "u-1"
    assert s.reconcile.additional_vm_labels == {"team": "a"}
    assert (s.reconcile.control_plane_host, s.reconcile.control_plane_port) == ("10.222.0.1", 443)
    assert "a3ViZWNvbmZpZw" not in repr(s)  # the kubeconfig never shows up in logs
    assert s.kubeconfig == ""  # in a pod: the ServiceAccount
    assert load(["--kubeconfig=/tmp/guest.kubeconfig"], ENV).kubeconfig == "/tmp/guest.kubeconfig"
    assert (s.reconcile.recheck, s.reconcile.update_timeout) == (5.0, 600.0)
    tuned = load(["--recheck-seconds=2", "--update-timeout=120"], ENV).reconcile
    assert (tuned.recheck, tuned.update_timeout) == (2.0, 120.0)


@pytest.mark.parametrize(("argv", "env", "message"), [
    ([], {}, "DVP settings: DVP_KUBERNETES_CONFIG_BASE64, DVP_NAMESPACE, CLUSTER_UUID not set"),
    (["--webhook-bind-address=:http"], ENV, "--webhook-bind-address: ':http' is not [host]:port"),
    (["--additional-vm-labels=[1]"], ENV, "--additional-vm-labels: must map strings to strings"),
    (["--vm-delete-timeout=0"], ENV, "--vm-delete-timeout: must be positive, got 0.0"),
    (["--update-timeout=-1"], ENV, "--update-timeout: must be positive, got -1.0"),
    (["--control-plane-endpoint=api"], ENV, "--control-plane-endpoint: 'api' is not host:port"),
])
def test_bad_settings_are_one_clear_line(argv, env, message):
    with pytest.raises(ConfigInvalid) as err:
        load(argv, env)
    assert str(err.value) == message
