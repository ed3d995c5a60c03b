"""Adding one report to a large folder does the work of that report, not of the folder: its run makes
the specs of the new report and of the reports holding Review decisions (the confidence refit reads
only those), never a validated spec per report file."""

from __future__ import annotations

import pytest

from ingest.pipeline import Settings, run
from ingest.sources import registry

from .conftest import write_report

MD = "# Training\n\n## 3 RL\n\nWe adopt GRPO with rewards from unit tests; the agentic policy uses tools.\n"


def test_adding_one_report_makes_only_the_specs_it_needs(tmp_path, monkeypatch: pytest.MonkeyPatch) -> None:
    reports, data = tmp_path / "reports", tmp_path / "data"
    for i in range(40):  # past the registry cache's threshold, so the folder is read from the cache
        write_report(reports, f"r{i:02d}", model=f"R {i}", body="notes: reported figures only\n")
    write_report(reports, "decided", model="D", body="curated:\n  rl_algorithm:\n    value: [PPO]\n")
    settings = Settings(data_dir=data, offline=True, jobs=1)
    assert not run(reports_dir=reports, settings=settings).failed
    (reports / "new.md").write_text(MD, encoding="utf-8")
    new = write_report(reports, "new", model="New", source={"path": "new.md"})
    made: list[str] = []
    real = registry.Roster.spec

    def counted(self: registry.Roster, report_id: str):  # type: ignore[no-untyped-def]
        made.append(report_id)
        return real(self, report_id)

    monkeypatch.setattr(registry.Roster, "spec", counted)
    whole = registry.Roster.registry

    def folder_made(self: registry.Roster):  # type: ignore[no-untyped-def]
        assert len(self.ids) <= 1, "every spec of the folder made"  # (the named file's own registry is fine)
        return whole(self)

    monkeypatch.setattr(registry.Roster, "registry", folder_made)
    result = run(files=[new], reports_dir=reports, settings=settings)
    assert [o.status for o in result.outcomes] == ["ok"]
    assert set(made) <= {"new", "decided"}
