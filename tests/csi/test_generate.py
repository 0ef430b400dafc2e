# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""`python -m dvp_csi.generate`: stubs from the pinned CSI spec that import as a self-contained package."""

from __future__ import annotations

import subprocess
import sys

from dvp_csi import generate


def test_generated_stubs_are_a_self_contained_package(tmp_path):
    out = tmp_path / "pkg" / "generated"
    generate.generate(out, generate.find_proto())
    grpc_src = (out / "csi_pb2_grpc.py").read_text()
    assert "from . import csi_pb2 as csi__pb2" in grpc_src and "\nimport csi_pb2" not in grpc_src
    probe = ("import pkg.generated.csi_pb2_grpc as g, pkg.generated.csi_pb2 as p; "
             "print(p.DESCRIPTOR.package, hasattr(g, 'ControllerServicer'))")
    res = subprocess.run([sys.executable, "-c", probe], cwd=tmp_path, capture_output=True, text=True, check=True)
    assert res.stdout.split() == ["csi.v1", "True"]


def test_generate_fails_clearly_on_a_missing_proto(tmp_path, capsys):
    assert generate.main(["--proto", str(tmp_path / "none.proto"), "--out", str(tmp_path / "g")]) == 1
    assert capsys.readouterr().err.strip() == f"dvp_csi.generate: {tmp_path / 'none.proto'}: no such proto file"
    assert not (tmp_path / "g").exists()


def test_the_relative_import_fix():
    assert generate.self_contained("import grpc\nimport csi_pb2 as csi__pb2\n") == \
        "import grpc\nfrom . import csi_pb2 as csi__pb2\n"
