# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""A hostile HTTP/1.1 server on 127.0.0.1 for client tests: answers that drip a byte at a time (inside any read
timeout, so only a total deadline ends them) and error pages that echo the request's headers, as a broken proxy
in front of an API server may; watch answers that never end a line.

Routes match a part of the request path (query removed); a route's answer is bytes or a function of the
request head. `hung_up` is set when a client closes a dripping connection; tests wait on it, never on a sleep.
"""

from __future__ import annotations

import socket
import socketserver
import threading
from collections.abc import Callable, Iterable
from dataclasses import dataclass


@dataclass(frozen=True)
class Answer:
    data: bytes  # the whole HTTP response
    drip_from: int | None = None  # send this many bytes at once, then one byte per `drip` seconds
    then: Callable[[], Iterable[bytes]] | None = None  # after `data`, send these pieces as fast as they are read


def endless_watch(piece: bytes = b"x" * 65536, chunk_header: bytes | None = None) -> Answer:
    """A 200 chunked watch answer whose body never ends and holds no line end: `piece` after `piece`, each as
    its own chunk, or, with `chunk_header` (say b"40000000"), as one huge declared chunk."""
    head = b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n"

    def pieces() -> Iterable[bytes]:
        if chunk_header is not None:
            yield chunk_header + b"\r\n"
        framed = piece if chunk_header is not None else b"%x\r\n%s\r\n" % (len(piece), piece)
        while True:
            yield framed

    return Answer(head, then=pieces)


def json_answer(body: bytes, status: str = "200 OK") -> Answer:
    return Answer(f"HTTP/1.1 {status}\r\nContent-Type: application/json\r\nContent-Length: {len(body)}\r\n\r\n"
                  .encode() + body)


def dripping_body(size: int = 100000) -> Answer:
    head = f"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {size}\r\n\r\n".encode()
    return Answer(head + b" " * size, drip_from=len(head))


def dripping_head() -> Answer:
    return Answer(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n{}", drip_from=0)


def echo_headers(status: str = "502 Bad Gateway") -> Callable[[str], Answer]:
    """An HTML error page quoting every request header, plainly and percent-encoded."""
    def answer(head: str) -> Answer:
        from urllib.parse import quote

        lines = head.split("\r\n")[1:]
        page = ("<html><body><h1>Bad Gateway</h1><pre>" + "\n".join(lines) + "</pre><a href=\"/retry?"
                + "&".join(quote(x, safe="") for x in lines) + "\">retry</a></body></html>").encode()
        return Answer(f"HTTP/1.1 {status}\r\nContent-Type: text/html\r\nContent-Length: {len(page)}\r\n\r\n"
                      .encode() + page)
    return answer


class HostileHTTP(socketserver.ThreadingTCPServer):
    daemon_threads = True
    allow_reuse_address = True

    def __init__(self, routes: dict[str, Answer | Callable[[str], Answer]], drip: float = 0.1) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.routes, self.drip = routes, drip
        self.hung_up = threading.Event()
        self.sent = 0  # bytes of `then` pieces sent
        self.requests: list[str] = []
        self.connections = 0
        self.stopping = threading.Event()
        threading.Thread(target=self.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}"

    def answer(self, path: str, head: str) -> Answer:
        for key, answer in self.routes.items():
            if key in path:
                return answer(head) if callable(answer) else answer
        return json_answer(b'{"kind":"Status","code":404,"reason":"NotFound","message":"no route"}',
                           "404 Not Found")

    def stop(self) -> None:
        self.stopping.set()
        self.shutdown()
        self.server_close()


class _Handler(socketserver.BaseRequestHandler):
    def handle(self) -> None:
        server: HostileHTTP = self.server  # type: ignore[assignment]
        server.connections += 1
        conn: socket.socket = self.request
        buffer = b""
        while True:
            while b"\r\n\r\n" not in buffer:
                chunk = conn.recv(65536)
                if not chunk:
                    return
                buffer += chunk
            head, buffer = buffer.split(b"\r\n\r\n", 1)
            text = head.decode("latin-1")
            length = next((int(line.split(":", 1)[1]) for line in text.split("\r\n")
                           if line.lower().startswith("content-length:")), 0)
            while len(buffer) < length:
                buffer += conn.recv(65536)
            buffer = buffer[length:]
            path = text.split(" ")[1].split("?")[0]
            server.requests.append(path)
            answer = server.answer(path, text)
            if answer.then is not None:
                conn.sendall(answer.data)
                for piece in answer.then():
                    if server.stopping.is_set():
                        return
                    try:
                        conn.sendall(piece)
                    except OSError:
                        server.hung_up.set()
                        return
                    server.sent += len(piece)
                return
            if answer.drip_from is None:
                conn.sendall(answer.data)
                continue
            conn.sendall(answer.data[: answer.drip_from])
            for byte in answer.data[answer.drip_from:]:
                if server.stopping.wait(server.drip):
                    return
                try:
                    conn.sendall(bytes([byte]))
                except OSError:
                    server.hung_up.set()
                    return
            return
