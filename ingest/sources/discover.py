"""`python -m ingest discover`: candidate reports from arXiv, GitHub and lab feeds, proposed as YAML.

Flow: load `data/watch.yaml` → ask each source for what appeared since the date (default: the
last run) → drop what is already known (same URL, same arXiv id in any version, same SHA-256 of
the file, a dismissed candidate) → write one proposed report per new candidate into
`reports/incoming/<id>.yaml` (valid for `python -m ingest check`; the organisation is a guess,
tagged `organization-guessed`) → print a table. `--accept ID` moves a proposal into `reports/`;
`--dismiss ID` deletes it and remembers its URL.

When no source could be reached (no network), the run prints one line and writes nothing —
neither proposals nor the date of the run.
"""

from __future__ import annotations

import datetime as dt
import os
import re
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

import yaml
from pydantic import ValidationError

from ingest.common.atomic import atomic_write_bytes
from ingest.sources import fetch
from ingest.sources.api import ApiClient, ApiError
from ingest.sources.candidates import Candidate, from_arxiv, from_feed, from_github, unique_id, wanted_file
from ingest.sources.feeds import FeedError, Repo, parse_arxiv, parse_commit_date, parse_feed, parse_repos, parse_tree
from ingest.sources.registry import load_registry
from ingest.sources.schema import ID_PATTERN, ReportSpec
from ingest.sources.urls import UrlError, normalize_url
from ingest.sources.watch import Lab, Watch, WatchError, load_state, load_watch, save_state

if TYPE_CHECKING:
    import pandas as pd

INCOMING = "incoming"
_ARXIV_VERSION = re.compile(r"(arxiv\.org/pdf/\d{4}\.\d{4,5})v\d+$")


class DataFolder(Protocol):
    """The data folder as discovery uses it: the store, passed in by the CLI (sources/ does not import
    store/, a later stage)."""

    root: Path  # discovery's own state file lives here
    http_dir: Path  # the download cache
    results_dir: Path  # the stored versions' history

    def has_results(self) -> bool: ...

    def read_table(self, name: str, columns: list[str] | None = None) -> pd.DataFrame: ...


def url_key(url: str) -> str:
    """A URL as compared for duplicates: normalised (arXiv abs → pdf, GitHub blob → raw), without
    arXiv version, fragment or trailing slash, host in lower case."""
    try:
        u = normalize_url(url)
    except UrlError:
        u = url
    u = u.split("#", 1)[0].rstrip("/")
    m = re.match(r"^(https?)://([^/]+)(.*)$", u)
    if m:
        u = f"{m.group(1).lower()}://{m.group(2).lower()}{m.group(3)}"
    return _ARXIV_VERSION.sub(r"\1", u.replace("http://", "https://", 1))


@dataclass
class Known:
    """What is already there: reports (and proposals) by URL, arXiv id and source hash."""

    urls: dict[str, str]
    arxiv: dict[str, str]
    sha: dict[str, str]
    ids: set[str]
    dismissed: set[str]

    def match(self, c: Candidate) -> str | None:
        """The id of the report this candidate duplicates ('dismissed' for a dismissed one), else None."""
        if url_key(c.url) in self.dismissed:
            return "dismissed"
        if c.arxiv_id and c.arxiv_id in self.arxiv:
            return self.arxiv[c.arxiv_id]
        return self.urls.get(url_key(c.url))

    def add(self, spec: ReportSpec) -> None:
        self.ids.add(spec.id)
        urls = [spec.source.url if spec.source else None, *(v.url for v in spec.versions)]
        for u in urls:
            if u:
                self.urls[url_key(u)] = spec.id
                m = re.search(r"arxiv\.org/(?:abs|pdf)/(\d{4}\.\d{4,5})", u)
                if m:
                    self.arxiv[m.group(1)] = spec.id
        if spec.arxiv_id:
            self.arxiv[spec.arxiv_id.split("v")[0]] = spec.id


