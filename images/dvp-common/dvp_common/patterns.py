# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""Regular expressions with the semantics Deckhouse and Kubernetes give them: Go's regexp, which is RE2.

Python's `re` differs where it matters for validation: its `$` also matches before a final newline (so
"ns\\n" passes a DNS-label pattern), and it accepts syntax RE2 refuses (lookaround, backreferences), which
Deckhouse would then reject at its own validation. Every schema or user-supplied pattern goes through here."""

import functools


class PatternError(ValueError):
    """The pattern is not valid RE2 syntax (the message never repeats the pattern: it is user input)."""


def compile(pattern: str):  # noqa: A001 - the re-module name, on purpose
    if not isinstance(pattern, str):  # before the cache: a list or a mapping cannot be a cache key
        raise PatternError("must be a string")
    return _compile(_utf8(pattern))


def _utf8(text: str) -> str:
    """The text as Go sees it: a lone surrogate (JSON's "\\ud800" decodes to one) is U+FFFD there, and RE2,
    which reads UTF-8, could not take it at all."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return "".join("\ufffd" if "\ud800" <= c <= "\udfff" else c for c in text)
    return text


@functools.cache
def _compile(pattern: str):
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
    return compile(pattern).search(_utf8(text)) is not None


def fullmatch(pattern: str, text: str) -> bool:
    return compile(pattern).fullmatch(_utf8(text)) is not None
