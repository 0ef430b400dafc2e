# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""python -m capdvp: run the provider until SIGTERM."""

from __future__ import annotations

import logging
import sys

from dvp_common.dvp.connection import DVPConnection
from dvp_common.kube import ConfigError, KubeClient
from dvp_common.runtime import logging as runtime_logging
from dvp_common.runtime.signals import stop_on_signals

from capdvp.settings import ConfigInvalid, load


def main(argv: list[str] | None = None) -> int:
    try:
        settings = load(argv)
    except ConfigInvalid as exc:
        print(f"capdvp: {exc}", file=sys.stderr)
        return 2
    runtime_logging.setup(settings.log_level)
    log = logging.getLogger("capdvp")
    try:
        guest = KubeClient.from_file_or_service_account(settings.kubeconfig)
        dvp = DVPConnection.from_settings(settings.dvp)
    except (ConfigError, OSError) as exc:
        log.error("capdvp: %s", exc)
        return 2
    from capdvp.manager import Manager

    manager = Manager(settings, guest, dvp)
    stopped = stop_on_signals()
    manager.start()
    log.info("capdvp started (DVP namespace %s)", dvp.namespace)
    stopped.wait()
    manager.shutdown()
    return 0


if __name__ == "__main__":
    sys.exit(main())
