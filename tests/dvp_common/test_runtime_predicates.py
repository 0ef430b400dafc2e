# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""status_only: the echo of a status write is told apart from every change a controller must act on."""

from __future__ import annotations

import copy

from dvp_common.runtime import status_only

BASE = {"apiVersion": "x/v1", "kind": "Thing",
        "metadata": {"name": "a", "namespace": "ns", "resourceVersion": "5", "generation": 1,
                     "labels": {"l": "1"}, "finalizers": ["f"], "managedFields": [{"manager": "m"}]},
        "spec": {"size": 1}, "status": {"phase": "Pending"}}


def changed(**edits) -> dict:
    new = copy.deepcopy(BASE)
    new["metadata"]["resourceVersion"] = "6"
    for path, value in edits.items():
        *parents, leaf = path.split("__")
        node = new
        for p in parents:
            node = node[p]
        node[leaf] = value
    return new


def test_a_status_write_is_status_only():
    assert status_only(BASE, changed(status={"phase": "Running"}))
    assert status_only(BASE, changed(status={"phase": "Running"}, metadata__managedFields=[]))


def test_spec_and_metadata_changes_are_not():
    assert not status_only(BASE, changed(spec={"size": 2}, metadata__generation=2))
    assert not status_only(BASE, changed(metadata__labels={"l": "2"}))
    assert not status_only(BASE, changed(metadata__finalizers=[]))
    assert not status_only(BASE, changed(metadata__annotations={"cluster.x-k8s.io/paused": ""}))
    assert not status_only(BASE, changed(metadata__deletionTimestamp="2026-01-01T00:00:00Z"))


def test_a_resync_replays_the_same_version_and_is_not_filtered():
    assert not status_only(BASE, copy.deepcopy(BASE))


def test_with_watched_fields_only_their_changes_count():
    watched = ("phase", "ipAddress")
    assert status_only(BASE, changed(status={"phase": "Pending", "conditions": [{"type": "X"}]}), watched)
    assert not status_only(BASE, changed(status={"phase": "Running"}), watched)
    assert not status_only(BASE, changed(status={"phase": "Pending", "ipAddress": "10.0.0.1"}), watched)
    assert not status_only(BASE, changed(spec={"size": 2}, status={"phase": "Pending"}), watched)
