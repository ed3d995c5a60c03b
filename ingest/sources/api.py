"""A polite, bounded HTTP client for the public APIs `discover` asks (arXiv, GitHub, lab feeds).

Why not `fetch.fetch_url`: an API answer is not a document to cache by hash, and API calls need
what a download does not — a pause between requests to one host, `Retry-After` and GitHub's
rate-limit headers obeyed, a token sent to the GitHub API only, and a budget of requests per run.
The bounds are the download's: every request goes through the same client and body reader
(`ingest.sources.http`: http(s) only, every hop's host checked against internal addresses before
the request and again by the connection unless the user opted in, a redirect cap, one total
deadline per request that covers connecting, headers and body, the size cap on the wire and on
every decoded layer), in the child process the caller's runner gives it (`isolate`, with the
memory limit). Header values (`Retry-After`, `X-RateLimit-Reset`) are read by the bounded readers
of `ingest.sources.values`: an unreadable one counts as absent, never as an error of the run.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from urllib.parse import urljoin, urlsplit

import httpx

from ingest.sources import hosts
from ingest.sources.http import ACCEPT_ENCODING, BodyError, body_pieces, deadline_passed, open_client
from ingest.sources.isolation import Isolate, PeakMemory, in_process
from ingest.sources.urls import display_url
from ingest.sources.values import BadValue, epoch_seconds
from ingest.sources.values import retry_after as _retry_after
from ingest.sources.watch import Api

MAX_REDIRECTS = 5
#: Seconds past a request's deadline before its process is killed (its own deadline speaks first).
KILL_GRACE = 1.0
#: Peak memory of the request processes started by this process (eval/bad_inputs.py prints it).
PEAKS = PeakMemory()


class ApiError(Exception):
    """A request failed; `network` is True when the host could not be reached at all."""

    def __init__(self, message: str, network: bool = False):
        super().__init__(message)
        self.network = network


@dataclass(frozen=True)
class Answer:
    """A 200 answer: its final URL, headers (lower-case names) and body."""

    url: str
    headers: dict[str, str]
    body: bytes


def retry_after(value: str | None, now: float) -> float | None:
    """Seconds to wait from a Retry-After header (seconds or an HTTP date); None when absent or unreadable."""
    try:
        return _retry_after(value, now)
    except BadValue:
        return None


def _reset(value: str | None) -> float | None:
    """The Unix time an `X-RateLimit-Reset` header names; None when absent or unreadable."""
    try:
        return epoch_seconds(value, "X-RateLimit-Reset")
    except BadValue:
        return None


def _origin(url: str) -> str:
    """`host[:port]` of a URL, in lower case ("" for a URL without one)."""
    parts = urlsplit(url)
    try:
        port = parts.port
    except ValueError:  # a port out of range: the request itself will say so
        port = None
    return (parts.hostname or "").lower() + (f":{port}" if port else "")


@dataclass
class ApiClient:
    """GET with pacing, limits and the private-host rule; `sleep`/`clock`/`wall` are injectable for tests,
    `isolate` runs each request (see `ingest.sources.isolation`) under `memory_mb`."""

    api: Api
    allow_private_hosts: bool = False
    tokens: dict[str, str] = field(default_factory=dict)  # URL prefix (the GitHub API base) -> bearer token
    user_agent: str = "frontier-report-lens/0.1 (discover; technical-report watch)"
    sleep: Callable[[float], None] = time.sleep
    clock: Callable[[], float] = time.monotonic
    wall: Callable[[], float] = time.time
    isolate: Isolate = in_process
    memory_mb: int = 1024
    requests: int = 0
    _last: dict[str, float] = field(default_factory=dict)
    _blocked: dict[str, float] = field(default_factory=dict)  # host -> wall time its rate limit resets
    _down: dict[str, str] = field(default_factory=dict)  # host -> why it could not be reached (not asked again)

    def close(self) -> None:
        """Nothing stays open between requests (each has its own connection, in its own process)."""

    def _pace(self, host: str, interval: float) -> None:
        wait = self._last.get(host, -1e9) + interval - self.clock()
        if wait > 0:
            self.sleep(wait)
        self._last[host] = self.clock()

    def _wait_or_fail(self, host: str, seconds: float, why: str) -> None:
        if seconds > self.api.max_wait:
            limit = self.api.max_wait
            raise ApiError(f"{host} {why}: asks to wait {seconds:.0f} s, more than the {limit:.0f} s allowed; skipped")
        self.sleep(seconds)

    def get(self, url: str, params: dict[str, str] | None = None, accept: str = "*/*", interval: float | None = None) -> Answer:
        """The body of a 200 answer; ApiError (one line) otherwise. Retries once after 429/503/5xx."""
        if params:
            url = str(httpx.URL(url, params=params))
        host = _origin(url)  # paced and rate-limited per origin
        if host in self._down:
            raise ApiError(self._down[host], network=True)
        if host in self._blocked and self._blocked[host] > self.wall():
            raise ApiError(f"{host}: rate limit reached earlier in this run; skipped until it resets")
        for attempt in range(3):
            if self.requests >= self.api.max_requests:
                raise ApiError(f"request budget of {self.api.max_requests} for this run used up; skipped {display_url(url)}")
            self.requests += 1
            self._pace(host, self.api.min_interval if interval is None else interval)
            try:
                status, headers, body, final = self._once(url, accept)
            except ApiError as exc:
                if exc.network:  # unreachable: the run does not knock on this host again
                    self._down[host] = str(exc)
                raise
            if status == 200:
                if headers.get("x-ratelimit-remaining") == "0":
                    reset = _reset(headers.get("x-ratelimit-reset"))
                    self._blocked[host] = reset if reset is not None else self.wall() + 3600
                return Answer(final, headers, body)
            limited = headers.get("x-ratelimit-remaining") == "0" and status in (403, 429)
            wait = retry_after(headers.get("retry-after"), self.wall())
            if limited and wait is None:
                reset = _reset(headers.get("x-ratelimit-reset"))
                wait = max(0.0, reset - self.wall()) if reset is not None else None
                if wait is None or wait > self.api.max_wait:
                    self._blocked[host] = reset if reset is not None else self.wall() + 3600
                    hint = (
                        "" if any(url.startswith(p) for p in self.tokens) else "; set a token (data/watch.yaml github.token_env)"
                    )
                    raise ApiError(f"{host}: API rate limit reached (HTTP {status}){hint}")
            if attempt < 2 and (status in (429, 503) or limited or (status >= 500 and wait is None)):
                self._wait_or_fail(host, wait if wait is not None else 2.0 * (attempt + 1), f"answered HTTP {status}")
                continue
            raise ApiError(f"HTTP {status} from {display_url(final)}")
        raise ApiError(f"{host}: gave up after 3 attempts")

    def _once(self, url: str, accept: str) -> tuple[int, dict[str, str], bytes, str]:
        """One request (redirects included) through `isolate`: under the memory limit, killed a little
        after its deadline."""
        token = next((t for prefix, t in self.tokens.items() if url.startswith(prefix + "/")), None)
        job = _Request(url, accept, token, self.user_agent, self.allow_private_hosts, self.api.timeout, self.api.max_bytes)
        result = self.isolate(_request_job, job, self.api.timeout + KILL_GRACE, self.memory_mb)
        PEAKS.note(result.peak_mb)
        shown = display_url(url)
        if not result.ok:
            if result.kind == "timeout":
                raise ApiError(f"{shown} was too slow (more than {self.api.timeout:g} s); stopped")
            if result.kind == "memory":
                raise ApiError(f"the answer of {shown} needed more than {self.memory_mb} MB of memory; stopped")
            raise ApiError(f"request to {shown} failed ({result.message})")
        kind, value = result.value
        if kind == "error":
            message, network = value
            raise ApiError(message, network=network)
        return value


@dataclass(frozen=True)
class _Request:
    """What the request's process needs (picklable)."""

    url: str
    accept: str
    token: str | None  # sent to the first host only, never on to a host a redirect names
    user_agent: str
    allow_private_hosts: bool
    timeout: float
    max_bytes: int


