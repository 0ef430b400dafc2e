# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""modlint's `images` rules (werf recipes, Dockerfiles, patches): one passing and one failing case each."""

from __future__ import annotations

import pytest
from modlint import lint
from modlint_rules.sample import write_module

HEADER = "# Copyright 2026 The cloud-provider-dvp Authors\n# SPDX-License-Identifier: Apache-2.0\n"
WERF = HEADER + """---
image: {{ .ModuleNamePrefix }}{{ .ImageName }}-deps
fromImage: base/python-builder
final: false
shell:
  install:
  - dir=$(go list -m -f '{{`{{.Dir}}`}}' example.com/x)
---
image: {{ .ModuleNamePrefix }}{{ .ImageName }}
fromImage: base/python-distroless
import:
- image: {{ .ModuleNamePrefix }}{{ .ImageName }}-deps
  add: /app/lib
  to: /app/lib
imageSpec:
  config:
    entrypoint: ["python3", "-m", "controller"]
"""
W = "images/controller/werf.inc.yaml"
D = "images/controller/Dockerfile"
P = "images/controller/patches"

CASES = [
    ("werf good", {W: WERF}, []),
    ("werf final image not from base", {W: WERF.replace("base/python-distroless", "python:3.12")},
     [f"error [werf] {W}: manifest 2 (test-module/controller): fromImage 'python:3.12' must be base/<name>"]),
    ("werf intermediate images may use anything", {W: WERF.replace("base/python-builder", "golang:1.26")}, []),
    ("werf artifact", {W: WERF.replace("final: false", "final: false\nartifact: old")},
     [f"error [werf] {W}: manifest 1 (test-module/controller-deps): use fromImage with final: false, not artifact:"]),
    ("werf user override", {W: WERF.replace("    entrypoint", "    user: 0\n    entrypoint")},
     [f"error [werf] {W}: manifest 2 (test-module/controller): imageSpec.config.user must stay empty"]),
    ("werf underscore", {W: WERF.replace("{{ .ImageName }}-deps", "{{ .ImageName }}_deps")},
     [f"error [werf] {W}: manifest 1 (test-module/controller_deps): image names have no underscores"]),
    ("werf not yaml", {W: HEADER + "image: [\n"},
     [f"error [werf] {W}: not valid YAML after templating: while parsing a flow node"]),
    ("dockerfile good", {D: "FROM $BASE_GOLANG AS build\nFROM $BASE_DISTROLESS\n"}, []),
    ("dockerfile intermediate", {D: "FROM golang:1.26 AS build\nFROM $BASE_DISTROLESS\n"},
     [f"error [dockerfile] {D}: FROM golang:1.26: use a $BASE_ image or pin @sha256"]),
    ("dockerfile pinned intermediate", {D: "FROM golang@sha256:" + "b" * 64 + " AS b\nFROM $BASE_ALT_P11\n"}, []),
    ("distroless", {D: "FROM $BASE_GOLANG AS build\nFROM $BASE_GOLANG\n"},
     [f"error [distroless] {D}: last FROM $BASE_GOLANG: use $BASE_DISTROLESS or $BASE_ALT"]),
    ("patches good", {f"{P}/001-fix-probe.patch": "diff\n", f"{P}/README.md": "# 001-fix-probe.patch\n\nWhy.\n"},
     []),
    ("patches name", {f"{P}/fix.patch": "diff\n", f"{P}/README.md": "# fix.patch\n"},
     [f"error [patches] {P}/fix.patch: patch files are named NNN-name.patch"]),
    ("patches readme", {f"{P}/001-fix.patch": "diff\n"},
     [f"error [patches] {P}/001-fix.patch: patches/README.md needs a '# 001-fix.patch' section"]),
]


@pytest.mark.parametrize(("case", "files", "expected"), CASES, ids=[c[0] for c in CASES])
def test_images_rules(tmp_path, case, files, expected):
    module_dir = write_module(tmp_path / "module", files)
    assert [f.line() for f in lint(module_dir) if f.linter in ("images", "templates")] == expected
