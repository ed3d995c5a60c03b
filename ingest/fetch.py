"""Stage 2 — fetch: turn a report's `source:` into a local file and its SHA-256.

Local paths are resolved relative to the report's YAML file. URLs are fetched by the
HTTP fetcher (see `fetch_url`) into the content-addressed cache under `data/cache/http`.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path

from .schema import Source


class FetchError(Exception):
    """The source could not be obtained; the message is meant for the user."""


@dataclass(frozen=True)
class Fetched:
    """A local copy of a source: where it is, its hash, and where it came from."""

    path: Path
    sha256: str
    origin: str  # "path:<file>" or the URL
    final_url: str | None = None


def sha256_file(path: Path, chunk: int = 1 << 20) -> str:
    """SHA-256 of a file, streamed."""
    h = hashlib.sha256()
    with path.open("rb") as fh:
        while block := fh.read(chunk):
            h.update(block)
    return h.hexdigest()


def local_file(path: str, base_dir: Path) -> Fetched:
    """A `path:` source, relative to the YAML's folder; missing files and folders are errors."""
    p = Path(path)
    if not p.is_absolute():
        p = base_dir / p
    if p.is_dir():
        raise FetchError(f"source.path {path!r} is a directory, not a file")
    if not p.is_file():
        raise FetchError(f"source.path {path!r} not found (looked at {p})")
    return Fetched(p, sha256_file(p), f"path:{path}")


def fetch_url(url: str, cache_dir: Path, offline: bool = False) -> Fetched:
    """Fetch a URL into the cache. Placeholder until the HTTP fetcher lands (issue 4)."""
    if url.startswith("file://"):
        return local_file(url[len("file://") :], Path("/"))
    raise FetchError(f"cannot fetch {url}: URL fetching is not available yet; add a local `path:`")


def locate(source: Source, base_dir: Path, cache_dir: Path, offline: bool = False) -> Fetched:
    """Local file if `path:` exists, else the URL (cached). Errors name what was tried."""
    errors = []
    if source.path:
        try:
            return local_file(source.path, base_dir)
        except FetchError as exc:
            if not source.url:
                raise
            errors.append(str(exc))
    assert source.url
    try:
        return fetch_url(source.url, cache_dir, offline=offline)
    except FetchError as exc:
        raise FetchError("; ".join([*errors, str(exc)])) from exc
