# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""The entry point every hook file ends with: shell-operator's handshake plus one-line failures for bad input."""

import gc
import sys

from lib.errors import InvalidInput


def _shallow(obj):
    return dict(obj) if isinstance(obj, dict) else obj


def _same(obj):
    return obj


def _lean(hook) -> None:
    """The SDK copies the values with copy.deepcopy three times per run and diffs them with dictdiffer even when
    nothing changed: with large values that costs more than the hook. Hooks change values only through
    lib/values.py, which copies what it changes (copy on write): each binding context's run gets a shallow copy,
    and the collector keeps the values read from the file, which nothing changes. Equal values give no patches,
    which a C-level == tells at once (unchanged subtrees are the same objects)."""
    from deckhouse import values

    hook.deepcopy = _shallow
    values.deepcopy = _same
    update = values.ValuesPatchesCollector.update

    def update_if_changed(self, updated_values: dict) -> None:
        if updated_values != self.initial_values:
            update(self, updated_values)

    values.ValuesPatchesCollector.update = update_if_changed


def run(main, config: str) -> None:
    gc.disable()  # as lib/__init__.py does for a hook process (here too when lib was imported otherwise)
    from deckhouse import hook

    _lean(hook)
    try:
        hook.run(main, config=config)
    except InvalidInput as exc:
        # One line, no traceback: the object and field are the whole story, and nothing has been written.
        print(f"invalid input: {exc}", file=sys.stderr)
        sys.exit(1)
