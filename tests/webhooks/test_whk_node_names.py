# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""NodeGroup names at admission: a name whose derived VM, node or disk names or label values would pass 63
characters is refused when the group is created, naming the longest such value and the name length that fits."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from dvp_common import node_groups as nodes
from dvp_common.runtime.settings import load
from dvp_webhooks.settings import Settings
from test_whk_validation import NG_PATH, ic, ng

from testkit.webhooks import FakeLookups, allowed, body, denied, run

NAMING = Path(__file__).resolve().parents[2] / "candi" / "terraform-modules" / "naming"


def review(op: str, obj: dict, old: dict | None = None, prefix: str = "") -> dict:
    lookups = FakeLookups(instance_classes=[ic("worker"), ic("cp", etcd=True)])
    lookups.cluster_prefix = prefix
    return run(NG_PATH, body("NodeGroup", op, obj, old), lookups)


def too_long(name: str, what: str, value: str, fits: int) -> str:
    return (f'NodeGroup.deckhouse.io "{name}": metadata.name makes {what} "{value}" of {len(value)} characters, over '
            f"the 63 DVP and Kubernetes allow; use a name of at most {fits} characters (node_group_name_too_long)")


def test_an_ephemeral_group_name_is_its_node_group_label_value():
    assert review("CREATE", ng("w" * 63)) == allowed()
    name = "w" * 64
    assert review("CREATE", ng(name)) == denied(too_long(name, "its node-group label value", name, 63))


def test_a_permanent_group_name_leaves_room_for_the_prefix_and_the_index():
    """The hostname is a label value too; disk names over 63 are cut and hashed by the layouts."""
    fits = 63 - len("kube-") - len("-99")
    assert review("CREATE", ng("p" * fits, ic="worker", node_type="CloudPermanent"), prefix="kube") == allowed()
    name = "p" * (fits + 1)
    value = f"kube-{name}-99"
    assert len(value) == 64
    assert review("CREATE", ng(name, ic="worker", node_type="CloudPermanent"), prefix="kube") == denied(
        too_long(name, "the VM and node name of node 99", value, fits))


def test_the_hostname_is_lowercased_as_the_layouts_do():
    names = dict((what, value) for what, value in nodes.derived_names("Big", "CloudPermanent", "Kube"))
    assert names["the VM and node name of node 99"] == "kube-big-99"


def test_without_a_known_prefix_the_check_is_a_lower_bound():
    fits = 63 - len("--99")
    assert review("CREATE", ng("p" * fits, ic="worker", node_type="CloudPermanent")) == allowed()
    assert not review("CREATE", ng("p" * (fits + 1), ic="worker", node_type="CloudPermanent"))["response"]["allowed"]


def test_a_group_that_already_has_a_long_name_is_only_warned_about():
    name = "w" * 64
    old, new = ng(name), ng(name)
    new["spec"]["nodeTemplate"] = {"labels": {"a": "b"}}
    assert review("UPDATE", new, old) == allowed(f"{too_long(name, 'its node-group label value', name, 63)} "
                                                 "(already so before this change)")


def test_groups_that_are_not_ours_are_not_judged():
    assert review("CREATE", ng("s" * 70, kind=None, node_type="Static")) == allowed()


def test_the_cluster_prefix_is_a_setting():
    assert load(Settings, ["--cluster-prefix=kube"], {}, prefix="WEBHOOKS_").cluster_prefix == "kube"
    assert load(Settings, [], {"WEBHOOKS_CLUSTER_PREFIX": "env"}, prefix="WEBHOOKS_").cluster_prefix == "env"
    assert load(Settings, [], {}, prefix="WEBHOOKS_").cluster_prefix == ""


def test_the_derived_names_are_the_layouts_names():
    """The layouts' naming module is the truth for permanent nodes: the webhook's suffixes follow it."""
    main, outputs = (NAMING / "main.tf").read_text(), (NAMING / "outputs.tf").read_text()
    assert 'hostname = lower("${var.prefix}-${var.node_group_name}-${var.node_index}")' in main
    assert re.search(r"root_image_hash = .*substr\(sha256\(", main) and ")), 0, 6)" in main
    # a disk name over a label value's 63 characters is cut to 56 and a hash: no disk suffix limits the group name
    assert 'length(n) <= 63 ? n : "${replace(substr(n, 0, 56), "/-+$/", "")}-${substr(sha256(n), 0, 6)}"' in main
    assert re.search(r'output "root_disk_name" \{.*?value\s*=\s*local\.disk_names\.root\n', outputs, re.S)
    assert nodes.PERMANENT_DISK_SUFFIXES == ()


@pytest.mark.parametrize("node_type", ["CloudEphemeral", "CloudPermanent"])
def test_every_derived_value_fits_at_the_limit(node_type):
    for what, value in nodes.derived_names("x", node_type, "p"):
        assert len(value) <= 63, what
