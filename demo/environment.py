# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""The demo's environment: API servers, the guest's own control plane, simulator, hooks, chart, components.

`Demo` holds it; `demo.walk` walks the scenario over it (nodes, volumes, a LoadBalancer, teardown) and returns a
`Result` the e2e tests assert on (`python -m demo` prints it). The guest is a cluster as Deckhouse's:
kube-controller-manager, kube-scheduler, kwok's kubelets (in DVP's VMs), the CAPI core controller, node-manager's
stand-in, the CSI sidecars and snapshot-controller are real; only DVP's virtualization controllers are simulated.
Nothing here sends traffic to VM addresses: the simulator's pools are loopback (127.66/127.77).
"""

from __future__ import annotations

import base64
import contextlib
import json
import os
import socket
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from chart.render import module_values, render_values
from dvp_common.kube import AlreadyExists, KubeClient
from dvp_common.kube.resources import (
    ENDPOINT_SLICE,
    MUTATING_WEBHOOK_CONFIGURATION,
    SECRET,
    SERVICE,
    VALIDATING_WEBHOOK_CONFIGURATION,
)
from dvp_csi import DRIVER_NAME
from dvp_csi.domain.topology import SEGMENT

from demo import images as img
from demo import scrape
from demo import seed_objects as so
from demo.chaos import CONTROLLERS
from demo.components import Components
from demo.hook_runner import HookRunner
from demo.kube import Kinds, apply, ensure_namespace
from demo.progress import Progress
from sim import seed
from testkit.csi import sidecars as sidecar_processes
from testkit.harness.apiserver import ApiServer, ControlPlane, dvp_crd_files, guest_controllers_crd_files
from testkit.harness.capi_controller import CapiController
from testkit.harness.guest_controllers import GuestControllers, KubeletsInVMs
from testkit.harness.processes import HarnessError, free_port, tool

ROOT = Path(__file__).resolve().parents[1]
DEMO_DIR = ROOT / ".tmp" / "demo"  # one run-<time>-<pid>/ per run (runs may overlap); latest -> the newest
MODULE_NS = "d8-cloud-provider-dvp"
CAPI_NS = "d8-cloud-instance-manager"
IP_POOL, LB_POOL = "127.66.0.0/24", "127.77.0.0/24"  # loopback: nothing ever reaches a real network
ZONES = ("zone-a", "zone-b")  # the example values' zones; DVP nodes 1 and 2 are in them
ZONE_LABEL = "topology.kubernetes.io/zone"
# Rendered kinds the components need in the guest API; Deployments are started as processes instead, and the
# webhook configurations are registered once their processes serve (register_webhooks).
APPLY_KINDS = ("Namespace", "Secret", "ConfigMap", "StorageClass", "CSIDriver", "VolumeSnapshotClass")
# In image mode the components use their ServiceAccounts, so the chart's RBAC is applied too and the guest API
# authorizes with RBAC: each component gets exactly the permissions the chart grants it.
RBAC_KINDS = ("ServiceAccount", "ClusterRole", "ClusterRoleBinding", "Role", "RoleBinding")
WEBHOOK_KINDS = {"ValidatingWebhookConfiguration": VALIDATING_WEBHOOK_CONFIGURATION,
                 "MutatingWebhookConfiguration": MUTATING_WEBHOOK_CONFIGURATION}
WEBHOOK_SERVERS = ("validation-webhook", "snapshot-webhooks")  # the Services the rendered configurations name
SIDECARS = ("csi-provisioner", "csi-attacher", "csi-resizer", "csi-snapshotter", "snapshot-controller")
# The chart's capacity tracking (the scheduler places a claim only where a CSIStorageCapacity has room); no
# Deployment object stands for the process here, so the capacity objects have no owner.
PROVISIONER_CAPACITY = ["--enable-capacity", "--capacity-ownerref-level=-1", "--capacity-poll-interval=1m"]
WAIT = 60.0


class StepFailed(RuntimeError):
    pass


@dataclass
class Settings:
    workers: int = 2
    sim_latency: float = 0.05
    sim_args: tuple[str, ...] = ()  # extra dvp_sim flags (faults)
    component_env: dict[str, str] = field(default_factory=dict)
    faults: dict[str, Any] | None = None  # demo.faulty spec for the components' DVP clients (host filled in)
    kills: int = 0  # SIGKILLs per controller (ccm, capdvp, CSI), each restarted (demo.chaos)
    seed: int = 1
    images: bool = False  # the components from their image rootfs (demo.images); the clean scenario only


@dataclass
class Result:
    created: dict[str, int]
    deleted: dict[str, int]
    leftovers: dict[str, list[str]]
    step_times: dict[str, float]
    dvp_requests: int
    hook_runs: int
    nodes_initialized: int
    lb_address: str
    unavailable: dict[str, str]
    wall: float
    kills: list[str] = field(default_factory=list)
    kills_active: int = 0  # of those, SIGKILLs of a controller holding a DVP write in flight (demo.chaos)
    killed_in_flight: list[str] = field(default_factory=list)  # "<controller>: <verb> <resource>" of each
    admission: dict[str, bool] = field(default_factory=dict)  # "good"/"bad" credentials Secret -> allowed
    metrics: dict[str, str] = field(default_factory=dict)  # component -> its /metrics after the walk (demo.scrape)


def new_run_dir() -> Path:
    run = DEMO_DIR / f"run-{time.strftime('%Y%m%d-%H%M%S')}-{os.getpid()}"
    run.mkdir(parents=True, exist_ok=True)
    latest = DEMO_DIR / "latest"
    with contextlib.suppress(OSError):
        latest.unlink(missing_ok=True)
        latest.symlink_to(run.name)
    return run



def host_address() -> str:
    """A non-loopback IPv4 address of this machine for the webhooks to listen on: kube-apiserver reaches a webhook
    Service through its EndpointSlice, and EndpointSlices refuse loopback addresses. The traffic stays on this
    machine (the kernel delivers to its own address locally)."""
    candidates: list[str] = []
    with contextlib.suppress(OSError), socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        s.connect(("192.0.2.1", 9))  # UDP: picks the outgoing address, sends nothing
        candidates.append(s.getsockname()[0])
    with contextlib.suppress(OSError):
        candidates += [info[4][0] for info in socket.getaddrinfo(socket.gethostname(), None, socket.AF_INET)]
    for address in candidates:
        if not address.startswith("127.") and address != "0.0.0.0":  # noqa: S104 - compared, not bound
            return address
    raise StepFailed("no non-loopback IPv4 address on this machine: the guest API cannot reach the webhooks "
                     "(EndpointSlices refuse loopback addresses)")


def wait_until(what: str, fn, timeout: float = WAIT, interval: float = 0.2):
    """Poll fn until truthy; bounded, so a stuck step fails with what it waited for."""
    deadline = time.monotonic() + timeout
    while True:
        value = fn()
        if value:
            return value
        if time.monotonic() > deadline:
            raise StepFailed(f"timed out after {timeout:.0f}s waiting for {what}")
        time.sleep(interval)


class Demo:
    def __init__(self, progress: Progress, settings: Settings | None = None, work: Path | None = None) -> None:
        self.p = progress
        self.s = settings or Settings()
        self.work = work or new_run_dir()
        self.work.mkdir(parents=True, exist_ok=True)
        self.plane = ControlPlane()
        self.components = Components(self.work)
        self.dvp_api: ApiServer | None = None
        self.webhook_ports: dict[str, int] = {}
        self.metrics_urls: dict[str, str] = {}  # component -> its /metrics (tree mode; demo.scrape)
        self.webhook_host = ""
        self.guest_api: ApiServer | None = None
        self.controllers: GuestControllers | None = None
        self.capi: CapiController | None = None
        self.kubelets: KubeletsInVMs | None = None
        self.ledger = None  # demo.ledger.Ledger, set by the walk; its watches end before the clients close
        self.hold_dir = self.work / "chaos"  # the controllers' in-flight announcements (demo.inflight)
        self.hold_dir.mkdir(exist_ok=True)
        self.images: dict[str, img.Image] = {}  # by image name, image mode only
        self.volumes: img.Volumes | None = None  # the Pods' volumes, image mode only
        self.service_accounts: dict[str, str] = {}  # rendered Deployment -> its serviceAccountName

    # environment ------------------------------------------------------------------------------------------------
    def start_apis(self) -> None:
        guest_authorization = "RBAC" if self.s.images else "AlwaysAllow"
        self.plane.start({"dvp": ("AlwaysAllow", dvp_crd_files()),
                          "guest": (guest_authorization, guest_controllers_crd_files())})
        self.dvp_api, self.guest_api = self.plane.servers["dvp"], self.plane.servers["guest"]
        self.dvp, self.guest = self.dvp_api.client(), self.guest_api.client()
        self.guest_kinds = Kinds(self.guest)
        self.project = self.dvp_api.create_namespace("project")
        for name, api in (("guest", self.guest_api), ("dvp", self.dvp_api)):
            path = self.work / f"{name}.kubeconfig"
            path.touch(mode=0o600)  # tokens: readable by us only, before anything is written
            path.write_text(api.kubeconfig())
        self.p.line(f"   DVP API {self.dvp_api.url} (project namespace {self.project}); guest API {self.guest_api.url}")

    def start_guest_control_plane(self) -> None:
        try:
            self.controllers = GuestControllers(self.guest_api, self.plane.pki, self.work / "guest-control-plane")
            self.capi = CapiController(self.guest_api, workdir=self.work / "cluster-api").start()
        except HarnessError as exc:
            raise StepFailed(f"the guest's control plane did not start: {exc}") from None
        self.p.line(f"   kube-controller-manager, kube-scheduler, kwok, cluster-api controller "
                    f"(logs in {self.work / 'guest-control-plane'}, {self.capi.log})")

    def start_kubelets(self, cluster_uuid: str | None = None) -> None:
        """A kubelet (kwok) in each Running VM of the project (of `cluster_uuid`'s cluster, when given) registers
        its Node, with the CSI node plugin's CSINode and topology segment, and stops with the VM."""
        self.kubelets = KubeletsInVMs(self.dvp, self.project, self.guest, register=True, csi_driver=DRIVER_NAME,
                                      topology=SEGMENT, cluster_uuid=cluster_uuid).start()

    def seed_dvp(self) -> None:
        seed.storage_class(self.dvp, "replicated-fast", default=True)
        seed.storage_class(self.dvp, "local-thin", binding_mode="WaitForFirstConsumer")
        seed.vm_class(self.dvp, "generic")
        seed.cluster_image(self.dvp, "ubuntu-24-04")
        self.p.line("   DVP: StorageClasses replicated-fast, local-thin; VirtualMachineClass generic; "
                    "ClusterVirtualImage ubuntu-24-04")

    def start_simulator(self) -> None:
        sim = self.components.add("dvp-sim", [
            "-m", "sim", "--kubeconfig", str(self.work / "dvp.kubeconfig"), "--namespace", self.project,
            "--ip-pool", IP_POOL, "--lb-pool", LB_POOL, "--default-latency", str(self.s.sim_latency),
            *(f"--node-label=dvp-node-{i}:{ZONE_LABEL}={zone}" for i, zone in enumerate(ZONES, 1)),
            *self.s.sim_args], {})
        if not sim.start():
            raise StepFailed(f"dvp_sim did not start: {sim.unavailable}")

    def seed_guest(self) -> None:
        for ns in (MODULE_NS, CAPI_NS, "kube-system"):
            ensure_namespace(self.guest, ns)
        kubeconfig = self.dvp_api.kubeconfig(self.project)
        apply(self.guest, self.guest_kinds, so.credentials_secret(MODULE_NS, kubeconfig))
        settings = {k: v for k, v in self.values()["cloudProviderDvp"].items() if k != "internal"}
        apply(self.guest, self.guest_kinds, so.module_config(settings))
        self.p.line(f"   guest: Secret {MODULE_NS}/d8-credentials (type cloud-provider.deckhouse.io/credentials), "
                    "ModuleConfig cloud-provider-dvp")

    def values(self) -> dict[str, Any]:
        """The example values with every component on, our DVP project, and no internal values (hooks write them)."""
        v = module_values(all_on=True)
        v["cloudProviderDvp"]["provider"]["parameters"]["namespace"] = self.project
        v["cloudProviderDvp"]["internal"] = {}
        return v

    def run_hooks(self, runner: HookRunner, stage: str = "beforeHelm") -> None:
        for report in runner.run_stage(stage):
            extra = f" (not served here, empty snapshot: {', '.join(report.unserved)})" if report.unserved else ""
            self.p.line(f"   hook {report.hook}: {report.values_patches} values patch(es), "
                        f"{report.kube_operations} Kubernetes operation(s){extra}")

    def render_and_apply(self, values: dict[str, Any]) -> dict[str, int]:
        applied: dict[str, int] = {}
        kinds = APPLY_KINDS + (RBAC_KINDS if self.s.images else ())
        for obj in render_values(values):
            if obj["kind"] == "Deployment":
                self.service_accounts[obj["metadata"]["name"]] = obj["spec"]["template"]["spec"]["serviceAccountName"]
            if obj["kind"] not in kinds:
                continue
            apply(self.guest, self.guest_kinds, obj)
            applied[obj["kind"]] = applied.get(obj["kind"], 0) + 1
        return applied

    def register_webhooks(self, values: dict[str, Any]) -> list[str]:
        """The rendered webhook configurations, unchanged, in the guest API; each Service they name gets an
        EndpointSlice to its process (kube-apiserver resolves Services through EndpointSlices here,
        --enable-aggregator-routing), so the API server calls them by the Service's name as in a cluster."""
        for name in WEBHOOK_SERVERS:
            port = self.webhook_ports[name]
            with contextlib.suppress(AlreadyExists):
                self.guest.create(SERVICE, {"metadata": {"name": name}, "spec": {
                    "ports": [{"name": "https", "port": 443, "targetPort": port}]}}, MODULE_NS)
            with contextlib.suppress(AlreadyExists):
                self.guest.create(ENDPOINT_SLICE, {
                    "metadata": {"name": name, "labels": {"kubernetes.io/service-name": name,
                                                          "endpointslice.kubernetes.io/managed-by": "demo"}},
                    "addressType": "IPv4", "endpoints": [{"addresses": [self.webhook_host]}],
                    "ports": [{"name": "https", "port": port, "protocol": "TCP"}]}, MODULE_NS)
        names = []
        for obj in render_values(values):
            if obj["kind"] in WEBHOOK_KINDS and all(w["clientConfig"].get("service", {}).get("name") in
                                                     WEBHOOK_SERVERS for w in obj["webhooks"]):
                apply(self.guest, self.guest_kinds, obj)
                names.append(obj["metadata"]["name"])
        return names

    def credentials_env(self, secret_name: str) -> dict[str, str]:
        """What the Deployments' secretKeyRefs give the containers (templates/_helpers.tpl credentials_envs)."""
        data = self.guest.get(SECRET, secret_name, MODULE_NS)["data"]
        text = {k: base64.b64decode(v).decode() for k, v in data.items()}
        return {"DVP_KUBERNETES_CONFIG_BASE64": text["kubernetesConfigBase64"], "DVP_NAMESPACE": text["namespace"],
                "CLUSTER_UUID": text["clusterUUID"], **self.s.component_env}

    def start_components(self) -> None:
        guest_kc = str(self.work / "guest.kubeconfig")
        env = {c: self.credentials_env(f"dvp-credentials-{c}") for c in ("discoverer", "ccm", "capdvp", "csi")}
        self.csi_socket = self.work / "csi.sock"
        if self.s.images:  # the socket dir is the CSI controller Pod's emptyDir, shared with its sidecars
            self.volumes = img.Volumes()
            self.csi_socket = self.volumes.folder("csi-controller", "socket-dir") / "csi.sock"
        self.csi_socket.unlink(missing_ok=True)
        specs = [
            ("cloud-data-discoverer", ["-m", "cloud_data_discoverer", "--discovery-period=2s",
                                       "--listen-address=127.0.0.1:0", f"--kubeconfig={guest_kc}"],
             env["discoverer"]),
            ("cloud-controller-manager", ["-m", "dvp_ccm", f"--kubeconfig={guest_kc}",
                                          "--health-probe-bind-address=0", "--metrics-bind-address=0",
                                          "--node-monitor-period=1s", "--node-status-update-frequency=30s",
                                          # a Node whose VM is gone: out-of-service taint, then deleted (the
                                          # chart's 90 s and 60 s, shortened)
                                          "--out-of-service-grace-period=1s", "--out-of-service-node-delete-delay=1s",
                                          f"--workers={self.s.workers}"], env["ccm"]),
            ("capdvp-controller-manager", ["-m", "capdvp", f"--kubeconfig={guest_kc}", "--namespace", CAPI_NS,
                                           "--health-probe-bind-address=0", "--webhook-bind-address=0",
                                           "--control-plane-endpoint=127.0.0.1:6443", "--resync-seconds=30",
                                           f"--workers={self.s.workers}"],
             env["capdvp"]),
            ("csi-controller", ["-m", "dvp_csi", "--mode=controller", f"--endpoint=unix://{self.csi_socket}",
                                f"--guest-kubeconfig={guest_kc}"], env["csi"]),
        ]
        self.webhook_host = host_address()
        for name, mode in (("validation-webhook", "validation"), ("snapshot-webhooks", "snapshot")):
            tls = self.tls_files(f"{name}-tls") if not self.s.images else Path(img.WEBHOOK_TLS_DIR)
            port = free_port()
            self.webhook_ports[name] = port
            specs.append((name, ["-m", "dvp_webhooks", mode, f"--kubeconfig={guest_kc}",
                                 f"--listen-address={self.webhook_host}:{port}", f"--tls-cert-file={tls / 'tls.crt'}",
                                 f"--tls-key-file={tls / 'tls.key'}"], env["discoverer"]))
        ports = {name: free_port() for name, _, _ in specs}
        extra = scrape.metrics_flags(ports)
        for name, argv, cenv in specs:
            if self.s.images:
                self.add_from_image(name, argv, cenv)
                continue
            if name in extra:  # replaces the disabled ("=0") or ephemeral (":0") address given above, if any
                flags = tuple(f.split("=", 1)[0] + "=" for f in extra[name])
                argv = [a for a in argv if not a.startswith(flags)] + extra[name]
                self.metrics_urls[name] = f"http://127.0.0.1:{ports[name]}/metrics"
            spec = dict(self.s.faults or {})
            if self.s.kills and name in CONTROLLERS:  # the chaos kills on the DVP writes these announce
                spec["hold"] = {"dir": str(self.hold_dir), "name": name}
            if (self.s.faults is not None or spec) and "webhook" not in name:
                argv = ["-m", "demo.faulty", argv[1], *argv[2:]]
                cenv = {**cenv, "DEMO_FAULTS": json.dumps({**spec, "host": self.dvp_api.url})}
            self.components.add(name, argv, cenv)
        try:
            binaries = {name: str(tool(name)) for name in SIDECARS}
        except HarnessError as exc:
            raise StepFailed(str(exc)) from None
        for name in SIDECARS:  # the CSI controller pod's other containers
            flags = sidecar_processes.flags(name, Path(guest_kc), self.csi_socket)
            if name == "csi-provisioner":
                flags += PROVISIONER_CAPACITY
            self.components.add(name, flags, {"NAMESPACE": MODULE_NS}, program=binaries[name])
        started = self.components.start_together([name for name, _, _ in specs] + list(SIDECARS))
        self.components.keep_up(list(SIDECARS))  # a sidecar exits when the driver it calls goes; kubelet restarts
        for name, up in started.items():
            comp = self.components.items[name]
            box = comp.sandbox() if up and isinstance(comp, img.ImageComponent) else None
            if box is not None:
                self.p.line(f"   {name}: running from image {comp.image.name}@{comp.image.digest} (rootfs "
                            f"{comp.image.rootfs}, uid {box.uid}, read-only root {box.root_read_only}; pid "
                            f"{box.pid}, log {self.work / name}.log)")
            elif up:
                self.p.line(f"   {name}: running (pid {comp.proc.pid}, log {self.work / name}.log)")
            else:
                self.p.line(f"   {name}: NOT AVAILABLE ({comp.unavailable})")

    def prepare_images(self) -> None:
        if self.s.faults is not None or self.s.kills or self.s.sim_args:
            raise StepFailed("image mode runs the clean scenario only: demo.faulty and demo.chaos wrap the "
                             "components with testkit code, which is not in the images")
        try:
            self.images = img.prepare(list(img.COMPONENT_IMAGES), log=self.p.line)
        except Exception as exc:  # imagekit's errors (a missing tool, a Debian mirror) end the step with one line
            raise StepFailed(f"the component images: {type(exc).__name__}: {exc}") from None

    def add_from_image(self, name: str, argv: list[str], env: dict[str, str]) -> None:
        """The component as its Deployment's container: image Entrypoint, the Pod's mounts, the ServiceAccount."""
        image = self.images[img.COMPONENT_IMAGES[name]]
        sa = self.service_accounts[name]
        binds = [(self.volumes.folder(name, "serviceaccount", img.service_account_files(self.guest_api, MODULE_NS, sa)),
                  img.SERVICE_ACCOUNT_DIR, True)]
        secret = {"validation-webhook": "validation-webhook-tls", "snapshot-webhooks": "snapshot-webhooks-tls",
                  "capdvp-controller-manager": "capdvp-webhook-tls"}.get(name)
        if secret:
            data = self.guest.get(SECRET, secret, MODULE_NS)["data"]
            files = {k: base64.b64decode(data[k]) for k in ("tls.crt", "tls.key", "ca.crt")}
            target = img.CAPDVP_TLS_DIR if name.startswith("capdvp") else img.WEBHOOK_TLS_DIR
            binds.append((self.volumes.folder(name, "tls", files), target, True))
        if name == "csi-controller":
            binds.append((self.csi_socket.parent, img.CSI_DIR, False))
        full = img.pod_argv(image, img.pod_args(argv), {**env, **img.service_env(self.guest_api.url)}, binds)
        comp = img.ImageComponent(name, full[1:], {}, self.work / f"{name}.log", program=full[0])
        comp.image = image
        self.components.put(comp)

    def tls_files(self, secret_name: str) -> Path:
        """The webhook certificate the hook issued, from the applied Secret, as the pod's volume would hold it."""
        data = self.guest.get(SECRET, secret_name, MODULE_NS)["data"]
        out = self.work / secret_name
        out.mkdir(exist_ok=True)
        for key in ("tls.crt", "tls.key", "ca.crt"):
            path = out / key
            path.touch(mode=0o600)
            path.write_bytes(base64.b64decode(data[key]))
        return out

    def stop(self) -> None:
        for watcher in (self.ledger, self.kubelets):
            if watcher is not None:
                watcher.stop()
        self.components.stop_all()
        if self.volumes is not None:
            self.volumes.remove()
        for part in (self.capi, self.controllers):
            if part is not None:
                part.stop()
        for c in ("dvp", "guest"):
            client = getattr(self, c, None)
            if isinstance(client, KubeClient):
                client.close()
        self.plane.stop()
