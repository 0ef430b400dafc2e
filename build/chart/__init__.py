# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""The module's chart rendered as Deckhouse renders it (`python -m chart.render`, `make render`): the Helm engine,
the example values, the values every optional switch gives."""
