# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""The layouts' fallback for DVP's one ambiguous address reason (VirtualMachineIPAddressLeaseNotReady: setting a
lease up, or unable to take one) matches DVP's failure messages, as the simulator writes them from the contract
(sim/CONTRACT.md C22), each by exactly one pattern and never a message that only quotes one; the Auto
wait's pattern matches the messages of a settled address and none the simulator writes while it sets one up. DVP has
written these texts in two wordings: v1.0 and v1.1 misspelled one ("alrady"); v1.2 through v1.10 (whose rewrite of
status messages, #2558, left the address's alone) and main write what the simulator writes."""

from __future__ import annotations

import json
import re
from pathlib import Path

from sim.domain import addresses

MODULE = Path(__file__).resolve().parents[2] / "candi" / "terraform-modules" / "address-stuck" / "main.tf"


def patterns() -> list[str]:
    """stuck_messages of the module: a list of HCL strings (JSON's escapes)."""
    body = re.search(r"stuck_messages = \[(.*?)\n  \]", MODULE.read_text(), re.S).group(1)
    return [json.loads(line.strip().rstrip(",")) for line in body.strip().splitlines()]


def auto_settled() -> str:
    """auto_settled_message of the module: ^( the alternatives joined by | )$."""
    body = re.search(r'join\("\|", \[(.*?)\n  \]\), "\)\$"\]\)', MODULE.read_text(), re.S).group(1)
    return "^(" + "|".join(json.loads(line.strip().rstrip(",")) for line in body.strip().splitlines()) + ")$"


def sim_failures() -> list[str]:
    lease = {"metadata": {"name": "ip-10-0-0-7"}, "spec": {"virtualMachineIPAddressRef": {"namespace": "other"}}}
    taken = {"metadata": {"name": "ip-10-0-0-8"}, "spec": {"virtualMachineIPAddressRef": {"namespace": "ns",
                                                                                          "name": "another"}}}
    return [addresses.holder_problem(lease, "ns"), addresses.holder_problem(taken, "ns"), addresses.NO_REMAINING]


def test_each_dvp_failure_message_matches_exactly_one_pattern():
    found = patterns()
    assert len(found) == 3
    for message in sim_failures():
        assert [p for p in found if re.search(p, message)] != [], message
        assert len([p for p in found if re.search(p, message)]) == 1, message


def test_a_setting_up_or_quoting_message_matches_none():
    for message in ('Waiting for the VirtualMachineIPAddressLease "ip-10-0-0-9" to be bound.',
                    'Checking whether "belongs to a different namespace." applies.', ""):
        assert [p for p in patterns() if re.search(p, message)] == [], message


def test_the_auto_wait_ends_once_the_simulator_bound_or_refused_an_address_and_not_before():
    settled = auto_settled()
    for message in ("", addresses.NO_REMAINING, addresses.NOT_ATTACHED):  # Bound, refused; Attached either way
        assert re.search(settled, message), message
    for message in (addresses.LEASE_CREATED.format(ip="10.0.0.9"), addresses.LEASE_WAITING.format(lease="ip-10-0-0-9"),
                    addresses.LEASE_TAKING.format(lease="ip-10-0-0-9"), addresses.RELEASED_MESSAGE):
        assert not re.search(settled, message), message


# DVP's failure messages of the ambiguous reason as its releases wrote them (take_lease_step.go, create_lease_step.go)
DVP_V1_0 = ['The VirtualMachineIPAddressLease "ip-10-0-0-7" belongs to a different namespace.',
            'The VirtualMachineIPAddressLease "ip-10-0-0-8" alrady has a reference to another VirtualMachineIPAddress.',
            "Failed to allocate new IP address: no remaining ips."]
DVP_V1_10 = ['The VirtualMachineIPAddressLease "ip-10-0-0-7" belongs to a different namespace.',
             'The VirtualMachineIPAddressLease "ip-10-0-0-8" already has a reference to another '
             'VirtualMachineIPAddress.',
             "Failed to allocate new IP address: no remaining ips."]


def test_both_dvp_wordings_of_each_failure_match_the_same_one_pattern():
    found = patterns()
    assert sim_failures() == DVP_V1_10  # the simulator writes the current wording
    for old, new in zip(DVP_V1_0, DVP_V1_10, strict=True):
        assert [p for p in found if re.search(p, old)] == [p for p in found if re.search(p, new)], old
        assert len([p for p in found if re.search(p, old)]) == 1, old
