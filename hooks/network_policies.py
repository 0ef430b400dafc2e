#!/usr/bin/env python3
# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""Every minute (its own queue): keeps the cluster's NetworkPolicy <cloud.prefix>-isolated in the DVP project
merged with what the settings call for (networkPolicy Isolated, ingressPorts), add-only (lib/network_policy.py),
so a settings change or a rule lost in the project reaches the policy before the next converge.

The policy is the OpenTofu layout's: it is changed only when it carries our cluster UUID and the dhctl component
label, with its uid and resourceVersion as preconditions; a policy changed meanwhile is read again. A missing
policy is the layout's to create, so the hook then does nothing, as it does while credentials or settings are
not there yet. DVP failures fail the run with one line (the next minute tries again)."""

import sys
import time

from lib import dvp
from lib import network_policy as np
from lib.bindings import render
from lib.errors import InvalidInput, one_line
from lib.hookrun import run

QUEUE = "/modules/cloud-provider-dvp/network-policies"
ATTEMPTS = 3  # a policy that keeps changing under us is left to the next run

config = render({"schedule": [{"name": "every_minute", "crontab": "* * * * *", "queue": QUEUE}]})


def reconcile(policies, target: np.Target, sleep=time.sleep) -> str:
    """Merges the wanted rules into the policy; says what happened, in one line."""
    from dvp_common.kube import Conflict

    where = f"NetworkPolicy {target.namespace}/{target.name}"
    wanted = np.desired(target.namespace, target.ingress_ports)
    for attempt in range(ATTEMPTS):
        current = policies.get_or_none(target.name)
        if current is None:
            return f"{where}: absent, left to the layout"
        if not policies.is_ours(current):
            return f"{where}: not this cluster's (labels), left alone"
        patch = np.merged(current.get("spec") or {}, wanted)
        if patch is None:
            return f"{where}: complete"
        body = {"metadata": {"resourceVersion": current["metadata"]["resourceVersion"]}, "spec": patch}
        try:
            policies.patch(target.name, body, current)
        except Conflict:
            sleep(0.2 * 2 ** attempt)
            continue
        added = ", ".join(f"{len(patch[f]) - len(current['spec'].get(f) or [])} {f} rule(s)"
                          for f in ("ingress", "egress") if f in patch)
        return f"{where}: added {added or 'policy types'}"
    raise RuntimeError(f"changed by someone else {ATTEMPTS} times in a row; the next run tries again")


def main(ctx) -> None:
    target = np.Target(ctx.values)
    if target.skip:
        return
    dvp.importable()
    from dvp_common import kubeconfig
    from dvp_common.dvp import DVPConnection, NetworkPolicies
    from dvp_common.kube import KubeError

    try:
        # values keep the kubeconfig in its one encoding (base64), read by the one decoder
        text = kubeconfig.decode_base64(target.kubeconfig)
    except (kubeconfig.KubeconfigInvalid, TypeError):
        raise InvalidInput("values", "cloudProviderDvp.internal.credentialSecrets.d8-credentials.secret",
                           "is not valid base64") from None
    try:
        conn = DVPConnection.from_kubeconfig(text, target.namespace, target.cluster_uuid)
        try:
            print(reconcile(NetworkPolicies(conn), target))
        finally:
            conn.close()
    except (KubeError, RuntimeError, kubeconfig.KubeconfigInvalid) as exc:
        sys.exit(one_line(f"NetworkPolicy {target.namespace}/{target.name}: {exc}", 1024))


if __name__ == "__main__":
    run(main, config)
