# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""VirtualMachine lifecycles and VirtualMachineOperations played by the simulator on the real DVP API."""

from __future__ import annotations

import ipaddress

import pytest
from dvp_common.dvp import resources as R

from sim.builders import WAIT, cloud_init, condition, disk, phase_is, vm, vmop


def test_vm_waits_for_its_disks_and_cloud_init_secret_then_runs(dvp, ns, sim, record):
    rec = record(R.VIRTUAL_MACHINE)
    dvp.create(R.VIRTUAL_MACHINE, vm("m1", ["m1-boot"], user_data="cloud-init-m1"), ns)

    def blocked_on(obj, ctype):
        return obj is not None and any(c["type"] == ctype and c["status"] == "False"
                                       for c in obj.get("status", {}).get("conditions", []))

    pending = dvp.wait_for(R.VIRTUAL_MACHINE, "m1", lambda o: blocked_on(o, "BlockDevicesReady"), WAIT, ns)
    assert pending["status"]["phase"] == "Pending"
    assert condition(pending, "BlockDevicesReady")["message"] == "VirtualDisk m1-boot not found"
    assert condition(pending, "ProvisioningReady")["message"] == 'Secret "cloud-init-m1" not found'
    dvp.create(R.VIRTUAL_DISK, disk("m1-boot", "10Gi"), ns)
    dvp.wait_for(R.VIRTUAL_DISK, "m1-boot", phase_is("Ready"), WAIT, ns)
    still = dvp.wait_for(R.VIRTUAL_MACHINE, "m1", lambda o: condition(o, "BlockDevicesReady")["status"] == "True",
                         WAIT, ns)
    assert still["status"]["phase"] == "Pending"
    dvp.create(R.SECRET, cloud_init("cloud-init-m1"), ns)
    running = dvp.wait_for(R.VIRTUAL_MACHINE, "m1", phase_is("Running"), WAIT, ns)
    assert rec.until("m1", 3) == ["Pending", "Starting", "Running"]
    st = running["status"]
    assert ipaddress.ip_address(st["ipAddress"]) in ipaddress.ip_network("10.66.0.0/16")
    assert st["nodeName"] in ("dvp-node-1", "dvp-node-2", "dvp-node-3")
    assert st["virtualMachineIPAddressName"] == "m1"
    assert st["blockDeviceRefs"] == [{"kind": "VirtualDisk", "name": "m1-boot", "size": "10Gi", "attached": True,
                                      "target": "sda", "hotplugged": False}]
    vmip = dvp.get(R.VIRTUAL_MACHINE_IP_ADDRESS, "m1", ns)
    assert (vmip["status"]["address"], vmip["metadata"]["ownerReferences"][0]["name"]) == (st["ipAddress"], "m1")
    lease = dvp.get(R.VIRTUAL_MACHINE_IP_ADDRESS_LEASE, "ip-" + st["ipAddress"].replace(".", "-"))
    assert lease["spec"]["virtualMachineIPAddressRef"] == {"namespace": ns, "name": "m1"}
    disk_now = dvp.wait_for(R.VIRTUAL_DISK, "m1-boot", lambda o: o["status"].get("attachedToVirtualMachines"),
                            WAIT, ns)
    assert disk_now["status"]["attachedToVirtualMachines"] == [{"name": "m1", "mounted": True}]


def test_two_vms_get_different_addresses(dvp, ns, sim):
    for name in ("a", "b"):
        dvp.create(R.VIRTUAL_DISK, disk(f"{name}-d", "1Gi"), ns)
        dvp.create(R.VIRTUAL_MACHINE, vm(name, [f"{name}-d"]), ns)
    ips = {dvp.wait_for(R.VIRTUAL_MACHINE, n, phase_is("Running"), WAIT, ns)["status"]["ipAddress"] for n in "ab"}
    assert len(ips) == 2


