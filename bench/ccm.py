# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""cloud-controller-manager: n Nodes and n LoadBalancer Services against real kube-apiservers (testkit/harness), for
each n of the growth curve (bench.measure.sizes), and 5000 Nodes once the curve reaches 1000.

The DVP side holds n VMs of our cluster (status written directly: no simulator, so the figures are the CCM's
own). `run(n)` measures, with the whole Manager (informers, queues, workers):

* time from start to all n Nodes initialised (providerID, addresses, uninitialized taint removed);
* DVP requests of a cold start (LIST + WATCH per cache) and of one full resync (every Node and Service
  reconciled again from the caches): the goal is <= 5, i.e. lists and watches, never a GET per Node;
* n LoadBalancer Services backed by 10 eligible Nodes (the others are labelled
  node.kubernetes.io/exclude-from-external-load-balancers), once as plain Services and once as
  ServiceWithHealthchecks: time from the first created to all ensured (beside the creates alone) and per Service,
  DVP requests per first ensure (a create; the shared backend label is one patch per backing VM for all the
  Services) and per steady-state ensure (expected 0);
* idle RSS of `python -m dvp_ccm` (a separate process, all caches full, n Nodes), with either kind.
"""

from __future__ import annotations

import base64
import dataclasses
import os
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

from bench.measure import figure, sizes

ROOT = Path(__file__).resolve().parents[1]

LB_NODES = 10
ENSURE_S_PER_SERVICE = 1.0  # the waits' bound per Service (ensure or release; 0.1-0.2 s each at n = 100)
MANY_NODES = 5000  # the resync figure once the curve reaches 1000 (Nodes and VMs only, no Services)
TIMEOUT_S = 300.0
UNINIT = {"key": "node.cloudprovider.kubernetes.io/uninitialized", "value": "true", "effect": "NoSchedule"}


def _wait(check, what: str, timeout: float = TIMEOUT_S) -> float:
    started = time.monotonic()
    while not check():
        if time.monotonic() - started > timeout:
            raise RuntimeError(f"ccm bench: timed out after {timeout:g}s waiting for {what}")
        time.sleep(0.5)  # polling lists every Node: keep it from loading the API server being measured
    return time.monotonic() - started


def _quiet(metrics, settle: float = 1.5, timeout: float = TIMEOUT_S) -> int:
    """Wait until the client's request count stops moving for `settle` s; returns the count."""
    last, since, started = metrics.total(), time.monotonic(), time.monotonic()
    while time.monotonic() - since < settle:
        time.sleep(0.1)
        now = metrics.total()
        if now != last:
            last, since = now, time.monotonic()
        if time.monotonic() - started > timeout:
            raise RuntimeError("ccm bench: requests never settled")
    return last


def _seed(dvp, guest, ns: str, cluster_uuid: str, prefix: str, nodes: int) -> list[str]:
    from concurrent.futures import ThreadPoolExecutor

    from dvp_ccm.domain.loadbalancer import EXCLUDE_LABEL
    from dvp_common.dvp import labels as L
    from dvp_common.dvp.resources import VIRTUAL_MACHINE
    from dvp_common.kube.resources import NODE

    names = [f"{prefix}-{i:04d}" for i in range(nodes)]

    def one(i_name):
        i, name = i_name
        body = {"metadata": {"name": name, "labels": {L.CLUSTER_UUID: cluster_uuid, L.COMPONENT: L.CAPDVP,
                                                        L.HOSTNAME: name, L.MANAGED_BY: L.MANAGED_BY_VALUE}},
                "spec": {"virtualMachineClassName": "generic", "cpu": {"cores": 2}, "memory": {"size": "4Gi"},
                         "blockDeviceRefs": [{"kind": "VirtualDisk", "name": f"{name}-boot"}]}}
        vm = dvp.create(VIRTUAL_MACHINE, body, ns)
        vm["status"] = {"phase": "Running", "ipAddress": f"10.{100 + i // 250}.{i % 250}.10"}
        dvp.update_status(VIRTUAL_MACHINE, vm, ns)
        labels = {} if i < LB_NODES else {EXCLUDE_LABEL: "true"}
        guest.create(NODE, {"metadata": {"name": name, "labels": labels}, "spec": {"taints": [UNINIT]}})
        guest.patch(NODE, name, {"status": {"conditions": [{
            "type": "Ready", "status": "True", "reason": "KubeletReady", "lastHeartbeatTime": "2026-01-01T00:00:00Z",
            "lastTransitionTime": "2026-01-01T00:00:00Z"}]}}, subresource="status")

    with ThreadPoolExecutor(16) as pool:
        list(pool.map(one, enumerate(names)))
    return names


