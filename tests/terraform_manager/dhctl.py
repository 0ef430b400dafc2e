# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""What dhctl does with a provider's terraform-manager bundle, step by step, so the tests use the bundle exactly
that way: pull and unpack it to <download dir>/dvp@sha256:<digest> (+ the `dvp` link), spawn
`validator serve --network=tcp --address=127.0.0.1:0` and read its endpoint line, call
dhctl.provider.validate.v1.ValidateService/Validate with the documented wire fields (encoded here by hand, not
with our stubs, so a field-number slip in our proto fails), lay out the provider plugin dir and versions.tf the way
dhctl does, run tofu with dhctl's arguments, and classify plans with plan_rules.yml (vmResource) as dhctl does."""

from __future__ import annotations

import json
import os
import re
import select
import shutil
import subprocess
import tarfile
import time
from dataclasses import dataclass
from pathlib import Path

import grpc
import yaml

PROVIDER = "dvp"
VALIDATE = "/dhctl.provider.validate.v1.ValidateService/Validate"
LISTENING = re.compile(r"dhctl-provider-protocol: listening on \[\[([a-z]+)://([^]]+)]]")
ARCH = "linux_amd64"
VERSIONS_TF = """
terraform {{
  required_version = ">= 0.14.8"
  required_providers {{
    {type} = {{
      source  = "{namespace}/{type}"
      version = ">= {version}"
    }}
  }}
}}
"""


# --- the bundle ---------------------------------------------------------------------------------------------

def pull_and_unpack(crane: Path, ref: str, download_dir: Path) -> Path:
    """<download_dir>/dvp@sha256:<digest>, unpacked through a .partial directory, and the `dvp` link to it."""
    digest = subprocess.run([str(crane), "digest", ref], capture_output=True, text=True, check=True).stdout.strip()
    final = download_dir / f"{PROVIDER}@{digest}"
    partial = Path(f"{final}.partial")
    shutil.rmtree(partial, ignore_errors=True)
    partial.mkdir(parents=True)
    tar_path = download_dir / "export.tar"
    subprocess.run([str(crane), "export", ref, str(tar_path)], capture_output=True, check=True)
    with tarfile.open(tar_path) as tar:
        tar.extractall(partial, filter="tar")
    tar_path.unlink()
    partial.rename(final)
    link = download_dir / PROVIDER
    link.unlink(missing_ok=True)
    link.symlink_to(final.name)
    return link


# --- the validator ------------------------------------------------------------------------------------------

@dataclass
class Validator:
    proc: subprocess.Popen
    endpoint: str

    def stop(self) -> int:
        self.proc.terminate()
        try:
            return self.proc.wait(timeout=10)
        finally:
            self.proc.stderr.close()


