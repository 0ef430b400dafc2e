# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""What a converge meets when DVP is slow, refuses, or was edited by hand, with the real OpenTofu and provider
against the real DVP API while the simulator plays DVP: readiness never taints the VM, its disks or its address,
DVP's own reason ends a run at once, an address whose creation did not finish never blocks the next run, our
fields are taken back after a manual edit, and bad or missing inputs are refused at plan, before anything exists,
naming the field to fix."""

import hashlib
import io
import json
import os
import shutil
import signal
import subprocess
import tarfile

import pytest
from dvp_common.dvp import resources as R
from dvp_common.kube.resources import SECRET

from sim import SimConfig, Simulator
from testkit.candi.layout_inputs import POOL, seed_parent, variables
from testkit.candi.tofu_runner import ROOT, TOFU, Tofu, write_vars

pytestmark = pytest.mark.tools

VM = "module.master.module.vm.kubernetes_manifest.vm"
QUICK = 300  # seconds an apply may take here: none of these runs waits for DVP


@pytest.fixture
def project(dvp_api):
    """A fresh project namespace and a way to (re)start the simulator on it with a config of the test's."""
    client = dvp_api.client()
    seed_parent(client)
    ns = dvp_api.create_namespace("rules")
    sims = []

    def simulate(start=True, **cfg):
        """(Re)start the simulator with `cfg`; start=False leaves DVP away (nothing processes the objects)."""
        for sim in sims:
            sim.stop()
            sim.client.close()
        sims.clear()
        if not start:
            return
        sim = Simulator(dvp_api.client(), SimConfig(**{"namespace": ns, "default_latency": 0.05, "ip_pool": POOL,
                                                       "watch_timeout": 1, **cfg}))
        sim.start()
        sims.append(sim)

    yield client, ns, simulate
    if sims:
        _release_addresses(client, ns)
    for sim in sims:
        sim.stop()
        sim.client.close()
    client.close()


def _release_addresses(client, ns: str) -> None:
    """Every layout here asks for the same static IP: a test that ends without a destroy must not keep it
    leased (leases are cluster-wide), or DVP refuses the next test's address (the IP is still allocated). The VMs
    go first: DVP keeps an address a VM names until the VM lets it go (CONTRACT.md C24)."""
    vms = [o["metadata"]["name"] for o in client.list(R.VIRTUAL_MACHINE, ns).items]
    for name in vms:
        client.delete(R.VIRTUAL_MACHINE, name, ns, missing_ok=True)
    for name in vms:
        client.wait_for(R.VIRTUAL_MACHINE, name, lambda o: o is None, 60, ns)
    names = [o["metadata"]["name"] for o in client.list(R.VIRTUAL_MACHINE_IP_ADDRESS, ns).items]
    for name in names:
        client.delete(R.VIRTUAL_MACHINE_IP_ADDRESS, name, ns, missing_ok=True)
    for name in names:
        client.wait_for(R.VIRTUAL_MACHINE_IP_ADDRESS, name, lambda o: o is None, 60, ns)
    for lease in client.list(R.VIRTUAL_MACHINE_IP_ADDRESS_LEASE).items:
        if (lease.get("spec") or {}).get("virtualMachineIPAddressRef", {}).get("namespace") == ns:
            client.wait_for(R.VIRTUAL_MACHINE_IP_ADDRESS_LEASE, lease["metadata"]["name"], lambda o: o is None, 60)


def run(tofu, cwd, *args, timeout=QUICK):
    return tofu.run(cwd, *args, "-input=false", "-no-color", timeout=timeout)


def one_line(out: str) -> str:
    return " ".join(out.split())


def state(tofu, cwd) -> dict[str, dict]:
    """Managed resources of the state by address, with their status (tainted or not)."""
    res = tofu.run(cwd, "show", "-json")
    assert res.rc == 0, res.out
    out = {}

    def walk(module):
        for r in module.get("resources", []):
            if r["mode"] == "managed":
                out[r["address"]] = r
        for child in module.get("child_modules", []):
            walk(child)

    walk(json.loads(res.out)["values"]["root_module"])
    return out


def tainted(tofu, cwd) -> list[str]:
    return [a for a, r in state(tofu, cwd).items() if r.get("tainted")]


def short_address_wait(cwd, seconds: int = 15) -> None:
    """The address's create wait cut from 10 minutes (an override file in this run's copy of candi/), so a run
    whose wait times out ends in seconds here."""
    module = cwd.parents[2] / "terraform-modules" / "ipv4-address"
    (module / "short_wait_override.tf").write_text(
        'resource "kubernetes_manifest" "address" {\n  timeouts {\n'
        f'    create = "{seconds}s"\n    update = "{seconds}s"\n    delete = "5m"\n  }}\n}}\n')


def owners_when_deleted(client, ns, address: dict, seconds: int = 60) -> list[dict] | None:
    """The ownerReferences `address` had when it was deleted, from a watch of its versions since it was read."""
    for event in client.watch(R.VIRTUAL_MACHINE_IP_ADDRESS, ns, field_selector={
            "metadata.name": address["metadata"]["name"]}, resource_version=address["metadata"]["resourceVersion"],
            timeout_seconds=seconds):
        if event.type == "DELETED":
            return event.object["metadata"].get("ownerReferences")
    raise AssertionError(f"{address['metadata']['name']} not deleted within {seconds}s")


