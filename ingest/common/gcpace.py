"""Rare cyclic collections while a step builds many objects that hold no cycles.

Reading a folder of report files or the words of a dense page allocates tens of thousands of small
acyclic objects; at the default thresholds each batch triggers collections that walk the caller's
whole heap again, so the time grows faster than the input (bench/tables_speed.py, bench/scale.py).
Raising the first generation's threshold for the step keeps the collector on — cycles are still
collected, memory stays bounded — but runs it rarely. The previous thresholds come back after.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager

#: Allocations between two young-generation collections during such a step (the default is 700...2000).
RARE = 200_000


@contextmanager
def rare_collections(threshold: int = RARE) -> Iterator[None]:
    """Collect cyclic garbage only every `threshold` net allocations while the block runs."""
    old = gc.get_threshold()
    gc.set_threshold(threshold, *old[1:])
    try:
        yield
    finally:
        gc.set_threshold(*old)
