# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""`auto` follows the parent's ModuleConfig service-with-healthchecks beside API discovery (domain.parent_module):
enabled -> ServiceWithHealthchecks, off or absent -> plain Services, a flip moves every LoadBalancer keeping its
address, a parent without ModuleConfigs or a forbidden read -> discovery alone; one look per period, never one per
Service or resync. Real APIs (the forbidden read on an RBAC-mode server with docs/SECURITY.md's block), the
simulator playing DVP's controllers. The ModuleConfig is cluster-scoped: each Env sets it back to enabled."""

from __future__ import annotations

import logging

import pytest
from ccm_lb_real import Requests, get, guest_ingress, healthchecks_with_address, lb_service, nodes, plain_with_address
from ccm_real import Env, eventually
from dvp_ccm.domain import parent_module as PM
from dvp_common.dvp import labels as L
from dvp_common.dvp.resources import MODULE_CONFIG, VIRTUAL_MACHINE
from dvp_common.dvp.resources import SERVICE_WITH_HEALTHCHECKS as SWHC
from dvp_common.kube import Fault, Forbidden
from isolation.rbac_doc import apply_block

LB_ONLY = frozenset({"service-lb-controller"})
DISCOVER_SWHC = ("discover", SWHC.api_version)
DISCOVER_MODULES = ("discover", MODULE_CONFIG.api_version)
READ_MODULE = ("get", str(MODULE_CONFIG))


@pytest.fixture
def env(dvp_api, guest_api):
    e = Env(dvp_api, guest_api)
    yield e
    e.parent_module(True)
    e.close()


def may(call) -> bool:
    try:
        call()
        return True
    except Forbidden:
        return False


def module_lines(caplog) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.name == "dvp_ccm.service" and "ModuleConfig" in r.getMessage()]


def reconciled(m) -> float:
    return m.registry.get_sample_value("dvp_ccm_reconcile_total",
                                       {"controller": "service-lb-controller", "outcome": "ok"}) or 0.0


def test_module_on_gives_healthchecks_from_one_look_for_every_service_and_resync(env):
    nodes(env, 1, "on")
    reqs = Requests()
    # the kind re-checked only every 300 s, the informers' resync every second
    m = env.manager(controllers=LB_ONLY, load_balancer_kind="auto", address_refresh=1.0, dvp_faults=reqs)
    names = [L.lb_name(lb_service(env, f"web{i}")["metadata"]["uid"]) for i in range(3)]
    for i, name in enumerate(names):
        eventually(lambda n=name: healthchecks_with_address(env, n), what=f"ServiceWithHealthchecks {name}")
        eventually(lambda i=i: guest_ingress(env, f"web{i}"), what=f"address on web{i}")
    ensured = reconciled(m)
    eventually(lambda: reconciled(m) >= ensured + 2 * len(names), what="two more resyncs of every Service")
    assert plain_with_address(env, names[0]) is None  # the Service there is the ServiceWithHealthchecks' child
    assert (reqs.count(*DISCOVER_SWHC), reqs.count(*READ_MODULE), reqs.count(*DISCOVER_MODULES)) == (1, 1, 0)


@pytest.mark.parametrize("enabled", [False, None], ids=["disabled", "absent"])
def test_module_off_or_absent_gives_plain_services_although_the_kind_is_served(env, enabled):
    env.parent_module(enabled)
    nodes(env, 1, "off")
    reqs = Requests()
    env.manager(controllers=LB_ONLY, load_balancer_kind="auto", dvp_faults=reqs)
    name = L.lb_name(lb_service(env)["metadata"]["uid"])
    plain = eventually(lambda: plain_with_address(env, name), what="a plain Service with an address")
    assert "healthcheck" not in plain["spec"]
    assert env.dvp.list(SWHC, env.ns).items == []
    # the CCM copies the address to the guest Service after DVP's Service has it
    eventually(lambda: guest_ingress(env) == plain["status"]["loadBalancer"]["ingress"], what="the guest's address")
    # absent: the 404 is told from a parent without ModuleConfigs by one discovery request
    assert (reqs.count(*READ_MODULE), reqs.count(*DISCOVER_MODULES)) == (1, 0 if enabled is False else 1)