# The owner an unfinished Auto address is given so that the garbage collector deletes it (ipv4-address).
NO_OWNER = {"apiVersion": "v1", "kind": "ConfigMap", "uid": "00000000-0000-0000-0000-000000000000"}


def plan_actions(tofu, cwd) -> dict[str, list[str]]:
    res = run(tofu, cwd, "plan", "-out=tfplan")
    assert res.rc == 0, res.out
    show = tofu.run(cwd, "show", "-json", "tfplan")
    return {c["address"]: c["change"]["actions"] for c in json.loads(show.out)["resource_changes"]
            if c["change"]["actions"] != ["no-op"] and c["mode"] == "managed"}


def test_a_slow_master_is_neither_waited_for_nor_tainted_nor_recreated(tofu, dvp_api, project, tmp_path):
    client, ns, simulate = project
    simulate(stuck={"VirtualMachine.Starting"})
    cwd = tofu.step(tmp_path, "master-node", variables(dvp_api.kubeconfig(ns), ns))

    res = run(tofu, cwd, "apply", "-auto-approve")
    assert res.rc == 0, res.out
    vm = client.get(R.VIRTUAL_MACHINE, "candi-master-0", ns)
    assert vm["status"]["phase"] == "Starting"
    assert [a for a, r in state(tofu, cwd).items() if r.get("tainted")] == []

    # DVP gets there later: the next converge has nothing to do, and the VM is the same object.
    simulate()
    client.wait_for(R.VIRTUAL_MACHINE, "candi-master-0", lambda o: o and o["status"].get("phase") == "Running",
                    120, ns)
    assert plan_actions(tofu, cwd) == {}
    assert client.get(R.VIRTUAL_MACHINE, "candi-master-0", ns)["metadata"]["uid"] == vm["metadata"]["uid"]
    assert run(tofu, cwd, "destroy", "-auto-approve").rc == 0


def test_a_disk_over_the_quota_ends_the_run_with_dvps_reason(tofu, dvp_api, project, tmp_path):
    client, ns, simulate = project
    simulate(quota_bytes=16 * 2**30)  # the root disk (20Gi) alone is over it
    cwd = tofu.step(tmp_path, "master-node", variables(dvp_api.kubeconfig(ns), ns))
    root = "module.root_disk.module.disk.kubernetes_manifest.disk"

    applied = run(tofu, cwd, "apply", "-auto-approve")
    disks = [d["metadata"]["name"] for d in client.list(R.VIRTUAL_DISK, ns).items]
    root_name = next(d for d in disks if "-root-" in d)
    client.wait_for(R.VIRTUAL_DISK, root_name, lambda o: o and any(
        c.get("reason") == "QuotaExceeded" for c in o.get("status", {}).get("conditions", [])), 60, ns)

    # The apply either saw it already, or the next plan does: either way with DVP's words, not a timeout.
    planned = run(tofu, cwd, "plan")
    for res in ([applied] if applied.rc else []) + [planned]:
        assert res.rc == 1, res.out
        text = one_line(res.out)
        assert f"VirtualDisk {ns}/{root_name}: phase Pending, Ready=False QuotaExceeded: requested 20Gi" in text, text
        assert "timed out" not in text
    # nothing of it is tainted: the disks and the VM stay as they are
    st = state(tofu, cwd)
    assert root in st and VM in st
    assert [a for a, r in st.items() if r.get("tainted") and "terraform_data.ready" not in a] == []


def test_a_manual_edit_of_our_fields_is_taken_back(tofu, dvp_api, project, tmp_path):
    client, ns, simulate = project
    simulate()
    cwd = tofu.step(tmp_path, "master-node", variables(dvp_api.kubeconfig(ns), ns))
    assert run(tofu, cwd, "apply", "-auto-approve").rc == 0

    # Someone resizes the VM with their own tool (another field manager, forcing its way in).
    edit = {"apiVersion": "virtualization.deckhouse.io/v1alpha2", "kind": "VirtualMachine",
            "metadata": {"name": "candi-master-0", "namespace": ns}, "spec": {"cpu": {"cores": 3}}}
    client.patch(R.VIRTUAL_MACHINE, "candi-master-0", edit, ns, patch_type="apply", field_manager="kubectl-edit",
                 force=True)

    res = run(tofu, cwd, "apply", "-auto-approve", timeout=240)
    assert res.rc == 0, res.out
    assert client.get(R.VIRTUAL_MACHINE, "candi-master-0", ns)["spec"]["cpu"]["cores"] == 2
    vm = client.get(R.VIRTUAL_MACHINE, "candi-master-0", ns)
    assert {m["manager"] for m in vm["metadata"]["managedFields"] if m.get("operation") == "Apply"
            and "f:cpu" in json.dumps(m.get("fieldsV1", {}))} == {"Terraform"}
    assert run(tofu, cwd, "destroy", "-auto-approve").rc == 0


