# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""The real CSI sidecars (built from tools/) and the snapshot-controller, started against a guest API and the
driver's socket with the flags of our chart (templates/csi/controller.yaml) where a test world allows them."""

from __future__ import annotations

from pathlib import Path

from testkit.harness.processes import Process, tool

ARGS = {
    "csi-provisioner": ["--feature-gates=Topology=false", "--extra-create-metadata", "--default-fstype=ext4"],
    "csi-attacher": [],
    "csi-resizer": ["--handle-volume-inuse-error=false"],
    "csi-snapshotter": ["--extra-create-metadata"],
    "snapshot-controller": [],
}


def flags(name: str, kubeconfig: Path, socket: Path) -> list[str]:
    """The command-line flags of sidecar `name` (the binary not included)."""
    out = [f"--kubeconfig={kubeconfig}", "--v=2", *ARGS[name]]
    if name != "snapshot-controller":
        out += [f"--csi-address={socket}", "--timeout=60s"]
    return out


def start(names: tuple[str, ...], kubeconfig: Path, socket: Path, workdir: Path) -> list[Process]:
    """One process per name, logging to `workdir/<name>.log`; a missing binary fails before any starts."""
    binaries = {name: tool(name) for name in names}  # a missing one fails: run `make tools`
    procs: list[Process] = []
    try:
        for name in names:
            argv = [str(binaries[name]), *flags(name, kubeconfig, socket)]
            procs.append(Process(name, argv, workdir / f"{name}.log"))
    except BaseException:
        stop(procs)
        raise
    return procs


def stop(procs: list[Process]) -> None:
    for p in procs:
        p.terminate()
    for p in procs:
        p.stop()


def logs(procs: list[Process], lines: int = 8) -> str:
    return "\n".join(f"--- {p.name}\n{p.tail(lines)}" for p in procs)