def test_static_address_is_used_when_the_vm_names_one(dvp, ns, sim):
    dvp.create(R.VIRTUAL_MACHINE_IP_ADDRESS, {"metadata": {"name": "fixed"},
                                              "spec": {"type": "Static", "staticIP": "10.66.255.250"}}, ns)
    assert dvp.wait_for(R.VIRTUAL_MACHINE_IP_ADDRESS, "fixed", phase_is("Bound"), WAIT, ns)
    dvp.create(R.VIRTUAL_DISK, disk("s-d", "1Gi"), ns)
    body = vm("static", ["s-d"])
    body["spec"]["virtualMachineIPAddressName"] = "fixed"
    dvp.create(R.VIRTUAL_MACHINE, body, ns)
    running = dvp.wait_for(R.VIRTUAL_MACHINE, "static", phase_is("Running"), WAIT, ns)
    assert running["status"]["ipAddress"] == "10.66.255.250"
    vmip = dvp.wait_for(R.VIRTUAL_MACHINE_IP_ADDRESS, "fixed", phase_is("Attached"), WAIT, ns)
    assert vmip["status"]["virtualMachineName"] == "static"


def test_missing_vm_class_keeps_the_vm_pending(dvp, ns, sim):
    body = vm("classless", ["c-d"])
    body["spec"]["virtualMachineClassName"] = "no-such-class"
    dvp.create(R.VIRTUAL_DISK, disk("c-d", "1Gi"), ns)
    dvp.create(R.VIRTUAL_MACHINE, body, ns)
    obj = dvp.wait_for(R.VIRTUAL_MACHINE, "classless", lambda o: o is not None and any(
        c["type"] == "VirtualMachineClassReady" for c in o.get("status", {}).get("conditions", [])), WAIT, ns)
    assert obj["status"]["phase"] == "Pending"
    assert condition(obj, "VirtualMachineClassReady")["message"] == 'VirtualMachineClass "no-such-class" not found'


def running_vm(dvp, ns, name):
    dvp.create(R.VIRTUAL_DISK, disk(f"{name}-boot", "1Gi"), ns)
    dvp.create(R.VIRTUAL_MACHINE, vm(name, [f"{name}-boot"]), ns)
    return dvp.wait_for(R.VIRTUAL_MACHINE, name, phase_is("Running"), WAIT, ns)


def test_stop_and_start_operations(dvp, ns, sim, record):
    rec = record(R.VIRTUAL_MACHINE)
    running_vm(dvp, ns, "p")
    dvp.create(R.VIRTUAL_MACHINE_OPERATION, vmop("stop-p", "p", "Stop"), ns)
    stopped = dvp.wait_for(R.VIRTUAL_MACHINE, "p", phase_is("Stopped"), WAIT, ns)
    assert "nodeName" not in stopped["status"]
    assert [r["attached"] for r in stopped["status"]["blockDeviceRefs"]] == [False]
    op = dvp.wait_for(R.VIRTUAL_MACHINE_OPERATION, "stop-p", phase_is("Completed"), WAIT, ns)
    assert condition(op, "Completed")["status"] == "True"
    dvp.create(R.VIRTUAL_MACHINE_OPERATION, vmop("start-p", "p", "Start"), ns)
    dvp.wait_for(R.VIRTUAL_MACHINE, "p", phase_is("Running"), WAIT, ns)
    assert dvp.wait_for(R.VIRTUAL_MACHINE_OPERATION, "start-p", phase_is("Completed"), WAIT, ns)
    assert rec.until("p", 7) == ["Pending", "Starting", "Running", "Stopping", "Stopped", "Starting", "Running"]


def test_restart_operation_goes_through_stopping_and_starting(dvp, ns, sim, record):
    rec = record(R.VIRTUAL_MACHINE)
    running_vm(dvp, ns, "r")
    dvp.create(R.VIRTUAL_MACHINE_OPERATION, vmop("restart-r", "r", "Restart"), ns)
    assert dvp.wait_for(R.VIRTUAL_MACHINE_OPERATION, "restart-r", phase_is("Completed"), WAIT, ns)
    assert rec.until("r", 6) == ["Pending", "Starting", "Running", "Stopping", "Starting", "Running"]


def failed_with(dvp, ns, name: str) -> tuple[str, str, str]:
    done = dvp.wait_for(R.VIRTUAL_MACHINE_OPERATION, name, phase_is("Completed", "Failed", "InProgress"), WAIT, ns)
    cond = condition(done, "Completed")
    return done["status"]["phase"], cond["reason"], cond["message"]


def test_start_of_a_running_vm_fails_as_not_applicable_for_its_phase(dvp, ns, sim):
    running_vm(dvp, ns, "q")
    dvp.create(R.VIRTUAL_MACHINE_OPERATION, vmop("start-q", "q", "Start"), ns)
    assert failed_with(dvp, ns, "start-q") == (
        "Failed", "NotApplicableForVirtualMachinePhase",
        "Operation type Start is not applicable for VirtualMachine in phase Running")


