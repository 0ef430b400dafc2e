# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""The module release in Deckhouse's registry layout: the component images by digest in `<repo>/cloud-provider-dvp`,
`images_digests.json` from the digests really pushed, the module image `<repo>/cloud-provider-dvp:vX.Y.Z` and the
release image `<repo>/cloud-provider-dvp/release:vX.Y.Z` with its channel tags. `python -m module_release`."""

MODULE = "cloud-provider-dvp"
CHANNELS = ("alpha", "beta", "early-access", "stable", "rock-solid")


class ReleaseError(Exception):
    """A release that cannot be made; the message is one line naming the file, image or tag."""
