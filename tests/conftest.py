# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""Session fixtures for the real Kubernetes API (testkit/harness/README.md).

`dvp_api` and `guest_api` are two kube-apiservers on one etcd, started once per session on first use.
Tests that use them are marked `apiserver` automatically. A missing binary fails the test ("run `make tools`").
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

import pytest

from testkit.harness.apiserver import (
    ApiServer,
    ControlPlane,
    capi_core_crd_files,
    dvp_crd_files,
    guest_controllers_crd_files,
    guest_crd_files,
)
from testkit.harness.guest_controllers import GuestControllers
from testkit.harness.processes import HarnessError

API_FIXTURES = {"control_plane", "dvp_api", "guest_api", "rbac_api", "capi_api", "kubeconfig_for",
                "guest_controllers"}


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if API_FIXTURES & set(getattr(item, "fixturenames", ())):
            item.add_marker(pytest.mark.apiserver)


@pytest.fixture(scope="session")
def control_plane() -> Iterator[ControlPlane]:
    plane = ControlPlane()
    try:
        plane.start({"dvp": ("AlwaysAllow", dvp_crd_files()), "guest": ("AlwaysAllow", guest_crd_files())})
    except HarnessError as exc:
        pytest.fail(f"real Kubernetes API unavailable: {exc}", pytrace=False)
    try:
        yield plane
    finally:
        plane.stop()


@pytest.fixture(scope="session")
def dvp_api(control_plane: ControlPlane) -> ApiServer:
    """The DVP cluster: virtualization.deckhouse.io CRDs; the simulator plays its controllers."""
    return control_plane.servers["dvp"]


@pytest.fixture(scope="session")
def guest_api(control_plane: ControlPlane) -> ApiServer:
    """The guest (Deckhouse) cluster: cluster-api, snapshot.storage.k8s.io and the module's own CRDs."""
    return control_plane.servers["guest"]


@pytest.fixture(scope="session")
def rbac_api(control_plane: ControlPlane) -> ApiServer:
    """A third server with --authorization-mode=RBAC (all CRDs), started only when a test asks for it.
    The admin token is in system:masters; use `rbac_api.service_account_token(ns, name)` for a restricted one."""
    try:
        return control_plane.add_server("rbac", "RBAC", dvp_crd_files() + guest_crd_files())
    except HarnessError as exc:
        pytest.fail(f"RBAC API server unavailable: {exc}", pytrace=False)


@pytest.fixture(scope="session")
def capi_api(control_plane: ControlPlane) -> ApiServer:
    """A guest cluster of its own with every Cluster API core CRD, for the real CAPI controller
    (harness.capi_controller), started only when a test asks for it. Not `guest_api`: CAPI acts on every Machine
    it sees and its webhooks apply to the whole server."""
    try:
        return control_plane.add_server("capi", "AlwaysAllow", capi_core_crd_files())
    except HarnessError as exc:
        pytest.fail(f"CAPI guest API server unavailable: {exc}", pytrace=False)


@pytest.fixture(scope="session")
def guest_controllers(control_plane: ControlPlane, tmp_path_factory) -> Iterator[GuestControllers]:
    """A guest cluster of its own with its control plane running (harness.guest_controllers): kube-controller-
    manager, kube-scheduler and kwok's kubelets; `.server` is its API. Not `guest_api`: these controllers act on
    every object they see (garbage collection, node lifecycle), which the hand-made objects of other tests are not
    made for."""
    try:
        server = control_plane.add_server("controllers", "AlwaysAllow", guest_controllers_crd_files())
        assert control_plane.pki is not None
        running = GuestControllers(server, control_plane.pki, tmp_path_factory.mktemp("guest-controllers"))
    except HarnessError as exc:
        pytest.fail(f"guest control plane unavailable: {exc}", pytrace=False)
    try:
        yield running
    finally:
        running.stop()


@pytest.fixture(scope="session")
def kubeconfig_for() -> Callable[..., str]:
    """kubeconfig_for(api, namespace=None, token=None) -> kubeconfig text (CA and token inline)."""

    def make(api: ApiServer, namespace: str | None = None, token: str | None = None) -> str:
        return api.kubeconfig(namespace, token=token)

    return make
