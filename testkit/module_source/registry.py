# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""A registry client on the HTTP API v2 (distribution spec): tags, manifests by tag or digest (OCI and Docker
media types, an index resolved to linux/amd64), blobs. Every manifest and blob read is hashed and compared with the
digest it was asked by, so nothing the registry changed goes unnoticed. Anonymous bearer tokens are fetched when
the registry asks for them (WWW-Authenticate)."""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import BinaryIO

import requests

from . import SourceError

OCI_MANIFEST = "application/vnd.oci.image.manifest.v1+json"
OCI_INDEX = "application/vnd.oci.image.index.v1+json"
DOCKER_MANIFEST = "application/vnd.docker.distribution.manifest.v2+json"
DOCKER_LIST = "application/vnd.docker.distribution.manifest.list.v2+json"
MANIFESTS = (OCI_MANIFEST, DOCKER_MANIFEST)
INDEXES = (OCI_INDEX, DOCKER_LIST)
ACCEPT = ", ".join((*MANIFESTS, *INDEXES))
DIGEST = re.compile(r"sha256:[0-9a-f]{64}")
LOOPBACK = ("127.0.0.1", "localhost", "[::1]")
MAX_MANIFEST = 4 << 20
CHUNK = 1 << 20


class NotFound(SourceError):
    pass


@dataclass(frozen=True)
class Manifest:
    repo: str
    digest: str
    media_type: str
    doc: dict

    @property
    def layers(self) -> list[dict]:
        return self.doc.get("layers") or []


def split_repo(repo: str) -> tuple[str, str]:
    """HOST[:PORT]/PATH -> (host, path)."""
    host, _, path = repo.strip().rstrip("/").partition("/")
    if not host or not path or "://" in repo:
        raise SourceError(f"repo {repo!r}: expected HOST[:PORT]/PATH (a ModuleSource's spec.registry.repo)")
    return host, path


def _reason(exc: requests.RequestException) -> str:
    text = str(exc)
    if "Connection refused" in text:
        return "connection refused"
    if isinstance(exc, requests.Timeout):
        return "timed out"
    if "Name or service not known" in text or "nodename nor servname" in text:
        return "unknown host"
    return type(exc).__name__


class Registry:
    def __init__(self, host: str, scheme: str | None = None, timeout: float = 30.0) -> None:
        self.host = host
        self.scheme = scheme or ("http" if host.rsplit(":", 1)[0] in LOOPBACK else "https")
        self.timeout = timeout
        self.session = requests.Session()
        self.session.headers["User-Agent"] = "cloud-provider-dvp-module-source"

    def close(self) -> None:
        self.session.close()

    def _request(self, method: str, path: str, *, headers: dict | None = None, stream: bool = False,
                 retried: bool = False) -> requests.Response:
        url = f"{self.scheme}://{self.host}{path}"
        try:
            res = self.session.request(method, url, headers=headers, stream=stream, timeout=self.timeout)
        except requests.RequestException as exc:
            raise SourceError(f"registry {self.host} is unreachable: {method} {path}: {_reason(exc)}") from None
        if res.status_code == 401 and not retried and self._authorize(res):
            res.close()
            return self._request(method, path, headers=headers, stream=stream, retried=True)
        return res

    def _authorize(self, res: requests.Response) -> bool:
        """An anonymous token for `Bearer realm=...,service=...,scope=...` (what a public registry asks for)."""
        challenge = res.headers.get("WWW-Authenticate", "")
        if not challenge.lower().startswith("bearer "):
            return False
        params = dict(re.findall(r'(\w+)="([^"]*)"', challenge))
        if "realm" not in params:
            return False
        try:
            token = self.session.get(params.pop("realm"), params=params, timeout=self.timeout)
        except requests.RequestException as exc:
            raise SourceError(f"registry {self.host}: token service unreachable: {_reason(exc)}") from None
        if token.status_code != 200:
            return False
        body = token.json()
        self.session.headers["Authorization"] = f"Bearer {body.get('token') or body.get('access_token')}"
        return True

    def _fail(self, res: requests.Response, what: str) -> SourceError:
        try:
            errors = res.json().get("errors") or []
            detail = errors[0].get("code", "") if errors else ""
        except ValueError:
            detail = ""
        return SourceError(f"{self.host}/{what}: HTTP {res.status_code}{' ' + detail if detail else ''}")

    def ping(self) -> None:
        res = self._request("GET", "/v2/")
        if res.status_code not in (200, 401):
            raise self._fail(res, "v2")

    def tags(self, repo: str) -> list[str]:
        """Every tag of `repo` (the list paginated by Link headers followed); a repository unknown is NotFound."""
        out: list[str] = []
        path = f"/v2/{repo}/tags/list?n=1000"
        while path:
            res = self._request("GET", path)
            if res.status_code == 404:
                raise NotFound(f"{self.host}/{repo}: no such repository")
            if res.status_code != 200:
                raise self._fail(res, repo)
            out += res.json().get("tags") or []
            link = re.match(r"<([^>]+)>", res.headers.get("Link", ""))
            path = link.group(1) if link else ""
        return sorted(out)

    def manifest(self, repo: str, reference: str, platform: tuple[str, str] = ("linux", "amd64")) -> Manifest:
        """The image manifest `repo:reference` (a tag or a digest); an index is resolved to `platform`."""
        sep = "@" if DIGEST.fullmatch(reference) else ":"
        res = self._request("GET", f"/v2/{repo}/manifests/{reference}", headers={"Accept": ACCEPT})
        if res.status_code == 404:
            raise NotFound(f"{self.host}/{repo}{sep}{reference}: no such manifest")
        if res.status_code != 200:
            raise self._fail(res, f"{repo}{sep}{reference}")
        raw = res.content[:MAX_MANIFEST + 1]
        if len(raw) > MAX_MANIFEST:
            raise SourceError(f"{self.host}/{repo}{sep}{reference}: manifest larger than {MAX_MANIFEST} bytes")
        digest = "sha256:" + hashlib.sha256(raw).hexdigest()
        claimed = reference if sep == "@" else res.headers.get("Docker-Content-Digest", digest)
        if digest != claimed:
            raise SourceError(f"{self.host}/{repo}{sep}{reference}: manifest bytes have digest {digest}, "
                              f"not {claimed} (tampered or corrupted)")
        try:
            doc = json.loads(raw)
        except ValueError:
            raise SourceError(f"{self.host}/{repo}{sep}{reference}: manifest is not JSON") from None
        media_type = doc.get("mediaType") or res.headers.get("Content-Type", "").split(";")[0]
        if media_type in INDEXES:
            for entry in doc.get("manifests") or []:
                p = entry.get("platform") or {}
                if (p.get("os"), p.get("architecture")) == platform:
                    return self.manifest(repo, entry["digest"], platform)
            raise SourceError(f"{self.host}/{repo}{sep}{reference}: index has no {'/'.join(platform)} image")
        if media_type not in MANIFESTS:
            raise SourceError(f"{self.host}/{repo}{sep}{reference}: unsupported manifest type {media_type!r}")
        return Manifest(repo, digest, media_type, doc)

    def has_manifest(self, repo: str, digest: str) -> bool:
        res = self._request("HEAD", f"/v2/{repo}/manifests/{digest}", headers={"Accept": ACCEPT})
        if res.status_code == 404:
            return False
        if res.status_code != 200:
            raise self._fail(res, f"{repo}@{digest}")
        return True

    def blob(self, repo: str, descriptor: dict, out: BinaryIO | None = None,
             sink: Callable[[bytes], None] | None = None) -> int:
        """Streams the blob into `out` (and/or `sink`), checking its size and digest; returns the size."""
        digest, size = descriptor.get("digest", ""), descriptor.get("size")
        if not DIGEST.fullmatch(digest):
            raise SourceError(f"{self.host}/{repo}: descriptor digest {digest!r} is not a sha256 digest")
        res = self._request("GET", f"/v2/{repo}/blobs/{digest}", stream=True)
        with res:
            if res.status_code == 404:
                raise NotFound(f"{self.host}/{repo}@{digest}: no such blob")
            if res.status_code != 200:
                raise self._fail(res, f"{repo}@{digest}")
            sha, got = hashlib.sha256(), 0
            try:
                for chunk in res.iter_content(CHUNK):
                    sha.update(chunk)
                    got += len(chunk)
                    if size is not None and got > size:
                        break
                    if out is not None:
                        out.write(chunk)
                    if sink is not None:
                        sink(chunk)
            except requests.RequestException as exc:
                raise SourceError(f"{self.host}/{repo}@{digest}: reading the blob failed: {_reason(exc)}") from None
        actual = "sha256:" + sha.hexdigest()
        if actual != digest or (size is not None and got != size):
            raise SourceError(f"{self.host}/{repo}: blob {digest} has digest {actual} ({got} bytes, "
                              f"{size} expected): tampered or corrupted")
        return got
