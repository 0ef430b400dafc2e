# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""The legacy provider cluster configuration: Secret kube-system/d8-provider-cluster-configuration, holding
DVPClusterConfiguration (YAML) and the discovery data dhctl found at bootstrap (JSON)."""

from lib import bindings
from lib.snapshots import b64text, parse_yaml, require_mapping

NAMESPACE = "kube-system"
NAME = "d8-provider-cluster-configuration"
OBJECT = f"Secret {NAMESPACE}/{NAME}"
CONFIG_KEY = "cloud-provider-cluster-configuration.yaml"
DISCOVERY_KEY = "cloud-provider-discovery-data.json"
FIELD = f"data[{CONFIG_KEY}]"
DISCOVERY_FIELD = f"data[{DISCOVERY_KEY}]"
SCHEMA = "candi/openapi/cluster_configuration.yaml"


def binding(name: str) -> dict:
    return bindings.kubernetes(
        name, "Secret", f'{{config: .data["{CONFIG_KEY}"], discovery: .data["{DISCOVERY_KEY}"]}}',
        namespace=NAMESPACE, names=[NAME],
    )


def configuration(items: list) -> dict | None:
    """The parsed DVPClusterConfiguration, or None when the Secret or its key is absent."""
    if not items or not items[0].get("config"):
        return None
    return require_mapping(parse_yaml(b64text(items[0]["config"], OBJECT, FIELD), OBJECT, FIELD), OBJECT, FIELD)


def validated_configuration(items: list) -> dict | None:
    from lib import schema

    pcc = configuration(items)
    if pcc is not None:
        version = pcc.get("apiVersion")
        schema.validate(pcc, schema.load(SCHEMA, version if isinstance(version, str) else None), OBJECT, FIELD)
    return pcc
