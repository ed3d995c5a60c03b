"""Waiting for the dashboard's script runs by their events, never by a fixed delay.

Streamlit marks the app element with `data-test-script-state` ("running", then "notRunning"). A
fixed pause before looking for "notRunning" is wall-clock luck: on a loaded machine the rerun a
click asks for may not have started yet, and the wait ends on the previous run's idle state. So
every page counts the runs it has seen start (an observer installed before the app's own
scripts), and `settle` waits for a run that ended after the last one it waited for, then for idle.
"""

from __future__ import annotations

import contextlib

IDLE = '[data-testid="stApp"][data-test-script-state="notRunning"]'

#: Counts every change of the state attribute away from "running" (a run ended). The old value is
#: read from each record, so a run that starts and ends between two callbacks still counts.
RUN_WATCH = """(() => {
  window.__frlEnded = 0; window.__frlSeen = 0;
  const count = (recs) => { for (const r of recs) { if (r.oldValue === "running") window.__frlEnded++; } };
  new MutationObserver(count).observe(document, {subtree: true, attributes: true, attributeOldValue: true,
                                                 attributeFilter: ["data-test-script-state"]});
})();"""


def watch(target) -> None:  # type: ignore[no-untyped-def]
    """Install the run counter on a page or a browser context (before its first navigation)."""
    target.add_init_script(RUN_WATCH)


_ENDED = "() => (window.__frlEnded || 0) > (window.__frlSeen || 0)"
_SEEN = "() => { window.__frlSeen = window.__frlEnded || 0; }"


#: How long `settle` waits for a run's end before it relies on the event the test already waited
#: for (a URL, an element) and the idle state alone: a run the page re-mounts, or a fragment's run,
#: may end without the state change the observer counts. Generous; it costs time only then.
RUN_END_MS = 10_000


def settle(page, timeout_ms: int = 90_000) -> None:  # type: ignore[no-untyped-def]
    """Wait until a script run has ended since the last settle (or the page's load), then for idle.
    Call it after the event a step causes (a load, a URL change, an element): when no counted run
    end follows within RUN_END_MS, the idle state after that event is what is awaited."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    with contextlib.suppress(PlaywrightTimeout):
        page.wait_for_function(_ENDED, timeout=RUN_END_MS)
    page.wait_for_selector(IDLE, timeout=timeout_ms)
    page.evaluate(_SEEN)


def rerun(page, action, timeout_ms: int = 90_000) -> None:  # type: ignore[no-untyped-def]
    """Do `action()` (a click, a key press) and wait for the run it starts to end: strict, for an
    action that must start one (the bound is generous: the machine may be shared and loaded)."""
    page.evaluate(_SEEN)
    action()
    page.wait_for_function(_ENDED, timeout=timeout_ms)
    page.wait_for_selector(IDLE, timeout=timeout_ms)
    page.evaluate(_SEEN)


#: How long one click on a popover's opener may take to show what the popover holds before the
#: click is taken as lost (a rerun that replaced the opener as it was clicked) and made again.
POPOVER_TRY_MS = 10_000


def open_popover(opener, inside, tries: int = 3) -> None:  # type: ignore[no-untyped-def]
    """Click a popover's opener until `inside` (a locator in the popover) is visible. A click that
    lands while a rerun redraws the opener is lost on a loaded machine; the user clicks again, so
    the test does too, a bounded number of times."""
    from playwright.sync_api import expect

    for _ in range(tries - 1):
        opener.scroll_into_view_if_needed()
        opener.click()
        try:
            expect(inside).to_be_visible(timeout=POPOVER_TRY_MS)
            return
        except AssertionError:
            continue
    opener.click()
    expect(inside).to_be_visible(timeout=30_000)
