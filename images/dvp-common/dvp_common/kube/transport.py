# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""One HTTP exchange with the API server: auth, TLS, fault injection, metrics, error mapping. No retries here."""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import socket
import tempfile
import time
import weakref
from collections.abc import Callable, Iterator
from typing import Any

import requests

from .config import Credentials
from .deadline import DeadlineAdapter, Exchange, bounded
from .errors import ApiError, Transient, error_for
from .faults import Fault, FaultHook, RequestInfo
from .metrics import RequestMetrics
from .retry import parse_retry_after

DEFAULT_TIMEOUT = (5.0, 30.0)  # connect, read: each socket operation
DEFAULT_DEADLINE = 60.0  # seconds for a whole answer, however slowly it arrives (a watch: until it opens)
# One watch event is one object on one line: etcd keeps objects up to 1.5 MiB by default, so a line past this
# is no event, and buffering it further would grow memory for as long as the server keeps sending.
MAX_EVENT_LINE = 8 << 20
# A watch stream is read in pieces of at most this size: a chunked stream (every API server's) still yields each
# chunk as it arrives, and one huge declared chunk or compressed run is never read whole.
READ_PIECE = 64 << 10


def _private_files(contents: dict[str, bytes]) -> tuple[str, dict[str, str]]:
    """requests wants TLS material as files: write them 0600 into a 0700 directory removed at exit."""
    directory = tempfile.mkdtemp(prefix="dvp-common-tls-")
    paths = {}
    for name, data in contents.items():
        path = os.path.join(directory, name)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
        paths[name] = path
    return directory, paths


class Reply:
    __slots__ = ("status", "body", "headers")

    def __init__(self, status: int, body: dict[str, Any], headers: dict[str, str]) -> None:
        self.status, self.body, self.headers = status, body, headers


