# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""The pure rule: ServiceWithHealthchecks only when DVP serves the kind and the parent's module allows it."""

from __future__ import annotations

import pytest
from dvp_ccm.domain import parent_module as PM
from dvp_ccm.domain.parent_module import Module


@pytest.mark.parametrize(("obj", "module"), [
    (None, Module.ABSENT),
    ({"metadata": {"name": PM.NAME}}, Module.DISABLED),
    ({"spec": {}}, Module.DISABLED),
    ({"spec": {"enabled": None, "version": 1}}, Module.DISABLED),
    ({"spec": {"enabled": False}}, Module.DISABLED),
    ({"spec": {"enabled": True, "settings": {}}}, Module.ENABLED),
])
def test_what_the_module_config_says(obj, module):
    assert PM.state(obj) is module


@pytest.mark.parametrize(("obj", "message"), [
    ({"spec": {"enabled": "true"}}, 'ModuleConfig "service-with-healthchecks": spec.enabled must be true or false, '
                                    "not str"),
    ({"spec": {"enabled": 1}}, 'ModuleConfig "service-with-healthchecks": spec.enabled must be true or false, '
                               "not int"),
    ({"spec": ["enabled"]}, 'ModuleConfig "service-with-healthchecks": spec must be an object, not list'),
])
def test_a_module_config_that_says_neither_is_refused_naming_object_and_field(obj, message):
    with pytest.raises(PM.BadModuleConfig) as refused:
        PM.state(obj)
    assert str(refused.value) == message


@pytest.mark.parametrize(("served", "module", "healthchecks"), [
    (False, Module.ENABLED, False),
    (False, None, False),
    (True, Module.ENABLED, True),
    (True, Module.DISABLED, False),
    (True, Module.ABSENT, False),
    (True, Module.NOT_DECKHOUSE, True),
    (True, Module.FORBIDDEN, True),
    (True, Module.INVALID, True),
    (True, None, True),
])
def test_the_decision(served, module, healthchecks):
    assert PM.use_healthchecks(served, module) is healthchecks


def test_each_decision_is_explained_in_one_line():
    lines = {m: PM.explain(True, m) for m in [*Module, None]}
    assert lines[Module.ENABLED] == ('LoadBalancers are ServiceWithHealthchecks: the parent\'s ModuleConfig '
                                     '"service-with-healthchecks" is enabled')
    assert lines[Module.ABSENT] == ('LoadBalancers are plain Services: the parent has no ModuleConfig '
                                    '"service-with-healthchecks" (the module is off)')
    assert lines[Module.NOT_DECKHOUSE] == ("LoadBalancers are ServiceWithHealthchecks: the parent serves no "
                                           "ModuleConfig: deciding by API discovery alone")
    assert PM.explain(False, Module.ENABLED) == ("LoadBalancers are plain Services: DVP does not serve "
                                                 "ServiceWithHealthchecks")
    assert len(set(lines.values())) == len(lines) and all("\n" not in line for line in lines.values())
