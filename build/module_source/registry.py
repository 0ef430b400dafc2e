# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""A registry client on the HTTP API v2 (distribution spec): tags, manifests by tag or digest (OCI and Docker
media types, an index resolved to linux/amd64), blobs. Every manifest and blob read is hashed and compared with the
digest it was asked by, so nothing the registry changed goes unnoticed. Anonymous bearer tokens are fetched when
the registry asks for them (WWW-Authenticate).

The registry is hostile until checked: every body is read against a cap while it streams (limits.py), every
request ends within its deadline (deadline.py) however slowly the bytes come, a reply of 5xx or 429 is retried a
bounded number of times with backoff (Retry-After honoured up to a cap), every JSON document is shape-checked
(shapes.py) before a field is used, and a tag list's `Link` is followed only on this registry, never in a loop."""

from __future__ import annotations

import hashlib
import random
import re
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import BinaryIO
from urllib.parse import urlsplit

import requests
import urllib3

from . import SourceError, deadline, limits, shapes
from .shapes import DIGEST

OCI_MANIFEST = "application/vnd.oci.image.manifest.v1+json"
OCI_INDEX = "application/vnd.oci.image.index.v1+json"
DOCKER_MANIFEST = "application/vnd.docker.distribution.manifest.v2+json"
DOCKER_LIST = "application/vnd.docker.distribution.manifest.list.v2+json"
MANIFESTS = (OCI_MANIFEST, DOCKER_MANIFEST)
INDEXES = (OCI_INDEX, DOCKER_LIST)
ACCEPT = ", ".join((*MANIFESTS, *INDEXES))
LOOPBACK = ("127.0.0.1", "localhost", "[::1]")
CHUNK = 1 << 16
RETRIED = frozenset({429, 500, 502, 503, 504})
MAX_REDIRECTS = 5

__all__ = ["DIGEST", "Manifest", "NotFound", "Registry", "split_repo"]


class NotFound(SourceError):
    pass


@dataclass(frozen=True)
class Manifest:
    repo: str
    digest: str
    media_type: str
    doc: dict  # shape-checked: `config` a descriptor, `layers` a list of descriptors

    @property
    def layers(self) -> list[dict]:
        return self.doc.get("layers") or []

    @property
    def config(self) -> dict:
        return self.doc["config"]


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
    if isinstance(exc, requests.TooManyRedirects):
        return f"more than {MAX_REDIRECTS} redirects"
    return type(exc).__name__


def chunks(res: requests.Response, what: str) -> Iterator[bytes]:
    """The body as sent (never decoded: a Content-Encoding cannot expand it past a cap), the deadline checked
    between chunks."""
    try:
        for chunk in res.raw.stream(CHUNK, decode_content=False):
            yield chunk
            deadline.check()
    except (requests.RequestException, urllib3.exceptions.HTTPError, OSError) as exc:
        raise SourceError(f"{what}: reading the reply failed: {type(exc).__name__}") from None


def read_capped(res: requests.Response, cap: int, what: str) -> bytes:
    """The whole body, refused as soon as it is known to exceed `cap` (its Content-Length, or the bytes so far)."""
    stated = res.headers.get("Content-Length", "")
    if stated.isdigit() and int(stated) > cap:
        raise SourceError(f"{what}: {stated} bytes, more than {cap}")
    out, got = [], 0
    for chunk in chunks(res, what):
        got += len(chunk)
        if got > cap:
            raise SourceError(f"{what}: more than {cap} bytes")
        out.append(chunk)
    return b"".join(out)


