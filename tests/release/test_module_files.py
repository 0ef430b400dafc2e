# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""The module image's file set (module_release.fileset): exactly the module's files, nothing of tests, bench,
testkit, tools or caches; Chart.yaml stamped with the one version; a deterministic layout."""

from __future__ import annotations

import ast
import json
import subprocess
import tomllib
from pathlib import Path

import pytest
import yaml
from module_release import ReleaseError, fileset, module_image, release_image

ROOT = fileset.ROOT
DIGESTS = {"webhooks": "sha256:" + "ab" * 32, "csiDriver": "sha256:" + "cd" * 32}
TOP = {".helmignore", "Chart.yaml", "module.yaml", "oss.yaml", "images_digests.json", "hooks", "images", "templates",
       "openapi", "crds", "charts", "candi", "capi", "docs", "monitoring"}


def version() -> str:
    return tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"]


def paths(entries) -> set[str]:
    return {e.path for e in entries if not e.is_dir}


def expected_from_git() -> set[str]:
    """The tracked files under the module's roots minus tests, written independently of fileset.shipped."""
    tracked = subprocess.run(["git", "-C", str(ROOT), "ls-files", "-z"], capture_output=True, check=True,
                             text=True).stdout.split("\0")
    roots = ("hooks/", "images/dvp-common/dvp_common/", "templates/", "openapi/", "crds/", "charts/", "candi/",
             "capi/", "docs/", "monitoring/grafana-dashboards/", "monitoring/prometheus-rules/")
    # capi/ and monitoring/: what the templates read
    out = {p for p in tracked if p in ("module.yaml", "Chart.yaml", ".helmignore", "oss.yaml")}
    for p in tracked:
        name = p.rsplit("/", 1)[-1]
        if (p.startswith(roots) and "/tests/" not in p and not name.endswith(("_test.py", ".tftest.hcl"))
                and not p.startswith("hooks/lib/testing/")):
            out.add(p)
    return out


def test_the_module_image_holds_exactly_the_module_files():
    files = paths(module_image.entries(DIGESTS, version()))
    assert {p.split("/")[0] for p in files} == TOP
    sources = {p for p in files if "/__pycache__/" not in p} - {"images_digests.json"}
    assert sources == expected_from_git()
    bytecode = {p for p in files if "/__pycache__/" in p}
    assert bytecode == {f"{p.rsplit('/', 1)[0]}/__pycache__/{p.rsplit('/', 1)[1][:-3]}.cpython-313.pyc"
                        for p in sources if p.endswith(".py")
                        and p.startswith(("hooks/", "images/dvp-common/dvp_common/"))}
    for p in files:
        parts = p.split("/")
        assert not {"tests", "bench", "testkit", "tools", ".venv", ".cache", ".tmp", ".pytest_cache"} & set(parts), p
        assert not parts[-1].endswith(("_test.py", ".tftest.hcl")) and not parts[-1].startswith("test_"), p
    assert {"hooks/disable_load_balancer.py", "hooks/lib/dvp.py", "images/dvp-common/dvp_common/kube/__init__.py",
            "candi/layouts/standard/master-node/main.tf", "capi/template.yaml", "docs/README.md",
            "openapi/config-values.yaml", "crds/dvpinstanceclass.yaml",
            "monitoring/grafana-dashboards/kubernetes-cluster/cloud-provider-dvp.json"} <= files


def test_what_the_templates_read_is_derived_from_them():
    assert fileset.chart_reads() == {
        "capi": "templates/capi.yaml:14",
        "monitoring/grafana-dashboards": "charts/helm_lib/templates/_monitoring_grafana_dashboards.tpl:22",
        "monitoring/prometheus-rules": "charts/helm_lib/templates/_monitoring_prometheus_rules.tpl:34"}


def minimal_tree(root: Path, templates: dict[str, str]) -> Path:
    """A tree with one file in each declared place and these templates."""
    for name in fileset.FILES:
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text("name: x\n")
    for tree in fileset.TREES:
        (root / tree).mkdir(parents=True, exist_ok=True)
        (root / tree / "README.md").write_text("x\n")
    for rel, text in templates.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    return root