def known_reports(reports_dir: Path, store: DataFolder, dismissed: list[str]) -> Known:
    """Every report and proposal (YAML), every stored source hash (tables and history), every dismissal."""
    k = Known({}, {}, {}, set(), {url_key(u) for u in dismissed})
    for folder in (reports_dir, reports_dir / INCOMING):
        for spec in load_registry(folder).reports:
            k.add(spec)
    if store.has_results():
        try:
            df = store.read_table("reports", columns=["report_id", "sha256"])
            k.sha.update({str(s): str(r) for r, s in zip(df["report_id"], df["sha256"], strict=False) if s})
        except Exception:  # a damaged table must not stop discovery; the URL checks still apply
            pass
    hist = store.results_dir / "history"
    for p in hist.glob("*/*.json.gz") if hist.is_dir() else ():
        k.sha[p.name[:20]] = p.parent.name
    return k


# ------------------------------------------------------------------------------------------ sources


@dataclass
class Tally:
    """Runs the units of work of the sources (a query, an organisation, a repository, a feed): a
    failing unit is an error line and the others go on."""

    errors: list[str] = field(default_factory=list)
    ok: int = 0
    network: bool = True  # every failure so far was a host that could not be reached

    def run(self, what: str, unit: Callable[[], list[Candidate]]) -> list[Candidate]:
        try:
            found = unit()
        except (ApiError, FeedError) as exc:
            self.errors.append(f"{what}: {exc}")
            self.network = self.network and getattr(exc, "network", False)
            return []
        self.ok += 1
        return found


def _arxiv(watch: Watch, client: ApiClient, since: dt.date, tally: Tally) -> list[Candidate]:
    names = sorted({m for lab in watch.labs for m in [*lab.models, lab.name]})
    cats = " OR ".join(f"cat:{c}" for c in watch.arxiv.categories)
    out: list[Candidate] = []
    for i in range(0, len(names), 10):
        who = " OR ".join(f'all:"{n}"' for n in names[i : i + 10])
        params = {
            "search_query": f"({cats}) AND ({who})" if cats else f"({who})",
            "sortBy": "submittedDate",
            "sortOrder": "descending",
            "max_results": str(watch.arxiv.max_results),
        }

        def query(params: dict[str, str] = params) -> list[Candidate]:
            body = client.get(watch.api.arxiv, params, "application/atom+xml", interval=watch.api.arxiv_interval).body
            return [c for e in parse_arxiv(body) if (c := from_arxiv(e, watch, since)) is not None]

        out += tally.run("arXiv", query)
    return out


def _repo(watch: Watch, client: ApiClient, since: dt.date, repo: Repo, lab: Lab) -> list[Candidate]:
    """Report files of one repository changed since the date (one tree listing, one commit query per file)."""
    api, gh = watch.api.github, watch.github
    tree = client.get(f"{api}/repos/{repo.full_name}/git/trees/{repo.default_branch}", {"recursive": "1"})
    out = []
    for f in [f for f in parse_tree(tree.body) if wanted_file(f.path, gh.files)][: gh.max_commits]:
        after = f"{since.isoformat()}T00:00:00Z"
        params = {"path": f.path, "sha": repo.default_branch, "since": after, "per_page": "1"}
        changed = parse_commit_date(client.get(f"{api}/repos/{repo.full_name}/commits", params).body)
        if changed is not None:
            out.append(from_github(repo, f.path, changed, lab, watch.api.github_raw))
    return out


def _github(watch: Watch, client: ApiClient, since: dt.date, tally: Tally) -> list[Candidate]:
    gh = watch.github
    out: list[Candidate] = []
    for lab in watch.labs:
        for org in lab.github:
            params = {"sort": "pushed", "direction": "desc", "per_page": str(gh.max_repos), "type": "public"}
            listing: list[Repo] = []

            def repos(org: str = org, params: dict[str, str] = params, listing: list[Repo] = listing) -> list[Candidate]:
                url = f"{watch.api.github}/orgs/{org}/repos"
                listing.extend(parse_repos(client.get(url, params, "application/vnd.github+json").body))
                return []

            tally.run(f"GitHub {org}", repos)
            for repo in listing[: gh.max_repos]:
                if repo.pushed is not None and repo.pushed >= since:
                    out += tally.run(f"GitHub {repo.full_name}", lambda r=repo, lab=lab: _repo(watch, client, since, r, lab))
    return out


