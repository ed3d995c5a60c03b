"""Keep Python's cycle collector off the dashboard's long-lived caches.

Why: at 10,000 reports the cached tables and per-page records are millions of objects, and each full
(generation-2) collection walks them all, long enough to be felt in an interaction. Such a
collection starts whenever enough new objects have survived, so it lands in whichever run comes
next, often a filter change whose whole budget is 0.3 s. After each full script run, `settle`
collects what that run left behind (cheap: only objects not yet frozen are walked) and freezes the
survivors (`gc.freeze`), so later collections skip them. Objects frozen and later dropped are still
freed by reference counting; only a frozen object that ends up in a reference cycle waits, until
`settle` unfreezes everything once every FULL_EVERY_S seconds and the next collection walks the
whole heap again.
"""

from __future__ import annotations

import gc
import threading
import time

#: How often (seconds) the frozen objects are handed back to the collector for one full collection.
FULL_EVERY_S = 600.0

_lock = threading.Lock()
_last_full = 0.0


def settle(now: float | None = None) -> None:
    """Collect the garbage of the run that just ended, then freeze what survives."""
    global _last_full
    now = time.monotonic() if now is None else now
    with _lock:  # sessions run in threads; one settle at a time is enough
        if now - _last_full >= FULL_EVERY_S:
            gc.unfreeze()
            _last_full = now
        gc.collect()
        gc.freeze()
