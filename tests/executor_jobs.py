"""Job functions for tests/test_executor.py: a worker process imports this module by name, so it stays light."""

from __future__ import annotations

import os
import signal
import subprocess
import time
from pathlib import Path


def _sleep(seconds: float, progress) -> float:
    time.sleep(seconds)
    return seconds


def _sleep_with_grandchild(pidfile: str, progress) -> None:
    child = subprocess.Popen(["sleep", "60"])
    Path(pidfile).write_text(str(child.pid))
    time.sleep(60)


def _allocate(mb: int, progress) -> int:
    return len(bytearray(mb << 20))


def _segfault(_: object, progress) -> None:
    os.kill(os.getpid(), signal.SIGSEGV)


def _raise(_: object, progress) -> None:
    raise ValueError("a bug")


def _pages(n: int, progress) -> int:
    for i in range(1, n + 1):
        progress(i, n)
    return n


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # A zombie has ended (it only waits to be reaped by its parent).
    stat = Path(f"/proc/{pid}/stat")
    return not (stat.exists() and stat.read_text().split(") ", 1)[1].startswith("Z"))


def _fail_on_load() -> None:
    raise ValueError("cannot be read back")


class _Unreadable:
    """Pickles fine in the worker, fails to unpickle in the driver."""

    def __reduce__(self):  # type: ignore[no-untyped-def]
        return (_fail_on_load, ())


def _unreadable(_: object, progress) -> _Unreadable:
    return _Unreadable()


def _big(n: int, progress) -> bytes:
    return b"x" * n
