"""The child side of `ingest.run.executor`: the supervisor (own process group) forks the worker,
which runs one job under the limits and sends what happened back on the pipe."""

from __future__ import annotations

import io
import math
import os
import pickle
import sys
from contextlib import suppress
from multiprocessing.connection import Connection
from typing import Any

from ingest.run.jobs import JobFn, Limits

try:
    import resource
except ImportError:  # not POSIX: only the wall-clock limit applies
    resource = None  # type: ignore[assignment]


#: Opens a message that is a job's pickled value (a pickle of protocol 2 or more opens with 0x80).
RAW_VALUE = b"FRL-VALUE\x00"


def _apply_limits(limits: Limits) -> None:
    """Cap the calling process: address space, CPU seconds (a backstop to the wall clock), no core files."""
    if resource is None:
        return

    def cap(which: int, soft: int, hard: int) -> None:
        _, cur_hard = resource.getrlimit(which)
        if cur_hard != resource.RLIM_INFINITY:
            soft, hard = min(soft, cur_hard), min(hard, cur_hard)
        with suppress(ValueError, OSError):
            resource.setrlimit(which, (soft, hard))

    mem = limits.memory_mb * 1024 * 1024
    cap(resource.RLIMIT_AS, mem, mem)
    cpu = math.ceil(limits.timeout) + 5
    cap(resource.RLIMIT_CPU, cpu, cpu + 5)
    cap(resource.RLIMIT_CORE, 0, 0)


def _send(conn: Connection, msg: tuple) -> None:
    with suppress(OSError, ValueError):
        conn.send(msg)


def _worker(conn: Connection, fn: JobFn, arg: Any, limits: Limits) -> None:
    """Body of the worker process: run the job under the limits and send what happened."""
    try:
        _apply_limits(limits)
        conn.send(("started",))
        value = fn(arg, lambda done, total: conn.send(("page", done, total)))
        # Sent as its pickle after a mark, unpickled by the driver once it has started the next job
        # (see `ingest.run.executor.run_jobs`); one buffer, as `conn.send` would make.
        buf = io.BytesIO()
        buf.write(RAW_VALUE)
        pickle.dump(value, buf, protocol=pickle.HIGHEST_PROTOCOL)
        conn.send_bytes(buf.getbuffer())
    except MemoryError:
        _send(conn, ("memory",))
    except BaseException as exc:  # the driver turns this into a failed report, never a crash
        try:
            text = f"{type(exc).__name__}: {exc}"
        except BaseException:
            text = type(exc).__name__
        _send(conn, ("error", text[:2000]))


def _supervise(conn: Connection, fn: JobFn, arg: Any, limits: Limits) -> None:
    """Body of the supervisor: own process group, fork the worker, report its end and peak memory."""
    with suppress(OSError):  # already a session leader when started by Popen(start_new_session=True)
        os.setsid()
    pid = os.fork()
    if pid == 0:  # the worker
        try:
            _worker(conn, fn, arg, limits)
        finally:
            os._exit(0)
    _, status, usage = os.wait4(pid, 0)
    _send(conn, ("exit", status, usage.ru_maxrss / 1024))  # ru_maxrss is in KB on Linux
    conn.close()


def _child_main(argv: list[str]) -> None:
    """`python -m ingest.run.executor FD`: a supervisor started by Popen; the job comes pickled on stdin."""
    conn = Connection(int(argv[0]), readable=False)
    fn, arg, limits = pickle.loads(sys.stdin.buffer.read())
    _supervise(conn, fn, arg, limits)