def _feeds(watch: Watch, client: ApiClient, since: dt.date, tally: Tally) -> list[Candidate]:
    out: list[Candidate] = []
    for lab in watch.labs:
        for url in lab.feeds:

            def feed(url: str = url, lab: Lab = lab) -> list[Candidate]:
                items = parse_feed(client.get(url, accept="application/rss+xml, application/atom+xml, text/xml").body)
                return [c for it in items if (c := from_feed(it, lab, watch, since)) is not None]

            out += tally.run(f"feed {url}", feed)
    return out


@dataclass
class Found:
    candidates: list[Candidate]
    errors: list[str]
    answered: int  # units of work that succeeded
    network_only: bool  # every failure was a host that could not be reached


def collect(watch: Watch, client: ApiClient, since: dt.date) -> Found:
    """Every source's candidates; a failing unit (query, organisation, repository, feed) is an error line."""
    tally = Tally()
    cands = [c for source in (_arxiv, _github, _feeds) for c in source(watch, client, since, tally)]
    return Found(cands, tally.errors, tally.ok, tally.network and bool(tally.errors))


# ------------------------------------------------------------------------------------------ proposals


def _hash(c: Candidate, store: DataFolder, settings: fetch.FetchSettings) -> tuple[str | None, str]:
    """SHA-256 of a repository file (downloaded into the ordinary cache, same limits as ingest)."""
    if not c.download:
        return None, ""
    try:
        return fetch.fetch_url(c.download, store.http_dir, settings=settings).sha256, ""
    except fetch.FetchError as exc:
        return None, f"not hashed ({str(exc)[:120]})"


def proposal_yaml(c: Candidate, today: dt.date) -> str:
    """The proposed report file: a comment saying where it came from, then fields the schema accepts."""
    data: dict[str, object] = {"id": c.id, "model": c.model, "organization": c.organization}
    if c.country:
        data["country"] = c.country
    if c.released:
        data["released"] = c.released
    data["doc_type"] = c.doc_type
    if c.arxiv_id:
        data["arxiv_id"] = c.arxiv_id
    data["source"] = {"url": c.url}
    data["tags"] = ["discovered", "organization-guessed"]
    data["notes"] = f"Proposed by discover ({c.via}) on {today}. Organization guessed: {c.basis}. Title: {c.title}"
    spec = ReportSpec.model_validate(data)  # never write a proposal that `check` would reject
    head = f"# Proposed by `python -m ingest discover` on {today}; check every field, then:\n"
    head += f"#   python -m ingest discover --accept {spec.id}\n"
    return head + yaml.safe_dump(data, sort_keys=False, allow_unicode=True, width=120)


def _table(rows: list[tuple[str, ...]]) -> str:
    head = ("id", "via", "released", "model", "organization (guessed)", "status", "url")
    widths = [min(48, max(len(r[i]) for r in [head, *rows])) for i in range(len(head) - 1)]
    fmt = "  ".join(f"{{:<{w}.{w}}}" for w in widths) + "  {}"
    return "\n".join(fmt.format(*r) for r in [head, (*("-" * w for w in widths), "---"), *rows])


