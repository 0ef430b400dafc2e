# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""DVP's refusals exactly as kube-apiserver sends them (metav1.Status bodies), for fakes: each goes through
dvp_common's own mapping (`error_for`), so a fake raises what the real client would raise.

Shapes: an admission webhook denial is 403 `admission webhook "<webhook>" denied the request: <why>` (DVP's
validators are controller-runtime webhooks: code 403, reason Forbidden); the authorizer's is 403 `<res>.<group>
"<name>" is forbidden: User "<user>" cannot <verb> resource "<res>" in API group "<group>" in the namespace
"<ns>"`; a schema error is 422 `<Kind>.<group> "<name>" is invalid: <field>: <detail>`."""

from __future__ import annotations

from dvp_common.kube.errors import ApiError, error_for

GROUP = "virtualization.deckhouse.io"
USER = "system:serviceaccount:proj:provider"
# DVP's validating webhooks are named <short kind>.virtualization-controller.validate.d8-virtualization.
WEBHOOKS = {"VirtualMachine": "vm", "VirtualDisk": "vd", "VirtualMachineBlockDeviceAttachment": "vmbda",
            "VirtualMachineOperation": "vmop"}


def _status(code: int, reason: str, message: str, kind: str = "", name: str = "") -> dict:
    return {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure", "message": message,
            "reason": reason, "details": {"name": name, "kind": kind}, "code": code}


def webhook_denial(kind: str, why: str, name: str = "", namespace: str = "", verb: str = "create") -> ApiError:
    """What the client raises for the request (kind, name, namespace, verb) DVP's webhook refused."""
    hook = f"{WEBHOOKS[kind]}.virtualization-controller.validate.d8-virtualization"
    return error_for(403, _status(403, "Forbidden", f'admission webhook "{hook}" denied the request: {why}'),
                     kind=kind, name=name, namespace=namespace, verb=verb)


def rbac_denial(verb: str, resource: str, namespace: str, name: str = "", group: str = GROUP) -> ApiError:
    full = f"{resource}.{group}" if group else resource
    obj = f'{full} "{name}"' if name else full
    message = (f'{obj} is forbidden: User "{USER}" cannot {verb} resource "{resource}" in API group "{group}" '
               f'in the namespace "{namespace}"')
    return error_for(403, _status(403, "Forbidden", message, resource, name), verb=verb)


def schema_invalid(kind: str, name: str, field: str, detail: str, group: str = GROUP) -> ApiError:
    message = f'{kind}.{group} "{name}" is invalid: {field}: {detail}'
    return error_for(422, _status(422, "Invalid", message, kind, name), verb="create")
