# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""Render parity (module_source.parity): the module image built from the tree renders exactly what the tree renders,
with every optional module the templates react to on and off; a module missing a file or with a changed template
fails with one line naming the variant and the object."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest
from chart import render as chart_render
from module_release import module_image
from module_source import SourceError, parity, render

ROOT = Path(__file__).resolve().parents[2]
KEYS = sorted(chart_render.example_values()["global"]["modulesImages"]["digests"][chart_render.MODULE_KEY])
DIGESTS = {key: f"sha256:{n:064x}" for n, key in enumerate(KEYS, 1)}
BASE = "registry.example/modules/cloud-provider-dvp"
VERSION = "7.8.9"  # not the tree's Chart.yaml version: the stamp is the one difference the image may have
LISTED = chart_render.module_values(all_on=True)["global"]["enabledModules"]  # render.values' default
MODULES = "optional modules {} (operator-prometheus-crd, prometheus-crd, snapshot-controller)"
DASHBOARDS = ["d8-cloud-provider-dvp-kubernetes-cluster-cloud-provider-dvp",
              "d8-cloud-provider-dvp-kubernetes-cluster-cloud-provider-dvp-controllers",
              "d8-cloud-provider-dvp-kubernetes-cluster-cloud-provider-dvp-csi"]


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> Path:
    """The module image's files (module_image.entries) written out as the unpacked module."""
    out = tmp_path_factory.mktemp("module")
    for entry in module_image.entries(DIGESTS, VERSION):
        path = out / entry.path
        path.parent.mkdir(parents=True, exist_ok=True)
        if entry.is_dir:
            path.mkdir(exist_ok=True)
        elif entry.link is not None:
            path.symlink_to(entry.link)
        elif entry.data is not None:
            path.write_bytes(entry.data)
        else:
            shutil.copyfile(entry.source, path)
    return out


@pytest.fixture
def module(built, tmp_path) -> Path:
    """A copy of the built module this test may change."""
    return Path(shutil.copytree(built, tmp_path / "module", symlinks=True))


def kinds(objects: list[dict], kind: str) -> list[str]:
    return sorted(o["metadata"]["name"] for o in objects if o["kind"] == kind)


def test_the_optional_modules_are_every_module_the_templates_test():
    grepped = set()
    for path in [*(ROOT / "templates").rglob("*"), *(ROOT / "charts").rglob("*"), *(ROOT / "monitoring").rglob("*")]:
        if path.suffix in (".yaml", ".tpl"):
            grepped |= set(re.findall(r'has\s+"([^"]+)"\s+\(?\s*\$?\w*\.Values\.global\.enabledModules',
                                      path.read_text()))
    assert parity.optional_modules(ROOT) == sorted(grepped)
    assert "prometheus-crd" in grepped
    assert "operator-prometheus-crd" in LISTED
    assert parity.variants(sorted(grepped)) == [("on", [*LISTED, "prometheus-crd", "snapshot-controller"]),
                                                ("off", [m for m in LISTED if m != "operator-prometheus-crd"])]


def test_the_module_renders_exactly_what_the_tree_renders(built):
    parity.compare(built, ROOT, DIGESTS, BASE)
    on = render.chart(built, render.values(DIGESTS, BASE, [*LISTED, "prometheus-crd"]))
    assert kinds(on, "GrafanaDashboardDefinition") == DASHBOARDS  # none before the image shipped monitoring/
    off = render.chart(built, render.values(DIGESTS, BASE))
    assert kinds(off, "GrafanaDashboardDefinition") == []


def test_a_module_without_a_dashboard_fails(module):
    (module / "monitoring/grafana-dashboards/kubernetes-cluster/cloud-provider-dvp-csi.json").unlink()
    with pytest.raises(SourceError) as err:
        parity.compare(module, ROOT, DIGESTS, BASE)
    assert str(err.value) == (f"render parity, {MODULES.format('on')}: GrafanaDashboardDefinition/"
                              f"d8-cloud-provider-dvp-kubernetes-cluster-cloud-provider-dvp-csi: rendered from the "
                              f"tree, not from the module")