def test_operation_on_a_missing_vm_fails(dvp, ns, sim):
    dvp.create(R.VIRTUAL_MACHINE_OPERATION, vmop("stop-ghost", "ghost", "Stop"), ns)
    assert failed_with(dvp, ns, "stop-ghost") == ("Failed", "VirtualMachineNotFound", "VirtualMachine not found")


def test_stop_of_an_always_on_vm_fails_as_not_applicable_for_its_run_policy(dvp, ns, sim):
    dvp.create(R.VIRTUAL_DISK, disk("on-d", "1Gi"), ns)
    dvp.create(R.VIRTUAL_MACHINE, vm("on", ["on-d"], run_policy="AlwaysOn"), ns)
    dvp.wait_for(R.VIRTUAL_MACHINE, "on", phase_is("Running"), WAIT, ns)
    dvp.create(R.VIRTUAL_MACHINE_OPERATION, vmop("stop-on", "on", "Stop"), ns)
    assert failed_with(dvp, ns, "stop-on") == (
        "Failed", "NotApplicableForVirtualMachineRunPolicy",
        "Operation type Stop is not applicable for VirtualMachine with runPolicy AlwaysOn")
    assert dvp.get(R.VIRTUAL_MACHINE, "on", ns)["status"]["phase"] == "Running"


def test_restart_of_an_always_on_vm_applies(dvp, ns, sim):
    dvp.create(R.VIRTUAL_DISK, disk("on2-d", "1Gi"), ns)
    dvp.create(R.VIRTUAL_MACHINE, vm("on2", ["on2-d"], run_policy="AlwaysOn"), ns)
    dvp.wait_for(R.VIRTUAL_MACHINE, "on2", phase_is("Running"), WAIT, ns)
    dvp.create(R.VIRTUAL_MACHINE_OPERATION, vmop("restart-on2", "on2", "Restart"), ns)
    assert dvp.wait_for(R.VIRTUAL_MACHINE_OPERATION, "restart-on2", phase_is("Completed"), WAIT, ns)


def test_a_new_operation_fails_while_an_earlier_one_is_unfinished_start_never_supersedes_stop(dvp, ns, start_sim):
    start_sim(stuck={"VirtualMachine.Stopping"})
    running_vm(dvp, ns, "busy")
    dvp.create(R.VIRTUAL_MACHINE_OPERATION, vmop("busy-1-stop", "busy", "Stop"), ns)
    dvp.wait_for(R.VIRTUAL_MACHINE, "busy", phase_is("Stopping"), WAIT, ns)
    dvp.create(R.VIRTUAL_MACHINE_OPERATION, vmop("busy-2-start", "busy", "Start"), ns)
    assert failed_with(dvp, ns, "busy-2-start") == (
        "Failed", "NotReadyToBeExecuted", "VMOP cannot be executed now. Previously created operation should finish "
        "first.")
    assert dvp.get(R.VIRTUAL_MACHINE_OPERATION, "busy-1-stop", ns)["status"]["phase"] == "InProgress"


def test_a_stop_during_an_unfinished_start_fails_as_dvp_v1_8_has_no_superseding(dvp, ns, start_sim):
    start_sim(stuck={"VirtualMachine.Starting"})
    dvp.create(R.VIRTUAL_DISK, disk("sup-d", "1Gi"), ns)
    dvp.create(R.VIRTUAL_MACHINE, vm("sup", ["sup-d"], run_policy="Manual"), ns)
    dvp.wait_for(R.VIRTUAL_MACHINE, "sup", phase_is("Stopped"), WAIT, ns)
    dvp.create(R.VIRTUAL_MACHINE_OPERATION, vmop("sup-1-start", "sup", "Start"), ns)
    dvp.wait_for(R.VIRTUAL_MACHINE, "sup", phase_is("Starting"), WAIT, ns)
    dvp.create(R.VIRTUAL_MACHINE_OPERATION, vmop("sup-2-stop", "sup", "Stop"), ns)
    assert failed_with(dvp, ns, "sup-2-stop") == (
        "Failed", "NotReadyToBeExecuted", "VMOP cannot be executed now. Previously created operation should finish "
        "first.")
    assert dvp.get(R.VIRTUAL_MACHINE_OPERATION, "sup-1-start", ns)["status"]["phase"] == "InProgress"


