# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0

import os

import pytest
import snapshot_webhook_certificate as hook
from lib.testing.tls_hook_cases import *  # noqa: F403 - the shared certificate-hook cases run against this hook


@pytest.fixture
def cert_hook():
    return hook, os.path.join(os.path.dirname(__file__), "snapshot_webhook_certificate.py")
