# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""The demo's clean scenario with ccm, capdvp, the discoverer, both webhooks and the CSI controller started from
their built images (demo.images): the same DVP objects as from the tree, nothing left, and each of those
processes really ran in its image rootfs as uid 64535, without capabilities, on a read-only root, authorized by
the chart's own RBAC through its ServiceAccount. The faults and SIGKILL variants run from the tree only
(demo.faulty and demo.chaos are testkit code, not in the images)."""

from __future__ import annotations

import io

from dvp_common.kube import Forbidden
from dvp_common.kube.resources import SECRET

from demo import image_start
from demo import images as img
from demo.environment import MODULE_NS, Demo, Settings, StepFailed
from demo.progress import Progress
from demo.walk import walk
from tests.e2e.test_e2e_scenario import assert_converged


def test_scenario_from_the_images_creates_what_the_tree_does_and_leaves_nothing(tmp_path):
    out = io.StringIO()
    demo = Demo(Progress(out=out), Settings(images=True), tmp_path)
    seen: dict[str, img.Sandbox] = {}
    denied: dict[str, bool] = {}
    original = demo.start_components

    def start_and_look() -> None:  # the sandboxes as the host sees them, while the components run
        original()
        for name in img.COMPONENT_IMAGES:
            box = demo.components.items[name].sandbox()
            if box is not None:
                seen[name] = box
        denied.update(secrets_denied_to(demo, "cloud-controller-manager"))

    demo.start_components = start_and_look
    try:
        result = walk(demo)
    except StepFailed as exc:
        raise AssertionError(f"{exc}\n{out.getvalue()}") from None
    finally:
        demo.stop()
    log = out.getvalue()
    assert_converged(result, log)
    assert set(seen) == set(img.COMPONENT_IMAGES), log
    for name, box in seen.items():
        image = demo.images[img.COMPONENT_IMAGES[name]]
        assert (box.uid, box.gid, box.cap_eff, box.root_is_rootfs, box.root_read_only) == \
            (img.UID, img.GID, 0, True, True), (name, box)
        assert f"   {name}: running from image {image.name}@{image.digest} (rootfs {image.rootfs}" in log, log
    assert demo.guest_api.authorization == "RBAC"
    assert denied == {"cloud-controller-manager": True}, "the guest API does not authorize by the chart's RBAC"


def secrets_denied_to(demo: Demo, component: str) -> dict[str, bool]:
    """{component: its ServiceAccount is refused the module's Secrets} (its ClusterRole grants none): the
    ServiceAccounts get the chart's permissions and no more."""
    token = demo.guest_api.service_account_token(MODULE_NS, demo.service_accounts[component])
    client = demo.guest_api.client(token=token)
    try:
        client.list(SECRET, MODULE_NS)
    except Forbidden:
        return {component: True}
    finally:
        client.close()
    return {component: False}


def test_cold_start_to_ready_is_measured_from_the_image_and_from_the_tree():
    # The figures are the bench's (bench/images.py, goal image <= 1.2x tree); here: every component comes up
    # both ways and answers its probe (a process that exits or never answers raises StartFailed).
    times = image_start.start_times()
    assert set(times) == set(image_start.COMPONENTS)
    for name, modes in times.items():
        assert set(modes) == {"image", "tree"}, name
        assert all(0 < seconds < image_start.READY_TIMEOUT for seconds in modes.values()), (name, modes)
