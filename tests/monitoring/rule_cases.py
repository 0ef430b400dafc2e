# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""Synthetic series for each alert: the failure it describes (it must fire, with these labels) and the healthy
state (it must stay silent). Every series is sampled each minute; promtool evaluates at EVAL."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

NS = "d8-cloud-provider-dvp"
EVAL = "30m"
CREDENTIALS_MISSING = {"series": "d8_cloud_provider_dvp_credentials_missing", "values": "1x30"}


@dataclass(frozen=True)
class Case:
    failing: list[dict]  # input series of the failure
    healthy: list[dict]  # input series of the healthy state (several healthy states: several lists)
    labels: dict[str, str] = field(default_factory=dict)  # the alert's labels besides the rule's own
    also_silent: tuple[tuple[str, list[dict]], ...] = ()  # (why, series) it must stay silent on too


def s(name: str, values: str, **labels: str) -> dict:
    inner = ", ".join(f'{k}="{v}"' for k, v in {"namespace": NS, **labels}.items())
    return {"series": f"{name}{{{inner}}}", "values": values}


def g(name: str, values: str) -> dict:  # a hook's metric: no namespace (the hooks' own job)
    return {"series": name, "values": values}


def _availability(deployment: str) -> dict[str, Case]:
    up = "kube_deployment_status_replicas_available"
    return {
        "Down": Case([s(up, "0x30", deployment=deployment)], [s(up, "1x30", deployment=deployment)]),
        "Absent": Case([s("kube_deployment_status_replicas_available", "1x30", deployment="another")],
                       [s(up, "1x30", deployment=deployment)], {"namespace": NS, "deployment": deployment}),
    }


def cases(rules: list[dict]) -> dict[str, Case]:
    """A case for every alert of the rendered rules (the availability pairs from the Deployment each names)."""
    out = {
        "D8CloudProviderDVPMigrationPending": Case([g("d8_cloud_provider_dvp_migration_pending", "1x30")],
                                                   [g("d8_cloud_provider_dvp_migration_pending", "0x30")]),
        "D8CloudProviderDVPCredentialsMissing": Case([CREDENTIALS_MISSING],
                                                     [g("d8_cloud_provider_dvp_credentials_missing", "0x30")]),
        "D8CloudProviderDVPDefaultStorageClassDrifted": Case(
            [g('d8_cloud_provider_dvp_default_storage_class_drifted{actual="fast", expected="thin"}', "1x30")],
            [g('d8_cloud_provider_dvp_default_storage_class_drifted{actual="thin", expected="thin"}', "0x30")],
            {"actual": "fast", "expected": "thin"}),
        "D8CloudProviderDVPCSINodeUnavailable": Case(
            [s("kube_daemonset_status_number_unavailable", "1x30", daemonset="csi-node")],
            [s("kube_daemonset_status_number_unavailable", "0x30", daemonset="csi-node")]),
        # pending since 16 minutes at the start and still not attached; healthy: attached within a minute or two
        "D8CloudProviderDVPAttachmentStuck": Case(
            [s("dvp_csi_attachment_pending_seconds", "960+60x30", vmbda="pvc-1", volume="pvc-1", vm="w-0",
               phase="InProgress")],
            [s("dvp_csi_attachment_pending_seconds", "0 60 120 stale", vmbda="pvc-1", volume="pvc-1", vm="w-0",
               phase="InProgress")],
            {"vmbda": "pvc-1", "volume": "pvc-1", "vm": "w-0", "phase": "InProgress"}),
        "D8CloudProviderDVPVolumeAbnormal": Case(
            [s("dvp_csi_volume_abnormal", "1x30", volume="pvc-2", phase="PVCLost", reason="Lost")],
            [s("dvp_csi_volume_abnormal", "1 1 stale", volume="pvc-2", phase="PVCLost", reason="Lost")],
            {"volume": "pvc-2", "phase": "PVCLost", "reason": "Lost"}),
        "D8CloudProviderDVPCloudDiscoveryRoundFailed": Case(
            [s("cloud_data_discovery_round_error", "1x30")], [s("cloud_data_discovery_round_error", "0x30")],
            also_silent=(("the credentials are missing", [s("cloud_data_discovery_round_error", "1x30"),
                                                          CREDENTIALS_MISSING]),)),
        "D8CloudProviderDVPCloudDiscoveryRequestFailed": Case(
            [s("cloud_data_discovery_cloud_request_error", "1x30", type="conditions")],
            [s("cloud_data_discovery_cloud_request_error", "0x30", type="conditions")], {"type": "conditions"}),
        "D8CloudProviderDVPCloudDataDiscovererNotReady": Case(
            [s("kube_pod_status_ready", "1x30", pod="cloud-data-discoverer-7d9f", condition="false"),
             s("cloud_data_discovery_round_error", "0x30")],
            [s("kube_pod_status_ready", "0x30", pod="cloud-data-discoverer-7d9f", condition="false"),
             s("cloud_data_discovery_round_error", "0x30")],
            also_silent=(("a failed round says why", [
                s("kube_pod_status_ready", "1x30", pod="cloud-data-discoverer-7d9f", condition="false"),
                s("cloud_data_discovery_round_error", "1x30")]),)),
    }
    for rule in rules:
        found = re.search(r'deployment="([^"]+)"', rule["expr"])
        kind = re.match(r"D8CloudProviderDVP\w+(Down|Absent)$", rule.get("alert", ""))
        if found and kind:
            case = _availability(found.group(1))[kind.group(1)]
            if kind.group(1) == "Down" and "credentials_missing" in rule["expr"]:
                case = Case(case.failing, case.healthy, case.labels,
                            (("the credentials are missing (their alert fires instead)",
                              [*case.failing, CREDENTIALS_MISSING]),))
            out[rule["alert"]] = case
    return out
