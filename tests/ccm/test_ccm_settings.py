# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
from __future__ import annotations

import pytest
from dvp_ccm import settings as S

ENV = {"DVP_KUBERNETES_CONFIG_BASE64": "a2luZDogQ29uZmln", "DVP_NAMESPACE": "proj", "CLUSTER_UUID": "u-1"}
DEPLOYED = ["--cloud-provider=dvp", "--controllers=cloud-node,cloud-node-lifecycle", "--leader-elect",
            "--leader-election-namespace=d8-cloud-provider-dvp", "--health-probe-bind-address=:4211",
            "--log-level=Debug"]


def test_flags_of_the_deployment():
    s = S.load(DEPLOYED, ENV)
    assert s.controllers == {"cloud-node", "cloud-node-lifecycle"}
    assert s.leader_elect and s.leader_election_namespace == "d8-cloud-provider-dvp"
    assert s.health_bind == "0.0.0.0:4211" and s.metrics_bind == "127.0.0.1:4212"
    assert s.log_level == "Debug" and s.dvp.namespace == "proj" and s.dvp.cluster_uuid == "u-1"
    assert s.lifecycle.out_of_service and s.lifecycle.grace == 90 and s.lifecycle.hold == 60


def test_out_of_service_switch_and_durations():
    s = S.load(["--out-of-service-taint=false", "--out-of-service-grace-period=5m", "--node-monitor-period=2s",
                "--lb-annotation-prefixes=metallb.universe.tf/, network.deckhouse.io/"], ENV)
    assert not s.lifecycle.out_of_service and s.lifecycle.grace == 300 and s.lifecycle.recheck == 2
    assert s.lb_annotation_prefixes == ("metallb.universe.tf/", "network.deckhouse.io/")


@pytest.mark.parametrize(("argv", "env", "message"), [
    (["--cloud-provider=aws"], ENV, "--cloud-provider: 'aws' is not one of dvp"),
    (["--controllers=cloud-node,route"], ENV, "--controllers: unknown controller 'route'"),
    (["--log-level=Trace"], ENV, "--log-level: 'Trace' is not one of"),
    (["--health-probe-bind-address=x"], ENV, "--health-probe-bind-address: 'x' is not [host]:port"),
    (["--bogus=1"], ENV, "unknown flag --bogus"),
    (["--out-of-service-grace-period=soon"], ENV, "--out-of-service-grace-period: 'soon' is not a duration"),
    (["--out-of-service-grace-period=0"], ENV, "--out-of-service-grace-period: must be positive, got 0.0"),
    ([], {}, "DVP settings: DVP_KUBERNETES_CONFIG_BASE64, DVP_NAMESPACE, CLUSTER_UUID not set"),
])
def test_bad_settings_are_one_clear_line(argv, env, message):
    with pytest.raises(S.ConfigInvalid) as err:
        S.load(argv, env)
    assert str(err.value).startswith(message) and "\n" not in str(err.value)
    assert "a2luZDogQ29uZmln" not in str(err.value)