def _rss_kib(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise RuntimeError("no VmRSS")


def _lb_phase(dvp_api, guest_api, guest, ns: str, guest_ns: str, cluster_uuid: str, settings, key: str,
              services: int) -> dict:
    """`services` LoadBalancer Services ensured by a fresh manager as `settings.load_balancer_kind`; figures under
    `key`."""
    from dvp_ccm import settings as S
    from dvp_ccm.manager import Manager
    from dvp_common.dvp import DVPConnection
    from dvp_common.kube.resources import SERVICE
    from prometheus_client import CollectorRegistry

    out: dict = {}
    conn = DVPConnection(dvp_api.client(), ns, cluster_uuid)
    lb = Manager(settings, guest_api.client(), conn, registry=CollectorRegistry(), prober=lambda i, p: True)
    lb.start()
    try:
        _wait(lb.leading.is_set, "LB manager started")
        cache = lb.dvp_healthchecks if settings.load_balancer_kind == "ServiceWithHealthchecks" else lb.dvp_services
        if settings.load_balancer_kind == "ServiceWithHealthchecks":
            lb.kinds.served()  # its cache starts once the kind is seen served (a reconcile does it otherwise)
        metrics = conn.client.metrics
        base = _quiet(metrics)
        started = time.monotonic()
        for i in range(services):
            guest.create(SERVICE, {"metadata": {"name": f"svc-{i:04d}"}, "spec": {
                "type": "LoadBalancer", "selector": {"app": "x"}, "ports": [{"port": 80 + i % 3}]}}, guest_ns)
        out[f"{key}_created_s"] = time.monotonic() - started  # the floor: the guest Services made one by one

        def all_ensured() -> bool:
            svcs = guest.list(SERVICE, guest_ns).items
            return len(svcs) == services and all(s["metadata"].get("finalizers") for s in svcs) and \
                len(cache.items()) >= services
        _wait(all_ensured, f"{services} Services ensured as {settings.load_balancer_kind}",
              timeout=max(TIMEOUT_S, ENSURE_S_PER_SERVICE * services))
        out[f"{key}_ensure_all_s"] = time.monotonic() - started
        out[f"{key}_first_ensure_dvp_requests"] = (_quiet(metrics) - base) / services
        out[f"{key}_first_detail"] = metrics.snapshot()
        metrics.reset()
        for svc in guest.list(SERVICE, guest_ns).items:
            lb.by_name[S.SERVICE].enqueue(f"{guest_ns}/{svc['metadata']['name']}")
        out[f"{key}_steady_ensure_dvp_requests"] = _quiet(metrics) / services
        for svc in guest.list(SERVICE, guest_ns).items:  # released, so the next phase starts from nothing
            guest.delete(SERVICE, svc["metadata"]["name"], guest_ns)
        _wait(lambda: not guest.list(SERVICE, guest_ns).items and not cache.items(), "LoadBalancers released",
              timeout=max(TIMEOUT_S, ENSURE_S_PER_SERVICE * services))
    finally:
        lb.shutdown()
        conn.close()
    return out


def run(nodes: int, services: int | None = None, rss: bool = True) -> dict:
    """n Nodes (and `services` LoadBalancer Services, default n; 0: none) measured as the module docstring says."""
    from dvp_ccm import settings as S
    from dvp_ccm.domain import taints as T
    from dvp_ccm.domain.lifecycle import LifecycleConfig
    from dvp_ccm.manager import Manager
    from dvp_common.dvp import DVPConnection
    from dvp_common.kube.resources import NODE
    from prometheus_client import CollectorRegistry

    from testkit.harness.apiserver import ControlPlane, dvp_crd_files, guest_crd_files

    services = nodes if services is None else services
    out: dict = {"nodes": nodes, "services": services, "lb_nodes": min(LB_NODES, nodes)}
    with ControlPlane() as plane:
        plane.start({"dvp": ("AlwaysAllow", dvp_crd_files()), "guest": ("AlwaysAllow", guest_crd_files())})
        dvp_api, guest_api = plane.servers["dvp"], plane.servers["guest"]
        dvp, guest = dvp_api.client(), guest_api.client()
        ns, cluster_uuid = dvp_api.create_namespace("ccm"), str(uuid.uuid4())
        names = _seed(dvp, guest, ns, cluster_uuid, "bench", nodes)
        conn = DVPConnection(dvp_api.client(), ns, cluster_uuid)
        settings = S.Settings(dvp=None, health_bind=None, metrics_bind=None, workers=8,  # type: ignore[arg-type]
                              controllers=frozenset({S.NODE, S.LIFECYCLE}), address_refresh=3600.0,
                              lifecycle=LifecycleConfig(out_of_service=True))
        manager = Manager(settings, guest_api.client(), conn, registry=CollectorRegistry(), prober=lambda i, p: True)
        metrics = conn.client.metrics
        started = time.monotonic()
        manager.start()
        try:
            def all_initialised() -> bool:
                items = guest.list(NODE, label_selector=None).items
                mine = [n for n in items if n["metadata"]["name"].startswith("bench-")]
                return len(mine) == nodes and not any(T.has(n, T.UNINITIALIZED) for n in mine)
            _wait(all_initialised, "all Nodes initialised")
            out["init_all_s"] = time.monotonic() - started
            out["cold_start_dvp_requests"] = _quiet(metrics)
            out["cold_start_detail"] = metrics.snapshot()
            metrics.reset()
            for inf in manager.informers:
                inf.resync()  # what the periodic resync does: every Node reconciled again from the caches
            out["resync_dvp_requests"] = _quiet(metrics)
        finally:
            manager.shutdown()

        # LoadBalancer: a manager with the service controller, the Services over 10 eligible Nodes, once per kind
        for kind, key in (("Service", "lb"), ("ServiceWithHealthchecks", "swhc")) if services else ():
            out.update(_lb_phase(dvp_api, guest_api, guest, ns, guest_api.create_namespace("ccm"), cluster_uuid,
                                 dataclasses.replace(settings, controllers=frozenset({S.SERVICE}),
                                                     load_balancer_kind=kind), key, services))

        # idle RSS of the real process, every controller on, caches full
        with tempfile.TemporaryDirectory() as tmp:
            kubeconfig = Path(tmp) / "guest.kubeconfig"
            kubeconfig.write_text(guest_api.kubeconfig())
            dvp_kubeconfig = base64.b64encode(dvp_api.kubeconfig().encode()).decode()
            env = {**os.environ, "DVP_KUBERNETES_CONFIG_BASE64": dvp_kubeconfig, "DVP_NAMESPACE": ns,
                   "CLUSTER_UUID": cluster_uuid,
                   "PYTHONPATH": os.pathsep.join(str(ROOT / p) for p in ("images/dvp-common",
                                                                          "images/cloud-controller-manager"))}
            for kind, key in (("Service", "idle_rss_mib"), ("ServiceWithHealthchecks", "idle_rss_swhc_mib")) if rss \
                    else ():
                proc = subprocess.Popen([sys.executable, "-m", "dvp_ccm", f"--kubeconfig={kubeconfig}",
                                         "--health-probe-bind-address=127.0.0.1:0", "--metrics-bind-address=0",
                                         f"--load-balancer-kind={kind}", "--log-level=Warn"], env=env,
                                        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
                try:
                    time.sleep(15)  # caches listed, every Node and Service reconciled once, then idle
                    if proc.poll() is not None:
                        raise RuntimeError(f"dvp_ccm exited: {proc.stderr.read().decode()[-500:]}")
                    out[key] = _rss_kib(proc.pid) / 1024
                finally:
                    proc.terminate()
                    proc.wait(10)
        for client in (dvp, guest):
            client.close()
        del names
    return out


def figures():
    curve = sizes()
    for n in curve:
        res = run(n)
        yield figure(f"ccm n={n}: {n} Nodes, time from start to all initialised", round(res["init_all_s"], 2), "s",
                     "<= 60")
        yield figure(f"ccm n={n}: DVP requests of a cold start (LIST+WATCH of VMs)", res["cold_start_dvp_requests"],
                     "calls", "<= 5")
        yield figure(f"ccm n={n}: DVP requests per full resync of {n} Nodes", res["resync_dvp_requests"], "calls",
                     "<= 5")
        for key, kind in (("lb", "Service"), ("swhc", "ServiceWithHealthchecks")):
            yield figure(f"ccm n={n}: {n} LoadBalancer Services as {kind}, time from the first created to all "
                         "ensured", round(res[f"{key}_ensure_all_s"], 2), "s",
                         f"~ {res[f'{key}_created_s']:.2f} s, the creates alone (the CCM keeps up)")
            yield figure(f"ccm n={n}: time per LoadBalancer Service ensured as {kind}",
                         round(1000 * res[f"{key}_ensure_all_s"] / n, 1), "ms", "flat in n")
            yield figure(f"ccm n={n}: DVP requests per first ensure as {kind} ({res['lb_nodes']} backing VMs)",
                         round(res[f"{key}_first_ensure_dvp_requests"], 2), "calls",
                         f"<= {1 + res['lb_nodes'] / n:.2f} (a create, and the shared label once per backing VM)")
            yield figure(f"ccm n={n}: DVP requests per steady-state ensure as {kind}",
                         round(res[f"{key}_steady_ensure_dvp_requests"], 2), "calls", "0")
        for key, kind in (("idle_rss_mib", "Service"), ("idle_rss_swhc_mib", "ServiceWithHealthchecks")):
            yield figure(f"ccm n={n}: idle RSS of python -m dvp_ccm, LoadBalancers as {kind} ({n} Nodes)",
                         round(res[key], 1), "MiB")
    if max(curve) >= 1000:
        res = run(MANY_NODES, services=0, rss=False)
        yield figure(f"ccm: {MANY_NODES} Nodes, time from start to all initialised", round(res["init_all_s"], 2),
                     "s", "<= 60")
        yield figure(f"ccm: DVP requests per full resync of {MANY_NODES} Nodes", res["resync_dvp_requests"], "calls",
                     "<= 5")


if __name__ == "__main__":
    import json

    print(json.dumps(run(100), indent=1, default=str))