@pytest.mark.parametrize(("change", "message"), [
    (lambda v: v["instanceClasses"]["master"]["spec"]["virtualMachine"].update(liveMigrationPolicy="Never"),
     'DVPInstanceClass "master": spec.virtualMachine.liveMigrationPolicy must be one of AlwaysSafe, PreferSafe, '
     'AlwaysForced, PreferForced, got "Never"'),
    (lambda v: v["instanceClasses"]["master"]["spec"]["virtualMachine"].update(runPolicy="Always"),
     'DVPInstanceClass "master": spec.virtualMachine.runPolicy must be one of AlwaysOn, AlwaysOff, Manual, '
     'AlwaysOnUnlessStoppedManually, got "Always"'),
    (lambda v: v["instanceClasses"]["master"]["spec"]["virtualMachine"]["cpu"].update(coreFraction="5"),
     'DVPInstanceClass "master": spec.virtualMachine.cpu.coreFraction must be a percentage from 1% to 100%, '
     'got "5"'),
    (lambda v: v["instanceClasses"]["master"]["spec"].pop("etcdDisk"),
     'DVPInstanceClass "master": spec.etcdDisk is required for NodeGroup master (the etcd disk)'),
    (lambda v: v["settings"]["spec"]["settings"]["provider"]["parameters"].pop("namespace"),
     "ModuleConfig cloud-provider-dvp: spec.settings.provider.parameters.namespace is required"),
    (lambda v: v["nodeGroups"].pop("master"), 'NodeGroup "master" not found (known: worker)'),
    (lambda v: v["nodeGroups"]["master"]["spec"]["cloudInstances"].update(zones=["zone-z"])
     or v["settings"]["spec"]["settings"]["nodes"]["parameters"].update(zones=["zone-a"]),
     'NodeGroup "master": spec.cloudInstances.zones zone-z not among the cluster zones'),
    (lambda v: v["instanceClasses"]["master"]["spec"]["rootDisk"].update(storageClass="no-such-class"),
     'DVPInstanceClass "master": spec.rootDisk.storageClass: StorageClass "no-such-class" not found in the parent '
     'DVP cluster.'),
    (lambda v: v["instanceClasses"]["master"]["spec"]["virtualMachine"].update(virtualMachineClassName="gone"),
     'virtualMachine.virtualMachineClassName: VirtualMachineClass "gone" not found in the parent DVP cluster.'),
    (lambda v: v["clusterConfiguration"]["cloud"].update(prefix="p" * 60),
     f'hostname "{"p" * 60}-master-0" must be a DNS label of at most 63 characters'),
], ids=["liveMigrationPolicy", "runPolicy", "coreFraction", "etcdDisk", "namespace", "nodeGroup", "zones",
        "storageClass", "vmClass", "hostname"])
def test_bad_or_missing_inputs_are_refused_at_plan_naming_the_field(tofu, dvp_api, project, tmp_path, change,
                                                                     message):
    client, ns, simulate = project
    bad = variables(dvp_api.kubeconfig(ns), ns)
    change(bad)
    cwd = tofu.step(tmp_path, "master-node", bad)
    res = run(tofu, cwd, "plan")
    assert res.rc == 1
    assert message in one_line(res.out), res.out
    assert client.list(R.VIRTUAL_DISK, ns).items == []


def test_missing_credentials_name_the_secret(tofu, dvp_api, project, tmp_path):
    _, ns, _ = project
    cwd = tofu.step(tmp_path, "master-node", variables(dvp_api.kubeconfig(ns), ns, secrets={}))
    res = run(tofu, cwd, "plan")
    assert res.rc == 1
    assert ("Secret d8-cloud-provider-dvp/d8-credentials: not found (the credentials Secret of ModuleConfig "
            "cloud-provider-dvp" in one_line(res.out)), res.out


def test_removing_a_named_additional_disk_leaves_the_others(tofu, dvp_api, project, tmp_path):
    _, ns, simulate = project
    simulate()
    two = variables(dvp_api.kubeconfig(ns), ns)
    two["instanceClasses"]["master"]["spec"]["additionalDisks"] = [
        {"name": "logs", "size": "5Gi", "storageClass": "candi-fast"},
        {"name": "data", "size": "6Gi", "storageClass": "candi-fast"}]
    cwd = tofu.step(tmp_path, "master-node", two)
    assert run(tofu, cwd, "apply", "-auto-approve").rc == 0

    one = variables(dvp_api.kubeconfig(ns), ns)
    one["instanceClasses"]["master"]["spec"]["additionalDisks"] = [two["instanceClasses"]["master"]["spec"][
        "additionalDisks"][1]]
    write_vars(cwd, one)
    assert plan_actions(tofu, cwd) == {
        'module.additional_disk.module.disk["logs"].kubernetes_manifest.disk': ["delete"],
        'module.additional_disk.module.disk["logs"].terraform_data.ready': ["delete"],
        VM: ["update"],
    }
    write_vars(cwd, two)
    assert run(tofu, cwd, "destroy", "-auto-approve").rc == 0


# The last commit whose layouts keyed additional disks by index (count), before they were keyed by name.
INDEX_KEYED = "615fdd40c64ec409e0061e9bd062a1f85d9edb89"


def layouts_of(commit: str, where):
    """candi/ as it was at `commit` (an earlier release's layouts), extracted under `where`."""
    where.mkdir()
    archive = subprocess.run(["git", "-C", str(ROOT), "archive", commit, "candi"], capture_output=True,
                             check=True).stdout
    with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
        tar.extractall(where, filter="tar")
    return where / "candi"


