"""Parse the answers `discover` gets: arXiv's Atom feed, RSS 2.0 / Atom blog feeds, GitHub REST JSON.

Pure functions from bytes to typed records. Every answer is untrusted: XML is parsed with
defusedxml (no entities, no external references), text is whitespace-folded and cut to a
length, and an answer of the wrong shape is a `FeedError` (one line), never a traceback.

Formats, as documented by their publishers:
* arXiv API (info.arxiv.org/help/api/user-manual): an Atom 1.0 feed; each `<entry>` has `<id>`
  (`http://arxiv.org/abs/<id>v<n>`), `<published>` (v1), `<updated>` (this version), `<title>`,
  `<summary>`, `<author><name>`, `<link rel="alternate|related">`, `<arxiv:primary_category>`.
  A bad query answers HTTP 200 with one entry titled "Error" whose id is under `/api/errors`.
* RSS 2.0: `<rss><channel><item>` with `<title>`, `<link>`, `<description>`, `<pubDate>` (RFC 822).
* Atom 1.0: `<feed><entry>` with `<title>`, `<link href>`, `<published>`/`<updated>`, `<summary>`.
* GitHub REST: `GET /orgs/{org}/repos` (a list of repositories: `full_name`, `default_branch`,
  `pushed_at`, `fork`, `archived`), `GET /repos/{o}/{r}/git/trees/{ref}?recursive=1` (`tree`: list of
  `path`, `type`, `size`), `GET /repos/{o}/{r}/commits?path=…&since=…` (list of commits with
  `sha`, `html_url`, `commit.committer.date`).
"""

from __future__ import annotations

import datetime as dt
import email.utils
import json
import re
from dataclasses import dataclass
from typing import Any
from xml.etree.ElementTree import Element

from defusedxml import ElementTree
from defusedxml.common import DefusedXmlException

ATOM = "{http://www.w3.org/2005/Atom}"
ARXIV = "{http://arxiv.org/schemas/atom}"
_ARXIV_ABS = re.compile(r"arxiv\.org/abs/(?P<id>\d{4}\.\d{4,5})(?:v(?P<v>\d+))?$")
_WS = re.compile(r"\s+")
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")
MAX_TEXT = 2000
MAX_ITEMS = 500


class FeedError(ValueError):
    """The answer is not in the expected format; the message says what was wrong."""


def clean(text: str | None, limit: int = MAX_TEXT) -> str:
    """Untrusted text as one plain line: control characters dropped, whitespace folded, cut to `limit`."""
    t = _WS.sub(" ", _CONTROL.sub("", text or "")).strip()
    return t[:limit]


def _date(text: str | None) -> dt.date | None:
    """A date from ISO 8601 (Atom) or RFC 822 (RSS); None when absent or unreadable."""
    t = (text or "").strip()
    if not t:
        return None
    try:
        return dt.datetime.fromisoformat(t.replace("Z", "+00:00")).date()
    except ValueError:
        pass
    try:
        return email.utils.parsedate_to_datetime(t).date()
    except (TypeError, ValueError, IndexError):
        return None


def _xml(body: bytes, what: str) -> Element:
    try:
        return ElementTree.fromstring(body)
    except (ElementTree.ParseError, DefusedXmlException, ValueError) as exc:
        head = clean(body[:60].decode("utf-8", "replace"), 60)
        raise FeedError(f"{what} is not XML ({type(exc).__name__}); it starts with {head!r}") from exc


# ------------------------------------------------------------------------------------------ arXiv


@dataclass(frozen=True)
class ArxivEntry:
    """One arXiv e-print as the API lists it."""

    arxiv_id: str  # without version, e.g. 2505.09388
    version: int
    title: str
    summary: str
    authors: tuple[str, ...]
    published: dt.date | None  # v1
    updated: dt.date | None  # this version
    category: str


def parse_arxiv(body: bytes) -> list[ArxivEntry]:
    """The entries of an arXiv API answer; FeedError for an error entry or another format."""
    root = _xml(body, "the arXiv answer")
    if root.tag != f"{ATOM}feed":
        raise FeedError("the arXiv answer is not an Atom feed")
    out = []
    for e in root.findall(f"{ATOM}entry")[:MAX_ITEMS]:
        raw_id = clean(e.findtext(f"{ATOM}id"), 200)
        title = clean(e.findtext(f"{ATOM}title"), 300)
        if "/api/errors" in raw_id or (title == "Error" and not _ARXIV_ABS.search(raw_id)):
            raise FeedError(f"arXiv rejected the query: {clean(e.findtext(f'{ATOM}summary'), 200)}")
        m = _ARXIV_ABS.search(raw_id)
        if not m:
            continue  # an old-style id (hep-th/…) or something unexpected: not a technical report of today
        cat = e.find(f"{ARXIV}primary_category")
        out.append(
            ArxivEntry(
                arxiv_id=m.group("id"),
                version=int(m.group("v") or 1),
                title=title,
                summary=clean(e.findtext(f"{ATOM}summary")),
                authors=tuple(clean(a.findtext(f"{ATOM}name"), 100) for a in e.findall(f"{ATOM}author")[:50]),
                published=_date(e.findtext(f"{ATOM}published")),
                updated=_date(e.findtext(f"{ATOM}updated")),
                category=clean(cat.get("term") if cat is not None else "", 40),
            )
        )
    return out


