# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""The clean scenario, walked once (tests/e2e/conftest.py `clean_run`; every test reading it is in this file, so the
two test workers never walk it twice): it creates exactly what it needs and leaves nothing; and no dead panel, no
dead alert: every metric a dashboard panel or an alert rule reads is exported by a component running in the e2e
world (scraped after the walk, demo.scrape), by kube-state-metrics or by a hook; and what the components export
follows Prometheus naming (promtool's lint, unit suffixes, bounded label sets)."""

from __future__ import annotations

import re

import pytest
from prometheus_client.parser import text_string_to_metric_families

from testkit import monitoring as mk

from .test_e2e_scenario import assert_converged

COMPONENTS = {"cloud-data-discoverer", "cloud-controller-manager", "capdvp-controller-manager", "csi-controller",
              "validation-webhook", "snapshot-webhooks"}
# Who must export what the overview's per-component panels break down by job.
DVP_CLIENTS = {"cloud-data-discoverer", "cloud-controller-manager", "capdvp-controller-manager", "csi-controller"}
# capdvp's own webhook counts into the same family; the scenario starts capdvp without it (the guest API calls no
# capdvp webhook here), so tests/capdvp/test_admission.py checks that one in-process.
WEBHOOKS = {"validation-webhook", "snapshot-webhooks"}
# Label names that usually hold an object's name or uid. A family may carry one only when its series exist
# solely for objects in trouble (gone once resolved) or for a small set an administrator defines; each says so.
OBJECT_LABELS = {"vm", "vmbda", "volume", "name", "id", "uid", "node", "pod", "disk", "service", "message",
                 "virtual_machine_class"}
BOUNDED_BY_DESIGN = {
    "dvp_csi_attachment_pending_seconds": "only attachments DVP has not attached yet; the alert names them",
    "dvp_csi_volume_abnormal": "only volumes DVP reports lost or failed; the alert names them",
    "cloud_data_discovery_orphaned_disk_info": "upstream's name and labels; only disks nothing references",
    "cloud_data_discovery_cloud_conditions_error": "only failing conditions; the message is from a fixed set",
    "cloud_data_discovery_instance_type_info": "one per VirtualMachineClass, a few the DVP administrator defines",
}
OURS = ("dvp_", "capdvp_", "cloud_data_discovery_")
UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")


def test_scenario_creates_exactly_what_it_needs_and_leaves_nothing(clean_run):
    result, log = clean_run
    assert_converged(result, log)
    assert result.kills == []
    for line in ("StorageClasses: local-thin (DVP local-thin, WaitForFirstConsumer), replicated-fast "
                 "(DVP replicated-fast, WaitForFirstConsumer)", "PVC data resized -> 2Gi (external-resizer)",
                 "(class cloud-provider-dvp)", "(ready True)", "admission webhook \"credentials.cloud-provider-dvp."
                 "deckhouse.io\" denied the request", "Nodes (kwok) initialised (CCM): done",
                 "stopped -> Node Ready=Unknown, tainted node.kubernetes.io/unreachable (node lifecycle controller) "
                 "and node.cloudprovider.kubernetes.io/shutdown (CCM)", "started -> Node Ready=True, neither taint"):
        assert line in log, log


@pytest.fixture(scope="module")
def scraped(clean_run) -> dict[str, str]:
    result, log = clean_run
    assert set(result.metrics) == COMPONENTS, log
    return result.metrics


@pytest.fixture(scope="module")
def queries() -> list[tuple[str, str]]:
    objects = mk.render()
    out = [(f"alert {name}", e) for name, e in mk.rule_queries(mk.rule_groups(objects))]
    for dash, definition in sorted(mk.dashboards(objects).items()):
        out += [(f"dashboard {dash}, panel {title!r}", e) for title, e in mk.panel_queries(definition)]
    return out


def test_every_dashboard_and_rule_query_reads_an_exported_metric(scraped, queries):
    exported = set().union(*(mk.exported_names(text) for text in scraped.values()))
    known = exported | mk.KUBE_STATE_METRICS | mk.hook_metric_names()
    dead = [(where, name) for where, expr in queries for name in sorted(mk.metric_names(expr)) if name not in known]
    assert dead == [], "\n".join(f"{where}: {name} is exported by nothing" for where, name in dead)
    assert all(mk.metric_names(expr) for _, expr in queries)
    assert len([w for w, _ in queries if w.startswith("dashboard")]) >= 25


def test_the_per_component_series_come_from_each_component(scraped):
    for name in DVP_CLIENTS:
        assert {"dvp_client_requests_total", "dvp_client_request_duration_seconds_bucket"} <= \
            mk.exported_names(scraped[name]), name
    for name in WEBHOOKS:
        assert "dvp_webhook_admission_reviews_total" in mk.exported_names(scraped[name]), name
    # what the scenario did shows: a refused credentials Secret, VMs provisioned, a restore, an LB ensured
    samples = {c: _samples(t) for c, t in scraped.items()}
    assert samples["validation-webhook"][("dvp_webhook_admission_reviews_total",
                                          (("allowed", "false"), ("route", "/validate--v1-secret")))] >= 1
    assert samples["capdvp-controller-manager"][("capdvp_machine_provisioning_duration_seconds_count", ())] == 2
    assert samples["csi-controller"][("dvp_csi_volume_provisioning_duration_seconds_count",
                                      (("source", "snapshot"),))] == 1
    assert samples["cloud-controller-manager"][("dvp_ccm_load_balancers", (("state", "ensured"),))] == 0  # torn down


def test_exported_metrics_follow_prometheus_naming(scraped):
    for component, text in sorted(scraped.items()):
        assert mk.lint_metrics(text) == "", component
        for family in text_string_to_metric_families(text):
            if family.type == "histogram":
                assert family.name.endswith(("_seconds", "_bytes")), (component, family.name)
            if family.type != "counter":
                assert not family.name.endswith("_total"), (component, family.name)
            labels = {k for s in family.samples for k in s.labels} - {"le", "quantile"}
            if family.name not in BOUNDED_BY_DESIGN:
                assert not labels & OBJECT_LABELS, (component, family.name, labels & OBJECT_LABELS)
                uuids = [v for s in family.samples for v in s.labels.values() if UUID.search(v)]
                assert uuids == [], (component, family.name)


def test_every_exported_family_of_ours_is_documented(scraped):
    """docs/MONITORING.md lists each family the components export under our prefixes, and nothing else."""
    doc = (mk.ROOT / "docs" / "MONITORING.md").read_text()
    documented = mk.documented_families(doc)
    exported = {f.name + ("_total" if f.type == "counter" else "") for text in scraped.values()
                for f in text_string_to_metric_families(text)
                if f.name.startswith(OURS) and not f.name.endswith("_created")}  # prometheus_client's own
    wildcards = tuple(d[:-1] for d in documented if d.endswith("*"))
    exact = {d for d in documented if not d.endswith("*")}
    assert {e for e in exported if not e.startswith(wildcards)} == exact
    labels: dict[str, set[str]] = {}
    for text in scraped.values():
        for f in text_string_to_metric_families(text):
            name = f.name + ("_total" if f.type == "counter" else "")
            if name in exact:
                labels.setdefault(name, set()).update(k for s in f.samples for k in s.labels if k not in ("le",))
    # a family with no series at the end (no abnormal volume, every disk deleted) shows no labels to compare
    documented_labels = mk.documented_labels(doc)
    seen = {name: found for name, found in labels.items() if found or not documented_labels[name]}
    assert seen == {name: documented_labels[name] for name in seen}, "the table's labels are not the exported ones"
    assert len(seen) >= 15
    assert any(e.startswith(wildcards) for e in exported)


def _samples(text: str) -> dict[tuple[str, tuple], float]:
    return {(s.name, tuple(sorted(s.labels.items()))): s.value for f in text_string_to_metric_families(text)
            for s in f.samples}
