"""The executor's records: per-job limits, a job, its outcome (`Done` or `Failure`) and the
`Executor` protocol, shared by the driver (`ingest.run.executor`) and the child (`ingest.run.child`)."""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import Any, Literal, Protocol

#: Default wall-clock limit for one report's extraction and analysis, in seconds.
DEFAULT_TIMEOUT = 60.0
#: Default memory (address-space) limit for one report's worker process, in MB.
DEFAULT_MEMORY_MB = 1024
#: Shortest time limit a job gets, however little of its report's time is left.
MIN_JOB_SECONDS = 1.0
#: Seconds a job's process may take to start before its time limit begins to run.
STARTUP_GRACE = 30.0
#: Modules the forkserver imports once, so each job's process starts with them loaded.
#: The driver forks jobs itself only while its address space is at most this share of a worker's
#: memory limit (a forked worker inherits it, and RLIMIT_AS counts it).
FORK_HERE_SHARE = 0.25

#: Called as progress(pages_done, pages_total) from inside a job.
Progress = Callable[[int, int], None]
#: A job's function: (arg, progress) -> picklable value. Must be importable by name (module level).
JobFn = Callable[[Any, Progress | None], Any]
#: Where a job's process comes from: "auto" (this process when `fork_here`, else the forkserver).
StartMethod = Literal["auto", "fork", "forkserver"]


class ExecutorError(Exception):
    """The executor itself cannot run (e.g. the Dask scheduler is unreachable); nothing was ingested."""


@dataclass(frozen=True)
class Limits:
    """Per-job limits; `memory_mb` caps the worker's address space (RLIMIT_AS)."""

    timeout: float = DEFAULT_TIMEOUT
    memory_mb: int = DEFAULT_MEMORY_MB

    def __post_init__(self) -> None:
        t = self.timeout
        if isinstance(t, bool) or not isinstance(t, int | float) or not math.isfinite(t) or t <= 0:
            raise ValueError(f"timeout must be a positive number of seconds, not {t!r}")
        m = self.memory_mb
        if isinstance(m, bool) or not isinstance(m, int) or m < 64:
            raise ValueError(f"memory limit must be a whole number of MB, at least 64, not {m!r}")


def describe_mb(mb: float) -> str:
    """1024 → "1 GB", 1536 → "1.5 GB", 300 → "300 MB"."""
    return f"{mb / 1024:g} GB" if mb >= 1024 else f"{mb:g} MB"


@dataclass(frozen=True)
class Job:
    key: Any
    fn: JobFn
    arg: Any
    #: This job's wall-clock limit when shorter than the executor's (what is left of a report's
    #: `--timeout` after its download); None: the executor's.
    timeout: float | None = None

    def limits(self, limits: Limits) -> Limits:
        """The executor's limits with this job's own time limit, if it has one."""
        if self.timeout is None or self.timeout >= limits.timeout:
            return limits
        return Limits(timeout=min(limits.timeout, max(self.timeout, MIN_JOB_SECONDS)), memory_mb=limits.memory_mb)


@dataclass(frozen=True)
class Done:
    """The job returned `value`; `peak_mb` is the worker's peak resident memory (None if unknown)."""

    value: Any
    seconds: float
    peak_mb: float | None = None


@dataclass(frozen=True)
class Failure:
    """The job did not return: over its time or memory limit, crashed, or raised."""

    kind: Literal["timeout", "memory", "crash", "error"]
    message: str
    seconds: float
    peak_mb: float | None = None


Result = Done | Failure


class Executor(Protocol):
    def imap_unordered(self, jobs: Iterable[Job]) -> Iterator[tuple[Any, Result]]: ...

    def forks_here(self) -> bool: ...

    def close(self) -> None: ...
