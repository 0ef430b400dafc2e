# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""What happened in the DVP project namespace: objects created/deleted per kind (from watches) and the DVP
API's own request counter (kube-apiserver's apiserver_request_total, every client, simulator included)."""

from __future__ import annotations

import re
import threading
from collections import Counter
from typing import Any

import requests
from dvp_common.kube import KubeClient
from dvp_common.runtime import Informer

from sim.world import KINDS

# Namespaced DVP kinds the module's components create (images are seeded cluster-wide by the demo).
TRACKED = ("VirtualMachine", "VirtualDisk", "VirtualMachineBlockDeviceAttachment", "VirtualDiskSnapshot",
           "VirtualMachineIPAddress", "VirtualMachineOperation", "Secret", "Service")


class Ledger:
    def __init__(self, client: KubeClient, namespace: str) -> None:
        self.client, self.namespace = client, namespace
        self.created: Counter = Counter()
        self.deleted: Counter = Counter()
        self._seen: set[tuple[str, str]] = set()
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self.informers: dict[str, Informer] = {}
        for kind in TRACKED:
            inf = Informer(client, KINDS[kind], namespace, watch_timeout=5)
            inf.add_handlers(on_add=lambda o, k=kind: self._add(k, o), on_delete=lambda o, k=kind: self._del(k, o))
            self.informers[kind] = inf
        self._threads = [threading.Thread(target=i.run, args=(self._stop,), daemon=True) for i in
                         self.informers.values()]

    def start(self, timeout: float = 30.0) -> Ledger:
        for t in self._threads:
            t.start()
        for kind, inf in self.informers.items():
            if not inf.synced.wait(timeout):
                raise RuntimeError(f"ledger: the {kind} watch did not sync within {timeout:.0f}s")
        return self

    def stop(self) -> None:
        self._stop.set()
        for t in self._threads:
            t.join(7)

    def _add(self, kind: str, obj: dict[str, Any]) -> None:
        key = (kind, obj["metadata"]["uid"])
        with self._lock:
            if key not in self._seen:
                self._seen.add(key)
                self.created[kind] += 1

    def _del(self, kind: str, obj: dict[str, Any]) -> None:
        with self._lock:
            self.deleted[kind] += 1

    def caught_up(self, leftovers: dict[str, list[str]]) -> bool:
        """Every object seen created is seen deleted, but for the `leftovers` (read from the API)."""
        with self._lock:
            return all(self.deleted[k] >= n - len(leftovers.get(k, ())) for k, n in self.created.items())

    def live(self) -> dict[str, list[str]]:
        """Objects in the namespace now, by kind, read from the API (not the caches)."""
        out: dict[str, list[str]] = {}
        for kind in TRACKED:
            names = sorted(o["metadata"]["name"] for o in self.client.list(KINDS[kind], self.namespace).items)
            if names:
                out[kind] = names
        return out


_SAMPLE = re.compile(r'^apiserver_request_total\{([^}]*)\} ([0-9.e+]+)$')


def dvp_requests(url: str, token: str, ca_path: str, namespace_kinds: bool = True) -> int:
    """Requests the DVP API served for the virtualization group plus Services and Secrets (all clients)."""
    text = requests.get(f"{url}/metrics", headers={"Authorization": f"Bearer {token}"}, verify=ca_path,
                        timeout=10).text
    total = 0.0
    for line in text.splitlines():
        m = _SAMPLE.match(line)
        if not m:
            continue
        labels = dict(re.findall(r'(\w+)="([^"]*)"', m.group(1)))
        if labels.get("group") == "virtualization.deckhouse.io" or (
                labels.get("group", "") == "" and labels.get("resource") in ("services", "secrets")):
            total += float(m.group(2))
    return int(total)
