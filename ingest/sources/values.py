"""Values from servers and feeds, read by one bounded, total function per kind.

A server that `discover` asks or a download comes from is not under the user's control: a feed
item dated in the year 99999999999, a `Retry-After: ²` (a superscript digit passes
`str.isdigit()`, then `float()` refuses it), an `X-RateLimit-Reset: soon`, a `Content-Length` of
5,000 digits, a file size of `1e400` or `"big"`. Each reader here returns a value or raises
`BadValue` with one plain line saying what was wrong, for any input whatever its type, length or
characters: never another exception, and never more than a bounded amount of work (inputs are cut
to `MAX_TEXT` characters before they are looked at). Callers turn a `BadValue` into a per-item note
("skipped …: …"), so one bad value never stops the others.
"""

from __future__ import annotations

import datetime as dt
import email.utils
import math

#: Characters of a value looked at; a date, a number or a header field is far shorter.
MAX_TEXT = 100
#: Digits of a whole number accepted (sizes, epoch seconds, counts): 10**18 is beyond any of them.
MAX_DIGITS = 18
#: Dates outside these years are refused (a technical report, a commit, a blog post, a rate-limit reset).
MIN_YEAR, MAX_YEAR = 1900, 2200


class BadValue(ValueError):
    """A value from a server or feed that cannot be used; the message is one plain line."""


def shown(value: object, limit: int = 40) -> str:
    """A value as a message quotes it: its repr, cut to `limit` characters."""
    try:
        text = repr(value)
    except Exception:  # a hostile object's __repr__; values here are str/int/float/None
        text = f"<{type(value).__name__}>"
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _text(value: object, what: str) -> str:
    if not isinstance(value, str):
        raise BadValue(f"{what} {shown(value)} is not text")
    return value[: MAX_TEXT + 1].strip()


def whole_number(value: object, what: str, lo: int = 0, hi: int = 10**MAX_DIGITS) -> int:
    """An integer from a JSON number or text of ASCII digits, within [lo, hi]."""
    if isinstance(value, bool):
        raise BadValue(f"{what} {shown(value)} is not a whole number")
    if isinstance(value, int):
        n = value
    elif isinstance(value, float):
        if not math.isfinite(value) or value != int(value):
            raise BadValue(f"{what} {shown(value)} is not a whole number")
        n = int(value)
    else:
        t = _text(value, what)
        sign = -1 if t[:1] == "-" else 1
        digits = t[1:] if t[:1] in "+-" and t else t
        if not digits or not digits.isascii() or not digits.isdigit() or len(digits) > MAX_DIGITS:
            raise BadValue(f"{what} {shown(value)} is not a whole number")
        n = sign * int(digits)
    if not lo <= n <= hi:
        raise BadValue(f"{what} {shown(value)} is out of range ({lo} to {hi})")
    return n


def _checked(d: dt.date, what: str, value: object) -> dt.date:
    if not MIN_YEAR <= d.year <= MAX_YEAR:
        raise BadValue(f"{what} {shown(value)} is out of range (years {MIN_YEAR} to {MAX_YEAR})")
    return d


def date_value(value: object, what: str) -> dt.date | None:
    """A date from ISO 8601 (Atom, GitHub) or RFC 822 (RSS, HTTP); None when absent (empty)."""
    if value is None:
        return None
    t = _text(value, what)
    if not t:
        return None
    if len(t) > MAX_TEXT:
        raise BadValue(f"{what} {shown(value)} is too long for a date")
    try:
        return _checked(dt.datetime.fromisoformat(t.replace("Z", "+00:00")).date(), what, value)
    except (ValueError, OverflowError):
        pass
    return _checked(_http_datetime(t, what, value).date(), what, value)


def _http_datetime(t: str, what: str, value: object) -> dt.datetime:
    """An RFC 822 / HTTP date as an aware datetime (UTC when it names no zone)."""
    try:
        parts = email.utils.parsedate_tz(t)
    except (TypeError, ValueError, IndexError, OverflowError):
        parts = None
    if parts is None:
        raise BadValue(f"{what} {shown(value)} is not a date")
    year, month, day, hour, minute, second = parts[:6]
    if not MIN_YEAR <= year <= MAX_YEAR:
        raise BadValue(f"{what} {shown(value)} is out of range (years {MIN_YEAR} to {MAX_YEAR})")
    offset = parts[9] or 0
    try:
        zone = dt.timezone(dt.timedelta(seconds=offset))
        return dt.datetime(year, month, day, hour, minute, min(second, 59), tzinfo=zone)
    except (ValueError, OverflowError, TypeError) as exc:
        raise BadValue(f"{what} {shown(value)} is not a valid date ({exc})") from None


def retry_after(value: object, now: float) -> float | None:
    """Seconds to wait from a `Retry-After` header (ASCII seconds or an HTTP date); None when absent."""
    if value is None:
        return None
    t = _text(value, "Retry-After")
    if not t:
        return None
    if t.isascii() and t.isdigit():
        return float(whole_number(t, "Retry-After"))
    when = _http_datetime(t, "Retry-After", value)
    return max(0.0, when.timestamp() - now)


def epoch_seconds(value: object, what: str) -> float | None:
    """Unix time from a header such as `X-RateLimit-Reset`; None when absent."""
    if value is None or (isinstance(value, str) and not value.strip()):
        return None
    return float(whole_number(value, what, 0, 10**12))


def content_length(value: object) -> int | None:
    """The `Content-Length` a server declares; None when absent. A declared size is only used to refuse
    a body early (the cap is enforced on what arrives), so an unreadable one is the caller's to report."""
    if value is None or (isinstance(value, str) and not value.strip()):
        return None
    return whole_number(value, "Content-Length")
