# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""The one exception domain code raises: a gRPC status code and a one-line message naming the object."""

from __future__ import annotations

import grpc


class CsiError(Exception):
    def __init__(self, code: grpc.StatusCode, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = " ".join(message.split())


def invalid(message: str) -> CsiError:
    return CsiError(grpc.StatusCode.INVALID_ARGUMENT, message)


def not_found(message: str) -> CsiError:
    return CsiError(grpc.StatusCode.NOT_FOUND, message)