def declared() -> list[str]:
    return sorted([*fileset.FILES, *(f"{tree}/README.md" for tree in fileset.TREES)])


# The way helm_lib's helpers take a folder: a define fed `(list . "<folder>")`, globbing a printf of it.
HELPER = ('{{- define "reports" -}}\n{{- $context := index . 0 }}\n{{- $dir := index . 1 }}\n'
          '{{- range $path, $_ := $context.Files.Glob (printf "%s/**.txt" $dir) }}\n'
          '{{ $context.Files.Get $path }}\n{{- end }}\n{{- end -}}\n')


@pytest.mark.parametrize("templates", [
    {"templates/reports.yaml": '{{- range $path, $_ := .Files.Glob "reports/daily/*.txt" }}\n'
                               '{{ $.Files.Get $path }}\n{{- end }}\n'},
    {"charts/lib/templates/_reports.tpl": HELPER,
     "templates/reports.yaml": '{{- include "reports" (list . "reports/daily") }}\n'},
], ids=["literal-glob", "helper-argument"])
def test_a_folder_a_template_reads_ships(tmp_path, templates):
    root = minimal_tree(tmp_path, templates)
    (root / "reports/daily/tests").mkdir(parents=True)
    for rel in ("reports/daily/a.txt", "reports/daily/deep/b.txt", "reports/daily/a_test.py",
                "reports/daily/tests/c.txt", "reports/weekly.txt"):
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text("x\n")
    assert fileset.trees(root) == (*fileset.TREES, "reports/daily")
    assert fileset.tree_files(root) == sorted([*declared(), *templates, "reports/daily/a.txt",
                                               "reports/daily/deep/b.txt"])
    (root / "templates/reports.yaml").unlink()
    assert "reports/daily/a.txt" not in fileset.tree_files(root)


def test_a_read_template_rendered_with_tpl_is_scanned_too(tmp_path):
    root = minimal_tree(tmp_path, {"templates/rules.yaml": '{{- range $path, $_ := .Files.Glob "rules/*.tpl" }}\n'
                                                           '{{ tpl ($.Files.Get $path) $ }}\n{{- end }}\n',
                                   "rules/a.tpl": '# line 1\n{{ .Files.Get "data/b.txt" }}\n',
                                   "data/b.txt": "x\n"})
    assert fileset.chart_reads(root) == {"rules": "templates/rules.yaml:1", "data/b.txt": "rules/a.tpl:2"}
    assert {"rules/a.tpl", "data/b.txt"} <= set(fileset.tree_files(root))


@pytest.mark.parametrize(("template", "error"), [
    ('{{ .Files.Get .Values.path }}',
     "templates/x.yaml:2: .Files.Get .Values.path: what it reads cannot be derived: `.Values.path` is not a literal"),
    ('{{ $f := .Values.f }}\n{{ .Files.Glob (printf "%s/*" $f) }}',
     'templates/x.yaml:3: .Files.Glob (printf "%s/*" $f): what it reads cannot be derived: `.Values.f` is not a '
     'literal'),
    ('{{ include "reports" . }}',
     'charts/lib/templates/_reports.tpl:4: $context.Files.Glob (printf "%s/**.txt" $dir): what it reads cannot be '
     "derived: templates/x.yaml:2 passes `.` to 'reports', not a (list ...)"),
    ("{{ .Files.AsConfig }}",
     "templates/x.yaml:2: .Files.AsConfig reads every file of the chart: read a .Files.Glob instead"),
    ("{{ $files := .Files }}",
     "templates/x.yaml:2: .Files is not a call of .Files.Get/GetBytes/Lines/Glob: what it reads cannot be derived"),
    ('{{ .Files.Glob "*.json" }}', "templates/x.yaml:2: .Files.Glob '*.json' reads no folder of the chart: name one"),
    ('{{ .Files.Get "reports/a.txt" }}',
     "templates/x.yaml:2: .Files.Get 'reports/a.txt': reports/a.txt is missing from {root}"),
], ids=["value", "variable", "helper-without-list", "as-config", "files-passed-on", "root-glob", "missing"])
def test_a_read_the_release_cannot_derive_fails_naming_its_line(tmp_path, template, error):
    root = minimal_tree(tmp_path, {"templates/x.yaml": "# line 1\n" + template,
                                   "charts/lib/templates/_reports.tpl": HELPER})
    with pytest.raises(ReleaseError) as err:
        fileset.tree_files(root)
    assert str(err.value) == error.format(root=root)