def test_index_keyed_disks_of_an_earlier_release_move_in_state_without_changes(tofu, dvp_api, project, tmp_path):
    client, ns, simulate = project
    simulate()
    old = layouts_of(INDEX_KEYED, tmp_path / "old")
    inputs = variables(dvp_api.kubeconfig(ns), ns)
    before = Tofu(env=tofu.env, candi=old).step(tmp_path / "before", "master-node", inputs)
    assert run(tofu, before, "apply", "-auto-approve", timeout=900).rc == 0
    disk = client.get(R.VIRTUAL_DISK, "candi-master-0-additional-disk-0", ns)

    cwd = tofu.step(tmp_path / "after", "master-node", inputs)  # today's layouts over the same state
    shutil.copy(before / "terraform.tfstate", cwd / "terraform.tfstate")
    res = run(tofu, cwd, "plan", "-out=tfplan")
    assert res.rc == 0, res.out
    changes = json.loads(tofu.run(cwd, "show", "-json", "tfplan").out)["resource_changes"]
    moved = {c["address"]: c["previous_address"] for c in changes
             if c.get("previous_address") and c["mode"] == "managed"}
    assert moved == {'module.additional_disk.module.disk["0"].kubernetes_manifest.disk':
                     "module.additional_disk.module.disk[0].kubernetes_manifest.disk"}
    assert [c["address"] for c in changes if "delete" in c["change"]["actions"]] == []
    assert tofu.run(cwd, "apply", "-input=false", "-no-color", "tfplan", timeout=QUICK).rc == 0
    assert client.get(R.VIRTUAL_DISK, "candi-master-0-additional-disk-0", ns)["metadata"]["uid"] == \
        disk["metadata"]["uid"]
    assert run(tofu, cwd, "destroy", "-auto-approve").rc == 0


def running_with(client, ns, name, cores):
    """The VM once DVP runs it with `cores` and nothing waits for a restart."""
    return client.wait_for(R.VIRTUAL_MACHINE, name, lambda o: o and o["status"].get("phase") == "Running" and (
        o["status"].get("resources") or {}).get("cpu", {}).get("cores") == cores and not restarting(o), 120, ns)


def restarting(vm) -> bool:
    return any(c["type"] == "AwaitingRestartToApplyConfiguration" and c["status"] == "True"
               for c in vm["status"].get("conditions", []))


def test_masters_converge_one_at_a_time_while_dvp_restarts_one(tofu, dvp_api, project, tmp_path):
    client, ns, simulate = project
    simulate()
    kc = dvp_api.kubeconfig(ns)
    masters = []
    for index in (0, 1):
        cwd = tofu.step(tmp_path / f"master-{index}", "master-node", variables(kc, ns, nodeIndex=index))
        assert run(tofu, cwd, "apply", "-auto-approve").rc == 0
        running_with(client, ns, f"candi-master-{index}", 2)
        masters.append(cwd)

    def bigger(index):
        out = variables(kc, ns, nodeIndex=index)
        out["instanceClasses"]["master"]["spec"]["virtualMachine"]["cpu"]["cores"] = 4
        return out

    # The first master's change is written while DVP has not processed it yet: DVP may be about to restart it.
    simulate(start=False)
    write_vars(masters[0], bigger(0))
    assert run(tofu, masters[0], "apply", "-auto-approve").rc == 0
    write_vars(masters[1], bigger(1))
    refused = run(tofu, masters[1], "plan")
    assert refused.rc == 1
    assert (f"VirtualMachine {ns}/candi-master-0 has a change DVP has not processed yet: masters are converged one "
            "at a time, run the converge again once it is Running with its configuration applied.") in \
        one_line(refused.out), refused.out

    # DVP restarts it to apply the change (restartApprovalMode Automatic); it stops slowly.
    simulate(stuck={"VirtualMachine.Stopping"})
    client.wait_for(R.VIRTUAL_MACHINE, "candi-master-0", lambda o: o and o["status"].get("phase") == "Stopping"
                    and restarting(o), 120, ns)
    refused = run(tofu, masters[1], "plan")
    assert refused.rc == 1
    assert (f"VirtualMachine {ns}/candi-master-0 is Stopping and awaits a restart to apply its configuration: "
            "masters are converged") in one_line(refused.out), refused.out
    assert client.get(R.VIRTUAL_MACHINE, "candi-master-1", ns)["spec"]["cpu"]["cores"] == 2  # untouched

    # Back with its new configuration: the next master goes on, and DVP restarts that one in turn.
    simulate()
    running_with(client, ns, "candi-master-0", 4)
    assert plan_actions(tofu, masters[1]) == {VM: ["update"]}
    assert run(tofu, masters[1], "apply", "-auto-approve").rc == 0
    running_with(client, ns, "candi-master-1", 4)
    for cwd in reversed(masters):
        assert run(tofu, cwd, "destroy", "-auto-approve").rc == 0


# Addresses ---------------------------------------------------------------------------------------------------------
ADDRESS = "module.ipv4_address.kubernetes_manifest.address"
HELD_IP = "10.77.0.52"  # this test's own: another project holds it, and a failed test must not leave it held


def with_ip(kubeconfig, ns, ip, **overrides):
    out = variables(kubeconfig, ns, **overrides)
    out["settings"]["spec"]["settings"]["nodes"]["parameters"]["ipAddresses"]["master"] = [ip]
    return out


