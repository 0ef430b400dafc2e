# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""The dhctl Role of docs/SECURITY.md is exactly what the OpenTofu layouts of candi/ do in the DVP project.

Two sides: every rule of the Role is needed by a resource or data source of the layouts (read from the .tf files
with what the kubernetes provider asks the API for each), and every layout step (base infrastructure, a master,
a static node) applies, converges and is destroyed by the real OpenTofu against the RBAC-mode API server with a
ServiceAccount bound to that Role and nothing else."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from ccm_real import eventually
from dvp_common.dvp import resources as R
from dvp_common.kube import Forbidden
from dvp_common.kube.resources import SECRET, Resource
from isolation.rbac_doc import apply_block, documented_rules

from sim import SimConfig, Simulator
from testkit.candi.layout_inputs import POOL, UUID, seed_parent, variables
from testkit.candi.tofu_runner import ToolMissing, prepare

CANDI = Path(__file__).resolve().parents[2] / "candi"
NETWORK_POLICY = Resource("networking.k8s.io", "v1", "networkpolicies", "NetworkPolicy")
PLURALS = {"VirtualMachine": "virtualmachines", "VirtualDisk": "virtualdisks",
           "VirtualMachineIPAddress": "virtualmachineipaddresses", "VirtualMachineClass": "virtualmachineclasses",
           "VirtualImage": "virtualimages", "ClusterVirtualImage": "clustervirtualimages",
           "NetworkPolicy": "networkpolicies", "Secret": "secrets", "StorageClass": "storageclasses"}
GROUPS = {"virtualization.deckhouse.io/v1alpha2": "virtualization.deckhouse.io", "networking.k8s.io/v1":
          "networking.k8s.io", "storage.k8s.io/v1": "storage.k8s.io", "v1": ""}
BUILT_IN = {"", "networking.k8s.io", "storage.k8s.io"}
CRDS = ("list", "customresourcedefinitions.apiextensions.k8s.io")
# What the provider (hashicorp/kubernetes) asks the API for, per kind of block: a manifest is read, created by
# server-side apply (patch, and create for a new object), deleted and waited for by reads; a typed Secret is
# created, read, replaced (update) and deleted; annotations on an object are read, applied and taken back (patch);
# a single data source (a typed Secret's too) is a get, a plural one a list. For a kind of a CustomResourceDefinition
# the provider first finds its schema by listing the CRDs.
VERBS = {("resource", "kubernetes_manifest"): {"get", "create", "patch", "delete"},
         ("resource", "kubernetes_annotations"): {"get", "patch"},
         ("resource", "kubernetes_secret_v1"): {"get", "create", "update", "delete"},
         ("data", "kubernetes_resource"): {"get"}, ("data", "kubernetes_resources"): {"list"},
         ("data", "kubernetes_secret_v1"): {"get"}}
BLOCK = re.compile(r'^(resource|data) "(\w+)" "\w+" \{\n(.*?)^\}', re.M | re.S)
KIND = re.compile(r'(?:apiVersion|api_version)\s*=\s*"([^"]+)"\s*\n\s*kind\s*=\s*(\S+)')


def layout_files() -> list[Path]:
    return sorted(p for p in CANDI.rglob("*.tf") if "tests" not in p.parts and ".terraform" not in p.parts)


def image_kinds() -> set[str]:
    """The kinds the validation module lists images of (its kind comes from the instance class)."""
    text = (CANDI / "terraform-modules" / "validation" / "main.tf").read_text()
    found = re.search(r"image_namespace\s*=\s*\{([^}]*)\}", text)
    assert found, "the validation module's image_namespace map moved"
    return set(re.findall(r"(\w+)\s*=", found.group(1)))


def layout_requests() -> dict[tuple[str, str], set[str]]:
    """(verb, plural[.group]) -> the layout files asking for it."""
    out: dict[tuple[str, str], set[str]] = {}
    for path in layout_files():
        for block, type_, body in BLOCK.findall(path.read_text()):
            if type_ == "kubernetes_secret_v1":
                targets = [("v1", "Secret")]
            elif (block, type_) in VERBS:
                match = KIND.search(body)
                assert match, f"{path}: {block} {type_} without apiVersion and kind"
                version, kind = match.groups()
                # an unquoted kind is an expression: the image kinds of the instance class
                kinds = [kind.strip('"')] if kind.startswith('"') else sorted(image_kinds())
                targets = [(version, k) for k in kinds]
            else:
                continue
            for version, kind in targets:
                group = GROUPS[version]
                name = PLURALS[kind] + (f".{group}" if group else "")
                asks = {(verb, name) for verb in VERBS[(block, type_)]} | ({CRDS} if group not in BUILT_IN else set())
                for request in asks:
                    out.setdefault(request, set()).add(str(path.relative_to(CANDI)))
    return out


