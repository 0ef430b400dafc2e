# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""The traversal classes, each a layer and the line it must be refused with, run by module_source.extract into a
root beside a victim file and an outside directory. The same table runs in the tests' interpreter
(test_traversal.py) and, as `python3 traversal_cases.py`, inside an image on Debian's interpreter (3.13.5, the
images'): the extractor must not depend on which tarfile filters the interpreter has. Prints one JSON object:
case -> the refusal line (or "ok"), and whether anything outside the root changed."""

from __future__ import annotations

import io
import json
import os
import sys
import tarfile
import tempfile
from pathlib import Path

LONG = "x" * 250


def _info(name: str, kind: str = "file", target: str = "", data: bytes = b"") -> tuple[tarfile.TarInfo, bytes]:
    info = tarfile.TarInfo(name)
    info.type = {"file": tarfile.REGTYPE, "dir": tarfile.DIRTYPE, "sym": tarfile.SYMTYPE, "hard": tarfile.LNKTYPE,
                 "fifo": tarfile.FIFOTYPE, "chr": tarfile.CHRTYPE, "sparse": tarfile.GNUTYPE_SPARSE}[kind]
    info.linkname, info.size = target, len(data)
    return info, data


def _chain() -> list:
    """Links that each add a 250-character component to the one before: resolving `escape` takes the path past
    PATH_MAX before its `..` run climbs out (the shape that walks past CPython 3.13.0's data filter)."""
    out = [_info(LONG, "dir"), _info("l0", "sym", LONG)]
    out += [_info(f"l{i}", "sym", f"l{i - 1}/{LONG}") for i in range(1, 17)]
    out.append(_info("escape", "sym", "l16/" + "../" * 40 + "outside"))
    return out


# name -> (entries, refusal line after "L: ", or "ok")
CASES: dict[str, tuple[list, str]] = {
    "plain files": ([_info("a", "dir"), _info("a/f", data=b"1"), _info("a/l", "sym", "f"),
                     _info("a/h", "hard", "a/f")], "ok"),
    "absolute name kept inside": ([_info("/abs/f", data=b"1")], "ok"),
    "dotdot name": ([_info("../victim", data=b"x")], 'entry "../victim": `..` in the path'),
    "dotdot inside name": ([_info("a/../../victim", data=b"x")], 'entry "a/../../victim": `..` in the path'),
    "whiteout of dotdot": ([_info(".wh...")], 'entry ".wh...": a whiteout must name a plain entry'),
    "whiteout through dotdot": ([_info("../.wh.victim")], 'entry "../.wh.victim": `..` in the path'),
    "whiteout through a link": ([_info("s", "sym", ".."), _info("s/.wh.victim")],
                                'entry "s/.wh.victim": s is a link or not a directory'),
    "opaque through a link": ([_info("s", "sym", "../outside"), _info("s/.wh..wh..opq")],
                              'entry "s/.wh..wh..opq": s is a link or not a directory'),
    "file through a link": ([_info("s", "sym", "../outside"), _info("s/f", data=b"x")],
                            'entry "s/f": s is a link or not a directory'),
    "file through an absolute link": ([_info("s", "sym", "/"), _info("s/tmp/f", data=b"x")],
                                      'entry "s/tmp/f": s is a link or not a directory'),
    "hardlink out": ([_info("h", "hard", "../victim")],
                     'entry "h": hardlink to "../victim", which is not a file inside the image'),
    "hardlink to a directory": ([_info("d", "dir"), _info("h", "hard", "d")],
                                'entry "h": hardlink to "d", which is not a file inside the image'),
    "hardlink through a link": ([_info("s", "sym", ".."), _info("h", "hard", "s/victim")],
                                'entry "h": s is a link or not a directory'),
    "link out": ([_info("out", "sym", "../victim")], 'entry "out": a symlink that leads above the root'),
    "absolute link": ([_info("out", "sym", "/etc/passwd")], 'entry "out": a symlink that has an absolute target'),
    "link out through another link": ([_info("d", "dir"), _info("d/s", "sym", ".."), _info("up", "sym", "d/s/..")],
                                      'entry "up": a symlink that leads above the root'),
    "link loop": ([_info("a", "sym", "b"), _info("b", "sym", "a")], 'entry "a": a symlink that takes more than 40 '
                                                                    'links'),
    "link chain past PATH_MAX": (_chain(), 'entry "escape": a symlink that cannot be resolved (File name too long)'),
    "fifo": ([_info("f", "fifo")], 'entry "f": fifo entries are refused'),
    "device": ([_info("c", "chr")], 'entry "c": character device entries are refused'),
    "sparse": ([_info("s", "sparse")], 'entry "s": sparse file entries are refused'),
    "duplicate": ([_info("f", data=b"1"), _info("f", data=b"2")], 'entry "f": a second entry for this path in one '
                                                                   'layer'),
}


def tar_bytes(entries: list) -> bytes:
    out = io.BytesIO()
    with tarfile.open(fileobj=out, mode="w", format=tarfile.GNU_FORMAT) as t:
        for info, data in entries:
            t.addfile(info, io.BytesIO(data) if info.isreg() else None)
    return out.getvalue()


def _snapshot(top: Path, skip: Path) -> dict[str, str]:
    out = {}
    for dirpath, dirs, files in os.walk(top):
        if Path(dirpath) == skip or skip in Path(dirpath).parents:
            continue
        for name in dirs + files:
            p = Path(dirpath) / name
            if p == skip:
                continue
            out[str(p.relative_to(top))] = os.readlink(p) if p.is_symlink() else \
                ("dir" if p.is_dir() else p.read_text())
    return out


def run_case(entries: list) -> tuple[str, bool]:
    """(the refusal line without its "L: " prefix, or "ok"; whether anything outside the root changed)."""
    from module_source import SourceError, extract

    with tempfile.TemporaryDirectory() as tmp:
        top = Path(tmp)
        (top / "victim").write_text("victim")
        (top / "outside").mkdir()
        root = top / "root"
        root.mkdir()
        before = _snapshot(top, root)
        try:
            extract.layer(io.BytesIO(tar_bytes(entries)), root, "L", extract.Budget())
            extract.check_links(root, "L")
            line = "ok"
        except SourceError as exc:
            line = str(exc).removeprefix("L: ")
        return line, _snapshot(top, root) != before


def main() -> int:
    sys.path.insert(0, sys.argv[1])  # where module_source is
    results = {name: run_case(entries) for name, (entries, _) in CASES.items()}
    print(json.dumps({"python": sys.version.split()[0], "results": results}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
