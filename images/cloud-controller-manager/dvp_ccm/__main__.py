# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""python -m dvp_ccm: run the cloud-controller-manager until SIGTERM."""

from __future__ import annotations

import logging
import sys

from dvp_common.dvp import DVPConnection
from dvp_common.kube import ConfigError, KubeClient
from dvp_common.runtime import logging as runtime_logging
from dvp_common.runtime.signals import stop_on_signals

from dvp_ccm.settings import ConfigInvalid, load


def main(argv: list[str] | None = None) -> int:
    try:
        settings = load(sys.argv[1:] if argv is None else argv)
    except ConfigInvalid as exc:
        print(f"dvp_ccm: {exc}", file=sys.stderr)
        return 2
    runtime_logging.setup(settings.log_level)
    log = logging.getLogger("dvp_ccm")
    try:
        guest = KubeClient.from_file_or_service_account(settings.kubeconfig)
        dvp = DVPConnection.from_settings(settings.dvp)
    except (ConfigError, OSError) as exc:
        log.error("dvp_ccm: %s", exc)
        return 2
    from dvp_ccm.manager import Manager

    manager = Manager(settings, guest, dvp)
    stopped = stop_on_signals()
    manager.start()
    log.info("dvp_ccm started (controllers %s, DVP namespace %s)", ",".join(sorted(settings.controllers)),
             dvp.namespace)
    stopped.wait()
    manager.shutdown()
    return 0


if __name__ == "__main__":
    sys.exit(main())
