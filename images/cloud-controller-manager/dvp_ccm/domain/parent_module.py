# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""Whether the parent's service-with-healthchecks module lets LoadBalancers be ServiceWithHealthchecks (`auto`).

A module switched off in the parent can leave its CRD served with no controller behind it, and a
ServiceWithHealthchecks there would never get an address; so, as upstream's CCM, the kind is used only when DVP
serves it **and** the parent's ModuleConfig `service-with-healthchecks` (deckhouse.io/v1alpha1, cluster-scoped)
has `spec.enabled: true`:

- the kind not served: a plain Service, whatever the ModuleConfig says;
- the ModuleConfig enabled: ServiceWithHealthchecks;
- `spec.enabled` false or unset, or no such ModuleConfig on a parent that serves the kind ModuleConfig: a plain
  Service (an unset module is off, as upstream reads it);
- the kind ModuleConfig not served (the parent is not Deckhouse), its read forbidden (project credentials rarely
  read cluster-scoped objects; the permission is optional) or never readable as a boolean: API discovery alone.
"""

from __future__ import annotations

import enum
from typing import Any

NAME = "service-with-healthchecks"  # the parent's module, and so its ModuleConfig's name


class Module(enum.Enum):
    ENABLED = "enabled"
    DISABLED = "disabled"
    ABSENT = "absent"  # no ModuleConfig of that name
    NOT_DECKHOUSE = "not-deckhouse"  # the parent does not serve ModuleConfig
    FORBIDDEN = "forbidden"  # our credentials may not read it
    INVALID = "invalid"  # read, but `spec.enabled` is no boolean (and nothing better was known before)


OFF = frozenset({Module.DISABLED, Module.ABSENT})


class BadModuleConfig(ValueError):
    """The ModuleConfig read does not say on or off; the message names the object and field."""


def state(obj: dict[str, Any] | None) -> Module:
    """What the ModuleConfig says; `obj` None: the parent serves ModuleConfig and has none of that name."""
    if obj is None:
        return Module.ABSENT
    spec = obj.get("spec")
    if spec is None:
        return Module.DISABLED
    if not isinstance(spec, dict):
        raise BadModuleConfig(f'ModuleConfig "{NAME}": spec must be an object, not {type(spec).__name__}')
    enabled = spec.get("enabled")
    if enabled is None:
        return Module.DISABLED
    if not isinstance(enabled, bool):
        raise BadModuleConfig(f'ModuleConfig "{NAME}": spec.enabled must be true or false, not '
                              f"{type(enabled).__name__}")
    return Module.ENABLED if enabled else Module.DISABLED


def use_healthchecks(served: bool, module: Module | None) -> bool:
    """The decision; `module` None: not looked at (a fixed mode), so discovery alone."""
    return served and module not in OFF


def explain(served: bool, module: Module | None) -> str:
    """One log line for the decision and why."""
    kind = "ServiceWithHealthchecks" if use_healthchecks(served, module) else "plain Services"
    if not served:
        return f"LoadBalancers are {kind}: DVP does not serve ServiceWithHealthchecks"
    why = {
        None: "DVP serves ServiceWithHealthchecks",
        Module.ENABLED: f'the parent\'s ModuleConfig "{NAME}" is enabled',
        Module.DISABLED: f'the parent\'s ModuleConfig "{NAME}" is not enabled',
        Module.ABSENT: f'the parent has no ModuleConfig "{NAME}" (the module is off)',
        Module.NOT_DECKHOUSE: "the parent serves no ModuleConfig: deciding by API discovery alone",
        Module.FORBIDDEN: f'reading the parent\'s ModuleConfig "{NAME}" is forbidden: deciding by API discovery '
                          "alone (grant get on it to follow the module)",
        Module.INVALID: f'the parent\'s ModuleConfig "{NAME}" says neither on nor off: deciding by API discovery '
                        "alone",
    }[module]
    return f"LoadBalancers are {kind}: {why}"
