// Copyright 2026 The cloud-provider-dvp Authors
// SPDX-License-Identifier: Apache-2.0

// The parent DVP connection from the credentials Secret (authScheme kubeconfig, `secret` = base64 kubeconfig).
// Upstream hashicorp/kubernetes takes no inline kubeconfig, so the current context is resolved here.

variable "secrets" {
  description = "Credential Secret objects by name (migration module output)."
  type        = any
}

variable "secret_name" {
  type    = string
  default = "d8-credentials"
}

locals {
  secret = var.secrets[var.secret_name]
  // stringData as written in the installer's resources; data when it comes back from the API (one more base64).
  kubeconfig_b64 = try(local.secret.stringData.secret, base64decode(local.secret.data.secret))
  kubeconfig     = yamldecode(base64decode(local.kubeconfig_b64))

  context_name = try(local.kubeconfig["current-context"], local.kubeconfig.contexts[0].name)
  context      = one([for c in local.kubeconfig.contexts : c.context if c.name == local.context_name])
  cluster      = one([for c in local.kubeconfig.clusters : c.cluster if c.name == local.context.cluster])
  user         = one([for u in local.kubeconfig.users : u.user if u.name == local.context.user])
}

output "host" {
  value = local.cluster.server
}

output "cluster_ca_certificate" {
  value = try(base64decode(local.cluster["certificate-authority-data"]), null)
}

output "insecure" {
  value = try(local.cluster["insecure-skip-tls-verify"], false)
}

output "token" {
  value     = try(local.user.token, null)
  sensitive = true
}

output "client_certificate" {
  value = try(base64decode(local.user["client-certificate-data"]), null)
}

output "client_key" {
  value     = try(base64decode(local.user["client-key-data"]), null)
  sensitive = true
}
