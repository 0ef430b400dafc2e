# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""The one error a hook raises for bad input: it names the object and the field, in one line, and never
carries the offending value (it may be a secret)."""


LONGEST = 256  # of an object or field name in the message (names come from the input)


def one_line(text: str, longest: int = LONGEST) -> str:
    """Text from the input, kept to one readable line: control characters escaped, long text cut."""
    text = str(text)
    if not text.isprintable():
        text = text.encode("unicode_escape", "backslashreplace").decode("ascii")
    return text if len(text) <= longest else text[:longest] + "..."


class InvalidInput(Exception):
    def __init__(self, obj: str, field: str, reason: str):
        self.obj, self.field, self.reason = one_line(obj), one_line(field), " ".join(reason.split())
        super().__init__(f"{self.obj}: {self.field}: {self.reason}")
