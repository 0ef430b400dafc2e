// Copyright 2026 The cloud-provider-dvp Authors
// SPDX-License-Identifier: Apache-2.0

// Which of a node's objects exist in DVP, as import IDs for the layout's import blocks. OpenTofu writes a local
// state during an apply at most every 20 seconds (at once only on SIGINT or SIGTERM), so an apply killed hard
// leaves objects the state does not hold, and the provider never creates an object that exists. An import block
// takes such an object back into the state and is skipped for one the state holds, so naming every wanted object
// that exists is enough. The provider plans an imported object's name change as an update, but only in the plan
// that imports it, and these names are the ones the plan wants.
//
// Never the VM, nor its cloud-init Secret once the VM exists: both are replaced when their boot-disk marker
// (terraform_data, which no import restores) is made anew, and replacing a VM that runs a node is not a recovery.
// A VM the state lost still stops the converge on its create; a kill before the VM is made (while its address
// waits) leaves none, and its Secret, taken back, is replaced with the marker before any VM reads it.

variable "namespace" {
  type = string
}

variable "labels" {
  description = "The node's identity labels: every object of the node has them."
  type        = map(string)
}

variable "vm" {
  description = "The VirtualMachine's name."
  type        = string
}

variable "secret" {
  description = "The cloud-init Secret's name."
  type        = string
}

variable "root_disk" {
  description = "The boot VirtualDisk's name."
  type        = string
}

variable "kubernetes_data_disk" {
  description = "The etcd VirtualDisk's name (a master's); null: none."
  type        = string
  default     = null
}

variable "additional_disks" {
  description = "key => name of every additional VirtualDisk the plan wants."
  type        = map(string)
  default     = {}
}

locals {
  selector = join(",", [for k in sort(keys(var.labels)) : "${k}=${var.labels[k]}"])
  group    = "virtualization.deckhouse.io/v1alpha2"
}

data "kubernetes_resources" "vms" {
  api_version    = "virtualization.deckhouse.io/v1alpha2"
  kind           = "VirtualMachine"
  namespace      = var.namespace
  label_selector = local.selector
}

data "kubernetes_resources" "disks" {
  api_version    = "virtualization.deckhouse.io/v1alpha2"
  kind           = "VirtualDisk"
  namespace      = var.namespace
  label_selector = local.selector
}

// One Secret by name, never a list: listing would read every Secret of the project.
data "kubernetes_secret_v1" "cloudinit" {
  metadata {
    name      = var.secret
    namespace = var.namespace
  }
}

locals {
  names = {
    for kind, d in { vms = data.kubernetes_resources.vms, disks = data.kubernetes_resources.disks } :
    kind => [for o in flatten([try(d.objects, [])]) : try(format("%s", o.metadata.name), "")]
  }
}

output "secret" {
  description = "{secret = import ID} when the cloud-init Secret exists and the VM does not, else {}."
  value       = try(data.kubernetes_secret_v1.cloudinit.metadata[0].uid, "") != "" && !contains(local.names.vms, var.vm) ? { secret = "${var.namespace}/${var.secret}" } : {}
}

locals {
  // name => import ID, for the wanted disks that exist
  disk_ids = { for n in compact(concat([var.root_disk, var.kubernetes_data_disk], values(var.additional_disks))) :
  n => "apiVersion=${local.group},kind=VirtualDisk,namespace=${var.namespace},name=${n}" if contains(local.names.disks, n) }
}

output "root_disk" {
  description = "{root = import ID} when the boot disk exists, else {}."
  value       = { for n, id in local.disk_ids : "root" => id if n == var.root_disk }
}

output "kubernetes_data_disk" {
  description = "{kubernetes-data = import ID} when the etcd disk exists, else {}."
  value       = { for n, id in local.disk_ids : "kubernetes-data" => id if n == var.kubernetes_data_disk }
}

output "additional_disks" {
  description = "key => import ID of every wanted additional disk that exists."
  value       = { for k, n in var.additional_disks : k => local.disk_ids[n] if contains(keys(local.disk_ids), n) }
}
