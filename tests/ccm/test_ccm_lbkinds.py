# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""Which DVP kind backs LoadBalancers: one look (discovery, then the parent's ModuleConfig) per period, a failure
keeps the last answer, each decision logged once."""

from __future__ import annotations

import logging
import threading

import pytest
from dvp_ccm.domain import parent_module as PM
from dvp_ccm.lbkinds import AUTO, HEALTHCHECKS, SERVICE, KindChooser
from dvp_common.kube import Forbidden, NotFound, Transient

ON = {"metadata": {"name": PM.NAME}, "spec": {"enabled": True, "version": 1}}
OFF = {"metadata": {"name": PM.NAME}, "spec": {"enabled": False, "version": 1}}
UNSET = {"metadata": {"name": PM.NAME}, "spec": {"version": 1}}


class Parent:
    """The DVP API as the chooser reads it: discovery of ServiceWithHealthchecks (`answers`, the last repeats),
    of ModuleConfig (`deckhouse`), and the GET of the ModuleConfig (`modules`: an object, None for 404, or an
    error; the last repeats). Counts every request."""

    def __init__(self, *answers, modules=(ON,), deckhouse=True) -> None:
        self.answers, self.modules, self.deckhouse = list(answers), list(modules), deckhouse
        self.asked = self.reads = self.deckhouse_asked = 0

    @staticmethod
    def _next(queue):
        answer = queue.pop(0) if len(queue) > 1 else queue[0]
        if isinstance(answer, Exception):
            raise answer
        return answer

    def served(self, res) -> bool:
        if res.group == "deckhouse.io":
            self.deckhouse_asked += 1
            return self._next([self.deckhouse])
        assert res.plural == "servicewithhealthchecks"
        self.asked += 1
        return self._next(self.answers)

    def get(self, res, name, namespace=None):
        assert (res.group, res.version, res.plural, res.namespaced, name, namespace) == (
            "deckhouse.io", "v1alpha1", "moduleconfigs", False, PM.NAME, None)
        self.reads += 1
        obj = self._next(self.modules)
        if obj is None:
            raise NotFound("not found", kind="ModuleConfig", name=name)
        return obj


def forbidden() -> Forbidden:
    return Forbidden('moduleconfigs.deckhouse.io "service-with-healthchecks" is forbidden', kind="ModuleConfig",
                     name=PM.NAME, verb="get")


def test_the_answer_is_cached_for_the_recheck_period_and_a_failure_keeps_the_last_one():
    now = [0.0]
    served = []
    api = Parent(True, Transient("down"), False)
    chooser = KindChooser(api, AUTO, recheck=60, clock=lambda: now[0], on_served=lambda: served.append(1))
    assert chooser.healthchecks() and chooser.healthchecks() and chooser.readable()
    assert (api.asked, api.reads, served) == (1, 1, [1])
    now[0] = 61.0
    assert chooser.healthchecks()  # discovery failed: the last answer stands, no ModuleConfig read
    assert (api.asked, api.reads) == (2, 1)
    now[0] = 122.0
    assert not chooser.healthchecks() and (api.asked, api.reads) == (3, 1)  # not served: nothing more to read
    chooser.forget()
    assert not chooser.healthchecks() and api.asked == 4


def test_a_first_failure_raises_so_the_reconcile_retries():
    with pytest.raises(Transient):
        KindChooser(Parent(Transient("down")), AUTO).healthchecks()
    with pytest.raises(Transient):  # discovery answered, the ModuleConfig read did not
        KindChooser(Parent(True, modules=[Transient("down")]), AUTO).healthchecks()


def test_fixed_modes_ask_nothing():
    api = Parent(True)
    assert not KindChooser(api, SERVICE).healthchecks()
    assert KindChooser(api, HEALTHCHECKS).healthchecks()
    assert api.asked == 0 and api.reads == 0


def test_a_forced_service_mode_still_reads_whether_the_kind_is_served_and_a_failure_means_no():
    api = Parent(True)
    assert KindChooser(api, SERVICE).readable() and api.asked == 1
    assert KindChooser(api, HEALTHCHECKS).readable() and api.asked == 2
    assert api.reads == 0  # fixed modes never read the ModuleConfig
    assert not KindChooser(Parent(Transient("down")), SERVICE).readable()
    with pytest.raises(Transient):
        KindChooser(Parent(Transient("down")), AUTO).readable()


@pytest.mark.parametrize(("module", "deckhouse", "healthchecks"), [
    (ON, True, True),
    (OFF, True, False),
    (UNSET, True, False),
    (None, True, False),  # a Deckhouse parent without the ModuleConfig: the module is off
    (None, False, True),  # no ModuleConfig kind at all (not Deckhouse): discovery alone
    (forbidden(), True, True),  # our credentials may not read it: discovery alone
], ids=["enabled", "disabled", "unset", "absent", "not-deckhouse", "forbidden"])
def test_auto_follows_the_parents_module_where_it_can_read_it(module, deckhouse, healthchecks):
    api = Parent(True, modules=[module], deckhouse=deckhouse)
    chooser = KindChooser(api, AUTO)
    assert chooser.healthchecks() is healthchecks
    assert chooser.readable()  # the kind is served: our earlier objects are looked for whatever the module says
    assert (api.asked, api.reads, api.deckhouse_asked) == (1, 1, 1 if module is None else 0)


def test_a_kind_not_served_is_a_plain_service_and_reads_no_module_config():
    api = Parent(False)
    assert not KindChooser(api, AUTO).healthchecks()
    assert (api.asked, api.reads) == (1, 0)


def test_a_forbidden_read_is_logged_once_and_looked_at_again_every_period(caplog):
    caplog.set_level(logging.INFO, logger="dvp_ccm.service")
    now = [0.0]
    api = Parent(True, modules=[forbidden(), forbidden(), forbidden(), OFF])
    chooser = KindChooser(api, AUTO, recheck=10, clock=lambda: now[0])
    for period in range(3):
        now[0] = period * 10.0
        assert chooser.healthchecks() and chooser.healthchecks()
    assert api.reads == 3
    lines = [r.getMessage() for r in caplog.records]
    assert lines == ["LoadBalancers are ServiceWithHealthchecks: reading the parent's ModuleConfig "
                     '"service-with-healthchecks" is forbidden: deciding by API discovery alone (grant get on it '
                     "to follow the module)"]
    now[0] = 30.0  # the permission is granted: the module is followed from the next look
    assert not chooser.healthchecks() and api.reads == 4
    assert [r.getMessage() for r in caplog.records][1:] == [
        'LoadBalancers are plain Services: the parent\'s ModuleConfig "service-with-healthchecks" is not enabled']


def test_a_failed_read_keeps_the_last_decision():
    now = [0.0]
    api = Parent(True, modules=[OFF, Transient("down"), ON])
    chooser = KindChooser(api, AUTO, recheck=10, clock=lambda: now[0])
    assert not chooser.healthchecks()
    now[0] = 10.0
    assert not chooser.healthchecks() and api.reads == 2  # the read failed: still off
    now[0] = 20.0
    assert chooser.healthchecks() and api.reads == 3


def test_a_module_config_that_says_neither_keeps_the_last_decision_with_one_warning(caplog):
    caplog.set_level(logging.INFO, logger="dvp_ccm.service")
    now = [0.0]
    bad = {"metadata": {"name": PM.NAME}, "spec": {"enabled": "yes"}}
    api = Parent(True, modules=[OFF, bad, bad, ON])
    chooser = KindChooser(api, AUTO, recheck=10, clock=lambda: now[0])
    assert not chooser.healthchecks()
    for t in (10.0, 20.0):
        now[0] = t
        assert not chooser.healthchecks()  # nothing changes on a value that is no boolean
    warnings = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert warnings == ['ModuleConfig "service-with-healthchecks": spec.enabled must be true or false, not str; '
                        "keeping the last answer"]
    now[0] = 30.0
    assert chooser.healthchecks()
    # read malformed before anything was known: discovery alone
    caplog.clear()
    assert KindChooser(Parent(True, modules=[bad]), AUTO).healthchecks()
    assert [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING] == [
        'ModuleConfig "service-with-healthchecks": spec.enabled must be true or false, not str; deciding by API '
        "discovery alone"]


def test_follow_reports_a_flip_until_stopped():
    api = Parent(False, False, True, True)
    stop, flips = threading.Event(), []
    chooser = KindChooser(api, AUTO, recheck=0.0)

    def flipped() -> None:
        flips.append(api.asked)
        stop.set()

    worker = threading.Thread(target=chooser.follow, args=(stop, flipped))
    worker.start()
    worker.join(5)
    assert not worker.is_alive() and flips == [3]


def test_follow_reports_the_module_switched_off_while_the_kind_stays_served():
    api = Parent(True, modules=[ON, ON, OFF])
    stop, flips = threading.Event(), []
    chooser = KindChooser(api, AUTO, recheck=0.0)

    def flipped() -> None:
        flips.append(api.reads)
        stop.set()

    worker = threading.Thread(target=chooser.follow, args=(stop, flipped))
    worker.start()
    worker.join(5)
    assert not worker.is_alive() and flips == [3]