def test_no_shipped_module_imports_the_test_support_left_out():
    for rel in expected_from_git():
        if rel.endswith(".py"):
            tree = ast.parse((ROOT / rel).read_text())
            for node in ast.walk(tree):
                modules = ([f"lib.{a.name}" for a in node.names] if isinstance(node, ast.ImportFrom)
                           and node.module == "lib" else [node.module] if isinstance(node, ast.ImportFrom)
                           and node.module else [a.name for a in node.names] if isinstance(node, ast.Import) else [])
                support = [m for m in modules if m == "lib.testing" or m.startswith("lib.testing.")]
                assert not support, f"{rel} imports test support {support}"


def test_hooks_stay_executable_and_bytecode_is_checked_hash():
    by_path = {e.path: e for e in module_image.entries(DIGESTS, version())}
    assert by_path["hooks/disable_load_balancer.py"].mode == 0o755
    assert by_path["hooks/lib/dvp.py"].mode == 0o644
    pyc = by_path["hooks/lib/__pycache__/dvp.cpython-313.pyc"].data
    assert int.from_bytes(pyc[4:8], "little") == 0b11  # PEP 552 flags: hash-based, checked


def test_chart_version_and_digests_are_stamped():
    by_path = {e.path: e for e in module_image.entries(DIGESTS, "7.8.9")}
    chart = yaml.safe_load(by_path["Chart.yaml"].data)
    assert chart["version"] == "7.8.9" and chart["name"] == "cloud-provider-dvp"
    assert json.loads(by_path["images_digests.json"].data) == DIGESTS
    with pytest.raises(ReleaseError) as err:
        module_image.chart_yaml("name: x\n", "1.0.0")
    assert str(err.value) == "Chart.yaml: no top-level `version:` line to stamp with the module version"
    with pytest.raises(ReleaseError) as err:
        module_image.digests_json({"webhooks": "latest"})
    assert str(err.value) == "images_digests.json: webhooks: 'latest' is not a sha256 digest"


def test_the_module_layout_is_deterministic(tmp_path):
    one = module_image.write(tmp_path / "a", tmp_path / "blobs", DIGESTS, version(), "2026-01-01T00:00:00Z")
    two = module_image.write(tmp_path / "b", tmp_path / "blobs2", DIGESTS, version(), "2026-01-01T00:00:00Z")
    assert one.digest == two.digest
    other = module_image.write(tmp_path / "c", tmp_path / "blobs3", {**DIGESTS, "webhooks": "sha256:" + "ef" * 32},
                               version(), "2026-01-01T00:00:00Z")
    assert other.digest != one.digest


def test_the_changelog_of_the_version_is_required(tmp_path):
    log = release_image.changelog(version())
    assert {"nodes", "storage", "bootstrap"} <= set(log)
    with pytest.raises(ReleaseError) as err:
        release_image.changelog("9.9.9")
    assert str(err.value) == "CHANGELOG/v9.9.9.yml is missing: write the changelog of v9.9.9 before releasing it"
    (tmp_path / "CHANGELOG").mkdir()
    (tmp_path / "CHANGELOG" / "v1.0.0.yml").write_text("nodes:\n  features:\n    - {title: x}\n")
    with pytest.raises(ReleaseError) as err:
        release_image.changelog("1.0.0", tmp_path / "CHANGELOG")
    assert str(err.value) == "CHANGELOG/v1.0.0.yml: nodes.features[0]: needs a summary"


def test_release_image_files():
    entries = {e.path: e for e in release_image.entries("0.1.0", {"nodes": {"features": [{"summary": "x"}]}})}
    assert set(entries) == {"version.json", "changelog.yaml", "module.yaml"}
    assert json.loads(entries["version.json"].data) == {"version": "v0.1.0"}
    assert yaml.safe_load(entries["changelog.yaml"].data) == {"nodes": {"features": [{"summary": "x"}]}}
    assert entries["module.yaml"].source == Path(ROOT / "module.yaml")
