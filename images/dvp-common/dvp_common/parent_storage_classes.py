# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""Which parent (DVP) StorageClasses the guest gets: the one rule the discoverer and the storage-classes hook
share (pure; the hooks import it without the client library).

A DVP administrator keeps a class out of every guest cluster with the annotation
`cloud-provider.deckhouse.io/skip-storage-class: "true"` on the DVP StorageClass (upstream Deckhouse's key), e.g.
for local disks, which a VM that migrates to another DVP node could no longer reach. The discoverer writes such a
class into the discovery data without `isEnabled` (the data is omitempty: absent means false), and never as the
default; the hook publishes only entries with `isEnabled: true`, and does not keep a guest class of a parent the
discovery data lists as skipped.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

SKIP_ANNOTATION = "cloud-provider.deckhouse.io/skip-storage-class"
DEFAULT_ANNOTATIONS = (
    "storageclass.kubernetes.io/is-default-class", "storageclass.beta.kubernetes.io/is-default-class",
)


def _true(value: Any) -> bool:
    return str(value).strip().lower() == "true"


def skipped(annotations: Mapping[str, Any] | None) -> bool:
    """The DVP StorageClass with these annotations is not for the guest."""
    return _true((annotations or {}).get(SKIP_ANNOTATION, ""))


def default(annotations: Mapping[str, Any] | None) -> bool:
    """The DVP StorageClass is DVP's default and may be the guest's: a skipped class never is."""
    ann = annotations or {}
    return not skipped(ann) and any(_true(ann.get(k, "")) for k in DEFAULT_ANNOTATIONS)


def published(entry: Mapping[str, Any]) -> bool:
    """A discovery data entry (`storageClasses[]`) the guest gets a StorageClass for."""
    return entry.get("isEnabled") is True
