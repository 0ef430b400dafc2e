# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""A master bootstrapped from the pulled bundle, as dhctl does it: the bundle's validator refuses a bad NodeGroup
at its field and accepts the good input; tofu (init with the plugin dir made from the bundle's provider, plan to
a file with -detailed-exitcode, show, apply of the plan, output, all with dhctl's state and var files and a null
providerClusterConfiguration) makes the master VM against the real API, which reaches Running while the simulator
plays DVP; a converge with nothing changed plans nothing; plans are classified with the bundle's plan_rules.yml."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest
from dvp_common.dvp import resources as R
from terraform_manager import dhctl
from terraform_manager.binaries import TOFU, need
from terraform_manager.inputs import BAD_MASTER_VIOLATION, bad_master_class_kind, payload

from sim import SimConfig, Simulator
from testkit.candi.layout_inputs import POOL, STATIC_IP, seed_parent, variables

pytestmark = pytest.mark.tools

NO_CHANGES, CHANGES = 0, 2  # tofu plan -detailed-exitcode


@pytest.fixture
def world(dvp_api):
    client = dvp_api.client()
    seed_parent(client)
    ns = dvp_api.create_namespace("bundle")
    sim = Simulator(dvp_api.client(), SimConfig(namespace=ns, default_latency=0.05, ip_pool=POOL, watch_timeout=1))
    sim.start()
    yield client, ns
    sim.stop()
    sim.client.close()
    client.close()


def plan(step: dhctl.Step, rule: dhctl.Rule, name: str) -> tuple[int, tuple[bool, bool], Path]:
    out = step.root / f"{name}.tfplan"
    res = step.plan(out)
    assert res.returncode in (NO_CHANGES, CHANGES), res.stdout + res.stderr
    return res.returncode, dhctl.classify(step.show(out), rule), out


def test_bootstrap_a_master_from_the_pulled_bundle(unpacked_bundle, dvp_api, world, tmp_path):
    need(TOFU)
    client, ns = world
    kubeconfig = dvp_api.kubeconfig(ns)
    good = variables(kubeconfig, ns, providerClusterConfiguration=None)
    to_validate = payload("bootstrap", kubeconfig, ns)

    validator = dhctl.spawn_validator(unpacked_bundle / "validator")
    try:
        refused = dhctl.validate(validator.endpoint, bad_master_class_kind(copy.deepcopy(to_validate)))
        assert refused == {"errors": [BAD_MASTER_VIOLATION], "warnings": []}
        assert dhctl.validate(validator.endpoint, to_validate) == {"errors": [], "warnings": []}
    finally:
        assert validator.stop() == 0

    rule = dhctl.load_plan_rules(unpacked_bundle / "terraform-manager" / "plan_rules.yml")
    step = dhctl.prepare_step(unpacked_bundle, TOFU, tmp_path / "infra", "master-node", good)
    init = step.init()
    assert init.returncode == 0, init.stdout + init.stderr
    code, verdict, first = plan(step, rule, "bootstrap")
    assert (code, verdict) == (CHANGES, (False, False))
    applied = step.apply(first)
    assert applied.returncode == 0, applied.stdout + applied.stderr
    # The layouts do not wait for Running (dhctl waits for the node); the simulator gets the VM there.
    vm = client.wait_for(R.VIRTUAL_MACHINE, "candi-master-0",
                         lambda o: o and o.get("status", {}).get("phase") == "Running", 120, ns)
    assert vm["status"]["phase"] == "Running"
    assert step.output()["master_ip_address_for_ssh"] == STATIC_IP

    # Converge with nothing changed: no change at all.
    assert plan(step, rule, "converge")[:2] == (NO_CHANGES, (False, False))

    # A new static address replaces the address object, not the VM: destructive, but no master VM destruction.
    moved = copy.deepcopy(good)
    moved["settings"]["spec"]["settings"]["nodes"]["parameters"]["ipAddresses"]["master"] = ["10.77.0.51"]
    step.variables.write_text(json.dumps(moved))
    assert plan(step, rule, "static-ip")[:2] == (CHANGES, (True, False))

    # Removing the additional disk deletes a disk: destructive, not a master VM destruction.
    fewer = copy.deepcopy(good)
    fewer["instanceClasses"]["master"]["spec"]["additionalDisks"] = []
    step.variables.write_text(json.dumps(fewer))
    assert plan(step, rule, "no-disk")[:2] == (CHANGES, (True, False))

    # A new image replaces the VM: that one is a master VM destruction.
    new_image = copy.deepcopy(good)
    new_image["instanceClasses"]["master"]["spec"]["rootDisk"]["image"]["name"] = "candi-ubuntu-next"
    step.variables.write_text(json.dumps(new_image))
    assert plan(step, rule, "new-image")[:2] == (CHANGES, (True, True))

    step.variables.write_text(json.dumps(good))
    destroyed = step.destroy()
    assert destroyed.returncode == 0, destroyed.stdout + destroyed.stderr
    assert client.list(R.VIRTUAL_MACHINE, ns).items == []
