// Copyright 2026 The cloud-provider-dvp Authors
// SPDX-License-Identifier: Apache-2.0

// Extra empty disks of a node, one per instance-class additionalDisks entry, keyed by the entry's name (its index
// when unnamed), so removing one entry never touches the others.

variable "namespace" {
  type = string
}

variable "labels" {
  type = map(string)
}

variable "disks" {
  description = "[{key, name, size, storage_class, field}] from the node-spec module, in instance-class order."
  type        = list(object({ key = string, name = string, size = string, storage_class = string, field = string }))
  default     = []
}

module "disk" {
  source   = "../virtual-disk"
  for_each = { for d in var.disks : d.key => d }

  namespace     = var.namespace
  name          = each.value.name
  labels        = var.labels
  size          = each.value.size
  storage_class = each.value.storage_class
  field         = each.value.field
}

// State of releases that keyed the disks by index: an unnamed entry keeps its index as its key.
moved {
  from = module.disk[0]
  to   = module.disk["0"]
}
moved {
  from = module.disk[1]
  to   = module.disk["1"]
}
moved {
  from = module.disk[2]
  to   = module.disk["2"]
}
moved {
  from = module.disk[3]
  to   = module.disk["3"]
}
moved {
  from = module.disk[4]
  to   = module.disk["4"]
}
moved {
  from = module.disk[5]
  to   = module.disk["5"]
}
moved {
  from = module.disk[6]
  to   = module.disk["6"]
}
moved {
  from = module.disk[7]
  to   = module.disk["7"]
}
moved {
  from = module.disk[8]
  to   = module.disk["8"]
}
moved {
  from = module.disk[9]
  to   = module.disk["9"]
}
moved {
  from = module.disk[10]
  to   = module.disk["10"]
}
moved {
  from = module.disk[11]
  to   = module.disk["11"]
}
moved {
  from = module.disk[12]
  to   = module.disk["12"]
}
moved {
  from = module.disk[13]
  to   = module.disk["13"]
}

output "names" {
  description = "Disk names in instance-class order (the VM's disk list follows it)."
  value       = [for d in var.disks : module.disk[d.key].name]
}

output "md5_ids" {
  value = { for k, d in module.disk : k => d.md5_id }
}
