# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""A real Kubernetes API for tests and the demo: one etcd, and one kube-apiserver per cluster ("dvp", "guest").

Every server listens on 127.0.0.1 (random free ports), serves TLS with a throw-away CA, authenticates a
static admin token (--token-auth-file) and ServiceAccount tokens, and keeps its objects under its own etcd
prefix. A server serving the DVP CRDs is a DVP: DVP's admission webhooks and Kubernetes' garbage collector
(kube-controller-manager with that controller only, `controller_manager.GarbageCollector`) run for it, as in the
parent cluster; nothing else of a controller-manager runs (no namespace finalization, no Pods); the DVP simulator
plays DVP's own controllers. See testkit/harness/README.md.
"""

from __future__ import annotations

import base64
import itertools
import secrets
import tempfile
import threading
import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import requests
import yaml

from sim.dvp_crds import HAND_WRITTEN as DVP_CRDS
from sim.dvp_crds import dvp_crd_files as dvp_crd_files  # re-exported: tests, the demo and bench import it here

from . import controller_manager, crds, lifetime, pki
from .processes import TOP, HarnessError, Process, free_port, tool

READY_TIMEOUT = 60.0  # seconds: a built kube-apiserver is ready in a few seconds; more means it is broken
ADMIN_USER = "admin"
ADMIN_GROUP = "system:masters"  # RBAC lets this group do everything, so RBAC-mode servers keep an admin
AUTHORIZATION_MODES = ("AlwaysAllow", "RBAC")

# CRDs each cluster serves: the DVP API's are sim.dvp_crds.dvp_crd_files() (DVP's generated ones and our
# hand-written ones in DVP_CRDS).
UPSTREAM = TOP / ".cache" / "upstream" / "crds"
OWN_CRDS = TOP / "crds"
# Deckhouse kinds the guest serves where node-manager runs, in our own schema (node-manager owns the real CRDs).
DECKHOUSE_CRDS = [TOP / "testkit" / "harness" / "schemas" / "instancetypescatalog.yaml"]


def serves_dvp(crd_files: Iterable[Path]) -> bool:
    """A DVP, not just a Deckhouse cluster (both serve ModuleConfig): DVP's admission and garbage collection."""
    return DVP_CRDS / "virtualmachines.yaml" in crd_files


def guest_crd_files() -> list[Path]:
    files = sorted((UPSTREAM / "cluster-api").glob("*.yaml")) + sorted((UPSTREAM / "snapshot").glob("*.yaml"))
    if not files:
        raise HarnessError(f"no upstream CRDs under {UPSTREAM}: run `make upstream`")
    return files + sorted(p for p in OWN_CRDS.glob("*.yaml") if not p.name.startswith("doc-ru-")) + DECKHOUSE_CRDS


def guest_controllers_crd_files() -> list[Path]:
    """For the guest whose own control plane runs (harness.guest_controllers), a cluster as Deckhouse's is: the CAPI
    core CRDs (the real CAPI controller may run there), the group-snapshot ones (the snapshot-controller waits for
    them at start), node-manager's NodeGroup (our hand-written subset, schemas/nodegroup.yaml) and Deckhouse's
    ModuleConfig (the one schema both clusters serve: each is a Deckhouse cluster)."""
    groups = sorted((UPSTREAM / "groupsnapshot").glob("*.yaml"))
    if not groups:
        raise HarnessError(f"no group-snapshot CRDs under {UPSTREAM / 'groupsnapshot'}: run `make upstream`")
    return capi_core_crd_files() + groups + [Path(__file__).with_name("schemas") / "nodegroup.yaml",
                                             DVP_CRDS / "moduleconfigs.yaml"]


def capi_core_crd_files() -> list[Path]:
    """The guest CRDs plus the rest of the CAPI core CRDs: the real CAPI controller watches them all."""
    core = sorted((UPSTREAM / "cluster-api-core").glob("*.yaml"))
    if not core:
        raise HarnessError(f"no CAPI core CRDs under {UPSTREAM / 'cluster-api-core'}: run `make upstream`")
    return guest_crd_files() + core


