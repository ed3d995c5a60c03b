"""Nothing lost, nothing stale: what happens to a store and a reports folder under everyday accidents.

no-loss  (round 2) delete / re-add / delete; a Review decision during an ingest; a full disk while
         the tables are written (then a plain run) and while a bundle is written
links    (round 3) a link loop, a dangling link, links to /dev/zero and to a named pipe in reports/;
         incoming/, files/ and .deleted/ linked out of the reports folder (nothing written there)
accept   (round 3) `discover --accept` during an ingest (through the run's progress hook)
history  (round 3) a source that changes on every run: its readings stay bounded, the first kept
"""

from __future__ import annotations

import errno
import os
import time
from pathlib import Path

import yaml
from bad_input_cases import Catalogue, Check, batch_limit

from ingest.outputs import curate, tables
from ingest.pipeline import run
from ingest.pipeline_settings import Outcome, Settings
from ingest.sources.confine import OutsideRoots
from ingest.sources.discover import move_proposal
from ingest.store import history
from ingest.store.store import Store
from views.add_report import DELETED_DIR, delete_report, spec_from_fields, write_report


def _spec(rid: str, **kw: object) -> str:
    return yaml.safe_dump({"id": rid, "model": rid.upper(), "organization": "L", "doc_type": "other", **kw})


def _agent_count(store: Store, rid: str) -> int:
    c = store.read_table("counts")
    hit = c[(c["report_id"] == rid) & (c["term"] == "agent") & (c["section"] == "all")]
    return int(hit["count"].iloc[0]) if len(hit) else -1


def no_loss_family(cat: Catalogue, work: Path) -> None:
    root = work / "noloss"
    reports = root / "reports"
    reports.mkdir(parents=True)
    text = "# Intro\n\n" + "The agent acts. " * 4 + "\n"
    (reports / "r.md").write_text(text, encoding="utf-8")
    (reports / "r.yaml").write_text(_spec("r", source={"path": "r.md"}), encoding="utf-8")
    (reports / "s.yaml").write_text(_spec("s", source={"path": "r.md"}), encoding="utf-8")
    settings = Settings(data_dir=root / "data", offline=True, jobs=1)
    run(reports_dir=reports, settings=settings)

    def delete_twice() -> Check:
        for model in ("First", "Second"):
            write_report(spec_from_fields({"id": "same", "model": model, "organization": "L", "doc_type": "blog"}), reports)
            delete_report("same", reports)
        kept = [p.read_text(encoding="utf-8") for p in (reports / DELETED_DIR).glob("same.*.yaml")]
        lost = 2 - sum(any(mm in k for k in kept) for mm in ("First", "Second"))
        return Check(not lost, f"{len(kept)} deleted files kept", lost=lost)

    def decision_during_ingest() -> Check:
        def meanwhile(items):  # type: ignore[no-untyped-def]
            for n, item in enumerate(items):
                if n == 0:
                    curate.record_decision(reports / "r.yaml", "rl_algorithm", "PPO", note="during a run")
                    run(files=[reports / "r.yaml"], reports_dir=reports, settings=settings)
                yield item

        (reports / "s.md").write_text(text + "more\n", encoding="utf-8")
        (reports / "s.yaml").write_text((reports / "s.yaml").read_text().replace("r.md", "s.md"), encoding="utf-8")
        run(reports_dir=reports, settings=settings, progress=meanwhile)
        c = Store(settings.data_dir).read_table("comparison")
        cell = c[(c["report_id"] == "r") & (c["dimension"] == "rl_algorithm")].iloc[0]
        ok = cell["origin"] == "curated"
        return Check(ok, f"table cell origin {cell['origin']}", wrong=int(not ok), limit=batch_limit(2 + 1))  # (the nested run)

    def disk_full_tables() -> Check:
        (reports / "r.md").write_text(text + "One more agent.\n", encoding="utf-8")
        real = tables.rebuild_tables

        def full(*_a: object, **_k: object) -> None:
            raise OSError(errno.ENOSPC, "No space left on device")

        tables.rebuild_tables = full  # type: ignore[assignment]
        try:
            run(reports_dir=reports, settings=settings)
        except OSError:
            pass
        finally:
            tables.rebuild_tables = real  # type: ignore[assignment]
        run(reports_dir=reports, settings=settings)
        n = _agent_count(Store(settings.data_dir), "r")
        said = f"counts after the next plain run: {n} (the text has 5)"
        return Check(n == 5, said, wrong=int(n != 5), limit=batch_limit(2 * 2))

    def disk_full_bundle() -> Check:
        (reports / "r.md").write_text(text + "changed\n", encoding="utf-8")
        real = Store.save_bundle

        def full(*_a: object, **_k: object) -> None:
            raise OSError(errno.ENOSPC, "No space left on device")

        Store.save_bundle = full  # type: ignore[method-assign]
        try:
            (o,) = run(files=[reports / "r.yaml"], reports_dir=reports, settings=settings).outcomes
        finally:
            Store.save_bundle = real  # type: ignore[method-assign]
        n = _agent_count(Store(settings.data_dir), "r")
        return Check(o.failed and "no space left" in o.message and n == 5, o.message[:140], lost=int(n != 5))

    cat.add(2, "no-loss", "delete-readd-delete", delete_twice)
    cat.add(2, "no-loss", "review-decision-during-ingest", decision_during_ingest)
    cat.add(2, "no-loss", "disk-full-during-tables-then-plain-run", disk_full_tables)
    cat.add(2, "no-loss", "disk-full-during-bundle-write", disk_full_bundle)


