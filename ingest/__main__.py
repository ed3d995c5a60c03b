"""`python -m ingest`: see ingest/cli.py."""

import gc

# The imports ahead make no garbage, yet the collector would walk their objects again and again
# (a noticeable share of a one-report run); `cli.imports_done` turns it back on, with them frozen.
gc.disable()

from ingest import cli  # noqa: E402

cli.GC_PAUSED = True
raise SystemExit(cli.main())
