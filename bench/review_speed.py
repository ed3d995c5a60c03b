"""Review decision speed: writing one curated cell and rebuilding the tables, at N reports.

    .venv/bin/python bench/review_speed.py [--reports 50] [--repeat 5]

Builds N small Markdown reports with the real pipeline (as tests/review_fixtures.py does), then,
in the same warm process (as the dashboard would), times for one report: the round-trip write
of a decision (`ingest.outputs.curate.record_decision`) and the pipeline re-run on that report file
(`ingest.pipeline.run([path])`: its bundle is cached, so only the tables are rebuilt). Prints the
medians; no target is enforced (the tables rebuild grows with the number of reports).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
from bench.results_log import recorded  # noqa: E402
from ingest.outputs import curate  # noqa: E402
from ingest.pipeline import run  # noqa: E402
from ingest.pipeline_settings import Settings  # noqa: E402
from tests import review_fixtures as rf  # noqa: E402


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--reports", type=int, default=50)
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args()

    with tempfile.TemporaryDirectory() as tmp:
        reports, data = Path(tmp) / "reports", Path(tmp) / "data"
        (reports / "sources").mkdir(parents=True)
        for i in range(args.reports):
            rid = f"r{i:04d}"
            (reports / "sources" / f"{rid}.md").write_text(rf.ALPHA_MD, encoding="utf-8")
            (reports / f"{rid}.yaml").write_text(rf.ALPHA_YAML.replace("id: alpha", f"id: {rid}")
                                                 .replace("alpha.md", f"{rid}.md"), encoding="utf-8")  # fmt: skip
        settings = Settings(data_dir=data, offline=True)
        t0 = time.perf_counter()
        run(reports_dir=reports, settings=settings)
        print(f"cold ingest of {args.reports} reports: {time.perf_counter() - t0:.2f} s")
        path = reports / "r0000.yaml"
        writes, rebuilds = [], []
        for k in range(args.repeat):
            t0 = time.perf_counter()
            curate.record_decision(path, "rl_algorithm", ["GRPO", "PPO"][k % 2], f"bench {k}")
            t1 = time.perf_counter()
            out = run([path], reports_dir=reports, settings=settings)
            t2 = time.perf_counter()
            assert out.outcomes[0].status == "cached", out.outcomes[0]
            writes.append(t1 - t0)
            rebuilds.append(t2 - t1)
        print(f"decision write (round-trip YAML, validated, atomic): median {statistics.median(writes) * 1000:.0f} ms")
        print(f"table rebuild after it (pipeline.run on the file, cached): median {statistics.median(rebuilds) * 1000:.0f} ms")
        total = statistics.median([a + b for a, b in zip(writes, rebuilds, strict=True)])
        print(f"decision to updated table: median {total * 1000:.0f} ms at {args.reports} reports")
    return 0


if __name__ == "__main__":
    with recorded(__file__):
        raise SystemExit(main())
