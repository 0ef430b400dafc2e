# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""The module's alerts, checked and exercised by promtool (tools/promtool): the rendered rule groups must pass
`promtool check rules`, and each alert must fire exactly when its condition has held long enough."""

from __future__ import annotations

import re
import subprocess

import pytest
import yaml
from chart.render import NAMESPACE, ROOT

from testkit.harness.objects import find

PROMTOOL = ROOT / ".bin" / "promtool"


def promtool(*args: str, cwd) -> subprocess.CompletedProcess:
    if not PROMTOOL.exists():
        pytest.fail("promtool is not built (.bin/promtool missing): run `make tools` (tools/build promtool)")
    return subprocess.run([str(PROMTOOL), *args], cwd=cwd, capture_output=True, text=True, check=False)


RULE_FILES = ["availability", "configuration", "discovery", "storage"]  # monitoring/prometheus-rules/<name>.tpl


@pytest.fixture(scope="module")
def rules(rendered) -> list[dict]:
    """The groups of every PrometheusRule of the module (one per rule file)."""
    return [g for name in RULE_FILES
            for g in find(rendered("defaults"), "PrometheusRule", f"cloud-provider-dvp-{name}", NAMESPACE)["spec"][
                "groups"]]


def test_one_prometheus_rule_per_rule_file_holding_its_group(rendered):
    files = sorted(p.name for p in (ROOT / "monitoring" / "prometheus-rules").iterdir())
    assert files == [f"{name}.tpl" for name in RULE_FILES]
    objects = [o for o in rendered("defaults") if o["kind"] == "PrometheusRule"]
    assert [o["metadata"] for o in objects] == [
        {"name": f"cloud-provider-dvp-{name}", "namespace": NAMESPACE,
         "labels": {"heritage": "deckhouse", "module": "cloud-provider-dvp", "app": "prometheus",
                    "component": "rules", "prometheus": "main"}} for name in RULE_FILES]
    assert [[g["name"] for g in o["spec"]["groups"]] for o in objects] == [
        [f"d8.cloud-provider-dvp.{name}"] for name in RULE_FILES]


def _rule(rules, alert: str) -> dict:
    return next(r for g in rules for r in g["rules"] if r.get("alert") == alert)


def _expected(rule: dict, labels: dict[str, str]) -> dict:
    """The alert promtool should report: the rule's labels plus the series labels, annotations with $labels filled."""
    def fill(text: str) -> str:
        return re.sub(r"\{\{ \$labels\.(\w+) \}\}", lambda m: labels.get(m.group(1), ""), text)
    return {"exp_labels": {**labels, **rule["labels"]},
            "exp_annotations": {k: fill(v) for k, v in rule["annotations"].items()}}


