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

output "vm" {
  description = "The VirtualMachine parameters with the instance-class defaults applied."
  value = {
    name                  = module.naming.vm_name
    cloudinit_secret_name = module.naming.cloudinit_secret_name
    ip_address_name       = module.naming.ip_address_name
    labels                = local.vm_labels
    annotations           = try(local.vm.additionalAnnotations, {})
    cores                 = local.vm.cpu.cores
    core_fraction         = try(local.vm.cpu.coreFraction, "100%")
    memory                = local.vm.memory.size
    virtual_machine_class = local.vm.virtualMachineClassName
    bootloader            = try(local.vm.bootloader, "EFI")
    run_policy            = try(local.vm.runPolicy, "AlwaysOnUnlessStoppedManually")
    live_migration_policy = try(local.vm.liveMigrationPolicy, "PreferForced")
    node_selector         = local.node_selector
    priority_class_name   = try(local.vm.priorityClassName, "")
    tolerations           = try(local.vm.tolerations, [])
  }
}

output "root_disk" {
  value = {
    name          = module.naming.root_disk_name
    size          = try(local.class.rootDisk.size, "50Gi")
    storage_class = try(local.class.rootDisk.storageClass, "")
    image         = { kind = local.class.rootDisk.image.kind, name = local.class.rootDisk.image.name }
  }
}

output "kubernetes_data_disk" {
  description = "The etcd disk of a master (null when the class has no etcdDisk)."
  value = can(local.class.etcdDisk) ? {
    name          = module.naming.kubernetes_data_disk_name
    size          = try(local.class.etcdDisk.size, "15Gi")
    storage_class = try(local.class.etcdDisk.storageClass, "")
  } : null
}

output "additional_disks" {
  value = [for i, d in local.additional_disks : {
    name          = module.naming.additional_disk_names[i]
    size          = try(d.size, "10Gi")
    storage_class = try(d.storageClass, "")
  }]
}
