# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
from __future__ import annotations

import threading

import pytest
from dvp_common.runtime import QueueFull, ShutDown, WorkQueue


@pytest.fixture
def queue(fake_time):
    return WorkQueue(max_size=3, base_delay=1.0, max_delay=10.0, clock=fake_time.clock)


def test_keys_are_deduplicated_and_fifo(queue):
    for key in ("a", "b", "a", "c", "b"):
        queue.add(key)
    assert len(queue) == 3
    assert [queue.get(0), queue.get(0), queue.get(0), queue.get(0)] == ["a", "b", "c", None]


def test_a_key_added_while_processing_comes_back_after_done(queue):
    queue.add("a")
    assert queue.get(0) == "a"
    queue.add("a")
    assert queue.get(0) is None  # not handed to a second worker
    queue.done("a")
    assert queue.get(0) == "a"
    queue.done("a")
    assert queue.get(0) is None


def test_rate_limited_requeue_backs_off_per_key(queue, fake_time):
    assert [queue.add_rate_limited("a") for _ in range(6)] == [1.0, 2.0, 4.0, 8.0, 10.0, 10.0]
    assert queue.failures("a") == 6
    assert queue.get(0) is None
    fake_time.now += 1.0
    assert queue.get(0) == "a"
    queue.done("a")
    queue.forget("a")
    assert queue.failures("a") == 0 and queue.add_rate_limited("a") == 1.0


def test_add_after_waits_for_the_clock(queue, fake_time):
    queue.add_after("x", 5)
    assert queue.get(0) is None
    fake_time.now += 4.9
    assert queue.get(0) is None
    fake_time.now += 0.1
    assert queue.get(0) == "x"


def test_bounded(queue):
    for key in "abc":
        queue.add(key)
    with pytest.raises(QueueFull, match=r"work queue full \(3 keys\); dropping 'd'"):
        queue.add("d")
    queue.add("a")  # already queued: no error


def test_blocking_get_wakes_on_add_and_shutdown():
    queue = WorkQueue()
    got = []
    worker = threading.Thread(target=lambda: got.append(queue.get(timeout=5)))
    worker.start()
    queue.add("k")
    worker.join(5)
    assert got == ["k"]
    errors = []

    def wait_shutdown():
        try:
            queue.get(timeout=5)
        except ShutDown:
            errors.append("shutdown")

    worker = threading.Thread(target=wait_shutdown)
    worker.start()
    queue.shutdown()
    worker.join(5)
    assert errors == ["shutdown"]


def test_idle_until_nothing_is_queued_or_processing(queue):
    assert queue.idle()
    queue.add("a")
    assert not queue.idle()
    assert queue.get(0) == "a"
    assert not queue.idle()  # handed out, not done
    queue.done("a")
    assert queue.idle()
    queue.add_after("b", 5.0)
    assert queue.idle()  # a delayed key is not work yet
