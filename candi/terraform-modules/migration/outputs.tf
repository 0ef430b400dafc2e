// Copyright 2026 The cloud-provider-dvp Authors
// SPDX-License-Identifier: Apache-2.0

output "source" {
  description = "Where the objects came from: \"v2\" or \"providerClusterConfiguration\"."
  value       = local.use_pcc ? "providerClusterConfiguration" : "v2"
}

// The two branches have different object types, so they meet as JSON.
output "settings" {
  description = "ModuleConfig v2 settings (provider.parameters, nodes.parameters)."
  value       = jsondecode(local.use_pcc ? jsonencode(local.pcc_settings) : jsonencode(try(var.settings.spec.settings, null)))
}

output "nodeGroups" {
  description = "NodeGroup objects by name."
  value       = jsondecode(local.use_pcc ? jsonencode(local.pcc_node_groups) : jsonencode(var.nodeGroups))
}

output "instanceClasses" {
  description = "DVPInstanceClass objects by name."
  value       = jsondecode(local.use_pcc ? jsonencode(local.pcc_instance_classes) : jsonencode(var.instanceClasses))
}

output "secrets" {
  description = "Credential Secret objects by name."
  value       = jsondecode(local.use_pcc ? jsonencode(local.pcc_secrets) : jsonencode(var.secrets))
}
