"""Run per-report work in child processes with a wall-clock and a memory limit, N at a time.

Why: one hostile file (a deflate bomb, a pathological page) must not stall a batch or the
dashboard, nor take the machine's memory. Each job gets a fresh process, so a limit hit or a
crash ends only that job; the batch goes on.

Process layout per job (Linux):

    driver ──pipe── supervisor (own session) ──fork── worker (RLIMIT_AS, RLIMIT_CPU, no core)

The *worker* runs `fn(arg, progress)` and sends its value back on the pipe. The *supervisor*
waits for it with `os.wait4`, so it can report how the worker ended and its peak memory (a
native library that cannot allocate usually aborts rather than raising `MemoryError`). The
driver enforces the wall-clock deadline and, when it passes, kills the supervisor's whole
process group (the worker and anything it started). `RLIMIT_CPU` is a backstop that stops a
worker even if its driver died.

Where a supervisor is forked from, in order of preference:

* the driver itself, when it is light and single-threaded (a fresh `python -m ingest`: nothing
  but the pipeline and the registry loaded, no thread at all, see `fork_here`) — no second
  interpreter has to start and import the pipeline, so one report costs a fork, not a second
  of start-up. The limits are the same: they are set in the worker, after the fork;
* a `forkserver` (started once, fresh and single-threaded, with the pipeline modules
  preloaded), so starting a job costs milliseconds and forking from a threaded driver
  (Streamlit, or any process that loaded a library with its own threads) or from a large one
  (whose address space would count against the worker's memory limit) is avoided;
* inside a daemonic process (a Dask worker), where multiprocessing may not start children,
  a `python -m ingest.run.executor` child.

`DaskExecutor` sends the same jobs to a Dask cluster; on the Dask worker each job runs through
`run_isolated`, so the limits hold there too. The driver keeps every store write.

The records live in `ingest.run.jobs` and the child's side in `ingest.run.child`; this module
is the driver's side.
"""

from __future__ import annotations

import atexit
import gc
import multiprocessing
import os
import pickle
import signal
import subprocess
import sys
import time
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from contextlib import suppress
from multiprocessing import forkserver
from multiprocessing.connection import Connection, wait
from pathlib import Path
from typing import Any

from ingest.run.child import RAW_VALUE, _child_main, _supervise
from ingest.run.jobs import (
    FORK_HERE_SHARE,
    STARTUP_GRACE,
    Done,
    ExecutorError,
    Failure,
    Job,
    JobFn,
    Limits,
    Result,
    StartMethod,
    describe_mb,
)
from ingest.run.mainmod import main_unnamed

#: Modules the forkserver imports once, so each job's process starts with them loaded (the
#: supervisor and worker bodies are in `ingest.run.child`, which `ingest.run.executor` imports).
PRELOAD = [
    "ingest.run.executor",
    "ingest.run.child",
    "ingest.pipeline",
    "ingest.analysis.results_pdf",  # a PDF's results stage (the pipeline imports it only for a PDF)
    "ingest.reading.markdown",  # a post's extraction (imported only to extract one)
    "pypdfium2",
    "httpx",
    "ingest.run.preload",
]


def default_jobs() -> int:
    """The cores this process may run on (CPU affinity, not just the machine's count)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return max(1, os.cpu_count() or 1)


def _vm_size_mb() -> float | None:
    """This process's address space (VmSize) in MB: Linux /proc only."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmSize:"):
                return int(line.split()[1]) / 1024
    except (OSError, ValueError, IndexError):
        pass
    return None


def _threads() -> int | None:
    """Threads of this process, native ones included (a library's thread pool): Linux /proc only."""
    try:
        return len(os.listdir("/proc/self/task"))
    except OSError:
        return None


def fork_here(limits: Limits) -> bool:
    """May a job's supervisor be forked from this very process?

    Only when forking is safe and cheap for the worker: a POSIX process with exactly one thread
    (a lock held by another thread would stay locked forever in the child; Linux /proc tells,
    counting native threads such as a BLAS pool too), not daemonic, and small — the worker
    inherits this address space, and its memory limit (RLIMIT_AS) counts it, so at most
    `FORK_HERE_SHARE` of the limit may be spent before the job starts.
    """
    if not hasattr(os, "fork") or multiprocessing.current_process().daemon:
        return False
    size = _vm_size_mb()
    return _threads() == 1 and size is not None and size <= FORK_HERE_SHARE * limits.memory_mb


