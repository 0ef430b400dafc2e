# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""The entry point every hook file ends with: shell-operator's handshake plus one-line failures for bad input."""

import json
import sys

from lib.errors import InvalidInput


def _json_copy(obj):
    return json.loads(json.dumps(obj))


def _same(obj):
    return obj


def _lean(hook) -> None:
    """The SDK copies the values with copy.deepcopy three times per run and diffs them with dictdiffer even when
    nothing changed: with large values that costs more than the hook. Values come from JSON files, so a JSON
    round trip copies them exactly; equal values give no patches, which a C-level == tells at once."""
    from deckhouse import values

    hook.deepcopy = _json_copy
    # The collector's copy of the initial values is only diffed against: nothing mutates the dict read from the
    # values file (each binding context's hook gets its own copy above), so it needs none.
    values.deepcopy = _same
    update = values.ValuesPatchesCollector.update

    def update_if_changed(self, updated_values: dict) -> None:
        if updated_values != self.initial_values:
            update(self, updated_values)

    values.ValuesPatchesCollector.update = update_if_changed


def run(main, config: str) -> None:
    from deckhouse import hook

    _lean(hook)
    try:
        hook.run(main, config=config)
    except InvalidInput as exc:
        # One line, no traceback: the object and field are the whole story, and nothing has been written.
        print(f"invalid input: {exc}", file=sys.stderr)
        sys.exit(1)
