"""`python -m ingest discover`: candidate reports from arXiv, GitHub and lab feeds, proposed as YAML.

Flow: load `data/watch.yaml` → ask each source for what appeared since the date (default: the
last run) → drop what is already known (same URL, same arXiv id in any version, same SHA-256 of
the file, a dismissed candidate) → write one proposed report per new candidate into
`reports/incoming/<id>.yaml` (valid for `python -m ingest check`; the organisation is a guess,
tagged `organization-guessed`) → print a table. `--accept ID` moves a proposal into `reports/`;
`--dismiss ID` deletes it and remembers its URL.

Every source is untrusted and nobody may be watching: a failing unit of work (a query, an
organisation, a repository, a feed) is a warning and the others go on; an item with a value that
cannot be read is left out and the summary says which and why ("skipped: …"). A file in
`reports/incoming/` is never overwritten: the state remembers what the tool wrote (id, URL,
SHA-256), so a proposal the user edited — even into one that no longer validates — keeps its
candidate from being proposed again, and a new proposal whose id is taken gets a new name
(files are created exclusively, so not even a file saved at the same moment is replaced).

When no source could be reached (no network), the run prints one line and writes nothing —
neither proposals nor the date of the run.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import os
import re
import sys
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

import yaml
from pydantic import ValidationError

from ingest.sources import fetch
from ingest.sources.api import ApiClient, ApiError
from ingest.sources.candidates import Candidate, from_arxiv, from_feed, from_github, unique_id, wanted_file
from ingest.sources.confine import OutsideRoots, folder_inside
from ingest.sources.feeds import FeedError, Parsed, Repo, parse_arxiv, parse_commit_date, parse_feed, parse_repos, parse_tree
from ingest.sources.isolation import Isolate, in_process
from ingest.sources.registry import SpecFileError, load_registry, parse_yaml, read_file
from ingest.sources.schema import ID_PATTERN, ReportSpec
from ingest.sources.urls import UrlError, normalize_url
from ingest.sources.watch import Lab, Proposed, State, Watch, WatchError, load_state, load_watch, save_state

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
    """What is already there: reports (and proposals) by URL, arXiv id and source hash; every file
    name taken; and the candidates whose proposal the user edited (kept as the user left it)."""

    urls: dict[str, str]
    arxiv: dict[str, str]
    sha: dict[str, str]
    ids: set[str]
    dismissed: set[str]
    kept: dict[str, str] = field(default_factory=dict)  # url key -> why the edited proposal stands for it

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


def sha256_of(path: Path) -> str | None:
    """SHA-256 of a proposal file's bytes (read as every report file is: a regular file within the size
    cap); None when it cannot be read so."""
    try:
        return hashlib.sha256(read_file(path).encode("utf-8")).hexdigest()
    except SpecFileError:
        return None


def _raw_url(path: Path) -> str | None:
    """`source.url` of a report file that does not validate, read as leniently as the guarded YAML
    loader allows (None when even that fails)."""
    try:
        data = parse_yaml(read_file(path), str(path))
    except SpecFileError:
        return None
    src = data.get("source") if isinstance(data, dict) else None
    url = src.get("url") if isinstance(src, dict) else None
    return url if isinstance(url, str) else None


def known_reports(reports_dir: Path, store: DataFolder, state: State) -> Known:
    """Every report and proposal (YAML), every stored source hash (tables and history), every dismissal,
    and the proposals the tool wrote that are still in incoming/ (edited or not, valid or not)."""
    k = Known({}, {}, {}, set(), {url_key(u) for u in state.dismissed})
    for folder in (reports_dir, reports_dir / INCOMING):
        reg = load_registry(folder)
        for spec in reg.reports:
            k.add(spec)
        k.ids.update(Path(e.file).stem for e in reg.errors)  # a file that fails to load still holds its name
        if folder.is_dir():
            k.ids.update(p.stem for p in folder.glob("*.yaml"))
    for rid, was in state.proposed.items():
        path = reports_dir / INCOMING / f"{rid}.yaml"
        if not path.is_file():
            continue
        edited = sha256_of(path) != was.sha256
        urls = {url_key(was.url)} | ({url_key(u)} if edited and (u := _raw_url(path)) else set())
        why = f"kept: {INCOMING}/{rid}.yaml (you edited it)" if edited else f"already proposed: {INCOMING}/{rid}.yaml"
        for u in urls:
            k.kept.setdefault(u, why)
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
    failing unit is an error line and the others go on; an item left out is a `skipped` line."""

    errors: list[str] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)
    ok: int = 0
    network: bool = True  # every failure so far was a host that could not be reached

    def run(self, what: str, unit: Callable[[], list[Candidate]]) -> list[Candidate]:
        try:
            found = unit()
        except (ApiError, FeedError) as exc:
            self.errors.append(f"{what}: {exc}")
            self.network = self.network and getattr(exc, "network", False)
            return []
        except Exception as exc:  # a bug must not stop the other sources either; it is named, not hidden
            self.errors.append(f"{what}: internal error ({type(exc).__name__}: {str(exc)[:200]})")
            self.network = False
            return []
        self.ok += 1
        return found

    def items(self, what: str, parsed: Parsed) -> list:
        """The parsed items; the ones left out become skipped lines naming the source."""
        self.skipped += [f"{what}: {line}" for line in parsed.skipped]
        return parsed.items


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
            entries = tally.items("arXiv", parse_arxiv(body))
            return [c for e in entries if (c := from_arxiv(e, watch, since)) is not None]

        out += tally.run("arXiv", query)
    return out


