"""`make test`'s scheduling over the cores (pytest-xdist, `-n auto --dist loadgroup`).

Tests are handed out one at a time, except the modules whose module-scoped fixtures are costly to set
up (a Streamlit server and Chromium, a Dask cluster, the section eval over the corpus): each of those
goes to one worker as a whole, which then sets its fixtures up once.

Why a scheduler and not `xdist_group` marks: with pytest 9.2, pytest-xdist 3.8's `loadgroup` no longer
sees the marks (it writes the group into the legacy `item._nodeid`, which pytest 9.2 ignores), so
marked tests were spread over the workers and every worker started its own server
(pytest-dev/pytest-xdist#1386). This scheduler decides from the test's module name alone, which the
controller has without the marks.
"""

from __future__ import annotations

import pytest
from xdist.scheduler import LoadScopeScheduling

#: Modules besides the browser tests (tests/test_browser*.py) whose module-scoped fixtures are costly:
#: a Dask cluster, the section eval over the corpus, a 7,200-page PDF or a hostile report ingested.
GROUPED_MODULES = frozenset(
    {"test_dask_executor", "test_density_units", "test_page_render", "test_safe_exports", "test_sections"}
)


def grouped(module: str) -> bool:
    """Does this module (file stem) run as a whole on one worker?"""
    return module.startswith("test_browser") or module in GROUPED_MODULES


class ModuleGroupScheduling(LoadScopeScheduling):
    """One work unit per grouped module, one per test elsewhere. Units are handed out largest first
    (xdist's `loadscopereorder`), so the long browser modules start at once rather than last."""

    def _split_scope(self, nodeid: str) -> str:
        path = nodeid.split("::", 1)[0]
        return path if grouped(path.rsplit("/", 1)[-1].removesuffix(".py")) else nodeid


def pytest_xdist_make_scheduler(config: pytest.Config, log: object) -> LoadScopeScheduling | None:
    """`--dist loadgroup` (the Makefile's) uses the module grouping above; other modes are xdist's own."""
    if config.getvalue("dist") != "loadgroup":
        return None
    return ModuleGroupScheduling(config, log)  # type: ignore[arg-type]
