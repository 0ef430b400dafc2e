# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""Which DVP kind backs LoadBalancers: discovery asked once per period, a failure keeps the last answer."""

from __future__ import annotations

import threading

import pytest
from dvp_ccm.lbkinds import AUTO, HEALTHCHECKS, SERVICE, KindChooser
from dvp_common.kube import Transient


class Discovery:
    def __init__(self, *answers) -> None:
        self.answers, self.asked = list(answers), 0

    def served(self, res) -> bool:
        self.asked += 1
        answer = self.answers.pop(0) if len(self.answers) > 1 else self.answers[0]
        if isinstance(answer, Exception):
            raise answer
        assert res.plural == "servicewithhealthchecks"
        return answer


def test_the_answer_is_cached_for_the_recheck_period_and_a_failure_keeps_the_last_one():
    now = [0.0]
    served = []
    api = Discovery(True, Transient("down"), False)
    chooser = KindChooser(api, AUTO, recheck=60, clock=lambda: now[0], on_served=lambda: served.append(1))
    assert chooser.healthchecks() and chooser.healthchecks()
    assert api.asked == 1 and served == [1]
    now[0] = 61.0
    assert chooser.healthchecks()  # discovery failed: the last answer stands
    now[0] = 122.0
    assert not chooser.healthchecks() and api.asked == 3
    chooser.forget()
    assert not chooser.healthchecks() and api.asked == 4


def test_a_first_failure_raises_so_the_reconcile_retries():
    with pytest.raises(Transient):
        KindChooser(Discovery(Transient("down")), AUTO).healthchecks()


def test_fixed_modes_ask_nothing():
    api = Discovery(True)
    assert not KindChooser(api, SERVICE).healthchecks()
    assert KindChooser(api, HEALTHCHECKS).healthchecks()
    assert api.asked == 0


def test_a_forced_service_mode_still_reads_whether_the_kind_is_served_and_a_failure_means_no():
    api = Discovery(True)
    assert KindChooser(api, SERVICE).readable() and api.asked == 1
    assert not KindChooser(Discovery(Transient("down")), SERVICE).readable()
    with pytest.raises(Transient):
        KindChooser(Discovery(Transient("down")), AUTO).readable()


def test_follow_reports_a_flip_until_stopped():
    api = Discovery(False, False, True, True)
    stop, flips = threading.Event(), []
    chooser = KindChooser(api, AUTO, recheck=0.0)

    def flipped() -> None:
        flips.append(api.asked)
        stop.set()

    worker = threading.Thread(target=chooser.follow, args=(stop, flipped))
    worker.start()
    worker.join(5)
    assert not worker.is_alive() and flips == [3]