def test_the_dhctl_role_is_exactly_what_the_layouts_ask_for():
    asked = layout_requests()
    assert asked, "no layout resource found"
    rules = documented_rules("dvp-rbac:dhctl")
    assert sorted(set(asked) - rules) == []  # asked for, not granted
    assert sorted(rules - set(asked)) == []  # granted, never asked for


def test_the_layout_reader_sees_every_kind_of_block():
    """A block kind the reader does not know would slip through both sides above."""
    kinds = {(block, type_) for path in layout_files() for block, type_, _ in BLOCK.findall(path.read_text())}
    assert kinds - set(VERBS) <= {("resource", "terraform_data")}, "a new kind of block: add it to VERBS"


@pytest.fixture(scope="module")
def tofu(tmp_path_factory):
    try:
        return prepare(tmp_path_factory.mktemp("candi-rbac"))
    except ToolMissing as exc:
        pytest.fail(str(exc), pytrace=False)


@pytest.fixture
def dhctl_world(rbac_api):
    """A project namespace on the RBAC-mode server, its simulator (admin), and dhctl's kubeconfig holding a
    ServiceAccount bound to the documented dhctl Role only."""
    admin = rbac_api.client()
    seed_parent(admin)
    ns = rbac_api.create_namespace("candi-rbac")
    apply_block(admin, "dvp-rbac:dhctl", ns, "dhctl")
    token = rbac_api.service_account_token(ns, "dhctl")
    sa = rbac_api.client(token=token)

    def effective() -> bool:
        try:
            sa.list(R.VIRTUAL_MACHINE_CLASS)
            return True
        except Forbidden:
            return False

    eventually(effective, what="the dhctl Role in effect")
    with pytest.raises(Forbidden):
        sa.list(SECRET, ns)  # by name only
    sim = Simulator(rbac_api.client(), SimConfig(namespace=ns, default_latency=0.05, ip_pool=POOL, watch_timeout=1))
    sim.start()
    yield admin, ns, rbac_api.kubeconfig(ns, token=token, user="dhctl")
    sim.stop()
    for client in (sim.client, sa, admin):
        client.close()


def ours(client, ns) -> list[str]:
    kinds = (R.VIRTUAL_MACHINE, R.VIRTUAL_DISK, R.VIRTUAL_MACHINE_IP_ADDRESS, SECRET, NETWORK_POLICY)
    return sorted(f"{res.kind}/{o['metadata']['name']}" for res in kinds
                  for o in client.list(res, ns, label_selector={"dvp.deckhouse.io/cluster-uuid": UUID}).items)


def run(tofu, cwd, *args: str) -> str:
    res = tofu.run(cwd, *args, "-input=false", "-no-color", timeout=900)
    assert res.rc == 0, res.out
    return res.out


@pytest.mark.tools
@pytest.mark.parametrize(("step", "overrides", "made"), [
    ("base-infrastructure", {}, ["NetworkPolicy"]),
    ("master-node", {}, ["Secret", "VirtualDisk", "VirtualDisk", "VirtualDisk", "VirtualMachine",
                         "VirtualMachineIPAddress"]),
    ("static-node", {"nodeGroupName": "worker", "nodeIndex": 1}, ["Secret", "VirtualDisk", "VirtualDisk",
                                                                  "VirtualMachine", "VirtualMachineIPAddress"]),
])
def test_every_layout_step_runs_with_the_dhctl_role_only(tofu, dhctl_world, tmp_path, step, overrides, made):
    admin, ns, kubeconfig = dhctl_world
    cwd = tofu.step(tmp_path, step, variables(kubeconfig, ns, **overrides))
    run(tofu, cwd, "apply", "-auto-approve")
    assert [o.split("/")[0] for o in ours(admin, ns)] == made
    if step != "base-infrastructure":
        vm = [o for o in ours(admin, ns) if o.startswith("VirtualMachine/")][0].split("/")[1]
        # the layout does not wait for the VM to run (a slow VM is never tainted): DVP starts it in its own time
        running = admin.wait_for(R.VIRTUAL_MACHINE, vm,
                                 lambda o: (o or {}).get("status", {}).get("phase") == "Running", 60, ns)
        assert running["status"]["phase"] == "Running"
    plan = run(tofu, cwd, "plan", "-detailed-exitcode")  # converge: reads everything, changes nothing
    assert "No changes." in plan
    run(tofu, cwd, "destroy", "-auto-approve")
    assert ours(admin, ns) == []
