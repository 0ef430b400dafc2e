// Copyright 2026 The cloud-provider-dvp Authors
// SPDX-License-Identifier: Apache-2.0

output "namespace" {
  value = local.namespace
}

output "hostname" {
  value = module.naming.hostname
}

output "zone" {
  value = local.zone
}

output "ip_address" {
  description = "An IPv4 address or \"Auto\"."
  value       = local.ip_address
}

output "ssh_public_key" {
  value = try(local.params.sshPublicKey, "")
}

output "identity_labels" {
  description = "Labels of every DVP object of the node."
  value       = local.identity_labels
}

output "problems" {
  description = "Why the inputs cannot make this node, one line per problem naming the object and field; empty when fine."
  value       = local.problems
}

output "vm" {
  description = "The VirtualMachine parameters with the instance-class defaults applied."
  value = {
    name                  = module.naming.vm_name
    cloudinit_secret_name = module.naming.cloudinit_secret_name
    ip_address_name       = module.naming.ip_address_name
    labels                = local.vm_labels
    annotations           = try(local.vm.additionalAnnotations, {})
    cores                 = local.cores
    core_fraction         = local.settings.core_fraction
    memory                = local.memory
    virtual_machine_class = try(tostring(local.vm.virtualMachineClassName), "")
    bootloader            = local.settings.bootloader
    run_policy            = local.settings.run_policy
    live_migration_policy = local.settings.live_migration_policy
    node_selector         = local.node_selector
    affinity              = local.affinity
    priority_class_name   = try(local.vm.priorityClassName, "")
    tolerations           = try(local.vm.tolerations, [])
  }

  precondition {
    condition     = length(local.problems) == 0
    error_message = join("\n", local.problems)
  }
}

output "root_disk" {
  value = {
    name          = module.naming.root_disk_name
    size          = local.root_size
    storage_class = try(tostring(local.class.rootDisk.storageClass), "")
    image         = local.root_image
    field         = "${local.ic}: spec.rootDisk"
  }
}

output "kubernetes_data_disk" {
  description = "The etcd disk of a master (null on other groups when the class has no etcdDisk)."
  value = local.is_master || can(local.class.etcdDisk) ? {
    name          = module.naming.kubernetes_data_disk_name
    size          = local.etcd_size
    storage_class = try(tostring(local.class.etcdDisk.storageClass), "")
    field         = "${local.ic}: spec.etcdDisk"
  } : null
}

output "additional_disks" {
  description = "In instance-class order; key is the entry's name, or its index for an unnamed entry."
  value = [for i, d in local.additional : {
    key           = d.key
    name          = module.naming.additional_disk_names[d.key]
    size          = d.size
    storage_class = d.storage_class
    field         = "${local.ic}: spec.additionalDisks[${i}]"
  } if index(local.additional_keys, d.key) == i]
}
