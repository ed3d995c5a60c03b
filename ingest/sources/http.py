"""The HTTP client of every request to a host the user does not control: downloads and API calls.

One client and one body reader for both (`ingest.sources.fetch`, `ingest.sources.api`), so the
bounds are the same wherever the bytes come from:

* one total deadline covering connecting, the headers, redirects and the body. A read timeout
  alone never fires on a server that sends one byte every half second (its headers included), so
  every socket operation of the connection gets at most what is left until the deadline
  (`_DeadlineBackend`), and the body is checked against it after every piece;
* the private-host rule: unless the user opted in, the connection resolves, checks and connects
  to the checked address (`ingest.sources.hosts`);
* the size cap on the bytes on the wire and on every decoded `Content-Encoding` layer, inflated in
  bounded steps (`ingest.sources.decode`), never by the client's own decoder;
* a declared `Content-Length` read by a bounded parser (`ingest.sources.values`).

The memory limit and the hard stop come on top, from the child process the request runs in
(`ingest.sources.isolation`).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any

from ingest.sources import hosts
from ingest.sources.decode import KNOWN, BoundedDecoder, DecodeError
from ingest.sources.values import BadValue, content_length

if TYPE_CHECKING:
    import httpx

#: The message of the timeout raised when the total deadline has passed (not a read timeout).
DEADLINE_PASSED = "the total time limit of the request ran out"
#: What a request says it accepts as `Content-Encoding`: only the codings `decode` bounds.
ACCEPT_ENCODING = ", ".join(c for c in KNOWN if c != "x-gzip")


def deadline_passed(exc: BaseException) -> bool:
    """Whether a timeout from a client of `open_client` is the total deadline (not one read's timeout)."""
    return DEADLINE_PASSED in str(exc)


class BodyError(Exception):
    """The body was refused (over the cap, badly encoded) or too slow (`slow`); the message has no URL."""

    def __init__(self, message: str, slow: bool = False):
        super().__init__(message)
        self.slow = slow


def _backend(deadline: float, guarded: bool) -> Any:
    """An httpcore network backend whose every connect, read and write ends by `deadline`
    (monotonic seconds); `guarded`: connect only to addresses `hosts.check_host` accepts."""
    import httpcore  # deferred (bench/import_costs.py): offline runs never fetch

    def bounded(op: Callable[[float], Any], timeout: float | None) -> Any:
        """`op(t)` with t what is left of its timeout and of the deadline; a timeout that only the
        deadline made short is the deadline's (DEADLINE_PASSED), so the caller does not retry."""
        rest = deadline - time.monotonic()
        if rest <= 0:
            raise httpcore.ReadTimeout(DEADLINE_PASSED)
        if timeout is not None and timeout <= rest:
            return op(timeout)
        try:
            return op(rest)
        except (httpcore.ReadTimeout, httpcore.WriteTimeout, httpcore.ConnectTimeout) as exc:
            raise httpcore.ReadTimeout(DEADLINE_PASSED) from exc

    class Stream(httpcore.NetworkStream):
        def __init__(self, inner: httpcore.NetworkStream):
            self.inner = inner

        def read(self, max_bytes: int, timeout: float | None = None) -> bytes:
            return bounded(lambda t: self.inner.read(max_bytes, t), timeout)

        def write(self, buffer: bytes, timeout: float | None = None) -> None:
            bounded(lambda t: self.inner.write(buffer, t), timeout)

        def close(self) -> None:
            self.inner.close()

        def start_tls(self, ssl_context: Any, server_hostname: str | None = None, timeout: float | None = None) -> Any:
            return Stream(bounded(lambda t: self.inner.start_tls(ssl_context, server_hostname, t), timeout))

        def get_extra_info(self, info: str) -> Any:
            return self.inner.get_extra_info(info)

    base = hosts.guarded_backend() if guarded else httpcore.SyncBackend()

    class Backend(httpcore.NetworkBackend):
        def connect_tcp(self, host: str, port: int, timeout: float | None = None, *args: Any, **kw: Any) -> Any:
            return Stream(bounded(lambda t: base.connect_tcp(host, port, t, *args, **kw), timeout))

        def connect_unix_socket(self, path: str, timeout: float | None = None, *args: Any, **kw: Any) -> Any:
            raise httpcore.ConnectError("unix sockets are not used")

        def sleep(self, seconds: float) -> None:
            time.sleep(min(seconds, max(0.0, deadline - time.monotonic())))

    return Backend()


def open_client(
    read_timeout: float, connect_timeout: float, deadline: float, allow_private_hosts: bool, trust_env: bool = False
) -> httpx.Client:
    """A client that follows no redirect by itself (every hop is checked by the caller), with the
    deadline and (unless `allow_private_hosts`) the address check in its connections."""
    import httpx  # deferred: see _backend

    timeout = httpx.Timeout(read_timeout, connect=connect_timeout)
    client = httpx.Client(timeout=timeout, follow_redirects=False, trust_env=trust_env)
    pool = getattr(getattr(client, "_transport", None), "_pool", None)
    if pool is None or not hasattr(pool, "_network_backend"):
        raise RuntimeError("cannot install the connection limits in this httpx version; pin httpx/httpcore")
    pool._network_backend = _backend(deadline, guarded=not allow_private_hosts)
    return client


def body_pieces(resp: httpx.Response, cap: int, deadline: float, clock: Callable[[], float] = time.monotonic) -> Iterator[bytes]:
    """The decoded body in pieces: raises BodyError past the size cap (declared, on the wire or in any
    decoded layer), for a refused or broken coding, and (with `slow`) past the deadline."""
    try:
        declared = content_length(resp.headers.get("content-length"))
    except BadValue:
        declared = None  # the cap applies to what arrives anyway
    if declared is not None and declared > cap:
        raise BodyError(f"is {declared:,} bytes, more than the size cap of {cap:,} bytes")
    try:
        decoder = BoundedDecoder(resp.headers.get("content-encoding", ""), cap)
        wire = size = 0
        for raw in resp.iter_raw():  # undecoded: each layer is inflated here, in bounded steps
            wire += len(raw)
            if wire > cap:
                raise BodyError(f"sent more than the size cap of {cap:,} bytes; download stopped")
            for chunk in decoder.feed(raw):
                size += len(chunk)
                if size > cap:
                    raise BodyError(f"sent more than the size cap of {cap:,} bytes; download stopped")
                yield chunk
            if clock() > deadline:
                raise BodyError(f"was too slow ({wire:,} bytes received); download stopped", slow=True)
        decoder.finish()
    except DecodeError as exc:
        raise BodyError(str(exc)) from exc