@dataclass
class ApiServer:
    """One running API server, as tests use it."""

    name: str
    url: str
    token: str = field(repr=False)
    ca_path: Path
    process: Process | None = field(default=None, repr=False)
    authorization: str = "AlwaysAllow"
    started_in: float = 0.0  # seconds from exec to /readyz, CRDs included
    spawned_at: float = 0.0
    _counter: itertools.count = field(default_factory=lambda: itertools.count(1), repr=False)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    @property
    def ca_pem(self) -> str:
        return self.ca_path.read_text()

    def kubeconfig(self, namespace: str | None = None, token: str | None = None, user: str = ADMIN_USER) -> str:
        """A self-contained kubeconfig (CA and token inline), optionally with a default namespace."""
        context: dict[str, str] = {"cluster": self.name, "user": user}
        if namespace:
            context["namespace"] = namespace
        return yaml.safe_dump({
            "apiVersion": "v1", "kind": "Config", "current-context": self.name, "preferences": {},
            "clusters": [{"name": self.name, "cluster": {
                "server": self.url,
                "certificate-authority-data": base64.b64encode(self.ca_path.read_bytes()).decode()}}],
            "users": [{"name": user, "user": {"token": token or self.token}}],
            "contexts": [{"name": self.name, "context": context}],
        }, sort_keys=False)

    def client(self, token: str | None = None, **kwargs):
        """A dvp_common KubeClient for this server (admin unless `token` is given)."""
        from dvp_common.kube import KubeClient

        return KubeClient.from_url(self.url, token=token or self.token, ca_data=self.ca_pem, **kwargs)

    def create_namespace(self, prefix: str = "t") -> str:
        """A new namespace with a unique name; namespaces are never deleted (no namespace controller runs)."""
        from dvp_common.kube.resources import NAMESPACE

        with self._lock:
            name = f"{prefix}-{next(self._counter)}-{secrets.token_hex(2)}"
        client = self.client()
        try:
            client.create(NAMESPACE, {"metadata": {"name": name}})
        finally:
            client.close()
        return name

    def service_account_token(self, namespace: str, name: str, expiration_seconds: int = 3600) -> str:
        """Create ServiceAccount `name` (if missing) and return a token for it (TokenRequest API)."""
        from dvp_common.kube import Resource

        sa = Resource("", "v1", "serviceaccounts", "ServiceAccount")
        client = self.client()
        try:
            client.create(sa, {"metadata": {"name": name}}, namespace, get_existing=True)
        finally:
            client.close()
        with requests.Session() as session:  # the token subresource is a POST the client has no verb for
            session.trust_env = False
            resp = session.post(f"{self.url}{sa.path(namespace, name, 'token')}", verify=str(self.ca_path),
                                headers={"Authorization": f"Bearer {self.token}"}, timeout=10,
                                json={"apiVersion": "authentication.k8s.io/v1", "kind": "TokenRequest",
                                      "spec": {"expirationSeconds": expiration_seconds}})
        if resp.status_code != 201:
            raise HarnessError(f"TokenRequest for ServiceAccount {namespace}/{name}: HTTP {resp.status_code}")
        answer = resp.json()
        return str(answer["status"]["token"])


