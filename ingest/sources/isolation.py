"""Where the sources layer runs work on bytes from the network: a hook its caller passes in.

Downloads and API requests decode what a server sends; that runs in a child process with a memory
limit, killed at a total deadline, so a server that defeats every in-process bound (a native
library that allocates, a DNS lookup that never returns) stops only that child. The process
runner belongs to a later layer (`ingest.run`), so this layer does not import it: a caller that
has it passes `ingest.run.isolate.isolate` (the pipeline, the discover command, the dashboard),
and `in_process` is the default for code that runs without one (tests that watch this process's
sockets). Either way the in-process bounds hold (`ingest.sources.http`: one total deadline, the
size cap on every layer); the child adds the memory limit and the hard stop.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal, Protocol

#: A job run in isolation: `fn(arg, progress)` (the executor's job signature; `progress` is unused here).
JobFn = Callable[[Any, Any], Any]


@dataclass(frozen=True)
class Isolated:
    """How one isolated call ended: its `value`, or why not (`kind`, `message`); the child's peak memory."""

    value: Any = None
    kind: Literal["ok", "timeout", "memory", "crash", "error"] = "ok"
    message: str = ""
    peak_mb: float | None = None

    @property
    def ok(self) -> bool:
        return self.kind == "ok"


class Isolate(Protocol):
    """Run `fn(arg, None)` under a wall-clock limit (seconds) and a memory limit (MB)."""

    def __call__(self, fn: JobFn, arg: Any, timeout: float, memory_mb: int) -> Isolated: ...


def in_process(fn: JobFn, arg: Any, timeout: float, memory_mb: int) -> Isolated:
    """Run in this process: only the in-process bounds apply (no memory limit, no hard stop)."""
    return Isolated(fn(arg, None))


class PeakMemory:
    """The highest peak memory (MB) any child process of one kind reported (eval/bad_inputs.py prints it)."""

    def __init__(self) -> None:
        self.mb = 0.0

    def note(self, mb: float | None) -> None:
        if mb is not None and mb > self.mb:
            self.mb = mb
