# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""The images (build/imagekit): per image its size compressed (the blobs a pull downloads) and uncompressed (the
layers' tars), the shared base layer's size and whether every Python image shares it and the wheels layer by
digest; the build time cold (empty layer cache; the .debs, checked against the lock, and uv's wheel cache are
kept, as on any machine that built once) and warm (one line changed in one component: only its own layer is
made again); cold start to ready of each component from its image rootfs against the same from the tree, in one
world (demo.image_start)."""

from __future__ import annotations

import gzip
import os
import statistics
import tempfile
import time
from pathlib import Path

from bench.measure import figure

PYTHON_IMAGES = ("capdvp-controller-manager", "cloud-controller-manager", "cloud-data-discoverer", "csi-driver",
                 "webhooks")
WARM_CHANGE = Path(__file__).resolve().parents[1] / "images/cloud-data-discoverer/cloud_data_discoverer/__init__.py"
MB = 1_000_000


def _tar_size(blob: Path) -> int:
    size = 0
    with gzip.open(blob) as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            size += len(chunk)
    return size


def _sizes(built) -> list[dict]:
    from imagekit import oci

    out, tars = [], {}
    bases = {}
    for name, b in sorted(built.items()):
        image = oci.read_image(b.layout)
        compressed = sum(layer.size for layer in image.layers)
        for layer in image.layers:
            if layer.digest not in tars:
                tars[layer.digest] = _tar_size(image.blob(layer.digest))
        out.append(figure(f"images: {name} compressed", round(compressed / MB, 2), "MB",
                          "<= 60" if name in PYTHON_IMAGES else None))
        out.append(figure(f"images: {name} uncompressed", round(sum(tars[la.digest] for la in image.layers) / MB, 2),
                          "MB", None))
        if name in PYTHON_IMAGES:
            bases[name] = (image.layers[0], image.layers[-2])
    (base, lib), = set(bases.values()) if len(set(bases.values())) == 1 else [(None, None)]
    out.append(figure("images: Python images sharing the base and wheels layers by digest",
                      len(bases) if base else 0, "images", f"== {len(PYTHON_IMAGES)}"))
    if base:
        out.append(figure("images: shared base layer compressed", round(base.size / MB, 2), "MB", "<= 40"))
        out.append(figure("images: shared wheels layer compressed", round(lib.size / MB, 2), "MB", None))
    return out


def _build_seconds(names, out: Path) -> float:
    from imagekit import build

    start = time.perf_counter()
    build.build(list(names), out)
    return round(time.perf_counter() - start, 2)


def _build_times() -> list[dict]:
    from imagekit import cache

    debs = cache.root() / "debs"
    saved = os.environ.get("CPDVP_CACHE")
    with tempfile.TemporaryDirectory(prefix="bench-images-") as tmp:
        work = Path(tmp)
        (work / "cache" / "images").mkdir(parents=True)
        (work / "cache" / "images" / "debs").symlink_to(debs)
        os.environ["CPDVP_CACHE"] = str(work / "cache")
        original = WARM_CHANGE.read_bytes()
        try:
            cold = _build_seconds(PYTHON_IMAGES, work / "out")
            WARM_CHANGE.write_bytes(original + b"# bench: a one-line change\n")
            warm = _build_seconds(["cloud-data-discoverer"], work / "out")
        finally:
            WARM_CHANGE.write_bytes(original)
            if saved is None:
                os.environ.pop("CPDVP_CACHE", None)
            else:
                os.environ["CPDVP_CACHE"] = saved
    return [figure("images: build of the 5 Python images, cold", cold, "s", None),
            figure("images: rebuild after a one-line change in one component, warm", warm, "s", "<= 10")]


def _start_times(rounds: int = 3) -> list[dict]:
    """Medians over `rounds` worlds: one cold start is a few hundred milliseconds, within the noise of a loaded
    machine."""
    from demo import image_start

    samples = [image_start.start_times() for _ in range(rounds)]
    out = []
    for name in samples[0]:
        times = {mode: statistics.median(s[name][mode] for s in samples) for mode in ("image", "tree")}
        out.append(figure(f"images: {name} cold start to ready from the image", round(times["image"], 3), "s",
                          None))
        out.append(figure(f"images: {name} cold start to ready from the tree", round(times["tree"], 3), "s", None))
        out.append(figure(f"images: {name} start from the image / from the tree",
                          round(times["image"] / times["tree"], 2), "x", "<= 1.2"))
    return out


def figures():
    from imagekit import build

    with tempfile.TemporaryDirectory(prefix="bench-images-") as tmp:
        yield from _sizes(build.build(None, Path(tmp)))
    yield from _build_times()
    yield from _start_times()
