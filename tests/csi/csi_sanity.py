# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""Running csi-sanity (kubernetes-csi/csi-test, pinned in tools/csi-sanity) against a served driver."""

from __future__ import annotations

import os
import subprocess
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
BINARY = ROOT / ".bin" / "csi-sanity"

# Specs csi-sanity skips because we do not advertise the capability (skip message -> why). Any other skip fails.
UNADVERTISED = {
    "NodeGetStorageHealth not supported": "the node plugin holds no DVP credentials: no view of DVP's storage",
    "GroupControllerService not supported": "DVP has no consistent multi-disk snapshots",
    "SNAPSHOT_ACCESSIBILITY_CONSTRAINTS not supported": "no topology: DVP disks follow the VM",
    "ControllerPublishVolume.readonly field not supported": "a VMBDA cannot attach read-only; the node mounts ro",
    "Service does not have single node multi writer capability": "only SINGLE_NODE_WRITER/READER_ONLY",
}


@dataclass
class Result:
    passed: list[str] = field(default_factory=list)
    failed: list[str] = field(default_factory=list)
    skipped: dict[str, str] = field(default_factory=dict)  # spec -> skip message
    output: str = ""


def binary() -> str:
    assert BINARY.exists(), f"{BINARY} is missing: run `make tools` (tools/build csi-sanity) first"
    return str(BINARY)


def run(endpoint: str, workdir: Path, params: dict[str, str], *, size: int, expand_size: int,
        mutable: dict[str, str] | None = None, focus: str = "", timeout: float = 600) -> Result:
    """`mutable`: the mutable_parameters of the ModifyVolume specs (a VolumeAttributesClass's parameters);
    default: the same storage class as `params`."""
    workdir.mkdir(parents=True, exist_ok=True)
    (workdir / "params.yaml").write_text("".join(f"{k}: {v}\n" for k, v in params.items()))
    mutable = mutable if mutable is not None else {k: v for k, v in params.items() if k == "dvpStorageClass"}
    (workdir / "mutable.yaml").write_text("".join(f"{k}: {v}\n" for k, v in mutable.items()))
    junit = workdir / "junit.xml"
    args = [binary(), "-csi.endpoint", endpoint, "-csi.mountdir", str(workdir / "mnt"),
            "-csi.stagingdir", str(workdir / "stage"), "-csi.testvolumeparameters", str(workdir / "params.yaml"),
            "-csi.testvolumemutableparameters", str(workdir / "mutable.yaml"),
            "-csi.testvolumesize", str(size), "-csi.testvolumeexpandsize", str(expand_size),
            "-csi.testnodevolumeattachlimit", "-csi.junitfile", str(junit), "-ginkgo.no-color"]
    if focus:
        args += ["-ginkgo.focus", focus]
    proc = subprocess.run(args, capture_output=True, text=True, timeout=timeout, check=False,
                          env={**os.environ, "HOME": str(workdir)})
    assert junit.exists(), f"csi-sanity wrote no report (exit {proc.returncode}): {proc.stderr[-2000:]}"
    res = Result(output=proc.stdout[-20000:])
    for case in ET.parse(junit).getroot().iter("testcase"):  # noqa: S314 (our own tool's report)
        name, status = case.get("name", ""), case.get("status", "")
        if status == "passed":
            res.passed.append(name)
        elif status == "skipped":
            sk = case.find("skipped")
            message = (sk.get("message") or "") if sk is not None else ""
            res.skipped[name] = message.removeprefix("skipped - ").strip()
        elif status != "pending":
            res.failed.append(name)
    return res
