# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""Typed settings: one frozen dataclass per component, each default written once, in its field.

`load(cls, argv, env)` fills it from defaults, then environment variables, then flags, checks each value, then
calls `validate()` (which may return the settings with derived values filled in). Every problem is one
ConfigInvalid line naming the flag or variable; a secret's value is never echoed.

A field is a flag `--field-name` (and, when `load` gets an env `prefix`, the variable PREFIX + FIELD_NAME).
`setting()` declares what differs: another flag or variable, a parser, choices, bounds, a value taken from the
whole environment (`source`, e.g. the DVP connection), or `derived` (filled by validate, never read). `group()`
nests a dataclass whose fields are settings too (flags may be renamed per field). The type hint picks the
conversion: bool (`--flag` alone is true), int, float (a duration: 90, 30s, 5m, 1h30m, 250ms), str, list/tuple/
frozenset of str (comma separated), a dict of str (a JSON object).
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import re
import types
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Union, get_args, get_origin, get_type_hints

from .logging import LEVELS

_DURATION = re.compile(r"^(?:(\d+(?:\.\d+)?)h)?(?:(\d+(?:\.\d+)?)m(?!s))?(?:(\d+(?:\.\d+)?)s)?(?:(\d+)ms)?$")
_MISSING = dataclasses.MISSING


class ConfigInvalid(ValueError):
    """One clear line naming the setting (flag or env var) that is wrong."""


class HelpRequested(Exception):  # noqa: N818 - not an error: the text is the answer
    """--help: the text lists every flag and variable with its default."""


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


def bind_address(text: str) -> str | None:
    """controller-runtime's reading of a bind flag: ':8081' -> '0.0.0.0:8081'; '0' or '' -> None (off)."""
    if text in ("", "0"):
        return None
    return host_port(text)


def host_port(text: str) -> str:
    """'[host]:port' with an empty host meaning every interface (a pod listens on its own address)."""
    host, _, port = text.rpartition(":")
    if not port.isdigit() or not 0 <= int(port) < 65536:
        raise ValueError(f"{text!r} is not [host]:port")
    return f"{host or '0.0.0.0'}:{port}"  # noqa: S104 - see above


@dataclass(frozen=True)
class Opt:
    flag: str | None = None  # None: --field-name; "": no flag
    env: str | None = None  # None: PREFIX + FIELD_NAME when load() has a prefix; "": no variable
    help: str = ""
    secret: bool = False  # never echoed (nor shown in repr)
    parse: Callable[[str], Any] | None = None  # text -> value; a ValueError is the one-line problem
    choices: tuple[str, ...] = ()
    minimum: float | None = None
    positive: bool = False
    # the value from the environment as a whole when neither the flag nor the variable is given
    source: Callable[[Mapping[str, str]], Any] | None = None
    derived: bool = False  # filled by validate(), never read from flags or variables


def setting(default: Any = _MISSING, *, default_factory: Any = _MISSING, **opt: Any) -> Any:
    """A field with what differs from the defaults (see Opt)."""
    o = Opt(**opt)
    kw: dict[str, Any] = {"metadata": {"setting": o}, "repr": not o.secret}
    if default_factory is not _MISSING:
        kw["default_factory"] = default_factory
    elif default is not _MISSING:
        kw["default"] = default
    return dataclasses.field(**kw)


def group(default_factory: Callable[[], Any], **fields: Opt) -> Any:
    """A nested dataclass of settings; `fields` overrides what its own fields declare (e.g. a flag name)."""
    return dataclasses.field(default_factory=default_factory, metadata={"group": fields})


def bind(default: str | None, **opt: Any) -> Any:
    """A bind address: '[host]:port' (empty host: every interface), '0' or '' for off (None)."""
    return setting(default, parse=bind_address, **opt)


def log_level(default: str = "Info", **opt: Any) -> Any:
    """The module's logLevel names, the one table in runtime.logging."""
    return setting(default, choices=tuple(LEVELS), **opt)


