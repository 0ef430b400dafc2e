# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""Every file rule of modlint: the sample module passes; each broken file gives exactly its finding."""

from __future__ import annotations

import os

import pytest
from modlint import Finding, lint
from modlint_rules.sample import FILES, HEADER, RU, write_module


def lines(module_dir) -> list[str]:
    return [f.line() for f in lint(module_dir)]


def test_sample_module_has_no_findings(module_dir):
    assert lines(module_dir) == []


MODULE_YAML = FILES["module.yaml"].rstrip(" ")
CRD = FILES["crds/widget.yaml"]

CASES = [
    # module linter
    ("definition-file missing", {"module.yaml": None},
     ["error [deckhouse-crds] crds/widget.yaml: CRD needs the label module: module",  # name falls back to the dir
      "error [definition-file] module.yaml: module.yaml is missing"]),
    ("definition-file stage", {"module.yaml": MODULE_YAML.replace("Experimental", "Beta")},
     ["error [definition-file] module.yaml: stage 'Beta' must be one of Experimental, Preview, General Availability, "
      "Deprecated"]),
    ("definition-file name", {"module.yaml": MODULE_YAML.replace("name: test-module", "name: Test_Module")},
     ["error [deckhouse-crds] crds/widget.yaml: CRD needs the label module: Test_Module",
      "error [definition-file] module.yaml: name 'Test_Module' must be kebab-case, at most 64 characters"]),
    ("definition-file descriptions", {"module.yaml": MODULE_YAML.replace("en: A test module.", "")
                                      .replace("descriptions:", "description: old\n        descriptions:")},
     ["error [definition-file] module.yaml: description is deprecated: use descriptions.en/ru",
      "error [definition-file] module.yaml: descriptions.en is required"]),
    ("definition-file editions", {"module.yaml": MODULE_YAML + "        accessibility:\n          editions:\n"
                                                               "            xe: {available: true}\n"
                                                               "            ce: {enabledInBundles: [Big]}\n"},
     ["error [definition-file] module.yaml: accessibility.editions.ce.available is required",
      "error [definition-file] module.yaml: accessibility.editions.ce: unknown bundle 'Big'",
      "error [definition-file] module.yaml: accessibility.editions: unknown edition 'xe'"]),
    ("definition-file update versions", {"module.yaml": MODULE_YAML + "        update:\n          versions:\n"
                                                                        "          - {from: '1.2', to: '1.1'}\n"},
     ["error [definition-file] module.yaml: update.versions: each entry needs major.minor from < to"]),
    ("definition-file critical", {"module.yaml": MODULE_YAML + "        critical: true\n"},
     ["error [definition-file] module.yaml: a critical module needs a non-zero weight"]),
    ("definition-file disable messages", {"module.yaml": MODULE_YAML + "        disable:\n          messages:\n"
                                                                         "            en: Sure?\n"},
     ["error [definition-file] module.yaml: disable.messages needs both en and ru"]),
    ("requirements weight", {"module.yaml": MODULE_YAML + "        weight: 30\n"},
     ["error [requirements] module.yaml: weight must be removed when requiring Deckhouse >= 1.72"]),
    ("requirements old deckhouse", {"module.yaml": MODULE_YAML.replace(">= 1.72", ">= 1.60")},
     ["error [requirements] module.yaml: stage needs requirements.deckhouse >= 1.68",
      "error [requirements] module.yaml: weight 900-999 is required when supporting Deckhouse < 1.72"]),
    ("oss missing", {"oss.yaml": None}, ["error [oss] oss.yaml: oss.yaml is missing"]),
    ("oss fields", {"oss.yaml": "- id: x\n  name: X\n"},
     ["error [oss] oss.yaml: entry 0 (x) misses description, link, license, version"]),
    ("conversions gap", {"openapi/conversions/v3.yaml": "version: 3\ndescription: {en: a, ru: b}\n"},
     ["error [conversions] openapi/conversions: versions [3] must run 2, 3, ... without gaps"]),
    ("conversions description", {"openapi/conversions/v2.yaml": "version: 2\ndescription: {en: a}\n"},
     ["error [conversions] openapi/conversions/v2.yaml: description.en and description.ru are required"]),
    ("helmignore missing", {".helmignore": None}, ["error [helmignore] .helmignore: .helmignore is missing"]),
    ("helmignore templates", {".helmignore": "hooks\ntemplates/\n"},
     ["error [helmignore] .helmignore: pattern 'templates/' excludes what the chart needs"]),
    ("license python", {"hooks/discover.py": '"""A hook."""\n'},
     ["error [license] hooks/discover.py: the cloud-provider-dvp copyright and SPDX header is missing"]),
    ("license foreign header",
     {"hooks/discover.py": "# Copyright 2024 Another Project Authors\n# Licensed under Apache\n"},
     ["error [license] hooks/discover.py: the cloud-provider-dvp copyright and SPDX header is missing"]),
    ("license template", {"templates/deployment.yaml": "kind: Deployment\n"},
     ["error [license] templates/deployment.yaml: the cloud-provider-dvp copyright and SPDX header is missing"]),
    ("license hcl", {"candi/main.tf": "// Copyright 2026 The cloud-provider-dvp Authors\nresource {}\n"},
     ["error [license] candi/main.tf: the cloud-provider-dvp copyright and SPDX header is missing"]),
    ("license generated file skipped", {"hooks/gen_pb2.py": "# Generated by the protocol buffer compiler. "
                                                            "DO NOT EDIT!\n"}, []),
    ("license shebang then header", {"hooks/run.py": "#!/usr/bin/env python3\n" + HEADER}, []),
    ("legacy-release-file", {"release.yaml": "version: 1\n"},
     ["error [legacy-release-file] release.yaml: release.yaml is legacy: use version.json"]),
    ("enabled-script", {"enabled": "exit 0\n"},
     ["warning [enabled-script] enabled: the enabled script is deprecated"]),
    ("container-image-name", {"images/csi_driver/mount-points.yaml": "dirs: []\n"},
     ["error [container-image-name] images/csi_driver: image folder names are kebab-case without underscores"]),
    # openapi linter
    ("openapi bilingual", {"openapi/doc-ru-config-values.yaml": None},
     ["error [bilingual] openapi/config-values.yaml: doc-ru-config-values.yaml (Russian descriptions) is missing"]),
    ("openapi orphan doc-ru", {"openapi/doc-ru-settings.yaml": "properties: {}\n"},
     ["error [bilingual] openapi/doc-ru-settings.yaml: doc-ru-settings.yaml has no base file settings.yaml"]),
    ("crds bilingual", {"crds/doc-ru-widget.yaml": None},
     ["error [bilingual] crds/widget.yaml: doc-ru-widget.yaml (Russian descriptions) is missing"]),
    ("doc-ru-yaml", {"openapi/doc-ru-config-values.yaml": "- a\n- b\n"},
     ["error [doc-ru-yaml] openapi/doc-ru-config-values.yaml: must be a YAML mapping"]),
    ("enum lower case", {"openapi/config-values.yaml": FILES["openapi/config-values.yaml"].replace(
        "[Debug, Info]", "[debug, Info]")},
     ["error [enum] openapi/config-values.yaml; properties.logLevel: enum value 'debug' must start with a "
      "capital letter"]),
    ("enum in a CRD", {"crds/widget.yaml": CRD.replace("[Ready, V1.2]", "[Ready, Not-Ready]")},
     ["error [enum] crds/widget.yaml; spec.versions[0].schema.openAPIV3Schema.properties.phase: enum value "
      "'Not-Ready' must be CamelCase"]),
    ("enum excluded", {"crds/widget.yaml": CRD.replace("[Ready, V1.2]", "[ready]"),
                       ".dmtlint.yaml": "linters-settings:\n  openapi:\n    exclude-rules:\n      enum:\n"
                                        "      - spec.versions[*].schema.openAPIV3Schema.properties.phase\n"}, []),
    ("high-availability", {"openapi/config-values.yaml": FILES["openapi/config-values.yaml"].replace(
        "type: boolean", "type: boolean\n            default: false")},
     ["error [high-availability] openapi/config-values.yaml; properties.highAvailability: highAvailability must "
      "have no default"]),
    ("deckhouse-crds label and version", {"crds/widget.yaml": CRD.replace("apiextensions.k8s.io/v1",
                                                                          "apiextensions.k8s.io/v1beta1")
                                          .replace("module: test-module", "module: other")},
     ["error [deckhouse-crds] crds/widget.yaml: CRD apiVersion must be apiextensions.k8s.io/v1",
      "error [deckhouse-crds] crds/widget.yaml: CRD needs the label module: test-module"]),
    ("deckhouse-crds deprecated", {"crds/widget.yaml": CRD.replace("type: string", "type: string\n"
                                                                   "                    deprecated: true")},
     ["error [deckhouse-crds] crds/widget.yaml; spec.versions[0].schema.openAPIV3Schema.properties.phase."
      "deprecated: use x-doc-deprecated, not deprecated"]),
    ("deckhouse-validations", {"openapi/config-values.yaml": FILES["openapi/config-values.yaml"].rstrip(" ")
                               + "        x-deckhouse-validations: []\n"
                               + "        x-kubernetes-validations: [{rule: 'true'}]\n"},
     ["warning [deckhouse-validations] openapi/config-values.yaml; x-deckhouse-validations: must be a non-empty "
      "list of {expression, message}",
      "warning [deckhouse-validations] openapi/config-values.yaml; x-kubernetes-validations: use "
      "x-deckhouse-validations in openapi/"]),
    # docs and no-cyrillic linters
    ("readme", {"docs/README.md": "\n"},
     ["error [readme] docs/README.md: docs/README.md is missing or empty"]),
    ("docs bilingual", {"docs/CONFIGURATION.md": "Settings.\n"},
     ["error [bilingual] docs/CONFIGURATION.md: CONFIGURATION.ru.md is missing"]),
    ("docs orphan russian", {"docs/FAQ_RU.md": f"{RU}\n"},
     ["error [bilingual] docs/FAQ_RU.md: no English FAQ.md for this Russian page"]),
    ("cyrillic-in-english", {"docs/README.md": f"What it does ({RU}).\n"},
     ["error [cyrillic-in-english] docs/README.md: line 1 has Cyrillic"]),
    ("no-lang-key", {"docs/README.md": "---\ntitle: T\nlang: en\n---\nText.\n"},
     ["error [no-lang-key] docs/README.md: no lang: key; the file name carries the language"]),
    ("front-matter not closed", {"docs/README.md": "---\ntitle: T\nText.\n"},
     ["error [front-matter] docs/README.md: front matter is not closed"]),
    ("front-matter not a mapping", {"docs/README.md": "---\n- a\n---\nText.\n"},
     ["error [front-matter] docs/README.md: front matter must be a YAML mapping"]),
    ("no-cyrillic in code", {"hooks/discover.py": HEADER + f"# {RU}\n"},
     ["error [files] hooks/discover.py: line 3 has Cyrillic"]),
    ("no-cyrillic in yaml", {"templates/x.yaml": FILES["templates/deployment.yaml"] + f"# {RU}\n"},
     ["error [files] templates/x.yaml: line 4 has Cyrillic"]),
    ("no-cyrillic excluded directory", {"hack/x.py": HEADER + f"# {RU}\n",
                                        ".dmtlint.yaml": "linters-settings:\n  no-cyrillic:\n    exclude-rules:\n"
                                                         "      directories: [hack/]\n"}, []),
    # templates linter, source checks
    ("cluster-domain", {"templates/svc.yaml": FILES["templates/deployment.yaml"] + "host: a.svc.cluster.local\n"},
     ["error [cluster-domain] templates/svc.yaml: hard-coded cluster.local: use "
      ".Values.global.clusterConfiguration.clusterDomain"]),
    ("enabled-modules", {"templates/vpa.yaml": FILES["templates/deployment.yaml"]
                         + '{{ if (.Values.global.enabledModules | has "vertical-pod-autoscaler") }}{{ end }}\n'},
     ["warning [enabled-modules] templates/vpa.yaml: prefer .Capabilities.APIVersions.Has to enabledModules | has"]),
    ("crd-enabled-modules", {"templates/vpa.yaml": FILES["templates/deployment.yaml"]
                             + '{{ if (.Values.global.enabledModules | has "operator-crd") }}{{ end }}\n'},
     ["error [crd-enabled-modules] templates/vpa.yaml: drop the has \"<module>-crd\" check: CRDs come with the "
      "module",
      "warning [enabled-modules] templates/vpa.yaml: prefer .Capabilities.APIVersions.Has to enabledModules | has"]),
    ("registry", {"templates/registry-secret.yaml": FILES["templates/deployment.yaml"]
                  + "data: {{ .Values.global.modulesImages.registry.dockercfg }}\n"},
     ["error [registry] templates/registry-secret.yaml: also use .Values.cloudProviderDvp.registry.dockercfg"]),
    ("prometheus-rules", {"monitoring/prometheus-rules/rules.yaml": "- name: x\n"},
     ["error [prometheus-rules] monitoring/prometheus-rules: templates/monitoring.yaml must use "
      "helm_lib_prometheus_rules"]),
    ("grafana-dashboards", {"monitoring/grafana-dashboards/d.json": "{}\n",
                            "templates/monitoring.yaml": FILES["templates/deployment.yaml"]
                            + "{{ include \"helm_lib_prometheus_rules\" . }}\n"},
     ["error [grafana-dashboards] monitoring/grafana-dashboards: templates/monitoring.yaml must use "
      "helm_lib_grafana_dashboard_definitions"]),
]