def test_a_changed_template_fails_in_the_variant_that_renders_it(module):
    # Our snapshot webhooks render only while the snapshot-controller module is off.
    template = module / "templates/snapshot-webhooks/webhook-configuration.yaml"
    template.write_text(template.read_text().replace('operations: ["CREATE", "UPDATE"]', 'operations: ["CREATE"]'))
    with pytest.raises(SourceError) as err:
        parity.compare(module, ROOT, DIGESTS, BASE)
    assert str(err.value) == (f"render parity, {MODULES.format('off')}: ValidatingWebhookConfiguration/"
                              f"d8-cloud-provider-dvp-snapshot-validation: differs from the tree's at "
                              f"webhooks[0].rules[0].operations[1]")


def test_an_object_only_the_module_renders_fails(module):
    (module / "templates/extra.yaml").write_text("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: extra\n"
                                                 "  namespace: d8-cloud-provider-dvp\n")
    with pytest.raises(SourceError) as err:
        parity.compare(module, ROOT, DIGESTS, BASE)
    assert str(err.value) == (f"render parity, {MODULES.format('on')}: ConfigMap/d8-cloud-provider-dvp/extra: "
                              f"rendered from the module, not from the tree")


def test_the_tree_renders_with_the_module_version(module):
    (module / "templates/version.yaml").write_text(
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: version\ndata:\n  chart: {{ .Chart.Version | quote }}\n")
    values = render.values(DIGESTS, BASE)
    [plain] = [o for o in render.chart(module, values) if o["metadata"]["name"] == "version"]
    [stamped] = [o for o in render.chart(module, values, version="1.2.3") if o["metadata"]["name"] == "version"]
    assert (plain["data"], stamped["data"]) == ({"chart": VERSION}, {"chart": "1.2.3"})


def test_render_values_take_the_enabled_modules():
    assert render.values(DIGESTS, BASE, ["a", "b"])["global"]["enabledModules"] == ["a", "b"]
    assert render.values(DIGESTS, BASE)["global"]["enabledModules"] == LISTED


@pytest.mark.parametrize(("template", "error"), [
    ('{{ if has .Values.m (.Values.global.enabledModules | default list) }}{{ end }}',
     'templates/x.yaml:2: has .Values.m (.Values.global.enabledModules | default list): the module cannot be '
     'derived: `.Values.m` is not a literal'),
    ("{{ $m := .Values.global.enabledModules }}",
     'templates/x.yaml:2: .Values.global.enabledModules is read other than by `has "<module>" '
     '(.Values.global.enabledModules | default list)`: the modules the chart reacts to cannot be derived'),
], ids=["computed-name", "alias"])
def test_a_module_test_the_scan_cannot_resolve_fails_naming_its_line(tmp_path, template, error):
    (tmp_path / "templates").mkdir()
    (tmp_path / "templates/x.yaml").write_text("# line 1\n" + template)
    with pytest.raises(SourceError) as err:
        parity.optional_modules(tmp_path)
    assert str(err.value) == f"render parity: {tmp_path}: {error}"


def test_a_helper_taking_the_module_name_is_followed(tmp_path):
    (tmp_path / "charts/lib/templates").mkdir(parents=True)
    (tmp_path / "charts/lib/templates/_enabled.tpl").write_text(
        '{{- define "is_enabled" -}}\n{{- if has (index . 1) (index . 0).Values.global.enabledModules }}true'
        '{{- end }}\n{{- end -}}\n')
    (tmp_path / "templates").mkdir()
    (tmp_path / "templates/x.yaml").write_text('{{- if include "is_enabled" (list . "extended-monitoring") }}\n'
                                               '{{- end }}\n{{ if .Values.global.enabledModules | has "cni-cilium" }}'
                                               '{{ end }}\n')
    assert parity.optional_modules(tmp_path) == ["cni-cilium", "extended-monitoring"]
