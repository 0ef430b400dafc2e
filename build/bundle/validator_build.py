# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""The validator as one self-contained executable (PyInstaller --onefile): dhctl runs it on the installer's
machine, where neither our Python nor our packages are. Built once per set of sources and cached outside the tree
(like tools/build), keyed by every file it is made of, the lock and the interpreter."""

from __future__ import annotations

import hashlib
import os
import platform
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
# The package roots the validator imports from, and the schema files it reads at start.
PATHS = ["images/dvp-common", "images/terraform-manager"]
SOURCES = ["images/terraform-manager/dvp_validator", "images/dvp-common/dvp_common", "build/stubs"]
DATA = ["openapi/config-values.yaml", "candi/openapi/instance_class.yaml", "candi/openapi/cluster_configuration.yaml"]
ENTRY = "import sys\nfrom dvp_validator.__main__ import main\nsys.exit(main())\n"


class BuildError(RuntimeError):
    pass


def cache_dir() -> Path:
    base = os.environ.get("CPDVP_CACHE") or Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") \
        / "cloud-provider-dvp"
    return Path(base) / "validator"


def source_files() -> list[Path]:
    files = [p for s in SOURCES for p in (ROOT / s).rglob("*")
             if p.is_file() and p.suffix in (".py", ".proto") and "generated" not in p.parts
             and "__pycache__" not in p.parts and not p.name.endswith("_test.py")]
    return sorted(files + [ROOT / d for d in DATA] + [ROOT / "requirements.lock", Path(__file__)])


def key() -> str:
    h = hashlib.sha256()
    for f in source_files():
        h.update(str(f.relative_to(ROOT)).encode() + b"\0" + f.read_bytes() + b"\0")
    h.update(f"{sys.version}|{platform.machine()}|{ENTRY}".encode())
    return h.hexdigest()[:16]


def build(log=print) -> Path:
    """The cached executable for the current sources, built first when there is none."""
    out = cache_dir() / f"validator-{key()}"
    if os.access(out, os.X_OK):
        return out
    import stubs

    stubs.generate(stubs.TARGETS["validator"])
    out.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="validator-build-") as tmp:
        work = Path(tmp)
        (work / "entry.py").write_text(ENTRY)
        args = [sys.executable, "-m", "PyInstaller", "--onefile", "--noconfirm", "--log-level=WARN", "--name",
                "validator", "--distpath", str(work / "dist"), "--workpath", str(work / "build"),
                "--specpath", str(work), "--exclude-module", "tkinter"]
        for p in PATHS:
            args += ["--paths", str(ROOT / p)]
        for d in DATA:
            args += ["--add-data", f"{ROOT / d}{os.pathsep}{Path(d).parent}"]
        log(f"validator_build: building the validator with PyInstaller into {out} ...")
        res = subprocess.run([*args, str(work / "entry.py")], cwd=work, capture_output=True, text=True, check=False)
        if res.returncode != 0:
            raise BuildError(f"PyInstaller failed (exit {res.returncode}): {res.stderr.strip()[-2000:]}")
        shutil.move(work / "dist" / "validator", f"{out}.tmp")
        os.replace(f"{out}.tmp", out)
    return out


if __name__ == "__main__":
    print(build(log=lambda m: print(m, file=sys.stderr)))
