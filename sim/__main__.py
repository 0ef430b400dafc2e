# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""python -m sim --kubeconfig FILE [--namespace NS] [--latency Kind.Phase=SECONDS ...] [--stuck Kind.Phase]"""

from __future__ import annotations

import argparse
import logging
import signal
import sys
import threading
from pathlib import Path

from . import quantity
from .faults import SimFaults
from .settings import DVP_API_VERSIONS, SettingsInvalid, SimConfig
from .simulator import Simulator


def _pair(text: str) -> tuple[str, float]:
    key, sep, value = text.partition("=")
    try:
        if not sep:
            raise ValueError
        return key, float(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected KEY=SECONDS, got {text!r}") from None


def _node_label(text: str) -> tuple[str, str, str]:
    node, sep, label = text.partition(":")
    key, eq, value = label.partition("=")
    if not (sep and eq and node and key):
        raise argparse.ArgumentTypeError(f"expected NODE:KEY=VALUE, got {text!r}")
    return node, key, value


def parse(argv: list[str]) -> tuple[argparse.Namespace, SimConfig]:
    p = argparse.ArgumentParser(prog="python -m sim", description="Play DVP's controllers against a Kubernetes API.")
    p.add_argument("--kubeconfig", required=True, type=Path, help="kubeconfig of the API holding the DVP CRDs")
    p.add_argument("--namespace", help="only this namespace (default: all)")
    p.add_argument("--latency", action="append", type=_pair, default=[], metavar="Kind.Phase=S")
    p.add_argument("--default-latency", type=float, default=0.5)
    p.add_argument("--stuck", action="append", default=[], metavar="Kind.Phase", help="a phase that never ends")
    p.add_argument("--quota", help="storage quota per namespace, e.g. 100Gi")
    p.add_argument("--ip-pool", default=SimConfig.ip_pool)
    p.add_argument("--lb-pool", default=SimConfig.lb_pool)
    p.add_argument("--error-rate", action="append", type=_pair, default=[], metavar="VERB=FRACTION",
                   help="fail this fraction of the simulator's own requests of VERB with 5xx")
    p.add_argument("--node-label", action="append", type=_node_label, default=[], metavar="NODE:KEY=VALUE",
                   help="a label of a DVP node (e.g. its zone); a VM runs only on a node its nodeSelector matches")
    p.add_argument("--watch-drop-rate", type=float, default=0.0)
    p.add_argument("--request-latency", type=float, default=0.0, help="seconds added to each request")
    p.add_argument("--dvp-api-version", choices=DVP_API_VERSIONS, default=SimConfig.dvp_api_version,
                   help="the DVP API whose spelling of renamed condition reasons to write")
    p.add_argument("-v", "--verbose", action="store_true")
    args = p.parse_args(argv)
    faults = None
    if args.error_rate or args.watch_drop_rate or args.request_latency:
        faults = SimFaults(error_rate=dict(args.error_rate), watch_drop_rate=args.watch_drop_rate,
                           latency=args.request_latency, seed=None)
    node_labels: dict[str, dict[str, str]] = {}
    for node, key, value in args.node_label:
        node_labels.setdefault(node, {})[key] = value
    cfg = SimConfig(latency=dict(args.latency), default_latency=args.default_latency, stuck=set(args.stuck),
                    quota_bytes=quantity.parse(args.quota) if args.quota else None, ip_pool=args.ip_pool,
                    lb_pool=args.lb_pool, namespace=args.namespace, watch_timeout=60, faults=faults,
                    node_labels=node_labels, dvp_api_version=args.dvp_api_version)
    return args, cfg


def main(argv: list[str] | None = None) -> int:
    try:
        args, cfg = parse(sys.argv[1:] if argv is None else argv)
        cfg.validate()
        kubeconfig = args.kubeconfig.read_text()
    except (SettingsInvalid, ValueError, OSError) as exc:
        print(f"dvp_sim: {exc}", file=sys.stderr)
        return 2
    logging.basicConfig(level=logging.INFO if args.verbose else logging.WARNING,
                        format="%(asctime)s %(levelname)s %(message)s")
    done = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: done.set())
    signal.signal(signal.SIGINT, lambda *_: done.set())
    sim = Simulator.from_kubeconfig(kubeconfig, cfg).start()
    print(f"dvp_sim: running (namespace {cfg.namespace or 'all'}, DVP API {cfg.dvp_api_version})", flush=True)
    done.wait()
    sim.stop(timeout=2)
    return 0


if __name__ == "__main__":
    sys.exit(main())