def _opt(f: dataclasses.Field[Any], override: Opt | None) -> Opt:
    if override is not None:
        return override
    o = f.metadata.get("setting")
    return o if isinstance(o, Opt) else Opt()


@dataclass
class _Leaf:
    path: tuple[str, ...]
    field: dataclasses.Field[Any]
    opt: Opt
    kind: Any
    flag: str
    env: str
    default: Any = _MISSING  # the declared default (a group's comes from its default instance)

    @property
    def required(self) -> bool:
        return (self.field.default is _MISSING and self.field.default_factory is _MISSING
                and self.opt.source is None)

    def name(self, where: str = "") -> str:
        return where or self.flag or f"environment variable {self.env}"


def _leaves(cls: type, prefix: str | None, overrides: Mapping[str, Opt], path: tuple[str, ...],
            base: Any = None) -> list[_Leaf]:
    hints = get_type_hints(cls)
    out: list[_Leaf] = []
    for f in dataclasses.fields(cls):
        if not f.init:
            continue
        if "group" in f.metadata:
            out += _leaves(hints[f.name], prefix, f.metadata["group"], (*path, f.name),
                           f.default_factory())  # type: ignore[misc]
            continue
        o = _opt(f, overrides.get(f.name))
        if o.derived:
            continue
        # a field with a source has a flag or a variable only where declared
        auto = o.source is None
        flag = o.flag if o.flag is not None else "--" + f.name.replace("_", "-") if auto else ""
        env = o.env if o.env is not None else prefix + f.name.upper() if auto and prefix is not None else ""
        default = getattr(base, f.name) if base is not None else f.default
        out.append(_Leaf((*path, f.name), f, o, hints[f.name], flag, env, default))
    return out


def _plain(kind: Any) -> Any:
    """X | None -> X."""
    if get_origin(kind) in (Union, types.UnionType):
        args = [a for a in get_args(kind) if a is not type(None)]
        return args[0] if len(args) == 1 else kind
    return kind


def _convert(kind: Any, raw: str) -> Any:
    kind = _plain(kind)
    origin = get_origin(kind) or kind
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
    if origin in (list, tuple, frozenset, set):
        items = [p.strip() for p in raw.split(",") if p.strip()]
        return list(items) if origin is list else tuple(items) if origin is tuple else frozenset(items)
    if origin in (dict, Mapping):
        try:
            value = json.loads(raw or "{}")
        except ValueError:
            raise ValueError("not a JSON object") from None
        if not isinstance(value, dict) or not all(isinstance(k, str) and isinstance(v, str) for k, v in value.items()):
            raise ValueError("must map strings to strings")
        return value
    if kind is str:
        return raw
    raise TypeError(f"settings: no conversion for {kind!r}")  # a programming error, not a user's


def _check(leaf: _Leaf, value: Any, where: str) -> None:
    o, name = leaf.opt, leaf.name(where)
    if o.choices and value not in o.choices:
        shown = "invalid value" if o.secret else f"{value!r} is not one of {', '.join(o.choices)}"
        raise ConfigInvalid(f"{name}: {shown}")
    if o.positive and not value > 0:
        raise ConfigInvalid(f"{name}: must be positive, got {value}")
    if o.minimum is not None and value < o.minimum:
        raise ConfigInvalid(f"{name}: must be at least {o.minimum:g}, got {value}")