def other_projects_lease(client, ip: str, released: bool) -> dict:
    """The lease DVP keeps for an address of another project: bound to it, or released when it went (DVP keeps a
    released lease for VIRTUAL_MACHINE_IP_LEASES_RETENTION_DURATION, 10m by default). The simulator plays only
    this test's project, so the test writes the other project's lease as DVP leaves it."""
    name = "ip-" + ip.replace(".", "-")
    ref = {"namespace": "another-project", "name": "" if released else "their-vm"}
    lease = client.create(R.VIRTUAL_MACHINE_IP_ADDRESS_LEASE, {"metadata": {"name": name}, "spec": {
        "virtualMachineIPAddressRef": ref}}, get_existing=True)
    if lease["spec"]["virtualMachineIPAddressRef"] != ref:
        lease = client.patch(R.VIRTUAL_MACHINE_IP_ADDRESS_LEASE, name, {"spec": {"virtualMachineIPAddressRef": ref}})
    bound = {"type": "Bound", "status": "False" if released else "True", "reason": "Released" if released else "Bound",
             "message": "VirtualMachineIPAddressLease is not bound to any VirtualMachineIPAddress." if released else "",
             "lastTransitionTime": "2026-01-01T00:00:00Z"}
    lease["status"] = {"phase": "Released" if released else "Bound", "conditions": [bound]}
    return client.update_status(R.VIRTUAL_MACHINE_IP_ADDRESS_LEASE, lease)


def test_a_static_ip_another_project_holds_then_releases_never_blocks_the_next_converge(tofu, dvp_api, project,
                                                                                          tmp_path):
    client, ns, simulate = project
    simulate()
    cwd = tofu.step(tmp_path, "master-node", with_ip(dvp_api.kubeconfig(ns), ns, HELD_IP))
    short_address_wait(cwd)
    name = "candi-master-0-" + HELD_IP.replace(".", "-")
    lease = "ip-" + HELD_IP.replace(".", "-")
    try:
        # Another project's VM holds the IP: DVP refuses the address at once, and nothing of it is in the state.
        other_projects_lease(client, HELD_IP, released=False)
        refused = run(tofu, cwd, "apply", "-auto-approve")
        assert refused.rc == 1, refused.out
        assert (f"the VirtualMachineIPAddress cannot be created: the specified IP address {HELD_IP} has already been "
                "allocated and has not been released") in one_line(refused.out), refused.out
        assert ADDRESS not in state(tofu, cwd) and tainted(tofu, cwd) == []

        # Their VM goes; DVP keeps the lease for their project a while: the address is made, DVP cannot bind it,
        # and the run ends with DVP's reason naming the address, not with a wait that timed out.
        other_projects_lease(client, HELD_IP, released=True)
        applied = run(tofu, cwd, "apply", "-auto-approve")
        reason = 'The VirtualMachineIPAddressLease "ip-10-77-0-52" belongs to a different namespace.'
        client.wait_for(R.VIRTUAL_MACHINE_IP_ADDRESS, name, lambda o: o and any(
            c.get("message") == reason for c in o.get("status", {}).get("conditions", [])), 60, ns)
        planned = run(tofu, cwd, "plan")
        for res in ([applied] if applied.rc else []) + [planned]:
            assert res.rc == 1, res.out
            text = one_line(res.out)
            assert (f"VirtualMachineIPAddress {ns}/{name} ({HELD_IP}): phase Pending, Bound=False "
                    f"VirtualMachineIPAddressLeaseNotReady: {reason}") in text, text
            assert "timed out" not in text
        assert ADDRESS in state(tofu, cwd) and tainted(tofu, cwd) == []
        made = client.get(R.VIRTUAL_MACHINE_IP_ADDRESS, name, ns)

        # The lease's retention ends (DVP deletes it): DVP binds the address by itself and the next converge
        # finishes the node without anyone untainting anything; the address is the one made before.
        client.delete(R.VIRTUAL_MACHINE_IP_ADDRESS_LEASE, lease)
        client.wait_for(R.VIRTUAL_MACHINE_IP_ADDRESS, name,
                        lambda o: o and o.get("status", {}).get("phase") in ("Bound", "Attached"), 60, ns)
        res = run(tofu, cwd, "apply", "-auto-approve")
        assert res.rc == 0, res.out
        vm = client.wait_for(R.VIRTUAL_MACHINE, "candi-master-0",
                             lambda o: o and o.get("status", {}).get("phase") == "Running", 120, ns)
        assert (vm["spec"]["virtualMachineIPAddressName"], vm["status"]["ipAddress"]) == (name, HELD_IP)
        assert client.get(R.VIRTUAL_MACHINE_IP_ADDRESS, name, ns)["metadata"]["uid"] == made["metadata"]["uid"]
        assert plan_actions(tofu, cwd) == {}
        assert run(tofu, cwd, "destroy", "-auto-approve").rc == 0
    finally:
        client.delete(R.VIRTUAL_MACHINE_IP_ADDRESS_LEASE, lease, missing_ok=True)