@pytest.mark.parametrize(("case", "files", "expected"), CASES, ids=[c[0] for c in CASES])
def test_each_file_rule(tmp_path, case, files, expected):
    module_dir = write_module(tmp_path / "module", files)
    assert lines(module_dir) == expected


def test_executable_without_suffix_needs_the_header(module_dir):
    script = module_dir / "scripts" / "run"
    script.parent.mkdir()
    script.write_text("#!/usr/bin/env bash\necho hi\n")
    script.chmod(0o755)
    assert lines(module_dir) == ["error [license] scripts/run: the cloud-provider-dvp copyright and SPDX header is "
                                 "missing"]
    script.write_text("#!/usr/bin/env bash\n" + HEADER + "echo hi\n")
    assert os.access(script, os.X_OK) and lines(module_dir) == []


def test_license_exclusions_are_for_dmt_only(module_dir):
    """.dmtlint.yaml excludes our code from DMT's Flant-only license rule; our own header check still runs."""
    (module_dir / "hooks/discover.py").write_text("print()\n")
    (module_dir / ".dmtlint.yaml").write_text(
        "linters-settings:\n  module:\n    exclude-rules:\n      license:\n        directories: [hooks/]\n")
    assert lines(module_dir) == ["error [license] hooks/discover.py: the cloud-provider-dvp copyright and SPDX "
                                 "header is missing"]


