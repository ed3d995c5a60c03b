"""Imported by the executor's forkserver before it forks any job (`ingest.run.executor.PRELOAD`).

The server warms the analysis caches for the default lexicon, lens and catalogue (see
`ingest.run.warm`), so every job forked from it starts with them.
"""

from __future__ import annotations

import gc

from ingest.run.warm import warm_caches

warm_caches()

# Move everything loaded so far out of the garbage collector's view: the server only forks, and
# a collection in a job would otherwise walk (and so copy, page by page) the whole inherited heap.
gc.freeze()
