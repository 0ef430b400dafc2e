# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""The validation webhook on DVPInstanceClasses written for Deckhouse's module (its newest CRD,
modules/030-cloud-provider-dvp/crds/instance_class.yaml@21af0b5e2fcf016a7e5e0528b72345dc290008e0): what the CRD's
schema cannot see is judged here, a class stored before the switch is warned about, never blocked from a fix."""

from __future__ import annotations

from webhooks.test_whk_validation import ic, icr

from testkit.webhooks import allowed, denied

TERMS = {"nodeSelectorTerms": [{"matchExpressions": [{"key": "pool", "operator": "In", "values": ["a"]}]}]}
REF = 'DVPInstanceClass.deckhouse.io "wk"'
MIXED = (f"{REF}: spec.virtualMachine.nodeSelector: label keys (rack) next to nodeSelectorTerms; write them as "
         "matchExpressions (operator In) of every term, or use only the label map (instance_class_unsupported)")


def _with(**vm) -> dict:
    obj = ic("wk")
    obj["spec"]["virtualMachine"].update(vm)
    return obj


def test_either_form_of_node_selector_is_allowed():
    assert icr("CREATE", _with(nodeSelector=TERMS, liveMigrationPolicy="AlwaysSafe")) == allowed()
    assert icr("CREATE", _with(nodeSelector={"rack": "r1"})) == allowed()


def test_manual_or_never_is_denied_with_what_to_set():
    assert icr("CREATE", _with(liveMigrationPolicy="Manual")) == denied(
        f"{REF}: spec.virtualMachine: liveMigrationPolicy: Manual and Never are refused by DVP's VirtualMachine (its "
        "CRD takes AlwaysSafe, PreferSafe, AlwaysForced, PreferForced); set one of those, or leave it out for "
        "PreferForced (instance_class_unsupported)")


def test_label_keys_next_to_terms_are_denied():
    assert icr("CREATE", _with(nodeSelector={**TERMS, "rack": "r1"})) == denied(MIXED)


def test_a_class_stored_before_the_switch_is_warned_and_can_be_fixed():
    old = _with(nodeSelector={**TERMS, "rack": "r1"})
    assert icr("UPDATE", _with(nodeSelector=TERMS), old) == allowed()
    assert icr("UPDATE", old, old)["response"]["warnings"] == [f"{MIXED} (already so before this change)"]
