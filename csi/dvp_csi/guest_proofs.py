# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""The guest's PersistentVolumes and claims that prove an upstream disk ours, and its VolumeAttachments, from
informers.

Reading every PV and claim per call would make each call on a not yet adopted disk cost two full lists; the
watches answer from memory instead. The informers start on first use; until their first lists arrived, and for a
disk the cache proves nothing adoptable about (a PV or a claim perhaps made after the cache last heard), the
caller reads the guest once (`read`), for all the disks of its call or pass. A lagging cache proves nothing
false: a claim it still holds was made by this guest's API server with that uid, so the uid in the disk's name
was this cluster's choice all the same.

A VolumeAttachment attached without the serial in its attachmentMetadata (the upstream driver published none) is
`unrecorded`: ListVolumes leaves its node out, so the external-attacher's reconcile publishes it again and records
the serial kubelet hands to NodeStage, even when an earlier publish adopted the attachment but the attacher could
not record its answer.
"""

from __future__ import annotations

import threading

from dvp_common.dvp import pv_proof
from dvp_common.dvp.adoption import Proof
from dvp_common.kube import KubeClient
from dvp_common.kube.resources import PERSISTENT_VOLUME, PERSISTENT_VOLUME_CLAIM, VOLUME_ATTACHMENT
from dvp_common.runtime.informer import Informer

from . import DRIVER_NAME
from .domain import names

BY_HANDLE = "volumeHandle"
BY_UID = "uid"


def read(guest: KubeClient) -> dict[str, Proof]:
    """volumeHandle -> proof, from one live list of each kind."""
    claims = {pv_proof.claim_uid(c): c for c in guest.list_all(PERSISTENT_VOLUME_CLAIM).items}
    return pv_proof.proofs(guest.list_all(PERSISTENT_VOLUME).items, claims.get)


class GuestProofs:
    def __init__(self, guest: KubeClient, watch_timeout: int = 300) -> None:
        self.guest = guest
        self.pvs = Informer(guest, PERSISTENT_VOLUME, watch_timeout=watch_timeout)
        self.pvs.add_index(BY_HANDLE, lambda pv: [h] if (h := pv_proof.handle_of(pv)) else [])
        self.claims = Informer(guest, PERSISTENT_VOLUME_CLAIM, watch_timeout=watch_timeout)
        self.claims.add_index(BY_UID, lambda c: [u] if (u := pv_proof.claim_uid(c)) else [])
        self.attachments = Informer(guest, VOLUME_ATTACHMENT, watch_timeout=watch_timeout)
        self._stop = threading.Event()
        self._lock = threading.Lock()
        self._threads: list[threading.Thread] = []

    def _start(self) -> None:
        with self._lock:
            if self._threads or self._stop.is_set():
                return
            for inf in (self.pvs, self.claims, self.attachments):
                t = threading.Thread(target=inf.run, args=(self._stop,), name=f"guest-{inf.resource.plural}",
                                     daemon=True)
                t.start()
                self._threads.append(t)

    @property
    def synced(self) -> bool:
        return self.pvs.synced.is_set() and self.claims.synced.is_set()

    def _claim(self, uid: str) -> dict | None:
        found = self.claims.by_index(BY_UID, uid)
        return found[0] if found else None

    def cached(self, handles: list[str]) -> dict[str, Proof]:
        """The proofs the cache holds for `handles` ({} until both informers have listed once)."""
        self._start()
        if not self.synced:
            return {}
        return pv_proof.proofs([pv for h in handles for pv in self.pvs.by_index(BY_HANDLE, h)], self._claim)

    def unrecorded(self, handle: str, node: str) -> bool:
        """The volume's VolumeAttachment on `node` is attached with no serial recorded (False until listed)."""
        self._start()
        if not self.attachments.synced.is_set():
            return False
        va = self.attachments.get(names.volume_attachment_name(handle, DRIVER_NAME, node))
        status = (va or {}).get("status") or {}
        spec = (va or {}).get("spec") or {}
        return spec.get("attacher") == DRIVER_NAME and spec.get("nodeName") == node and bool(status.get("attached")) \
            and not (status.get("attachmentMetadata") or {}).get(names.SERIAL_KEY)

    def live(self) -> dict[str, Proof]:
        return read(self.guest)

    def close(self, timeout: float = 10.0) -> None:
        self._stop.set()
        with self._lock:
            threads = list(self._threads)
        for t in threads:
            t.join(timeout)
