# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""What of an error may leave the process: a redacted text (ConfigMap, log, health answers) and a code from a
fixed set (metric labels). An upstream error body is free text: a proxy's 502 page may echo our headers."""

from __future__ import annotations

from collections.abc import Callable, Iterable

from dvp_common.runtime.logging import redact_text, redact_values

# Our own transport's reasons (dvp_common.kube); a server's `reason` is free text and never a code.
REASONS = frozenset({"ConnectionError", "DeadlineExceeded", "WatchDropped", "WatchDecode"})
MAX_TEXT = 400


def code(exc: BaseException) -> str:
    reason = getattr(exc, "reason", "")
    if reason in REASONS:
        return reason
    status = getattr(exc, "status", 0)
    if isinstance(status, int) and not isinstance(status, bool) and 100 <= status <= 599:
        return f"HTTP {status}"
    return "error"


class Scrub:
    """scrub(text): the text with secret-looking parts and the credentials we hold removed, one line, bounded."""

    def __init__(self, secrets: Callable[[], Iterable[str | None]] = tuple) -> None:
        self.secrets = secrets

    def __call__(self, text: object) -> str:
        clean = redact_values(redact_text(" ".join(str(text).split())), [s for s in self.secrets() if s])
        return clean if len(clean) <= MAX_TEXT else clean[: MAX_TEXT - 3] + "..."
