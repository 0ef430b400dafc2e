# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""An SPDX 2.3 JSON document per image: its Debian packages and wheels with versions and package URLs, our own
packages at the module version, and for each Go binary the modules built into it (`pkg:golang/...`, read from
the binary by `gobuildinfo`) and its Go standard library; written beside the layout's index.json as
`sbom.spdx.json` and pushed with the image by the release."""

from __future__ import annotations

import json
import re
from pathlib import Path
from urllib.parse import quote

from .gobuildinfo import GoBinary

FILE = "sbom.spdx.json"
MEDIA_TYPE = "application/spdx+json"
ARTIFACT = "sbom"  # <out>/<image>/sbom: the SBOM as an OCI artifact whose subject is the image


def _spdx_id(kind: str, name: str) -> str:
    return f"SPDXRef-{kind}-" + re.sub(r"[^A-Za-z0-9.-]", "-", name)


def _package(kind: str, name: str, version: str, purl: str, checksum: str | None = None) -> dict:
    pkg = {"SPDXID": _spdx_id(kind, name), "name": name, "versionInfo": version, "downloadLocation": "NOASSERTION",
           "filesAnalyzed": False, "licenseConcluded": "NOASSERTION", "licenseDeclared": "NOASSERTION",
           "copyrightText": "NOASSERTION",
           "externalRefs": [{"referenceCategory": "PACKAGE-MANAGER", "referenceType": "purl",
                             "referenceLocator": purl}]}
    if checksum:
        pkg["checksums"] = [{"algorithm": "SHA256", "checksumValue": checksum}]
    return pkg


def _golang_purl(path: str, version: str) -> str:
    name = "/".join(quote(part, safe="") for part in path.split("/"))
    # A main module built from a checkout ("(devel)") or one replaced by a directory ("") has no version to name.
    return f"pkg:golang/{name}" + (f"@{quote(version, safe='')}" if version and version != "(devel)" else "")


def _go_packages(binaries: list[GoBinary]) -> list[dict]:
    """One package per module (as built in: a replacement says what it replaces) and per Go standard library,
    each saying which binaries hold it and their Go version."""
    where: dict[tuple[bool, str, str, str], list[str]] = {}
    for binary in binaries:
        built = f"/{binary.target} ({binary.go_version})"
        where.setdefault((True, "stdlib", binary.go_version, ""), []).append(built)
        for module in binary.modules:
            where.setdefault((False, module.path, module.version, module.note), []).append(built)
    out, ids = [], set()
    for (stdlib, path, version, note), targets in sorted(where.items()):
        # The Go standard library as scanners name it: pkg:golang/stdlib@<version without "go">.
        purl = f"pkg:golang/stdlib@{version.removeprefix('go')}" if stdlib else _golang_purl(path, version)
        pkg = _package("golang", path, version or "NOASSERTION", purl)
        pkg["SPDXID"] = _spdx_id("golang", f"{path}@{version}")
        while pkg["SPDXID"] in ids:  # two modules that differ only in characters an SPDX id cannot hold
            pkg["SPDXID"] += "-x"
        ids.add(pkg["SPDXID"])
        pkg["comment"] = f"in {', '.join(targets)}" + (f"; {note}" if note else "")
        out.append(pkg)
    return out


def document(image: str, version: str, created: str, debs: list, wheels: list[str], ours: list[str],
             go: list[GoBinary] = ()) -> dict:
    """`debs`: debian.Package; `wheels`: `name==version`; `ours`: our package names in the image; `go`: its Go
    binaries."""
    packages = [_package("deb", p.name, p.version, f"pkg:deb/debian/{p.name}@{p.version}?arch=amd64&distro=trixie",
                         p.sha256) for p in debs]
    for pin in wheels:
        name, _, ver = pin.partition("==")
        packages.append(_package("pypi", name, ver, f"pkg:pypi/{name.lower()}@{ver}"))
    for name in ours:
        packages.append(_package("ours", name, version, f"pkg:generic/cloud-provider-dvp/{name}@{version}"))
    packages += _go_packages(list(go))
    root = {"SPDXID": "SPDXRef-image", "name": image, "versionInfo": version, "downloadLocation": "NOASSERTION",
            "filesAnalyzed": False, "licenseConcluded": "NOASSERTION", "licenseDeclared": "Apache-2.0",
            "copyrightText": "Copyright 2026 The cloud-provider-dvp Authors", "primaryPackagePurpose": "CONTAINER"}
    return {
        "spdxVersion": "SPDX-2.3", "dataLicense": "CC0-1.0", "SPDXID": "SPDXRef-DOCUMENT",
        "name": f"cloud-provider-dvp/{image}", "documentNamespace":
            f"https://spdx.org/spdxdocs/cloud-provider-dvp/{image}-{version}",
        "creationInfo": {"created": created, "creators": ["Tool: imagekit (cloud-provider-dvp)"]},
        "packages": [root, *packages],
        "relationships": [{"spdxElementId": "SPDXRef-image", "relationshipType": "CONTAINS",
                           "relatedSpdxElement": p["SPDXID"]} for p in packages],
    }


def tag(image_digest: str) -> str:
    """The tag the SBOM is pushed under beside its image (the cosign convention, for registries without the
    referrers API): `sha256-<hex>.sbom`."""
    return image_digest.replace(":", "-") + ".sbom"


def write(image, doc: dict) -> Path:
    """The SBOM beside the image's index.json, and as an artifact layout in `<layout>/sbom`."""
    data = (json.dumps(doc, indent=1, sort_keys=True) + "\n").encode()
    path = image.layout / FILE
    path.write_bytes(data)
    from . import oci

    oci.write_artifact(data, MEDIA_TYPE, image, image.layout / ARTIFACT, tag(image.digest))
    return path
