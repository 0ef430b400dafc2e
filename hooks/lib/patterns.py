# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""Regular expressions with the semantics Deckhouse and Kubernetes give them: Go's regexp, which is RE2.

Python's `re` differs where it matters for validation: its `$` also matches before a final newline (so
"ns\\n" passes a DNS-label pattern), and it accepts syntax RE2 refuses (lookaround, backreferences), which
Deckhouse would then reject at its own validation. Every schema or user-supplied pattern goes through here."""

import functools


class PatternError(ValueError):
    """The pattern is not valid RE2 syntax (the message never repeats the pattern: it is user input)."""


@functools.cache
def compile(pattern: str):  # noqa: A001 - the re-module name, on purpose
    if not isinstance(pattern, str):
        raise PatternError("must be a string")
    import re2  # imported here: only runs that evaluate a pattern pay for it

    options = re2.Options()
    options.log_errors = False  # RE2 would print the offending pattern to stderr
    try:
        return re2.compile(pattern, options)
    except re2.error as exc:
        reason = exc.args[0].decode(errors="replace") if exc.args and isinstance(exc.args[0], bytes) else ""
        # "invalid perl operator: (?=" names the construct, not the user's whole pattern
        raise PatternError(f"is not a valid RE2 regular expression ({reason.split(':')[0] or 'syntax'})") from None


def search(pattern: str, text: str) -> bool:
    return compile(pattern).search(text) is not None


def fullmatch(pattern: str, text: str) -> bool:
    return compile(pattern).fullmatch(text) is not None
