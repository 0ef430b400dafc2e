// Copyright 2026 The cloud-provider-dvp Authors
// SPDX-License-Identifier: Apache-2.0

// Shared by every step of the layout (each step links this file): dhctl's variables, their normalisation
// to the v2 objects and the parent DVP connection.

variable "clusterConfiguration" {
  description = "ClusterConfiguration; cloud.prefix names every object."
  type        = any
}

variable "providerClusterConfiguration" {
  description = "Legacy DVPClusterConfiguration, or null."
  type        = any
  default     = null
}

variable "clusterUUID" {
  type = string
}

variable "nodeIndex" {
  type    = number
  default = 0
}

variable "cloudConfig" {
  description = "Base64 bashible cloud-config; empty for the first master."
  type        = string
  default     = ""
  sensitive   = true
}

variable "nodeGroupName" {
  type    = string
  default = "master"
}

variable "settings" {
  description = "The cloud-provider-dvp ModuleConfig object."
  type        = any
  default     = null
}

variable "nodeGroups" {
  type    = any
  default = {}
}

variable "instanceClasses" {
  type    = any
  default = {}
}

// Not marked sensitive: the v2-completeness check reads it, and a sensitive condition would mark every derived
// name and count. The credentials module marks the token and key it extracts.
variable "secrets" {
  type    = any
  default = {}
}

module "migration" {
  source = "../../../terraform-modules/migration"

  providerClusterConfiguration = var.providerClusterConfiguration
  settings                     = var.settings
  nodeGroups                   = var.nodeGroups
  instanceClasses              = var.instanceClasses
  secrets                      = var.secrets
}

module "credentials" {
  source = "../../../terraform-modules/credentials"

  secrets = module.migration.secrets
}

locals {
  prefix   = try(tostring(var.clusterConfiguration.cloud.prefix), "")
  settings = module.migration.settings
  // Missing: the node-spec and validation modules say which ModuleConfig field to set.
  namespace = try(tostring(local.settings.provider.parameters.namespace), "")
}

provider "kubernetes" {
  host                   = module.credentials.host
  cluster_ca_certificate = module.credentials.cluster_ca_certificate
  insecure               = module.credentials.insecure
  token                  = module.credentials.token
  client_certificate     = module.credentials.client_certificate
  client_key             = module.credentials.client_key
}
