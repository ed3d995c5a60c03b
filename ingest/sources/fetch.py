"""Stage 2 — fetch: turn a report's `source:` into a local file and its SHA-256.

Local paths are resolved relative to the report's YAML file and must lie inside an allowed source
root after resolving `..` and symlinks (`ingest.sources.confine`); `file://` URLs obey the same rule. URLs
are normalised
(`ingest.sources.urls`: arXiv abs → PDF, GitHub blob → raw) and downloaded with httpx into a
content-addressed cache under `data/cache/http`:

    objects/<sha256>.<pdf|html|md>   the bytes, named by their hash (identical downloads share a file)
    index/<key>.json                 per URL: url, final URL, times, status, HTTP headers, sha256

A cached URL is re-checked with `If-None-Match` / `If-Modified-Since`; a 304 reuses the cached
bytes. Every download is bounded: it runs in a child process with a memory limit that is killed
at one total deadline (connect, headers, redirects, body and retries together); connect/read
timeouts; a size cap enforced while streaming on the wire bytes and on every decoded layer
(`ingest.sources.decode`: at most two content-coding layers, inflated in bounded steps); a
redirect cap with loop detection; http(s) only on the wire.
Only 5xx answers and timeouts are retried (with exponential backoff); a 4xx is final. The
bytes are sniffed by magic number, so a PDF link that serves an HTML page fails and says so.
With `offline=True` only the cache is used. When the network fails but an older copy is
cached, that copy is used and `Fetched.note` says so. Unless `allow_private_hosts` is set, every
hop's host must resolve to public addresses only, checked before the request and again by the
connection itself (`ingest.sources.hosts`), so no request reaches loopback, private or metadata addresses.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import math
import os
import tempfile
import time
from collections.abc import Iterable
from contextlib import suppress
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import urljoin, urlsplit

from ingest.common.atomic import atomic_write_bytes
from ingest.common.document import magic_kind
from ingest.run.executor import Done, Limits, describe_mb, run_isolated
from ingest.sources import hosts
from ingest.sources.confine import OutsideRoots, confine, shown
from ingest.sources.decode import KNOWN, BoundedDecoder, DecodeError
from ingest.sources.schema import Source
from ingest.sources.urls import UrlError, check_scheme, display_url, expects_pdf, file_url_path, normalize_url

if TYPE_CHECKING:
    import httpx

#: Bump when the index entry format changes (older entries are then treated as misses).
CACHE_VERSION = 1
#: Bytes kept from the start of a download for sniffing.
SNIFF_BYTES = 4096
_EXT = {"pdf": ".pdf", "html": ".html", "text": ".md"}
#: Seconds past the total deadline before the download's process is killed (its own check speaks first).
KILL_GRACE = 1.0
#: Response headers not worth keeping in the index (and never secrets).
_DROP_HEADERS = {"set-cookie", "authorization", "proxy-authorization", "www-authenticate"}


class PeakMemory:
    """The highest peak memory (MB) any child process of this kind reported, for eval/bad_inputs.py."""

    def __init__(self) -> None:
        self.mb = 0.0

    def note(self, mb: float | None) -> None:
        if mb is not None and mb > self.mb:
            self.mb = mb


#: Peak memory of the download processes started by this process.
PEAKS = PeakMemory()


class FetchError(Exception):
    """The source could not be obtained; the message is meant for the user."""


class _Transient(FetchError):
    """A failure that may go away by itself (timeouts, 5xx, unreachable host): a cached copy may stand in."""


class _Retryable(_Transient):
    """A failure worth retrying after a pause: a 5xx answer or a timeout."""


@dataclass(frozen=True)
class FetchSettings:
    """Limits of one download; validated on creation so a bad value fails before any request."""

    connect_timeout: float = 10.0  # seconds to open a connection
    read_timeout: float = 30.0  # seconds of silence allowed while waiting for bytes
    total_timeout: float = 300.0  # seconds for the whole download: connect, headers, redirects, body, retries
    max_bytes: int = 100 * 1024 * 1024  # size cap, enforced while streaming
    retries: int = 2  # extra attempts after a 5xx or a timeout
    backoff: float = 1.0  # seconds before the first retry; doubled for each further one
    max_redirects: int = 5
    trust_env: bool = True  # honour HTTP(S)_PROXY / NO_PROXY from the environment
    user_agent: str = "frontier-report-lens/0.1 (technical-report keyword study)"
    #: Let URLs reach loopback/private/link-local/… addresses (`--allow-private-hosts`); off by default.
    allow_private_hosts: bool = False
    #: Memory (address-space) limit, in MB, of the child process that downloads and decodes.
    memory_mb: int = 1024
    #: Download in a limited child process (off only for tests that watch this process's sockets).
    isolate: bool = True

    def __post_init__(self) -> None:
        for f in ("connect_timeout", "read_timeout", "total_timeout"):
            v = getattr(self, f)
            if isinstance(v, bool) or not isinstance(v, int | float) or not math.isfinite(v) or v <= 0:
                raise ValueError(f"FetchSettings.{f} must be a positive number of seconds (got {v!r})")
        if isinstance(self.backoff, bool) or not isinstance(self.backoff, int | float) or not 0 <= self.backoff <= 60:
            raise ValueError(f"FetchSettings.backoff must be between 0 and 60 seconds (got {self.backoff!r})")
        for f, lo, hi in (("max_bytes", 1, 1 << 40), ("retries", 0, 10), ("max_redirects", 0, 30), ("memory_mb", 64, 1 << 20)):
            v = getattr(self, f)
            if isinstance(v, bool) or not isinstance(v, int) or not lo <= v <= hi:
                raise ValueError(f"FetchSettings.{f} must be a whole number from {lo} to {hi} (got {v!r})")
        if not isinstance(self.user_agent, str) or not self.user_agent.strip():
            raise ValueError("FetchSettings.user_agent must be non-empty text")
        for f in ("trust_env", "allow_private_hosts", "isolate"):
            if not isinstance(getattr(self, f), bool):
                raise ValueError(f"FetchSettings.{f} must be True or False (got {getattr(self, f)!r})")


@dataclass(frozen=True)
class Fetched:
    """A local copy of a source: where it is, its hash, and where it came from."""

    path: Path
    sha256: str
    origin: str  # "path:<file>" or the URL
    final_url: str | None = None
    note: str = ""  # e.g. "network failed; using the copy cached on <date>"


def sha256_file(path: Path, chunk: int = 1 << 20) -> str:
    """SHA-256 of a file, streamed."""
    h = hashlib.sha256()
    with path.open("rb") as fh:
        while block := fh.read(chunk):
            h.update(block)
    return h.hexdigest()


def local_file(path: str, base_dir: Path, roots: Iterable[Path] = (), what: str = "source.path") -> Fetched:
    """A `path:` source, relative to the YAML's folder and confined to `roots` (resolved folders).

    The confinement check comes first and its refusal does not depend on the file system, so a
    path outside the roots reveals nothing about what exists there. Inside, missing files and
    folders are errors naming the path relative to its root (never a server path).
    """
    try:
        p, root = confine(path, base_dir, tuple(roots), what)
    except OutsideRoots as exc:
        raise FetchError(str(exc)) from exc
    if p.is_dir():
        raise FetchError(f"{what} {path!r} is a directory, not a file")
    if p.exists() and not p.is_file():
        raise FetchError(f"{what} {path!r} is not a regular file (a device or pipe?)")
    if not p.is_file():
        raise FetchError(f"{what} {path!r} not found (looked at {shown(p, root)})")
    try:
        return Fetched(p, sha256_file(p), f"path:{path}")
    except OSError as exc:
        raise FetchError(f"{what} {path!r} cannot be read ({exc.strerror or exc})") from exc


# --------------------------------------------------------------------------- content sniffing

_BINARY_MAGIC = {
    b"\x89PNG": "a PNG image",
    b"\xff\xd8\xff": "a JPEG image",
    b"GIF8": "a GIF image",
    b"PK\x03\x04": "a ZIP archive",
    b"\x1f\x8b": "a gzip archive",
    b"7z\xbc\xaf": "a 7z archive",
    b"Rar!": "a RAR archive",
    b"\x7fELF": "an executable",
}


def sniff_content(head: bytes) -> str:
    """'pdf', 'html' or 'text' from the first bytes; raises FetchError for anything else."""
    magic = magic_kind(head)
    if magic:
        return magic
    for magic, what in _BINARY_MAGIC.items():
        if head.startswith(magic):
            raise FetchError(f"the server returned {what}, not a PDF, an HTML page or text")
    if b"\x00" in head:
        raise FetchError("the server returned binary data that is not a PDF (no %PDF- header)")
    for cut in range(4):  # the sample may end inside a multi-byte UTF-8 character
        with suppress(UnicodeDecodeError):
            head[: len(head) - cut].decode("utf-8")
            return "text"
    if any(b < 9 or 13 < b < 32 for b in head):  # control bytes: not legacy-encoded text either
        raise FetchError("the server returned binary data that is neither a PDF, an HTML page nor text")
    return "text"


# --------------------------------------------------------------------------- cache index


def _now() -> str:
    return dt.datetime.now(dt.UTC).isoformat(timespec="seconds")


def _index_path(cache_dir: Path, url: str) -> Path:
    return cache_dir / "index" / f"{hashlib.sha256(url.encode()).hexdigest()[:40]}.json"


def cache_entry(cache_dir: Path, url: str) -> dict | None:
    """The index entry of a normalised URL if it and its object are intact, else None."""
    try:
        entry = json.loads(_index_path(cache_dir, url).read_bytes())
        obj = cache_dir / entry["file"]
        if entry.get("version") != CACHE_VERSION or entry.get("request_url") != url:
            return None
        if obj.stat().st_size != entry["size"] or Path(entry["file"]).name[:64] != entry["sha256"]:
            return None
        return entry
    except (OSError, ValueError, KeyError, TypeError):
        return None


def _from_entry(cache_dir: Path, entry: dict, origin: str, note: str = "") -> Fetched:
    return Fetched(cache_dir / entry["file"], entry["sha256"], origin, entry.get("final_url"), note)


def _write_entry(cache_dir: Path, entry: dict) -> None:
    atomic_write_bytes(_index_path(cache_dir, entry["request_url"]), json.dumps(entry, indent=1).encode())


# --------------------------------------------------------------------------- download


def _kept_headers(resp: httpx.Response) -> dict[str, str]:
    return {k.lower(): v for k, v in resp.headers.items() if k.lower() not in _DROP_HEADERS}


def _store_body(
    resp: httpx.Response, cache_dir: Path, settings: FetchSettings, shown: str, deadline: float, want_pdf: bool
) -> tuple[Path, str, int, str]:
    """Stream the body to a temp file under the cap and deadline; sniff it; move it to objects/<sha>."""
    length = resp.headers.get("content-length", "")
    if length.isdigit() and int(length) > settings.max_bytes:
        raise FetchError(f"{shown} is {int(length):,} bytes, more than the size cap of {settings.max_bytes:,} bytes")
    tmp_dir = cache_dir / "tmp"
    tmp_dir.mkdir(parents=True, exist_ok=True)
    fd, tmp_name = tempfile.mkstemp(dir=tmp_dir, suffix=".part")
    tmp = Path(tmp_name)
    try:
        h, size, wire, head = hashlib.sha256(), 0, 0, b""
        try:
            decoder = BoundedDecoder(resp.headers.get("content-encoding", ""), settings.max_bytes)
            with os.fdopen(fd, "wb") as fh:
                for raw in resp.iter_raw():  # undecoded: each layer is inflated here, in bounded steps
                    wire += len(raw)
                    if wire > settings.max_bytes:
                        raise FetchError(f"{shown} sent more than the size cap of {settings.max_bytes:,} bytes; download stopped")
                    for chunk in decoder.feed(raw):
                        size += len(chunk)
                        if size > settings.max_bytes:
                            raise FetchError(
                                f"{shown} sent more than the size cap of {settings.max_bytes:,} bytes; download stopped"
                            )
                        if len(head) < SNIFF_BYTES:
                            head += chunk[: SNIFF_BYTES - len(head)]
                        h.update(chunk)
                        fh.write(chunk)
                    if time.monotonic() > deadline:
                        raise _Transient(
                            f"{shown} was too slow: not finished after {settings.total_timeout:g} s "
                            f"({wire:,} bytes received); download stopped"
                        )
                decoder.finish()
        except DecodeError as exc:
            raise FetchError(f"{shown}: {exc}") from exc
        if size == 0:
            raise FetchError(f"{shown} returned an empty body (0 bytes)")
        try:
            kind = sniff_content(head)
        except FetchError as exc:
            raise FetchError(f"{shown}: {exc}") from exc
        ctype = resp.headers.get("content-type", "").split(";")[0].strip().lower()
        if (want_pdf or ctype == "application/pdf") and kind != "pdf":
            what = "an HTML page" if kind == "html" else "text"
            raise FetchError(
                f"expected a PDF from {shown} but the server returned {what} (a login, cookie or error page, "
                "or a viewer around the file?); open the link in a browser and use the direct PDF link"
            )
        digest = h.hexdigest()
        rel = Path("objects") / f"{digest}{_EXT[kind]}"
        (cache_dir / "objects").mkdir(parents=True, exist_ok=True)
        os.replace(tmp, cache_dir / rel)
        return rel, digest, size, kind
    finally:
        with suppress(FileNotFoundError):
            tmp.unlink()


def _attempt(
    client: httpx.Client, url: str, entry: dict | None, cache_dir: Path, settings: FetchSettings, origin: str, deadline: float
) -> Fetched:
    """One GET with redirects followed by hand (each hop checked); raises _Retryable for 5xx/timeouts."""
    headers = {
        "User-Agent": settings.user_agent,
        "Accept": "application/pdf, text/html;q=0.9, text/*;q=0.8, */*;q=0.5",
        "Accept-Encoding": ", ".join(c for c in KNOWN if c != "x-gzip"),  # only what `decode` bounds
    }
    if entry:
        etag, modified = entry["headers"].get("etag"), entry["headers"].get("last-modified")
        if etag:
            headers["If-None-Match"] = etag
        if modified:
            headers["If-Modified-Since"] = modified
    chain = [url]
    current = url
    while True:
        shown = display_url(current)
        if not settings.allow_private_hosts:
            _check_hop(current, chain)
        with client.stream("GET", current, headers=headers) as resp:
            if resp.status_code in (301, 302, 303, 307, 308):
                location = resp.headers.get("location", "").strip()
                if not location:
                    raise FetchError(f"{shown} answered HTTP {resp.status_code} (redirect) without a Location header")
                nxt = urljoin(current, location)
                if urlsplit(nxt).scheme.lower() not in ("http", "https"):
                    raise FetchError(f"{shown} redirected to {display_url(nxt)!r}; only http(s) redirects are followed")
                if nxt in chain:
                    loop = " → ".join(display_url(u) for u in [*chain[chain.index(nxt) :], nxt])
                    raise FetchError(f"redirect loop: {loop}")
                if len(chain) > settings.max_redirects:
                    raise FetchError(f"too many redirects from {display_url(url)} (more than {settings.max_redirects})")
                chain.append(nxt)
                current = nxt
                continue
            status = resp.status_code
            if status == 304 and entry:
                entry = {**entry, "checked_at": _now()}
                _write_entry(cache_dir, entry)
                return _from_entry(cache_dir, entry, origin, "not modified since the cached copy")
            if status >= 500:
                raise _Retryable(f"server error: HTTP {status} {resp.reason_phrase} from {shown}")
            if status >= 400:
                hint = {
                    401: "the page needs a login",
                    403: "access denied (login wall or bot block?)",
                    404: "check the link; the file may have moved",
                    410: "the file was removed",
                    429: "rate limited; try again later",
                }.get(status, "")
                raise FetchError(f"HTTP {status} {resp.reason_phrase} from {shown}" + (f" ({hint})" if hint else ""))
            if status != 200:
                raise FetchError(f"unexpected HTTP {status} {resp.reason_phrase} from {shown}; expected 200 with the file")
            rel, digest, size, kind = _store_body(resp, cache_dir, settings, shown, deadline, expects_pdf(url))
            new = {
                "version": CACHE_VERSION,
                "url": display_url(origin),
                "request_url": url,
                "final_url": display_url(current),
                "redirects": [display_url(u) for u in chain[1:]],
                "status": status,
                "fetched_at": _now(),
                "checked_at": _now(),
                "sha256": digest,
                "size": size,
                "kind": kind,
                "file": rel.as_posix(),
                "headers": _kept_headers(resp),
            }
            _write_entry(cache_dir, new)
            return _from_entry(cache_dir, new, origin)


def _check_hop(current: str, chain: list[str]) -> None:
    """Refuse (before any connection) a hop whose host is or resolves to an internal address."""
    try:
        hosts.check_url(current)
    except hosts.InvalidHost as exc:
        raise FetchError(f"{display_url(current)} is not a valid URL ({exc})") from exc
    except hosts.HostRefused as exc:
        via = f"{display_url(chain[0])} redirected to {display_url(current)}: " if len(chain) > 1 else ""
        raise FetchError(f"{via}{exc}") from exc
    except hosts.Unresolvable as exc:
        raise _Transient(f"{exc}; offline or host down?") from exc


def _download(url: str, entry: dict | None, cache_dir: Path, settings: FetchSettings, origin: str) -> Fetched:
    """The download, in a child process with the memory limit, killed at the total deadline.

    Why a child: every byte from the network is decoded there, never in the process that runs
    the batch or the dashboard, and a server that sends its headers one byte at a time (which
    no read timeout notices) is stopped by the one deadline that covers connecting, headers,
    redirects, body and retries.
    """
    if not settings.isolate:
        return _download_here(url, entry, cache_dir, settings, origin)
    limits = Limits(timeout=settings.total_timeout + KILL_GRACE, memory_mb=settings.memory_mb)
    result = run_isolated(_download_job, (url, entry, str(cache_dir), settings, origin), limits)
    PEAKS.note(result.peak_mb)
    shown = display_url(url)
    if isinstance(result, Done):
        kind, value = result.value
        if kind == "ok":
            return value
        raise (_Transient if kind == "transient" else FetchError)(value)
    if result.kind == "timeout":
        raise _Transient(f"{shown} was too slow: not finished after {settings.total_timeout:g} s; download stopped")
    if result.kind == "memory":
        raise FetchError(f"the download of {shown} needed more than {describe_mb(settings.memory_mb)} of memory; stopped")
    raise _Transient(f"the download of {shown} failed ({result.message})")


def _download_job(arg: tuple, _progress: object = None) -> tuple[str, object]:
    """Run in the download's child process: ("ok", Fetched), or ("transient" | "error", message)."""
    url, entry, cache_dir, settings, origin = arg
    try:
        return "ok", _download_here(url, entry, Path(cache_dir), settings, origin)
    except _Transient as exc:
        return "transient", str(exc)
    except FetchError as exc:
        return "error", str(exc)
    except OSError as exc:
        return "error", f"cannot write the download cache: {exc.strerror or exc}"