def test_manual_run_policy_vm_stays_stopped_until_started(dvp, ns, sim):
    dvp.create(R.VIRTUAL_DISK, disk("man-d", "1Gi"), ns)
    dvp.create(R.VIRTUAL_MACHINE, vm("manual", ["man-d"], run_policy="Manual"), ns)
    assert dvp.wait_for(R.VIRTUAL_MACHINE, "manual", phase_is("Stopped", "Running"), WAIT, ns)["status"]["phase"] \
        == "Stopped"
    dvp.create(R.VIRTUAL_MACHINE_OPERATION, vmop("go", "manual", "Start"), ns)
    assert dvp.wait_for(R.VIRTUAL_MACHINE, "manual", phase_is("Running"), WAIT, ns)


def test_migrate_moves_a_running_vm_to_another_node(dvp, ns, sim):
    before = running_vm(dvp, ns, "mig")
    source = before["status"]["nodeName"]
    dvp.create(R.VIRTUAL_MACHINE_OPERATION, vmop("migrate-mig", "mig", "Migrate"), ns)
    moving = dvp.wait_for(R.VIRTUAL_MACHINE, "mig", phase_is("Migrating"), WAIT, ns)
    assert moving["status"]["migrationState"]["source"] == {"node": source}
    target = moving["status"]["migrationState"]["target"]["node"]
    assert target != source
    after = dvp.wait_for(R.VIRTUAL_MACHINE, "mig", phase_is("Running"), WAIT, ns)
    assert after["status"]["nodeName"] == target and after["status"]["ipAddress"] == before["status"]["ipAddress"]
    assert after["status"]["migrationState"]["result"] == "Succeeded"
    assert dvp.wait_for(R.VIRTUAL_MACHINE_OPERATION, "migrate-mig", phase_is("Completed"), WAIT, ns)


def test_additional_networks_report_their_addresses(dvp, ns, start_sim):
    start_sim(network_pools={"v6": "fd00:66::/64"})
    dvp.create(R.VIRTUAL_DISK, disk("nets-boot", "1Gi"), ns)
    body = vm("nets", ["nets-boot"])
    body["spec"]["networks"] = [{"type": "Main"}, {"type": "Network", "name": "v6"},
                                {"type": "ClusterNetwork", "name": "no-ipam"}]
    dvp.create(R.VIRTUAL_MACHINE, body, ns)
    running = dvp.wait_for(R.VIRTUAL_MACHINE, "nets", phase_is("Running"), WAIT, ns)
    nets = running["status"]["networks"]
    assert [(n["type"], n["name"], n.get("ipAddress")) for n in nets] == [
        ("Main", "Main", None), ("Network", "v6", nets[1]["ipAddress"]), ("ClusterNetwork", "no-ipam", None)]
    assert ipaddress.ip_address(nets[1]["ipAddress"]) in ipaddress.ip_network("fd00:66::/64")
    assert all(n["macAddress"].startswith("02:") for n in nets)


def awaiting(obj: dict | None) -> bool:
    return obj is not None and any(c["type"] == "AwaitingRestartToApplyConfiguration" and c["status"] == "True"
                                   for c in obj.get("status", {}).get("conditions", []))


def seen(obj: dict | None) -> bool:
    """DVP has processed the object's latest spec."""
    return obj is not None and obj.get("status", {}).get("observedGeneration") == obj["metadata"]["generation"]


SPELLINGS = [  # SimConfig.dvp_api_version -> the reasons of a renamed pair, as that DVP API writes them
    ("v1.8.0", "Running", "ChangesPendingRestart", "NotRunning"),
    ("v1.0.0", "VirtualMachineRunning", "RestartAwaitingChangesExist", "VirtualMachineNotRunning"),
]


