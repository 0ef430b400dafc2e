// Copyright 2026 The cloud-provider-dvp Authors
// SPDX-License-Identifier: Apache-2.0

// The empty etcd disk of a master. Its name has no hash: size grows and storageClass migrates in place.

variable "namespace" {
  type = string
}

variable "name" {
  type = string
}

variable "labels" {
  type = map(string)
}

variable "size" {
  type    = string
  default = "15Gi"
}

variable "field" {
  description = "The instance-class field of the disk, for messages."
  type        = string
  default     = ""
}

variable "storage_class" {
  type    = string
  default = ""
}

module "disk" {
  source = "../virtual-disk"

  namespace     = var.namespace
  name          = var.name
  labels        = var.labels
  size          = var.size
  storage_class = var.storage_class
  field         = var.field
}

output "name" {
  value = module.disk.name
}

output "md5_id" {
  value = module.disk.md5_id
}

output "device_path" {
  description = "Where the guest sees the disk (its SCSI serial is the MD5 of the disk UID)."
  value       = "/dev/disk/by-id/scsi-0QEMU_QEMU_HARDDISK_${module.disk.md5_id}"
}
