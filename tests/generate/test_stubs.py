# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""`python -m stubs` (make generate): the CSI stubs from the pinned CSI spec import as a self-contained package,
the validator's as `dvp_validator.generated`."""

from __future__ import annotations

import subprocess
import sys

import stubs
from stubs import __main__ as cli


def test_generated_stubs_are_a_self_contained_package(tmp_path):
    out = tmp_path / "pkg" / "generated"
    stubs.generate(stubs.TARGETS["csi"], out, stubs.find_proto())
    grpc_src = (out / "csi_pb2_grpc.py").read_text()
    assert "from . import csi_pb2 as csi__pb2" in grpc_src and "\nimport csi_pb2" not in grpc_src
    probe = ("import pkg.generated.csi_pb2_grpc as g, pkg.generated.csi_pb2 as p; "
             "print(p.DESCRIPTOR.package, hasattr(g, 'ControllerServicer'))")
    res = subprocess.run([sys.executable, "-c", probe], cwd=tmp_path, capture_output=True, text=True, check=True)
    assert res.stdout.split() == ["csi.v1", "True"]


def test_the_validator_stubs_import_as_their_package(tmp_path):
    out = tmp_path / "dvp_validator" / "generated"
    stubs.generate(stubs.TARGETS["validator"], out)
    (tmp_path / "dvp_validator" / "__init__.py").write_text("")
    grpc_src = (out / "validate_pb2_grpc.py").read_text()
    assert "from dvp_validator.generated import validate_pb2" in grpc_src
    probe = ("import dvp_validator.generated.validate_pb2_grpc as g, dvp_validator.generated.validate_pb2 as p; "
             "print(p.DESCRIPTOR.package, hasattr(g, 'ValidateServiceServicer'))")
    res = subprocess.run([sys.executable, "-c", probe], cwd=tmp_path, capture_output=True, text=True, check=True)
    assert res.stdout.split() == ["dhctl.provider.validate.v1", "True"]


def test_generate_fails_clearly_on_a_missing_proto(tmp_path, capsys):
    assert cli.main(["csi", "--proto", str(tmp_path / "none.proto"), "--out", str(tmp_path / "g")]) == 1
    assert capsys.readouterr().err.strip() == f"stubs: {tmp_path / 'none.proto'}: no such proto file"
    assert not (tmp_path / "g").exists()


def test_the_relative_import_fix():
    assert stubs.self_contained("import grpc\nimport csi_pb2 as csi__pb2\n") == \
        "import grpc\nfrom . import csi_pb2 as csi__pb2\n"
