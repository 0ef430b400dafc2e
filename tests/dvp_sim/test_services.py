# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""LoadBalancer Services get an address from the pool; other Services are left alone."""

from __future__ import annotations

import ipaddress

from dvp_common.dvp import resources as R

from sim.builders import WAIT


def test_load_balancer_service_gets_an_ingress_address(dvp, ns, sim):
    svc = {"metadata": {"name": "a0123456789abcdef0123456789abcde"},
           "spec": {"type": "LoadBalancer", "selector": {"dvp.deckhouse.io/a0123": "loadbalancer"},
                    "ports": [{"name": "http", "port": 80, "targetPort": 30080, "protocol": "TCP"}]}}
    dvp.create(R.SERVICE, svc, ns)
    lb = dvp.wait_for(R.SERVICE, svc["metadata"]["name"],
                      lambda o: o and o.get("status", {}).get("loadBalancer", {}).get("ingress"), WAIT, ns)
    ip = lb["status"]["loadBalancer"]["ingress"][0]["ip"]
    assert ipaddress.ip_address(ip) in ipaddress.ip_network("192.0.2.0/24")
    plain = {"metadata": {"name": "plain"}, "spec": {"ports": [{"port": 80}]}}
    dvp.create(R.SERVICE, plain, ns)
    second = dict(svc, metadata={"name": "second"})
    dvp.create(R.SERVICE, second, ns)
    other = dvp.wait_for(R.SERVICE, "second",
                         lambda o: o and o.get("status", {}).get("loadBalancer", {}).get("ingress"), WAIT, ns)
    assert other["status"]["loadBalancer"]["ingress"][0]["ip"] != ip
    assert dvp.get(R.SERVICE, "plain", ns).get("status", {}).get("loadBalancer", {}) == {}
