// Copyright 2026 The cloud-provider-dvp Authors
// SPDX-License-Identifier: Apache-2.0

// One master VM (nodeIndex) with its address, boot, etcd and additional disks.

module "node" {
  source = "../../../terraform-modules/node-spec"

  settings        = local.settings
  nodeGroups      = module.migration.nodeGroups
  instanceClasses = module.migration.instanceClasses
  prefix          = local.prefix
  cluster_uuid    = var.clusterUUID
  node_group_name = "master"
  node_index      = var.nodeIndex
}

module "cloudinit" {
  source = "../../../terraform-modules/cloudinit-merge"

  cloud_config     = var.cloudConfig
  hostname         = module.node.hostname
  ssh_public_key   = module.node.ssh_public_key
  additional_users = try(local.settings.nodes.parameters.additionalUsers, [])
  ssh_ca_keys      = try(local.settings.nodes.parameters.sshCAKeys, [])
}

module "ipv4_address" {
  source = "../../../terraform-modules/ipv4-address"

  namespace = local.namespace
  name      = module.node.vm.ip_address_name
  vm_name   = module.node.vm.name
  labels    = module.node.identity_labels
  address   = module.node.ip_address
}

module "root_disk" {
  source = "../../../terraform-modules/root-disk"

  namespace     = local.namespace
  name          = module.node.root_disk.name
  labels        = module.node.identity_labels
  size          = module.node.root_disk.size
  storage_class = module.node.root_disk.storage_class
  field         = module.node.root_disk.field
  image         = module.node.root_disk.image
}

module "kubernetes_data_disk" {
  source = "../../../terraform-modules/kubernetes-data-disk"

  namespace     = local.namespace
  name          = module.node.kubernetes_data_disk.name
  labels        = module.node.identity_labels
  size          = module.node.kubernetes_data_disk.size
  storage_class = module.node.kubernetes_data_disk.storage_class
  field         = module.node.kubernetes_data_disk.field
}

module "additional_disk" {
  source = "../../../terraform-modules/additional-disk"

  namespace = local.namespace
  labels    = module.node.identity_labels
  disks     = module.node.additional_disks
}

// Masters change one at a time. DVP applies a cpu, memory, disk or address change by restarting the VM
// (restartApprovalMode Automatic), after the apply has returned; the plan of the next master is refused, naming
// the master that is not back yet, until that one runs its new configuration. A master whose latest spec DVP has
// not processed yet (status.observedGeneration behind metadata.generation) counts as not back: DVP may be about
// to restart it, and the plan must not race it.
locals {
  master_name = "^${local.prefix}-master-[0-9]+$"
  busy_phases = ["Starting", "Stopping", "Migrating"]
}

data "kubernetes_resources" "masters" {
  api_version    = "virtualization.deckhouse.io/v1alpha2"
  kind           = "VirtualMachine"
  namespace      = local.namespace
  label_selector = "dvp.deckhouse.io/cluster-uuid=${var.clusterUUID}"

  lifecycle {
    postcondition {
      condition = length([for vm in flatten([try(self.objects, [])]) : vm
        if can(regex(local.master_name, vm.metadata.name)) && try(format("%s", vm.metadata.name), "") != module.node.hostname && (
          contains(local.busy_phases, try(format("%s", vm.status.phase), "")) ||
          anytrue([for c in flatten([try(vm.status.conditions, [])]) : try(format("%s", c.type), "") == "AwaitingRestartToApplyConfiguration" && try(format("%s", c.status), "") == "True"]) ||
          try(tonumber(vm.status.observedGeneration), 0) < try(tonumber(vm.metadata.generation), 0)
      )]) == 0
      error_message = join("\n", [for vm in flatten([try(self.objects, [])]) :
        "VirtualMachine ${local.namespace}/${try(format("%s", vm.metadata.name), "")} ${join(" and ", compact([
          contains(local.busy_phases, try(format("%s", vm.status.phase), "")) ? "is ${try(format("%s", vm.status.phase), "")}" : "",
          anytrue([for c in flatten([try(vm.status.conditions, [])]) : try(format("%s", c.type), "") == "AwaitingRestartToApplyConfiguration" && try(format("%s", c.status), "") == "True"]) ? "awaits a restart to apply its configuration" : "",
          try(tonumber(vm.status.observedGeneration), 0) < try(tonumber(vm.metadata.generation), 0) ? "has a change DVP has not processed yet" : "",
        ]))}: masters are converged one at a time, run the converge again once it is Running with its configuration applied."
        if can(regex(local.master_name, vm.metadata.name)) && try(format("%s", vm.metadata.name), "") != module.node.hostname && (
          contains(local.busy_phases, try(format("%s", vm.status.phase), "")) ||
          anytrue([for c in flatten([try(vm.status.conditions, [])]) : try(format("%s", c.type), "") == "AwaitingRestartToApplyConfiguration" && try(format("%s", c.status), "") == "True"]) ||
          try(tonumber(vm.status.observedGeneration), 0) < try(tonumber(vm.metadata.generation), 0)
      )])
    }
  }
}

module "master" {
  source = "../../../terraform-modules/master"

  namespace                 = local.namespace
  vm                        = module.node.vm
  user_data                 = module.cloudinit.user_data
  root_disk_name            = module.root_disk.name
  kubernetes_data_disk_name = module.kubernetes_data_disk.name
  additional_disk_names     = module.additional_disk.names
  ip_address_name           = module.ipv4_address.name
  labels                    = module.node.identity_labels
}

// What a hard-killed apply made and the state never recorded is taken back (terraform-modules/leftovers).
module "leftovers" {
  source = "../../../terraform-modules/leftovers"

  namespace            = local.namespace
  labels               = module.node.identity_labels
  vm                   = module.node.vm.name
  secret               = module.node.vm.cloudinit_secret_name
  root_disk            = module.node.root_disk.name
  kubernetes_data_disk = module.node.kubernetes_data_disk.name
  additional_disks     = { for d in module.node.additional_disks : d.key => d.name }
}

import {
  for_each = module.ipv4_address.import_id
  to       = module.ipv4_address.kubernetes_manifest.address
  id       = each.value
}

import {
  for_each = module.ipv4_address.unfinished_import_ids
  to       = module.ipv4_address.kubernetes_manifest.unfinished[each.key]
  id       = each.value
}

import {
  for_each = module.leftovers.secret
  to       = module.master.module.vm.kubernetes_secret_v1.cloudinit
  id       = each.value
}

import {
  for_each = module.leftovers.root_disk
  to       = module.root_disk.module.disk.kubernetes_manifest.disk
  id       = each.value
}

import {
  for_each = module.leftovers.kubernetes_data_disk
  to       = module.kubernetes_data_disk.module.disk.kubernetes_manifest.disk
  id       = each.value
}

import {
  for_each = module.leftovers.additional_disks
  to       = module.additional_disk.module.disk[each.key].kubernetes_manifest.disk
  id       = each.value
}

// The node's address, the VM's once it runs: the static one as configured, or the one DVP allocated.
output "master_ip_address_for_ssh" {
  value = module.ipv4_address.address
}

output "node_internal_ip_address" {
  value = module.ipv4_address.address
}

output "kubernetes_data_device_path" {
  value = module.kubernetes_data_disk.device_path
}
