# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""Hostile hook inputs for property tests (hypothesis), and the judge of one hook run.

Snapshots are drawn in the shapes the bindings' jqFilters produce: every filter builds an object, so a
filterResult is a mapping with the filter's keys (`FILTER_KEYS`, checked against gojq in the tests); each value
is what the filter copies from an object: a realistic value, or anything at all (strings where mappings are
expected, lists, nulls, huge numbers and texts, unicode), at every level of the documents the Secrets carry
(kubeconfig, legacy configuration, discovery data) and of the values. A known token sits in every kubeconfig:
it must never reach stdout, stderr, patches, operations or metrics. Not collected (no test_ prefix)."""

import base64
import contextlib
import io
import json
import os
from dataclasses import dataclass

import yaml
from hypothesis import strategies as st

TOKEN = "hostile-T0KEN-5e1f9c"  # noqa: S105 - planted in kubeconfigs; must never come out
KUBECONFIG = {
    "apiVersion": "v1", "kind": "Config", "current-context": "c",
    "clusters": [{"name": "c", "cluster": {"server": "https://127.0.0.1:9"}}],
    "contexts": [{"name": "c", "context": {"cluster": "c", "user": "u", "namespace": "tenant"}}],
    "users": [{"name": "u", "user": {"token": TOKEN}}],
}


def b64(text: str | bytes) -> str:
    return base64.b64encode(text.encode("utf-8", "surrogatepass") if isinstance(text, str) else text).decode()


def leaks(text: str) -> bool:
    """Whether the token, or a kubeconfig holding it in a form this module draws, is in the text."""
    return TOKEN in text or any(form in text for form in _TOKEN_FORMS)


_TOKEN_FORMS = (b64(TOKEN), b64(yaml.safe_dump(KUBECONFIG)))

HUGE = st.sampled_from([10 ** 30, -(10 ** 19), 2 ** 63, 1.7e308, "x" * 70_000, "\u00e9\u4e2d\U0001f600" * 5_000])
scalars = st.one_of(
    st.none(), st.booleans(), st.integers(), st.floats(allow_nan=False, allow_infinity=False),
    st.text(max_size=20), st.sampled_from(["", " ", "\n", "-", "true", "1", "{}", "[]", "null", TOKEN]), HUGE,
)
anything = st.recursive(scalars, lambda inner: st.one_of(
    st.lists(inner, max_size=4), st.dictionaries(st.text(max_size=10), inner, max_size=4)), max_leaves=10)
names = st.one_of(st.from_regex(r"[a-z0-9]([-a-z0-9.]{0,20}[a-z0-9])?", fullmatch=True), st.text(max_size=30))


def _paths(doc, prefix=()):
    yield prefix
    if isinstance(doc, dict):
        for k, x in doc.items():
            yield from _paths(x, (*prefix, k))
    elif isinstance(doc, list):
        for i, x in enumerate(doc):
            yield from _paths(x, (*prefix, i))


@st.composite
def mutated(draw, doc, extra_paths=()):
    """`doc` (a copy) with up to three of its paths (or `extra_paths`) removed or replaced by anything."""
    doc = json.loads(json.dumps(doc))
    paths = sorted(set(_paths(doc)) | set(extra_paths), key=repr)
    for _ in range(draw(st.integers(0, 3))):
        path = draw(st.sampled_from(paths))
        value = draw(st.one_of(anything, HUGE))
        if not path:
            return value
        node = doc
        for key in path[:-1]:
            inner = node.get(key) if isinstance(node, dict) else (
                node[key] if isinstance(node, list) and isinstance(key, int) and key < len(node) else None)
            if isinstance(inner, dict | list):
                node = inner
            else:
                break
        else:
            leaf = path[-1]
            if isinstance(node, dict):
                if draw(st.booleans()) and leaf in node:
                    del node[leaf]
                else:
                    node[leaf] = value
            elif isinstance(node, list) and isinstance(leaf, int) and leaf < len(node):
                node[leaf] = value
    return doc


def yaml_text(doc) -> str:
    return yaml.safe_dump(doc, allow_unicode=True)


RAW_YAML = st.sampled_from([
    "", "---", "[unclosed", "just text", "a: &a [1]\nb: *a\n", "- 1\n- 2\n", "a: 2001-12-14\n", "? [a]\n: b\n",
    "a: .nan\n", "a: .inf\n", "a: !!binary aGVsbG8=\n", "1: 2\ntrue: 3\n", "[" * 3000,
    # an alias bomb: 9 levels of 9 aliases (387 million nodes once expanded)
    "a: &a [x,x,x,x,x,x,x,x,x]\n" + "".join(
        f"{c}: &{c} [{', '.join(['*' + p] * 9)}]\n" for p, c in zip("abcdefgh", "bcdefghi", strict=True)),
])
RAW_JSON = st.sampled_from(["", "{", "[]", "null", '"x"', "NaN", '{"a": Infinity}', '{"a": 1e400}',
                            '{"a": ' + "9" * 5000 + "}", "[" * 100_000, '{"zones": ["\\ud800"]}',
                            '{"storageClasses": [{"name": "\\udfff"}]}'])


def kubeconfig_b64() -> st.SearchStrategy:
    """A base64 kubeconfig holding TOKEN: valid, with any field of any type, or not YAML at all."""
    return st.one_of(
        st.just(b64(yaml_text(KUBECONFIG))),
        mutated(KUBECONFIG, [("users", 0, "user", "exec"), ("users", 0, "user", "tokenFile"),
                             ("preferences",)]).map(lambda d: b64(yaml_text(d))),
        RAW_YAML.map(lambda s: b64(s + f"\n# {TOKEN}\n")),
        st.text(max_size=30), anything,
    )


def b64_of(docs: st.SearchStrategy, raw: st.SearchStrategy, dump) -> st.SearchStrategy:
    """Secret data as the filter copies it: base64 of a (mutated) document or of raw text, else anything."""
    return st.one_of(docs.map(lambda d: b64(dump(d))), raw.map(b64), st.text(max_size=20).map(b64), anything,
                     st.just(None))


def json_dump(doc) -> str:
    return json.dumps(doc)


def result(**fields: st.SearchStrategy) -> st.SearchStrategy:
    """A filterResult: the filter's keys, each value drawn."""
    return st.fixed_dictionaries(fields)


