// Copyright 2026 The cloud-provider-dvp Authors
// SPDX-License-Identifier: Apache-2.0

// Everything one node needs, derived from the v2 objects: its instance class with defaults, zone, address,
// labels, node selector and object names. Pure data, so the rules are unit-tested without an API.

locals {
  params     = try(var.settings.nodes.parameters, {})
  namespace  = try(var.settings.provider.parameters.namespace, "")
  node_group = var.nodeGroups[var.node_group_name]
  class_name = local.node_group.spec.cloudInstances.classReference.name
  class      = var.instanceClasses[local.class_name].spec
  vm         = local.class.virtualMachine

  // Zones the group may use: the cluster's zones narrowed by the group's; a node takes them round-robin.
  cluster_zones = try(local.params.zones, [])
  group_zones   = try(local.node_group.spec.cloudInstances.zones, [])
  narrowed      = length(local.cluster_zones) == 0 ? toset(local.group_zones) : setintersection(local.cluster_zones, local.group_zones)
  zones         = length(local.group_zones) == 0 ? toset(local.cluster_zones) : local.narrowed
  zone_list     = sort(tolist(local.zones))
  zone          = length(local.zone_list) == 0 ? "" : local.zone_list[var.node_index % length(local.zone_list)]
  region        = try(local.params.region, "")

  group_addresses = try(local.params.ipAddresses[var.node_group_name], [])
  ip_address      = var.node_index < length(local.group_addresses) ? local.group_addresses[var.node_index] : "Auto"

  identity_labels = {
    "deckhouse.io/managed-by"       = "deckhouse"
    "dvp.deckhouse.io/cluster-uuid" = var.cluster_uuid
    "dvp.deckhouse.io/hostname"     = module.naming.hostname
    // The ownership rule of dvp_common: nodes made by dhctl are ours as capdvp's machines are.
    "dvp.deckhouse.io/component" = "dhctl"
  }
  // Reserved keys come last, so user labels never take over the identity labels.
  vm_labels = merge(try(local.vm.additionalLabels, {}), try(local.params.additionalVMLabels, {}), local.identity_labels)

  node_selector = merge(
    try(local.vm.nodeSelector, {}),
    local.zone == "" ? {} : { "topology.kubernetes.io/zone" = local.zone },
    local.region == "" ? {} : { "topology.kubernetes.io/region" = local.region },
  )

  additional_disks = try(local.class.additionalDisks, [])
}

module "naming" {
  source = "../naming"

  prefix                = var.prefix
  node_group_name       = var.node_group_name
  node_index            = var.node_index
  root_image            = { kind = local.class.rootDisk.image.kind, name = local.class.rootDisk.image.name }
  ip_address            = local.ip_address
  additional_disk_count = length(local.additional_disks)
}
