"""A polite, bounded HTTP client for the public APIs `discover` asks (arXiv, GitHub, lab feeds).

Why not `fetch.fetch_url`: an API answer is not a document to cache by hash, and API calls need
what a download does not — a pause between requests to one host, `Retry-After` and GitHub's
rate-limit headers obeyed, a token sent to the GitHub API only, and a budget of requests per run.
The same safety rules as downloads hold: http(s) only, every hop's host checked against internal
addresses before the request and again by the connection (`ingest.sources.hosts`) unless the user
opted in, a redirect cap, a timeout and a size cap enforced while streaming.
"""

from __future__ import annotations

import email.utils
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from urllib.parse import urljoin, urlsplit

import httpx

from ingest.sources import hosts
from ingest.sources.urls import display_url
from ingest.sources.watch import Api

MAX_REDIRECTS = 5


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
    if not value:
        return None
    v = value.strip()
    if v.isdigit():
        return float(v)
    try:
        when = email.utils.parsedate_to_datetime(v)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - now)


@dataclass
class ApiClient:
    """GET with pacing, limits and the private-host rule; `sleep`/`clock` are injectable for tests."""

    api: Api
    allow_private_hosts: bool = False
    tokens: dict[str, str] = field(default_factory=dict)  # URL prefix (the GitHub API base) -> bearer token
    user_agent: str = "frontier-report-lens/0.1 (discover; technical-report watch)"
    sleep: Callable[[float], None] = time.sleep
    clock: Callable[[], float] = time.monotonic
    wall: Callable[[], float] = time.time
    requests: int = 0
    _last: dict[str, float] = field(default_factory=dict)
    _blocked: dict[str, float] = field(default_factory=dict)  # host -> wall time its rate limit resets
    _down: dict[str, str] = field(default_factory=dict)  # host -> why it could not be reached (not asked again)
    _client: httpx.Client | None = None

    def close(self) -> None:
        if self._client is not None:
            self._client.close()
            self._client = None

    def _http(self) -> httpx.Client:
        if self._client is None:
            timeout = httpx.Timeout(self.api.timeout, connect=min(10.0, self.api.timeout))
            self._client = httpx.Client(timeout=timeout, follow_redirects=False)
            if not self.allow_private_hosts:
                hosts.pin(self._client)
        return self._client

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
        host = (urlsplit(url).hostname or "").lower()
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
                    self._blocked[host] = float(headers.get("x-ratelimit-reset", "0") or 0)
                return Answer(final, headers, body)
            limited = headers.get("x-ratelimit-remaining") == "0" and status in (403, 429)
            wait = retry_after(headers.get("retry-after"), self.wall())
            if limited and wait is None:
                reset = headers.get("x-ratelimit-reset", "")
                wait = max(0.0, float(reset) - self.wall()) if reset.isdigit() else None
                if wait is None or wait > self.api.max_wait:
                    self._blocked[host] = float(reset) if reset.isdigit() else self.wall() + 3600
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
        """One request with redirects followed by hand (each hop checked); the body under the size cap."""
        first_host = urlsplit(url).hostname
        chain = [url]
        current = url
        client = self._http()
        while True:
            parts = urlsplit(current)
            if parts.scheme not in ("http", "https"):
                raise ApiError(f"{display_url(current)}: only http(s) URLs are requested")
            if not self.allow_private_hosts:
                try:
                    hosts.check_url(current)
                except hosts.Unresolvable as exc:
                    raise ApiError(f"{exc}; offline?", network=True) from exc
                except (hosts.HostRefused, hosts.InvalidHost) as exc:
                    raise ApiError(str(exc)) from exc
            headers = {"User-Agent": self.user_agent, "Accept": accept}
            token = next((t for prefix, t in self.tokens.items() if current.startswith(prefix + "/")), None)
            if token and parts.hostname == first_host:  # never sent on to another host by a redirect
                headers["Authorization"] = f"Bearer {token}"
            try:
                with client.stream("GET", current, headers=headers) as resp:
                    if resp.status_code in (301, 302, 303, 307, 308) and resp.headers.get("location"):
                        nxt = urljoin(current, resp.headers["location"])
                        if nxt in chain or len(chain) > MAX_REDIRECTS:
                            raise ApiError(f"too many redirects (or a loop) from {display_url(url)}")
                        chain.append(nxt)
                        current = nxt
                        continue
                    kept = {k.lower(): v for k, v in resp.headers.items() if k.lower() != "set-cookie"}
                    body = self._body(resp, current) if resp.status_code == 200 else b""
                    return resp.status_code, kept, body, current
            except hosts.HostRefused as exc:
                raise ApiError(str(exc)) from exc
            except (httpx.ConnectError, httpx.ConnectTimeout) as exc:
                raise ApiError(f"cannot connect to {parts.hostname} ({exc}); offline or host down?", network=True) from exc
            except httpx.TimeoutException as exc:
                raise ApiError(f"{display_url(current)} timed out (limit {self.api.timeout:g} s)") from exc
            except httpx.HTTPError as exc:
                raise ApiError(f"request to {display_url(current)} failed: {type(exc).__name__}: {exc}") from exc

    def _body(self, resp: httpx.Response, url: str) -> bytes:
        cap = self.api.max_bytes
        length = resp.headers.get("content-length", "")
        if length.isdigit() and int(length) > cap:
            raise ApiError(f"{display_url(url)} answers {int(length):,} bytes, more than the cap of {cap:,}")
        deadline = self.clock() + self.api.timeout
        out = bytearray()
        for chunk in resp.iter_bytes():
            out += chunk
            if len(out) > cap:
                raise ApiError(f"{display_url(url)} sent more than the cap of {cap:,} bytes; stopped")
            if self.clock() > deadline:
                raise ApiError(f"{display_url(url)} was too slow (more than {self.api.timeout:g} s); stopped")
        return bytes(out)
