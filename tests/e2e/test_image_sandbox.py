# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""demo.images' Pod plumbing on an image made here (a layout whose only layer is a Debian-like skeleton, the
host's /usr bound in for an interpreter): the image config's Entrypoint and Env, uid 64535 on the host with no
capability, the rootfs as a read-only root, the ServiceAccount volume behind Debian's /var/run -> /run symlink,
a graceful stop through bwrap. The real images run the same code in test_e2e_images.py."""

from __future__ import annotations

import json
import os
import tempfile
import time
from pathlib import Path

from imagekit import layer, oci, unpack

from demo import images as img
from testkit.harness import lifetime

# The "component": says what it sees, then waits for SIGTERM (which bwrap does not forward: ImageComponent does).
PROGRAM = r"""
import json, os, signal, sys, time
def term(*_):
    print("stopped by SIGTERM", flush=True); sys.exit(0)
signal.signal(signal.SIGTERM, term)
try:
    open("/written", "w"); root_writable = True
except OSError:
    root_writable = False
open("/tmp/scratch", "w").write("x")
sa = "/var/run/secrets/kubernetes.io/serviceaccount"
print(json.dumps({"uid": os.getuid(), "gid": os.getgid(), "args": sys.argv[1:], "root_writable": root_writable,
                  "env": {k: os.environ.get(k) for k in ("FROM_CONFIG", "FROM_POD", "HOME", "PATH")},
                  "token": open(sa + "/token").read(), "namespace": open(sa + "/namespace").read(),
                  "tree": os.path.exists("/work")}), flush=True)
while True:
    time.sleep(1)
"""


def skeleton_image(out: Path) -> Path:
    entries = [layer.Entry(p, link=t) for p, t in (("bin", "usr/bin"), ("lib", "usr/lib"), ("lib64", "usr/lib64"),
                                                     ("var/run", "/run"))]
    entries += [layer.Entry(d) for d in ("usr", "run", "tmp", "proc", "dev", "etc")]
    blobs = out / "blobs-store"
    config = {"User": "64535:64535", "Entrypoint": ["/usr/bin/python3", "-c", PROGRAM],
              "Env": ["FROM_CONFIG=config", "PATH=/usr/bin"]}
    image = oci.write_layout([layer.write_layer(entries, blobs)], config, out / "layout",
                             created="2026-01-01T00:00:00Z", blobs=blobs)
    return image.layout


def wait_for_line(path: Path, text: str, timeout: float = 20.0) -> str:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:  # a poll of the process's own output: there is no event to wait on
        for line in path.read_text(errors="replace").splitlines():
            if text in line:
                return line
        time.sleep(0.05)
    raise AssertionError(f"{path} never said {text!r}: {path.read_text(errors='replace')}")


def test_a_component_runs_in_its_rootfs_as_the_pods_user_with_only_the_pods_mounts(tmp_path):
    layout = skeleton_image(tmp_path)
    shared = Path(tempfile.mkdtemp(prefix="cpdvp-rootfs-"))  # not under tmp_path: uid 64535 cannot traverse that
    lifetime.remove_on_exit(shared)
    shared.chmod(0o755)
    rootfs = unpack.unpack(layout, shared / "rootfs")
    image = img.from_layout("skeleton", layout, rootfs)
    assert image.entrypoint[0] == "/usr/bin/python3" and image.env["FROM_CONFIG"] == "config"
    assert image.digest == oci.read_manifest(layout)[0]
    volumes = img.Volumes()
    try:
        sa = volumes.folder("c", "serviceaccount", {"token": b"tkn", "namespace": b"ns", "ca.crt": b"ca"})
        binds = [(sa, img.SERVICE_ACCOUNT_DIR, True), (Path("/usr"), "/usr", True)]
        argv = img.pod_argv(image, ["--flag"], {"FROM_POD": "pod"}, binds)
        comp = img.ImageComponent("c", argv[1:], {}, tmp_path / "c.log", program=argv[0])
        comp.image = image
        comp.spawn()
        seen = json.loads(wait_for_line(comp.log_path, '"uid"'))
        box = comp.sandbox()
        comp.stop()
    finally:
        volumes.remove()
    assert seen == {"uid": 64535, "gid": 64535, "args": ["--flag"], "root_writable": False,
                    "env": {"FROM_CONFIG": "config", "FROM_POD": "pod", "HOME": None, "PATH": "/usr/bin"},
                    "token": "tkn", "namespace": "ns", "tree": False}
    assert box is not None and box.pid != comp.proc.pid
    assert (box.uid, box.gid, box.cap_eff, box.root_is_rootfs, box.root_read_only) == (64535, 64535, 0, True, True)
    assert "stopped by SIGTERM" in comp.log_path.read_text()
    # the mount point was made inside the image, through its own /var/run -> /run symlink, not on the host
    assert (rootfs / "run/secrets/kubernetes.io/serviceaccount").is_dir()
    assert not volumes.root.exists()
    lifetime.remove_now(shared)


def test_pod_args_drop_host_file_flags_and_point_csi_at_the_socket_dir():
    tree = ["-m", "dvp_webhooks", "validation", "--kubeconfig=/h/guest.kubeconfig", "--listen-address=1.2.3.4:5",
            "--tls-cert-file=/h/tls.crt", "--tls-key-file=/h/tls.key"]
    assert img.pod_args(tree) == ["validation", "--listen-address=1.2.3.4:5"]
    csi = ["-m", "dvp_csi", "--mode=controller", "--endpoint=unix:///h/csi.sock", "--guest-kubeconfig=/h/kc"]
    assert img.pod_args(csi) == ["--mode=controller", "--endpoint=unix:///csi/csi.sock"]


def test_in_image_resolves_symlinks_inside_the_rootfs(tmp_path):
    (tmp_path / "var").mkdir()
    (tmp_path / "var/run").symlink_to("/run")
    (tmp_path / "etc").mkdir()
    (tmp_path / "etc/up").symlink_to("../var/run/x")
    assert img.in_image(tmp_path, "/var/run/secrets/a") == "/run/secrets/a"
    assert img.in_image(tmp_path, "/etc/up/y") == "/run/x/y"
    assert img.in_image(tmp_path, "/etc/webhook/tls") == "/etc/webhook/tls"


def test_prune_removes_only_rootfs_of_digests_unused_for_an_hour(tmp_path, monkeypatch):
    monkeypatch.setattr(img, "ROOTFS_DIR", tmp_path)
    old, recent, other = "a" * 64, "b" * 64, "ccm"
    for name in (old, recent, other):
        (tmp_path / name / "usr").mkdir(parents=True)
    now = time.time()
    for name in (old, other):
        os.utime(tmp_path / name, (now - img.PRUNE_AGE - 1, now - img.PRUNE_AGE - 1))
    assert img.prune(now) == [old]
    assert sorted(p.name for p in tmp_path.iterdir()) == [recent, other]
