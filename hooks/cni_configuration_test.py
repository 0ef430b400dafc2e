# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0

import base64
import os

import cni_configuration as hook
import pytest
import yaml
from deckhouse import hook as sdk
from lib import testing as t

PATH = os.path.join(os.path.dirname(__file__), "cni_configuration.py")
START = {"cloudProviderDvp": {"internal": {}}}
CNI = t.secret("kube-system", "d8-cni-configuration", {"cni": "cilium", "cilium": '{"mode":"Direct"}', "on": "x"})


def run(bc, vals=START):
    return sdk.testrun(hook.main, binding_context=bc, config_values={}, initial_values=vals)


@pytest.mark.parametrize("kind", ["sync", "event"])
def test_cni_secret_is_passed_through(kind):
    snaps = t.snapshots(hook, cni_configuration=[CNI])
    bc = t.synchronization(hook, snaps) if kind == "sync" else t.event(hook, snaps, hook.SNAPSHOT)
    out = run(bc)
    text = '"cilium": eyJtb2RlIjoiRGlyZWN0In0=\n"cni": Y2lsaXVt\n"on": eA==\n'
    assert out.values_patches.data == [
        {"op": "add", "path": "/cloudProviderDvp/internal/cniSecretData", "value": t.b64(text)}]
    # What the template decodes into data: is the Secret's data, byte for byte.
    value = out.values["cloudProviderDvp"]["internal"]["cniSecretData"]
    assert yaml.safe_load(base64.b64decode(value)) == CNI["data"]
    assert out.kube_operations.data == [] and out.metrics.data == []
    assert run(bc, t.apply(START, out.values_patches.data)).values_patches.data == []
    t.assert_contract(hook, PATH, bc, START, {}, out)


def test_secret_without_cni_key_or_absent_clears_the_value():
    vals = {"cloudProviderDvp": {"internal": {"cniSecretData": "eA=="}}}
    for snaps in (t.snapshots(hook, cni_configuration=[t.secret("kube-system", "d8-cni-configuration", {"x": "y"})]),
                  t.snapshots(hook)):
        out = run(t.synchronization(hook, snaps), vals)
        assert out.values_patches.data == [{"op": "remove", "path": "/cloudProviderDvp/internal/cniSecretData"}]


def test_imports_nothing_heavy():
    snaps = t.snapshots(hook, cni_configuration=[CNI])
    assert t.fresh_run(hook, t.synchronization(hook, snaps), START)[2] == []
