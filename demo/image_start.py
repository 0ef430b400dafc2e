# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""Cold start to ready of a component, from its image rootfs (demo.images) and from the source tree, on the same
machine against the same APIs, for the bench (issue 34: goal image <= 1.2x tree).

Ready = the probe the chart's Deployment uses answers: `/healthz` over HTTP (CCM, capdvp, discoverer), over HTTPS
(the webhooks), the CSI driver's Probe over its socket (what the livenessprobe sidecar calls). The clock runs
from the spawn to the first good answer.

    with StartWorld() as world:            # etcd + a DVP and a guest kube-apiserver, once
        seconds = world.start_time("cloud-controller-manager", from_image=True)
    start_time(name, from_image) -> float  # the same with a world of its own (slower: starts the APIs)
"""

from __future__ import annotations

import base64
import http.client
import shutil
import ssl
import sys
import tempfile
import time
import uuid
from pathlib import Path

from demo import images as img
from demo.components import Component
from testkit.harness import lifetime
from testkit.harness.apiserver import ControlPlane, dvp_crd_files, guest_controllers_crd_files
from testkit.harness.processes import free_port

READY_TIMEOUT = 60.0
POLL = 0.02  # seconds between probes: the resolution of the figure
COMPONENTS = ("cloud-controller-manager", "capdvp-controller-manager", "cloud-data-discoverer", "validation-webhook",
              "csi-controller")
MODULE_NS = "d8-cloud-provider-dvp"
# The chart's ServiceAccount of each (templates/*: serviceAccountName).
SERVICE_ACCOUNTS = {"cloud-controller-manager": "cloud-controller-manager",
                    "capdvp-controller-manager": "capdvp-controller-manager",
                    "cloud-data-discoverer": "cloud-data-discoverer", "validation-webhook": "validation-webhook",
                    "csi-controller": "csi"}


class StartFailed(RuntimeError):
    pass


def tail(comp: Component) -> str:
    return comp.log_path.read_text(errors="replace")[-500:]


class StartWorld:
    """The APIs the components need to come up: a DVP API (its CRDs) and a guest API, an image per component."""

    def __init__(self) -> None:
        self.plane = ControlPlane()
        self.dir = Path(tempfile.mkdtemp(prefix="cpdvp-start-"))
        lifetime.remove_on_exit(self.dir)
        self.images: dict[str, img.Image] = {}

    def __enter__(self) -> StartWorld:
        self.plane.start({"dvp": ("AlwaysAllow", dvp_crd_files()), "guest": ("AlwaysAllow",
                                                                              guest_controllers_crd_files())})
        self.dvp, self.guest = self.plane.servers["dvp"], self.plane.servers["guest"]
        project = self.dvp.create_namespace("project")
        client = self.guest.client()
        try:
            from dvp_common.kube.resources import NAMESPACE

            client.create(NAMESPACE, {"metadata": {"name": MODULE_NS}}, get_existing=True)
        finally:
            client.close()
        self.guest_kc = self.dir / "guest.kubeconfig"
        self.guest_kc.write_text(self.guest.kubeconfig())
        self.env = {"DVP_KUBERNETES_CONFIG_BASE64": base64.b64encode(self.dvp.kubeconfig(project).encode()).decode(),
                    "DVP_NAMESPACE": project, "CLUSTER_UUID": str(uuid.uuid4())}
        self.images = img.prepare(list(COMPONENTS))
        return self

    def __exit__(self, *exc) -> None:
        self.plane.stop()
        lifetime.remove_now(self.dir)

    def start_time(self, name: str, from_image: bool) -> float:
        """Seconds from spawn to ready of one cold process of `name`, stopped afterwards."""
        port = free_port()
        tls = self.plane.pki
        run = Path(tempfile.mkdtemp(prefix=f"{name}-", dir=self.dir))
        socket_dir = run / "csi"
        argv = tree_argv(name, port, self.guest_kc, tls.serving_cert, tls.serving_key, socket_dir / "csi.sock")
        volumes = None
        if from_image:
            volumes = img.Volumes()
            socket_dir = volumes.folder(name, "socket-dir")
            binds = [(volumes.folder(name, "serviceaccount", img.service_account_files(
                self.guest, MODULE_NS, SERVICE_ACCOUNTS[name])), img.SERVICE_ACCOUNT_DIR, True)]
            if name == "validation-webhook":
                binds.append((volumes.folder(name, "tls", {"tls.crt": tls.serving_cert.read_bytes(),
                                                           "tls.key": tls.serving_key.read_bytes()}),
                              img.WEBHOOK_TLS_DIR, True))
            if name == "csi-controller":
                binds.append((socket_dir, img.CSI_DIR, False))
            image = self.images[img.COMPONENT_IMAGES[name]]
            full = img.pod_argv(image, img.pod_args(argv), {**self.env, **img.service_env(self.guest.url)}, binds)
            comp: Component = img.ImageComponent(name, full[1:], {}, run / "log", program=full[0])
            comp.image = image
        else:
            socket_dir.mkdir()
            comp = Component(name, argv, {**self.env, "TMPDIR": str(run)}, run / "log")
        probe = ready_probe(name, port, socket_dir / "csi.sock")
        try:
            comp.spawn()
            began = comp.spawned_at
            deadline = began + READY_TIMEOUT
            while not probe():
                if not comp.running:
                    raise StartFailed(f"{name} exited before ready: {tail(comp)}")
                if time.monotonic() > deadline:
                    raise StartFailed(f"{name} not ready after {READY_TIMEOUT:.0f}s: {tail(comp)}")
                time.sleep(POLL)
            return time.monotonic() - began
        finally:
            comp.stop()
            if volumes is not None:
                volumes.remove()
            shutil.rmtree(run, ignore_errors=True)


def tree_argv(name: str, port: int, guest_kc: Path, cert: Path, key: Path, sock: Path) -> list[str]:
    """The component's `python -m` command from the tree with its probe on `port` (demo.images.pod_args turns it
    into the container's args)."""
    kc = f"--kubeconfig={guest_kc}"
    return {
        "cloud-controller-manager": ["-m", "dvp_ccm", kc, f"--health-probe-bind-address=127.0.0.1:{port}",
                                     "--metrics-bind-address=0"],
        "capdvp-controller-manager": ["-m", "capdvp", kc, "--namespace=d8-cloud-instance-manager",
                                      f"--health-probe-bind-address=127.0.0.1:{port}", "--webhook-bind-address=0",
                                      "--control-plane-endpoint=127.0.0.1:6443"],
        "cloud-data-discoverer": ["-m", "cloud_data_discoverer", kc, f"--listen-address=127.0.0.1:{port}",
                                  "--discovery-period=1h"],
        "validation-webhook": ["-m", "dvp_webhooks", "validation", kc, f"--listen-address=127.0.0.1:{port}",
                               f"--tls-cert-file={cert}", f"--tls-key-file={key}"],
        "csi-controller": ["-m", "dvp_csi", "--mode=controller", f"--endpoint=unix://{sock}",
                           f"--guest-kubeconfig={guest_kc}"],
    }[name]


