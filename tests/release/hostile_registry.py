# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""A registry that sends whatever a test tells it to: each path answers a `Reply` (status, headers, body, or a
body dripped a byte at a time), so a test can serve a malformed manifest, an endless tag list, a 5xx storm or a
layer that escapes its root, and assert what the client makes of it. `put_*` build well-formed images, releases
and tags from bytes (real OCI JSON, real digests) for a test to spoil one part of."""

from __future__ import annotations

import contextlib
import gzip
import hashlib
import io
import json
import tarfile
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from module_release import MODULE

OCI_MANIFEST = "application/vnd.oci.image.manifest.v1+json"
OCI_INDEX = "application/vnd.oci.image.index.v1+json"
GZIP_LAYER = "application/vnd.oci.image.layer.v1.tar+gzip"


@dataclass
class Reply:
    status: int = 200
    headers: dict[str, str] = field(default_factory=dict)
    body: bytes = b""
    drip: float | None = None  # seconds between single bytes of the body (a registry that stalls)
    length: bool = True  # send Content-Length
    drip_headers: bool = False  # drip the status line and headers too


def sha(data: bytes) -> str:
    return "sha256:" + hashlib.sha256(data).hexdigest()


def tar(members: list[tarfile.TarInfo | tuple[str, bytes]]) -> bytes:
    """An uncompressed tar: (name, bytes) a regular file, or a TarInfo as given (links, whiteouts, fifos)."""
    out = io.BytesIO()
    with tarfile.open(fileobj=out, mode="w", format=tarfile.PAX_FORMAT) as t:
        for m in members:
            if isinstance(m, tarfile.TarInfo):
                t.addfile(m)
            else:
                info = tarfile.TarInfo(m[0])
                info.size, info.mode = len(m[1]), 0o644
                t.addfile(info, io.BytesIO(m[1]))
    return out.getvalue()


def link(name: str, target: str, hard: bool = False) -> tarfile.TarInfo:
    info = tarfile.TarInfo(name)
    info.type, info.linkname = (tarfile.LNKTYPE if hard else tarfile.SYMTYPE), target
    return info


class Hostile:
    def __init__(self, host: str) -> None:
        self.host = host
        self.routes: dict[str, Reply | Callable[[], Reply]] = {}
        self.hits: list[str] = []

    def on(self, path: str, reply: Reply | Callable[[], Reply]) -> None:
        self.routes[path] = reply

    def blob(self, repo: str, data: bytes, media_type: str = GZIP_LAYER) -> dict:
        digest = sha(data)
        self.on(f"/v2/{repo}/blobs/{digest}", Reply(body=data))
        return {"mediaType": media_type, "digest": digest, "size": len(data)}

    def manifest(self, repo: str, ref: str, doc: dict | bytes, media_type: str = OCI_MANIFEST) -> str:
        raw = doc if isinstance(doc, bytes) else json.dumps(doc).encode()
        digest = sha(raw)
        for r in (ref, digest):
            self.on(f"/v2/{repo}/manifests/{r}", Reply(headers={"Content-Type": media_type,
                                                                "Docker-Content-Digest": digest}, body=raw))
        return digest

    def tags(self, repo: str, tags: list[str]) -> None:
        self.on(f"/v2/{repo}/tags/list?n=1000", Reply(body=json.dumps({"name": repo, "tags": tags}).encode()))

    def image(self, repo: str, ref: str, layers: list[bytes], config: dict | None = None) -> str:
        """An image of gzip layers made from the given tars; its config names their diff_ids."""
        descs = [self.blob(repo, gzip.compress(t, mtime=0)) for t in layers]
        config = config or {"architecture": "amd64", "os": "linux",
                            "rootfs": {"type": "layers", "diff_ids": [sha(t) for t in layers]}}
        config_desc = self.blob(repo, json.dumps(config).encode(), "application/vnd.oci.image.config.v1+json")
        return self.manifest(repo, ref, {"schemaVersion": 2, "mediaType": OCI_MANIFEST, "config": config_desc,
                                         "layers": descs})

    def release(self, path: str, module_layers: list[bytes], version: str = "v0.1.0",
                channel: str = "stable") -> str:
        """`<host>/<path>`: a release channel naming `version`, and the module image of the layers given."""
        release_repo, module_repo = f"{path}/{MODULE}/release", f"{path}/{MODULE}"
        files = tar([("version.json", json.dumps({"version": version}).encode()), ("changelog.yaml", b"{}\n")])
        self.image(release_repo, channel, [files])
        self.tags(release_repo, [channel, version])
        self.image(module_repo, version, module_layers)
        self.tags(module_repo, [version])
        self.tags(path, [MODULE])
        return f"{self.host}/{path}"


def _handler(registry: Hostile):
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def _answer(self) -> None:
            registry.hits.append(f"{self.command} {self.path}")
            if self.path == "/v2/":
                reply = Reply(body=b"{}")
            else:
                found = registry.routes.get(self.path) or registry.routes.get(self.path.split("?")[0])
                reply = found() if callable(found) else found or Reply(404, body=b'{"errors":[{"code":"UNKNOWN"}]}')
            try:
                if reply.drip_headers:
                    self._drip_headers(reply)
                    return
                self.send_response(reply.status)
                for key, value in reply.headers.items():
                    self.send_header(key, value)
                if reply.length:
                    self.send_header("Content-Length", str(len(reply.body)))
                self.send_header("Connection", "close")
                self.end_headers()
                if self.command == "HEAD":
                    return
                if reply.drip is None:
                    self.wfile.write(reply.body)
                    return
                for i in range(len(reply.body)):
                    self.wfile.write(reply.body[i:i + 1])
                    self.wfile.flush()
                    time.sleep(reply.drip)  # the adversary's pace, not a wait of the test
            except (BrokenPipeError, ConnectionResetError):
                pass
            self.close_connection = True

        def _drip_headers(self, reply: Reply) -> None:
            lines = [f"HTTP/1.1 {reply.status} OK", *(f"{k}: {v}" for k, v in reply.headers.items()),
                     f"Content-Length: {len(reply.body)}", "", ""]
            raw = "\r\n".join(lines).encode() + reply.body
            for i in range(len(raw)):
                self.wfile.write(raw[i:i + 1])
                self.wfile.flush()
                time.sleep(reply.drip or 0.1)  # the adversary's pace, not a wait of the test

        do_GET = do_HEAD = _answer

        def log_message(self, *args) -> None:
            pass

    return Handler


@contextlib.contextmanager
def serve() -> Iterator[Hostile]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), None)
    registry = Hostile(f"127.0.0.1:{server.server_address[1]}")
    server.RequestHandlerClass = _handler(registry)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    try:
        yield registry
    finally:
        server.shutdown()
        server.server_close()
        thread.join()
