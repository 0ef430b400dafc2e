# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""sim: DVP's controllers, simulated against any Kubernetes API holding the DVP CRDs (README.md)."""

from .domain.disks import serial
from .faults import SimFaults
from .settings import SettingsInvalid, SimConfig
from .simulator import Simulator

__all__ = ["SettingsInvalid", "SimConfig", "SimFaults", "Simulator", "serial"]
