// Copyright 2026 The cloud-provider-dvp Authors
// SPDX-License-Identifier: Apache-2.0

// One VM (nodeIndex) of the static node group nodeGroupName, with its address, boot and additional disks.

module "node" {
  source = "../../../terraform-modules/node-spec"

  settings        = local.settings
  nodeGroups      = module.migration.nodeGroups
  instanceClasses = module.migration.instanceClasses
  prefix          = local.prefix
  cluster_uuid    = var.clusterUUID
  node_group_name = var.nodeGroupName
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

module "additional_disk" {
  source = "../../../terraform-modules/additional-disk"

  namespace = local.namespace
  labels    = module.node.identity_labels
  disks     = module.node.additional_disks
}

module "static_node" {
  source = "../../../terraform-modules/static-node"

  namespace             = local.namespace
  vm                    = module.node.vm
  user_data             = module.cloudinit.user_data
  root_disk_name        = module.root_disk.name
  additional_disk_names = module.additional_disk.names
  ip_address_name       = module.ipv4_address.name
  labels                = module.node.identity_labels
}

// What a hard-killed apply made and the state never recorded is taken back (terraform-modules/leftovers).
module "leftovers" {
  source = "../../../terraform-modules/leftovers"

  namespace        = local.namespace
  labels           = module.node.identity_labels
  vm               = module.node.vm.name
  secret           = module.node.vm.cloudinit_secret_name
  root_disk        = module.node.root_disk.name
  additional_disks = { for d in module.node.additional_disks : d.key => d.name }
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
  to       = module.static_node.module.vm.kubernetes_secret_v1.cloudinit
  id       = each.value
}

import {
  for_each = module.leftovers.root_disk
  to       = module.root_disk.module.disk.kubernetes_manifest.disk
  id       = each.value
}

import {
  for_each = module.leftovers.additional_disks
  to       = module.additional_disk.module.disk[each.key].kubernetes_manifest.disk
  id       = each.value
}

output "node_internal_ip_address" {
  value = module.ipv4_address.address
}
