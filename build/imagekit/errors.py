# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""The one error of the builder: a line naming what failed and, where there is one, the command that mends it."""


class ImageError(RuntimeError):
    pass