def run(
    watch_path: Path,
    reports_dir: Path,
    store: DataFolder,
    since: dt.date | None = None,
    fetch_settings: fetch.FetchSettings | None = None,
) -> int:
    """The discover command: 0 when it ran (even with no candidates), 1 when nothing could be asked, 2 for a bad watch list."""
    settings = fetch_settings or fetch.FetchSettings()
    try:
        watch = load_watch(watch_path)
    except WatchError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    state = load_state(store.root)
    today = dt.datetime.now(dt.UTC).date()
    since = since or state.last_run or today - dt.timedelta(days=watch.first_days)
    token = os.environ.get(watch.github.token_env, "").strip()
    client = ApiClient(watch.api, settings.allow_private_hosts, {watch.api.github: token} if token else {})
    try:
        found = collect(watch, client, since)
    finally:
        client.close()
    if found.errors and not found.answered:  # nothing could be asked: write nothing, not even the date
        if found.network_only:
            print(f"error: cannot reach the network ({found.errors[0]}); nothing written", file=sys.stderr)
        else:
            for e in found.errors:
                print(f"error: {e}", file=sys.stderr)
            print("error: no source answered; nothing written", file=sys.stderr)
        return 1
    known = known_reports(reports_dir, store, state.dismissed)
    rows, written, seen = [], 0, set()
    for c in found.candidates:
        dup = known.match(c)
        if c.arxiv_id and dup not in (None, "dismissed") and c.version > 1:
            rows.append(c.row(f"new version v{c.version} of {dup}"))
            continue
        if dup or url_key(c.url) in seen:
            rows.append(c.row(f"already present ({dup})" if dup and dup != "dismissed" else (dup or "duplicate")))
            continue
        seen.add(url_key(c.url))
        sha, note = _hash(c, store, settings)
        if sha and sha[:20] in {s[:20] for s in known.sha}:
            rows.append(c.row(f"same file as {next(r for s, r in known.sha.items() if s[:20] == sha[:20])}"))
            continue
        c = c.with_id(unique_id(c.model, known.ids))
        try:
            text = proposal_yaml(c, today)
        except ValidationError as exc:  # a candidate the schema rejects is reported, not written
            rows.append(c.row(f"not proposed: {exc.errors()[0]['msg'][:100]}"))
            continue
        known.ids.add(c.id)
        atomic_write_bytes(reports_dir / INCOMING / f"{c.id}.yaml", text.encode())
        written += 1
        rows.append(c.row("new" + (f"; {note}" if note else "")))
    save_state(store.root, state.model_copy(update={"last_run": today}))
    print(f"since {since}: {len(found.candidates)} candidate(s), {written} new proposal(s) in {reports_dir / INCOMING}")
    if rows:
        print(_table(rows))
    for e in found.errors:
        print(f"warning: {e}", file=sys.stderr)
    return 0


class ProposalError(Exception):
    """A proposal cannot be accepted or dismissed; the message is meant for the user."""


def proposals(reports_dir: Path) -> tuple[list[ReportSpec], list[str]]:
    """The proposals waiting in reports/incoming/ (valid ones) and the errors of the others."""
    folder = reports_dir / INCOMING
    if not folder.is_dir():
        return [], []
    reg = load_registry(folder)
    return reg.reports, [str(e) for e in reg.errors]


def move_proposal(reports_dir: Path, data_dir: Path, rid: str, accept: bool) -> str:
    """Accept (move into the reports folder) or dismiss (delete, remember its URL) one proposal;
    the line to show. The id is checked against the id pattern first, so it cannot name another folder."""
    if not isinstance(rid, str) or not re.match(ID_PATTERN, rid):
        raise ProposalError(f"{rid!r} is not a report id")
    src = reports_dir / INCOMING / f"{rid}.yaml"
    reg = load_registry(reports_dir / INCOMING, files=[src]) if src.is_file() else None
    if reg is None or not reg.reports:
        raise ProposalError(f"{INCOMING}/{rid}.yaml: " + ("; ".join(str(e) for e in reg.errors) if reg else "no such proposal"))
    if accept:
        dst = reports_dir / f"{rid}.yaml"
        if dst.exists():
            raise ProposalError(f"{dst.name} exists already in the reports folder; rename the proposal's id (and file) first")
        os.replace(src, dst)
        return f"accepted: {dst} (ingest it with: python -m ingest {dst})"
    spec = reg.reports[0]
    state = load_state(data_dir)
    if spec.source and spec.source.url and spec.source.url not in state.dismissed:
        save_state(data_dir, state.model_copy(update={"dismissed": [*state.dismissed, spec.source.url]}))
    src.unlink()
    return f"dismissed: {rid}"


def accept_or_dismiss(reports_dir: Path, store: DataFolder, accept: str | None = None, dismiss: str | None = None) -> int:
    """The CLI's --accept / --dismiss: one line either way; 2 for a bad id, 1 when it cannot be done."""
    rid = accept or dismiss or ""
    try:
        print(move_proposal(reports_dir, store.root, rid, accept=bool(accept)))
        return 0
    except ProposalError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2 if "is not a report id" in str(exc) else 1
