// Copyright 2026 The cloud-provider-dvp Authors
// SPDX-License-Identifier: Apache-2.0

// Normalises dhctl's inputs to the v2 objects (ModuleConfig settings, NodeGroups, DVPInstanceClasses, the
// credentials Secret). The legacy DVPClusterConfiguration is used only while the v2 objects are incomplete,
// so a cluster half-way through migration keeps converging from the configuration it was bootstrapped with.

locals {
  credentials_secret_name = "d8-credentials"
  credentials_namespace   = "d8-cloud-provider-dvp"
  credentials_type        = "cloud-provider.deckhouse.io/credentials"

  v2_settings_version = try(var.settings.spec.version, 0)
  v2_master_ng        = try(var.nodeGroups["master"], null)
  v2_master_ic_name   = try(local.v2_master_ng.spec.cloudInstances.classReference.name, "")

  v2_complete = alltrue([
    local.v2_settings_version >= 2,
    local.v2_master_ng != null,
    can(var.instanceClasses[local.v2_master_ic_name]),
    can(var.secrets[local.credentials_secret_name]),
  ])

  pcc     = var.providerClusterConfiguration
  use_pcc = local.pcc != null && !local.v2_complete

  // Legacy node groups: the master group first, then the static ones, each with its legacy instance class.
  pcc_groups = try(concat(
    [{
      name         = "master"
      replicas     = local.pcc.masterNodeGroup.replicas
      zones        = try(local.pcc.masterNodeGroup.zones, null)
      nodeTemplate = null
      class        = local.pcc.masterNodeGroup.instanceClass
    }],
    [for ng in try(local.pcc.nodeGroups, []) : {
      name         = ng.name
      replicas     = ng.replicas
      zones        = try(ng.zones, null)
      nodeTemplate = try(ng.nodeTemplate, null)
      class        = ng.instanceClass
    }],
  ), [])

  pcc_instance_classes = {
    for g in local.pcc_groups : module.naming[g.name].instance_class_name => {
      apiVersion = "deckhouse.io/v1alpha1"
      kind       = "DVPInstanceClass"
      metadata   = { name = module.naming[g.name].instance_class_name }
      spec = merge(
        { for k, v in g.class : k => v if !contains(["virtualMachine", "additionalLabels"], k) },
        {
          // Addresses move to settings.nodes.parameters.ipAddresses; the legacy top-level labels join the VM's.
          virtualMachine = merge(
            { for k, v in g.class.virtualMachine : k => v if k != "ipAddresses" },
            { for k, v in {
              additionalLabels = merge(try(g.class.virtualMachine.additionalLabels, {}), try(g.class.additionalLabels, {}))
            } : k => v if length(v) > 0 },
          )
        },
      )
    }
  }

  pcc_node_groups = {
    for g in local.pcc_groups : g.name => {
      apiVersion = "deckhouse.io/v1"
      kind       = "NodeGroup"
      metadata   = { name = g.name }
      spec = merge(
        {
          nodeType = "CloudPermanent"
          cloudInstances = merge(
            {
              classReference = { kind = "DVPInstanceClass", name = module.naming[g.name].instance_class_name }
              minPerZone     = g.replicas
              maxPerZone     = g.replicas
            },
            g.zones == null ? {} : { zones = g.zones },
          )
        },
        g.nodeTemplate == null ? {} : { nodeTemplate = g.nodeTemplate },
      )
    }
  }

  pcc_ip_addresses = {
    for g in local.pcc_groups : g.name => g.class.virtualMachine.ipAddresses
    if length(try(g.class.virtualMachine.ipAddresses, [])) > 0
  }

  pcc_settings = try({
    provider = {
      parameters = {
        namespace     = local.pcc.provider.namespace
        networkPolicy = try(local.pcc.provider.networkPolicy, "Isolated")
      }
    }
    nodes = {
      parameters = { for k, v in {
        layout             = local.pcc.layout
        sshPublicKey       = local.pcc.sshPublicKey
        sshCAKeys          = try(length(local.pcc.sshCAKeys) > 0 ? local.pcc.sshCAKeys : null, null)
        region             = try(local.pcc.region, null)
        zones              = try(local.pcc.zones, null)
        ipAddresses        = length(local.pcc_ip_addresses) == 0 ? null : local.pcc_ip_addresses
        ingressPorts       = try(local.pcc.provider.ingressPorts, null)
        additionalVMLabels = try(local.pcc.provider.additionalVMLabels, null)
      } : k => v if v != null }
    }
  }, null)

  pcc_secrets = try({
    (local.credentials_secret_name) = {
      apiVersion = "v1"
      kind       = "Secret"
      metadata   = { name = local.credentials_secret_name, namespace = local.credentials_namespace }
      type       = local.credentials_type
      stringData = { authScheme = "kubeconfig", secret = local.pcc.provider.kubeconfigDataBase64 }
    }
  }, {})
}

module "naming" {
  source   = "../naming"
  for_each = toset([for g in local.pcc_groups : g.name])

  node_group_name = each.key
}
