"""Candidate reports: what an arXiv entry, a blog post or a repository file proposes, with guesses.

The model name, the organisation and the id are guesses from untrusted text; they are made by
general rules (the title's part before a colon, a watched model name in the title, the lab that
owns the watched organisation or feed) and the proposal says so (`organization-guessed` tag and
the basis in its notes). Nothing here makes a request.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import fnmatch
import re
from dataclasses import dataclass
from posixpath import basename
from urllib.parse import quote

from ingest.sources.feeds import ArxivEntry, FeedItem, Repo
from ingest.sources.schema import DocType
from ingest.sources.watch import Lab, Watch

MAX_MODEL = 80


@dataclass(frozen=True)
class Candidate:
    """One proposed report, before it is written to reports/incoming/."""

    model: str
    organization: str
    basis: str  # why this organisation (shown in the proposal's notes)
    country: str | None
    url: str
    released: dt.date | None
    doc_type: DocType
    title: str
    via: str  # arxiv | github | feed
    arxiv_id: str | None = None
    version: int = 1
    download: str | None = None  # where the file's bytes are read to hash it (repository files)
    id: str = ""

    def with_id(self, rid: str) -> Candidate:
        return dataclasses.replace(self, id=rid)

    def row(self, status: str) -> tuple[str, ...]:
        """The candidate as a line of discover's table."""
        return (self.id or "-", self.via, str(self.released or "-"), self.model, self.organization, status, self.url)


def _contains(text: str, name: str) -> bool:
    """Whether `name` occurs in `text` as a word (case-insensitive; 'Qwen' in 'Qwen3', not in 'Qwenlike'…)."""
    return re.search(rf"(?<![A-Za-z]){re.escape(name)}(?![a-z])", text, re.IGNORECASE) is not None


def guess_model(title: str, phrases: list[str], models: list[str]) -> str:
    """The model a title is about: the part before a colon when short; else the title without the
    watched phrases ('technical report') when short; else the word carrying a watched model name."""
    t = title.strip()
    head = re.split(r"\s*[:|–—]\s+", t, maxsplit=1)[0]
    if head != t and 0 < len(head.split()) <= 5:
        return head[:MAX_MODEL]
    rest = t
    for p in phrases:
        rest = re.sub(re.escape(p), " ", rest, flags=re.IGNORECASE)
    rest = re.sub(r"\s+", " ", rest).strip(" -:,.")
    if rest and len(rest.split()) <= 4:
        return rest[:MAX_MODEL]
    for m in models:
        hit = re.search(rf"(?<![A-Za-z]){re.escape(m)}[\w.-]*(?:[ -][A-Z0-9][\w.]*)?", t, re.IGNORECASE)
        if hit:
            return hit.group(0)[:MAX_MODEL]
    return t[:MAX_MODEL] or "unnamed"


def guess_lab(text: str, labs: list[Lab]) -> tuple[Lab | None, str]:
    """The lab most named in the text (its name or its model families) and the basis of the guess."""
    best: tuple[int, Lab | None, str] = (0, None, "")
    for lab in labs:
        hits = [n for n in [lab.name, *lab.models] if _contains(text, n)]
        if len(hits) > best[0]:
            best = (len(hits), lab, f"the text names {', '.join(hits)} ({lab.name} in data/watch.yaml)")
    return best[1], best[2] or "no watched lab is named in the title or abstract"


def unique_id(model: str, taken: set[str]) -> str:
    """A report id from the model name (lowercase, '-' between words), unique among `taken`."""
    base = re.sub(r"[^a-z0-9.]+", "-", model.lower()).strip("-.")[:56] or "report"
    if not re.match(r"^[a-z0-9]", base):
        base = f"r-{base}"[:56]
    rid, n = base, 1
    while rid in taken:
        n += 1
        rid = f"{base}-{n}"
    return rid


def _since(d: dt.date | None, since: dt.date) -> bool:
    return d is not None and d >= since


def from_arxiv(e: ArxivEntry, watch: Watch, since: dt.date) -> Candidate | None:
    """A candidate for an e-print first published (or revised) on or after `since` that a watched
    model name is in the title of, or whose title or abstract has a watched phrase."""
    if not (_since(e.published, since) or _since(e.updated, since)):
        return None
    models = [m for lab in watch.labs for m in lab.models]
    text = f"{e.title} {e.summary}"
    titled = any(_contains(e.title, m) for m in models)
    if not titled and not any(p.lower() in text.lower() for p in watch.arxiv.phrases):
        return None
    lab, basis = guess_lab(text, watch.labs)
    released = e.published if _since(e.published, since) else e.updated
    return Candidate(
        model=guess_model(e.title, watch.arxiv.phrases, models),
        organization=lab.name if lab else "unknown",
        basis=basis,
        country=lab.country if lab else None,
        url=f"https://arxiv.org/abs/{e.arxiv_id}",
        released=e.published or released,
        doc_type="arxiv",
        title=e.title,
        via="arxiv",
        arxiv_id=e.arxiv_id,
        version=e.version if not _since(e.published, since) else 1,
    )


def from_feed(it: FeedItem, lab: Lab, watch: Watch, since: dt.date) -> Candidate | None:
    """A candidate for a post published on or after `since` that names one of the lab's models or a phrase."""
    if not _since(it.published, since):
        return None
    text = f"{it.title} {it.summary}"
    if (lab.models or watch.arxiv.phrases) and not (
        any(_contains(text, m) for m in lab.models) or any(p.lower() in text.lower() for p in watch.arxiv.phrases)
    ):
        return None
    return Candidate(
        model=guess_model(it.title, watch.arxiv.phrases, lab.models),
        organization=lab.name,
        basis=f"the post is in {lab.name}'s feed (data/watch.yaml)",
        country=lab.country,
        url=it.url,
        released=it.published,
        doc_type="blog",
        title=it.title,
        via="feed",
    )


def wanted_file(path: str, patterns: list[str]) -> bool:
    """Whether a repository file's name matches one of the patterns (case-insensitive)."""
    name = basename(path).lower()
    return any(fnmatch.fnmatchcase(name, p.lower()) for p in patterns)


def from_github(repo: Repo, path: str, changed: dt.date, lab: Lab, raw_base: str) -> Candidate:
    """A candidate for a report file added or changed in a watched repository."""
    owner_repo = repo.full_name
    model = owner_repo.split("/", 1)[1]
    if not any(_contains(model, m) for m in lab.models):
        stem = re.sub(r"\.(pdf|md)$", "", basename(path), flags=re.IGNORECASE)
        model = next((stem for m in lab.models if _contains(stem, m)), model)
    quoted = quote(path)
    return Candidate(
        model=model[:MAX_MODEL],
        organization=lab.name,
        basis=f"the repository {owner_repo} belongs to a watched organisation of {lab.name} (data/watch.yaml)",
        country=lab.country,
        url=f"https://github.com/{owner_repo}/blob/{repo.default_branch}/{quoted}",
        released=changed if changed != dt.date.min else None,
        doc_type="github-pdf" if path.lower().endswith(".pdf") else "other",
        title=f"{owner_repo}: {path}"[:300],
        via="github",
        download=f"{raw_base}/{owner_repo}/{repo.default_branch}/{quoted}",
    )