def test_rendered_rules_pass_promtool_check(rules, tmp_path):
    (tmp_path / "rules.yaml").write_text(yaml.safe_dump({"groups": rules}))
    proc = promtool("check", "rules", "rules.yaml", cwd=tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "SUCCESS" in proc.stdout


def test_alerts_fire_when_their_condition_holds(rules, tmp_path):
    available = 'kube_deployment_status_replicas_available{namespace="%s",deployment="%s"}'
    present = ["cloud-controller-manager", "capdvp-controller-manager", "cloud-data-discoverer", "validation-webhook",
               "snapshot-controller", "snapshot-webhooks"]
    series = [
        {"series": "d8_cloud_provider_dvp_migration_pending", "values": "0 0 1x20"},
        {"series": 'd8_cloud_provider_dvp_default_storage_class_drifted{actual="ceph-rbd",expected="linstor-thin-r2"}',
         "values": "1x30"},
        {"series": available % (NAMESPACE, "csi-controller"), "values": "1 1 0x30"},
        *({"series": available % (NAMESPACE, d), "values": "1x30"} for d in present if d != "validation-webhook"),
        # validation-webhook has no kube-state-metrics series at all: the Absent alert's case.
    ]
    drift = _rule(rules, "D8CloudProviderDVPDefaultStorageClassDrifted")
    tests = [{
        "interval": "1m",
        "input_series": series,
        "alert_rule_test": [
            # pending from minute 2, `for: 1m`
            {"eval_time": "2m", "alertname": "D8CloudProviderDVPMigrationPending", "exp_alerts": []},
            {"eval_time": "4m", "alertname": "D8CloudProviderDVPMigrationPending",
             "exp_alerts": [_expected(_rule(rules, "D8CloudProviderDVPMigrationPending"), {})]},
            # drifted from minute 0, `for: 10m`
            {"eval_time": "9m", "alertname": "D8CloudProviderDVPDefaultStorageClassDrifted", "exp_alerts": []},
            {"eval_time": "11m", "alertname": "D8CloudProviderDVPDefaultStorageClassDrifted",
             "exp_alerts": [_expected(drift, {"actual": "ceph-rbd", "expected": "linstor-thin-r2"})]},
            # csi-controller without replicas from minute 2, `for: 5m`
            {"eval_time": "6m", "alertname": "D8CloudProviderDVPCSIControllerDown", "exp_alerts": []},
            {"eval_time": "8m", "alertname": "D8CloudProviderDVPCSIControllerDown",
             "exp_alerts": [_expected(_rule(rules, "D8CloudProviderDVPCSIControllerDown"), {})]},
            {"eval_time": "20m", "alertname": "D8CloudProviderDVPCloudControllerManagerDown", "exp_alerts": []},
            # absent from the start, `for: 15m`; present Deployments never raise it
            {"eval_time": "14m", "alertname": "D8CloudProviderDVPValidationWebhookAbsent", "exp_alerts": []},
            {"eval_time": "16m", "alertname": "D8CloudProviderDVPValidationWebhookAbsent",
             "exp_alerts": [_expected(_rule(rules, "D8CloudProviderDVPValidationWebhookAbsent"),
                                      {"namespace": NAMESPACE, "deployment": "validation-webhook"})]},
            {"eval_time": "20m", "alertname": "D8CloudProviderDVPCSIControllerAbsent", "exp_alerts": []},
        ],
    }]
    (tmp_path / "rules.yaml").write_text(yaml.safe_dump({"groups": rules}))
    (tmp_path / "test.yaml").write_text(yaml.safe_dump({
        "rule_files": ["rules.yaml"], "evaluation_interval": "1m", "tests": tests}))
    proc = promtool("test", "rules", "test.yaml", cwd=tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_missing_credentials_raise_their_alert_and_silence_the_components_waiting_for_them(rules, tmp_path):
    available = 'kube_deployment_status_replicas_available{namespace="%s",deployment="%s"}'
    series = [
        {"series": "d8_cloud_provider_dvp_credentials_missing", "values": "1x10 0x20"},
        {"series": available % (NAMESPACE, "csi-controller"), "values": "0x10 0x20"},
        {"series": available % (NAMESPACE, "validation-webhook"), "values": "0x30"},
    ]
    missing = _rule(rules, "D8CloudProviderDVPCredentialsMissing")
    tests = [{
        "interval": "1m",
        "input_series": series,
        "alert_rule_test": [
            # missing from minute 0, `for: 5m`
            {"eval_time": "4m", "alertname": "D8CloudProviderDVPCredentialsMissing", "exp_alerts": []},
            {"eval_time": "6m", "alertname": "D8CloudProviderDVPCredentialsMissing",
             "exp_alerts": [_expected(missing, {})]},
            # the CSI controller waits for the credentials: no alert of its own while they are missing
            {"eval_time": "9m", "alertname": "D8CloudProviderDVPCSIControllerDown", "exp_alerts": []},
            # the validation webhook needs none: its alert is not silenced
            {"eval_time": "9m", "alertname": "D8CloudProviderDVPValidationWebhookDown",
             "exp_alerts": [_expected(_rule(rules, "D8CloudProviderDVPValidationWebhookDown"), {})]},
            # credentials there from minute 11 and the controller still down 5m later: now it is its own problem
            {"eval_time": "17m", "alertname": "D8CloudProviderDVPCredentialsMissing", "exp_alerts": []},
            {"eval_time": "17m", "alertname": "D8CloudProviderDVPCSIControllerDown",
             "exp_alerts": [_expected(_rule(rules, "D8CloudProviderDVPCSIControllerDown"), {})]},
        ],
    }]
    (tmp_path / "rules.yaml").write_text(yaml.safe_dump({"groups": rules}))
    (tmp_path / "test.yaml").write_text(yaml.safe_dump({
        "rule_files": ["rules.yaml"], "evaluation_interval": "1m", "tests": tests}))
    proc = promtool("test", "rules", "test.yaml", cwd=tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def _promtool_test(rules, tmp_path, tests: list[dict]) -> None:
    (tmp_path / "rules.yaml").write_text(yaml.safe_dump({"groups": rules}))
    (tmp_path / "test.yaml").write_text(yaml.safe_dump({
        "rule_files": ["rules.yaml"], "evaluation_interval": "1m", "tests": tests}))
    proc = promtool("test", "rules", "test.yaml", cwd=tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_discovery_alerts_read_metrics_the_discoverer_exports(rules):
    from cloud_data_discoverer.metrics import Metrics

    exported = {family.name for family in Metrics().registry.collect()}
    used = {name for g in rules for r in g["rules"] for name in re.findall(r"cloud_data_discovery_\w+", r["expr"])}
    assert used == {"cloud_data_discovery_round_error", "cloud_data_discovery_cloud_request_error"}
    assert used <= exported
    # other providers' discoverers export the same names: every expression keeps to our namespace
    for g in rules:
        for r in g["rules"]:
            for selector in re.findall(r"cloud_data_discovery_\w+(\{[^}]*\})?", r["expr"]):
                assert f'namespace="{NAMESPACE}"' in selector, r["alert"]


def test_the_discoverer_is_scraped_while_unready(rendered):
    monitor = find(rendered("defaults"), "PodMonitor", "cloud-data-discoverer", "d8-monitoring")
    endpoint, = monitor["spec"]["podMetricsEndpoints"]
    assert endpoint["relabelings"] == [{"targetLabel": "tier", "replacement": "cluster"}]


def test_discovery_alerts_fire_on_failed_rounds(rules, tmp_path):
    ours, theirs = f'namespace="{NAMESPACE}"', 'namespace="d8-cloud-provider-other"'
    failed = _rule(rules, "D8CloudProviderDVPCloudDiscoveryRoundFailed")
    request = _rule(rules, "D8CloudProviderDVPCloudDiscoveryRequestFailed")
    series = [
        # our discoverer fails from minute 2 (DVP unreachable: unready, discovery_data unread)
        {"series": f"cloud_data_discovery_round_error{{{ours},pod=\"cloud-data-discoverer-1\"}}", "values": "0 0 1x30"},
        {"series": f"cloud_data_discovery_cloud_request_error{{{ours},type=\"discovery_data\"}}",
         "values": "0 0 1x30"},
        {"series": f"cloud_data_discovery_cloud_request_error{{{ours},type=\"conditions\"}}", "values": "0x32"},
        {"series": f"kube_pod_status_ready{{{ours},pod=\"cloud-data-discoverer-1\",condition=\"false\"}}",
         "values": "0 0 1x30"},
        # another provider's discoverer fails from minute 0: none of our alerts
        {"series": f"cloud_data_discovery_round_error{{{theirs}}}", "values": "1x32"},
        {"series": f"cloud_data_discovery_cloud_request_error{{{theirs},type=\"instance_types\"}}", "values": "1x32"},
    ]
    _promtool_test(rules, tmp_path, [{"interval": "1m", "input_series": series, "alert_rule_test": [
        # `for: 10m` from minute 2
        {"eval_time": "11m", "alertname": "D8CloudProviderDVPCloudDiscoveryRoundFailed", "exp_alerts": []},
        {"eval_time": "11m", "alertname": "D8CloudProviderDVPCloudDiscoveryRequestFailed", "exp_alerts": []},
        {"eval_time": "13m", "alertname": "D8CloudProviderDVPCloudDiscoveryRoundFailed",
         "exp_alerts": [_expected(failed, {})]},
        {"eval_time": "13m", "alertname": "D8CloudProviderDVPCloudDiscoveryRequestFailed",
         "exp_alerts": [_expected(request, {"type": "discovery_data"})]},
        # unready because of the failed round: the round's alert says it, not this one
        {"eval_time": "20m", "alertname": "D8CloudProviderDVPCloudDataDiscovererNotReady", "exp_alerts": []},
    ]}])


def test_discoverer_unready_without_a_failed_round_has_its_own_alert(rules, tmp_path):
    ours = f'namespace="{NAMESPACE}"'
    not_ready = _rule(rules, "D8CloudProviderDVPCloudDataDiscovererNotReady")
    ready = f"kube_pod_status_ready{{{ours},pod=\"cloud-data-discoverer-1\",condition=\"false\"}}"
    unscraped = [{"series": ready, "values": "1x30"}]  # not ready from minute 0, no discoverer metrics at all
    hung = [{"series": ready, "values": "1x30"},  # its first round never ends: not ready, no error reported
            {"series": f"cloud_data_discovery_round_error{{{ours}}}", "values": "0x30"}]
    waiting = [*hung, {"series": "d8_cloud_provider_dvp_credentials_missing", "values": "1x30"}]
    cases = [(unscraped, [_expected(not_ready, {})]), (hung, [_expected(not_ready, {})]), (waiting, [])]
    _promtool_test(rules, tmp_path, [{"interval": "1m", "input_series": series, "alert_rule_test": [
        {"eval_time": "9m", "alertname": "D8CloudProviderDVPCloudDataDiscovererNotReady", "exp_alerts": []},
        {"eval_time": "11m", "alertname": "D8CloudProviderDVPCloudDataDiscovererNotReady", "exp_alerts": alerts},
    ]} for series, alerts in cases])


def test_storage_alerts_read_metrics_the_csi_controller_exports(rules):
    from dvp_csi import metrics

    exported = {s.name for family in metrics.REGISTRY.collect() for s in family.samples} | {
        family.name for family in metrics.REGISTRY.collect()}
    used = {name for g in rules for r in g["rules"] for name in re.findall(r"dvp_csi_\w+", r["expr"])}
    assert used == {"dvp_csi_attachment_pending_seconds", "dvp_csi_volume_abnormal"}
    assert used <= exported


def test_storage_alerts_fire_on_stuck_attachments_and_lost_volumes(rules, tmp_path):
    ours = f'namespace="{NAMESPACE}"'
    stuck = _rule(rules, "D8CloudProviderDVPAttachmentStuck")
    abnormal = _rule(rules, "D8CloudProviderDVPVolumeAbnormal")
    att = 'vmbda="vmbda-pvc-1-vm-0",volume="pvc-1",vm="vm-0",phase="Pending"'
    lost = 'volume="pvc-2",phase="PVCLost",reason="PVCLost"'
    series = [
        # pending from minute 0 (age grows 60 s a minute), seen by both controller replicas
        {"series": f"dvp_csi_attachment_pending_seconds{{{ours},pod=\"csi-controller-a\",{att}}}",
         "values": "0+60x30"},
        {"series": f"dvp_csi_attachment_pending_seconds{{{ours},pod=\"csi-controller-b\",{att}}}",
         "values": "0+60x30"},
        # another attachment, attached after 10 minutes: never stuck
        {"series": f"dvp_csi_attachment_pending_seconds{{{ours},pod=\"csi-controller-a\",vmbda=\"v2\",volume=\"pvc-3\","
                   "vm=\"vm-0\",phase=\"InProgress\"}", "values": "0+60x10"},
        {"series": f"dvp_csi_volume_abnormal{{{ours},pod=\"csi-controller-a\",{lost}}}", "values": "_x3 1x30"},
    ]
    _promtool_test(rules, tmp_path, [{"interval": "1m", "input_series": series, "alert_rule_test": [
        # over 900 s from minute 16, `for: 5m`
        {"eval_time": "20m", "alertname": "D8CloudProviderDVPAttachmentStuck", "exp_alerts": []},
        {"eval_time": "22m", "alertname": "D8CloudProviderDVPAttachmentStuck",
         "exp_alerts": [_expected(stuck, {"vmbda": "vmbda-pvc-1-vm-0", "volume": "pvc-1", "vm": "vm-0",
                                          "phase": "Pending"})]},
        # abnormal from minute 3, `for: 5m`
        {"eval_time": "7m", "alertname": "D8CloudProviderDVPVolumeAbnormal", "exp_alerts": []},
        {"eval_time": "10m", "alertname": "D8CloudProviderDVPVolumeAbnormal",
         "exp_alerts": [_expected(abnormal, {"volume": "pvc-2", "phase": "PVCLost", "reason": "PVCLost"})]},
    ]}])


def test_the_csi_controller_is_scraped_through_kube_rbac_proxy(rendered):
    objects = rendered("defaults")
    monitor = find(objects, "PodMonitor", "csi-controller", "d8-monitoring")
    assert monitor["spec"]["selector"] == {"matchLabels": {"app": "csi-controller"}}
    endpoint, = monitor["spec"]["podMetricsEndpoints"]
    assert (endpoint["port"], endpoint["scheme"], endpoint["path"]) == ("https-metrics", "https", "/metrics")
    pod = find(objects, "Deployment", "csi-controller", NAMESPACE)["spec"]["template"]["spec"]
    containers = {c["name"]: c for c in pod["containers"]}
    assert "--metrics-address=127.0.0.1:9810" in containers["csi-driver"]["args"]
    proxy = containers["kube-rbac-proxy"]
    assert [p["containerPort"] for p in proxy["ports"]] == [8094]
    config = yaml.safe_load(next(e["value"] for e in proxy["env"] if e["name"] == "KUBE_RBAC_PROXY_CONFIG"))
    upstream, = config["upstreams"]
    assert upstream["upstream"] == "http://127.0.0.1:9810/"
    assert upstream["authorization"]["resourceAttributes"]["name"] == "csi-controller"
    binding = find(objects, "ClusterRoleBinding", "d8:cloud-provider-dvp:csi:rbac-proxy")
    assert binding["roleRef"]["name"] == "d8:rbac-proxy"
    assert binding["subjects"] == [{"kind": "ServiceAccount", "name": "csi", "namespace": NAMESPACE}]
