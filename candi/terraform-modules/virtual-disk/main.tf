// Copyright 2026 The cloud-provider-dvp Authors
// SPDX-License-Identifier: Apache-2.0

// One DVP VirtualDisk, shared by the root, kubernetes-data and additional disk modules.

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

variable "storage_class" {
  type    = string
  default = ""
}

variable "data_source" {
  description = "spec.dataSource, or null for an empty disk."
  type        = any
  default     = null
}

variable "timeouts" {
  type    = object({ create = string, update = string, delete = string })
  default = { create = "30m", update = "30m", delete = "10m" }
}

resource "kubernetes_manifest" "disk" {
  manifest = {
    apiVersion = "virtualization.deckhouse.io/v1alpha2"
    kind       = "VirtualDisk"
    metadata = {
      name      = var.name
      namespace = var.namespace
      labels    = merge(var.labels, { virtualDiskName = var.name })
    }
    spec = merge(
      {
        persistentVolumeClaim = merge(
          { size = var.size },
          var.storage_class == "" ? {} : { storageClassName = var.storage_class },
        )
      },
      var.data_source == null ? {} : { dataSource = var.data_source },
    )
  }

  // A disk on a WaitForFirstConsumer class stays there until its VM starts, so that phase counts as done.
  wait {
    fields = {
      "status.phase" = "^(Ready|WaitForFirstConsumer)$"
    }
  }

  timeouts {
    create = var.timeouts.create
    update = var.timeouts.update
    delete = var.timeouts.delete
  }
}

output "name" {
  value = var.name
}

output "md5_id" {
  description = "DVP sets the disk serial to the MD5 of the VirtualDisk UID."
  value       = md5(kubernetes_manifest.disk.object.metadata.uid)
}