@pytest.mark.parametrize(("api", "running", "awaits", "stopped"), SPELLINGS, ids=[s[0] for s in SPELLINGS])
def test_renamed_reasons_are_written_in_the_chosen_dvp_spelling(dvp, ns, start_sim, api, running, awaits, stopped):
    start_sim(dvp_api_version=api)
    running_vm(dvp, ns, "sp")
    assert (condition(dvp.get(R.VIRTUAL_MACHINE, "sp", ns), "Running")["reason"]) == running
    dvp.patch(R.VIRTUAL_MACHINE, "sp", {"spec": {"cpu": {"cores": 2}}}, ns)
    waiting = dvp.wait_for(R.VIRTUAL_MACHINE, "sp", awaiting, WAIT, ns)
    assert condition(waiting, "AwaitingRestartToApplyConfiguration")["reason"] == awaits
    assert condition(waiting, "AgentReady")["reason"] == "AgentReady"  # not renamed: the same in both
    dvp.create(R.VIRTUAL_MACHINE_OPERATION, vmop("sp-stop", "sp", "Stop"), ns)
    off = dvp.wait_for(R.VIRTUAL_MACHINE, "sp", phase_is("Stopped"), WAIT, ns)
    assert condition(off, "Running")["reason"] == stopped


def test_a_change_that_needs_a_restart_waits_for_one_under_manual_approval(dvp, ns, sim, record):
    rec = record(R.VIRTUAL_MACHINE)
    before = running_vm(dvp, ns, "man-cfg")
    assert before["spec"]["disruptions"] == {"restartApprovalMode": "Manual"}  # DVP's default
    assert before["status"]["resources"] == {"cpu": {"cores": 1, "coreFraction": "100%"}, "memory": {"size": "1Gi"}}

    # A field DVP applies without a restart: nothing waits.
    dvp.patch(R.VIRTUAL_MACHINE, "man-cfg", {"spec": {"liveMigrationPolicy": "AlwaysSafe"}}, ns)
    calm = dvp.wait_for(R.VIRTUAL_MACHINE, "man-cfg", seen, WAIT, ns)
    assert not awaiting(calm) and "restartAwaitingChanges" not in calm["status"]

    dvp.patch(R.VIRTUAL_MACHINE, "man-cfg", {"spec": {"cpu": {"cores": 2}}}, ns)
    waiting = dvp.wait_for(R.VIRTUAL_MACHINE, "man-cfg", awaiting, WAIT, ns)
    assert waiting["status"]["phase"] == "Running"
    assert waiting["status"]["resources"]["cpu"]["cores"] == 1  # still what it was started with
    assert waiting["status"]["restartAwaitingChanges"] == [
        {"operation": "replace", "path": "cpu.cores", "currentValue": 1, "desiredValue": 2}]
    cond = condition(waiting, "AwaitingRestartToApplyConfiguration")
    assert (cond["reason"], cond["message"]) == (
        "ChangesPendingRestart", "Waiting for the user to restart in order to apply the configuration changes.")
    applied = condition(waiting, "ConfigurationApplied")
    assert (applied["status"], applied["reason"]) == ("False", "ConfigurationNotApplied")

    # The user's restart applies it.
    dvp.create(R.VIRTUAL_MACHINE_OPERATION, vmop("man-cfg-restart", "man-cfg", "Restart"), ns)
    assert dvp.wait_for(R.VIRTUAL_MACHINE_OPERATION, "man-cfg-restart", phase_is("Completed"), WAIT, ns)
    done = dvp.wait_for(R.VIRTUAL_MACHINE, "man-cfg", lambda o: phase_is("Running")(o) and not awaiting(o)
                        and o["status"]["resources"]["cpu"]["cores"] == 2, WAIT, ns)
    assert {c["type"] for c in done["status"]["conditions"]} & {
        "AwaitingRestartToApplyConfiguration", "ConfigurationApplied"} == set()
    assert "restartAwaitingChanges" not in done["status"]
    assert rec.until("man-cfg", 6) == ["Pending", "Starting", "Running", "Stopping", "Starting", "Running"]


