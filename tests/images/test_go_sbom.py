# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""The SBOM of an image with Go binaries lists the modules built into each (pkg:golang purls, read from the binary
by `go version -m`) and its Go standard library; a Go binary is found by what it is, not by its name; the
Python images' SBOMs keep their form (no Go package, the same fields)."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from imagekit import declarations, gobuildinfo, sbom
from imagekit.gobuildinfo import GoBinary, Module

ROOT = declarations.ROOT
PYTHON_IMAGES = ["capdvp-controller-manager", "cloud-controller-manager", "cloud-data-discoverer", "csi-driver",
                 "webhooks"]
PACKAGE_FIELDS = {"SPDXID", "name", "versionInfo", "downloadLocation", "filesAnalyzed", "licenseConcluded",
                  "licenseDeclared", "copyrightText", "externalRefs"}


def pinned(tool: str) -> dict[str, str]:
    """Module -> version of every require line of tools/<tool>/go.mod."""
    text = (ROOT / "tools" / tool / "go.mod").read_text()
    return dict(re.findall(r"^(?:require\s+|\t)(\S+) (v\S+)", text, re.M))


def go_packages(doc: dict) -> dict[str, dict]:
    """The golang packages of an SBOM by purl."""
    return {p["externalRefs"][0]["referenceLocator"]: p for p in doc["packages"]
            if p.get("externalRefs", [{}])[0].get("referenceLocator", "").startswith("pkg:golang/")}


def build_info_text(binary: Path) -> tuple[str, list[tuple[str, str]]]:
    """The Go version and (module, version) of every mod, dep and => line of `go version -m` (the text form,
    read here apart from the builder's JSON reading)."""
    out = subprocess.run(["go", "version", "-m", str(binary)], capture_output=True, text=True, timeout=60,
                         check=True).stdout
    go_version = out.splitlines()[0].split(": ", 1)[1].strip()
    modules = []
    for line in out.splitlines()[1:]:
        fields = line.strip().split("\t")
        if fields[0] in ("mod", "dep"):
            modules.append((fields[1], fields[2] if len(fields) > 2 else ""))
        elif fields[0] == "=>":
            modules[-1] = (fields[1], fields[2] if len(fields) > 2 and not fields[2].startswith("h1:") else "")
    return go_version, modules


@pytest.mark.parametrize(("image", "binary", "tool", "module"), [
    ("snapshot-controller", "snapshot-controller", "snapshot-controller",
     "github.com/kubernetes-csi/external-snapshotter/v8"),
    ("terraform-manager", "terraform-manager/terraform-provider-kubernetes", "terraform-provider-kubernetes",
     "github.com/hashicorp/terraform-provider-kubernetes"),
])
def test_the_sbom_of_a_go_binary_lists_the_pinned_module_and_every_module_built_in(images, image, binary, tool,
                                                                                  module):
    doc = json.loads((images[image].layout / sbom.FILE).read_text())
    packages = go_packages(doc)
    pins = pinned(tool)
    assert packages[f"pkg:golang/{module}@{pins[module]}"]["versionInfo"] == pins[module]
    go_version, modules = build_info_text((ROOT / ".bin" / tool).resolve())
    # A purl's version escapes "+" (v2.5.0+incompatible); a main module built from a checkout has no version.
    expected = {f"pkg:golang/{path}@{version.replace('+', '%2B')}" if version not in ("", "(devel)")
                else f"pkg:golang/{path}" for path, version in modules}
    expected.add(f"pkg:golang/stdlib@{go_version.removeprefix('go')}")
    assert set(packages) == expected
    assert {p["comment"] for p in packages.values()} == {f"in /{binary} ({go_version})"}
    assert packages[f"pkg:golang/stdlib@{go_version.removeprefix('go')}"]["versionInfo"] == go_version
    related = {r["relatedSpdxElement"] for r in doc["relationships"]}
    assert {p["SPDXID"] for p in packages.values()} <= related
    assert len({p["SPDXID"] for p in doc["packages"]}) == len(doc["packages"])


def test_the_snapshot_controller_sbom_names_its_main_dependencies_at_the_pinned_versions(images):
    packages = go_packages(json.loads((images["snapshot-controller"].layout / sbom.FILE).read_text()))
    pins = pinned("snapshot-controller")
    for module in ("k8s.io/client-go", "k8s.io/apimachinery", "k8s.io/klog/v2", "github.com/prometheus/client_golang"):
        assert f"pkg:golang/{module}@{pins[module]}" in packages, module


def test_the_frozen_validator_is_an_elf_file_but_no_go_binary(images, rootfses):
    assert (rootfses["terraform-manager"] / "validator").read_bytes()[:4] == gobuildinfo.ELF_MAGIC
    packages = go_packages(json.loads((images["terraform-manager"].layout / sbom.FILE).read_text()))
    assert {p["comment"].split(" (")[0] for p in packages.values()} == {
        "in /terraform-manager/terraform-provider-kubernetes"}


