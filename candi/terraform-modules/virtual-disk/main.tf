// Copyright 2026 The cloud-provider-dvp Authors
// SPDX-License-Identifier: Apache-2.0

// One DVP VirtualDisk, shared by the root, kubernetes-data and additional disk modules.
// The disk resource never waits (a timeout on create would taint it and the next converge would delete the disk,
// the etcd disk among them): the VM waits for its disks inside DVP, and the read-back below reports DVP's reason
// for a disk that cannot be provisioned.

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

variable "field" {
  description = "The instance-class field the disk comes from, for messages (e.g. DVPInstanceClass \"m\": spec.etcdDisk)."
  type        = string
  default     = ""
}

variable "data_source" {
  description = "spec.dataSource, or null for an empty disk."
  type        = any
  default     = null
}

variable "timeouts" {
  type    = object({ create = string, update = string, delete = string })
  default = { create = "5m", update = "5m", delete = "10m" }
}

locals {
  // DVP's reasons of a disk that stays unprovisioned until someone acts (Ready=False); the others pass by themselves.
  stuck_reasons = [
    "QuotaExceeded", "StorageClassIsNotReady", "StorageClassProvisionerMismatch", "DatasourceIsNotFound",
    "ProvisioningFailed", "ProvisioningFailedTerminally", "PVCLost", "ImagePullFailed",
  ]
}

// At plan, before anything is made: a disk on a missing StorageClass would stay Pending for ever.
data "kubernetes_resources" "storage_class" {
  count = var.storage_class == "" ? 0 : 1

  api_version    = "storage.k8s.io/v1"
  kind           = "StorageClass"
  field_selector = "metadata.name=${var.storage_class}"

  lifecycle {
    postcondition {
      condition     = try(length(self.objects), 0) > 0
      error_message = "${var.field == "" ? "VirtualDisk ${var.name}" : var.field}.storageClass: StorageClass \"${var.storage_class}\" not found in the parent DVP cluster."
    }
  }
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

  // The fields in the manifest are ours: a manual edit of them is taken back on the next converge.
  field_manager {
    force_conflicts = true
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

// Read back after every apply and on every plan, for the UID (kubernetes_manifest keeps none) and the status.
data "kubernetes_resource" "disk" {
  api_version = "virtualization.deckhouse.io/v1alpha2"
  kind        = "VirtualDisk"
  metadata {
    name      = var.name
    namespace = var.namespace
  }

  depends_on = [kubernetes_manifest.disk]
}

locals {
  phase = try(format("%s", data.kubernetes_resource.disk.object.status.phase), "")
  ready = [for c in flatten([try(data.kubernetes_resource.disk.object.status.conditions, [])]) : c
  if try(format("%s", c.type), "") == "Ready" && try(format("%s", c.status), "") == "False"]
  stuck = contains(["Failed", "PVCLost"], local.phase) || anytrue([for c in local.ready : contains(local.stuck_reasons, try(format("%s", c.reason), ""))])
}

// Readiness, apart from the disk resource: it fails with DVP's Ready condition when the disk is stuck, and
// failing taints only this marker.
resource "terraform_data" "ready" {
  input = var.name

  lifecycle {
    precondition {
      condition     = !local.stuck
      error_message = "VirtualDisk ${var.namespace}/${var.name}: phase ${local.phase}${join("", [for c in local.ready : ", Ready=False ${try(format("%s", c.reason), "")}: ${try(format("%s", c.message), "")}"])}"
    }
  }
}

output "md5_id" {
  description = "DVP sets the disk serial to the MD5 of the VirtualDisk UID."
  value       = md5(data.kubernetes_resource.disk.object.metadata.uid)
}
