# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""Generate the validator's gRPC stubs into dvp_validator/generated/ (git-ignored) from validate.proto.

The proto is compiled from a copy at dvp_validator/generated/validate.proto, so protoc writes the stubs' import of
each other as `from dvp_validator.generated import validate_pb2`: the package is importable as it is."""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
from pathlib import Path

PROTO = Path(__file__).resolve().parent / "validate.proto"
OUT = Path(__file__).resolve().parent / "generated"
PACKAGE = Path("dvp_validator") / "generated"


class GenerateError(RuntimeError):
    pass


def generate(out: Path = OUT) -> Path:
    from grpc_tools import protoc  # imported here: only the build needs grpc_tools

    with tempfile.TemporaryDirectory() as tmp:
        src = Path(tmp) / PACKAGE
        src.mkdir(parents=True)
        shutil.copy(PROTO, src / "validate.proto")
        include = Path(protoc.__file__).parent / "_proto"
        rc = protoc.main(["protoc", f"-I{tmp}", f"-I{include}", f"--python_out={tmp}", f"--pyi_out={tmp}",
                          f"--grpc_python_out={tmp}", str(PACKAGE / "validate.proto")])
        if rc != 0:
            raise GenerateError(f"protoc failed on {PROTO} (exit {rc})")
        out.mkdir(parents=True, exist_ok=True)
        for name in ("validate_pb2.py", "validate_pb2.pyi", "validate_pb2_grpc.py"):
            shutil.copy(src / name, out / name)
        (out / "__init__.py").write_text('"""Stubs generated from validate.proto; never committed."""\n')
    return out


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m dvp_validator.generate", description=__doc__.splitlines()[0])
    p.add_argument("--out", type=Path, default=OUT, help="package directory (default: dvp_validator/generated)")
    args = p.parse_args(argv)
    try:
        print(generate(args.out))
    except GenerateError as exc:
        print(f"dvp_validator.generate: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
