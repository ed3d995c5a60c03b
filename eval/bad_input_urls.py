"""Bad URLs, served by the 127.0.0.1 server of tests/local_http.py: error statuses, redirect
loops and escapes, slow, endless, short or mislabelled bodies, a closed port, offline runs."""

from __future__ import annotations

from bad_input_cases import ENDPOINTS, Case, url_case


def url_cases() -> list[Case]:
    """Every URL case (127.0.0.1 only)."""
    cases: list[Case] = []
    for code in (400, 401, 403, 404, 410, 429):
        cases.append(url_case(f"http-{code}", f"/status/{code}", (f"http {code}",)))
    for code in (500, 502, 503, 504):
        cases.append(url_case(f"http-{code}", f"/status/{code}", (f"http {code}", "attempts")))
    cases.append(url_case("redirect-without-location", "/status/302", ("without a location",)))
    cases.append(url_case("redirect-loop", "/loop/a", ("redirect loop",)))
    cases.append(url_case("redirect-chain-40", "/chain/40/page.html", ("too many redirects",)))
    cases.append(url_case("redirect-to-file", "/redirect?to=file:///etc/passwd", ("only http(s) redirects",)))
    cases.append(url_case("redirect-to-ftp", "/redirect?to=ftp://example.org/x.pdf", ("only http(s) redirects",)))
    # a read timeout, or the total deadline on a busy machine: both end the download with their words
    cases.append(url_case("timeout-headers", "/slow-headers", ("timed out", "too slow")))
    cases.append(url_case("trickle-body", "/trickle", ("too slow",)))
    cases.append(url_case("endless-body", "/endless", ("size cap",)))
    cases.append(url_case("declared-oversize", "/big", ("size cap",)))
    cases.append(url_case("empty-body", "/empty", ("empty body",)))
    cases.append(url_case("short-body", "/short", ("broke before the whole file",)))
    cases.append(url_case("pdf-link-serves-html", "/files/login.pdf", ("expected a pdf",)))
    cases.append(url_case("pdf-link-serves-image", "/files/image.pdf", ("png image",)))
    cases.append(url_case("unreachable-port", lambda s: f"http://127.0.0.1:{ENDPOINTS.closed_port}/x.pdf", ("cannot connect",)))
    cases.append(url_case("offline-uncached", "/files/never.pdf", ("not in the download cache",), settings={"offline": True}))
    return cases
