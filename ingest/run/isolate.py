"""`ingest.sources.isolation`'s hook, served by this package's runner: one job in a limited child process.

The sources layer (downloads, API requests) comes first and does not import the runner; its
callers pass `isolate` in.
"""

from __future__ import annotations

from typing import Any

from ingest.run.executor import Done, Limits, run_isolated
from ingest.sources.isolation import Isolated, JobFn


def isolate(fn: JobFn, arg: Any, timeout: float, memory_mb: int) -> Isolated:
    """`fn(arg, progress)` in a child process under these limits (`ingest.run.executor.run_isolated`)."""
    result = run_isolated(fn, arg, Limits(timeout=timeout, memory_mb=memory_mb))
    if isinstance(result, Done):
        return Isolated(result.value, peak_mb=result.peak_mb)
    return Isolated(None, result.kind, result.message, result.peak_mb)
