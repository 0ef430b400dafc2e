# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""Pull and verify a module release the way a Deckhouse ModuleSource does, with our own registry client (HTTP
API v2 on `requests`, every byte read checked against its digest): the release channel's version.json, the module
image by that version unpacked atomically, every image of images_digests.json present and intact, the chart
rendered from the unpacked module and its hooks run from it. `python -m module_source verify`."""

MODULE = "cloud-provider-dvp"


class SourceError(Exception):
    """The release cannot be installed; the message is one line naming the registry object or file."""
