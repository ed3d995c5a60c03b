"""The watch list (`data/watch.yaml`) and the state of `discover` (`data/watch_state.json`).

The watch list names what a research group follows: labs (their model names, GitHub
organisations and blog feeds), arXiv categories and search phrases, and the API endpoints and
limits. It is validated strictly (unknown keys are errors), like every data file.

The state remembers the date of the last successful run (the default `--since`) and the
candidates a user dismissed (never proposed again). It is written atomically.
"""

from __future__ import annotations

import datetime as dt
import json
import re
from pathlib import Path

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from ingest.common.atomic import atomic_write_bytes

#: A watch list larger than this is refused before parsing (it is a short hand-written file).
MAX_WATCH_BYTES = 256 * 1024
_HOST_OR_ORG = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$")


class WatchError(ValueError):
    """The watch list cannot be used; the message says why (one line)."""


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", str_strip_whitespace=True, frozen=True)


def _http_url(v: str) -> str:
    if not re.match(r"^https?://[^\s/]+", v):
        raise ValueError(f"{v!r} is not an http(s) URL")
    return v


class Lab(_Strict):
    """A lab whose reports are followed."""

    name: str = Field(min_length=1, max_length=100, description="the organisation as reports name it")
    country: str | None = Field(None, description="country, copied into proposed reports")
    models: list[str] = Field(default_factory=list, description="model family names (searched on arXiv, matched in titles)")
    github: list[str] = Field(default_factory=list, description="GitHub organisations whose repositories are watched")
    feeds: list[str] = Field(default_factory=list, description="RSS 2.0 or Atom feed URLs of the lab's blog")

    @field_validator("github")
    @classmethod
    def _orgs(cls, v: list[str]) -> list[str]:
        for org in v:
            if not _HOST_OR_ORG.match(org):
                raise ValueError(f"{org!r} is not a GitHub organisation name")
        return v

    @field_validator("feeds")
    @classmethod
    def _feeds(cls, v: list[str]) -> list[str]:
        return [_http_url(u) for u in v]


class Arxiv(_Strict):
    """What to ask arXiv: categories, and phrases a report's title or abstract contains."""

    categories: list[str] = Field(default_factory=lambda: ["cs.CL", "cs.LG", "cs.AI"])
    phrases: list[str] = Field(default_factory=lambda: ["technical report"])
    max_results: int = Field(50, ge=1, le=200, description="entries asked for per query (newest first)")


class GitHub(_Strict):
    """What to look at in the watched organisations' repositories."""

    token_env: str = Field("GITHUB_TOKEN", description="environment variable holding a token (optional)")
    files: list[str] = Field(default_factory=lambda: ["*.pdf", "*report*.md"], description="file name patterns (fnmatch)")
    max_repos: int = Field(10, ge=1, le=100, description="most recently pushed repositories looked at per organisation")
    max_commits: int = Field(10, ge=1, le=100, description="commits since the date looked at per repository")


class Api(_Strict):
    """Endpoints (tests point them at a local server) and limits of the requests `discover` makes."""

    arxiv: str = "https://export.arxiv.org/api/query"
    github: str = "https://api.github.com"
    github_raw: str = Field("https://raw.githubusercontent.com", description="where a repository file's bytes are read")
    max_bytes: int = Field(5 * 1024 * 1024, ge=1024, le=100 * 1024 * 1024, description="size cap of one answer")
    timeout: float = Field(30.0, gt=0, le=300, description="seconds per request")
    min_interval: float = Field(1.0, ge=0, le=60, description="seconds between two requests to the same host")
    arxiv_interval: float = Field(3.0, ge=0, le=60, description="seconds between two arXiv API requests (arXiv asks for 3)")
    max_wait: float = Field(60.0, ge=0, le=3600, description="longest Retry-After / rate-limit wait obeyed; longer: skip")
    max_requests: int = Field(200, ge=1, le=5000, description="requests per run, all sources together")

    @field_validator("arxiv", "github", "github_raw")
    @classmethod
    def _urls(cls, v: str) -> str:
        return _http_url(v).rstrip("/")


class Watch(_Strict):
    """The whole watch list."""

    version: int = Field(1, ge=1, le=1)
    first_days: int = Field(30, ge=1, le=3650, description="days looked back on the first run (no last run stored)")
    arxiv: Arxiv = Field(default_factory=Arxiv)
    github: GitHub = Field(default_factory=GitHub)
    api: Api = Field(default_factory=Api)
    labs: list[Lab] = Field(default_factory=list)


def load_watch(path: Path) -> Watch:
    """The validated watch list; WatchError (one line) when missing, too big, not YAML or invalid."""
    try:
        raw = Path(path).read_bytes()
    except OSError as exc:
        raise WatchError(f"cannot read the watch list {path}: {exc.strerror or exc}") from exc
    if len(raw) > MAX_WATCH_BYTES:
        raise WatchError(f"the watch list {path} is larger than {MAX_WATCH_BYTES:,} bytes")
    try:
        data = yaml.safe_load(raw.decode("utf-8"))
        return Watch.model_validate(data or {})
    except (yaml.YAMLError, UnicodeDecodeError) as exc:
        raise WatchError(f"the watch list {path} is not valid YAML: {str(exc).splitlines()[0]}") from exc
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(x) for x in first["loc"])
        raise WatchError(f"the watch list {path}: {where}: {first['msg']}") from exc


# ------------------------------------------------------------------------------------------ state


class State(_Strict):
    """What `discover` remembers between runs."""

    last_run: dt.date | None = None
    dismissed: list[str] = Field(default_factory=list, description="URLs of dismissed candidates")


def state_path(data_dir: Path) -> Path:
    return Path(data_dir) / "watch_state.json"


def load_state(data_dir: Path) -> State:
    """The stored state; a missing or unreadable file is a fresh state (nothing is lost but the date)."""
    try:
        return State.model_validate(json.loads(state_path(data_dir).read_bytes()))
    except (OSError, ValueError):
        return State()


def save_state(data_dir: Path, state: State) -> None:
    atomic_write_bytes(state_path(data_dir), state.model_dump_json(indent=1).encode())
