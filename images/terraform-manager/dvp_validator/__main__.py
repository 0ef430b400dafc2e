# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""validator serve [--network=tcp|unix] [--address=127.0.0.1:0]: serve dhctl's validation service until SIGTERM.

Once listening it prints the endpoint line dhctl waits for on stderr; exit 2 on bad arguments or a failed start."""

from __future__ import annotations

import argparse
import logging
import sys

from dvp_common.runtime import logging as runtime_logging
from dvp_common.runtime.signals import stop_on_signals


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="validator", description="dhctl validation service of cloud-provider-dvp")
    sub = p.add_subparsers(dest="command", required=True)
    serve = sub.add_parser("serve", help="serve dhctl.provider.validate.v1.ValidateService")
    serve.add_argument("--network", default="tcp", choices=("tcp", "unix"))
    serve.add_argument("--address", default="127.0.0.1:0", help="host:port, or a socket path with --network=unix")
    serve.add_argument("--log-level", default="Info", choices=tuple(runtime_logging.LEVELS))
    args = p.parse_args(sys.argv[1:] if argv is None else argv)
    runtime_logging.setup(args.log_level)
    log = logging.getLogger("dvp_validator")
    from . import schemas
    from .server import ValidatorServer

    try:
        server = ValidatorServer(args.network, args.address, schemas.load())
    except (OSError, ValueError) as exc:
        log.error("validator: %s", exc)
        return 2
    stop = stop_on_signals()
    server.start()
    # Written directly, not through the logger: dhctl must find it whatever the log level.
    print(server.announcement(), file=sys.stderr, flush=True)
    stop.wait()
    server.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
