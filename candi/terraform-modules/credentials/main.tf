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
  ref    = "Secret d8-cloud-provider-dvp/${var.secret_name}"
  secret = try(var.secrets[var.secret_name], null)
  // stringData as written in the installer's resources; data when it comes back from the API (one more base64).
  kubeconfig_b64 = try(local.secret.stringData.secret, base64decode(local.secret.data.secret), "")
  kubeconfig     = try(yamldecode(base64decode(local.kubeconfig_b64)), null)

  context_name = try(local.kubeconfig["current-context"], local.kubeconfig.contexts[0].name, "")
  context      = try(one([for c in local.kubeconfig.contexts : c.context if c.name == local.context_name]), null)
  cluster      = try(one([for c in local.kubeconfig.clusters : c.cluster if c.name == local.context.cluster]), null)
  user         = try(one([for u in local.kubeconfig.users : u.user if u.name == local.context.user]), null)

  // The first problem only: each one makes the next meaningless.
  problem = (
    local.secret == null ? "${local.ref}: not found (the credentials Secret of ModuleConfig cloud-provider-dvp; the installer's secrets hold ${jsonencode(sort(keys(var.secrets)))})" :
    local.kubeconfig_b64 == "" ? "${local.ref}: the key \"secret\" (a base64 kubeconfig of the parent DVP cluster) is missing" :
    local.kubeconfig == null ? "${local.ref}: the key \"secret\" is not a base64-encoded kubeconfig" :
    local.context == null ? "${local.ref}: the kubeconfig has no context \"${local.context_name}\" (current-context, else the first context)" :
    local.cluster == null ? "${local.ref}: the kubeconfig's context \"${local.context_name}\" names cluster \"${try(local.context.cluster, "")}\", which it does not define" :
    try(local.cluster.server, "") == "" ? "${local.ref}: the kubeconfig's cluster \"${local.context.cluster}\" has no server" :
    local.user == null ? "${local.ref}: the kubeconfig's context \"${local.context_name}\" names user \"${try(local.context.user, "")}\", which it does not define" :
    ""
  )
}

output "problem" {
  description = "Why the credentials cannot be used, naming the Secret and field; empty when they can."
  value       = local.problem
}

output "host" {
  value = try(local.cluster.server, "")

  precondition {
    condition     = local.problem == ""
    error_message = local.problem
  }
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
