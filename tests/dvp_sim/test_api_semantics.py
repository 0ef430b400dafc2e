# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""The API server's own rules that the simulator and our components rely on, in both worlds (conftest `world`):
the in-memory API must answer each exactly as kube-apiserver does, or the fast tests and benchmarks lie."""

from __future__ import annotations

import threading

import pytest
from dvp_common.dvp import resources as R
from dvp_common.kube import AlreadyExists, Conflict, Invalid, NotFound
from dvp_common.kube.resources import CONFIG_MAP

from sim.builders import WAIT, disk


def test_create_sets_identity_and_a_repeated_name_already_exists(dvp, ns):
    created = dvp.create(R.VIRTUAL_DISK, disk("d", "1Gi"), ns)
    md = created["metadata"]
    assert md["uid"] and md["resourceVersion"] and md["creationTimestamp"] and md["generation"] == 1
    assert md["namespace"] == ns
    with pytest.raises(AlreadyExists):
        dvp.create(R.VIRTUAL_DISK, disk("d", "1Gi"), ns)
    with pytest.raises(NotFound):
        dvp.get(R.VIRTUAL_DISK, "absent", ns)


def test_a_stale_resource_version_conflicts_and_a_spec_change_bumps_the_generation(dvp, ns):
    created = dvp.create(R.VIRTUAL_DISK, disk("d", "1Gi"), ns)
    rv = created["metadata"]["resourceVersion"]
    grown = dvp.patch(R.VIRTUAL_DISK, "d", {"metadata": {"resourceVersion": rv},
                                            "spec": {"persistentVolumeClaim": {"size": "2Gi"}}}, ns)
    assert grown["metadata"]["generation"] == 2
    with pytest.raises(Conflict, match="the object has been modified"):
        dvp.patch(R.VIRTUAL_DISK, "d", {"metadata": {"resourceVersion": rv, "labels": {"a": "b"}}}, ns)
    stale = {**created, "metadata": {**created["metadata"], "labels": {"a": "b"}}}
    with pytest.raises(Conflict):
        dvp.replace(R.VIRTUAL_DISK, stale, ns)


def test_a_patch_naming_another_uid_is_invalid_and_changes_nothing(dvp, ns):
    created = dvp.create(R.VIRTUAL_DISK, disk("d", "1Gi"), ns)
    with pytest.raises(Invalid, match="metadata.uid"):
        dvp.patch(R.VIRTUAL_DISK, "d", {"metadata": {"uid": "00000000-0000-0000-0000-000000000000",
                                                     "labels": {"a": "b"}}}, ns)
    assert dvp.get(R.VIRTUAL_DISK, "d", ns)["metadata"]["resourceVersion"] == created["metadata"]["resourceVersion"]


def test_a_delete_with_another_uid_conflicts_and_keeps_the_object(dvp, ns):
    dvp.create(R.VIRTUAL_DISK, disk("d", "1Gi"), ns)
    with pytest.raises(Conflict, match="the UID in the precondition .* does not match"):
        dvp.delete(R.VIRTUAL_DISK, "d", ns, preconditions={"uid": "00000000-0000-0000-0000-000000000000"})
    assert dvp.get(R.VIRTUAL_DISK, "d", ns)


def test_finalizers_keep_a_deleted_object_until_the_last_goes(dvp, ns):
    body = disk("d", "1Gi")
    body["metadata"]["finalizers"] = ["test.example/hold"]
    dvp.create(R.VIRTUAL_DISK, body, ns)
    dvp.delete(R.VIRTUAL_DISK, "d", ns)
    held = dvp.get(R.VIRTUAL_DISK, "d", ns)
    assert held["metadata"]["deletionTimestamp"]
    assert held["metadata"]["finalizers"] == ["test.example/hold"]
    dvp.patch(R.VIRTUAL_DISK, "d", {"metadata": {"finalizers": None}}, ns)
    with pytest.raises(NotFound):
        dvp.get(R.VIRTUAL_DISK, "d", ns)


def test_status_changes_only_through_its_subresource_which_changes_nothing_else(dvp, ns):
    body = disk("d", "1Gi")
    body["status"] = {"phase": "Ready"}
    created = dvp.create(R.VIRTUAL_DISK, body, ns)
    assert "status" not in created or created["status"].get("phase") != "Ready"
    written = dvp.update_status(R.VIRTUAL_DISK, {**created, "status": {"phase": "Provisioning"},
                                                 "spec": {**created["spec"], "persistentVolumeClaim": {
                                                     **created["spec"]["persistentVolumeClaim"], "size": "9Gi"}}}, ns)
    assert written["status"]["phase"] == "Provisioning"
    assert written["spec"]["persistentVolumeClaim"]["size"] == "1Gi"
    patched = dvp.patch(R.VIRTUAL_DISK, "d", {"status": {"phase": "Ready"}, "metadata": {"labels": {"a": "b"}}}, ns)
    assert patched["status"]["phase"] == "Provisioning"
    assert patched["metadata"]["labels"]["a"] == "b"


def test_a_watch_from_a_list_sees_what_follows_and_a_selector_watch_sees_an_object_leave(dvp, ns):
    dvp.create(R.VIRTUAL_DISK, {**disk("d", "1Gi"), "metadata": {"name": "d", "labels": {"pick": "yes"}}}, ns)
    page = dvp.list(R.VIRTUAL_DISK, ns, label_selector={"pick": "yes"})
    assert [o["metadata"]["name"] for o in page.items] == ["d"]
    seen: list[tuple[str, str]] = []
    done = threading.Event()

    def watch() -> None:
        for event in dvp.watch(R.VIRTUAL_DISK, ns, label_selector={"pick": "yes"},
                               resource_version=page.resource_version, timeout_seconds=int(WAIT)):
            seen.append((event.type, event.name))
            if event.type == "DELETED":
                break
        done.set()

    thread = threading.Thread(target=watch, daemon=True)
    thread.start()
    dvp.patch(R.VIRTUAL_DISK, "d", {"metadata": {"annotations": {"x": "1"}}}, ns)
    dvp.patch(R.VIRTUAL_DISK, "d", {"metadata": {"labels": {"pick": "no"}}}, ns)
    assert done.wait(WAIT)
    assert seen == [("MODIFIED", "d"), ("DELETED", "d")]


def test_a_list_pages_with_limit_and_continue(dvp, ns):
    for i in range(5):
        dvp.create(CONFIG_MAP, {"metadata": {"name": f"c{i}"}, "data": {}}, ns)
    first = dvp.list(CONFIG_MAP, ns, limit=2)
    assert [o["metadata"]["name"] for o in first.items] == ["c0", "c1"] and first.continue_
    second = dvp.list(CONFIG_MAP, ns, limit=2, continue_=first.continue_)
    last = dvp.list(CONFIG_MAP, ns, limit=2, continue_=second.continue_)
    assert [o["metadata"]["name"] for o in second.items + last.items] == ["c2", "c3", "c4"]
    assert last.continue_ is None and second.resource_version == first.resource_version


def test_a_json_patch_applies_and_a_failed_test_is_invalid(dvp, ns):
    dvp.create(CONFIG_MAP, {"metadata": {"name": "j"}, "data": {"a": "1"}}, ns)
    out = dvp.patch(CONFIG_MAP, "j", [{"op": "add", "path": "/data/b", "value": "2"}], ns, patch_type="json")
    assert out["data"] == {"a": "1", "b": "2"}
    with pytest.raises(Invalid):
        dvp.patch(CONFIG_MAP, "j", [{"op": "test", "path": "/data/a", "value": "9"},
                                    {"op": "remove", "path": "/data/a"}], ns, patch_type="json")
    assert dvp.get(CONFIG_MAP, "j", ns)["data"] == {"a": "1", "b": "2"}


def test_a_kind_without_status_serves_no_status_subresource(dvp, ns):
    created = dvp.create(CONFIG_MAP, {"metadata": {"name": "s"}, "data": {}}, ns)
    with pytest.raises(NotFound):
        dvp.update_status(CONFIG_MAP, {**created, "status": {"phase": "Ready"}}, ns)
