# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""Generate the CSI gRPC stubs into dvp_csi/generated/ (git-ignored) from the pinned CSI spec.

The proto comes from --proto, else .cache/upstream/csi.proto (tools/fetch-upstream), else the Go module cache through
tools/upstream (`go mod download`), which pins the same spec version. Image builds use
`python -m dvp_csi.generate --proto /proto/csi.proto --out <site>/dvp_csi/generated`: the relative import fix below
is what makes the stubs importable as a package.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
OUT = Path(__file__).resolve().parent / "generated"
CACHED_PROTO = ROOT / ".cache" / "upstream" / "csi.proto"
SPEC_MODULE = "github.com/container-storage-interface/spec"


class GenerateError(RuntimeError):
    pass


def find_proto() -> Path:
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


def self_contained(grpc_source: str) -> str:
    # protoc writes `import csi_pb2 as csi__pb2`, a top-level import; make it relative to our package.
    return re.sub(r"^import csi_pb2 as", "from . import csi_pb2 as", grpc_source, flags=re.M)


def generate(out: Path = OUT, proto: Path | None = None) -> Path:
    from grpc_tools import protoc  # imported here: only the build needs grpc_tools

    proto = proto or find_proto()
    if not proto.is_file():
        raise GenerateError(f"{proto}: no such proto file")
    with tempfile.TemporaryDirectory() as tmp:
        tmpdir = Path(tmp)
        shutil.copy(proto, tmpdir / "csi.proto")
        include = Path(protoc.__file__).parent / "_proto"
        rc = protoc.main(["protoc", f"-I{tmpdir}", f"-I{include}", f"--python_out={tmpdir}", f"--pyi_out={tmpdir}",
                          f"--grpc_python_out={tmpdir}", str(tmpdir / "csi.proto")])
        if rc != 0:
            raise GenerateError(f"protoc failed on {proto} (exit {rc})")
        out.mkdir(parents=True, exist_ok=True)
        for name in ("csi_pb2.py", "csi_pb2.pyi"):
            shutil.copy(tmpdir / name, out / name)
        (out / "csi_pb2_grpc.py").write_text(self_contained((tmpdir / "csi_pb2_grpc.py").read_text()))
        (out / "__init__.py").write_text(f'"""CSI stubs generated from {proto.name}; never committed."""\n')
    return out


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m dvp_csi.generate", description=__doc__.splitlines()[0])
    p.add_argument("--proto", type=Path, help="csi.proto to use (default: .cache/upstream, else tools/upstream)")
    p.add_argument("--out", type=Path, default=OUT, help="package directory to write (default: dvp_csi/generated)")
    args = p.parse_args(argv)
    try:
        out = generate(args.out, args.proto)
    except GenerateError as exc:
        print(f"dvp_csi.generate: {exc}", file=sys.stderr)
        return 1
    print(f"dvp_csi.generate: stubs written to {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
