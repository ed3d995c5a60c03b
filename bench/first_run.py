"""How long a new user waits: `make app` in a fresh clone, with empty pip and uv caches, until the
dashboard answers and draws its first page.

    python bench/first_run.py            # clone HEAD into a temp folder, time `make app` (uses the registry)

The clone is of this repository's committed HEAD (what a user would get), made in a new temporary
folder with its own `.venv`; `PIP_CACHE_DIR` and `UV_CACHE_DIR` point at new empty folders, so every
package comes from the registry. "Live" means the Streamlit health check answers and, when Chromium
and Playwright are at hand, the Compare page has drawn its table. Prints the time to each step (venv and
installer, requirements, ingest, server, page) as seen from the output, and the total against the
60-second target. The temporary folder is removed at the end.
"""

from __future__ import annotations

import argparse
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from results_log import recorded

ROOT = Path(__file__).resolve().parents[1]
TARGET_S = 60.0
CHROMIUM = "/usr/bin/chromium"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _healthy(port: int) -> bool:
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/_stcore/health", timeout=1) as r:
            return r.status == 200
    except OSError:
        return False


def _page_drawn(port: int, deadline: float) -> bool:
    """The Compare page's table is on screen (False when Playwright or Chromium is missing)."""
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        return False
    if not Path(CHROMIUM).exists():
        return False
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        try:
            page = browser.new_page()
            page.goto(f"http://127.0.0.1:{port}/", timeout=max(1.0, deadline - time.monotonic()) * 1000)
            page.wait_for_selector("table", timeout=max(1.0, deadline - time.monotonic()) * 1000)
            return True
        finally:
            browser.close()


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--timeout", type=float, default=600.0, help="give up after this many seconds")
    args = ap.parse_args(argv)
    tmp = Path(tempfile.mkdtemp(prefix="frl-first-run-"))
    clone, port = tmp / "frontier-report-lens", _free_port()
    subprocess.run(["git", "clone", "--quiet", str(ROOT), str(clone)], check=True)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("FRL_", "VIRTUAL_ENV"))}
    env |= {
        "PIP_CACHE_DIR": str(tmp / "pip-cache"),
        "UV_CACHE_DIR": str(tmp / "uv-cache"),
        "STREAMLIT_SERVER_PORT": str(port),
        "STREAMLIT_SERVER_HEADLESS": "true",
        "STREAMLIT_BROWSER_GATHER_USAGE_STATS": "false",
    }
    marks: dict[str, float] = {}
    log = tmp / "make.log"
    start = time.monotonic()
    with log.open("w") as out:
        proc = subprocess.Popen(["make", "app"], cwd=clone, env=env, stdout=out, stderr=subprocess.STDOUT, start_new_session=True)
    deadline = start + args.timeout
    try:
        while time.monotonic() < deadline and proc.poll() is None:
            now = time.monotonic() - start
            if "venv" not in marks and (clone / ".venv" / "bin" / "python").exists():
                marks["venv"] = now
            if "installer" not in marks and (clone / ".venv" / "bin" / "uv").exists():
                marks["installer"] = now
            if "requirements" not in marks and (clone / ".venv" / ".runtime").exists():
                marks["requirements"] = now
            if "ingest" not in marks and "streamlit" in log.read_text(errors="replace").lower():
                marks["ingest"] = now
            if _healthy(port):
                marks["server"] = time.monotonic() - start
                break
            time.sleep(0.1)
        if "server" in marks and _page_drawn(port, deadline):
            marks["page"] = time.monotonic() - start
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGTERM)
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
        text = log.read_text(errors="replace")
        shutil.rmtree(tmp, ignore_errors=True)
    installer = "uv" if "installer" in marks else "pip (uv not installed)"
    print(f"fresh clone of {ROOT.name} at HEAD, empty pip and uv caches, installer: {installer}")
    for name in ("venv", "installer", "requirements", "ingest", "server", "page"):
        if name in marks:
            print(f"  {name:<13} at {marks[name]:6.1f} s")
    total = marks.get("page", marks.get("server"))
    if total is None:
        print("the dashboard never came up; the end of make's output:\n" + "\n".join(text.splitlines()[-20:]))
        return 1
    ok = total <= TARGET_S
    print(f"make app to a live dashboard: {total:.1f} s   target <= {TARGET_S:.0f} s {'ok' if ok else 'MISSED'}")
    return 0 if ok else 1


if __name__ == "__main__":
    with recorded(__file__):
        raise SystemExit(main())
