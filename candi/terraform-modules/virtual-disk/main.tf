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
    // Optional fields are dropped by filtering objects (a conditional would make them maps).
    spec = { for k, v in {
      persistentVolumeClaim = { for k, v in {
        size             = var.size
        storageClassName = var.storage_class == "" ? null : var.storage_class
      } : k => v if v != null }
      dataSource = var.data_source
    } : k => v if v != null }
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

// kubernetes_manifest keeps no UID in its state; the disk is read back for it.
data "kubernetes_resource" "disk" {
  api_version = "virtualization.deckhouse.io/v1alpha2"
  kind        = "VirtualDisk"
  metadata {
    name      = var.name
    namespace = var.namespace
  }

  depends_on = [kubernetes_manifest.disk]
}

output "md5_id" {
  description = "DVP sets the disk serial to the MD5 of the VirtualDisk UID."
  value       = md5(data.kubernetes_resource.disk.object.metadata.uid)
}
