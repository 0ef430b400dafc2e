# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""The pre-switch report's command against real kube-apiservers: an upstream-built cluster (testkit.upstream) in
a DVP project beside another cluster's objects, read with two kubeconfigs; the exact report, and only GET (list)
requests made. Its exit codes and one-line errors on bad input."""

from __future__ import annotations

import io
import json

import pytest
from dvp_common.dvp import resources as r
from dvp_common.kube import RequestInfo
from dvp_common.takeover.__main__ import main
from takeover import takeover_expect as X

from testkit.harness.apiserver import guest_crd_files
from testkit.harness.processes import HarnessError
from testkit.upstream import KubeSink, another_cluster, upstream_world


@pytest.fixture(scope="module")
def own_guest(control_plane):
    """A guest API of this file's own: the report reads every Node, PV and Service, and the shared guest holds
    other tests' ones."""
    try:
        return control_plane.add_server("takeover-guest", "AlwaysAllow", guest_crd_files())
    except HarnessError as exc:
        pytest.fail(f"guest API server unavailable: {exc}", pytrace=False)


def run(*argv: str, faults=None) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(list(argv), faults=faults, out=out, err=err)
    return code, out.getvalue(), err.getvalue()


def test_the_report_over_an_upstream_world_on_real_apis_only_reads(dvp_api, own_guest, tmp_path):
    ns = dvp_api.create_namespace("takeover")
    parent, guest = dvp_api.client(), own_guest.client()
    try:
        sink = KubeSink(parent, guest)
        w = upstream_world(sink, namespace=ns)
        other = another_cluster(sink, namespace=ns)
        uids = {o["metadata"]["name"]: o["metadata"]["uid"] for o in parent.list_all(r.VIRTUAL_MACHINE, ns).items}
    finally:
        parent.close()
        guest.close()
    (tmp_path / "guest").write_text(own_guest.kubeconfig())
    (tmp_path / "parent").write_text(dvp_api.kubeconfig(ns))
    seen: list[RequestInfo] = []

    def record(req: RequestInfo) -> None:
        seen.append(req)

    args = ("--guest-kubeconfig", str(tmp_path / "guest"), "--parent-kubeconfig", str(tmp_path / "parent"),
            "--namespace", ns, "--cluster-uuid", w.uuid)
    code, out, err = run(*args, "--json", faults=record)
    assert (code, err) == (0, "")
    got = json.loads(out)
    assert [(o["outcome"], o["side"], o["kind"], o["name"], o["component"], o["reason"]) for o in got["objects"]] \
        == X.ordered(X.ours(w, uids.__getitem__) + X.theirs(other))
    assert (got["clusterUUID"], got["namespace"], got["blocks"]) == (w.uuid, ns, False)
    assert got["counts"] == {"ours": 0, "adopted": 7, "read": 1, "kept": 5, "foreign": 18, "blocks": 0}
    # read-only: every request a GET of a collection, each kind listed once
    assert {(q.method, q.verb) for q in seen} == {("GET", "list")}
    assert sorted(q.resource for q in seen) == sorted([
        "nodes", "persistentvolumes", "persistentvolumeclaims", "deckhousemachines.infrastructure.cluster.x-k8s.io",
        "services", "dvpinstanceclasses.deckhouse.io",
        "virtualmachines.virtualization.deckhouse.io", "virtualdisks.virtualization.deckhouse.io",
        "virtualmachineblockdeviceattachments.virtualization.deckhouse.io",
        "virtualmachineipaddresses.virtualization.deckhouse.io", "secrets", "services",
        "servicewithhealthchecks.network.deckhouse.io", "networkpolicies.networking.k8s.io"])

    code, table, err = run(*args)
    assert (code, err) == (0, "")
    lines = table.splitlines()
    assert lines[0].split() == ["OUTCOME", "SIDE", "OBJECT", "COMPONENT", "REASON"]
    assert lines[-1] == "31 objects: 0 ours, 7 adopted, 1 read, 5 kept, 18 foreign, 0 blocks; nothing blocks the switch"
    assert len(lines) == 33

    # the same guest judged as if it were the other cluster: everything it names is another cluster's, so it blocks
    code, _, err = run("--guest-kubeconfig", str(tmp_path / "guest"), "--parent-kubeconfig", str(tmp_path / "parent"),
                       "--namespace", ns, "--cluster-uuid", other.uuid)
    assert (code, err) == (1, "")


@pytest.mark.parametrize(("argv", "error"), [
    ((), "the following arguments are required: --guest-kubeconfig, --parent-kubeconfig, --namespace, "
         "--cluster-uuid"),
    (("--guest-kubeconfig", "/nonexistent/g", "--parent-kubeconfig", "/nonexistent/p", "--namespace", "p",
      "--cluster-uuid", " "), "--cluster-uuid is empty"),
    (("--guest-kubeconfig", "/nonexistent/g", "--parent-kubeconfig", "/nonexistent/p", "--namespace", "p",
      "--cluster-uuid", "u"), "[Errno 2] No such file or directory: '/nonexistent/g'"),
])
def test_bad_input_is_one_line_and_exit_2(argv, error):
    assert run(*argv) == (2, "", f"python3 -m dvp_common.takeover: {error}\n")


def test_a_kubeconfig_that_is_no_kubeconfig_is_one_line_and_exit_2(tmp_path):
    (tmp_path / "bad").write_text("not: [a kubeconfig")
    code, out, err = run("--guest-kubeconfig", str(tmp_path / "bad"), "--parent-kubeconfig", str(tmp_path / "bad"),
                         "--namespace", "p", "--cluster-uuid", "u")
    assert (code, out, err.count("\n")) == (2, "", 1)
    assert err.startswith("python3 -m dvp_common.takeover: ")
