# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""Typed settings: a dataclass filled from defaults, then environment variables, then flags, then validated.

Each field may carry metadata `env=` (default: PREFIX + FIELD_NAME upper-cased), `flag=` (default:
--field-name), `help=` and `secret=True` (never echoed in errors). Every problem raises one ConfigInvalid.
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import re
from collections.abc import Mapping, Sequence
from typing import Any, get_type_hints

_DURATION = re.compile(r"^(?:(\d+(?:\.\d+)?)h)?(?:(\d+(?:\.\d+)?)m(?!s))?(?:(\d+(?:\.\d+)?)s)?(?:(\d+)ms)?$")


class ConfigInvalid(ValueError):
    """One clear line naming the setting (flag or env var) that is wrong."""


def parse_duration(text: str) -> float:
    """Seconds from "90", "1.5", "30s", "5m", "1h30m", "250ms"."""
    text = text.strip()
    try:
        return float(text)
    except ValueError:
        pass
    match = _DURATION.match(text)
    if not text or not match:
        raise ValueError(f"{text!r} is not a duration (e.g. 30s, 5m, 1h)")
    h, m, s, ms = (float(g) if g else 0.0 for g in match.groups())
    return h * 3600 + m * 60 + s + ms / 1000


def _convert(kind: Any, raw: str) -> Any:
    if kind is bool:
        low = raw.strip().lower()
        if low in ("1", "true", "yes", "on"):
            return True
        if low in ("0", "false", "no", "off", ""):
            return False
        raise ValueError(f"{raw!r} is not a boolean")
    if kind is int:
        return int(raw)
    if kind is float:
        return parse_duration(raw)
    if kind in (list[str], tuple[str, ...]):
        items = [p.strip() for p in raw.split(",") if p.strip()]
        return items if kind == list[str] else tuple(items)
    return raw


def load[T](cls: type[T], argv: Sequence[str] | None = None, env: Mapping[str, str] | None = None,
         prefix: str = "") -> T:
    """Build `cls` (a dataclass; float fields accept durations). Calls `validate()` on it if defined."""
    env = os.environ if env is None else env
    hints = get_type_hints(cls)
    parser = argparse.ArgumentParser(prog=cls.__name__, add_help=False, exit_on_error=False)
    values: dict[str, Any] = {}
    where: dict[str, str] = {}
    fields = [f for f in dataclasses.fields(cls) if f.init]  # type: ignore[arg-type]
    for f in fields:
        flag = f.metadata.get("flag", "--" + f.name.replace("_", "-"))
        parser.add_argument(flag, dest=f.name, default=None)
        var = f.metadata.get("env", prefix + f.name.upper())
        if var and var in env:
            values[f.name], where[f.name] = env[var], f"environment variable {var}"
    try:
        flags, unknown = parser.parse_known_args(list(argv or []))
    except argparse.ArgumentError as exc:
        raise ConfigInvalid(f"flags: {exc}") from None
    if unknown:
        raise ConfigInvalid(f"unknown flag {unknown[0].split('=')[0]}")
    for f in fields:
        if getattr(flags, f.name) is not None:
            values[f.name] = getattr(flags, f.name)
            where[f.name] = "flag " + f.metadata.get("flag", "--" + f.name.replace("_", "-"))
    kwargs: dict[str, Any] = {}
    for name, raw in values.items():
        field = next(f for f in fields if f.name == name)
        try:
            kwargs[name] = _convert(hints[name], raw)
        except ValueError as exc:
            detail = "invalid value" if field.metadata.get("secret") else str(exc)
            raise ConfigInvalid(f"{where[name]}: {detail}") from None
    missing = [f for f in fields if f.name not in kwargs and f.default is dataclasses.MISSING
               and f.default_factory is dataclasses.MISSING]
    if missing:
        f = missing[0]
        var = f.metadata.get("env", prefix + f.name.upper())
        raise ConfigInvalid(f"{f.metadata.get('flag', '--' + f.name.replace('_', '-'))} (or {var}) is required")
    obj = cls(**kwargs)
    validate = getattr(obj, "validate", None)
    if callable(validate):
        try:
            validate()
        except ConfigInvalid:
            raise
        except ValueError as exc:
            raise ConfigInvalid(str(exc)) from None
    return obj