# --------------------------------------------------------------------------- the driver's side


_context: Any = None
_server_started = False


def _forkserver() -> Any:
    """The forkserver context, with the pipeline modules preloaded (set before the server starts)."""
    global _context
    if _context is None:
        ctx = multiprocessing.get_context("forkserver")
        ctx.set_forkserver_preload(PRELOAD)
        _context = ctx
    return _context


def _package_root() -> str:
    return str(Path(__file__).resolve().parents[2])


def _with_package_path(env: dict[str, str]) -> dict[str, str]:
    """`env` for a fresh interpreter that must import this very package: its folder first on
    PYTHONPATH, and PYTHONSAFEPATH so the current folder (which may hold another checkout's
    `ingest`) is not put before it."""
    path = os.pathsep.join(p for p in (_package_root(), env.get("PYTHONPATH")) if p)
    return {**env, "PYTHONPATH": path, "PYTHONSAFEPATH": "1"}


def warm_up() -> None:
    """Start the forkserver unless it runs; it imports the pipeline once, for every job after.

    The server is a fresh interpreter that does not inherit the driver's `sys.path`, so the
    package folder is put first on its PYTHONPATH for the preload (restored right after the start).
    """
    global _server_started
    if multiprocessing.current_process().daemon:
        return

    _forkserver()
    if _server_started:  # restarts it if it died, without touching the environment again
        forkserver.ensure_running()
        return
    _server_started = True
    atexit.unregister(stop_forkserver)  # registered once, however often the server restarts
    atexit.register(stop_forkserver)
    keys = ("PYTHONPATH", "PYTHONSAFEPATH")
    saved = {k: os.environ.get(k) for k in keys}
    env = _with_package_path(dict(os.environ))
    os.environ.update({k: env[k] for k in keys})
    try:
        with main_unnamed():
            forkserver.ensure_running()
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


def start_server_early(limits: Limits) -> bool:
    """Start the forkserver now when a job is coming and will not be forked from this process
    (a long-running driver: the dashboard, a benchmark); True when it was started (or runs).

    Its start-up — a fresh interpreter that imports the pipeline and warms its caches, about a
    second — then runs on another core while the driver loads the registry and plans the job,
    instead of after it. Callers use it only when a job is certain enough (a report not stored
    yet): a run where nothing changed still starts no process (see `LocalExecutor`).
    """
    if multiprocessing.current_process().daemon or fork_here(limits):
        return False
    warm_up()
    return True


def stop_forkserver() -> None:
    """Stop the forkserver (if this process started it) and wait for it; the next job starts a new one.

    Called at exit, so the server and the jobs it ran are reaped by this process: their CPU time
    then counts in this process's children (`time python -m ingest`, `RUSAGE_CHILDREN`) instead of
    leaving with an orphaned server. The benchmark calls it between runs for the same reason.
    """
    global _server_started
    if not _server_started:
        return
    _server_started = False

    with suppress(Exception):  # private API of multiprocessing: best effort
        forkserver._forkserver._stop()  # type: ignore[attr-defined]


