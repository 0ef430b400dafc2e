# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""The `python -m <component>` skeleton every component shares.

settings (a bad one: one line on stderr, exit 2) -> JSON logs at the settings' level -> build (unusable
credentials or certificates: one log line, exit 2) -> start -> wait for SIGTERM/SIGINT -> shutdown -> exit 0.
"""

from __future__ import annotations

import logging
import os
import ssl
import sys
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Protocol

from ..kube.errors import ConfigError
from . import logging as runtime_logging
from .settings import ConfigInvalid, HelpRequested
from .signals import stop_on_signals


class Component(Protocol):
    def start(self) -> object: ...

    def shutdown(self) -> None: ...


class Started:
    """A component made of start and stop callables (a server, a loop thread)."""

    def __init__(self, start: Callable[[], object], shutdown: Callable[[], None]) -> None:
        self.start, self.shutdown = start, shutdown  # type: ignore[method-assign]


def main(name: str, load: Callable[[Sequence[str], Mapping[str, str]], Any],
         build: Callable[[Any], tuple[Component, str]], argv: Sequence[str] | None = None,
         env: Mapping[str, str] | None = None) -> int:
    """`load(argv, env)` -> settings with a `log_level`; `build(settings)` -> (component, what it serves)."""
    try:
        settings = load(list(sys.argv[1:] if argv is None else argv), os.environ if env is None else env)
    except HelpRequested as text:
        print(f"python -m {name} [flags]\n{text}")
        return 0
    except ConfigInvalid as exc:
        print(f"{name}: {exc}", file=sys.stderr)
        return 2
    runtime_logging.setup(settings.log_level)
    log = logging.getLogger(name)
    try:
        component, description = build(settings)
    except (ConfigError, OSError, ssl.SSLError) as exc:
        log.error("%s: %s", name, exc)
        return 2
    stop = stop_on_signals()  # before start: a SIGTERM during start-up still stops cleanly
    component.start()
    log.info("%s started (%s)", name, description)
    stop.wait()
    component.shutdown()
    log.info("%s stopped", name)
    return 0
