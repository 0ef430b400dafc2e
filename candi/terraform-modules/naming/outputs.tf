// Copyright 2026 The cloud-provider-dvp Authors
// SPDX-License-Identifier: Apache-2.0

output "hostname" {
  description = "Node name; also the VirtualMachine name and the dvp.deckhouse.io/hostname label."
  value       = local.hostname
}

output "vm_name" {
  value = local.hostname
}

output "cloudinit_secret_name" {
  value = "${local.hostname}-cloudinit"
}

output "root_disk_name" {
  value = local.disk_names.root
}

output "kubernetes_data_disk_name" {
  value = local.disk_names.kubernetes_data
}

output "additional_disk_names" {
  description = "By disk key (additional_disk_keys)."
  value       = { for k in var.additional_disk_keys : k => local.disk_names["additional/${k}"] }
}

output "ip_address_name" {
  description = "VirtualMachineIPAddress name: one object per address, so a new static address is a new object."
  value       = lower("${local.hostname}-${replace(var.ip_address, ".", "-")}")
}

output "instance_class_name" {
  value = local.instance_class_name
}
