"""A misbehaving-on-purpose HTTP server on 127.0.0.1 for fetch tests and eval/bad_inputs.py.

No test touches the internet: every download goes to this server (port 0, a thread).
127.0.0.1 is an internal address, so a fetch from it must opt in explicitly
(`FetchSettings(allow_private_hosts=True)`); without that the fetcher refuses it unsent
(tests/test_hosts.py proves it).
Routes:
    /files/<name>            a served file (ETag + Last-Modified; answers 304 to a matching condition)
    /status/<code>           that HTTP status with a small HTML body
    /flaky/<n>/<name>        HTTP 500 for the first n requests, then the file
    /loop/a, /loop/b         302 to each other (a redirect loop)
    /chain/<n>/<name>        n redirects, then the file
    /redirect?to=<url>       302 to any URL (e.g. file:///etc/passwd)
    /slow-headers            waits before answering (read timeout)
    /trickle                 one byte every 50 ms, forever (deadline)
    /endless                 64 KiB chunks as fast as possible, forever (size cap)
    /big                     claims a 1 GB Content-Length (refused before download)
    /empty                   200 with no body
    /short                   claims 100000 bytes, sends 10 and closes
    /encoded/<codings>/<mb>  a PDF of <mb> MiB of zeros, compressed with each of <codings> in turn
                             (e.g. /encoded/gzip,gzip/1024: 1 GiB inside, about 2 KB on the wire)
    /drip-headers            the status line and headers one byte every 50 ms, forever
"""

from __future__ import annotations

import email.utils
import functools
import gzip
import hashlib
import threading
import time
import zlib
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import SplitResult, parse_qs, urlsplit

_STARTED = email.utils.formatdate(time.time() - 3600, usegmt=True)


class LocalServer:
    """Handle on the running server: URLs, per-path hit counts, request headers seen."""

    def __init__(self, httpd: ThreadingHTTPServer, stop: threading.Event):
        self.httpd = httpd
        self.stop = stop
        self.hits: Counter[str] = Counter()
        self.seen_headers: list[dict[str, str]] = []

    @property
    def port(self) -> int:
        return self.httpd.server_address[1]

    def url(self, path: str) -> str:
        return f"http://127.0.0.1:{self.port}{path}"


_NOT_FOUND = b"<html><body><h1>Not Found</h1></body></html>"


class _Handler(BaseHTTPRequestHandler):
    """The routes of the module docstring; `_handler` binds the served files and the server's state."""

    protocol_version = "HTTP/1.0"  # bodies without Content-Length end when the connection closes
    files: dict[str, tuple[bytes, str]]
    state: LocalServer

    def log_message(self, format: str, *args: object) -> None:  # quiet test output
        pass

    def _send(self, code: int, body: bytes = b"", ctype: str = "text/html", headers: dict | None = None) -> None:
        self.send_response(code)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        for k, v in (headers or {}).items():
            self.send_header(k, v)
        self.end_headers()
        self.wfile.write(body)

    def _file(self, name: str) -> None:
        if name not in self.files:
            self._send(404, _NOT_FOUND)
            return
        body, ctype = self.files[name]
        etag = '"' + hashlib.sha256(body).hexdigest()[:16] + '"'
        if self.headers.get("If-None-Match") == etag or (
            self.headers.get("If-Modified-Since") == _STARTED and "If-None-Match" not in self.headers
        ):
            self.send_response(304)
            self.send_header("ETag", etag)
            self.end_headers()
            return
        self._send(200, body, ctype, {"ETag": etag, "Last-Modified": _STARTED})

    def _stream_forever(self, chunk: bytes, pause: float) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "application/pdf")
        self.end_headers()
        try:
            self.wfile.write(b"%PDF-1.4\n")
            while not self.state.stop.is_set():
                self.wfile.write(chunk)
                self.wfile.flush()
                if pause:
                    self.state.stop.wait(pause)
        except OSError:
            pass  # the client hung up: that is the point

    def do_GET(self) -> None:
        parts = urlsplit(self.path)
        path = parts.path
        self.state.hits[path] += 1
        self.state.seen_headers.append(dict(self.headers.items()))
        seg = path.strip("/").split("/")
        route = _EXACT.get(path)
        if route is None and len(seg) == _PREFIX.get(seg[0], (0, None))[0]:
            route = _PREFIX[seg[0]][1]
        if route is None:
            self._send(404, _NOT_FOUND)
        else:
            route(self, seg, parts)

    # ---- routes by first path segment: /<name>/... (seg: the path split at "/"; url: the whole request URL)

    def _files(self, seg: list[str], url: SplitResult) -> None:
        self._file(seg[1])

    def _status(self, seg: list[str], url: SplitResult) -> None:
        if not seg[1].isdigit():
            self._send(404, _NOT_FOUND)
            return
        code = int(seg[1])
        self._send(code, f"<html><body><h1>Error {code}</h1></body></html>".encode())

    def _flaky(self, seg: list[str], url: SplitResult) -> None:
        if self.state.hits[url.path] <= int(seg[1]):
            self._send(500, b"<html><body>try again</body></html>")
        else:
            self._file(seg[2])

    def _chain(self, seg: list[str], url: SplitResult) -> None:
        n = int(seg[1])
        loc = f"/chain/{n - 1}/{seg[2]}" if n > 0 else f"/files/{seg[2]}"
        self._send(301 if n % 2 else 307, b"", headers={"Location": loc})

    def _encoded(self, seg: list[str], url: SplitResult) -> None:
        codings = seg[1].split(",")
        body = encoded(tuple(codings), int(seg[2]))
        self._send(200, body, "application/pdf", {"Content-Encoding": ", ".join(codings)})

    # ---- routes by whole path

    def _loop_a(self, seg: list[str], url: SplitResult) -> None:
        self._send(302, b"", headers={"Location": "/loop/b"})

    def _loop_b(self, seg: list[str], url: SplitResult) -> None:
        self._send(302, b"", headers={"Location": self.state.url("/loop/a")})

    def _redirect(self, seg: list[str], url: SplitResult) -> None:
        self._send(302, b"", headers={"Location": parse_qs(url.query)["to"][0]})

    def _slow_headers(self, seg: list[str], url: SplitResult) -> None:
        self.state.stop.wait(5)
        self._send(200, b"%PDF-1.4 late\n", "application/pdf")

    def _trickle(self, seg: list[str], url: SplitResult) -> None:
        self._stream_forever(b"x", 0.05)

    def _endless(self, seg: list[str], url: SplitResult) -> None:
        self._stream_forever(b"0" * 65536, 0)

    def _big(self, seg: list[str], url: SplitResult) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "application/pdf")
        self.send_header("Content-Length", str(10**9))
        self.end_headers()
        self.wfile.write(b"%PDF-1.4\n")

    def _drip_headers(self, seg: list[str], url: SplitResult) -> None:
        try:
            for byte in b"HTTP/1.0 200 OK\r\nContent-Type: application/pdf\r\nX-Pad: " + b"a" * 100_000:
                if self.state.stop.wait(0.05):
                    break
                self.wfile.write(bytes([byte]))
                self.wfile.flush()
        except OSError:
            pass

    def _empty(self, seg: list[str], url: SplitResult) -> None:
        self._send(200, b"", "application/pdf")

    def _short(self, seg: list[str], url: SplitResult) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "text/plain")
        self.send_header("Content-Length", "100000")
        self.end_headers()
        self.wfile.write(b"# partial\n")