def test_a_parent_without_module_configs_decides_by_discovery_alone(env):
    env.parent_module(False)  # what the test DVP holds; the CCM is answered as a parent without the kind would be

    def not_deckhouse(info):
        if (info.verb, info.resource) in (DISCOVER_MODULES, READ_MODULE):
            return Fault(status=404, reason="NotFound", message="the server could not find the requested resource")
        return None

    nodes(env, 1, "nd")
    env.manager(controllers=LB_ONLY, load_balancer_kind="auto", dvp_faults=not_deckhouse)
    name = L.lb_name(lb_service(env)["metadata"]["uid"])
    eventually(lambda: healthchecks_with_address(env, name), what="a ServiceWithHealthchecks with an address")
    eventually(lambda: guest_ingress(env), what="address on the guest Service")


def test_switching_the_module_off_on_off_keeps_the_address_without_a_restart(env):
    env.parent_module(False)
    nodes(env, 1, "sw")
    env.manager(controllers=LB_ONLY, load_balancer_kind="auto", load_balancer_kind_recheck=0.5)
    name = L.lb_name(lb_service(env)["metadata"]["uid"])
    first = eventually(lambda: guest_ingress(env), what="address from a plain Service")
    assert plain_with_address(env, name)["status"]["loadBalancer"]["ingress"] == first
    env.parent_module(True)
    parent = eventually(lambda: healthchecks_with_address(env, name), what="ServiceWithHealthchecks with an address")
    assert parent["status"]["loadBalancer"]["ingress"][0]["ip"] == first[0]["ip"]
    assert parent["spec"]["loadBalancerIP"] == first[0]["ip"]
    assert guest_ingress(env) == first
    env.parent_module(False)
    plain = eventually(lambda: plain_with_address(env, name), what="a plain Service again")
    assert plain["status"]["loadBalancer"]["ingress"][0]["ip"] == first[0]["ip"]
    assert get(env.dvp, SWHC, name, env.ns) is None
    assert guest_ingress(env) == first


@pytest.fixture
def rbac_env(rbac_api, guest_api):
    e = Env(rbac_api, guest_api)
    yield e
    e.close()


def test_a_forbidden_read_falls_back_to_discovery_until_the_documented_permission_is_granted(rbac_env, rbac_api,
                                                                                            caplog):
    env = rbac_env
    caplog.set_level(logging.INFO, logger="dvp_ccm.service")
    env.parent_module(False)  # off, but unreadable with the project Role alone
    token = rbac_api.service_account_token(env.ns, "ccm")
    sa = rbac_api.client(token=token)
    try:
        apply_block(env.dvp, "dvp-rbac:ccm", env.ns, "ccm", kinds=("Role", "RoleBinding"))
        eventually(lambda: may(lambda: sa.list(VIRTUAL_MACHINE, env.ns)), what="the CCM's Role in effect")
        assert not may(lambda: sa.get(MODULE_CONFIG, PM.NAME))
    finally:
        sa.close()
    nodes(env, 1, "rb")
    reqs = Requests()
    env.manager(controllers=LB_ONLY, load_balancer_kind="auto", load_balancer_kind_recheck=0.5, dvp_token=token,
                dvp_faults=reqs)
    name = L.lb_name(lb_service(env)["metadata"]["uid"])
    parent = eventually(lambda: healthchecks_with_address(env, name), what="a ServiceWithHealthchecks (discovery)")
    first = eventually(lambda: guest_ingress(env), what="address on the guest Service")
    eventually(lambda: reqs.count(*READ_MODULE) >= 3, what="three looks, each read refused")
    assert module_lines(caplog) == [PM.explain(True, PM.Module.FORBIDDEN)]  # once, not per look or per Service
    # the optional ClusterRole of the block: the CCM follows the module (off) from its next look
    apply_block(env.dvp, "dvp-rbac:ccm", env.ns, "ccm", kinds=("ClusterRole", "ClusterRoleBinding"))
    plain = eventually(lambda: plain_with_address(env, name), what="a plain Service once the module is readable")
    assert plain["status"]["loadBalancer"]["ingress"][0]["ip"] == parent["status"]["loadBalancer"]["ingress"][0]["ip"]
    assert get(env.dvp, SWHC, name, env.ns) is None
    assert guest_ingress(env) == first
    assert module_lines(caplog) == [PM.explain(True, PM.Module.FORBIDDEN), PM.explain(True, PM.Module.DISABLED)]
