// Copyright 2026 The cloud-provider-dvp Authors
// SPDX-License-Identifier: Apache-2.0

// DVP has no networks to make: the project namespace is the network. This step checks that the classes and
// images the node groups need exist, and (networkPolicy Isolated) fences the cluster's VMs off.

locals {
  network_policy = try(local.settings.provider.parameters.networkPolicy, "Isolated")
  ingress_ports  = try(local.settings.nodes.parameters.ingressPorts, [22])
  zones          = try(local.settings.nodes.parameters.zones, [])

  used_classes = toset([
    for name, ng in module.migration.nodeGroups : ng.spec.cloudInstances.classReference.name
    if try(ng.spec.nodeType, "") == "CloudPermanent"
  ])
}

module "validation" {
  source = "../../../terraform-modules/validation"

  namespace        = local.namespace
  instance_classes = { for name, ic in module.migration.instanceClasses : name => ic if contains(local.used_classes, name) }
}

module "network_policy" {
  source = "../../../terraform-modules/network-policy"
  count  = local.network_policy == "Isolated" ? 1 : 0

  namespace     = local.namespace
  name          = "${local.prefix}-isolated"
  cluster_uuid  = var.clusterUUID
  ingress_ports = local.ingress_ports
}

output "cloud_discovery_data" {
  value = {
    apiVersion = "deckhouse.io/v1"
    kind       = "DVPCloudDiscoveryData"
    layout     = "Standard"
    zones      = length(local.zones) == 0 ? ["default"] : local.zones
  }
}
