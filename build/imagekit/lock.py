# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""`python -m imagekit lock`: records images/debian.lock from the suite's current index. Sets: `python` (the
closure of the Python base's packages) and one per image that adds packages (its closure less the base's)."""

from __future__ import annotations

from . import debian, declarations

LOCK = declarations.IMAGES / "debian.lock"


def record() -> dict[str, list[str]]:
    settings = declarations.base_settings()
    suite, exclude = settings["debian"]["suite"], settings["debian"]["exclude"]
    date, index = debian.fetch_index(suite)
    base_roots = settings["python"]["packages"]
    sets = {"python": debian.closure(index, base_roots, exclude)}
    for name in declarations.names():
        decl = declarations.load(name)
        if decl.debian:
            full = debian.closure(index, [*base_roots, *decl.debian], exclude)
            sets[name] = sorted(set(full) - set(sets["python"]))
    packages = {n: debian.package(index, n) for names in sets.values() for n in names}
    debian.write_lock(LOCK, suite, date, sets, packages)
    return sets
