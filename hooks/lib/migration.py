# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""Migration from the legacy DVPClusterConfiguration to ModuleConfig v2 + d8-credentials + DVPInstanceClass +
NodeGroup objects (pure functions).

The migration is pending while the legacy configuration exists and the new objects are not all there. Then the
legacy fields are projected into the values (so the module keeps rendering), and a bundle of the new objects is
offered to the admin in Secret d8-migration-resources; applying it completes the migration."""

from typing import NamedTuple  # not a dataclass: generating its methods costs every hook run at import

from lib import bindings, credentials, digest, legacy
from lib import values as v
from lib.errors import InvalidInput

BUNDLE_SECRET = "d8-migration-resources"  # noqa: S105 - a Secret name
BUNDLE_KEY = "resources.yaml"
MARKER = "d8-module-is-migrating"
MODULE_CONFIG = "cloud-provider-dvp"
MASTER = "master"
LABELS = {"heritage": "deckhouse", "module": "cloud-provider-dvp"}

SNAPSHOT_LEGACY = "legacy_cluster_configuration"
SNAPSHOT_MODULE_CONFIG = "module_config"
SNAPSHOT_CREDENTIALS = "credentials_secret"
SNAPSHOT_NODE_GROUPS = "node_groups"
SNAPSHOT_INSTANCE_CLASSES = "instance_classes"
STATE_SNAPSHOTS = (SNAPSHOT_LEGACY, SNAPSHOT_MODULE_CONFIG, SNAPSHOT_CREDENTIALS, SNAPSHOT_NODE_GROUPS,
                   SNAPSHOT_INSTANCE_CLASSES)
# Besides the snapshots, what decides the state and the bundle: a change to any of these is a new input.
STATE_CODE = ("hooks/lib/legacy.py", "hooks/lib/migration.py", "hooks/lib/schema.py", "hooks/lib/snapshots.py",
              "images/dvp-common/dvp_common/credentials.py", "images/dvp-common/dvp_common/schema_subset.py",
              legacy.SCHEMA)


def state_fingerprint(ctx) -> str:
    """Both migration hooks bind the same state snapshots, so the fingerprint the beforeHelm hook stores in values
    tells the afterHelm hook whether `pending` there is still about this input."""
    from lib import fingerprint
    from lib.snapshots import results

    return fingerprint.of({s: results(ctx, s) for s in STATE_SNAPSHOTS}, STATE_CODE)


def state_bindings(**extra) -> list[dict]:
    """The snapshots that decide whether the migration is pending (shared by both migration hooks)."""
    return [
        legacy.binding(SNAPSHOT_LEGACY) | extra,
        bindings.kubernetes(
            SNAPSHOT_MODULE_CONFIG, "ModuleConfig",
            "{version: .spec.version, enabled: .spec.enabled, hasProvider: (.spec.settings.provider != null),"
            " kubeconfig: (.spec.settings.provider.kubeconfigDataBase64? // null)}",
            api_version="deckhouse.io/v1alpha1", names=[MODULE_CONFIG], **extra),
        bindings.kubernetes(SNAPSHOT_CREDENTIALS, "Secret", "{name: .metadata.name, type: .type}",
                            namespace=v.NAMESPACE, names=[credentials.rule().NAME], **extra),
        bindings.kubernetes(
            SNAPSHOT_NODE_GROUPS, "NodeGroup",
            "(.spec.cloudInstances.classReference // .spec.classReference // {}) as $ref"
            " | {name: .metadata.name, classKind: ($ref.kind // null), className: ($ref.name // null)}",
            api_version="deckhouse.io/v1", **extra),
        bindings.kubernetes(SNAPSHOT_INSTANCE_CLASSES, "DVPInstanceClass", "{name: .metadata.name}",
                            api_version="deckhouse.io/v1alpha1", **extra),
    ]


class Cluster(NamedTuple):
    """What the cluster holds of the new objects, from the snapshots."""
    module_config: dict | None
    credentials: bool
    node_groups: dict[str, dict]
    instance_classes: set[str]

    @classmethod
    def from_snapshots(cls, mc: list, creds: list, ngs: list, ics: list) -> "Cluster":
        module_config = mc[0] if mc else None
        if module_config is not None:
            kubeconfig = module_config.get("kubeconfig")
            if kubeconfig is not None and not isinstance(kubeconfig, str):
                raise InvalidInput(f"ModuleConfig {MODULE_CONFIG}", "spec.settings.provider.kubeconfigDataBase64",
                                   "must be a base64 string")
        secret_type = credentials.rule().TYPE
        # Names are strings (metadata.name); anything else in a reference names no object of ours.
        return cls(
            module_config=module_config,
            credentials=any(c.get("type") == secret_type for c in creds),
            node_groups={n["name"]: n for n in ngs if isinstance(n.get("name"), str)},
            instance_classes={i["name"] for i in ics if isinstance(i.get("name"), str)},
        )


def groups(pcc: dict) -> list[tuple[str, dict]]:
    """(NodeGroup name, group) for the master group and every static group of the legacy configuration."""
    out = [(MASTER, pcc["masterNodeGroup"])] if pcc.get("masterNodeGroup") else []
    return out + [(g["name"], g) for g in pcc.get("nodeGroups") or []]


def instance_class_name(node_group: str) -> str:
    # Stable and collision-free whatever the group name: a readable prefix plus a hash of the full name.
    return f"{node_group[:50].rstrip('-')}-{digest.hexdigest(node_group.encode())[:12]}"


def complete(pcc: dict, cluster: Cluster) -> bool:
    mc = cluster.module_config or {}
    version = mc.get("version")
    if not (isinstance(version, int) and version >= 2 and mc.get("enabled") is not False and mc.get("hasProvider")):
        return False
    if not cluster.credentials:
        return False
    for name, _ in groups(pcc):
        ng = cluster.node_groups.get(name)
        if (not ng or ng.get("classKind") != "DVPInstanceClass" or not isinstance(ng.get("className"), str)
                or ng["className"] not in cluster.instance_classes):
            return False
    return True


def hybrid_kubeconfig(cluster: Cluster) -> str | None:
    """The kubeconfig a v1 ModuleConfig still carries (clusters that never had a DVPClusterConfiguration)."""
    return (cluster.module_config or {}).get("kubeconfig") or None


def pending(pcc: dict | None, cluster: Cluster) -> bool:
    if pcc is None:
        # Only the credentials move: done once d8-credentials exists.
        return bool(hybrid_kubeconfig(cluster)) and not cluster.credentials
    return not complete(pcc, cluster)


def admin_can_apply(commander_managed: bool, commander_info_json: str | None) -> bool:
    """Whether to ask the admin to apply the bundle: not while a Commander that only knows the legacy format
    manages the cluster (commander-info data.json flags.cloudProviderNoPCCInputFormatSupported == "1")."""
    if not commander_managed:
        return True
    import json

    if not isinstance(commander_info_json, str | None):
        return False
    try:
        flags = json.loads(commander_info_json or "{}").get("flags") or {}
    except (ValueError, AttributeError, RecursionError):
        return False
    return isinstance(flags, dict) and str(flags.get("cloudProviderNoPCCInputFormatSupported")) == "1"


def settings(pcc: dict) -> dict:
    """ModuleConfig v2 settings equivalent to the legacy configuration."""
    provider = pcc.get("provider") or {}
    params = {"layout": pcc.get("layout"), "sshPublicKey": pcc.get("sshPublicKey")}
    for key in ("sshCAKeys", "region", "zones"):  # an empty list is no setting: it stays out
        if pcc.get(key):
            params[key] = pcc[key]
    for key in ("ingressPorts", "additionalVMLabels"):
        if key in provider:
            params[key] = provider[key]
    ips = {name: g["instanceClass"]["virtualMachine"]["ipAddresses"] for name, g in groups(pcc)
           if g.get("instanceClass", {}).get("virtualMachine", {}).get("ipAddresses")}
    if ips:
        params["ipAddresses"] = ips
    prov = {"namespace": provider.get("namespace")}
    if provider.get("networkPolicy"):
        prov["networkPolicy"] = provider["networkPolicy"]
    return {"provider": {"parameters": prov}, "nodes": {"parameters": params}, "storage": {"parameters": {}}}


def project(values: dict, pcc: dict) -> list[str]:
    """While migrating, the legacy configuration is the truth: its fields override the module settings.
    Returns the settings paths written (under cloudProviderDvp)."""
    s = settings(pcc)
    written = []
    for section in ("provider", "nodes"):
        for key, value in s[section]["parameters"].items():
            if key != "ipAddresses":
                v.set_(values, v.module(f"{section}.parameters.{key}"), value)
                written.append(f"{section}.parameters.{key}")
    return written


def unproject(values: dict, config_values: dict, paths: list[str]) -> None:
    """Once the migration is complete, the settings projected from the legacy configuration give way to the
    ModuleConfig again: values a hook wrote outlive the configuration they came from (addon-operator keeps a
    hook's values patches over later config changes), so every run sets them back to what the config says."""
    for path in paths:
        if not isinstance(path, str):
            continue
        config = v.get(config_values, v.module(path), _UNSET)
        if config is _UNSET:
            v.delete(values, v.module(path))
        elif v.get(values, v.module(path), _UNSET) != config:
            v.set_(values, v.module(path), config)


_UNSET = object()


def credentials_secret(kubeconfig_b64: str) -> dict:
    """The credentials Secret as the one credentials rule wants it (dvp_common.credentials)."""
    rule = credentials.rule()
    return {"apiVersion": "v1", "kind": "Secret", "type": rule.TYPE,
            "metadata": {"name": rule.NAME, "namespace": v.NAMESPACE},
            "stringData": {"authScheme": rule.AUTH_SCHEME, "secret": kubeconfig_b64}}


def bundle(pcc: dict | None, cluster: Cluster | None = None) -> list[dict]:
    """The objects that replace the legacy configuration, for the admin to apply (without one, only the
    credentials Secret replacing the v1 ModuleConfig's kubeconfig)."""
    if pcc is None:
        kubeconfig = hybrid_kubeconfig(cluster) if cluster else None
        return [credentials_secret(kubeconfig)] if kubeconfig else []
    objs: list[dict] = [
        credentials_secret(pcc["provider"]["kubeconfigDataBase64"]),
        {"apiVersion": "deckhouse.io/v1alpha1", "kind": "ModuleConfig", "metadata": {"name": MODULE_CONFIG},
         "spec": {"enabled": True, "version": 2, "settings": settings(pcc)}},
    ]
    for name, group in groups(pcc):
        ic = instance_class_name(name)
        spec = {k: x for k, x in group["instanceClass"].items()}
        spec["virtualMachine"] = {k: x for k, x in spec["virtualMachine"].items() if k != "ipAddresses"}
        objs.append({"apiVersion": "deckhouse.io/v1alpha1", "kind": "DVPInstanceClass",
                     "metadata": {"name": ic}, "spec": spec})
        template = dict(group.get("nodeTemplate") or {})
        if name == MASTER:
            labels = dict(template.get("labels") or {})
            labels.update({"node-role.kubernetes.io/control-plane": "", "node-role.kubernetes.io/master": ""})
            template["labels"] = labels
        cloud = {"classReference": {"kind": "DVPInstanceClass", "name": ic},
                 "minPerZone": group["replicas"], "maxPerZone": group["replicas"]}
        zones = group.get("zones") or pcc.get("zones")
        if zones:
            cloud["zones"] = zones
        ng_spec = {"nodeType": "CloudPermanent", "cloudInstances": cloud}
        if template:
            ng_spec["nodeTemplate"] = template
        objs.append({"apiVersion": "deckhouse.io/v1", "kind": "NodeGroup", "metadata": {"name": name},
                     "spec": ng_spec})
    return objs


def bundle_text(pcc: dict | None, cluster: Cluster | None = None) -> str:
    import yaml

    # libyaml's emitter writes the same text as the pure-Python one for these plain documents, and faster
    dumper = getattr(yaml, "CSafeDumper", yaml.SafeDumper)
    return "".join("---\n" + yaml.dump(o, Dumper=dumper, sort_keys=False, default_flow_style=False)
                   for o in bundle(pcc, cluster))