class ControlPlane:
    """etcd plus named kube-apiservers sharing it under separate prefixes; stop() ends them all."""

    def __init__(self, workdir: Path | None = None, dvp_admission: bool = True) -> None:
        """`dvp_admission`: every server that serves the DVP CRDs also gets DVP's admission webhooks
        (sim.admission), as real DVP has; False only for a test that needs the soft world. Every such server
        also gets Kubernetes' garbage collector (`collectors`), always: the parent cluster of DVP has it."""
        self._own_dir = workdir is None
        self.dvp_admission = dvp_admission
        self.admissions: dict[str, Any] = {}
        self.collectors: dict[str, controller_manager.GarbageCollector] = {}
        self.workdir = Path(workdir or tempfile.mkdtemp(prefix="cpdvp-api-"))
        if self._own_dir:
            lifetime.remove_on_exit(self.workdir)  # even if this process is killed
        self.servers: dict[str, ApiServer] = {}
        self.etcd: Process | None = None
        self.etcd_url = ""
        self.pki: pki.Pki | None = None
        self.token = secrets.token_urlsafe(32)
        self.timings: dict[str, float] = {}
        self._lock = threading.RLock()

    # lifecycle ------------------------------------------------------------------------------------------------
    def start(self, servers: dict[str, tuple[str, Iterable[Path]]]) -> ControlPlane:
        """Start etcd and the given servers {name: (authorization mode, CRD files)} in parallel."""
        etcd_bin, apiserver_bin = tool("etcd"), tool("kube-apiserver")  # fail before starting anything
        if any(serves_dvp(files) for _, files in servers.values()):
            tool(controller_manager.BINARY)
        servers = {name: (mode, list(files)) for name, (mode, files) in servers.items()}
        started = time.monotonic()
        try:
            self.pki = pki.generate(self.workdir / "pki")
            (self.workdir / "tokens.csv").write_text(f'{self.token},{ADMIN_USER},{ADMIN_USER},"{ADMIN_GROUP}"\n')
            (self.workdir / "tokens.csv").chmod(0o600)
            self._start_etcd(etcd_bin)
            self.timings["etcd"] = time.monotonic() - started
            # Spawn from this thread: PR_SET_PDEATHSIG fires when the *thread* that forked the child ends.
            pending = [(self._spawn_apiserver(apiserver_bin, name, mode), files)
                       for name, (mode, files) in servers.items()]
            errors: list[BaseException] = []
            threads = [threading.Thread(target=self._guarded, args=(errors, server, files))
                       for server, files in pending]
            for t in threads:
                t.start()
            for t in threads:
                t.join()
            if errors:
                raise errors[0]
            self.timings["total"] = time.monotonic() - started
        except BaseException:
            self.stop()
            raise
        return self

    def add_server(self, name: str, authorization: str, crd_files: Iterable[Path]) -> ApiServer:
        """Start one more API server on the running etcd (e.g. an RBAC-mode one, only when a test needs it)."""
        with self._lock:
            if name in self.servers:
                return self.servers[name]
            crd_files = list(crd_files)
            if serves_dvp(crd_files):
                tool(controller_manager.BINARY)
            server = self._spawn_apiserver(tool("kube-apiserver"), name, authorization)
            self._finish(server, crd_files)
            return server

    def stop(self) -> None:
        for collector in list(self.collectors.values()):  # before their servers: no errors about them going
            collector.terminate()
        for collector in list(self.collectors.values()):
            collector.stop()
        for admission in list(self.admissions.values()):
            admission.stop()
        for server in list(self.servers.values()):  # all drain at once, then each is reaped
            if server.process:
                server.process.terminate()
        for server in list(self.servers.values()):
            if server.process:
                server.process.stop()
        if self.etcd:
            self.etcd.stop()
        if self._own_dir:
            lifetime.remove_now(self.workdir)

    def __enter__(self) -> ControlPlane:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # internals ------------------------------------------------------------------------------------------------
    def _guarded(self, errors: list[BaseException], server: ApiServer, files: list[Path]) -> None:
        try:
            self._finish(server, files)
        except BaseException as exc:  # re-raised by start() in the main thread
            errors.append(exc)

    def _start_etcd(self, binary: Path) -> None:
        client_port, peer_port = free_port(), free_port()
        data = self.workdir / "etcd"
        self.etcd_url = f"http://127.0.0.1:{client_port}"
        peer = f"http://127.0.0.1:{peer_port}"
        self.etcd = Process("etcd", [
            str(binary), "--name=harness", f"--data-dir={data}", f"--listen-client-urls={self.etcd_url}",
            f"--advertise-client-urls={self.etcd_url}", f"--listen-peer-urls={peer}",
            f"--initial-advertise-peer-urls={peer}", f"--initial-cluster=harness={peer}",
            "--unsafe-no-fsync", "--log-level=warn", "--listen-metrics-urls=",
        ], self.workdir / "etcd.log")
        self._wait_ready(self.etcd, f"{self.etcd_url}/health", None, None, "etcd")

    def _spawn_apiserver(self, binary: Path, name: str, mode: str) -> ApiServer:
        if mode not in AUTHORIZATION_MODES:
            raise HarnessError(f"api server {name}: authorization must be one of {AUTHORIZATION_MODES}, not {mode!r}")
        assert self.pki is not None
        port = free_port()
        certs = self.workdir / f"{name}-certs"
        certs.mkdir(exist_ok=True)
        started = time.monotonic()
        proc = Process(f"kube-apiserver-{name}", [
            str(binary), "--bind-address=127.0.0.1", "--advertise-address=127.0.0.1", f"--secure-port={port}",
            f"--etcd-servers={self.etcd_url}", f"--etcd-prefix=/{name}",
            f"--tls-cert-file={self.pki.serving_cert}", f"--tls-private-key-file={self.pki.serving_key}",
            f"--client-ca-file={self.pki.ca_cert}", f"--cert-dir={certs}",
            f"--token-auth-file={self.workdir / 'tokens.csv'}", f"--authorization-mode={mode}",
            "--anonymous-auth=false",
            "--service-account-issuer=https://kubernetes.default.svc.cluster.local",
            f"--service-account-key-file={self.pki.sa_pub}", f"--service-account-signing-key-file={self.pki.sa_key}",
            "--api-audiences=https://kubernetes.default.svc.cluster.local",
            "--service-cluster-ip-range=10.96.0.0/16", "--endpoint-reconciler-type=none",
            # No controller-manager mints default ServiceAccounts, so their admission would refuse every Pod.
            "--disable-admission-plugins=ServiceAccount", "--profiling=false", "--v=1",
            "--allow-privileged=true",  # as a real cluster: the CSI node plugin's DaemonSet must be accepted
            "--enable-priority-and-fairness=false",  # fewer objects and goroutines at start; tests need no APF
            # No cluster network routes a ClusterIP here: a webhook's Service resolves through its EndpointSlices.
            "--enable-aggregator-routing=true",
        ], self.workdir / f"kube-apiserver-{name}.log")
        server = ApiServer(name=name, url=f"https://127.0.0.1:{port}", token=self.token, ca_path=self.pki.ca_cert,
                           process=proc, authorization=mode, spawned_at=started)
        with self._lock:
            self.servers[name] = server
        return server

    def _finish(self, server: ApiServer, crd_files: list[Path]) -> None:
        """Wait until the server is ready, then load its CRDs (safe to run in a thread)."""
        assert self.pki is not None and server.process is not None
        self._wait_ready(server.process, f"{server.url}/readyz", self.token, str(self.pki.ca_cert),
                         f"kube-apiserver {server.name}")
        self.timings[f"{server.name}.ready"] = time.monotonic() - server.spawned_at
        client = server.client()
        try:
            crds.load(client, crd_files)
        finally:
            client.close()
        self.timings[f"{server.name}.crds"] = time.monotonic() - server.spawned_at
        if serves_dvp(crd_files):
            if self.dvp_admission:
                self._start_dvp_admission(server)
            self._start_garbage_collector(server)
        server.started_in = time.monotonic() - server.spawned_at
        self.timings[f"{server.name}.started"] = server.started_in

    def _start_garbage_collector(self, server: ApiServer) -> None:
        """Kubernetes' garbage collector for this server, started after its CRDs (so it watches them from its
        first discovery); ready once it has collected a probe."""
        collector = controller_manager.GarbageCollector(server, self.workdir)
        with self._lock:
            self.collectors[server.name] = collector  # stop() ends it even if start() is interrupted
        started = time.monotonic()
        collector.start()
        self.timings[f"{server.name}.gc"] = time.monotonic() - started

    def _start_dvp_admission(self, server: ApiServer) -> None:
        """Serve DVP's webhooks for this server (TLS from the harness PKI), register them and wait until the
        server applies them: a dry-run create that only they refuse must come back 403."""
        from sim.admission import DvpAdmission

        assert self.pki is not None
        admission = DvpAdmission(server.client(), str(self.pki.serving_cert), str(self.pki.serving_key)).start()
        with self._lock:
            self.admissions[server.name] = admission
        admission.register(self.pki.ca_pem)
        probe = {"apiVersion": "virtualization.deckhouse.io/v1alpha2", "kind": "VirtualMachine",
                 "metadata": {"name": "dvp-admission-probe", "labels": {"probe.kubevirt.io/x": "x"}},
                 "spec": {"virtualMachineClassName": "probe", "cpu": {"cores": 1}, "memory": {"size": "1Gi"},
                          "blockDeviceRefs": [{"kind": "VirtualDisk", "name": "probe"}]}}
        url = f"{server.url}/apis/virtualization.deckhouse.io/v1alpha2/namespaces/default/virtualmachines?dryRun=All"
        deadline = time.monotonic() + READY_TIMEOUT
        with requests.Session() as session:
            session.trust_env = False
            while True:
                resp = session.post(url, json=probe, headers={"Authorization": f"Bearer {self.token}"},
                                    verify=str(self.pki.ca_cert), timeout=5)
                if resp.status_code == 403:
                    return
                if time.monotonic() > deadline:
                    raise HarnessError(f"kube-apiserver {server.name}: DVP's admission webhooks not in effect within "
                                       f"{READY_TIMEOUT:.0f}s (probe answered HTTP {resp.status_code})")
                time.sleep(0.05)  # the server's webhook informer has not seen the configuration yet

    @staticmethod
    def _wait_ready(proc: Process, url: str, token: str | None, ca: str | None, what: str) -> None:
        """Poll the health endpoint (nothing to watch before the server is up), bounded by READY_TIMEOUT."""
        deadline = time.monotonic() + READY_TIMEOUT
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        last = ""
        with requests.Session() as session:
            session.trust_env = False
            while True:
                if not proc.alive():
                    raise HarnessError(f"{what} exited with code {proc.proc.returncode}; last log lines "
                                       f"({proc.log}):\n{proc.tail()}")
                try:
                    resp = session.get(url, headers=headers, verify=ca or True, timeout=2)
                    if resp.status_code == 200:
                        return
                    last = f"HTTP {resp.status_code}"
                except requests.RequestException as exc:
                    last = type(exc).__name__
                if time.monotonic() > deadline:
                    raise HarnessError(f"{what} not ready within {READY_TIMEOUT:.0f}s ({url}: {last}); last log "
                                       f"lines ({proc.log}):\n{proc.tail()}")
                time.sleep(0.1)