def test_object_exclusions_by_kind_name_and_container(module_dir):
    from modlint import Rendered
    from modlint_rules.sample import REGISTRY, good_objects, pod

    objects = good_objects()
    pod(objects)["containers"][0].pop("livenessProbe")
    (module_dir / ".dmtlint.yaml").write_text(
        "linters-settings:\n  container:\n    exclude-rules:\n      liveness-probe:\n"
        "        - {kind: Deployment, name: controller, container: other}\n")
    assert [f.rule for f in lint(module_dir, objects, registry=REGISTRY, files=False)] == ["liveness-probe"]
    (module_dir / ".dmtlint.yaml").write_text(
        "linters-settings:\n  container:\n    exclude-rules:\n      liveness-probe:\n"
        "        - {kind: Deployment, name: controller, container: controller}\n")
    assert lint(module_dir, objects, registry=REGISTRY, files=False) == []
    assert isinstance(objects[0], Rendered)


def test_finding_line_names_rule_object_and_container():
    finding = Finding("container", "ports", "containerPort 80 must be above 1024", kind="Deployment", name="d",
                      namespace="ns", container="c", path="templates/d.yaml")
    assert finding.line() == ("error [ports] Deployment ns/d; container c; templates/d.yaml: "
                              "containerPort 80 must be above 1024")