def links_family(cat: Catalogue, work: Path) -> None:
    """Links in reports/: each bad one fails its report, quickly; nothing is written out through a link."""
    root = work / "links"
    reports, outside = root / "reports", root / "outside"
    reports.mkdir(parents=True)
    outside.mkdir()
    (reports / "good.yaml").write_text(_spec("good"), encoding="utf-8")
    links = {"loop1": "loop2.yaml", "loop2": "loop1.yaml", "dangling": "nowhere.yaml", "zero": "/dev/zero", "dir": str(root)}
    for name, target in links.items():
        (reports / f"{name}.yaml").symlink_to(target)
    os.mkfifo(reports / "pipe.yaml")
    t0 = time.perf_counter()
    res = run(reports_dir=reports, settings=Settings(data_dir=root / "data", offline=True))
    took = time.perf_counter() - t0
    by = {o.report_id: o for o in res.outcomes}
    for name in [*links, "pipe"]:

        def one(name: str = name) -> Check:
            o: Outcome | None = by.get(name)
            failed = o is not None and o.failed
            return Check(failed, o.message[:120] if o else "no outcome", wrong=int(not failed), seconds=took)

        cat.add(3, "links", f"report-file-{name}", one)
    good = by["good"]
    cat.add(3, "links", "good-report-beside-them", lambda: Check(good.status == "no-source", good.message, seconds=took))

    def linked_folders() -> Check:
        for name in ("files", DELETED_DIR, "incoming"):
            (reports / name).symlink_to(outside)
        refused = 0
        spec = spec_from_fields({"id": "up", "model": "Up", "organization": "L", "doc_type": "other"})
        for attempt in (lambda: write_report(spec, reports, pdf=b"%PDF-1.4\n"), lambda: delete_report("good", reports)):
            try:
                attempt()
            except OutsideRoots:
                refused += 1
        written = sum(1 for _ in outside.iterdir())
        kept = (reports / "good.yaml").is_file()
        return Check(refused == 2 and not written and kept, f"refused {refused} of 2, files written outside {written}",
                     wrong=written, lost=int(not kept))  # fmt: skip

    cat.add(3, "links", "folders-linked-out-of-reports", linked_folders)


def accept_during_ingest(cat: Catalogue, work: Path) -> None:
    def one() -> Check:
        root = work / "accept"
        reports, data = root / "reports", root / "data"
        (reports / "incoming").mkdir(parents=True)
        for rid in ("a", "b"):
            (root / f"{rid}.md").write_text("# A\n\nThe agent uses a tool.\n", encoding="utf-8")
            (reports / f"{rid}.yaml").write_text(_spec(rid, source={"path": str(root / f"{rid}.md")}), encoding="utf-8")
        (reports / "incoming" / "new-one.yaml").write_text(_spec("new-one"), encoding="utf-8")
        settings = Settings(data_dir=data, source_roots=(root,), offline=True, jobs=1)

        def meanwhile(items):  # type: ignore[no-untyped-def]
            for n, item in enumerate(items):
                if n == 0:
                    move_proposal(reports, data, "new-one", accept=True)
                yield item

        first = run(reports_dir=reports, settings=settings, progress=meanwhile)
        second = run(reports_dir=reports, settings=settings)
        ids = set(Store(data).read_table("reports")["report_id"])
        ok = not first.failed and not second.failed and ids == {"a", "b", "new-one"}
        return Check(ok, f"reports after the next run: {sorted(ids)}", lost=int(not {"a", "b"} <= ids), wrong=int(not ok),
                     limit=batch_limit(2 * 3))  # fmt: skip

    cat.add(3, "loss", "discover-accept-during-an-ingest", one)


def history_growth(cat: Catalogue, work: Path, runs: int = 8) -> None:
    def one() -> Check:
        root = work / "history"
        reports = root / "reports"
        reports.mkdir(parents=True)
        post = root / "post.md"
        (reports / "clock.yaml").write_text(_spec("clock", source={"path": str(post)}), encoding="utf-8")
        keep, history.MAX_READINGS = history.MAX_READINGS, 3  # a small bound, reached in a few runs
        try:
            for k in range(runs):
                post.write_text(f"# Post\n\nThe agent uses a tool. Served at tick {k}.\n", encoding="utf-8")
                run(reports_dir=reports, settings=Settings(data_dir=root / "data", source_roots=(root,), offline=True))
        finally:
            history.MAX_READINGS = keep
        n = sum(1 for _ in history.history_dir(Store(root / "data"), "clock").iterdir())
        return Check(n == 3, f"{runs} changed runs: {n} readings kept (bound 3)", wrong=int(n != 3), limit=batch_limit(runs))

    cat.add(3, "loss", "history-of-a-source-changing-every-run", one)
