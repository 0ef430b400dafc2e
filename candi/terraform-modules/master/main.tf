// Copyright 2026 The cloud-provider-dvp Authors
// SPDX-License-Identifier: Apache-2.0

// A master VM: boot disk, the etcd (kubernetes-data) disk, then the additional disks.

variable "namespace" {
  type = string
}

variable "vm" {
  type = any
}

variable "user_data" {
  type      = string
  sensitive = true
}

variable "root_disk_name" {
  type = string
}

variable "kubernetes_data_disk_name" {
  type = string
}

variable "additional_disk_names" {
  type    = list(string)
  default = []
}

variable "ip_address_name" {
  type = string
}

variable "labels" {
  type = map(string)
}

module "vm" {
  source = "../virtual-machine"

  namespace       = var.namespace
  vm              = var.vm
  user_data       = var.user_data
  boot_disk_name  = var.root_disk_name
  data_disk_names = concat([var.kubernetes_data_disk_name], var.additional_disk_names)
  ip_address_name = var.ip_address_name
  labels          = var.labels
}

output "name" {
  value = module.vm.name
}

output "phase" {
  value = module.vm.phase
}