@pytest.mark.parametrize("name", PYTHON_IMAGES)
def test_a_python_image_sbom_keeps_its_form(images, name):
    doc = json.loads((images[name].layout / sbom.FILE).read_text())
    purls = [p["externalRefs"][0]["referenceLocator"] for p in doc["packages"][1:]]
    assert {purl.split("/", 1)[0] for purl in purls} == {"pkg:deb", "pkg:pypi", "pkg:generic"}
    assert [set(p) - {"checksums"} for p in doc["packages"][1:]] == [PACKAGE_FIELDS] * len(purls)
    assert [p["SPDXID"].split("-")[1] for p in doc["packages"][1:]] == sorted(
        (p["SPDXID"].split("-")[1] for p in doc["packages"][1:]), key=["deb", "pypi", "ours"].index)


def test_a_go_binary_is_found_by_its_build_info_not_its_name(tmp_path):
    renamed = tmp_path / "data.bin"
    shutil.copyfile((ROOT / ".bin" / "snapshot-controller").resolve(), renamed)
    text = tmp_path / "snapshot-controller"
    text.write_text("#!/bin/sh\necho a script named like a Go binary\n")
    junk = tmp_path / "kube-apiserver"
    junk.write_bytes(gobuildinfo.ELF_MAGIC + b" and nothing an executable holds")
    found = gobuildinfo.binaries([(renamed, "opt/data.bin"), (Path(sys.executable).resolve(), "usr/bin/python3"),
                                  (text, "snapshot-controller"), (junk, "kube-apiserver")])
    assert [b.target for b in found] == ["opt/data.bin"]
    # The main module is the one holding the main package tools/build builds: the pinned upstream.
    upstream = "github.com/kubernetes-csi/external-snapshotter/v8"
    assert found[0].modules[0] == Module(upstream, pinned("snapshot-controller")[upstream])


def test_without_go_an_elf_file_cannot_be_read_and_says_so(tmp_path, monkeypatch):
    (tmp_path / "no-tools").mkdir()
    monkeypatch.setenv("PATH", str(tmp_path / "no-tools"))
    with pytest.raises(gobuildinfo.GoBuildInfoError) as err:
        gobuildinfo.binaries([(Path(sys.executable).resolve(), "usr/bin/python3")])
    assert str(err.value) == ("go is missing: install Go >= 1.26 (the tools are built with it; the SBOM reads the "
                              "build info of the image's Go binaries with `go version -m`)")


def test_a_replacement_is_listed_as_the_module_built_in_naming_what_it_replaces():
    # tools/kube-apiserver pins k8s.io/api (and the other staging modules) with `replace`.
    replaced = re.search(r"^replace k8s.io/api => (\S+) (\S+)$", (ROOT / "tools/kube-apiserver/go.mod").read_text(),
                         re.M).groups()
    binary = gobuildinfo.read((ROOT / ".bin" / "kube-apiserver").resolve(), "kube-apiserver")
    required = pinned("kube-apiserver")["k8s.io/api"]
    assert Module(*replaced, f"replaces k8s.io/api {required}") in binary.modules


def test_each_kind_of_build_info_line_becomes_one_package():
    info = {"GoVersion": "go1.26.8", "Path": "example.com/cmd/tool",
            "Main": {"Path": "example.com/tool", "Version": "(devel)"},
            "Deps": [{"Path": "example.com/a", "Version": "v1.2.3", "Sum": "h1:x"},
                     {"Path": "example.com/b", "Version": "v0.1.0", "Replace": {"Path": "example.com/fork/b",
                                                                                 "Version": "v0.1.1", "Sum": "h1:y"}},
                     {"Path": "example.com/c", "Version": "v0.0.0", "Replace": {"Path": "../c"}},
                     {"Path": "example.com/d", "Version": "v2.0.0+incompatible", "Sum": "h1:z"}]}
    modules = gobuildinfo.modules(info)
    assert modules == (Module("example.com/tool", "(devel)"), Module("example.com/a", "v1.2.3"),
                       Module("example.com/fork/b", "v0.1.1", "replaces example.com/b v0.1.0"),
                       Module("example.com/c", "", "replaced by the directory ../c"),
                       Module("example.com/d", "v2.0.0+incompatible"))
    doc = sbom.document("tool", "1.0.0", "2026-01-01T00:00:00Z", [], [], [],
                        [GoBinary("usr/bin/tool", "go1.26.8", modules)])
    built = "in /usr/bin/tool (go1.26.8)"
    assert [(p["name"], p["versionInfo"], p["externalRefs"][0]["referenceLocator"], p["comment"])
            for p in doc["packages"][1:]] == [
        ("example.com/a", "v1.2.3", "pkg:golang/example.com/a@v1.2.3", built),
        ("example.com/c", "NOASSERTION", "pkg:golang/example.com/c", f"{built}; replaced by the directory ../c"),
        ("example.com/d", "v2.0.0+incompatible", "pkg:golang/example.com/d@v2.0.0%2Bincompatible", built),
        ("example.com/fork/b", "v0.1.1", "pkg:golang/example.com/fork/b@v0.1.1",
         f"{built}; replaces example.com/b v0.1.0"),
        ("example.com/tool", "(devel)", "pkg:golang/example.com/tool", built),
        ("stdlib", "go1.26.8", "pkg:golang/stdlib@1.26.8", built),
    ]
    assert [r["relatedSpdxElement"] for r in doc["relationships"]] == [p["SPDXID"] for p in doc["packages"][1:]]
