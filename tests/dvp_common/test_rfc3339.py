# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""dvp_common.rfc3339: what Go's time.RFC3339 takes, what the API writes, round trips."""

from __future__ import annotations

import datetime as dt

import pytest
from dvp_common.rfc3339 import TimeError, format_micro_time, format_time, parse_time, parse_time_or_none
from hypothesis import given
from hypothesis import strategies as st

UTC = dt.UTC


@pytest.mark.parametrize(("text", "expected"), [
    ("2026-01-02T03:04:05Z", dt.datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC)),
    ("2026-01-02T03:04:05.5Z", dt.datetime(2026, 1, 2, 3, 4, 5, 500000, tzinfo=UTC)),
    ("2026-01-02T03:04:05.123456789Z", dt.datetime(2026, 1, 2, 3, 4, 5, 123456, tzinfo=UTC)),
    ("2026-01-02T05:04:05+02:00", dt.datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC)),
    ("2026-01-01T23:30:00-03:30", dt.datetime(2026, 1, 2, 3, 0, 0, tzinfo=UTC)),
])
def test_parses_what_the_api_writes(text, expected):
    got = parse_time(text)
    assert (got, got.tzinfo) == (expected, UTC)


@pytest.mark.parametrize("text", [
    "", "2026-01-02", "2026-01-02T03:04:05", "2026-01-02 03:04:05Z", "2026-01-02t03:04:05z", "20260102T030405Z",
    "2026-01-02T03:04Z", "2026-13-02T03:04:05Z", "2026-02-30T03:04:05Z", "2026-01-02T24:00:00Z",
    "2026-01-02T03:04:60Z", "2026-01-02T03:04:05+0200", "2026-01-02T03:04:05+24:00", "2026-01-02T03:04:05.Z",
    " 2026-01-02T03:04:05Z", "2026-01-02T03:04:05Z ", None, 1767323045,
])
def test_refuses_what_is_not_rfc3339(text):
    with pytest.raises(TimeError, match="is not an RFC 3339 time"):
        parse_time(text)
    assert parse_time_or_none(text) is None


def test_format():
    when = dt.datetime(2026, 1, 2, 5, 4, 5, 120000, tzinfo=dt.timezone(dt.timedelta(hours=2)))
    assert (format_time(when), format_micro_time(when)) == ("2026-01-02T03:04:05Z", "2026-01-02T03:04:05.120000Z")
    with pytest.raises(ValueError, match="has no time zone"):
        format_time(dt.datetime(2026, 1, 2))


_AWARE = st.datetimes(min_value=dt.datetime(1, 1, 2), max_value=dt.datetime(9999, 12, 30),
                      timezones=st.sampled_from([UTC, dt.timezone(dt.timedelta(hours=5, minutes=30)),
                                                 dt.timezone(dt.timedelta(hours=-8))]))


@given(_AWARE)
def test_round_trips(when):
    assert parse_time(format_micro_time(when)) == when
    assert parse_time(format_time(when)) == when.replace(microsecond=0)
    assert format_time(parse_time(format_time(when))) == format_time(when)