def _download_here(url: str, entry: dict | None, cache_dir: Path, settings: FetchSettings, origin: str) -> Fetched:
    """`_attempt` with retries on 5xx and timeouts (exponential backoff) within one total deadline;
    the last error names the count."""
    import httpx  # imported here: runs on local files and cached URLs never pay for it (bench/import_costs.py)

    deadline = time.monotonic() + settings.total_timeout

    timeout = httpx.Timeout(settings.read_timeout, connect=settings.connect_timeout)
    shown = display_url(url)
    last: FetchError | None = None
    with httpx.Client(timeout=timeout, follow_redirects=False, trust_env=settings.trust_env) as client:
        if not settings.allow_private_hosts:
            hosts.pin(client)  # the connection re-checks the address it connects to (DNS rebinding)
        for attempt in range(settings.retries + 1):
            if attempt:
                pause = settings.backoff * 2 ** (attempt - 1)
                if time.monotonic() + pause >= deadline:  # no time left for another try
                    break
                time.sleep(pause)
            try:
                return _attempt(client, url, entry, cache_dir, settings, origin, deadline)
            except _Retryable as exc:
                last = exc
            except hosts.HostRefused as exc:  # raised by the pinned connection: the answer changed since the check
                raise FetchError(str(exc)) from exc
            except httpx.TimeoutException as exc:
                kind = "connecting" if isinstance(exc, httpx.ConnectTimeout) else "waiting for data"
                limit = settings.connect_timeout if isinstance(exc, httpx.ConnectTimeout) else settings.read_timeout
                last = _Retryable(f"timed out {kind} from {shown} (limit {limit:g} s)")
            except httpx.ConnectError as exc:
                raise _Transient(f"cannot connect to {urlsplit(url).hostname} ({exc}); offline or host down?") from exc
            except httpx.RemoteProtocolError as exc:
                raise _Transient(f"the connection to {shown} broke before the whole file arrived ({exc})") from exc
            except httpx.TooManyRedirects as exc:  # not raised with follow_redirects=False; kept for safety
                raise FetchError(f"too many redirects from {shown}") from exc
            except httpx.HTTPError as exc:
                raise _Transient(f"download of {shown} failed: {type(exc).__name__}: {exc}") from exc
            except httpx.InvalidURL as exc:  # e.g. a host the client cannot parse (`0177.0.0.1`)
                raise FetchError(f"{shown} is not a valid URL ({exc})") from exc
    assert last is not None
    tries = attempt + 1
    raise _Transient(f"{last} (gave up after {tries} attempt{'s' if tries > 1 else ''})")


