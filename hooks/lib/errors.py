# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""The one error a hook raises for bad input: it names the object and the field, in one line, and never
carries the offending value (it may be a secret)."""


class InvalidInput(Exception):
    def __init__(self, obj: str, field: str, reason: str):
        self.obj, self.field, self.reason = obj, field, " ".join(reason.split())
        super().__init__(f"{obj}: {field}: {self.reason}")
