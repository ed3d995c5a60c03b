"""A store with a revised report: one report ingested from a first PDF, then from a second one with
planted changes (a result value changed, a table row gone, a sentence with the lens's terms taken
out and another put in, a page more), so its history holds both readings; plus one proposal."""

from __future__ import annotations

from pathlib import Path

from ingest.pipeline import run
from ingest.pipeline_settings import Settings
from ingest.sources.discover import INCOMING
from tests.conftest import write_report
from tests.test_versions_diff import ADDED, REMOVED, _version


def build_revised_store(root: Path) -> tuple[Path, Path]:
    """root/reports and root/data: report `lens-7b` read twice (v1, then the revised v2)."""
    v1 = _version(root / "lens-v1.pdf", "41.3", True, REMOVED, False)
    v2 = _version(root / "lens-v2.pdf", "44.8", False, ADDED, True)
    reports, data = root / "reports", root / "data"
    settings = Settings(data_dir=data, offline=True, source_roots=(root,))
    write_report(reports, "other", model="Other Model", body="notes: no source\n")
    for pdf in (v1, v2):
        write_report(reports, "lens-7b", model="Lens-7B", source={"path": str(pdf)})
        assert not run(reports_dir=reports, settings=settings).failed
    write_report(
        reports / INCOMING, "kimi-k9", model="Kimi K9", organization="Moonshot AI", doc_type="arxiv",
        source={"url": "https://arxiv.org/abs/2612.00001"}, tags=["discovered", "organization-guessed"],
        notes="Proposed by discover (arxiv). Organization guessed: the text names Kimi.",
    )  # fmt: skip
    return data, reports
