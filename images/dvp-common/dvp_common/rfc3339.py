# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""Kubernetes timestamps (`metav1.Time`, `metav1.MicroTime`): RFC 3339 read as Go's `time.RFC3339` reads it.

Strict on purpose: `datetime.fromisoformat` also takes ISO 8601 forms the API never writes ("2026-01-02",
"20260102T030405", a space for "T", no offset), and a timestamp without an offset has no instant.
"""

from __future__ import annotations

import datetime as dt
import re

__all__ = ["TimeError", "format_micro_time", "format_time", "parse_time", "parse_time_or_none"]

# Go's RFC3339 layout: upper-case T and Z, an optional fraction of any length (parsing only), offset +-hh:mm.
_RFC3339 = re.compile(r"([0-9]{4})-([0-9]{2})-([0-9]{2})T([0-9]{2}):([0-9]{2}):([0-9]{2})(?:\.([0-9]+))?"
                      r"(Z|([+-])([0-9]{2}):([0-9]{2}))")


class TimeError(ValueError):
    """The text is not an RFC 3339 timestamp."""


def parse_time(text: str) -> dt.datetime:
    """An aware datetime in UTC; fractions finer than a microsecond are dropped. TimeError when malformed."""
    found = _RFC3339.fullmatch(text) if isinstance(text, str) else None
    if not found:
        raise TimeError(f"{text!r} is not an RFC 3339 time")
    year, month, day, hour, minute, second = (int(found[i]) for i in range(1, 7))
    micro = int((found[7] or "0")[:6].ljust(6, "0"))
    offset = dt.timedelta(0)
    if found[8] != "Z":
        hours, minutes = int(found[10]), int(found[11])
        if hours > 23 or minutes > 59:
            raise TimeError(f"{text!r} is not an RFC 3339 time: the offset is out of range")
        offset = (1 if found[9] == "+" else -1) * dt.timedelta(hours=hours, minutes=minutes)
    try:
        when = dt.datetime(year, month, day, hour, minute, second, micro, tzinfo=dt.timezone(offset))
    except ValueError as exc:  # month 13, second 60, February 30
        raise TimeError(f"{text!r} is not an RFC 3339 time: {exc}") from None
    return when.astimezone(dt.UTC)


def parse_time_or_none(text: object) -> dt.datetime | None:
    """parse_time, or None for an absent, empty or malformed value (a field we only read, never trust)."""
    try:
        return parse_time(text)  # type: ignore[arg-type]
    except TimeError:
        return None


def format_time(when: dt.datetime) -> str:
    """`metav1.Time` text: UTC, whole seconds ("2026-01-02T03:04:05Z"). A naive datetime is refused."""
    return _utc(when).isoformat(timespec="seconds").replace("+00:00", "Z")


def format_micro_time(when: dt.datetime) -> str:
    """`metav1.MicroTime` text (Lease times, Events' eventTime): UTC, six fraction digits."""
    return _utc(when).isoformat(timespec="microseconds").replace("+00:00", "Z")


def _utc(when: dt.datetime) -> dt.datetime:
    # callers use isoformat, not strftime: strftime("%Y") does not pad years below 1000 to four digits
    if when.tzinfo is None or when.utcoffset() is None:
        raise ValueError(f"{when!r} has no time zone: it names no instant")
    return when.astimezone(dt.UTC)