def test_automatic_approval_restarts_the_vm_to_apply_the_change(dvp, ns, start_sim, record):
    start_sim(latency={"VirtualMachine.Stopping": 1.0})  # long enough to read the VM while it stops
    rec = record(R.VIRTUAL_MACHINE)
    dvp.create(R.VIRTUAL_DISK, disk("auto-d", "1Gi"), ns)
    dvp.create(R.VIRTUAL_DISK, disk("auto-e", "1Gi"), ns)
    body = vm("auto", ["auto-d"])
    body["spec"]["disruptions"] = {"restartApprovalMode": "Automatic"}
    dvp.create(R.VIRTUAL_MACHINE, body, ns)
    dvp.wait_for(R.VIRTUAL_MACHINE, "auto", phase_is("Running"), WAIT, ns)

    dvp.patch(R.VIRTUAL_MACHINE, "auto", {"spec": {"memory": {"size": "2Gi"}, "blockDeviceRefs": [
        {"kind": "VirtualDisk", "name": "auto-d"}, {"kind": "VirtualDisk", "name": "auto-e"}]}}, ns)
    stopping = dvp.wait_for(R.VIRTUAL_MACHINE, "auto", phase_is("Stopping"), WAIT, ns)
    assert awaiting(stopping)
    assert [c["path"] for c in stopping["status"]["restartAwaitingChanges"]] == ["memory.size", "blockDeviceRefs"]
    done = dvp.wait_for(R.VIRTUAL_MACHINE, "auto", lambda o: phase_is("Running")(o) and not awaiting(o), WAIT, ns)
    assert done["status"]["resources"]["memory"] == {"size": "2Gi"}
    assert [r["name"] for r in done["status"]["blockDeviceRefs"]] == ["auto-d", "auto-e"]
    assert "restartAwaitingChanges" not in done["status"]
    assert rec.until("auto", 6) == ["Pending", "Starting", "Running", "Stopping", "Starting", "Running"]


ZONE = "topology.kubernetes.io/zone"
ZONED = {"dvp-node-1": {ZONE: "zone-a"}, "dvp-node-2": {ZONE: "zone-b"}, "dvp-node-3": {ZONE: "zone-c"}}


def _zoned_vm(dvp, ns, name, zone):
    dvp.create(R.VIRTUAL_DISK, disk(f"{name}-d", "1Gi"), ns)
    body = vm(name, [f"{name}-d"])
    body["spec"]["nodeSelector"] = {ZONE: zone}
    dvp.create(R.VIRTUAL_MACHINE, body, ns)


def test_a_vm_runs_only_on_a_node_its_node_selector_matches(dvp, ns, start_sim):
    start_sim(node_labels=ZONED)
    for name, zone in (("in-b", "zone-b"), ("in-c", "zone-c"), ("nowhere", "zone-x")):
        _zoned_vm(dvp, ns, name, zone)
    for name, node in (("in-b", "dvp-node-2"), ("in-c", "dvp-node-3")):
        assert dvp.wait_for(R.VIRTUAL_MACHINE, name, phase_is("Running"), WAIT, ns)["status"]["nodeName"] == node
    stuck = dvp.wait_for(R.VIRTUAL_MACHINE, "nowhere", lambda o: any(
        c["type"] == "Running" and c["reason"] == "PodNotStarted" for c in (o.get("status") or {}).get(
            "conditions") or []), WAIT, ns)
    assert stuck["status"]["phase"] == "Pending"
    assert condition(stuck, "Running")["message"] == (
        "0/3 nodes are available: node(s) didn't match Pod's node affinity/selector")


def test_a_running_vm_reports_its_guest_agent_and_that_it_can_migrate(dvp, ns, start_sim):
    start_sim()
    dvp.create(R.VIRTUAL_DISK, disk("ok-d", "1Gi"), ns)
    dvp.create(R.VIRTUAL_MACHINE, vm("ok", ["ok-d"]), ns)
    running = dvp.wait_for(R.VIRTUAL_MACHINE, "ok", phase_is("Running"), WAIT, ns)
    assert (condition(running, "AgentReady")["status"], condition(running, "AgentReady")["reason"]) == (
        "True", "AgentReady")
    assert (condition(running, "Migratable")["status"], condition(running, "Migratable")["reason"]) == (
        "True", "VirtualMachineMigratable")


def test_a_guest_without_an_agent_runs_with_agent_ready_false(dvp, ns, start_sim):
    start_sim(guest_agent=False)
    dvp.create(R.VIRTUAL_DISK, disk("mute-d", "1Gi"), ns)
    dvp.create(R.VIRTUAL_MACHINE, vm("mute", ["mute-d"]), ns)
    running = dvp.wait_for(R.VIRTUAL_MACHINE, "mute", phase_is("Running"), WAIT, ns)
    agent = condition(running, "AgentReady")
    assert (agent["status"], agent["reason"], agent["message"]) == ("False", "AgentNotReady",
                                                                    "guest agent is not connected")