class _Child:
    """One running job: its supervisor process and the pipe it reports on."""

    def __init__(self, job: Job, limits: Limits, start: StartMethod = "auto"):
        limits = job.limits(limits)
        self.job, self.limits = job, limits
        self.start = time.monotonic()
        # The clock runs from the worker's "started" message; until then (forkserver still
        # importing, a loaded machine) a start-up allowance applies.
        self.deadline = self.start + limits.timeout + STARTUP_GRACE
        self.reply: tuple | None = None  # ("ok", value) / ("ok-bytes", pickled value) / ("memory",) / ("error", text)
        self.exit: tuple[int, float] | None = None  # (wait status, peak MB) of the worker
        self.proc: Any = None
        self.popen: subprocess.Popen | None = None
        self.forked = False  # forked from this process (reaped with waitpid)
        if multiprocessing.current_process().daemon:
            self._start_popen()
        elif start == "fork" or (start == "auto" and fork_here(limits)):
            self._start_fork()
        else:
            self._start_forkserver()

    def _start_fork(self) -> None:
        """Fork the supervisor from this process (see `fork_here`): it starts with everything loaded."""
        r, w = os.pipe()
        pid = os.fork()
        if pid == 0:  # the supervisor: never return into the driver's code, never run its atexit
            try:
                os.close(r)
                # The inherited heap stays as it is: a collection would walk (and copy) all of it.
                gc.freeze()
                _supervise(Connection(w, readable=False), self.job.fn, self.job.arg, self.limits)
            finally:
                os._exit(0)
        os.close(w)
        self.conn = Connection(r, writable=False)
        self.pid = pid
        self.forked = True

    def _start_forkserver(self) -> None:
        warm_up()
        ctx = _forkserver()
        reader, writer = ctx.Pipe(duplex=False)
        self.proc = ctx.Process(target=_supervise, args=(writer, self.job.fn, self.job.arg, self.limits), daemon=True)
        try:
            with main_unnamed():  # else the job imports the driver's main script (mainmod.py)
                self.proc.start()
        finally:
            writer.close()
        self.conn = reader
        self.pid = self.proc.pid

    def _start_popen(self) -> None:
        r, w = os.pipe()
        env = _with_package_path(dict(os.environ))
        try:
            self.popen = subprocess.Popen(
                [sys.executable, "-m", "ingest.run.executor", str(w)],
                stdin=subprocess.PIPE,
                pass_fds=(w,),
                start_new_session=True,
                env=env,
            )
        finally:
            os.close(w)
        self.conn = Connection(r, writable=False)
        self.pid = self.popen.pid
        with suppress(BrokenPipeError, OSError):  # a child that died at start-up is reported as a crash
            assert self.popen.stdin is not None
            self.popen.stdin.write(pickle.dumps((self.job.fn, self.job.arg, self.limits), protocol=pickle.HIGHEST_PROTOCOL))
            self.popen.stdin.close()

    def kill(self) -> None:
        """Kill the supervisor's whole process group (worker and anything it started)."""
        try:
            os.killpg(self.pid, signal.SIGKILL)
        except OSError:  # not yet its own group leader: kill the supervisor itself
            with suppress(OSError):
                os.kill(self.pid, signal.SIGKILL)

    def reap(self) -> None:
        with suppress(OSError):
            self.conn.close()
        if self.proc is not None:
            self.proc.join(5)
            with suppress(ValueError):
                self.proc.close()
        if self.popen is not None:
            with suppress(subprocess.TimeoutExpired):
                self.popen.wait(5)
        if self.forked:  # it exits right after its worker (or was killed): wait a bounded time
            deadline = time.monotonic() + 5
            with suppress(ChildProcessError):
                while os.waitpid(self.pid, os.WNOHANG)[0] == 0 and time.monotonic() < deadline:
                    time.sleep(0.005)

    def result(self, timed_out: bool = False) -> Result:
        seconds = time.monotonic() - self.start
        peak = self.exit[1] if self.exit else None
        limit = describe_mb(self.limits.memory_mb)
        over_memory = f"extraction needed more than {limit} of memory"
        if timed_out:
            return Failure("timeout", f"extraction took longer than {self.limits.timeout:g} s", seconds, peak)
        if self.reply is not None and self.reply[0] == "ok":
            return Done(self.reply[1], seconds, peak)
        if self.reply is not None and self.reply[0] == "ok-bytes":
            return Done(_Pickled(self.reply[1]), seconds, peak)
        if self.reply is not None and self.reply[0] == "memory":
            return Failure("memory", over_memory, seconds, peak)
        if self.reply is not None and self.reply[0] == "error":
            return Failure("error", f"internal error in the worker ({self.reply[1]})", seconds, peak)
        if self.exit is None:
            return Failure("crash", "the worker process ended without a result", seconds, peak)
        status = self.exit[0]
        if os.WIFSIGNALED(status):
            sig = os.WTERMSIG(status)
            if sig == signal.SIGXCPU:
                return Failure("timeout", f"extraction took longer than {self.limits.timeout:g} s", seconds, peak)
            # A native library that cannot allocate aborts (or faults) instead of raising; a peak
            # near the cap tells that apart from a plain crash.
            if peak is not None and peak >= 0.5 * self.limits.memory_mb:
                return Failure("memory", over_memory, seconds, peak)
            return Failure("crash", f"extraction crashed (worker killed by {signal.Signals(sig).name})", seconds, peak)
        return Failure("crash", f"the worker process exited with status {os.waitstatus_to_exitcode(status)}", seconds, peak)