def _repo(watch: Watch, client: ApiClient, since: dt.date, repo: Repo, lab: Lab, tally: Tally) -> list[Candidate]:
    """Report files of one repository changed since the date (one tree listing, one commit query per
    file); a file whose commit list cannot be read is skipped, the others go on."""
    api, gh = watch.api.github, watch.github
    tree = client.get(f"{api}/repos/{repo.full_name}/git/trees/{repo.default_branch}", {"recursive": "1"})
    files = tally.items(f"GitHub {repo.full_name}", parse_tree(tree.body))
    out = []
    for f in [f for f in files if wanted_file(f.path, gh.files)][: gh.max_commits]:
        after = f"{since.isoformat()}T00:00:00Z"
        params = {"path": f.path, "sha": repo.default_branch, "since": after, "per_page": "1"}
        try:
            changed = parse_commit_date(client.get(f"{api}/repos/{repo.full_name}/commits", params).body)
        except FeedError as exc:
            tally.skipped.append(f"GitHub {repo.full_name}: file {f.path[:80]!r}: {exc}")
            continue
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
                body = client.get(url, params, "application/vnd.github+json").body
                listing.extend(tally.items(f"GitHub {org}", parse_repos(body)))
                return []

            tally.run(f"GitHub {org}", repos)
            for repo in listing[: gh.max_repos]:
                if repo.pushed is not None and repo.pushed >= since:
                    unit = lambda r=repo, lab=lab: _repo(watch, client, since, r, lab, tally)  # noqa: E731
                    out += tally.run(f"GitHub {repo.full_name}", unit)
    return out


def _feeds(watch: Watch, client: ApiClient, since: dt.date, tally: Tally) -> list[Candidate]:
    out: list[Candidate] = []
    for lab in watch.labs:
        for url in lab.feeds:

            def feed(url: str = url, lab: Lab = lab) -> list[Candidate]:
                body = client.get(url, accept="application/rss+xml, application/atom+xml, text/xml").body
                items = tally.items(f"feed {url}", parse_feed(body))
                return [c for it in items if (c := from_feed(it, lab, watch, since)) is not None]

            out += tally.run(f"feed {url}", feed)
    return out


@dataclass
class Found:
    candidates: list[Candidate]
    errors: list[str]
    answered: int  # units of work that succeeded
    network_only: bool  # every failure was a host that could not be reached
    skipped: list[str] = field(default_factory=list)  # items left out: which and why


def collect(watch: Watch, client: ApiClient, since: dt.date) -> Found:
    """Every source's candidates; a failing unit (query, organisation, repository, feed) is an error line,
    an unreadable item a skipped line."""
    tally = Tally()
    cands = [c for source in (_arxiv, _github, _feeds) for c in source(watch, client, since, tally)]
    return Found(cands, tally.errors, tally.ok, tally.network and bool(tally.errors), tally.skipped)


# ------------------------------------------------------------------------------------------ proposals


def _hash(c: Candidate, store: DataFolder, settings: fetch.FetchSettings, isolate: Isolate) -> tuple[str | None, str]:
    """SHA-256 of a repository file (downloaded into the ordinary cache, same limits as ingest)."""
    if not c.download:
        return None, ""
    try:
        return fetch.fetch_url(c.download, store.http_dir, settings=settings, isolate=isolate).sha256, ""
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