def test_a_static_address_dvp_is_slow_to_bind_is_not_waited_for(tofu, dvp_api, project, tmp_path):
    client, ns, simulate = project
    simulate(start=False)  # DVP takes its time: nothing processes the objects
    cwd = tofu.step(tmp_path, "master-node", variables(dvp_api.kubeconfig(ns), ns))
    short_address_wait(cwd)

    res = run(tofu, cwd, "apply", "-auto-approve")
    assert res.rc == 0, res.out
    out = json.loads(tofu.run(cwd, "output", "-json").out)
    assert (out["master_ip_address_for_ssh"]["value"], out["node_internal_ip_address"]["value"]) == (
        "10.77.0.50", "10.77.0.50")
    assert tainted(tofu, cwd) == []
    assert "status" not in client.get(R.VIRTUAL_MACHINE_IP_ADDRESS, "candi-master-0-10-77-0-50", ns)

    # DVP gets there later: the next converge has nothing to do.
    simulate()
    client.wait_for(R.VIRTUAL_MACHINE, "candi-master-0", lambda o: o and o.get("status", {}).get("phase") == "Running",
                    120, ns)
    assert plan_actions(tofu, cwd) == {}
    assert run(tofu, cwd, "destroy", "-auto-approve").rc == 0


def test_an_auto_address_whose_wait_timed_out_is_taken_over_by_a_new_one(tofu, dvp_api, project, tmp_path):
    client, ns, simulate = project
    simulate(start=False)  # DVP does not allocate within the wait
    inputs = variables(dvp_api.kubeconfig(ns), ns, nodeGroupName="worker", nodeIndex=1)
    cwd = tofu.step(tmp_path, "static-node", inputs)
    short_address_wait(cwd)

    timed_out = run(tofu, cwd, "apply", "-auto-approve")
    assert timed_out.rc == 1 and "timed out" in timed_out.out, timed_out.out
    vms = client.list(R.VIRTUAL_MACHINE, ns).items

    # DVP comes back and binds the address late, after the wait gave up on it.
    simulate()
    late = client.wait_for(R.VIRTUAL_MACHINE_IP_ADDRESS, "candi-worker-1-auto",
                           lambda o: o and o.get("status", {}).get("phase") == "Bound", 60, ns)

    # The next converge needs no hand-work: the unfinished address is replaced under the next free name.
    res = run(tofu, cwd, "apply", "-auto-approve")
    assert res.rc == 0, res.out
    assert tainted(tofu, cwd) == []
    assert vms == []  # the VM waited for its address: it never pointed at the unfinished one
    vm = client.wait_for(R.VIRTUAL_MACHINE, "candi-worker-1",
                         lambda o: o and o.get("status", {}).get("phase") == "Running", 120, ns)
    assert vm["spec"]["virtualMachineIPAddressName"] == "candi-worker-1-auto-1"
    address = client.get(R.VIRTUAL_MACHINE_IP_ADDRESS, "candi-worker-1-auto-1", ns)
    out = json.loads(tofu.run(cwd, "output", "-json").out)
    assert out["node_internal_ip_address"]["value"] == address["status"]["address"] == vm["status"]["ipAddress"]
    # the tainted address was given its owner before its replacement's apply deleted it
    assert owners_when_deleted(client, ns, late) == [NO_OWNER | {"name": "candi-worker-1-auto-unfinished"}]
    assert late["metadata"]["uid"] != address["metadata"]["uid"]
    assert plan_actions(tofu, cwd) == {}
    assert run(tofu, cwd, "destroy", "-auto-approve").rc == 0
    assert client.list(R.VIRTUAL_MACHINE_IP_ADDRESS, ns).items == []


def test_an_auto_address_on_an_empty_pool_ends_the_run_at_once_naming_the_pool(tofu, dvp_api, project, tmp_path):
    client, ns, simulate = project
    simulate(ip_pool="10.78.0.0/30")  # one address after the gateway, which another address of the project holds
    client.create(R.VIRTUAL_MACHINE_IP_ADDRESS, {"metadata": {"name": "occupant"},
                                                 "spec": {"type": "Static", "staticIP": "10.78.0.2"}}, ns)
    client.wait_for(R.VIRTUAL_MACHINE_IP_ADDRESS, "occupant",
                    lambda o: o and o.get("status", {}).get("phase") == "Bound", 60, ns)
    cwd = tofu.step(tmp_path, "static-node",
                    variables(dvp_api.kubeconfig(ns), ns, nodeGroupName="worker", nodeIndex=1))
    stuck = (f"VirtualMachineIPAddress {ns}/candi-worker-1-auto (Auto): phase Pending, Bound=False "
             "VirtualMachineIPAddressLeaseNotReady: Failed to allocate new IP address: no remaining ips. (DVP's pool "
             "of VM addresses, the virtualization module's virtualMachineCIDRs, has no free address; project "
             f"{ns} holds 1 of them: free one or widen the pool)")

    # DVP refuses at once: so does the run (the create's wait is 10 minutes, this run's limit 5), tainting nothing
    refused = run(tofu, cwd, "apply", "-auto-approve")
    assert refused.rc == 1 and stuck in one_line(refused.out), refused.out
    assert tainted(tofu, cwd) == []
    # the VM is made with the address, to start once DVP binds it
    assert [o["spec"]["virtualMachineIPAddressName"] for o in client.list(R.VIRTUAL_MACHINE, ns).items] == [
        "candi-worker-1-auto"]
    # the next converge stops at its plan, on the same address
    again = run(tofu, cwd, "plan")
    assert again.rc == 1 and stuck in one_line(again.out), again.out

    # the IP freed, DVP binds the waiting address by itself and the converge goes through with it
    client.delete(R.VIRTUAL_MACHINE_IP_ADDRESS, "occupant", ns)
    client.wait_for(R.VIRTUAL_MACHINE_IP_ADDRESS, "candi-worker-1-auto",
                    lambda o: o and o.get("status", {}).get("phase") in ("Bound", "Attached"), 60, ns)
    res = run(tofu, cwd, "apply", "-auto-approve")
    assert res.rc == 0, res.out
    vm = client.wait_for(R.VIRTUAL_MACHINE, "candi-worker-1",
                         lambda o: o and o.get("status", {}).get("phase") == "Running", 120, ns)
    assert vm["spec"]["virtualMachineIPAddressName"] == "candi-worker-1-auto"
    assert json.loads(tofu.run(cwd, "output", "-json").out)["node_internal_ip_address"]["value"] == "10.78.0.2"
    assert plan_actions(tofu, cwd) == {}
    assert run(tofu, cwd, "destroy", "-auto-approve").rc == 0
    assert client.list(R.VIRTUAL_MACHINE_IP_ADDRESS, ns).items == []


