# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""Every condition type, reason and phase we write, document or compare with is DVP's own (the constants of DVP's
pinned API module, v1.8.0, and v1.0.0 for the renamed spellings), or a newer DVP release's named in
testkit.dvp_conditions.NEWER; and the dvp_common table matches DVP both ways (testkit/dvp_conditions.py)."""

from __future__ import annotations

from pathlib import Path

import pytest
from dvp_common.dvp import conditions as D

from testkit import dvp_conditions as K


@pytest.fixture(scope="module")
def checker() -> K.Checker:
    return K.Checker(K.load(D.API_VERSION), K.load(D.OLD_API_VERSION))


def test_every_condition_string_of_ours_is_dvps():
    report = K.run()
    assert report.problems == []
    assert report.checked > 500  # the table, the simulator, CONTRACT.md, components, hooks and candi were read


def test_the_go_constants_are_read_with_their_types():
    text = '''package vdcondition
type Type string
const (
\tReadyType Type = "Ready"
\t// a comment
\tInProgress ResizedReason = "InProgress"
)
const (
\tResizingNotAvailable SnapshottingReason = "NotAvailable"
)
'''
    assert K.parse_go_consts(text) == [("ReadyType", "Type", "Ready"), ("InProgress", "ResizedReason", "InProgress"),
                                       ("ResizingNotAvailable", "SnapshottingReason", "NotAvailable")]


def test_the_pinned_modules_hold_the_renames(checker):
    assert checker.new.consts["vmcondition"]["ReasonVirtualMachineRunning"] == "Running"
    assert checker.old.consts["vmcondition"]["ReasonVmIsRunning"] == "VirtualMachineRunning"
    assert "VMOPPhase" not in checker.new.phases and "Superseded" not in checker.new.phases
    assert D.renamed() == {
        "VirtualMachineRunning": "Running", "VirtualMachineNotRunning": "NotRunning", "PodNotExists": "PodNotFound",
        "VirtalMachineClassNotExists": "VirtualMachineClassNotFound",
        "RestartAwaitingChangesExist": "ChangesPendingRestart",
        "RestartAwaitingVMClassChangesExist": "ChangesPendingRestart", "NoNeedRestart": "NoRestartRequired",
        "VirtualMachineNotMigratable": "VirtualMachineNonMigratable"}


@pytest.mark.parametrize(("found", "problem"), [
    (K.Found("sim/domain/vms.py:1", "reason", "NotFound", "VirtualMachineClassReady"),
     "sim/domain/vms.py:1: VirtualMachineClassReady reason 'NotFound' is not DVP v1.8.0's"),
    (K.Found("sim/domain/disks.py:2", "reason", "QuotaExceeded", "Resizing"),
     "sim/domain/disks.py:2: Resizing reason 'QuotaExceeded' is not DVP v1.8.0's"),
    (K.Found("CONTRACT.md:3", "type", "Ready2"), "CONTRACT.md:3: condition type 'Ready2' is not DVP v1.8.0's"),
    (K.Found("x.py:4", "reason", "VirtualMachineRunning", "Running"),
     "x.py:4: Running reason 'VirtualMachineRunning' is not DVP v1.8.0's"),
    (K.Found("x.py:5", "phase", "Vanished"), "x.py:5: phase 'Vanished' is no DVP v1.8.0 phase"),
    (K.Found("x.tf:6", "any", "StorageClassIsGone"),
     "x.tf:6: 'StorageClassIsGone' is no DVP v1.8.0 condition type, reason or phase"),
])
def test_a_planted_string_dvp_does_not_define_fails(checker, found, problem):
    assert checker.check([found]).problems == [problem]


def test_newer_releases_strings_pass_only_from_the_named_list(checker):
    assert checker.check([K.Found("a", "phase", "Superseded"),
                          K.Found("b", "reason", "StorageClassProvisionerMismatch", "Ready")]).problems == []
    assert K.NEWER == {
        "Superseded": "DVP v1.10 (VMOP phase and Completed reason)",
        "StorageClassProvisionerMismatch": "DVP v1.9.6 (VirtualDisk Ready reason)",
        "ProvisioningFailedTerminally": "DVP main after v1.10.2 (VirtualDisk Ready reason)"}


def test_a_planted_simulator_write_and_contract_row_are_found(tmp_path: Path, checker):
    (tmp_path / "CONTRACT.md").write_text(
        "| C1 | a disk `Ready=False/DiskIsSad` and `Running=True/Running` |\n"
        "| VirtualDisk | `Resizing` | `NotAvailable` | `vdcondition.ResizingNotAvailable` | capacity |\n"
        "| VirtualDisk | `Resizing` | `InProgress` | `vdcondition.Resized` | progress |\n")
    found = list(K.contract_strings(tmp_path / "CONTRACT.md"))
    assert checker.check(found).problems == [
        "CONTRACT.md:1: Ready reason 'DiskIsSad' is not DVP v1.8.0's",
        "CONTRACT.md:3: DVP v1.8.0's vdcondition.Resized is not 'InProgress'"]
    tf = tmp_path / "candi" / "terraform-modules" / "m"
    tf.mkdir(parents=True)
    (tf / "main.tf").write_text('locals {\n  stuck_reasons = [\n    "QuotaExceeded",\n    "DiskIsSad",\n  ]\n}\n')
    assert checker.check(K.candi_strings(tmp_path)).problems == [
        "candi/terraform-modules/m/main.tf:2: 'DiskIsSad' is no DVP v1.8.0 condition type, reason or phase"]


def test_a_table_entry_dvp_does_not_define_fails(checker, monkeypatch):
    bad = D.ConditionType(D.VD, "vdcondition", "Resizing", "ResizingType",
                          (D.Reason("Resized", "Resized", D.Meaning.PROGRESS),
                           D.Reason("NotAvailable", "ResizingNotAvailable", D.Meaning.CAPACITY, old=("Unavailable",))))
    monkeypatch.setattr(D, "TYPES", (bad,))
    assert checker.table().problems == [
        "VirtualDisk Resizing reason 'Resized': is not vdcondition.Resized",
        "VirtualDisk Resizing reason 'NotAvailable': its old spelling 'Unavailable' is not DVP v1.0.0's"]


@pytest.mark.parametrize(("ctype", "reason"), [(t, r) for t in D.TYPES for r in t.reasons if r.old],
                         ids=lambda x: x.value if hasattr(x, "value") else str(x))
def test_a_renamed_reason_is_read_in_every_spelling_and_written_in_the_asked_one(ctype, reason):
    for spelling in reason.spellings:
        cond = {"type": ctype.value, "status": "False", "reason": spelling}
        assert D.is_reason(cond, ctype, reason.value) and D.meaning(cond, ctype) == reason.meaning
    assert D.spelled(reason, "v1.8.0") == reason.value
    assert D.spelled(reason, "v1.0.0") == reason.old[0]


def test_a_condition_is_judged_by_type_status_and_reason_only():
    cond = {"type": "Resizing", "status": "False", "reason": "NotAvailable", "message": "QuotaExceeded"}
    assert D.is_reason(cond, D.VD_RESIZING, "NotAvailable", status="False")
    assert not D.is_reason(cond, D.VD_RESIZING, "NotAvailable", status="True")
    assert not D.is_reason({**cond, "type": "Ready"}, D.VD_RESIZING, "NotAvailable")
    assert D.meaning(cond, D.VD_RESIZING) == D.Meaning.CAPACITY
    assert D.meaning({**cond, "reason": "Unknown"}, D.VD_RESIZING) is None
    with pytest.raises(KeyError, match="VirtualDisk Resizing: DVP defines no reason 'QuotaExceeded'"):
        D.is_reason(cond, D.VD_RESIZING, "QuotaExceeded")


def test_a_planted_component_comparison_is_found(tmp_path: Path, checker):
    module = tmp_path / "csi" / "dvp_csi" / "planted.py"
    module.parent.mkdir(parents=True)
    module.write_text('DVP_SAD = "DiskIsSad"\n'
                      'def f(vm):\n'
                      '    return condition(vm, "Runing") or vm.get("reason") in ("PodNotStarted", "PodIsSad")\n')
    assert checker.check(K.component_strings(tmp_path)).problems == [
        "csi/dvp_csi/planted.py:1: 'DiskIsSad' is no DVP v1.8.0 condition type, reason or phase",
        "csi/dvp_csi/planted.py:3: condition type 'Runing' is not DVP v1.8.0's",
        "csi/dvp_csi/planted.py:3: 'PodIsSad' is no DVP v1.8.0 condition type, reason or phase"]


def test_a_reason_dvp_gives_a_tabled_type_and_the_table_lacks_is_reported(checker, monkeypatch):
    short = D.ConditionType(D.VM, "vmcondition", "AgentReady", "TypeAgentReady",
                            (D.Reason("AgentReady", "ReasonAgentReady", D.Meaning.PROGRESS),
                             D.Reason("Running", "ReasonVirtualMachineRunning", D.Meaning.PROGRESS)),
                            "AgentReadyReason")
    monkeypatch.setattr(D, "TYPES", (short,))
    problems = checker.table().problems
    assert problems[:2] == [
        "VirtualMachine AgentReady: DVP's vmcondition.ReasonAgentNotReady ('AgentNotReady') is missing from the table",
        "VirtualMachine AgentReady reason 'Running': DVP types it RunningReason, not AgentReadyReason"]
    # and with the renames gone from the table, each v1.0.0 spelling is reported as lost
    assert problems[2] == ("vmcondition: v1.0.0's ReasonNotMigratable ('VirtualMachineNotMigratable') is gone in "
                           "v1.8.0: give the table its new spelling (`old`) or list it in GONE")
    assert len(problems) == 2 + 8  # the 8 v1.0.0 spellings of the real table