class Registry:
    def __init__(self, host: str, scheme: str | None = None, timeout: float | None = None,
                 retries: int | None = None, backoff: float | None = None) -> None:
        self.host = host
        self.scheme = scheme or ("http" if host.rsplit(":", 1)[0] in LOOPBACK else "https")
        self.timeout = timeout or limits.REQUEST_SECONDS
        self.retries = retries or limits.RETRIES
        self.backoff = limits.BACKOFF_SECONDS if backoff is None else backoff
        self.session = requests.Session()
        self.session.max_redirects = MAX_REDIRECTS
        self.session.headers["User-Agent"] = "cloud-provider-dvp-module-source"
        self.session.headers["Accept-Encoding"] = "identity"

    def close(self) -> None:
        self.session.close()

    # --- one exchange: deadline, retries, token ------------------------------------------------------------

    @contextmanager
    def _exchange(self, method: str, path: str, *, headers: dict | None = None,
                  seconds: float | None = None) -> Iterator[requests.Response]:
        """The response to `method path` (its body streamed by the block), the whole of it within one deadline."""
        seconds = seconds or self.timeout
        with deadline.within(seconds, f"registry {self.host}: {method} {path}: no complete answer within "
                                      f"{seconds:g} s"):
            res = self._attempts(method, path, headers, seconds)
            with res:
                yield res

    def _attempts(self, method: str, path: str, headers: dict | None, seconds: float) -> requests.Response:
        authorized = False
        for attempt in range(1, self.retries + 1):
            res = self._send(method, f"{self.scheme}://{self.host}{path}", headers, seconds)
            if res.status_code == 401 and not authorized:
                authorized = True
                if self._authorize(res):
                    res.close()
                    res = self._send(method, f"{self.scheme}://{self.host}{path}", headers, seconds)
            if res.status_code not in RETRIED or attempt == self.retries:
                return res
            wait = self._wait(res, attempt)
            res.close()
            time.sleep(wait)
        raise AssertionError("unreachable")  # the last attempt returns

    def _wait(self, res: requests.Response, attempt: int) -> float:
        """Backoff before attempt `attempt + 1`: doubled each time with jitter; a Retry-After in seconds wins,
        up to its cap."""
        after = res.headers.get("Retry-After", "").strip()
        if after.isdigit():
            return min(float(after), limits.RETRY_AFTER_SECONDS)
        base = self.backoff * (2 ** (attempt - 1))
        return min(base * random.uniform(0.5, 1.0), limits.RETRY_AFTER_SECONDS)  # noqa: S311 - jitter only

    def _send(self, method: str, url: str, headers: dict | None, seconds: float) -> requests.Response:
        left = deadline.remaining(seconds)
        try:
            return self.session.request(method, url, headers=headers, stream=True, timeout=(left, left))
        except requests.RequestException as exc:
            path = urlsplit(url).path
            raise SourceError(f"registry {self.host} is unreachable: {method} {path}: {_reason(exc)}") from None

    def _authorize(self, res: requests.Response) -> bool:
        """An anonymous token for `Bearer realm=...,service=...,scope=...` (what a public registry asks for)."""
        challenge = res.headers.get("WWW-Authenticate", "")
        if not challenge.lower().startswith("bearer "):
            return False
        params = dict(re.findall(r'(\w+)="([^"]*)"', challenge))
        realm = params.pop("realm", "")
        if urlsplit(realm).scheme not in ("http", "https") or not urlsplit(realm).netloc:
            raise SourceError(f"registry {self.host}: token realm {shapes.describe(realm)} is not an http(s) URL")
        left = deadline.remaining(self.timeout)
        try:
            token = self.session.get(realm, params=params, timeout=(left, left), stream=True)
        except requests.RequestException as exc:
            raise SourceError(f"registry {self.host}: token service unreachable: {_reason(exc)}") from None
        with token:
            if token.status_code != 200:
                return False
            where = f"registry {self.host}: token service {urlsplit(realm).netloc}"
            body = shapes.top(shapes.load(read_capped(token, limits.TOKEN_BYTES, where), where, "the reply"),
                              where, "the reply")
        value = body.get("token") or body.get("access_token")
        if not isinstance(value, str) or not value.isprintable() or not value:
            raise SourceError(f"{where}: the reply holds no token string")
        self.session.headers["Authorization"] = f"Bearer {value}"
        return True

    def _fail(self, res: requests.Response, what: str) -> SourceError:
        """`<what>: HTTP <status> [<code>]`, the code read from a distribution-spec error body if it is one."""
        detail = ""
        try:
            body = shapes.load(read_capped(res, limits.ERROR_BODY_BYTES, what), what, "error body")
            errors = body.get("errors") if isinstance(body, dict) else None
            first = errors[0] if isinstance(errors, list) and errors else None
            code = first.get("code") if isinstance(first, dict) else None
            if isinstance(code, str) and re.fullmatch(r"[A-Z_]{1,64}", code):
                detail = " " + code
        except SourceError:
            pass
        return SourceError(f"{self.host}/{what}: HTTP {res.status_code}{detail}")

    # --- the API ---------------------------------------------------------------------------------------------

    def ping(self) -> None:
        with self._exchange("GET", "/v2/") as res:
            if res.status_code not in (200, 401):
                raise self._fail(res, "v2")

    def tags(self, repo: str) -> list[str]:
        """Every tag of `repo` (the list paginated by Link headers followed); a repository unknown is NotFound."""
        out: list[str] = []
        path = f"/v2/{repo}/tags/list?n=1000"
        seen: set[str] = set()
        where = f"{self.host}/{repo}: tag list"
        while path:
            if len(seen) == limits.TAG_PAGES:
                raise SourceError(f"{where}: more than {limits.TAG_PAGES} pages")
            seen.add(path)
            with self._exchange("GET", path) as res:
                if res.status_code == 404:
                    raise NotFound(f"{self.host}/{repo}: no such repository")
                if res.status_code != 200:
                    raise self._fail(res, repo)
                doc = shapes.top(shapes.load(read_capped(res, limits.MANIFEST_BYTES, where), where, "the page"),
                                 where, "the page")
                link = res.headers.get("Link", "")
            for tag in shapes.items(doc, "tags", where, "page", limits.TAGS):
                out.append(shapes.check(tag, "a string", where, "page.tags[]"))
            if len(out) > limits.TAGS:
                raise SourceError(f"{where}: more than {limits.TAGS} tags")
            path = self._next_page(link, where)
            if path in seen:
                raise SourceError(f"{where}: Link rel=next leads back to {path}")
        return sorted(out)

    def _next_page(self, link: str, where: str) -> str:
        found = re.match(r"\s*<([^>]*)>\s*;\s*rel=\"?next\"?", link)
        if not found:
            return ""
        url = urlsplit(found.group(1))
        if url.netloc and url.netloc != self.host or not url.path.startswith("/v2/"):
            raise SourceError(f"{where}: Link rel=next {shapes.describe(found.group(1))} is not a page of this "
                              f"registry")
        return url.path + (f"?{url.query}" if url.query else "")

    def manifest(self, repo: str, reference: str, platform: tuple[str, str] = ("linux", "amd64"),
                 depth: int = 0) -> Manifest:
        """The image manifest `repo:reference` (a tag or a digest); an index is resolved to `platform`."""
        sep = "@" if DIGEST.fullmatch(reference) else ":"
        where = f"{self.host}/{repo}{sep}{reference}"
        with self._exchange("GET", f"/v2/{repo}/manifests/{reference}", headers={"Accept": ACCEPT}) as res:
            if res.status_code == 404:
                raise NotFound(f"{where}: no such manifest")
            if res.status_code != 200:
                raise self._fail(res, f"{repo}{sep}{reference}")
            raw = read_capped(res, limits.MANIFEST_BYTES, f"{where}: manifest")
            content_type = res.headers.get("Content-Type", "").split(";")[0].strip()
            stated = res.headers.get("Docker-Content-Digest", "")
        digest = "sha256:" + hashlib.sha256(raw).hexdigest()
        claimed = reference if sep == "@" else stated or digest
        if digest != claimed:
            raise SourceError(f"{where}: manifest bytes have digest {digest}, not {shapes.describe(claimed)} "
                              f"(tampered or corrupted)")
        doc = shapes.top(shapes.load(raw, where, "manifest"), where, "manifest")
        media_type = shapes.get(doc, "mediaType", "a string", where, "manifest", "") or content_type
        if media_type in INDEXES:
            return self._resolve(repo, doc, where, platform, depth)
        if media_type not in MANIFESTS:
            raise SourceError(f"{where}: unsupported manifest type {shapes.describe(media_type)}")
        shapes.descriptor(doc.get("config"), where, "manifest.config", limits.JSON_BLOB_BYTES)
        for i, layer in enumerate(shapes.items(doc, "layers", where, "manifest", limits.LAYERS)):
            shapes.descriptor(layer, where, f"manifest.layers[{i}]", limits.BLOB_BYTES)
        return Manifest(repo, digest, media_type, doc)

    def _resolve(self, repo: str, doc: dict, where: str, platform: tuple[str, str], depth: int) -> Manifest:
        if depth >= limits.INDEX_DEPTH:
            raise SourceError(f"{where}: indexes nested deeper than {limits.INDEX_DEPTH}")
        for i, entry in enumerate(shapes.items(doc, "manifests", where, "index", limits.INDEX_ENTRIES)):
            name = f"index.manifests[{i}]"
            shapes.descriptor(entry, where, name, limits.MANIFEST_BYTES)
            p = shapes.get(entry, "platform", "an object", where, name, {})
            if (p.get("os"), p.get("architecture")) == platform:
                return self.manifest(repo, entry["digest"], platform, depth + 1)
        raise SourceError(f"{where}: index has no {'/'.join(platform)} image")

    def has_manifest(self, repo: str, digest: str) -> bool:
        with self._exchange("HEAD", f"/v2/{repo}/manifests/{digest}", headers={"Accept": ACCEPT}) as res:
            if res.status_code == 404:
                return False
            if res.status_code != 200:
                raise self._fail(res, f"{repo}@{digest}")
            return True

    def blob(self, repo: str, descriptor: dict, out: BinaryIO | None = None,
             sink: Callable[[bytes], None] | None = None, max_size: int | None = None) -> int:
        """Streams the blob into `out` (and/or `sink`), checking its size and digest; returns the size."""
        desc = shapes.descriptor(descriptor, f"{self.host}/{repo}", "descriptor", max_size or limits.BLOB_BYTES)
        digest, size = desc["digest"], desc["size"]
        where = f"{self.host}/{repo}@{digest}"
        seconds = self.timeout + size / limits.BLOB_BYTES_PER_SECOND
        with self._exchange("GET", f"/v2/{repo}/blobs/{digest}", seconds=seconds) as res:
            if res.status_code == 404:
                raise NotFound(f"{where}: no such blob")
            if res.status_code != 200:
                raise self._fail(res, f"{repo}@{digest}")
            stated = res.headers.get("Content-Length", "")
            if stated.isdigit() and int(stated) != size:
                raise SourceError(f"{self.host}/{repo}: blob {digest} is sent as {stated} bytes, the descriptor "
                                  f"says {size}: tampered or corrupted")
            sha, got = hashlib.sha256(), 0
            for chunk in chunks(res, f"{where}: the blob"):
                got += len(chunk)
                if got > size:
                    break
                sha.update(chunk)
                if out is not None:
                    out.write(chunk)
                if sink is not None:
                    sink(chunk)
        actual = "sha256:" + sha.hexdigest()
        if got > size:
            raise SourceError(f"{self.host}/{repo}: blob {digest} is longer than the {size} bytes its descriptor "
                              f"says: tampered or corrupted")
        if actual != digest or got != size:
            raise SourceError(f"{self.host}/{repo}: blob {digest} has digest {actual} ({got} bytes, "
                              f"{size} expected): tampered or corrupted")
        return got
