// Copyright 2026 The cloud-provider-dvp Authors
// SPDX-License-Identifier: Apache-2.0

// Extra empty disks of a node, one per instance-class additionalDisks entry.

variable "namespace" {
  type = string
}

variable "labels" {
  type = map(string)
}

variable "disks" {
  description = "[{name, size, storage_class}] from the node-spec module."
  type        = list(object({ name = string, size = string, storage_class = string }))
  default     = []
}

module "disk" {
  source = "../virtual-disk"
  count  = length(var.disks)

  namespace     = var.namespace
  name          = var.disks[count.index].name
  labels        = var.labels
  size          = var.disks[count.index].size
  storage_class = var.disks[count.index].storage_class
}

output "names" {
  value = module.disk[*].name
}

output "md5_ids" {
  value = module.disk[*].md5_id
}