# ------------------------------------------------------------------------------------------ blog feeds


@dataclass(frozen=True)
class FeedItem:
    """One post of a blog feed."""

    title: str
    url: str
    summary: str
    published: dt.date | None


def _atom_link(e: Element) -> str:
    links = e.findall(f"{ATOM}link")
    for link in links:
        if link.get("rel", "alternate") == "alternate" and link.get("href"):
            return link.get("href", "")
    return links[0].get("href", "") if links else ""


def parse_feed(body: bytes) -> list[FeedItem]:
    """The posts of an RSS 2.0 or Atom 1.0 feed (links that are not http(s) are dropped)."""
    root = _xml(body, "the feed")
    items: list[FeedItem] = []
    if root.tag == "rss" or root.find("channel") is not None:
        for it in root.findall("./channel/item")[:MAX_ITEMS]:
            items.append(
                FeedItem(
                    clean(it.findtext("title"), 300),
                    clean(it.findtext("link"), 1000),
                    clean(re.sub(r"<[^>]{0,500}>", " ", it.findtext("description") or "")),
                    _date(it.findtext("pubDate")),
                )
            )
    elif root.tag == f"{ATOM}feed":
        for e in root.findall(f"{ATOM}entry")[:MAX_ITEMS]:
            summary = e.findtext(f"{ATOM}summary") or e.findtext(f"{ATOM}content") or ""
            items.append(
                FeedItem(
                    clean(e.findtext(f"{ATOM}title"), 300),
                    clean(_atom_link(e), 1000),
                    clean(re.sub(r"<[^>]{0,500}>", " ", summary)),
                    _date(e.findtext(f"{ATOM}published") or e.findtext(f"{ATOM}updated")),
                )
            )
    else:
        raise FeedError(f"the feed is neither RSS 2.0 nor Atom (root element {clean(root.tag, 60)!r})")
    return [i for i in items if re.match(r"^https?://", i.url)]


# ------------------------------------------------------------------------------------------ GitHub


@dataclass(frozen=True)
class Repo:
    full_name: str
    default_branch: str
    pushed: dt.date | None


@dataclass(frozen=True)
class RepoFile:
    path: str
    size: int


def _json(body: bytes, what: str) -> Any:
    try:
        return json.loads(body)
    except (ValueError, RecursionError) as exc:
        raise FeedError(f"{what} is not JSON") from exc


_NAME = re.compile(r"^[A-Za-z0-9._-]{1,100}/[A-Za-z0-9._-]{1,100}$")
_REF = re.compile(r"^[A-Za-z0-9._/-]{1,200}$")


def parse_repos(body: bytes) -> list[Repo]:
    """Public, non-fork, non-archived repositories of an organisation listing."""
    data = _json(body, "the repository list")
    if not isinstance(data, list):
        raise FeedError("the repository list is not a JSON list")
    out = []
    for r in data[:MAX_ITEMS]:
        if not isinstance(r, dict) or r.get("fork") or r.get("archived") or r.get("private"):
            continue
        name, branch = str(r.get("full_name", "")), str(r.get("default_branch", "") or "main")
        if _NAME.match(name) and _REF.match(branch) and ".." not in branch:
            out.append(Repo(name, branch, _date(str(r.get("pushed_at") or ""))))
    return out


def parse_tree(body: bytes) -> list[RepoFile]:
    """The files (blobs) of a recursive tree listing."""
    data = _json(body, "the file tree")
    tree = data.get("tree") if isinstance(data, dict) else None
    if not isinstance(tree, list):
        raise FeedError("the file tree has no `tree` list")
    out = []
    for t in tree[:20000]:
        if isinstance(t, dict) and t.get("type") == "blob" and isinstance(t.get("path"), str):
            path = t["path"]
            if len(path) <= 500 and ".." not in path.split("/") and not _CONTROL.search(path):
                out.append(RepoFile(path, int(t.get("size") or 0)))
    return out


def parse_commit_date(body: bytes) -> dt.date | None:
    """The committer date of the first commit of a commit list (None for an empty list)."""
    data = _json(body, "the commit list")
    if not isinstance(data, list):
        raise FeedError("the commit list is not a JSON list")
    if not data or not isinstance(data[0], dict):
        return None
    commit = data[0].get("commit") if isinstance(data[0].get("commit"), dict) else {}
    who = commit.get("committer") if isinstance(commit.get("committer"), dict) else {}
    return _date(str(who.get("date") or "")) or dt.date.min