Route = Callable[[_Handler, list[str], SplitResult], None]
#: first path segment -> (number of segments the route takes, route)
_PREFIX: dict[str, tuple[int, Route]] = {
    "files": (2, _Handler._files),
    "status": (2, _Handler._status),
    "flaky": (3, _Handler._flaky),
    "chain": (3, _Handler._chain),
    "encoded": (3, _Handler._encoded),
}
_EXACT: dict[str, Route] = {
    "/loop/a": _Handler._loop_a,
    "/loop/b": _Handler._loop_b,
    "/redirect": _Handler._redirect,
    "/slow-headers": _Handler._slow_headers,
    "/trickle": _Handler._trickle,
    "/endless": _Handler._endless,
    "/big": _Handler._big,
    "/drip-headers": _Handler._drip_headers,
    "/empty": _Handler._empty,
    "/short": _Handler._short,
}


def _handler(files: dict[str, tuple[bytes, str]], state: LocalServer) -> type[BaseHTTPRequestHandler]:
    """A handler class serving `files` and counting into `state` (one class per server)."""
    return type("Handler", (_Handler,), {"files": files, "state": state})


@functools.cache
def encoded(codings: tuple[str, ...], mb: int) -> bytes:
    """A PDF of `mb` MiB (a header, then zeros) with each content coding applied in turn, built
    fast and without holding the inflated body: the first gzip layer is one member per MiB
    (concatenated gzip members are one valid gzip stream)."""
    if codings[0] == "deflate":
        body = zlib.compress(b"%PDF-1.4\n" + bytes(mb << 20), 9)
    else:
        body = gzip.compress(b"%PDF-1.4\n", 9) + gzip.compress(bytes(1 << 20), 9) * mb
    for c in codings[1:]:
        body = gzip.compress(body, 9) if c != "deflate" else zlib.compress(body, 9)
    return body


@contextmanager
def serve(files: dict[str, tuple[bytes, str]] | None = None) -> Iterator[LocalServer]:
    """Run the server on 127.0.0.1 (free port) in a daemon thread for the `with` block."""
    stop = threading.Event()
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), BaseHTTPRequestHandler)
    httpd.daemon_threads = True
    httpd.handle_error = lambda request, address: None  # clients hanging up mid-body is what the tests do
    state = LocalServer(httpd, stop)
    httpd.RequestHandlerClass = _handler(files or {}, state)
    thread = threading.Thread(target=httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    try:
        yield state
    finally:
        stop.set()
        httpd.shutdown()
        httpd.server_close()