def snapshot(item: st.SearchStrategy, most: int = 3) -> st.SearchStrategy:
    return st.lists(item, max_size=most).map(lambda items: [{"filterResult": x} for x in items])


@dataclass
class Case:
    """One hook run's input."""
    snapshots: dict
    values: dict
    config_values: dict
    context: str  # Synchronization | Event | Group | beforeHelm | afterHelm | Schedule

    def binding_context(self, first: str | None) -> list:
        if self.context == "Synchronization":
            return [{"binding": first, "type": "Synchronization", "objects": self.snapshots.get(first, []),
                     "snapshots": self.snapshots}]
        if self.context == "Event":
            items = self.snapshots.get(first) or [{"filterResult": None}]
            return [{"binding": first, "type": "Event", "watchEvent": "Modified", **items[-1],
                     "snapshots": self.snapshots}]
        if self.context == "Group":
            return [{"binding": "main", "type": "Group", "snapshots": self.snapshots}]
        if self.context == "Schedule":
            return [{"binding": "every_minute", "type": "Schedule", "snapshots": self.snapshots}]
        return [{"binding": self.context, "snapshots": self.snapshots}]


@dataclass
class Outcome:
    ok: bool
    message: str  # the one stderr line of a failed run
    stdout: str
    stderr: str
    values_patches: list
    kube_operations: list
    metrics: list


def run_in_process(module, case: Case, first_binding: str | None) -> Outcome:
    """hook.testrun of the hook's main with the failure handling of lib/hookrun.run (InvalidInput and
    sys.exit give one stderr line); any other exception propagates (a traceback in a real run)."""
    from deckhouse import hook as sdk

    from lib.errors import InvalidInput

    out, err = io.StringIO(), io.StringIO()
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            output = sdk.testrun(module.main, binding_context=case.binding_context(first_binding),
                                 config_values=case.config_values, initial_values=case.values)
    except InvalidInput as exc:
        return Outcome(False, f"invalid input: {exc}", out.getvalue(), err.getvalue(), [], [], [])
    except SystemExit as exc:
        assert isinstance(exc.code, str), f"exit {exc.code!r} without a message"
        return Outcome(False, exc.code, out.getvalue(), err.getvalue(), [], [], [])
    return Outcome(True, "", out.getvalue(), err.getvalue(), output.values_patches.data,
                   output.kube_operations.data, output.metrics.data)


def judge(outcome: Outcome) -> None:
    """A run succeeds with output addon-operator can read, or fails in one line naming what is wrong; neither
    carries the token."""
    written = json.dumps([outcome.values_patches, outcome.kube_operations, outcome.metrics], allow_nan=False)
    assert not leaks(outcome.stdout + outcome.stderr + outcome.message), "a secret reached the output"
    assert TOKEN not in written, "the token reached a patch, an operation or a metric"
    assert "Traceback" not in outcome.stderr
    if not outcome.ok:
        assert outcome.message and "\n" not in outcome.message.strip(), outcome.message
        if outcome.message.startswith("invalid input: "):
            obj, field, reason = outcome.message.removeprefix("invalid input: ").split(": ", 2)
            assert obj and field and reason, outcome.message
        assert (outcome.values_patches, outcome.kube_operations, outcome.metrics) == ([], [], [])


def run_as_process(hook_path: str, case: Case, first_binding: str | None, env: dict | None = None) -> Outcome:
    """The hook file run as shell-operator runs it (lib/testing.run_process), judged the same way."""
    from lib import testing

    saved = {k: os.environ.get(k) for k in (env or {})}
    os.environ.update(env or {})
    try:
        run = testing.run_process(hook_path, case.binding_context(first_binding), case.values, case.config_values)
    finally:
        for k, x in saved.items():
            if x is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = x
    lines = run.stderr.splitlines()
    ok = run.returncode == 0
    if not ok:
        assert run.returncode == 1, (run.returncode, run.stderr)
        assert len(lines) == 1, run.stderr
    return Outcome(ok, "" if ok else lines[0], run.stdout, run.stderr, run.values_patches, run.kube_operations,
                   run.metrics)