def spawn_validator(binary: Path, timeout: float = 60.0) -> Validator:
    proc = subprocess.Popen([str(binary), "serve", "--network=tcp", "--address=127.0.0.1:0"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    deadline, seen = time.monotonic() + timeout, []
    while time.monotonic() < deadline:
        ready, _, _ = select.select([proc.stderr], [], [], max(0.0, deadline - time.monotonic()))
        if not ready:
            break
        line = proc.stderr.readline().decode(errors="replace")
        if not line:
            break
        seen.append(line)
        match = LISTENING.search(line)
        if match:
            return Validator(proc, match.group(2))
    proc.kill()
    proc.wait()
    raise AssertionError(f"validator announced no endpoint within {timeout}s: {''.join(seen)[-2000:]}")


def _varint(n: int) -> bytes:
    out = bytearray()
    while True:
        byte, n = n & 0x7F, n >> 7
        out.append(byte | (0x80 if n else 0))
        if not n:
            return bytes(out)


def _fields(data: bytes):
    """(field number, bytes) of every length-delimited field: all the protocol's fields are strings/bytes/messages."""
    i = 0
    while i < len(data):
        key, shift = 0, 0
        while True:
            b = data[i]
            i += 1
            key |= (b & 0x7F) << shift
            shift += 7
            if not b & 0x80:
                break
        assert key & 7 == 2, f"unexpected wire type {key & 7} for field {key >> 3}"
        size, shift = 0, 0
        while True:
            b = data[i]
            i += 1
            size |= (b & 0x7F) << shift
            shift += 7
            if not b & 0x80:
                break
        yield key >> 3, data[i:i + size]
        i += size


def _violation(data: bytes) -> dict:
    names = {1: "path", 2: "code", 3: "message", 4: "value"}
    return {names[n]: v.decode() for n, v in _fields(data) if n in names}


def validate(endpoint: str, payload: dict, timeout: float = 30.0) -> dict:
    """{errors: [...], warnings: [...]}; a non-OK status raises grpc.RpcError (dhctl then blocks: fail closed)."""
    raw = json.dumps(payload).encode()
    with grpc.insecure_channel(endpoint) as channel:
        call = channel.unary_unary(VALIDATE, request_serializer=lambda b: b, response_deserializer=lambda b: b)
        response = call(b"\x0a" + _varint(len(raw)) + raw, timeout=timeout, wait_for_ready=True)
    out = {"errors": [], "warnings": []}
    for number, value in _fields(response):
        out[{1: "errors", 2: "warnings"}[number]].append(_violation(value))
    return out


# --- tofu as dhctl runs it ----------------------------------------------------------------------------------

@dataclass(frozen=True)
class Rule:
    type: str
    path: str | None
    value: str | None


def load_plan_rules(path: Path) -> Rule:
    """plan_rules.yml (the bundle's terraform-manager/plan_rules.yml) as dhctl reads it:
    `vmResource: {type, fieldEquals?: {path, value}}`, any other key ignored."""
    doc = yaml.safe_load(path.read_text())
    rule = doc["vmResource"]
    equals = rule.get("fieldEquals")
    return Rule(rule["type"], equals["path"] if equals else None, equals["value"] if equals else None)


def is_vm_change(change: dict, rule: Rule) -> bool:
    """dhctl's match: the type, then (if given) a string at the dotted path of the change's `after`."""
    if change.get("type") != rule.type:
        return False
    if rule.path is None:
        return True
    node = change["change"].get("after")
    for part in rule.path.split("."):
        if not isinstance(node, dict) or part not in node:
            return False
        node = node[part]
    return isinstance(node, str) and node == rule.value


def classify(plan: dict, rule: Rule) -> tuple[bool, bool]:
    """(destructive, VM destruction): dhctl calls a plan destructive when any resource is deleted, and a VM
    destruction when one of those deletions is a VM change."""
    deleted = [c for c in plan.get("resource_changes") or [] if "delete" in c["change"]["actions"]]
    return bool(deleted), any(is_vm_change(c, rule) for c in deleted)


@dataclass(frozen=True)
class Step:
    """One layout step prepared as dhctl prepares it under its infra root dir."""
    tofu: Path
    root: Path
    plugins: Path
    cwd: Path
    state: Path
    variables: Path

    def _env(self) -> dict:
        return {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(self.root), "TF_IN_AUTOMATION": "yes",
                "TF_SKIP_CREATING_DEPS_LOCK_FILE": "yes", "TF_DATA_DIR": str(self.root / "tf_dhctl"),
                "CHECKPOINT_DISABLE": "1"}

    def run(self, *args: str, timeout: int = 900) -> subprocess.CompletedProcess:
        return subprocess.run([str(self.tofu), f"-chdir={self.cwd}", *args], env=self._env(), capture_output=True,
                              text=True, timeout=timeout, check=False)

    def init(self):
        return self.run("init", f"-plugin-dir={self.plugins}", "-no-color", "-input=false")

    def plan(self, out: Path):
        return self.run("plan", "-input=false", "-no-color", f"-var-file={self.variables}", f"-state={self.state}",
                        "-detailed-exitcode", f"-out={out}")

    def show(self, plan: Path) -> dict:
        res = self.run("show", "-json", str(plan))
        assert res.returncode == 0, res.stderr
        return json.loads(res.stdout)

    def apply(self, plan: Path):
        return self.run("apply", "-input=false", "-no-color", "-lock=false", "-auto-approve", f"-state={self.state}",
                        f"-state-out={self.state}", str(plan))

    def output(self) -> dict:
        res = self.run("output", "-no-color", "-json", f"-state={self.state}")
        assert res.returncode == 0, res.stderr
        return {k: v["value"] for k, v in json.loads(res.stdout).items()}

    def destroy(self):
        return self.run("destroy", "-no-color", "-auto-approve", f"-var-file={self.variables}",
                        f"-state={self.state}")


def link_versions(destination: Path, source: Path) -> None:
    """dhctl's link-if-not-exists: an existing link to `source` is kept; anything else already there (a file, a
    link elsewhere) stops dhctl before tofu runs."""
    if destination.is_symlink() and os.readlink(destination) == str(source):
        return
    if destination.is_symlink() or destination.exists():
        raise AssertionError(f"dhctl cannot link {destination}: something is already there")
    destination.symlink_to(source)


def prepare_step(bundle: Path, tofu: Path, root: Path, step: str, variables: dict) -> Step:
    """The provider from the bundle in the plugin dir, the layouts and modules copied to <root>/modules, a root
    versions.tf from terraform_versions.yml linked into the step and every module dir that has none, the
    variables in a var file and an empty state path, as dhctl's infrastructure provider sets them up."""
    settings = yaml.safe_load((bundle / "terraform-manager" / "terraform_versions.yml").read_text())["kubernetes"]
    plugin = (root / "plugins" / "registry.opentofu.org" / settings["namespace"] / settings["type"]
              / settings["version"] / ARCH / settings["destinationBinary"])
    plugin.parent.mkdir(parents=True, exist_ok=True)
    shutil.copy(bundle / "terraform-manager" / settings["destinationBinary"], plugin)
    modules = root / "modules"
    for name in ("layouts", "terraform-modules"):
        shutil.copytree(bundle / name, modules / name, symlinks=True, dirs_exist_ok=True)
    versions = root / "versions.tf"
    versions.write_text(VERSIONS_TF.format(type=settings["type"], namespace=settings["namespace"],
                                           version=settings["version"]))
    cwd = modules / "layouts" / "standard" / step
    for d in [cwd, *(p for p in modules.rglob("*") if p.is_dir() and p.name != "layouts")]:
        link_versions(d / "versions.tf", versions)
    var_file = root / "cluster-config.auto.tfvars.json"
    var_file.write_text(json.dumps(variables))
    return Step(tofu, root, root / "plugins", cwd, root / f"{step}.tfstate", var_file)
