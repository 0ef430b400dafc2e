# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""dvp_common.kube.get_or_none: only a 404 becomes None; any other refusal reaches the caller."""

from __future__ import annotations

import pytest
from dvp_common.kube import Forbidden, NotFound, Transient, get_or_none
from dvp_common.kube.resources import CONFIG_MAP


class Reader:
    """Anything with KubeClient's `get` (a client, a cache reader) records the call and answers or raises."""

    def __init__(self, answer):
        self.answer, self.calls = answer, []

    def get(self, res, name, namespace=None):
        self.calls.append((res.kind, name, namespace))
        if isinstance(self.answer, Exception):
            raise self.answer
        return self.answer


def test_found_absent_and_refused():
    found = Reader({"metadata": {"name": "a"}})
    assert get_or_none(found, CONFIG_MAP, "a", "ns") == {"metadata": {"name": "a"}}
    assert found.calls == [("ConfigMap", "a", "ns")]
    assert get_or_none(Reader(NotFound("gone", kind="ConfigMap", name="a")), CONFIG_MAP, "a") is None
    for refusal in (Forbidden("no", kind="ConfigMap", name="a"), Transient("busy")):
        with pytest.raises(type(refusal)):
            get_or_none(Reader(refusal), CONFIG_MAP, "a", "ns")