def fetch_url(
    url: str,
    cache_dir: Path,
    offline: bool = False,
    settings: FetchSettings | None = None,
    roots: Iterable[Path] = (),
) -> Fetched:
    """Fetch a URL into the cache (or take it from there); FetchError messages are for the user.

    A `file://` URL is a local file and obeys the source roots like `source.path`.
    """
    settings = settings or FetchSettings()
    try:
        scheme = check_scheme(url)
        if scheme == "file":
            return local_file(file_url_path(url), Path("/"), roots, what="file URL")
        target = normalize_url(url)
    except UrlError as exc:
        raise FetchError(str(exc)) from exc
    cache_dir = Path(cache_dir)
    entry = cache_entry(cache_dir, target)
    via = "" if target == url else f" (normalised from {display_url(url)})"
    if offline:
        if entry:
            return _from_entry(cache_dir, entry, url, f"offline: cached copy from {entry['fetched_at']}")
        raise FetchError(
            f"offline: {display_url(target)}{via} is not in the download cache; "
            "run once without --offline, or add a local `path:`"
        )
    try:
        return _download(target, entry, cache_dir, settings, url)
    except _Transient as exc:
        if entry:
            return _from_entry(cache_dir, entry, url, f"{exc}; using the copy cached on {entry['fetched_at']}")
        raise FetchError(f"{exc}{via}") from exc
    except FetchError as exc:
        raise FetchError(f"{exc}{via}") from exc
    except OSError as exc:
        raise FetchError(f"cannot write the download cache: {exc.strerror or exc}") from exc


def locate(
    source: Source,
    base_dir: Path,
    cache_dir: Path,
    offline: bool = False,
    settings: FetchSettings | None = None,
    roots: Iterable[Path] = (),
) -> Fetched:
    """Local file if `path:` exists inside the roots, else the URL (cached). Errors name what was tried."""
    roots = tuple(roots)
    errors = []
    if source.path:
        try:
            return local_file(source.path, base_dir, roots)
        except FetchError as exc:
            if not source.url:
                raise
            errors.append(str(exc))
    assert source.url
    try:
        return fetch_url(source.url, cache_dir, offline=offline, settings=settings, roots=roots)
    except FetchError as exc:
        raise FetchError("; ".join([*errors, str(exc)])) from exc
