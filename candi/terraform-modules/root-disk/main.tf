// Copyright 2026 The cloud-provider-dvp Authors
// SPDX-License-Identifier: Apache-2.0

// The boot VirtualDisk, filled from an image. Its name carries the image identity (naming module), so a new
// image is a new disk; size grows and storageClass migrates in place.

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
  type = string
}

variable "field" {
  description = "The instance-class field of the disk, for messages."
  type        = string
  default     = ""
}

variable "storage_class" {
  description = "DVP StorageClass; empty for the DVP default."
  type        = string
  default     = ""
}

variable "image" {
  type = object({ kind = string, name = string })

  validation {
    condition     = contains(["ClusterVirtualImage", "VirtualImage"], var.image.kind)
    error_message = "rootDisk.image.kind: must be ClusterVirtualImage or VirtualImage (a VirtualDisk cannot be a disk's data source)."
  }
}

// At plan, before anything is made: a disk from a missing image would stay Pending for ever.
data "kubernetes_resources" "image" {
  api_version    = "virtualization.deckhouse.io/v1alpha2"
  kind           = var.image.kind
  namespace      = var.image.kind == "ClusterVirtualImage" ? null : var.namespace
  field_selector = "metadata.name=${var.image.name}"

  lifecycle {
    postcondition {
      condition     = try(length(self.objects), 0) > 0
      error_message = "${var.field == "" ? "rootDisk" : var.field}.image: ${var.image.kind}/${var.image.name} not found in the parent DVP cluster${var.image.kind == "ClusterVirtualImage" ? "" : " (namespace ${var.namespace})"}."
    }
  }
}

module "disk" {
  source = "../virtual-disk"

  namespace     = var.namespace
  name          = var.name
  labels        = var.labels
  size          = var.size
  storage_class = var.storage_class
  field         = var.field
  data_source   = { type = "ObjectRef", objectRef = { kind = var.image.kind, name = var.image.name } }
}

output "name" {
  value = module.disk.name
}

output "md5_id" {
  value = module.disk.md5_id
}
