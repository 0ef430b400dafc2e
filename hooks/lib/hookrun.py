# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""The entry point every hook file ends with: shell-operator's handshake plus one-line failures for bad input."""

import sys

from lib.errors import InvalidInput


def run(main, config: str) -> None:
    from deckhouse import hook

    try:
        hook.run(main, config=config)
    except InvalidInput as exc:
        # One line, no traceback: the object and field are the whole story, and nothing has been written.
        print(f"invalid input: {exc}", file=sys.stderr)
        sys.exit(1)
