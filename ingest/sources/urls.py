"""URL normalisation for report sources (pure: no I/O).

People paste the link they see in the browser, which is often not the file: an arXiv
abstract page (`/abs/2508.06471v2`) instead of its PDF, or a GitHub `blob/` page (HTML
around the file) instead of the raw bytes. `normalize_url` maps those to the URL of the
document itself, so the cache key and the fetched bytes are the document. Other URLs are
returned unchanged; schemes other than http, https and file are refused.
"""

from __future__ import annotations

import re
from urllib.parse import unquote, urlsplit, urlunsplit

#: Schemes a source may use; anything else (ftp:, javascript:, data:, ...) is refused.
ALLOWED_SCHEMES = ("http", "https", "file")

_ARXIV_HOSTS = {"arxiv.org", "www.arxiv.org", "export.arxiv.org"}
# New-style ids (2508.06471, 2508.06471v2) and old-style ones (hep-th/9901001v1, math.AG/0601001).
_ARXIV_ID = r"(?P<id>\d{4}\.\d{4,5}(?:v\d+)?|[a-z-]+(?:\.[A-Za-z-]+)?/\d{7}(?:v\d+)?)"
_ARXIV_PATH = re.compile(rf"^/(?:abs|pdf|html|format)/{_ARXIV_ID}(?:\.pdf)?/?$")
_GITHUB_HOSTS = {"github.com", "www.github.com"}
_GITHUB_PATH = re.compile(r"^/(?P<owner>[^/]+)/(?P<repo>[^/]+)/(?:blob|raw)/(?P<rest>.+)$")


class UrlError(ValueError):
    """The URL cannot be used as a source; the message says why."""


def check_scheme(url: str) -> str:
    """The URL's lower-case scheme, or UrlError if it is not http, https or file (or has no host)."""
    if not isinstance(url, str) or not url.strip():
        raise UrlError("empty URL")
    if any(c in url for c in "\r\n\t\x00"):
        raise UrlError("URL contains control characters (line breaks, tabs or NUL)")
    parts = urlsplit(url.strip())
    scheme = parts.scheme.lower()
    if scheme not in ALLOWED_SCHEMES:
        shown = f"{scheme}:" if scheme else "no scheme"
        raise UrlError(f"unsupported URL scheme ({shown}) in {url!r}; use http://, https:// or file://")
    if scheme in ("http", "https") and not parts.hostname:
        raise UrlError(f"URL {url!r} has no host name")
    if scheme == "file" and parts.netloc not in ("", "localhost"):
        raise UrlError(f"file URL {url!r} names a remote host; use file:///absolute/path")
    return scheme


def normalize_url(url: str) -> str:
    """The URL of the document itself: arXiv abs/pdf/html → PDF, GitHub blob/raw → raw file; others unchanged.

    >>> normalize_url("https://arxiv.org/abs/2508.06471v2")
    'https://arxiv.org/pdf/2508.06471v2'
    >>> normalize_url("https://github.com/o/r/blob/main/docs/report.pdf")
    'https://raw.githubusercontent.com/o/r/main/docs/report.pdf'
    """
    scheme = check_scheme(url)
    url = url.strip()
    if scheme == "file":
        return url
    parts = urlsplit(url)
    host = (parts.hostname or "").lower()
    if host in _ARXIV_HOSTS:
        m = _ARXIV_PATH.match(parts.path)
        if m:
            return f"https://arxiv.org/pdf/{m.group('id')}"
        return url
    if host in _GITHUB_HOSTS:
        m = _GITHUB_PATH.match(parts.path)
        if m:
            # The query (?plain=1, ?raw=true) and fragment (#L10) belong to the viewer page, not the file.
            return f"https://raw.githubusercontent.com/{m.group('owner')}/{m.group('repo')}/{m.group('rest')}"
        return url
    return url


def expects_pdf(url: str) -> bool:
    """Whether the (normalised) URL names a PDF, so an HTML answer is an error rather than a blog post."""
    parts = urlsplit(url)
    if (parts.hostname or "").lower() in _ARXIV_HOSTS and parts.path.startswith("/pdf/"):
        return True
    return unquote(parts.path).lower().endswith(".pdf")


def file_url_path(url: str) -> str:
    """The local path of a `file://` URL (percent-escapes decoded)."""
    if check_scheme(url) != "file":
        raise UrlError(f"not a file:// URL: {url!r}")
    parts = urlsplit(url.strip())
    path = unquote(parts.path)
    if not path:
        raise UrlError(f"file URL {url!r} has no path")
    return path


def display_url(url: str) -> str:
    """The URL without user:password, for messages and the cache index."""
    parts = urlsplit(url)
    if parts.username or parts.password:
        netloc = parts.hostname or ""
        if parts.port:
            netloc += f":{parts.port}"
        return urlunsplit((parts.scheme, netloc, parts.path, parts.query, parts.fragment))
    return url
