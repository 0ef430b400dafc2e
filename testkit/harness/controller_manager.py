# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""kube-controller-manager, started in one place: `.bin/kube-controller-manager`, built from the Kubernetes module
that pins kube-apiserver (tools/kube-controller-manager).

Two users: the guest's own control plane (`guest_controllers.GuestControllers`, many controllers) and every DVP
API server (`GarbageCollector`, the garbage collector alone: in DVP, dependents by ownerReference are collected
by the parent cluster's kube-controller-manager, not by DVP's controllers). Both run as harness processes
(`processes.Process`): spawned with the parent-death signal, stopped with SIGTERM then SIGKILL.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from .processes import HarnessError, Process, tool

BINARY = "kube-controller-manager"
GARBAGE_COLLECTOR = "garbage-collector-controller"
READY_S = 60.0
PROBE_NS = "default"  # kube-apiserver makes it; the probe's two ConfigMaps are gone once it has answered
PROBE = "harness-gc-probe"


def start(name: str, kubeconfig: Path, controllers: Iterable[str], log: Path, *flags: str,
          binary: Path | None = None) -> Process:
    """kube-controller-manager running `controllers` only, against the API server of `kubeconfig`: no serving
    port, no leader election; `flags` add what those controllers need."""
    return Process(name, [
        str(binary or tool(BINARY)), f"--kubeconfig={kubeconfig}", "--secure-port=0", "--leader-elect=false",
        f"--controllers={','.join(controllers)}", "--kube-api-qps=100", "--kube-api-burst=200", "--v=1", *flags],
        log)


class GarbageCollector:
    """Kubernetes' garbage collector for one API server (background, foreground and orphan propagation by
    ownerReference), as the parent cluster's kube-controller-manager runs it for DVP. Only that controller runs:
    no ServiceAccount key is given, so the token controller stays off too. It acts on every object of the
    server. `start()` returns once it has collected a probe (a dependent whose owner was deleted): its graph
    has synced every resource the server served when it started; `stop()` ends it."""

    def __init__(self, server, workdir: Path) -> None:
        """`server`: an `apiserver.ApiServer`; its kubeconfig and the log go into `workdir`."""
        self.server = server
        self.binary = tool(BINARY)  # a missing binary fails before anything starts
        self.kubeconfig = workdir / f"{BINARY}-{server.name}.kubeconfig"
        self.log = workdir / f"{BINARY}-{server.name}.log"
        self.process: Process | None = None

    def start(self, timeout: float = READY_S) -> GarbageCollector:
        self.kubeconfig.touch(mode=0o600)  # a token: readable by us only, before it is written
        self.kubeconfig.write_text(self.server.kubeconfig())
        self.process = start(f"{BINARY}-{self.server.name}", self.kubeconfig, [GARBAGE_COLLECTOR], self.log,
                             binary=self.binary)
        try:
            self._probe(timeout)
        except BaseException:
            self.stop()
            raise
        return self

    def _probe(self, timeout: float) -> None:
        from dvp_common.kube import WaitTimeout
        from dvp_common.kube.resources import CONFIG_MAP

        client = self.server.client()
        try:
            for name in (f"{PROBE}-dependent", PROBE):  # left by an earlier collector on this etcd prefix
                client.delete(CONFIG_MAP, name, PROBE_NS, missing_ok=True)
            owner = client.create(CONFIG_MAP, {"metadata": {"name": PROBE}}, PROBE_NS)
            client.create(CONFIG_MAP, {"metadata": {"name": f"{PROBE}-dependent", "ownerReferences": [{
                "apiVersion": "v1", "kind": "ConfigMap", "name": PROBE, "uid": owner["metadata"]["uid"]}]}},
                PROBE_NS)
            client.delete(CONFIG_MAP, PROBE, PROBE_NS)
            try:
                client.wait_for(CONFIG_MAP, f"{PROBE}-dependent", lambda obj: obj is None, timeout, PROBE_NS)
            except WaitTimeout:
                assert self.process is not None
                state = "running" if self.process.alive() else f"exited with code {self.process.proc.returncode}"
                raise HarnessError(f"the garbage collector of {self.server.name} ({state}) did not collect its "
                                   f"probe within {timeout:g}s; last log lines ({self.log}):\n"
                                   f"{self.process.tail()}") from None
        finally:
            client.close()

    def alive(self) -> bool:
        return self.process is not None and self.process.alive()

    def terminate(self) -> None:
        if self.process is not None:
            self.process.terminate()

    def stop(self) -> None:
        if self.process is not None:
            self.process.stop()
