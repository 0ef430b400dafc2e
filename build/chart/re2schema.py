# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""JSON Schema validators whose regular expressions are RE2 (dvp_common.patterns), as in Deckhouse and the
kube-apiserver (Go's regexp): jsonschema's own `pattern`, `patternProperties` and `additionalProperties` use
Python's `re`, whose `$` accepts a final newline and which accepts lookaround RE2 refuses."""

from __future__ import annotations

import jsonschema
from dvp_common import patterns
from jsonschema.exceptions import ValidationError


def _pattern(validator, pattern, instance, schema):
    if validator.is_type(instance, "string") and not patterns.search(pattern, instance):
        yield ValidationError(f"{instance!r} does not match {pattern!r}")


def _pattern_properties(validator, pattern_properties, instance, schema):
    if not validator.is_type(instance, "object"):
        return
    for pattern, subschema in pattern_properties.items():
        for key, value in instance.items():
            if patterns.search(pattern, key):
                yield from validator.descend(value, subschema, path=key, schema_path=pattern)


def additional(instance: dict, schema: dict) -> list:
    """The keys of `instance` that neither `properties` nor `patternProperties` of `schema` cover."""
    props = schema.get("properties", {})
    pattern_list = list(schema.get("patternProperties", {}))
    return [k for k in instance if k not in props and not any(patterns.search(p, k) for p in pattern_list)]


def _additional_properties(validator, allowed, instance, schema):
    if not validator.is_type(instance, "object"):
        return
    extras = additional(instance, schema)
    if validator.is_type(allowed, "object"):
        for extra in extras:
            yield from validator.descend(instance[extra], allowed, path=extra)
    elif not allowed and extras:
        yield ValidationError(f"unknown field(s): {', '.join(sorted(map(str, extras)))}")


def check_schema_patterns(schema, where: str = "") -> None:
    """Every pattern of a schema compiles under RE2 (raises PatternError naming the place)."""
    if isinstance(schema, dict):
        for key, value in schema.items():
            if key == "pattern" and isinstance(value, str):
                try:
                    patterns.compile(value)
                except patterns.PatternError as exc:
                    raise patterns.PatternError(f"{where or '<root>'}: pattern {exc}") from None
            if key == "patternProperties" and isinstance(value, dict):
                for p in value:
                    try:
                        patterns.compile(p)
                    except patterns.PatternError as exc:
                        raise patterns.PatternError(f"{where}.patternProperties: {exc}") from None
            check_schema_patterns(value, f"{where}.{key}" if where else key)
    elif isinstance(schema, list):
        for i, item in enumerate(schema):
            check_schema_patterns(item, f"{where}[{i}]")


Draft4 = jsonschema.validators.extend(jsonschema.Draft4Validator, {
    "pattern": _pattern, "patternProperties": _pattern_properties, "additionalProperties": _additional_properties})
Draft202012 = jsonschema.validators.extend(jsonschema.Draft202012Validator, {
    "pattern": _pattern, "patternProperties": _pattern_properties, "additionalProperties": _additional_properties})


def validate(instance, schema: dict) -> None:
    """jsonschema.validate with RE2 patterns (Draft 2020-12, as jsonschema.validate picks for a schema without
    $schema)."""
    error = jsonschema.exceptions.best_match(Draft202012(schema).iter_errors(instance))
    if error is not None:
        raise error
