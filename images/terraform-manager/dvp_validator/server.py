# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""The gRPC adapter: dhctl.provider.validate.v1.ValidateService over the rules.

Fail closed: a payload that does not decode is InvalidArgument, a rule that breaks is Internal; only a completed
check answers OK. Nothing of the payload is logged (it carries the credentials)."""

from __future__ import annotations

import logging
from concurrent import futures

import grpc

from .domain import inputs, rules
from .domain.violations import Violation

try:
    from .generated import validate_pb2, validate_pb2_grpc
except ImportError as exc:  # pragma: no cover - a tree without `make generate`
    raise ImportError("dvp_validator/generated is missing: run `make generate` (python -m stubs validator)") \
        from exc

MAX_MESSAGE = 8 * 1024 * 1024  # the protocol's limit in each direction: every NodeGroup, class and Secret
ANNOUNCE = "dhctl-provider-protocol: listening on [[{network}://{address}]]"
log = logging.getLogger("dvp_validator")


def _message(v: Violation):
    return validate_pb2.ViolationResponse(path=v.path, code=v.code, message=v.message)


class ValidateService(validate_pb2_grpc.ValidateServiceServicer):
    def __init__(self, schemas: rules.Schemas):
        self.schemas = schemas

    def Validate(self, request, context):  # noqa: N802 - the gRPC method name
        try:
            inp = inputs.parse(request.input_json)
        except inputs.BadInput as exc:
            context.abort(grpc.StatusCode.INVALID_ARGUMENT, str(exc))
        try:
            report = rules.validate(inp, self.schemas)
        except Exception as exc:  # noqa: BLE001 - any failure of a rule means nothing was validated
            where = exc.__traceback__
            while where is not None and where.tb_next is not None:
                where = where.tb_next
            line = f"{where.tb_frame.f_code.co_filename}:{where.tb_lineno}" if where else "?"
            log.error("validation failed: %s at %s", type(exc).__name__, line)
            context.abort(grpc.StatusCode.INTERNAL, f"validator failed: {type(exc).__name__} at {line}")
        log.info("validated %s: %d error(s), %d warning(s)", inp.operation, len(report.errors), len(report.warnings))
        return validate_pb2.ValidateResponse(errors=[_message(v) for v in report.errors],
                                             warnings=[_message(v) for v in report.warnings])


class ValidatorServer:
    def __init__(self, network: str, address: str, schemas: rules.Schemas):
        if network not in ("tcp", "unix"):
            raise ValueError(f"--network must be tcp or unix, got {network!r}")
        self.network = network
        self.server = grpc.server(futures.ThreadPoolExecutor(max_workers=2), options=[
            ("grpc.max_receive_message_length", MAX_MESSAGE), ("grpc.max_send_message_length", MAX_MESSAGE)])
        validate_pb2_grpc.add_ValidateServiceServicer_to_server(ValidateService(schemas), self.server)
        target = f"unix:{address}" if network == "unix" else address
        port = self.server.add_insecure_port(target)
        if network == "tcp" and port == 0:
            raise OSError(f"cannot listen on {address}")
        host = address.rsplit(":", 1)[0] if network == "tcp" else address
        self.address = f"{host}:{port}" if network == "tcp" else address

    def announcement(self) -> str:
        """The line dhctl reads from the process output to learn the endpoint (the port it asked for may be 0)."""
        return ANNOUNCE.format(network=self.network, address=self.address)

    def start(self) -> None:
        self.server.start()

    def stop(self, grace: float = 5.0) -> None:
        self.server.stop(grace).wait(grace + 1)
