# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""Deleting a machine (and a cluster's clean-up) as pure functions: what is left in DVP -> the next step.

Waits are bounded by the object's own deletionTimestamp (no in-memory timers, so a restart keeps the deadline):
the VM gets `vm_timeout`, its disks `disk_timeout` more; past that, what is left is named in orphan annotations and
the finalizer goes anyway. While DVP fails, the deletion is retried until the disks' deadline, then released.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from enum import Enum

from dvp_common.rfc3339 import format_time

from capdvp.domain import names, ownership


class Next(Enum):
    WAIT = "wait"  # re-check after the recheck interval
    RELEASE = "release"  # write `orphans` (when any) and remove the finalizer
    RETRY = "retry"  # DVP failed: let the error propagate (the controller backs off)


@dataclass(frozen=True)
class Deadlines:
    vm: dt.datetime
    disks: dt.datetime


@dataclass(frozen=True)
class Left:
    """Our objects of the machine still in DVP (names), and which of them are already being deleted."""

    vm: str | None = None
    vm_deleting: bool = False
    disks: Sequence[str] = ()
    disks_deleting: frozenset[str] = frozenset()


@dataclass(frozen=True)
class Step:
    next: Next
    detach: bool = False  # detach the VM's hot-plugged volumes (the VM is still there)
    delete_vm: bool = False  # then delete it (it is not being deleted yet)
    delete_secret: bool = False  # the VM is gone: its cloud-init Secret may have lost its owner early
    delete_disks: tuple[str, ...] = ()
    orphans: Mapping[str, str] = field(default_factory=dict)


def _stamp(now: dt.datetime) -> str:
    return format_time(now)


def deadlines(deletion: dt.datetime, vm_timeout: float, disk_timeout: float) -> Deadlines:
    return Deadlines(deletion + dt.timedelta(seconds=vm_timeout),
                     deletion + dt.timedelta(seconds=vm_timeout + disk_timeout))


def vm_orphan(machine: str, now: dt.datetime) -> dict[str, str]:
    return {ownership.ORPHANED_VM: machine, ownership.ORPHANED_VM_TIMESTAMP: _stamp(now)}


def machine_step(machine: str, left: Left, now: dt.datetime, d: Deadlines) -> Step:
    """The VM first (its disks cannot go while it runs); then the disks; then release."""
    vm_here = left.vm is not None
    vm = {"detach": vm_here, "delete_vm": vm_here and not left.vm_deleting}
    orphans: dict[str, str] = {}
    if vm_here:
        if now < d.vm:
            return Step(Next.WAIT, **vm)
        orphans.update(vm_orphan(machine, now))
    delete_disks = tuple(n for n in left.disks if n not in left.disks_deleting)
    if left.disks and not vm_here and now < d.disks:
        return Step(Next.WAIT, delete_secret=True, delete_disks=delete_disks)
    for disk in left.disks:
        orphans[names.orphaned_disk_annotation(disk)] = disk
    return Step(Next.RELEASE, **vm, delete_secret=not vm_here, delete_disks=delete_disks, orphans=orphans)


def machine_failed(machine: str, now: dt.datetime, d: Deadlines) -> Step:
    """DVP unreachable or refusing: keep trying until the disks' deadline, then let the machine go."""
    if now < d.disks:
        return Step(Next.RETRY)
    return Step(Next.RELEASE, orphans=vm_orphan(machine, now))


ORPHANED_OBJECTS = "dvp.deckhouse.io/orphaned-objects"


def cluster_step(left: Sequence[str], now: dt.datetime, deletion: dt.datetime, timeout: float) -> Step:
    """A cluster's clean-up: wait for every object capdvp made (`left`: `Kind/name`), bounded by `timeout`."""
    if not left:
        return Step(Next.RELEASE)
    if now < deletion + dt.timedelta(seconds=timeout):
        return Step(Next.WAIT)
    return Step(Next.RELEASE, orphans={ORPHANED_OBJECTS: ",".join(sorted(left))[:4000],
                                       ownership.ORPHANED_VM_TIMESTAMP: _stamp(now)})
