"""Parse the answers `discover` gets: arXiv's Atom feed, RSS 2.0 / Atom blog feeds, GitHub REST JSON.

Pure functions from bytes to typed records. Every answer is untrusted: XML is parsed with
defusedxml (no entities, no external references), JSON with bounded numbers, text is
whitespace-folded and cut to a length, and an answer of the wrong shape is a `FeedError` (one
line), never a traceback. Dates and numbers are read by `ingest.sources.values`; an item with a
value that cannot be read (a date in the year 99999999999, a size of `1e400`) is left out with a
line saying which and why (`Parsed.skipped`), and the other items are kept.

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
import json
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar
from xml.etree.ElementTree import Element

from defusedxml import ElementTree
from defusedxml.common import DefusedXmlException

from ingest.sources.values import BadValue, date_value, whole_number

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


T = TypeVar("T")
S = TypeVar("S")


@dataclass
class Parsed(Generic[T]):
    """The items of an answer, and one line per item left out for a value that cannot be read."""

    items: list[T] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)


def _each(raw: Iterable[S], make: Callable[[S], T | None], name: Callable[[S], str]) -> Parsed[T]:
    """`make` for each raw item: its record, None to leave it out silently (not what is watched), or a
    `BadValue` to leave it out with a note naming the item."""
    out: Parsed[T] = Parsed()
    for r in raw:
        try:
            item = make(r)
        except BadValue as exc:
            out.skipped.append(f"{name(r)}: {exc}")
            continue
        if item is not None:
            out.items.append(item)
    return out


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


def parse_arxiv(body: bytes) -> Parsed[ArxivEntry]:
    """The entries of an arXiv API answer; FeedError for an error entry or another format."""
    root = _xml(body, "the arXiv answer")
    if root.tag != f"{ATOM}feed":
        raise FeedError("the arXiv answer is not an Atom feed")
    entries = root.findall(f"{ATOM}entry")[:MAX_ITEMS]
    for e in entries:
        raw_id = clean(e.findtext(f"{ATOM}id"), 200)
        title = clean(e.findtext(f"{ATOM}title"), 300)
        if "/api/errors" in raw_id or (title == "Error" and not _ARXIV_ABS.search(raw_id)):
            raise FeedError(f"arXiv rejected the query: {clean(e.findtext(f'{ATOM}summary'), 200)}")

    def entry(e: Element) -> ArxivEntry | None:
        m = _ARXIV_ABS.search(clean(e.findtext(f"{ATOM}id"), 200))
        if not m:
            return None  # an old-style id (hep-th/…) or something unexpected: not a technical report of today
        cat = e.find(f"{ARXIV}primary_category")
        return ArxivEntry(
            arxiv_id=m.group("id"),
            version=whole_number(m.group("v") or "1", "version", 1, 10_000),
            title=clean(e.findtext(f"{ATOM}title"), 300),
            summary=clean(e.findtext(f"{ATOM}summary")),
            authors=tuple(clean(a.findtext(f"{ATOM}name"), 100) for a in e.findall(f"{ATOM}author")[:50]),
            published=date_value(e.findtext(f"{ATOM}published"), "published"),
            updated=date_value(e.findtext(f"{ATOM}updated"), "updated"),
            category=clean(cat.get("term") if cat is not None else "", 40),
        )

    return _each(entries, entry, lambda e: f"arXiv entry {clean(e.findtext(f'{ATOM}title'), 80)!r}")


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


def parse_feed(body: bytes) -> Parsed[FeedItem]:
    """The posts of an RSS 2.0 or Atom 1.0 feed (links that are not http(s) are dropped)."""
    root = _xml(body, "the feed")

    def http(item: FeedItem) -> FeedItem | None:
        return item if re.match(r"^https?://", item.url) else None

    def rss(it: Element) -> FeedItem | None:
        description = clean(re.sub(r"<[^>]{0,500}>", " ", it.findtext("description") or ""))
        published = date_value(it.findtext("pubDate"), "pubDate")
        return http(FeedItem(clean(it.findtext("title"), 300), clean(it.findtext("link"), 1000), description, published))

    def atom(e: Element) -> FeedItem | None:
        summary = clean(re.sub(r"<[^>]{0,500}>", " ", e.findtext(f"{ATOM}summary") or e.findtext(f"{ATOM}content") or ""))
        published = date_value(e.findtext(f"{ATOM}published") or e.findtext(f"{ATOM}updated"), "published")
        return http(FeedItem(clean(e.findtext(f"{ATOM}title"), 300), clean(_atom_link(e), 1000), summary, published))

    if root.tag == "rss" or root.find("channel") is not None:
        return _each(root.findall("./channel/item")[:MAX_ITEMS], rss, lambda it: f"post {clean(it.findtext('title'), 80)!r}")
    if root.tag == f"{ATOM}feed":
        return _each(root.findall(f"{ATOM}entry")[:MAX_ITEMS], atom, lambda e: f"post {clean(e.findtext(f'{ATOM}title'), 80)!r}")
    raise FeedError(f"the feed is neither RSS 2.0 nor Atom (root element {clean(root.tag, 60)!r})")


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


#: Digits of a JSON integer turned into a number; a longer one stays text (and a reader refuses it).
_INT_DIGITS = 40


def _json(body: bytes, what: str) -> Any:
    """JSON with bounded numbers: a 5,000-digit integer or `NaN` becomes text a reader refuses per
    item, instead of an error for the whole answer (or minutes of conversion)."""
    try:
        return json.loads(
            body,
            parse_int=lambda t: int(t) if len(t) <= _INT_DIGITS else t,
            parse_constant=lambda t: t,
        )
    except (ValueError, RecursionError) as exc:
        raise FeedError(f"{what} is not JSON") from exc


_NAME = re.compile(r"^[A-Za-z0-9._-]{1,100}/[A-Za-z0-9._-]{1,100}$")
_REF = re.compile(r"^[A-Za-z0-9._/-]{1,200}$")


def _str(v: object, limit: int = 300) -> str:
    return clean(v, limit) if isinstance(v, str) else ""


def parse_repos(body: bytes) -> Parsed[Repo]:
    """Public, non-fork, non-archived repositories of an organisation listing."""
    data = _json(body, "the repository list")
    if not isinstance(data, list):
        raise FeedError("the repository list is not a JSON list")

    def repo(r: object) -> Repo | None:
        if not isinstance(r, dict) or r.get("fork") or r.get("archived") or r.get("private"):
            return None
        name, branch = _str(r.get("full_name")), _str(r.get("default_branch")) or "main"
        if not (_NAME.match(name) and _REF.match(branch) and ".." not in branch):
            return None
        return Repo(name, branch, date_value(r.get("pushed_at"), "pushed_at"))

    return _each(data[:MAX_ITEMS], repo, lambda r: f"repository {_str(r.get('full_name') if isinstance(r, dict) else '', 80)!r}")


def parse_tree(body: bytes) -> Parsed[RepoFile]:
    """The files (blobs) of a recursive tree listing."""
    data = _json(body, "the file tree")
    tree = data.get("tree") if isinstance(data, dict) else None
    if not isinstance(tree, list):
        raise FeedError("the file tree has no `tree` list")

    def blob(t: object) -> RepoFile | None:
        if not (isinstance(t, dict) and t.get("type") == "blob" and isinstance(t.get("path"), str)):
            return None
        path = t["path"]
        if len(path) > 500 or ".." in path.split("/") or _CONTROL.search(path):
            return None
        size = t.get("size")
        return RepoFile(path, 0 if size is None else whole_number(size, "size", 0, 1 << 50))

    return _each(tree[:20000], blob, lambda t: f"file {_str(t.get('path') if isinstance(t, dict) else '', 80)!r}")


def parse_commit_date(body: bytes) -> dt.date | None:
    """The committer date of the first commit of a commit list (None for an empty list; `date.min`
    for a commit without a date). FeedError for another shape or an unreadable date."""
    data = _json(body, "the commit list")
    if not isinstance(data, list):
        raise FeedError("the commit list is not a JSON list")
    if not data or not isinstance(data[0], dict):
        return None
    commit = data[0].get("commit") if isinstance(data[0].get("commit"), dict) else {}
    who = commit.get("committer") if isinstance(commit.get("committer"), dict) else {}
    try:
        return date_value(who.get("date") or None, "the commit date") or dt.date.min
    except BadValue as exc:
        raise FeedError(str(exc)) from exc
