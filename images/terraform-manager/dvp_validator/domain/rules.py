# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""The rules dhctl's input is checked against before bootstrap, converge and destroy.

They are the module's own rules, called where they live (dvp_common, shared with the hooks and the webhook): the
credentials Secret rule (`dvp_common.credentials`), the NodeGroup/DVPInstanceClass rule the validation webhook
judges by (`dvp_common.node_groups`), the schemas Deckhouse and the layouts use (`openapi/config-values.yaml` with
jsonschema, `candi/openapi/*` with the hooks' keyword subset, `dvp_common.schema_subset`). The choice between the
legacy DVPClusterConfiguration and the v2 objects is the layouts' `migration` module rule: the legacy one only while
the v2 objects are incomplete.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from dvp_common import credentials
from dvp_common import node_groups as nodes
from dvp_common.schema_subset import first_error

from .inputs import Input
from .violations import Report, at

MODULE_CONFIG = "cloud-provider-dvp"
MODULE_NAMESPACE = "d8-cloud-provider-dvp"
MODULE_CONFIG_VERSION = 2

# Codes of our own; the NodeGroup/DVPInstanceClass ones are the rule's (dvp_common.node_groups).
MODULE_CONFIG_REQUIRED = "module_config_required"
MODULE_CONFIG_INVALID = "module_config_invalid"
CREDENTIALS_REQUIRED = "credential_secret_required"
CREDENTIALS_INVALID = "credential_secret_invalid"
MASTER_REQUIRED = "master_node_group_required"
MASTER_NOT_PERMANENT = "master_node_group_not_cloud_permanent"
CLASS_KIND_INVALID = "class_reference_kind_invalid"
CLASS_NAME_REQUIRED = "class_reference_name_required"
CLASS_NOT_FOUND = "instance_class_not_found"
CLASS_INVALID = "instance_class_invalid"
LEGACY_INVALID = "provider_cluster_configuration_invalid"
LEGACY_IN_USE = "provider_cluster_configuration_in_use"


@dataclass(frozen=True)
class Schemas:
    config_values: Any  # a jsonschema validator of ModuleConfig spec.settings
    instance_class: dict  # DVPInstanceClass spec (dvp_common.schema_subset)
    cluster_configuration: dict  # the legacy DVPClusterConfiguration (dvp_common.schema_subset)


def validate(inp: Input, schemas: Schemas) -> Report:
    report = Report()
    if inp.provider_cluster_configuration is not None and not v2_complete(inp):
        _legacy(inp.provider_cluster_configuration, schemas, report)
        return report
    _module_config(inp.settings, schemas, report)
    _credentials(inp.secrets, report)
    if inp.operation != "destroy":
        _node_groups(inp, schemas, report)
    return report


def v2_complete(inp: Input) -> bool:
    """The layouts' migration rule: ModuleConfig version >= 2, NodeGroup master, its class and d8-credentials."""
    version = ((inp.settings or {}).get("spec") or {}).get("version") or 0
    master = inp.node_groups.get(nodes.MASTER)
    master_class = nodes.class_reference(master or {}).get("name") or ""
    return (isinstance(version, int) and version >= MODULE_CONFIG_VERSION and master is not None
            and master_class in inp.instance_classes and credentials.NAME in inp.secrets)


def _legacy(pcc: dict, schemas: Schemas, report: Report) -> None:
    found = first_error(pcc, schemas.cluster_configuration, ())
    if found:
        field, reason = found
        report.error(at("DVPClusterConfiguration", "", field), LEGACY_INVALID,
                     f"DVPClusterConfiguration: {_dotted(field)} {reason}")
    report.warn("DVPClusterConfiguration", LEGACY_IN_USE,
                "the legacy DVPClusterConfiguration is used until ModuleConfig version 2, NodeGroup master, its "
                "DVPInstanceClass and Secret d8-credentials are all given")


def _module_config(mc: dict | None, schemas: Schemas, report: Report) -> None:
    path = at("ModuleConfig", MODULE_CONFIG)
    if not mc:
        report.error(path, MODULE_CONFIG_REQUIRED, f"ModuleConfig {MODULE_CONFIG} is required")
        return
    spec = mc.get("spec") or {}
    version = spec.get("version")
    if version != MODULE_CONFIG_VERSION:
        report.error(at("ModuleConfig", MODULE_CONFIG, ["spec", "version"]), MODULE_CONFIG_INVALID,
                     f"ModuleConfig {MODULE_CONFIG}: spec.version must be {MODULE_CONFIG_VERSION}, got {version!r}")
        return
    for err in sorted(schemas.config_values.iter_errors(spec.get("settings") or {}), key=lambda e: list(e.path)):
        field = ["spec", "settings", *err.absolute_path]
        reason = _schema_reason(err)
        if err.validator == "required":
            field, reason = [*field, err.message.split("'")[1]], "is required"
        report.error(at("ModuleConfig", MODULE_CONFIG, field), MODULE_CONFIG_INVALID,
                     f"ModuleConfig {MODULE_CONFIG}: {_dotted(field)} {reason}")


def _credentials(secrets: dict[str, dict], report: Report) -> None:
    if credentials.NAME not in secrets:
        report.error(at("Secret", credentials.NAME), CREDENTIALS_REQUIRED,
                     f"Secret {MODULE_NAMESPACE}/{credentials.NAME} of type {credentials.TYPE} is "
                     "required (the DVP kubeconfig)")
    for name, secret in sorted(secrets.items()):
        found = credentials.judge(secret.get("type"), secret.get("data"), secret.get("stringData"))
        for problem in found.problems:
            report.error(at("Secret", name, problem.field), CREDENTIALS_INVALID,
                         f"Secret {MODULE_NAMESPACE}/{name}: {problem}")


def _node_groups(inp: Input, schemas: Schemas, report: Report) -> None:
    groups, classes = inp.node_groups, inp.instance_classes
    if nodes.MASTER not in groups:
        report.error(at("NodeGroup", nodes.MASTER), MASTER_REQUIRED,
                     f'NodeGroup "{nodes.MASTER}" is required (CloudPermanent, classReference {nodes.CLASS_KIND})')
    for name, ng in sorted(groups.items()):
        spec = ng.get("spec") or {}
        cref = nodes.class_reference(ng)
        ref = ["spec", "cloudInstances", "classReference"]
        if name == nodes.MASTER and spec.get("nodeType") != "CloudPermanent":
            report.error(at("NodeGroup", name, ["spec", "nodeType"]), MASTER_NOT_PERMANENT,
                         f'NodeGroup "{name}": spec.nodeType must be CloudPermanent, got {spec.get("nodeType")!r}')
        problems = nodes.reference_problems(ng)
        for field, sentence in problems:
            code = CLASS_KIND_INVALID if field == "kind" else CLASS_NAME_REQUIRED
            report.error(at("NodeGroup", name, [*ref, field]), code, f'NodeGroup "{name}": {sentence}')
        if problems or cref.get("kind") != nodes.CLASS_KIND:
            continue
        if cref["name"] not in classes:
            report.error(at("NodeGroup", name, [*ref, "name"]), CLASS_NOT_FOUND,
                         f'NodeGroup "{name}": {nodes.CLASS_KIND} "{cref["name"]}" is not among the installer '
                         "resources")
    # dhctl's map key is the group's name, whatever its metadata says.
    used = [{**ng, "metadata": {**(ng.get("metadata") or {}), "name": name}} for name, ng in groups.items()]
    for name, ic in sorted(classes.items()):
        _instance_class(name, ic, nodes.users(name, used, ic), schemas, report)


def _instance_class(name: str, ic: dict, groups: set[str], schemas: Schemas, report: Report) -> None:
    # What the CRD refuses with what to write instead comes first: the schema would only name the field.
    unsupported = nodes.class_problems(ic)
    for field, sentence in unsupported:
        report.error(at(nodes.CLASS_KIND, name, field), nodes.CLASS_UNSUPPORTED,
                     f'{nodes.CLASS_KIND} "{name}": {field}: {sentence}')
    found = None if unsupported else first_error(ic.get("spec"), schemas.instance_class, ())
    if found:
        field, reason = found
        report.error(at(nodes.CLASS_KIND, name, ["spec", *field]), CLASS_INVALID,
                     f'{nodes.CLASS_KIND} "{name}": {_dotted(["spec", *field])} {reason}')
    for code, sentence in nodes.etcd_problems(nodes.CLASS_KIND, name, ic, groups):
        report.error(at(nodes.CLASS_KIND, name, ["spec", "etcdDisk"]), code, sentence)


def _dotted(field) -> str:
    return "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in field).lstrip(".") or "(root)"


def _schema_reason(err) -> str:
    """The schema side of a jsonschema error only: the instance may hold a kubeconfig or a key."""
    if err.validator in ("additionalProperties", "patternProperties"):
        return "has an unknown field"
    if err.validator == "not":
        return "uses a reserved key"
    value = err.validator_value
    return f"violates {err.validator} {value!r}" if not isinstance(value, dict | list) else f"violates {err.validator}"
