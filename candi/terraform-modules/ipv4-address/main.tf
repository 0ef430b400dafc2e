// Copyright 2026 The cloud-provider-dvp Authors
// SPDX-License-Identifier: Apache-2.0

// The node's VirtualMachineIPAddress. Owning it (rather than letting DVP make one per VM) keeps the address
// when the VM is replaced. A new static address is a new object, made before the old one goes.

variable "namespace" {
  type = string
}

variable "name" {
  type = string
}

variable "labels" {
  type = map(string)
}

variable "address" {
  description = "An IPv4 address or \"Auto\"."
  type        = string

  validation {
    condition     = var.address == "Auto" || can(cidrhost("${var.address}/32", 0))
    error_message = "nodes.parameters.ipAddresses: each entry must be an IPv4 address or \"Auto\"."
  }
}

resource "kubernetes_manifest" "address" {
  manifest = {
    apiVersion = "virtualization.deckhouse.io/v1alpha2"
    kind       = "VirtualMachineIPAddress"
    metadata = {
      name      = var.name
      namespace = var.namespace
      labels    = var.labels
    }
    // An object, not a map: the provider cannot fit a map missing staticIP into the CRD's object type.
    spec = { for k, v in {
      type     = var.address == "Auto" ? "Auto" : "Static"
      staticIP = var.address == "Auto" ? null : var.address
    } : k => v if v != null }
  }

  // Attached once the VM uses it; an update of a running node must not wait for Bound again.
  wait {
    fields = {
      "status.phase" = "^(Bound|Attached)$"
    }
  }

  // The fields in the manifest are ours: a manual edit of them is taken back on the next converge.
  field_manager {
    force_conflicts = true
  }

  timeouts {
    create = "10m"
    update = "5m"
    delete = "5m"
  }

  lifecycle {
    create_before_destroy = true
  }
}

output "name" {
  value = var.name
}

// kubernetes_manifest keeps no status in its state; the bound address is read back.
data "kubernetes_resource" "address" {
  api_version = "virtualization.deckhouse.io/v1alpha2"
  kind        = "VirtualMachineIPAddress"
  metadata {
    name      = var.name
    namespace = var.namespace
  }

  depends_on = [kubernetes_manifest.address]
}

output "address" {
  description = "The address DVP bound (the node's internal address)."
  value       = try(data.kubernetes_resource.address.object.status.address, "")
}