def _request_job(job: _Request, _progress: object = None) -> tuple[str, object]:
    """Run in the request's process: ("ok", (status, headers, body, final URL)) or ("error", (message, network))."""
    try:
        return "ok", _request(job)
    except ApiError as exc:
        return "error", (str(exc), exc.network)


def _request(job: _Request) -> tuple[int, dict[str, str], bytes, str]:
    """One GET with redirects followed by hand (each hop checked), all within one deadline."""
    deadline = time.monotonic() + job.timeout
    first_host = urlsplit(job.url).hostname
    chain = [job.url]
    current = job.url
    with open_client(job.timeout, min(10.0, job.timeout), deadline, job.allow_private_hosts) as client:
        while True:
            parts = urlsplit(current)
            shown = display_url(current)
            if parts.scheme not in ("http", "https"):
                raise ApiError(f"{shown}: only http(s) URLs are requested")
            if not job.allow_private_hosts:
                try:
                    hosts.check_url(current)
                except hosts.Unresolvable as exc:
                    raise ApiError(f"{exc}; offline?", network=True) from exc
                except (hosts.HostRefused, hosts.InvalidHost) as exc:
                    raise ApiError(str(exc)) from exc
            headers = {"User-Agent": job.user_agent, "Accept": job.accept, "Accept-Encoding": ACCEPT_ENCODING}
            if job.token and parts.hostname == first_host:
                headers["Authorization"] = f"Bearer {job.token}"
            try:
                with client.stream("GET", current, headers=headers) as resp:
                    if resp.status_code in (301, 302, 303, 307, 308) and resp.headers.get("location"):
                        nxt = urljoin(current, resp.headers["location"])
                        if nxt in chain or len(chain) > MAX_REDIRECTS:
                            raise ApiError(f"too many redirects (or a loop) from {display_url(job.url)}")
                        chain.append(nxt)
                        current = nxt
                        continue
                    kept = {k.lower(): v for k, v in resp.headers.items() if k.lower() != "set-cookie"}
                    body = b"".join(body_pieces(resp, job.max_bytes, deadline)) if resp.status_code == 200 else b""
                    return resp.status_code, kept, body, current
            except BodyError as exc:
                if exc.slow:
                    raise ApiError(f"{shown} was too slow (more than {job.timeout:g} s); stopped") from exc
                raise ApiError(f"{shown} {exc}" if str(exc).startswith(("is ", "sent ")) else f"{shown}: {exc}") from exc
            except hosts.HostRefused as exc:
                raise ApiError(str(exc)) from exc
            except (httpx.ConnectError, httpx.ConnectTimeout) as exc:
                raise ApiError(f"cannot connect to {parts.hostname} ({exc}); offline or host down?", network=True) from exc
            except httpx.TimeoutException as exc:
                if deadline_passed(exc):
                    raise ApiError(f"{shown} was too slow (more than {job.timeout:g} s); stopped") from exc
                raise ApiError(f"{shown} timed out (limit {job.timeout:g} s)") from exc
            except httpx.HTTPError as exc:
                raise ApiError(f"request to {shown} failed: {type(exc).__name__}: {exc}") from exc