def run_jobs(
    jobs: Iterable[Job],
    limits: Limits,
    workers: int = 1,
    on_progress: Callable[[Any, int, int], None] | None = None,
    on_start: Callable[[Any], None] | None = None,
    start: StartMethod = "auto",
) -> Iterator[tuple[Any, Result]]:
    """Run jobs in fresh limited processes, at most `workers` at a time; yield (key, result) as they end.

    `jobs` is consumed lazily, one job per free slot, so preparing a job (hashing, loading
    cached text) is spread over the run. A freed slot is refilled before the result is handed
    out, so the caller's work on a result (storing it) overlaps the next job. `on_start(key)` is
    called in this process right after a job's process started (work done there overlaps the
    job). `start` picks where processes come from ("auto": see the module docstring; "fork" or
    "forkserver" to force one, for tests). Closing the iterator early kills what is running.
    """
    pending = iter(jobs)
    running: dict[Connection, _Child] = {}
    ended: deque[tuple[Any, Result]] = deque()
    exhausted = False

    def end(conn: Connection, timed_out: bool = False) -> None:
        child = running.pop(conn)
        if timed_out:
            child.kill()
        child.reap()
        ended.append((child.job.key, child.result(timed_out=timed_out)))

    try:
        while True:
            while not exhausted and len(running) < workers:
                job = next(pending, None)
                if job is None:
                    exhausted = True
                else:
                    child = _Child(job, limits, start)
                    running[child.conn] = child
                    if on_start is not None:
                        on_start(job.key)
            if ended:
                yield _unpickled(*ended.popleft())
                continue
            if not running:
                return
            deadlines = [c.deadline for c in running.values() if c.reply is None]
            timeout = max(0.0, min(deadlines) - time.monotonic()) if deadlines else None
            for conn in wait(list(running), timeout=timeout):
                child = running[conn]
                try:
                    raw = conn.recv_bytes()
                    # the value, kept pickled: unpickled when handed out (see `_Pickled`)
                    msg = ("ok-bytes", raw) if raw.startswith(RAW_VALUE) else pickle.loads(raw)
                except (EOFError, OSError):
                    end(conn)
                    continue
                except Exception as exc:  # an unpicklable reply: report it, then let EOF finish the job
                    msg = ("error", f"unreadable reply ({type(exc).__name__}: {exc})")
                if msg[0] == "started":
                    child.deadline = time.monotonic() + child.limits.timeout
                elif msg[0] == "page":
                    if on_progress is not None:
                        on_progress(child.job.key, msg[1], msg[2])
                elif msg[0] == "exit":
                    child.exit = (msg[1], msg[2])
                elif child.reply is None:
                    child.reply = msg
            now = time.monotonic()
            for conn, child in list(running.items()):
                if child.reply is None and now >= child.deadline:
                    end(conn, timed_out=True)
    finally:
        for child in running.values():
            child.kill()
            child.reap()


class _Pickled:
    """A job's value as the worker pickled it: unpickled by `run_jobs` when it hands the result out,
    after the freed slot took the next job, so unpickling a large value (a report's text and
    analysis: a few ms) overlaps that job instead of delaying its start."""

    def __init__(self, data: bytes) -> None:
        self.data = data