def killed_while_the_address_waits(tofu, client, ns, cwd) -> None:
    """An apply killed hard (SIGKILL to tofu and its provider) once its Auto address exists: between that create
    and the VM that would use it, while the disks and the cloud-init Secret are made and not yet in the state
    (OpenTofu writes a local state during an apply at most every 20 seconds)."""
    apply_ = subprocess.Popen([str(TOFU), "apply", "-auto-approve", "-input=false", "-no-color"], cwd=cwd,
                              env=tofu.env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                              start_new_session=True)
    image = b'{"kind":"ClusterVirtualImage","name":"candi-ubuntu"}'
    root = "candi-worker-1-root-" + hashlib.sha256(image).hexdigest()[:6]
    try:
        for res, name in ((R.VIRTUAL_MACHINE_IP_ADDRESS, "candi-worker-1-auto"), (SECRET, "candi-worker-1-cloudinit"),
                          (R.VIRTUAL_DISK, root), (R.VIRTUAL_DISK, "candi-worker-1-additional-disk-0")):
            client.wait_for(res, name, lambda o: o is not None, 120, ns)
    finally:
        os.killpg(apply_.pid, signal.SIGKILL)
        apply_.wait(30)


def test_what_a_killed_apply_made_is_taken_back_by_the_next_converge(tofu, dvp_api, project, tmp_path):
    client, ns, simulate = project
    simulate(start=False)  # DVP away: the apply waits on the address it made
    cwd = tofu.step(tmp_path, "static-node",
                    variables(dvp_api.kubeconfig(ns), ns, nodeGroupName="worker", nodeIndex=1))
    killed_while_the_address_waits(tofu, client, ns, cwd)
    disks = {o["metadata"]["name"]: o["metadata"]["uid"] for o in client.list(R.VIRTUAL_DISK, ns).items}
    assert len(disks) == 2 and client.list(R.VIRTUAL_MACHINE, ns).items == []
    orphan = client.get(R.VIRTUAL_MACHINE_IP_ADDRESS, "candi-worker-1-auto", ns)
    assert "annotations" not in orphan["metadata"]  # its creation never finished

    # DVP back: the next converge imports the disks, the Secret and the unfinished address instead of failing to
    # create them or leaving the address
    simulate()
    res = run(tofu, cwd, "apply", "-auto-approve")
    assert res.rc == 0, res.out
    assert {o["metadata"]["name"]: o["metadata"]["uid"] for o in client.list(R.VIRTUAL_DISK, ns).items} == disks
    vm = client.wait_for(R.VIRTUAL_MACHINE, "candi-worker-1",
                         lambda o: o and o.get("status", {}).get("phase") == "Running", 120, ns)
    # the unfinished address takes the next name (its replacement never meets it), and the one the kill left is
    # imported and given an owner that does not exist: the garbage collector deletes it
    assert vm["spec"]["virtualMachineIPAddressName"] == "candi-worker-1-auto-1"
    assert owners_when_deleted(client, ns, orphan) == [NO_OWNER | {"name": "candi-worker-1-auto-unfinished"}]
    assert [o["metadata"]["name"] for o in client.list(R.VIRTUAL_MACHINE_IP_ADDRESS, ns).items] == [
        "candi-worker-1-auto-1"]
    assert plan_actions(tofu, cwd) == {}
    assert run(tofu, cwd, "destroy", "-auto-approve").rc == 0
    assert client.list(R.VIRTUAL_MACHINE_IP_ADDRESS, ns).items == []


def running_at(client, ns, ip):
    """The master once DVP runs it on `ip`."""
    return client.wait_for(R.VIRTUAL_MACHINE, "candi-master-0", lambda o: o and o.get("status", {}).get(
        "phase") == "Running" and o.get("status", {}).get("ipAddress") == ip, 120, ns)


def a_running_master(tofu, dvp_api, project, tmp_path):
    """A master applied on its static address 10.77.0.50 and running: (client, ns, kubeconfig, cwd, VM)."""
    client, ns, simulate = project
    simulate()
    kc = dvp_api.kubeconfig(ns)
    cwd = tofu.step(tmp_path, "master-node", variables(kc, ns))
    assert run(tofu, cwd, "apply", "-auto-approve").rc == 0
    return client, ns, kc, cwd, running_at(client, ns, "10.77.0.50")


