# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""tools/fetch-upstream: verified copies from the Go module cache, idempotent, clear failures."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

TOP = Path(__file__).resolve().parents[2]
SCRIPT = TOP / "tools" / "fetch-upstream"
EXPECTED = {
    "csi.proto", "SOURCES",
    *(f"crds/cluster-api/cluster.x-k8s.io_{k}.yaml" for k in ("clusters", "machines", "machinesets",
                                                               "machinedeployments")),
    *(f"crds/snapshot/snapshot.storage.k8s.io_{k}.yaml" for k in ("volumesnapshotclasses", "volumesnapshotcontents",
                                                                   "volumesnapshots")),
    *(f"crds/cluster-api-core/{crd}.yaml" for crd in (
        "addons.cluster.x-k8s.io_clusterresourcesetbindings", "addons.cluster.x-k8s.io_clusterresourcesets",
        "cluster.x-k8s.io_clusterclasses", "cluster.x-k8s.io_machinedrainrules", "cluster.x-k8s.io_machinehealthchecks",
        "cluster.x-k8s.io_machinepools", "ipam.cluster.x-k8s.io_ipaddressclaims", "ipam.cluster.x-k8s.io_ipaddresses",
        "runtime.cluster.x-k8s.io_extensionconfigs")),
    *(f"crds/groupsnapshot/groupsnapshot.storage.k8s.io_{k}.yaml" for k in (
        "volumegroupsnapshotclasses", "volumegroupsnapshotcontents", "volumegroupsnapshots")),
    "cluster-api/webhooks.yaml",
    *(f"kwok/stages/{stage}.yaml" for stage in ("node-initialize", "node-heartbeat-with-lease", "pod-ready",
                                                 "pod-complete", "pod-delete")),
}


def run(out: Path, path: str | None = None) -> subprocess.CompletedProcess:
    env = {**os.environ, "CPDVP_UPSTREAM_DIR": str(out)}
    if path is not None:
        env["PATH"] = path
    return subprocess.run([str(SCRIPT)], env=env, capture_output=True, text=True, timeout=600)


def test_fetch_copies_the_pinned_files_and_is_idempotent(tmp_path):
    if shutil.which("go") is None:
        pytest.fail("Go is not on PATH: install Go >= 1.26 (tools/fetch-upstream needs the Go module proxy)")
    out = tmp_path / "upstream"
    (out / "crds" / "snapshot").mkdir(parents=True)
    (out / "crds" / "snapshot" / "stale.yaml").write_text("old")
    first = run(out)
    assert first.returncode == 0, first.stderr
    assert {p.relative_to(out).as_posix() for p in out.rglob("*") if p.is_file()} == EXPECTED
    assert "crds/snapshot/stale.yaml (removed)" in first.stdout
    sources = (out / "SOURCES").read_text().splitlines()
    assert [line.split()[:2] for line in sources if not line.startswith(" ")] == [
        ["github.com/container-storage-interface/spec", "v1.13.0"], ["sigs.k8s.io/cluster-api", "v1.13.6"],
        ["github.com/kubernetes-csi/external-snapshotter/client/v8", "v8.6.0"], ["sigs.k8s.io/kwok", "v0.8.0"]]
    machines = (out / "crds/cluster-api/cluster.x-k8s.io_machines.yaml").read_text()
    assert "name: v1beta2" in machines
    assert "service Controller" in (out / "csi.proto").read_text()
    before = {p: p.read_bytes() for p in out.rglob("*") if p.is_file()}
    second = run(out)
    assert (second.returncode, second.stdout.strip()) == (0, f"fetch-upstream: {out}: 0 file(s) updated")
    assert {p: p.read_bytes() for p in out.rglob("*") if p.is_file()} == before


def test_fetch_without_go_fails_with_one_clear_line(tmp_path):
    res = run(tmp_path / "upstream", path=str(Path(sys.executable).parent))  # python3, but no `go`
    assert res.returncode == 1
    assert res.stderr.strip() == ("fetch-upstream: 'go' is not on PATH; install Go >= 1.26 "
                                  "(data comes through the Go module proxy)")
    assert not (tmp_path / "upstream").exists()
