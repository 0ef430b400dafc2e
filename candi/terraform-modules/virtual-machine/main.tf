// Copyright 2026 The cloud-provider-dvp Authors
// SPDX-License-Identifier: Apache-2.0

// A node's VirtualMachine and its cloud-init Secret, shared by the master and static-node modules.
// The VM is named after the node and changes in place (DVP restarts it when a change needs that); only a new
// boot disk replaces it, because a fresh disk must boot through cloud-init again.
// The VM resource never waits: a wait that ends in a timeout on create would taint it, and the next converge
// would delete a VM that was only slow. Readiness is the read-back below, which reports DVP's reason when
// the VM cannot start; dhctl then waits for the node itself (SSH, the Node object).

variable "namespace" {
  type = string
}

variable "vm" {
  description = "The node-spec module's vm output."
  type        = any
}

variable "user_data" {
  description = "cloud-init user data (cloudinit-merge module)."
  type        = string
  sensitive   = true
}

variable "boot_disk_name" {
  type = string
}

variable "data_disk_names" {
  description = "Disks after the boot disk, in order."
  type        = list(string)
  default     = []
}

variable "ip_address_name" {
  type = string
}

variable "labels" {
  description = "Labels of the cloud-init Secret."
  type        = map(string)
}

locals {
  // Without a core fraction DVP applies the VirtualMachineClass's sizing policy default (100% when none).
  cpu = { for k, v in { cores = var.vm.cores, coreFraction = var.vm.core_fraction == "" ? null : var.vm.core_fraction } : k => v if v != null }

  // Optional fields are dropped by filtering an object (a conditional merge would turn it into a map).
  spec = { for k, v in {
    virtualMachineClassName       = var.vm.virtual_machine_class
    runPolicy                     = var.vm.run_policy
    liveMigrationPolicy           = var.vm.live_migration_policy
    osType                        = "Generic"
    bootloader                    = var.vm.bootloader
    enableParavirtualization      = true
    terminationGracePeriodSeconds = 90
    disruptions                   = { restartApprovalMode = "Automatic" }
    cpu                           = local.cpu
    memory                        = { size = var.vm.memory }
    blockDeviceRefs               = [for d in concat([var.boot_disk_name], var.data_disk_names) : { kind = "VirtualDisk", name = d }]
    provisioning                  = { type = "UserDataRef", userDataRef = { kind = "Secret", name = var.vm.cloudinit_secret_name } }
    virtualMachineIPAddressName   = var.ip_address_name
    nodeSelector                  = length(var.vm.node_selector) == 0 ? null : var.vm.node_selector
    affinity                      = try(var.vm.affinity, null)
    tolerations                   = length(var.vm.tolerations) == 0 ? null : var.vm.tolerations
    priorityClassName             = var.vm.priority_class_name == "" ? null : var.vm.priority_class_name
  } : k => v if v != null }

  metadata = { for k, v in {
    name        = var.vm.name
    namespace   = var.namespace
    labels      = var.vm.labels
    annotations = length(var.vm.annotations) == 0 ? null : var.vm.annotations
  } : k => v if v != null }
}

// At plan, before anything is made: a VM of a missing class would stay Pending for ever.
data "kubernetes_resources" "vm_class" {
  api_version    = "virtualization.deckhouse.io/v1alpha2"
  kind           = "VirtualMachineClass"
  field_selector = "metadata.name=${var.vm.virtual_machine_class}"

  lifecycle {
    postcondition {
      condition     = try(length(self.objects), 0) > 0
      error_message = "virtualMachine.virtualMachineClassName: VirtualMachineClass \"${var.vm.virtual_machine_class}\" not found in the parent DVP cluster."
    }
  }
}

// Replacing this replaces the Secret and the VM (lifecycle.replace_triggered_by below).
resource "terraform_data" "boot_disk" {
  input = var.boot_disk_name
}

resource "kubernetes_secret_v1" "cloudinit" {
  metadata {
    name      = var.vm.cloudinit_secret_name
    namespace = var.namespace
    labels    = var.labels
  }
  type = "provisioning.virtualization.deckhouse.io/cloud-init"
  data = {
    userData = var.user_data
  }

  lifecycle {
    // dhctl hands a new cloudConfig (fresh bootstrap token) on every run; a running node never reads it again.
    ignore_changes       = [data]
    replace_triggered_by = [terraform_data.boot_disk]
  }
}

resource "kubernetes_manifest" "vm" {
  manifest = {
    apiVersion = "virtualization.deckhouse.io/v1alpha2"
    kind       = "VirtualMachine"
    metadata   = local.metadata
    spec       = local.spec
  }

  // The fields in the manifest are ours: a manual edit of them is taken back on the next converge.
  field_manager {
    force_conflicts = true
  }

  timeouts {
    create = "5m"
    update = "5m"
    delete = "10m"
  }

  lifecycle {
    replace_triggered_by = [terraform_data.boot_disk]
  }

  depends_on = [kubernetes_secret_v1.cloudinit]
}

// Read back after every apply and on every plan (kubernetes_manifest keeps no status in its state).
data "kubernetes_resource" "vm" {
  api_version = "virtualization.deckhouse.io/v1alpha2"
  kind        = "VirtualMachine"
  metadata {
    name      = var.vm.name
    namespace = var.namespace
  }

  depends_on = [kubernetes_manifest.vm]
}

locals {
  // A VM waits for a missing VirtualMachineClass for ever; the disks report their own reasons (virtual-disk).
  stuck = [for c in flatten([try(data.kubernetes_resource.vm.object.status.conditions, [])]) :
    "VirtualMachine ${var.namespace}/${var.vm.name}: ${c.type}=False ${try(format("%s", c.reason), "")}: ${try(format("%s", c.message), "")}"
  if try(format("%s", c.type), "") == "VirtualMachineClassReady" && try(format("%s", c.status), "") == "False"]
}

// Readiness, apart from the VM resource: it fails with DVP's own condition when the VM cannot start for a
// reason that will not pass by itself, and failing taints only this marker.
resource "terraform_data" "ready" {
  input = var.vm.name

  lifecycle {
    precondition {
      condition     = length(local.stuck) == 0
      error_message = join("\n", local.stuck)
    }
  }
}

output "name" {
  value = var.vm.name
}

output "phase" {
  description = "The VM's phase when last read (empty before DVP has seen it)."
  value       = try(format("%s", data.kubernetes_resource.vm.object.status.phase), "")
}