def test_a_new_static_address_is_made_the_vm_moved_onto_it_and_the_old_one_deleted(tofu, dvp_api, project,
                                                                                     tmp_path):
    client, ns, kc, cwd, vm = a_running_master(tofu, dvp_api, project, tmp_path)

    write_vars(cwd, with_ip(kc, ns, "10.77.0.51"))
    res = run(tofu, cwd, "apply", "-auto-approve")
    assert res.rc == 0, res.out
    out = json.loads(tofu.run(cwd, "output", "-json").out)
    assert out["master_ip_address_for_ssh"]["value"] == "10.77.0.51"
    moved = client.get(R.VIRTUAL_MACHINE, "candi-master-0", ns)
    assert (moved["metadata"]["uid"], moved["spec"]["virtualMachineIPAddressName"]) == (
        vm["metadata"]["uid"], "candi-master-0-10-77-0-51")
    assert [o["metadata"]["name"] for o in client.list(R.VIRTUAL_MACHINE_IP_ADDRESS, ns).items] == [
        "candi-master-0-10-77-0-51"]
    # DVP restarts the VM onto the new address (restartApprovalMode Automatic)
    running_at(client, ns, "10.77.0.51")
    assert plan_actions(tofu, cwd) == {}
    assert run(tofu, cwd, "destroy", "-auto-approve").rc == 0


def test_a_node_switched_between_a_static_and_an_auto_address_moves_before_the_old_one_goes(tofu, dvp_api,
                                                                                             project, tmp_path):
    client, ns, kc, cwd, vm = a_running_master(tofu, dvp_api, project, tmp_path)

    write_vars(cwd, with_ip(kc, ns, "Auto"))
    assert plan_actions(tofu, cwd) == {
        VM: ["update"],
        ADDRESS: ["create", "delete"],
        "module.ipv4_address.kubernetes_annotations.created[0]": ["create"],
        "module.ipv4_address.terraform_data.ready": ["update"],
    }
    res = run(tofu, cwd, "apply", "-auto-approve")
    assert res.rc == 0, res.out
    auto = client.get(R.VIRTUAL_MACHINE_IP_ADDRESS, "candi-master-0-auto", ns)
    assert [o["metadata"]["name"] for o in client.list(R.VIRTUAL_MACHINE_IP_ADDRESS, ns).items] == [
        "candi-master-0-auto"]
    assert client.get(R.VIRTUAL_MACHINE, "candi-master-0", ns)["metadata"]["uid"] == vm["metadata"]["uid"]
    running_at(client, ns, auto["status"]["address"])
    assert plan_actions(tofu, cwd) == {}

    write_vars(cwd, variables(kc, ns))
    res = run(tofu, cwd, "apply", "-auto-approve")
    assert res.rc == 0, res.out
    assert [o["metadata"]["name"] for o in client.list(R.VIRTUAL_MACHINE_IP_ADDRESS, ns).items] == [
        "candi-master-0-10-77-0-50"]
    running_at(client, ns, "10.77.0.50")
    assert plan_actions(tofu, cwd) == {}
    assert run(tofu, cwd, "destroy", "-auto-approve").rc == 0


# The last commit whose layouts waited on every address and marked none as created.
WAITING_ADDRESSES = "220717d471cae45748c1a96b74eb17ae5828a655"


def test_an_auto_address_made_by_an_earlier_release_is_kept(tofu, dvp_api, project, tmp_path):
    client, ns, simulate = project
    simulate()
    inputs = variables(dvp_api.kubeconfig(ns), ns, nodeGroupName="worker", nodeIndex=1)
    old = layouts_of(WAITING_ADDRESSES, tmp_path / "old")
    before = Tofu(env=tofu.env, candi=old).step(tmp_path / "before", "static-node", inputs)
    assert run(tofu, before, "apply", "-auto-approve", timeout=900).rc == 0
    address = client.get(R.VIRTUAL_MACHINE_IP_ADDRESS, "candi-worker-1-auto", ns)

    cwd = tofu.step(tmp_path / "after", "static-node", inputs)  # today's layouts over the same state
    shutil.copy(before / "terraform.tfstate", cwd / "terraform.tfstate")
    # the address keeps its name (the VM uses it), gets its new wait and its mark; nothing is replaced; the VM no
    # longer names the 100% core fraction its instance class never asked for (DVP applies its class's default)
    assert plan_actions(tofu, cwd) == {
        "module.static_node.module.vm.kubernetes_manifest.vm": ["update"],
        "module.ipv4_address.kubernetes_manifest.address": ["update"],
        "module.ipv4_address.kubernetes_annotations.created[0]": ["create"],
        "module.ipv4_address.terraform_data.ready": ["create"],
    }
    assert tofu.run(cwd, "apply", "-input=false", "-no-color", "tfplan", timeout=QUICK).rc == 0
    now = client.get(R.VIRTUAL_MACHINE_IP_ADDRESS, "candi-worker-1-auto", ns)
    assert now["metadata"]["uid"] == address["metadata"]["uid"]
    assert now["metadata"]["annotations"] == {"dvp.deckhouse.io/address-created": "true"}
    assert plan_actions(tofu, cwd) == {}
    assert run(tofu, cwd, "destroy", "-auto-approve").rc == 0
