# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""Every image from its declaration, as an OCI image layout in <out>/<name> (with its SBOM beside index.json).

Layers, bottom up: the base (Python: Debian packages and the standard library's bytecode; static: users only),
an image's own Debian packages, the shared wheels (/app/lib), then the image's own files (our packages in
/app/src with their bytecode, binaries, mount points). The lower layers are the same blob in every Python image
and are cached by the key of their inputs, so a change in one component rebuilds only that component's layer.
Layer files carry mtime 0; the config's `created` is the commit's time (SOURCE_DATE_EPOCH)."""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
import tomllib
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from bundle import contents as bundle
from shipping import never_ships

from . import bases, cache, declarations, gobuildinfo, oci, sbom, staging, wheels
from .declarations import Declaration
from .errors import ImageError
from .layer import Entry, Layer, write_layer

ROOT = declarations.ROOT
GENERATED = "generated"  # generated stubs come in through `generated:` only, never from a package's walk
# The recipes a declaration's `contents:` names: functions giving a scratch image's layer entries.
RECIPES: dict[str, Callable[[], list[Entry]]] = {"bundle": bundle.image_entries}


class BuildError(ImageError):
    pass


@dataclass(frozen=True)
class Built:
    name: str
    key: str  # the image key of images_digests.json
    layout: Path
    digest: str
    config: dict  # the image config's `config` (User, Env, Entrypoint, ...)


def version() -> str:
    """The module version: pyproject.toml [project].version, the one place it is written."""
    return tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"]


def created() -> str:
    """SOURCE_DATE_EPOCH, else the time of the commit checked out, as RFC 3339."""
    epoch = os.environ.get("SOURCE_DATE_EPOCH")
    if not epoch:
        res = subprocess.run(["git", "-C", str(ROOT), "log", "-1", "--format=%ct"], capture_output=True, text=True,
                             check=False)
        epoch = res.stdout.strip() or "0"
    return datetime.fromtimestamp(int(epoch), UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def _sources(top: Path) -> list[Path]:
    return sorted(p for p in top.rglob("*") if p.is_file() and GENERATED not in p.relative_to(top).parts[:-1]
                  and not never_ships(p.relative_to(ROOT).as_posix()))


def _generated_target(decl: Declaration, rel: str) -> str:
    for pkg in decl.python:
        if rel.startswith(pkg + "/"):
            return f"app/src/{Path(pkg).name}/{rel[len(pkg) + 1:]}"
    raise BuildError(f"images/{decl.name}/image.yaml: generated {rel} is inside none of its python packages")


def own_files(decl: Declaration) -> list[tuple[Path, str]]:
    """(file of the tree, path in the image) of the image's own layer."""
    out = []
    for pkg in decl.python:
        top = ROOT / pkg
        out += [(p, f"app/src/{top.name}/{p.relative_to(top).as_posix()}") for p in _sources(top)]
    for rel in decl.generated:
        files = sorted(p for p in (ROOT / rel).glob("*.py"))
        if not files:
            raise BuildError(f"{rel} holds no generated module: run `make generate`")
        out += [(p, f"{_generated_target(decl, rel)}/{p.name}") for p in files]
    for spec in decl.files:
        src = (ROOT / spec.source).resolve()
        if not src.is_file():
            raise BuildError(f"images/{decl.name}/image.yaml: {spec.source} is missing (`make tools` builds it)")
        out.append((src, spec.target))
    return out


def _own_layer(decl: Declaration, base_tree: Path | None, lib_tree: Path | None, interpreter: str) -> Layer:
    files = own_files(decl)
    # By path in the image and content, never by where the tree is: every clone shares the layer.
    key = cache.key(decl.name, base_tree.name if base_tree else "", lib_tree.name if lib_tree else "",
                    *decl.mount_points, Path(staging.__file__).read_bytes(), staging.WRITER,
                    *(f"{t}\0{p.stat().st_mode & 0o111}\0".encode() + p.read_bytes() for p, t in files))
    known = cache.known_layer(f"own-{key}")
    if known:
        return known
    with tempfile.TemporaryDirectory(prefix=f"imagekit-{decl.name}-") as tmp:
        tree = Path(tmp)
        for src, target in files:
            dest = tree / target
            dest.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(src, dest)
            dest.chmod(0o755 if src.stat().st_mode & 0o111 and not target.endswith(".py") else 0o644)
        for mount_point in decl.mount_points:
            (tree / mount_point.strip("/")).mkdir(parents=True, exist_ok=True)
        if decl.python:
            src_dir = tree / "app" / "src"
            staging.compile_bytecode(base_tree, ["/app/src"], interpreter=interpreter,
                                     binds=((lib_tree / "app" / "lib", "/app/lib", True), (src_dir, "/app/src", False)))
        for path in tree.rglob("*"):
            if path.is_dir():
                path.chmod(0o755)
        layer = write_layer(staging.entries(tree), cache.blobs())
    cache.keep_layer(f"own-{key}", layer)
    return layer


def _config(decl: Declaration, env: dict[str, str]) -> dict:
    config: dict = {"Labels": {"org.opencontainers.image.title": f"cloud-provider-dvp/{decl.name}",
                               "org.opencontainers.image.version": version(),
                               "org.opencontainers.image.licenses": "Apache-2.0"}}
    if decl.user:
        config["User"] = decl.user
    merged = {**env, **decl.env}
    if merged:
        config["Env"] = [f"{k}={v}" for k, v in sorted(merged.items())]
    if decl.entrypoint:
        config["Entrypoint"] = list(decl.entrypoint)
    return config


def _write(decl: Declaration, layers: list[Layer], env: dict[str, str], out: Path, debs: list, pins: list[str],
           files: list[tuple[Path, str]]) -> Built:
    """The layout and its SBOM; `files` (file of the tree, path in the image) are what the image takes from the
    tree, the Go binaries among them listed with their modules."""
    config = _config(decl, env)
    when = created()
    image = oci.write_layout(layers, config, out / decl.name, created=when, blobs=cache.blobs(),
                             tag=f"v{version()}", history=f"imagekit: {decl.name}")
    ours = sorted({Path(p).name for p in decl.python})
    sbom.write(image, sbom.document(decl.name, version(), when, debs, pins, ours, gobuildinfo.binaries(files)))
    return Built(decl.name, decl.key, image.layout, image.digest, config)


def image_from_entries(name: str, entries: list[Entry], out: Path) -> Built:
    """A scratch image (no base) of `entries`: how the dhctl bundle is made, from the build or `python -m bundle`."""
    decl = declarations.load(name)
    files = [(e.source, e.path.strip("/")) for e in entries if e.source is not None and e.source.is_file()]
    return _write(decl, [write_layer(entries, cache.blobs())], {}, out, [], [], files)


def _contents(decl: Declaration) -> Callable[[], list[Entry]]:
    if decl.contents not in RECIPES:
        raise BuildError(f"images/{decl.name}/image.yaml: contents: {decl.contents!r} is no recipe (recipes: "
                         f"{', '.join(RECIPES)})")
    return RECIPES[decl.contents]


def build(names: list[str] | None, out: Path, log=lambda message: None) -> dict[str, Built]:
    settings = declarations.base_settings()
    interpreter = settings["python"]["interpreter"]
    python_version = Path(interpreter).name.removeprefix("python")
    decls = [declarations.load(n) for n in (names or declarations.names())]
    out.mkdir(parents=True, exist_ok=True)
    built: dict[str, Built] = {}
    python_layers = None
    for decl in decls:
        log(f"imagekit: {decl.name}")
        if decl.base == "scratch":
            built[decl.name] = image_from_entries(decl.name, _contents(decl)(), out)
            continue
        if decl.base == "static":
            layers = [bases.static_base(), _own_layer(decl, None, None, interpreter)]
            built[decl.name] = _write(decl, layers, {}, out, [], [], own_files(decl))
            continue
        if python_layers is None:
            base_layer, base_tree = bases.python_base()
            lib_layer, lib_tree, pins = wheels.layer(base_tree, python_version, interpreter)
            python_layers = (base_layer, base_tree, lib_layer, lib_tree, pins)
        base_layer, base_tree, lib_layer, lib_tree, pins = python_layers
        layers, debs = [base_layer], list(bases.python_packages())
        if decl.debian:
            extra, extra_debs = bases.extra_packages(decl.name)
            layers.append(extra)
            debs += extra_debs
        layers += [lib_layer, _own_layer(decl, base_tree, lib_tree, interpreter)]
        built[decl.name] = _write(decl, layers, settings["python"]["env"], out, debs, pins, own_files(decl))
    return built