def create_new(path: Path, data: bytes) -> bool:
    """Write a file that does not exist yet, atomically; False (nothing written) when the name is
    taken, even by a file created a moment ago: the temp file is linked in, which never replaces."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.link(tmp, path)
        return True
    except FileExistsError:
        return False
    finally:
        os.unlink(tmp)


def _table(rows: list[tuple[str, ...]]) -> str:
    head = ("id", "via", "released", "model", "organization (guessed)", "status", "url")
    widths = [min(48, max(len(r[i]) for r in [head, *rows])) for i in range(len(head) - 1)]
    fmt = "  ".join(f"{{:<{w}.{w}}}" for w in widths) + "  {}"
    return "\n".join(fmt.format(*r) for r in [head, (*("-" * w for w in widths), "---"), *rows])


#: Days a candidate may be dated after today before it is skipped as implausible (a hostile feed's
#: year 2199); generous, so clocks and scheduled posts never matter.
FUTURE_DAYS = 366


@dataclass
class Proposing:
    """One run's writing of proposals: what is known, where, the settings, and what it wrote."""

    known: Known
    folder: Path
    store: DataFolder
    settings: fetch.FetchSettings
    isolate: Isolate
    today: dt.date
    written: dict[str, Proposed] = field(default_factory=dict)
    seen: set[str] = field(default_factory=set)

    def row(self, c: Candidate) -> tuple[str, ...]:
        """Write the proposal of one candidate, unless it is known; its line of the table."""
        if c.released and c.released > self.today + dt.timedelta(days=FUTURE_DAYS):
            return c.row(f"skipped: dated {c.released}, after today")
        dup = self.known.match(c)
        if c.arxiv_id and dup not in (None, "dismissed") and c.version > 1:
            return c.row(f"new version v{c.version} of {dup}")
        key = url_key(c.url)
        if dup or key in self.seen:
            return c.row(f"already present ({dup})" if dup and dup != "dismissed" else (dup or "duplicate"))
        if key in self.known.kept:
            return c.row(self.known.kept[key])
        self.seen.add(key)
        sha, note = _hash(c, self.store, self.settings, self.isolate)
        if sha and sha[:20] in {s[:20] for s in self.known.sha}:
            return c.row(f"same file as {next(r for s, r in self.known.sha.items() if s[:20] == sha[:20])}")
        return self._write(c, note)

    def _write(self, c: Candidate, note: str) -> tuple[str, ...]:
        """Create incoming/<id>.yaml under a free name (never over a file, not even one saved meanwhile)."""
        for _ in range(100):
            c = c.with_id(unique_id(c.model, self.known.ids))
            self.known.ids.add(c.id)
            try:
                text = proposal_yaml(c, self.today)
            except ValidationError as exc:  # a candidate the schema rejects is reported, not written
                return c.with_id("").row(f"not proposed: {exc.errors()[0]['msg'][:100]}")
            data = text.encode()
            try:
                if not create_new(self.folder / f"{c.id}.yaml", data):
                    continue  # the name was taken a moment ago: the next one
            except OSError as exc:
                return c.with_id("").row(f"not written: {exc.strerror or exc}")
            self.written[c.id] = Proposed(url=c.url, sha256=hashlib.sha256(data).hexdigest())
            return c.row("new" + (f"; {note}" if note else ""))
        return c.with_id("").row("not written: no free file name")


def run(
    watch_path: Path,
    reports_dir: Path,
    store: DataFolder,
    since: dt.date | None = None,
    fetch_settings: fetch.FetchSettings | None = None,
    isolate: Isolate = in_process,
    today: dt.date | None = None,
) -> int:
    """The discover command: 0 when it ran (even with no candidates), 1 when nothing could be asked, 2 for a
    bad watch list. `isolate` runs each request and download (the CLI passes a child-process runner)."""
    settings = fetch_settings or fetch.FetchSettings()
    try:
        watch = load_watch(watch_path)
    except WatchError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    try:
        folder_inside(reports_dir / INCOMING, reports_dir)
    except OutsideRoots as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    state = load_state(store.root)
    today = today or dt.datetime.now(dt.UTC).date()
    since = since or state.last_run or today - dt.timedelta(days=watch.first_days)
    token = os.environ.get(watch.github.token_env, "").strip()
    tokens = {watch.api.github: token} if token else {}
    client = ApiClient(watch.api, settings.allow_private_hosts, tokens, isolate=isolate, memory_mb=settings.memory_mb)
    found = collect(watch, client, since)
    if found.errors and not found.answered:  # nothing could be asked: write nothing, not even the date
        if found.network_only:
            print(f"error: cannot reach the network ({found.errors[0]}); nothing written", file=sys.stderr)
        else:
            for e in found.errors:
                print(f"error: {e}", file=sys.stderr)
            print("error: no source answered; nothing written", file=sys.stderr)
        return 1
    job = Proposing(known_reports(reports_dir, store, state), reports_dir / INCOMING, store, settings, isolate, today)
    rows = [job.row(c) for c in found.candidates]
    kept = {rid: p for rid, p in state.proposed.items() if (reports_dir / INCOMING / f"{rid}.yaml").is_file()}
    save_state(store.root, state.model_copy(update={"last_run": today, "proposed": kept | job.written}))
    print(f"since {since}: {len(found.candidates)} candidate(s), {len(job.written)} new proposal(s) in {reports_dir / INCOMING}")
    if rows:
        print(_table(rows))
    for e in found.errors:
        print(f"warning: {e}", file=sys.stderr)
    for line in found.skipped:
        print(f"skipped: {line}", file=sys.stderr)
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
    if src.is_symlink():
        raise ProposalError(f"{INCOMING}/{rid}.yaml is a link; only a proposal file itself is moved into the reports folder")
    reg = load_registry(reports_dir / INCOMING, files=[src]) if src.is_file() else None
    if reg is None or not reg.reports:
        raise ProposalError(f"{INCOMING}/{rid}.yaml: " + ("; ".join(str(e) for e in reg.errors) if reg else "no such proposal"))
    if accept:
        dst = reports_dir / f"{rid}.yaml"
        try:
            os.link(src, dst)  # never replaces a report, not even one saved a moment ago
        except FileExistsError:
            raise ProposalError(
                f"{dst.name} exists already in the reports folder; rename the proposal's id (and file) first"
            ) from None
        src.unlink()
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
