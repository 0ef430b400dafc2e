# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""The gRPC stubs of the tree (`make generate`, `python -m stubs`), generated into git-ignored `generated/`
packages, never committed, never shipped as a generator:

    csi        csi/dvp_csi/generated from the pinned CSI spec: --proto, else .cache/upstream/csi.proto
               (tools/fetch-upstream), else the Go module cache through tools/upstream (`go mod download`), which
               pins the same spec version; protoc's top-level import of csi_pb2 is made relative, so the stubs are
               a self-contained package wherever they are put
    validator  images/terraform-manager/dvp_validator/generated from dvp_validator/validate.proto, compiled from a
               copy at dvp_validator/generated/validate.proto, so protoc writes the stubs' import of each other as
               `from dvp_validator.generated import validate_pb2`: the package is importable as it is
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
CACHED_PROTO = ROOT / ".cache" / "upstream" / "csi.proto"
SPEC_MODULE = "github.com/container-storage-interface/spec"


class GenerateError(RuntimeError):
    pass


def find_proto() -> Path:
    """The pinned CSI spec: .cache/upstream/csi.proto, else fetched through tools/upstream."""
    if CACHED_PROTO.is_file():
        return CACHED_PROTO
    if shutil.which("go") is None:
        raise GenerateError(f"{CACHED_PROTO} is missing and 'go' is not on PATH to fetch {SPEC_MODULE}")
    env = dict(os.environ, GOFLAGS="-mod=readonly")
    res = subprocess.run(["go", "mod", "download", "-json", SPEC_MODULE], cwd=ROOT / "tools" / "upstream",
                         env=env, capture_output=True, text=True, check=False)
    if res.returncode != 0:
        raise GenerateError(f"go mod download {SPEC_MODULE} failed: {res.stderr.strip() or res.stdout.strip()}")
    proto = Path(json.loads(res.stdout)["Dir"]) / "csi.proto"
    if not proto.is_file():
        raise GenerateError(f"{proto} not found in the downloaded module")
    return proto


@dataclass(frozen=True)
class Target:
    name: str
    out: Path  # the package directory written
    proto: Callable[[], Path]  # the default proto
    package: str  # the package protoc compiles the stubs into ("": top level, the grpc import made relative)
    doc: Callable[[Path], str]  # the generated package's docstring, given the proto


VALIDATOR = ROOT / "images" / "terraform-manager" / "dvp_validator"
TARGETS = {
    "csi": Target("csi", ROOT / "csi" / "dvp_csi" / "generated", find_proto, "",
                  lambda proto: f"CSI stubs generated from {proto.name}; never committed."),
    "validator": Target("validator", VALIDATOR / "generated", lambda: VALIDATOR / "validate.proto",
                        "dvp_validator.generated",
                        lambda proto: f"Stubs generated from {proto.name}; never committed."),
}


def self_contained(grpc_source: str, stem: str = "csi") -> str:
    # protoc writes `import csi_pb2 as csi__pb2`, a top-level import; make it relative to our package.
    return re.sub(rf"^import {stem}_pb2 as", f"from . import {stem}_pb2 as", grpc_source, flags=re.M)


def generate(target: Target, out: Path | None = None, proto: Path | None = None) -> Path:
    """Writes the target's stubs (`<stem>_pb2.py`, `.pyi`, `<stem>_pb2_grpc.py`, `__init__.py`) into `out`."""
    from grpc_tools import protoc  # imported here: only generating needs grpc_tools

    out = out or target.out
    proto = proto or target.proto()
    if not proto.is_file():
        raise GenerateError(f"{proto}: no such proto file")
    stem = proto.stem
    with tempfile.TemporaryDirectory() as tmp:
        src = Path(tmp).joinpath(*target.package.split(".")) if target.package else Path(tmp)
        src.mkdir(parents=True, exist_ok=True)
        shutil.copy(proto, src / proto.name)
        include = Path(protoc.__file__).parent / "_proto"
        rc = protoc.main(["protoc", f"-I{tmp}", f"-I{include}", f"--python_out={tmp}", f"--pyi_out={tmp}",
                          f"--grpc_python_out={tmp}", str((src / proto.name).relative_to(tmp))])
        if rc != 0:
            raise GenerateError(f"protoc failed on {proto} (exit {rc})")
        out.mkdir(parents=True, exist_ok=True)
        for name in (f"{stem}_pb2.py", f"{stem}_pb2.pyi"):
            shutil.copy(src / name, out / name)
        grpc_source = (src / f"{stem}_pb2_grpc.py").read_text()
        (out / f"{stem}_pb2_grpc.py").write_text(grpc_source if target.package else self_contained(grpc_source, stem))
        (out / "__init__.py").write_text(f'"""{target.doc(proto)}"""\n')
    return out
