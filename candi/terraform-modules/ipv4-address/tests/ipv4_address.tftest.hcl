// Copyright 2026 The cloud-provider-dvp Authors
// SPDX-License-Identifier: Apache-2.0

mock_provider "kubernetes" {}

variables {
  namespace = "demo-ns"
  name      = "demo-master-0-10-0-0-11"
  labels    = { "dvp.deckhouse.io/hostname" = "demo-master-0" }
  address   = "10.0.0.11"
}

run "static_address" {
  assert {
    condition = jsonencode(kubernetes_manifest.address.manifest) == jsonencode({
      apiVersion = "virtualization.deckhouse.io/v1alpha2"
      kind       = "VirtualMachineIPAddress"
      metadata   = { name = "demo-master-0-10-0-0-11", namespace = "demo-ns", labels = { "dvp.deckhouse.io/hostname" = "demo-master-0" } }
      spec       = { type = "Static", staticIP = "10.0.0.11" }
    })
    error_message = "manifest: ${jsonencode(kubernetes_manifest.address.manifest)}"
  }
  assert {
    condition     = output.name == "demo-master-0-10-0-0-11" && kubernetes_manifest.address.wait[0].fields == tomap({ "status.phase" = "^(Bound|Attached)$" })
    error_message = "wait: ${jsonencode(kubernetes_manifest.address.wait)}"
  }
}

run "automatic_address" {
  variables {
    name    = "demo-master-0-auto"
    address = "Auto"
  }

  assert {
    condition     = jsonencode(kubernetes_manifest.address.manifest.spec) == jsonencode({ type = "Auto" })
    error_message = "spec: ${jsonencode(kubernetes_manifest.address.manifest.spec)}"
  }
}

run "bad_address_is_rejected" {
  command = plan

  variables {
    address = "10.0.0.300"
  }

  expect_failures = [var.address]
}