def _unpickled(key: Any, result: Result) -> tuple[Any, Result]:
    if not isinstance(result, Done) or not isinstance(result.value, _Pickled):
        return key, result
    try:
        return key, Done(pickle.loads(memoryview(result.value.data)[len(RAW_VALUE) :]), result.seconds, result.peak_mb)
    except Exception as exc:  # as an unreadable reply on the pipe
        text = f"unreadable reply ({type(exc).__name__}: {exc})"
        return key, Failure("error", f"internal error in the worker ({text})", result.seconds, result.peak_mb)


def run_isolated(fn: JobFn, arg: Any, limits: Limits, start: StartMethod = "auto") -> Result:
    """Run one job in a limited child process and return its result (used on Dask workers)."""
    for _, result in run_jobs([Job(0, fn, arg)], limits, start=start):
        return result
    raise AssertionError("run_jobs yielded nothing for one job")


class LocalExecutor:
    """Jobs in limited child processes on this machine, `workers` at a time."""

    def __init__(
        self,
        limits: Limits,
        workers: int | None = None,
        on_progress: Callable[[Any, int, int], None] | None = None,
        on_start: Callable[[Any], None] | None = None,
    ):
        # No process is started until the first job: a run where every report is unchanged stays cheap.
        self.limits, self.workers, self.on_progress = limits, workers or default_jobs(), on_progress
        self.on_start = on_start

    def imap_unordered(self, jobs: Iterable[Job]) -> Iterator[tuple[Any, Result]]:
        return run_jobs(jobs, self.limits, self.workers, self.on_progress, self.on_start)

    def forks_here(self) -> bool:
        """Whether the next job's process would be forked from this process (it inherits its caches)."""
        return fork_here(self.limits)

    def close(self) -> None:
        pass


class DaskExecutor:
    """Jobs on a Dask cluster (`tcp://scheduler:8786`); each runs through `run_isolated` on a worker.

    At most twice as many jobs as the cluster has worker threads are in flight, so the driver
    does not hold every report's payload at once.
    """

    def __init__(
        self,
        address: str,
        limits: Limits,
        connect_timeout: float = 10.0,
        on_start: Callable[[Any], None] | None = None,
    ):
        try:
            from distributed import Client  # deferred: the optional dask executor (requirements-cluster.txt)
        except ImportError as exc:
            raise ExecutorError("--executor needs the `distributed` package: pip install .[cluster]") from exc
        self.limits, self.on_start = limits, on_start
        try:
            self.client = Client(address, timeout=connect_timeout, set_as_default=False)
        except Exception as exc:  # refused, timed out, malformed address: all mean "cannot use it"
            raise ExecutorError(f"cannot reach the Dask scheduler at {address}: {exc}") from exc

    def imap_unordered(self, jobs: Iterable[Job]) -> Iterator[tuple[Any, Result]]:
        from distributed import as_completed  # deferred: see DaskExecutor.__init__

        threads = sum(self.client.nthreads().values()) or 1
        cap = max(2, 2 * threads)
        done = as_completed(loop=self.client.loop, with_results=False)
        inflight: dict[Any, tuple[Any, float, Any]] = {}  # Dask key -> (job key, start, future)

        def collect(fut: Any) -> tuple[Any, Result]:
            key, t0, _ = inflight.pop(fut.key)
            try:
                return key, fut.result()
            except Exception as exc:
                return key, Failure("error", f"Dask task failed ({type(exc).__name__}: {exc})", time.monotonic() - t0)

        try:
            for job in jobs:
                fut = self.client.submit(run_isolated, job.fn, job.arg, job.limits(self.limits), pure=False)
                inflight[fut.key] = (job.key, time.monotonic(), fut)
                done.add(fut)
                if self.on_start is not None:
                    self.on_start(job.key)
                while len(inflight) >= cap:
                    yield collect(next(done))
            for fut in done:
                yield collect(fut)
        finally:
            for _, _, fut in inflight.values():
                fut.cancel()

    def forks_here(self) -> bool:
        return False

    def close(self) -> None:
        self.client.close()


if __name__ == "__main__":
    _child_main(sys.argv[1:])
