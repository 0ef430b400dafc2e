# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""The module's image builder: OCI image layouts made without a container engine, byte for byte the same from
the same commit (images/README.md). Debian trixie packages from a recorded list, the runtime wheels of
requirements.lock, our packages compiled to bytecode by the image's own interpreter."""
