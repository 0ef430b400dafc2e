# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""The components started from their images (`python -m demo --images`, tests/e2e/test_e2e_images.py).

Each image is built by `imagekit.build` into `.tmp/images/<name>` (an OCI layout) and unpacked once per digest
into `.tmp/rootfs/<digest>`; a component runs there under bubblewrap (`imagekit.rootfs.bwrap_argv`) as a Pod's
container would: the root read-only, uid/gid 64535 on the host too (setpriv drops to it before bwrap, so the
process holds no capability and no host uid 0 even outside its user namespace), the image config's own
Entrypoint and Env (never the tree's), and only the mounts its Deployment gives: the ServiceAccount volume
(token from the TokenRequest API, `ca.crt`, `namespace`, with KUBERNETES_SERVICE_HOST/PORT), the webhook TLS
Secret at the path the chart mounts it, the CSI socket dir, a tmpfs `/tmp`; the DVP credentials as the chart's
secretKeyRefs give them, as env. The network is the host's (the test world listens on loopback).

The tree's fault injection (`-m demo.faulty`) is not in the images: the image mode runs the clean scenario.
`start_time(name, from_image)` is the cold start the bench compares (exec to `/healthz` answering).
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import re
import shutil
import signal
import subprocess
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

from demo.components import STOP_TIMEOUT, Component
from testkit.harness import lifetime

ROOT = Path(__file__).resolve().parents[1]
IMAGES_OUT = ROOT / ".tmp" / "images"
ROOTFS_DIR = ROOT / ".tmp" / "rootfs"  # one rootfs per image digest, reused by every run
UID = GID = 64535  # the chart's runAsUser/runAsGroup (Deckhouse's)
# Component (the demo's process name, = the chart's Deployment) -> the image it runs.
COMPONENT_IMAGES = {
    "cloud-data-discoverer": "cloud-data-discoverer",
    "cloud-controller-manager": "cloud-controller-manager",
    "capdvp-controller-manager": "capdvp-controller-manager",
    "csi-controller": "csi-driver",
    "validation-webhook": "webhooks",
    "snapshot-webhooks": "webhooks",
}
SERVICE_ACCOUNT_DIR = "/var/run/secrets/kubernetes.io/serviceaccount"  # the kubelet's projected volume
WEBHOOK_TLS_DIR = "/etc/webhook/tls"  # images/webhooks/mount-points.yaml
CAPDVP_TLS_DIR = "/etc/capdvp/webhook-tls"  # images/capdvp-controller-manager/mount-points.yaml
CSI_DIR = "/csi"  # images/csi-driver/mount-points.yaml; the sidecars share the socket through it
CSI_SOCKET = f"{CSI_DIR}/csi.sock"
# Flags that point a tree process at host files; in a Pod the same things come from the mounts (the
# ServiceAccount, the TLS volume at the settings' default path).
HOST_FILE_FLAGS = ("--kubeconfig=", "--guest-kubeconfig=", "--tls-cert-file=", "--tls-key-file=")
MAX_SYMLINKS = 40
PRUNE_AGE = 3600.0  # seconds a rootfs of another digest stays unused before it is removed
DIGEST_DIR = re.compile(r"[0-9a-f]{64}")


class ImageError(RuntimeError):
    pass


@dataclass(frozen=True)
class Image:
    name: str
    digest: str  # of the manifest
    rootfs: Path
    entrypoint: tuple[str, ...]
    env: dict[str, str]
    user: str

    @property
    def short(self) -> str:
        return self.digest.split(":", 1)[1][:12]


def _image_config(layout: Path) -> tuple[str, dict]:
    """The manifest digest and the image config's `config` object (Entrypoint, Env, User), read from the layout:
    index.json -> manifest -> config blob."""
    from imagekit import oci

    digest, _ = oci.read_manifest(layout)
    return digest, oci.read_config(layout).get("config", {})


def from_layout(name: str, layout: Path, rootfs: Path) -> Image:
    digest, config = _image_config(layout)
    if not config.get("Entrypoint"):
        raise ImageError(f"image {name}: its config has no Entrypoint ({layout})")
    env = dict(item.split("=", 1) for item in config.get("Env", []))
    return Image(name, digest, rootfs, tuple(config["Entrypoint"]), env, str(config.get("User", "")))


def unpacked(layout: Path) -> Path:
    """The rootfs of the layout's image, unpacked once per digest (a file lock serialises runs that overlap)."""
    from imagekit import unpack

    digest, _ = _image_config(layout)
    ROOTFS_DIR.mkdir(parents=True, exist_ok=True)
    dest = ROOTFS_DIR / digest.split(":", 1)[1]
    with open(ROOTFS_DIR / ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not dest.is_dir():  # unpack renames into place only when complete
            unpack.unpack(layout, dest)
        os.utime(dest)  # the time of its last use, which pruning goes by
        prune(now=time.time())
    return dest


def prune(now: float) -> list[str]:
    """Every commit gives new digests (the images' created time is the commit's), so rootfs of old digests pile
    up (~100 MB each): the ones unused for PRUNE_AGE go (a run still using one touched it when it started).
    Called under the lock."""
    removed = []
    for entry in ROOTFS_DIR.iterdir():
        if DIGEST_DIR.fullmatch(entry.name) and entry.is_dir() and now - entry.stat().st_mtime > PRUNE_AGE:
            shutil.rmtree(entry, ignore_errors=True)
            removed.append(entry.name)
    return removed


def prepare(components: list[str], log=lambda line: None) -> dict[str, Image]:
    """Build the components' images (imagekit's cache makes an unchanged one cheap) and unpack them; by image name."""
    from imagekit import build, rootfs

    rootfs.require_bwrap()
    names = sorted({COMPONENT_IMAGES[c] for c in components})
    built = build.build(names, out=IMAGES_OUT)
    images = {}
    for name in names:
        images[name] = from_layout(name, built[name].layout, unpacked(built[name].layout))
        log(f"   image {name}@{images[name].digest} -> rootfs {images[name].rootfs}")
    return images


def in_image(rootfs: Path, path: str) -> str:
    """`path` with the image's symlinks resolved inside the image (Debian's /var/run -> /run): bwrap mounts on
    the resolved path, and a symlink must never lead a mount point out to the host."""
    parts = [p for p in path.split("/") if p]
    resolved: list[str] = []
    hops = 0
    while parts:
        part = parts.pop(0)
        if part == "..":
            resolved = resolved[:-1]
            continue
        here = rootfs.joinpath(*resolved, part)
        if here.is_symlink():
            hops += 1
            if hops > MAX_SYMLINKS:
                raise ImageError(f"{path}: too many symlinks in the image {rootfs}")
            target = os.readlink(here)
            parts = [p for p in target.split("/") if p] + parts
            if target.startswith("/"):
                resolved = []
            continue
        resolved.append(part)
    return "/" + "/".join(resolved)


def ensure_mount_point(rootfs: Path, path: str) -> str:
    """The mount point of `path` in the rootfs, made when missing, as a container runtime makes it in the
    container's root; returns the resolved path in the image."""
    resolved = in_image(rootfs, path)
    (rootfs / resolved.lstrip("/")).mkdir(parents=True, exist_ok=True)
    return resolved


class Volumes:
    """The files a Pod's volumes hold, on the host, readable by uid 64535 only (runAsUser plus the volume's
    ownership, as the kubelet sets it with fsGroup); removed on stop, or by the reaper if we are killed."""

    def __init__(self) -> None:
        self.root = Path(tempfile.mkdtemp(prefix="cpdvp-pods-"))
        self.root.chmod(0o711)  # uid 64535 traverses to its own folders, lists nothing
        lifetime.remove_on_exit(self.root)

    def folder(self, component: str, volume: str, files: dict[str, bytes] | None = None) -> Path:
        out = self.root / component / volume
        out.mkdir(parents=True, exist_ok=True)
        (self.root / component).chmod(0o711)
        for name, data in (files or {}).items():
            path = out / name
            path.write_bytes(data)
            path.chmod(0o600)
            os.chown(path, UID, GID)
        os.chown(out, UID, GID)
        out.chmod(0o700)
        return out

    def remove(self) -> None:
        lifetime.remove_now(self.root)


def service_account_files(api, namespace: str, name: str) -> dict[str, bytes]:
    """The projected ServiceAccount volume: a token of ServiceAccount `name` (TokenRequest), the API's CA, the
    namespace."""
    token = api.service_account_token(namespace, name)
    return {"token": token.encode(), "ca.crt": api.ca_path.read_bytes(), "namespace": namespace.encode()}


def service_env(api_url: str) -> dict[str, str]:
    """What the kubelet puts into every container for the `kubernetes` Service (here: the guest API itself)."""
    url = urlsplit(api_url)
    return {"KUBERNETES_SERVICE_HOST": url.hostname or "", "KUBERNETES_SERVICE_PORT": str(url.port or 443)}


def pod_args(tree_argv: list[str]) -> list[str]:
    """A tree process's `python -m <package> ARGS` as the container's args: the package is the image's
    Entrypoint, flags naming host files are dropped (the Pod's mounts stand for them), the CSI endpoint is the
    socket in the mounted dir."""
    if tree_argv[:1] != ["-m"]:
        raise ImageError(f"not a `python -m` component: {tree_argv[:2]}")
    args = []
    for arg in tree_argv[2:]:
        if arg.startswith(HOST_FILE_FLAGS):
            continue
        if arg.startswith("--endpoint=unix://"):
            arg = f"--endpoint=unix://{CSI_SOCKET}"
        args.append(arg)
    return args


def pod_argv(image: Image, args: list[str], env: dict[str, str],
             binds: list[tuple[Path, str, bool]]) -> list[str]:
    """The command line running the image's Entrypoint with `args` in its rootfs, as uid 64535 on the host."""
    from imagekit import rootfs

    mounts = [(host, ensure_mount_point(image.rootfs, target), ro) for host, target, ro in binds]
    drop = [shutil.which("setpriv") or "setpriv", f"--reuid={UID}", f"--regid={GID}", "--clear-groups", "--"]
    return [*drop, *rootfs.bwrap_argv(image.rootfs, [*image.entrypoint, *args], uid=UID, gid=GID,
                                      binds=mounts, env={**image.env, **env})]


def sandboxed_pid(outer: int) -> int | None:
    """The component's own process under bwrap (bwrap forks a pid-1 helper in the new pid namespace, which forks
    the command): the first descendant of `outer` that is not bwrap."""
    children: dict[int, list[int]] = {}
    comm: dict[int, str] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        with contextlib.suppress(OSError):
            stat = (entry / "stat").read_text()
            # pid (comm) state ppid ...; comm may hold spaces and parentheses
            name, rest = stat[stat.index("(") + 1:stat.rindex(")")], stat[stat.rindex(")") + 2:].split()
            comm[int(entry.name)] = name
            children.setdefault(int(rest[1]), []).append(int(entry.name))
    queue = list(children.get(outer, []))
    while queue:
        pid = queue.pop(0)
        if comm.get(pid) != "bwrap":
            return pid
        queue += children.get(pid, [])
    return None


@dataclass(frozen=True)
class Sandbox:
    """What the host sees of a component process: its uid/gid, effective capabilities, whether its root is the
    image's rootfs and mounted read-only."""

    pid: int
    uid: int
    gid: int
    cap_eff: int
    root_is_rootfs: bool
    root_read_only: bool


def inspect(pid: int, rootfs: Path) -> Sandbox:
    status = dict(line.split(":", 1) for line in Path(f"/proc/{pid}/status").read_text().splitlines() if ":" in line)
    root = os.stat(f"/proc/{pid}/root/")
    image_root = os.stat(rootfs)
    options = ""
    for line in Path(f"/proc/{pid}/mountinfo").read_text().splitlines():
        fields = line.split()
        if fields[4] == "/":  # the last mount on / wins, as the kernel resolves it
            options = fields[5]
    return Sandbox(pid, int(status["Uid"].split()[1]), int(status["Gid"].split()[1]), int(status["CapEff"], 16),
                   (root.st_dev, root.st_ino) == (image_root.st_dev, image_root.st_ino),
                   "ro" in options.split(","))


class ImageComponent(Component):
    """A Component whose process is bwrap over an image rootfs. bwrap forwards no signal, so stop sends SIGTERM
    to the component's own process (a graceful stop, as the kubelet's); SIGKILL of bwrap ends it through
    --die-with-parent, as a container's kill does."""

    image: Image | None = None

    def sandbox(self) -> Sandbox | None:
        pid = sandboxed_pid(self.proc.pid) if self.running else None
        return inspect(pid, self.image.rootfs) if pid is not None else None

    def stop(self) -> None:
        if self.running:
            pid = sandboxed_pid(self.proc.pid)
            if pid is not None:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(pid, signal.SIGTERM)
                with contextlib.suppress(subprocess.TimeoutExpired):
                    self.proc.wait(STOP_TIMEOUT)
        super().stop()
