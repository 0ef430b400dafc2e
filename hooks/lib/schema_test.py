# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""The schema subset (dvp_common.schema_subset, the hooks' and dhctl's validator's) agrees with jsonschema on the
module's schemas, on valid documents and on every single-field corruption of them; lib.schema loads and reports."""

import copy

import pytest
from chart import re2schema
from dvp_common.schema_subset import first_error

from lib import schema
from lib.errors import InvalidInput

SCHEMAS = ["candi/openapi/cluster_configuration.yaml", "candi/openapi/cloud_discovery_data.yaml",
           "candi/openapi/instance_class.yaml"]


def corruptions(doc):
    """(description, corrupted copy) for every node: removed, wrong type, extra field."""
    def walk(node, path):
        yield path, node
        if isinstance(node, dict):
            for k, v in node.items():
                yield from walk(v, (*path, k))
        elif isinstance(node, list):
            for i, v in enumerate(node):
                yield from walk(v, (*path, i))

    for path, node in list(walk(doc, ())):
        if not path:
            continue
        for label, replacement in (("null", None), ("int", 7), ("str", "x"), ("neg", -1), ("list", []),
                                   ("dup", node + node if isinstance(node, list) else None)):
            out = copy.deepcopy(doc)
            parent = out
            for p in path[:-1]:
                parent = parent[p]
            parent[path[-1]] = replacement
            yield f"{path}={label}", out
        out = copy.deepcopy(doc)
        parent = out
        for p in path[:-1]:
            parent = parent[p]
        del parent[path[-1]]
        yield f"{path} removed", out
        if isinstance(node, dict):
            out = copy.deepcopy(doc)
            target = out
            for p in path:
                target = target[p]
            target["unexpectedField"] = 1
            yield f"{path} extra", out


def _examples(relpath):
    import yaml

    from lib.testing import read

    doc = yaml.safe_load(read(relpath))
    spec = doc["apiVersions"][0]["openAPISpec"]
    return spec.get("x-examples") or []


@pytest.mark.parametrize("relpath", SCHEMAS)
def test_agrees_with_jsonschema(relpath):
    s = schema.load(relpath)
    reference = re2schema.Draft4(s)  # patterns are RE2 on both sides, as Deckhouse evaluates them
    examples = _examples(relpath)
    assert examples, f"{relpath} has no x-examples to check against"
    checked = 0
    for example in examples:
        assert first_error(example, s, ()) is None
        reference.validate(example)
        for label, doc in corruptions(example):
            ours = first_error(doc, s, ()) is None
            theirs = reference.is_valid(doc)
            assert ours == theirs, f"{relpath} {label}: ours valid={ours}, jsonschema valid={theirs}"
            checked += 1
    assert checked > 50


def test_unknown_keywords_are_refused(tmp_path, monkeypatch):
    (tmp_path / "s.yaml").write_text("type: object\nproperties:\n  a:\n    oneOf: [{type: string}]\n")
    monkeypatch.setattr(schema, "MODULE_ROOT", str(tmp_path))
    schema.load.cache_clear()
    try:
        with pytest.raises(ValueError, match=r"schema s.yaml.a uses unsupported keyword\(s\) oneOf"):
            schema.load("s.yaml")
    finally:
        schema.load.cache_clear()


def test_errors_name_the_field_and_not_the_value():
    s = {"type": "object", "properties": {"a": {"type": "array", "items": {"type": "object", "required": ["k"],
                                                                          "properties": {"k": {"pattern": "^z$"}}}}}}
    with pytest.raises(InvalidInput) as err:
        schema.validate({"a": [{"k": "z"}, {"k": "secret-value"}]}, s, "Secret ns/n", "data[x]")
    assert str(err.value) == "Secret ns/n: data[x].a[1].k: must match ^z$"


SIZES = [("8Gi", True), (8589934592, True), ("0.5Gi", True), ("+1Ti", True), ("1.2.3Gi", False), ("-12Gi", False),
         ("50e9", False), ("500m", False), ("8Gi\n", False), ("", False), (True, False), (-1, False), (1.5, False)]
SIZE_PATHS = [("masterNodeGroup", "instanceClass", "virtualMachine", "memory", "size"),
              ("masterNodeGroup", "instanceClass", "rootDisk", "size"),
              ("masterNodeGroup", "instanceClass", "etcdDisk", "size")]


@pytest.mark.parametrize(("size", "valid"), SIZES, ids=[repr(s) for s, _ in SIZES])
@pytest.mark.parametrize("path", SIZE_PATHS, ids=lambda p: ".".join(p[2:]))
def test_legacy_sizes_are_the_quantities_a_machine_takes(path, size, valid):
    # Kubernetes' quantity syntax (integers too), less what a DeckhouseMachine refuses: negative, milli, exponent.
    doc = copy.deepcopy(_examples("candi/openapi/cluster_configuration.yaml")[0])
    node = doc
    for key in path[:-1]:
        node = node.setdefault(key, {})
    node[path[-1]] = size
    found = first_error(doc, schema.load("candi/openapi/cluster_configuration.yaml"), ())
    assert (found is None) == valid, found
    if not valid:
        assert found == (path, "must be integer of at least 0 or string matching "
                               r"^(\+)?([0-9]+(\.[0-9]*)?|\.[0-9]+)(([KMGTPE]i)|[kMGTPE])?$")


def test_patterns_are_re2():
    s = {"type": "string", "pattern": "^[a-z]+$"}
    assert first_error("abc", s, ()) is None
    assert first_error("abc\n", s, ()) == ((), "must match ^[a-z]+$")


def test_a_schema_pattern_re2_refuses_fails_the_load(tmp_path, monkeypatch):
    (tmp_path / "s.yaml").write_text("type: object\nproperties:\n  a:\n    pattern: '^(?!x)'\n")
    monkeypatch.setattr(schema, "MODULE_ROOT", str(tmp_path))
    schema.load.cache_clear()
    try:
        with pytest.raises(ValueError, match=r"^schema s.yaml.a: pattern is not a valid RE2 regular expression"):
            schema.load("s.yaml")
    finally:
        schema.load.cache_clear()
