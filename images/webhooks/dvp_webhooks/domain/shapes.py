# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""The types of every field a rule reads, checked before the rule runs: a wrong type is a denial naming the
field, never a crash inside a rule. The API server only sends objects of these types; anything else comes from a
direct client, so the check is strict."""

from __future__ import annotations

from dvp_common.admission.shapes import MAP, STR, STR_LIST, STR_MAP, checker

FIELDS: dict[str, dict[str, str]] = {
    "Secret": {"type": STR, "data": STR_MAP, "stringData": STR_MAP},
    "NodeGroup": {"spec": MAP, "spec.nodeType": STR, "spec.cloudInstances": MAP,
                  "spec.cloudInstances.classReference": MAP, "spec.cloudInstances.classReference.kind": STR,
                  "spec.cloudInstances.classReference.name": STR},
    "DVPInstanceClass": {"spec": MAP, "spec.virtualMachine": MAP, "spec.virtualMachine.additionalLabels": MAP,
                         "spec.virtualMachine.additionalAnnotations": MAP, "status": MAP,
                         "status.nodeGroupConsumers": STR_LIST},
    "VolumeSnapshot": {"spec": MAP, "spec.source": MAP, "spec.source.persistentVolumeClaimName": STR,
                       "spec.source.volumeSnapshotContentName": STR, "spec.volumeSnapshotClassName": STR},
    "VolumeSnapshotContent": {"spec": MAP, "spec.source": MAP, "spec.source.volumeHandle": STR,
                              "spec.source.snapshotHandle": STR, "spec.sourceVolumeMode": STR,
                              "spec.volumeSnapshotRef": MAP, "spec.volumeSnapshotRef.name": STR,
                              "spec.volumeSnapshotRef.namespace": STR, "spec.volumeSnapshotClassName": STR},
    "VolumeSnapshotClass": {"driver": STR},
}


check = checker(FIELDS)
