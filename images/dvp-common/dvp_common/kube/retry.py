# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""Exponential backoff with full jitter; Retry-After wins when the server gives one."""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from email.utils import parsedate_to_datetime


@dataclass(frozen=True)
class RetryPolicy:
    attempts: int = 5  # total tries, the first included
    base: float = 0.2
    cap: float = 5.0
    jitter: bool = True
    max_retry_after: float = 30.0  # a server asking for longer is still obeyed, up to this
    rand: random.Random = field(default_factory=random.Random, compare=False, repr=False)

    def delay(self, attempt: int, retry_after: float | None = None) -> float:
        """Delay before retry number `attempt` (0-based: the wait after the first failure is attempt 0)."""
        if retry_after is not None and retry_after >= 0:
            return min(retry_after, self.max_retry_after)
        ceiling = min(self.cap, self.base * 2.0 ** min(attempt, 60))  # long failure streaks must not overflow
        return self.rand.uniform(0, ceiling) if self.jitter else ceiling


NO_RETRY = RetryPolicy(attempts=1)


def parse_retry_after(value: str | None) -> float | None:
    """Retry-After is either delta-seconds or an HTTP date."""
    if not value:
        return None
    value = value.strip()
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        from datetime import UTC, datetime

        when = parsedate_to_datetime(value)
        return max(0.0, (when - datetime.now(UTC)).total_seconds())
    except (TypeError, ValueError, IndexError):
        return None
