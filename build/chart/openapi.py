# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""Module values validation with Deckhouse (addon-operator) semantics.

- `values.yaml` extends `config-values.yaml` through `x-extend`;
- an object schema without `additionalProperties` gets `additionalProperties: false` (addon-operator does the same);
- defaults are applied top-down, also inside defaults just applied, list items and map values;
- patterns are RE2 (Go's regexp), as Deckhouse evaluates them (`chart.re2schema`);
- every error is one line: `<module>.<field path>: <what is wrong>`.
"""

from __future__ import annotations

import copy
import functools
import pathlib
import re
from dataclasses import dataclass
from typing import Any, Literal

import jsonschema
import yaml

from chart import re2schema

ROOT = pathlib.Path(__file__).resolve().parents[2]
VALUES_KEY = "cloudProviderDvp"

SchemaKind = Literal["config", "values"]
_FILES = {"config": "config-values.yaml", "values": "values.yaml"}


class ValuesInvalid(ValueError):
    """Values rejected by the schema; `errors` holds one line per problem."""

    def __init__(self, errors: list[str]):
        super().__init__("; ".join(errors))
        self.errors = errors


@dataclass(frozen=True)
class ModuleSchemas:
    config: dict
    values: dict

    def of(self, kind: SchemaKind) -> dict:
        return self.config if kind == "config" else self.values


def _read(path: pathlib.Path) -> dict:
    data = yaml.safe_load(path.read_text())
    if not isinstance(data, dict):
        raise ValueError(f"{path}: not a YAML mapping")
    return data


def _extend(base: dict, extension: dict) -> dict:
    """The schema `extension` laid over `base`: properties and required merged, other keys replaced."""
    merged = copy.deepcopy(base)
    for key, value in extension.items():
        if key == "x-extend":
            continue
        if key == "properties":
            merged.setdefault("properties", {}).update(copy.deepcopy(value))
        elif key == "required":
            merged["required"] = sorted(set(merged.get("required", [])) | set(value))
        else:
            merged[key] = copy.deepcopy(value)
    return merged


def _close_objects(schema: Any) -> Any:
    """addon-operator's rule: an object schema that does not say otherwise allows no unknown keys."""
    if isinstance(schema, dict):
        out = {k: _close_objects(v) for k, v in schema.items() if k not in ("x-examples", "default")}
        for k in ("x-examples", "default"):
            if k in schema:
                out[k] = schema[k]
        is_object = schema.get("type") == "object" or "properties" in schema or "patternProperties" in schema
        open_by_choice = "additionalProperties" in schema or schema.get("x-kubernetes-preserve-unknown-fields")
        if is_object and not open_by_choice:
            out["additionalProperties"] = False
        return out
    if isinstance(schema, list):
        return [_close_objects(v) for v in schema]
    return schema


def load_schemas(module_dir: pathlib.Path = ROOT) -> ModuleSchemas:
    openapi = module_dir / "openapi"
    config = _read(openapi / _FILES["config"])
    values = _read(openapi / _FILES["values"])
    extend = values.get("x-extend", {}).get("schema")
    if extend:
        values = _extend(_read(openapi / extend), values)
    for schema in (config, values):
        re2schema.check_schema_patterns(schema)  # Deckhouse refuses a module whose schema RE2 cannot compile
    return ModuleSchemas(config=_close_objects(config), values=_close_objects(values))


@functools.cache
def schemas() -> ModuleSchemas:
    """The module's own schemas, read once per process."""
    return load_schemas(ROOT)


def apply_defaults(schema: dict, value: Any) -> Any:
    """A copy of `value` with every missing property that has a `default` filled in, recursively."""
    value = copy.deepcopy(value)
    _fill(schema, value)
    return value


def _fill(schema: dict, value: Any) -> None:
    if isinstance(value, dict):
        props = schema.get("properties", {})
        for name, sub in props.items():
            if name not in value and "default" in sub:
                value[name] = copy.deepcopy(sub["default"])
            if name in value:
                _fill(sub, value[name])
        patterns = schema.get("patternProperties", {})
        extra = schema.get("additionalProperties")
        for name, item in value.items():
            if name in props:
                continue
            for sub in patterns.values():
                _fill(sub, item)
            if isinstance(extra, dict):
                _fill(extra, item)
    elif isinstance(value, list) and isinstance(schema.get("items"), dict):
        for item in value:
            _fill(schema["items"], item)


def _path(error: jsonschema.ValidationError, root: str) -> str:
    out = root
    for part in error.absolute_path:
        out += f"[{part}]" if isinstance(part, int) else f".{part}"
    return out


# Values under such names may hold kubeconfigs, keys or tokens: their errors describe the rule, never the value.
SENSITIVE = re.compile(r"(?i)secret|credential|token|password|private|^key$|^crt$|^ca$|cert")


def _sensitive(error: jsonschema.ValidationError) -> bool:
    return any(isinstance(p, str) and SENSITIVE.search(p) for p in error.absolute_path)


def _message(error: jsonschema.ValidationError) -> str:
    if _sensitive(error) and error.validator not in ("required", "additionalProperties", "not"):
        return f"value (not shown) does not satisfy {error.validator}: {error.validator_value!r}"
    if error.validator == "not":
        banned = [k for alt in error.validator_value.get("anyOf", [error.validator_value])
                  for k in alt.get("required", []) if isinstance(error.instance, dict) and k in error.instance]
        if banned:
            return f"reserved key(s) not allowed: {', '.join(sorted(banned))}"
        return "value is not allowed"
    if error.validator == "pattern":
        return f"{error.instance!r} does not match pattern {error.validator_value!r}"
    if error.validator == "additionalProperties" and isinstance(error.instance, dict):
        unknown = sorted(re2schema.additional(error.instance, error.schema), key=str)
        return f"unknown field(s): {', '.join(k if k.isprintable() else repr(k) for k in unknown)}"
    return error.message.replace("\n", " ")


def errors(schema: dict, value: Any, root: str = VALUES_KEY) -> list[str]:
    """Every problem of `value` under `schema`, one line each, sorted by field path. The x-deckhouse-validations
    (CEL) rules are judged once the schema itself is satisfied, as they assume its types."""
    # Patterns are RE2, as Deckhouse (Go) evaluates them.
    validator = re2schema.Draft4(schema)
    out = []
    for error in validator.iter_errors(value):
        leaf = jsonschema.exceptions.best_match(error.context) if error.context else error
        out.append(f"{_path(leaf, root)}: {_message(leaf)}")
    if not out:
        out = cel_errors(schema, value, root)
    return sorted(set(out))


@functools.cache
def cel_program(expression: str):
    """The compiled CEL program of one rule (cel-python; Deckhouse runs the same expressions with cel-go)."""
    import celpy

    env = celpy.Environment()
    return env.program(env.compile(expression))


def cel_errors(schema: dict, value: Any, path: str) -> list[str]:
    """`<path>: <message>` for every x-deckhouse-validations rule that does not hold on `value`."""
    import celpy

    out = []
    if not isinstance(schema, dict):
        return out
    for rule in schema.get("x-deckhouse-validations") or []:
        try:
            holds = cel_program(rule["expression"]).evaluate({"self": celpy.json_to_cel(value)})
        except celpy.CELEvalError:
            holds = False  # an expression that cannot be evaluated on this value does not admit it
        if not (isinstance(holds, celpy.celtypes.BoolType) and bool(holds)):  # a rule must give a boolean true
            out.append(f"{path}: {rule['message']}")
    if isinstance(value, dict):
        props = schema.get("properties", {})
        for key, item in value.items():
            subs = [props[key]] if key in props else [
                s for p, s in schema.get("patternProperties", {}).items() if re2schema.patterns.search(p, key)]
            if not subs and isinstance(schema.get("additionalProperties"), dict):
                subs = [schema["additionalProperties"]]
            for sub in subs:
                out += cel_errors(sub, item, f"{path}.{key}")
    elif isinstance(value, list) and isinstance(schema.get("items"), dict):
        for i, item in enumerate(value):
            out += cel_errors(schema["items"], item, f"{path}[{i}]")
    return out


def validate(kind: SchemaKind, value: Any, module: ModuleSchemas | None = None) -> dict:
    """Apply defaults, validate, return the defaulted values or raise `ValuesInvalid`."""
    schema = (module or schemas()).of(kind)
    defaulted = apply_defaults(schema, value)
    found = errors(schema, defaulted)
    if found:
        raise ValuesInvalid(found)
    return defaulted


def config_examples(module: ModuleSchemas | None = None) -> list[dict]:
    """The `x-examples` of config-values.yaml, as written."""
    return copy.deepcopy((module or schemas()).config.get("x-examples", []))