class Transport:
    def __init__(
        self,
        credentials: Credentials,
        *,
        faults: FaultHook | None = None,
        metrics: RequestMetrics | None = None,
        timeout: tuple[float, float] = DEFAULT_TIMEOUT,
        deadline: float = DEFAULT_DEADLINE,
        clock: Callable[[], float] = time.monotonic,
        user_agent: str = "dvp-common/0.1",
        pool_size: int = 64,
    ) -> None:
        self.credentials = credentials
        self.faults = faults
        self.metrics = metrics if metrics is not None else RequestMetrics()
        self.timeout = timeout
        self.deadline = deadline
        self.clock = clock
        self.session = requests.Session()
        self.session.headers["User-Agent"] = user_agent
        # Controllers run many workers and hold one connection per informer's watch: keep a larger pool than
        # requests' 10, and no urllib3-level retries (ours decide what is safe to repeat).
        adapter = DeadlineAdapter(pool_connections=4, pool_maxsize=pool_size, max_retries=0)
        self.session.mount("https://", adapter)
        self.session.mount("http://", adapter)
        # No netrc or CA-bundle variables from the environment (netrc would replace our Authorization
        # header), but the usual proxy variables, NO_PROXY included, as client-go honours them.
        self.session.trust_env = False
        proxies = requests.utils.get_environ_proxies(credentials.host)
        self.session.proxies = {k: v for k, v in proxies.items() if k in ("http", "https", "all")}
        files = {k: v for k, v in (("ca.crt", credentials.ca_data), ("tls.crt", credentials.client_cert_data),
                                   ("tls.key", credentials.client_key_data)) if v}
        paths: dict[str, str] = {}
        if files:
            directory, paths = _private_files(files)
            self._cleanup = weakref.finalize(self, shutil.rmtree, directory, True)
        self.session.verify = False if credentials.insecure else paths.get("ca.crt", True)
        if "tls.crt" in paths:
            self.session.cert = (paths["tls.crt"], paths["tls.key"])

    def close(self) -> None:
        self.session.close()
        if hasattr(self, "_cleanup"):
            self._cleanup()

    def _headers(self, content_type: str | None) -> dict[str, str]:
        headers = {"Accept": "application/json"}
        token = self.credentials.bearer_token()
        if token:
            headers["Authorization"] = f"Bearer {token}"
        if content_type:
            headers["Content-Type"] = content_type
        return headers

    def _error(self, info: RequestInfo, status: int, body: Any, retry_after: float | None = None) -> ApiError:
        return error_for(status, body, kind=info.kind, name=info.name, namespace=info.namespace, verb=info.verb,
                         retry_after=retry_after)

    def _transient(self, info: RequestInfo, message: str, reason: str = "ConnectionError",
                   status: int | None = None) -> Transient:
        return Transient(message, status=status, reason=reason, kind=info.kind, name=info.name,
                         namespace=info.namespace, verb=info.verb)

    def _broken(self, info: RequestInfo, exchange: Exchange, exc: requests.RequestException) -> Transient:
        if exchange.expired:
            return self._transient(info, f"no complete answer within {exchange.seconds:.3g}s", "DeadlineExceeded")
        return self._transient(info, f"{type(exc).__name__} ({exc})")

    def _limit(self, info: RequestInfo, deadline: float | None) -> float:
        seconds = self.deadline if deadline is None else deadline
        if seconds <= 0:
            raise self._transient(info, "no time left for a request", "DeadlineExceeded")
        return seconds

    def _send(self, info: RequestInfo, method: str, params: dict[str, Any] | None, body: Any,
              content_type: str | None, exchange: Exchange,
              read_timeout: float | None) -> tuple[requests.Response, Fault | None]:
        """Send and read the headers; an error answer is read and raised. `read_timeout` (watches) bounds
        each read of a long answer; otherwise each read is also bounded by the exchange's deadline."""
        fault = self.faults(info) if self.faults else None
        started = self.clock()
        if fault and not fault.after and (fault.status or fault.connection_error):
            self.metrics.observe(info.verb, info.resource, fault.status or 0, self.clock() - started)
            if fault.connection_error:
                raise self._transient(info, f"connection error ({fault.message})")
            raise self._error(info, fault.status or 500, {"reason": fault.reason, "message": fault.message},
                              fault.retry_after)
        data = None if body is None else json.dumps(body).encode()
        connect = min(self.timeout[0], exchange.seconds)
        try:
            resp = self.session.request(
                method, self.credentials.host + info.path, params=params, data=data,
                headers=self._headers(content_type), stream=True,
                timeout=(connect, read_timeout or min(self.timeout[1], exchange.seconds)),
            )
        except requests.RequestException as exc:
            self.metrics.observe(info.verb, info.resource, 0, self.clock() - started)
            raise self._broken(info, exchange, exc) from None
        code = resp.status_code
        if fault and fault.after and (fault.status or fault.connection_error):
            resp.close()
            code = fault.status or 0
        self.metrics.observe(info.verb, info.resource, code, self.clock() - started)
        if fault and fault.after and fault.connection_error:
            raise self._transient(info, f"connection lost after sending ({fault.message})")
        if fault and fault.after and fault.status:
            raise self._error(info, fault.status, {"reason": fault.reason, "message": fault.message},
                              fault.retry_after)
        if code >= 400:
            try:
                payload = self._content(info, exchange, resp)
            finally:
                resp.close()
            raise self._error(info, code, payload, parse_retry_after(resp.headers.get("Retry-After")))
        return resp, fault

    def _content(self, info: RequestInfo, exchange: Exchange, resp: requests.Response) -> bytes:
        try:
            return resp.content  # read to the end: the connection goes back to the pool
        except requests.RequestException as exc:
            resp.close()
            raise self._broken(info, exchange, exc) from None

    def request(self, info: RequestInfo, method: str, params: dict[str, Any] | None = None, body: Any = None,
                content_type: str | None = None, deadline: float | None = None) -> Reply:
        """One exchange, cut after `deadline` seconds (None: the transport's) however slowly it arrives."""
        with bounded(self._limit(info, deadline)) as exchange:
            resp, _ = self._send(info, method, params, body, content_type, exchange, None)
            content = self._content(info, exchange, resp)
        try:
            payload = resp.json() if content else {}
        except (ValueError, RecursionError):  # nesting deeper than the parser's stack is no answer either
            raise self._transient(info, "answer is not JSON", "", resp.status_code) from None
        if not isinstance(payload, dict):
            raise self._transient(info, "answer is not a JSON object", "", resp.status_code)
        return Reply(resp.status_code, payload, dict(resp.headers))

    def stream(self, info: RequestInfo, params: dict[str, Any], read_timeout: float,
               deadline: float | None = None) -> EventStream:
        """Open a watch (the opening is cut after `deadline`; the events then arrive for as long as the watch
        lasts, each read bounded by `read_timeout`); iterate the result for its raw event dicts. A broken
        stream raises Transient."""
        with bounded(self._limit(info, deadline)) as exchange:
            resp, fault = self._send(info, "GET", params, None, None, exchange, read_timeout)
        return EventStream(self, info, resp, fault.drop_watch_after if fault else None)

    def _events(self, info: RequestInfo, resp: requests.Response, drop_after: int | None,
                stream: EventStream) -> Iterator[dict[str, Any]]:
        sent = 0
        buffer = bytearray()
        try:
            if drop_after == 0:
                raise Transient("watch dropped (injected)", reason="WatchDropped", kind=info.kind, verb="watch")
            for chunk in resp.iter_content(chunk_size=READ_PIECE):
                scanned = len(buffer)  # a long line is searched for its end once, not at every piece
                buffer += chunk
                while (end := buffer.find(b"\n", scanned)) >= 0:
                    line = bytes(buffer[:end])
                    del buffer[:end + 1]
                    scanned = 0
                    if not line.strip():
                        continue
                    try:
                        event = json.loads(line)
                    except (ValueError, RecursionError):
                        event = None
                    if not isinstance(event, dict):
                        raise Transient("watch sent a malformed event", reason="WatchDecode", kind=info.kind,
                                        verb="watch") from None
                    yield event
                    sent += 1
                    if drop_after is not None and sent >= drop_after:
                        raise Transient("watch dropped (injected)", reason="WatchDropped", kind=info.kind,
                                        verb="watch")
                if len(buffer) > MAX_EVENT_LINE:
                    raise Transient(f"watch sent an event line longer than {MAX_EVENT_LINE} bytes",
                                    reason="WatchDecode", kind=info.kind, verb="watch")
        except requests.RequestException as exc:
            if stream.closed:
                return  # closed on purpose (by another thread)
            raise Transient(f"watch stream broke: {type(exc).__name__}", reason="WatchDropped", kind=info.kind,
                            verb="watch") from None
        finally:
            resp.close()


class EventStream:
    """The raw events of one open watch. `close()` may be called from any thread: it shuts the socket down,
    which wakes a reader blocked on it, and the iteration then simply ends."""

    def __init__(self, transport: Transport, info: RequestInfo, resp: requests.Response,
                 drop_after: int | None) -> None:
        self._resp = resp
        self.closed = False
        self._events = transport._events(info, resp, drop_after, self)

    def __iter__(self) -> EventStream:
        return self

    def __next__(self) -> dict[str, Any]:
        if self.closed:
            raise StopIteration
        return next(self._events)

    def close(self) -> None:
        self.closed = True
        raw = getattr(self._resp, "raw", None)
        conn = getattr(raw, "_connection", None) or getattr(raw, "connection", None)
        sock = getattr(conn, "sock", None)
        if sock is not None:
            with contextlib.suppress(OSError):
                sock.shutdown(socket.SHUT_RDWR)
