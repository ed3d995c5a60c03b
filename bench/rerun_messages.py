"""What one interaction's rerun sends the browser, message by message (a diagnosis).

    .venv/bin/python bench/rerun_messages.py --store DIR --page Review --what next [--app app.py] [--repeat 2]

Serves `--app` on a copy of an existing store (a folder with data/ and reports/, as
`tests.app_fixtures.scale_store` or `bench/scale.py --keep DIR` leave it) behind a wrapper script that
logs every message the server queues for the browser (Streamlit's `ForwardMsg`: its kind, and for an
element its delta path, element kind and size), opens the interaction's page as bench/app_speed.py does,
and performs the action of bench/app_interactions.py's INTERACTIONS `--repeat` times. Prints, per action,
each message of its rerun, then the count and bytes by element kind: bench/app_speed.py prints a rerun's
messages and KB, this says which elements they are (a rerun sends one message per element it draws).
Diagnostic only: no target.
"""

from __future__ import annotations

import collections
import json
import shutil
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
from playwright.sync_api import sync_playwright  # noqa: E402

from bench.app_interactions import IDLE, act, diagnosis, open_drawn  # noqa: E402
from bench.results_log import recorded  # noqa: E402
from tests.test_browser import CHROME_ARGS, CHROMIUM, start_app, stop  # noqa: E402

#: The served script: on its first run it wraps the session's message queue (one JSON line per message
#: into $FRL_MSG_LOG), then runs the app as `streamlit run` would.
WRAPPER = """import json, os, runpy
from streamlit.runtime import app_session

if not getattr(app_session.AppSession, "_frl_logged", False):
    _orig = app_session.AppSession._enqueue_forward_msg

    def _logged(self, msg):
        kind = msg.WhichOneof("type")
        rec = {"type": kind, "bytes": msg.ByteSize()}
        if kind == "delta":
            d = msg.delta
            rec["path"] = list(msg.metadata.delta_path)
            what = d.WhichOneof("type")
            if what == "new_element":
                what = d.new_element.WhichOneof("type")
            elif what == "add_block":
                what = "block:" + (d.add_block.WhichOneof("type") or "vertical")
            rec["what"] = what
        with open(os.environ["FRL_MSG_LOG"], "a", encoding="utf-8") as f:
            f.write(json.dumps(rec) + "\\n")
        return _orig(self, msg)

    app_session.AppSession._enqueue_forward_msg = _logged
    app_session.AppSession._frl_logged = True
runpy.run_path(%r, run_name="__main__")
"""


def read_log(path: Path, start: int) -> list[dict]:  # type: ignore[type-arg]
    """The messages logged after line `start`."""
    lines = path.read_text(encoding="utf-8").splitlines() if path.exists() else []
    return [json.loads(x) for x in lines[start:]]


def main() -> int:
    a, d = diagnosis(__doc__, 2, "frl-messages-")
    tmp = d.tmp
    log = tmp / "messages.jsonl"
    wrapper = tmp / "logged_app.py"
    wrapper.write_text(WRAPPER % str(a.app.resolve()), encoding="utf-8")
    proc, server = start_app(tmp / "data", tmp / "reports", tmp / "streamlit.log", {"FRL_MSG_LOG": str(log)}, script=wrapper)
    try:
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=str(CHROMIUM), args=CHROME_ARGS, headless=True)
            page = browser.new_page(viewport={"width": 1440, "height": 1000})
            open_drawn(page, server + d.path.format(**d.fill), a.page)
            first = read_log(log, 0)
            print(f"{a.page} {a.what} ({a.app}): {d.n_reports} reports; first render {len(first)} messages, "
                  f"{sum(m['bytes'] for m in first) / 1024:.1f} KB")  # fmt: skip
            for i in range(a.repeat):
                start = len(read_log(log, 0))
                t = act(page, d.how, i, d.sel)
                page.wait_for_selector(IDLE, timeout=120_000)
                page.wait_for_timeout(300)
                msgs = read_log(log, start)
                print(f"  action {i + 1}: {t * 1000:.0f} ms; {len(msgs)} messages, {sum(m['bytes'] for m in msgs) / 1024:.1f} KB")
                for m in msgs:
                    print(f"    {m['type']:<22} {m.get('what', ''):<18} {m.get('path', '')!s:<16} {m['bytes']:7d} B")
                by = collections.Counter()
                size: dict[str, int] = collections.defaultdict(int)
                for m in msgs:
                    k = m.get("what", m["type"])
                    by[k] += 1
                    size[k] += m["bytes"]
                print("    by kind: " + "; ".join(f"{k} {n} ({size[k] / 1024:.1f} KB)" for k, n in by.most_common()))
                page.keyboard.press("Escape")
            browser.close()
    finally:
        stop(proc)
        shutil.rmtree(tmp, ignore_errors=True)
    return 0


if __name__ == "__main__":
    with recorded(__file__):
        raise SystemExit(main())