def ready_probe(name: str, port: int, sock: Path):
    if name == "csi-controller":
        return lambda: csi_probe(sock)
    return lambda: healthz(port, tls=name == "validation-webhook")


def healthz(port: int, tls: bool) -> bool:
    context = ssl._create_unverified_context() if tls else None  # noqa: S323 - a liveness answer, as the kubelet's
    conn = (http.client.HTTPSConnection("127.0.0.1", port, timeout=1, context=context) if tls
            else http.client.HTTPConnection("127.0.0.1", port, timeout=1))
    try:
        conn.request("GET", "/healthz")
        return conn.getresponse().status == 200
    except OSError:
        return False
    finally:
        conn.close()


def csi_probe(sock: Path) -> bool:
    if not sock.exists():
        return False
    import grpc
    from dvp_csi.generated import csi_pb2, csi_pb2_grpc

    with grpc.insecure_channel(f"unix://{sock}") as channel:
        try:
            answer = csi_pb2_grpc.IdentityStub(channel).Probe(csi_pb2.ProbeRequest(), timeout=1)
        except grpc.RpcError:
            return False
    return not answer.HasField("ready") or answer.ready.value



def start_time(name: str, from_image: bool = True) -> float:
    """One cold start of `name` (one of COMPONENTS) in a world of its own."""
    with StartWorld() as world:
        return world.start_time(name, from_image)


def start_times(names: tuple[str, ...] = COMPONENTS) -> dict[str, dict[str, float]]:
    """{name: {"image": s, "tree": s}} in one world, the tree run first (both cold processes; the OS file cache
    is warm for both after the first)."""
    with StartWorld() as world:
        return {n: {"tree": world.start_time(n, False), "image": world.start_time(n, True)} for n in names}


if __name__ == "__main__":
    import json

    print(json.dumps(start_times(tuple(sys.argv[1:]) or COMPONENTS)))