def _build(cls: type, values: Mapping[tuple[str, ...], Any], path: tuple[str, ...], base: Any = None) -> Any:
    """`cls` from the values read; a group starts from its declared default instance."""
    hints = get_type_hints(cls)
    kwargs: dict[str, Any] = {}
    for f in dataclasses.fields(cls):
        if not f.init:
            continue
        if "group" in f.metadata:
            kwargs[f.name] = _build(hints[f.name], values, (*path, f.name), f.default_factory())  # type: ignore[misc]
        elif (*path, f.name) in values:
            kwargs[f.name] = values[(*path, f.name)]
    obj = dataclasses.replace(base, **kwargs) if base is not None else cls(**kwargs)
    validate = getattr(obj, "validate", None)
    if callable(validate):
        try:
            replaced = validate()
        except ConfigInvalid:
            raise
        except ValueError as exc:
            raise ConfigInvalid(str(exc)) from None
        if isinstance(replaced, cls):
            obj = replaced
    return obj


def describe(leaves: Sequence[_Leaf]) -> str:
    """One line per setting: its flag and variable, choices, default and help."""
    lines = []
    for leaf in leaves:
        names = " or ".join(n for n in (leaf.flag, leaf.env and f"${leaf.env}") if n)
        names = names or f"({leaf.path[-1]}: from the environment)"
        default = leaf.default if leaf.default is not _MISSING else None
        shown = "" if leaf.opt.secret or default in (None, "") else f" (default {default})"
        extra = f": {leaf.opt.help}" if leaf.opt.help else ""
        choices = f" [{'|'.join(leaf.opt.choices)}]" if leaf.opt.choices else ""
        lines.append(f"  {names}{choices}{shown}{extra}")
    return "\n".join(lines)


def load[T](cls: type[T], argv: Sequence[str] | None = None, env: Mapping[str, str] | None = None,
            prefix: str | None = "") -> T:
    """Build `cls` from defaults, `env` (os.environ), then `argv`. `prefix` None: variables only where declared."""
    env = os.environ if env is None else env
    leaves = _leaves(cls, prefix, {}, ())
    parser = argparse.ArgumentParser(prog=cls.__name__, add_help=False, exit_on_error=False, allow_abbrev=False)
    for i, leaf in enumerate(leaves):
        if leaf.flag:
            extra: dict[str, Any] = {"nargs": "?", "const": "true"} if _plain(leaf.kind) is bool else {}
            parser.add_argument(leaf.flag, dest=f"v{i}", default=None, **extra)
    if {"-h", "--help"} & set(argv or []):
        raise HelpRequested(describe(leaves))
    try:
        flags, unknown = parser.parse_known_args(list(argv or []))
    except argparse.ArgumentError as exc:
        raise ConfigInvalid(f"flags: {exc}") from None
    if unknown:
        raise ConfigInvalid(f"unknown flag {unknown[0].split('=')[0]}")
    values: dict[tuple[str, ...], Any] = {}
    for i, leaf in enumerate(leaves):
        raw, where = None, ""
        if leaf.flag and getattr(flags, f"v{i}") is not None:
            raw, where = getattr(flags, f"v{i}"), leaf.flag
        elif leaf.env and leaf.env in env:
            raw, where = env[leaf.env], f"environment variable {leaf.env}"
        if raw is None:
            if leaf.required:
                also = f" (or {leaf.env})" if leaf.env and leaf.flag else ""
                raise ConfigInvalid(f"{leaf.name()}{also} is required")
            continue
        try:
            value = leaf.opt.parse(raw) if leaf.opt.parse else _convert(leaf.kind, raw)
        except ValueError as exc:
            raise ConfigInvalid(f"{where}: {'invalid value' if leaf.opt.secret else exc}") from None
        _check(leaf, value, where)
        values[leaf.path] = value
    for leaf in leaves:  # sources last: what was given explicitly is judged first
        if leaf.opt.source is not None and leaf.path not in values:
            try:
                values[leaf.path] = leaf.opt.source(env)
            except ValueError as exc:
                raise ConfigInvalid(str(exc)) from None
    for leaf in leaves:  # defaults are held to the same bounds (a wrong default is caught by any test)
        if leaf.path not in values and leaf.default not in (_MISSING, None) and leaf.opt.parse is None:
            _check(leaf, leaf.default, "")
    return _build(cls, values, ())
