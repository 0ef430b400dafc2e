# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""python3 -m dvp_common.takeover --guest-kubeconfig PATH --parent-kubeconfig PATH --namespace PROJECT
--cluster-uuid UUID [--json]

The pre-switch report: run before this module replaces Deckhouse's, it reads the guest cluster and the parent
project (GET requests only) and prints, per object, whether it is adopted (and the proof), left alone as foreign,
or blocks the switch (and why). Exit 0: nothing blocks; 1: something blocks; 2: bad input or an API that cannot
be read (one line on stderr).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from typing import IO, NoReturn

from ..kube import KubeClient, KubeError
from ..kube import config as kube_config
from ..kube.faults import FaultHook
from ..kube.retry import RetryPolicy
from . import plan, read

PROG = "python3 -m dvp_common.takeover"


class _BadInput(Exception):
    pass


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:  # one line, not the usage block
        raise _BadInput(message)


def _parser() -> _Parser:
    p = _Parser(prog=PROG, description="What cloud-provider-dvp would adopt, leave alone or be blocked by in a "
                "cluster Deckhouse's module built. Reads only.")
    p.add_argument("--guest-kubeconfig", required=True, help="kubeconfig of the guest (the cluster to switch)")
    p.add_argument("--guest-context", default=None)
    p.add_argument("--parent-kubeconfig", required=True, help="kubeconfig of the parent DVP (the project's account)")
    p.add_argument("--parent-context", default=None)
    p.add_argument("--namespace", required=True, help="the DVP project (provider.parameters.namespace)")
    p.add_argument("--cluster-uuid", required=True, help="the guest's cluster UUID (global.discovery.clusterUUID)")
    p.add_argument("--json", action="store_true", help="print the report as JSON")
    return p


def _client(path: str, context: str | None, faults: FaultHook | None) -> KubeClient:
    with open(path, encoding="utf-8") as f:
        creds = kube_config.from_kubeconfig(f.read(), context)
    # a report is run by hand: an API that does not answer is said at once, not retried for minutes
    return KubeClient.from_credentials(creds, faults=faults, retry=RetryPolicy(attempts=2))


def main(argv: Sequence[str] | None = None, *, faults: FaultHook | None = None, out: IO[str] | None = None,
         err: IO[str] | None = None) -> int:
    """`faults`: a hook every request passes (tests record the verbs with it)."""
    out, err = out or sys.stdout, err or sys.stderr
    try:
        args = _parser().parse_args(sys.argv[1:] if argv is None else list(argv))
        if not args.cluster_uuid.strip():
            raise _BadInput("--cluster-uuid is empty")
        guest = _client(args.guest_kubeconfig, args.guest_context, faults)
        parent = _client(args.parent_kubeconfig, args.parent_context, faults)
        try:
            report = plan.plan(read.guest(guest), read.parent(parent, args.namespace), args.cluster_uuid.strip(),
                               args.namespace)
        finally:
            guest.close()
            parent.close()
    except _BadInput as exc:
        print(f"{PROG}: {exc}", file=err)
        return 2
    except (OSError, ValueError, KubeError) as exc:
        print(f"{PROG}: {' '.join(str(exc).split())}", file=err)
        return 2
    if args.json:
        print(json.dumps(report.to_json(), indent=2, sort_keys=True), file=out)
    else:
        print(plan.table(report), file=out)
    return 1 if report.blocks else 0


if __name__ == "__main__":
    sys.exit(main())
