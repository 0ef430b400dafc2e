# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""What adopting an upstream hot-plug attachment sends to DVP: a read by upstream's name and the guarded patch,
never a list that scans every attachment of the project (a per-volume LIST grows with the project)."""

from __future__ import annotations

from dvp_common.dvp import labels as L
from dvp_common.dvp.resources import VIRTUAL_MACHINE_BLOCK_DEVICE_ATTACHMENT as VMBDA
from dvp_common.kube.resources import NODE
from dvp_csi.access import Dvp

from testkit.recorded import RecordedApi
from testkit.upstream import guest as G
from testkit.upstream import parent as P

NS = "tenant-a"
UUID = "5f7c3a2e-0000-4000-8000-0000000000c5"
OURS = {L.MANAGED_BY: L.MANAGED_BY_VALUE, L.CLUSTER_UUID: UUID, L.COMPONENT: L.CSI}


def test_an_upstream_attachment_is_read_by_name_and_adopted_with_one_patch():
    dvp, guest = RecordedApi(admission=True, namespaces=(NS,)), RecordedApi()
    guest.put(NODE, G.node("worker-0", "vm-0"))
    stored = dvp.put(VMBDA, P.vmbda("pvc-a", "worker-0", "vm-0"), NS)
    dvp.put(VMBDA, P.vmbda("pvc-b", "worker-0", "vm-0"), NS)  # another volume's: never read
    access = Dvp.over(dvp.client, NS, UUID, guest.client)
    access.adopt_attachments("pvc-a", "worker-0", "vm-0")
    name = "vmbda-pvc-a-worker-0"
    assert dvp.calls == [("get", VMBDA.kind, name), ("patch", VMBDA.kind, name)]
    md = stored["metadata"]
    assert dvp.peek(VMBDA, name, NS)["metadata"]["labels"] == {**P.vmbda_labels("pvc-a", "worker-0"), **OURS}
    assert dvp.peek(VMBDA, name, NS)["metadata"]["uid"] == md["uid"]
    access.adopt_attachments("pvc-a", "worker-0", "vm-0")  # ours now: read, nothing written
    assert dvp.writes() == [("patch", VMBDA.kind, name)]


def test_no_upstream_attachment_is_one_read():
    dvp, guest = RecordedApi(admission=True, namespaces=(NS,)), RecordedApi()
    guest.put(NODE, G.node("worker-0", "vm-0"))
    Dvp.over(dvp.client, NS, UUID, guest.client).adopt_attachments("pvc-a", "worker-0", "vm-0")
    assert dvp.calls == [("get", VMBDA.kind, "vmbda-pvc-a-worker-0")] and guest.calls == []
