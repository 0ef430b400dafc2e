// Copyright 2026 The cloud-provider-dvp Authors
// SPDX-License-Identifier: Apache-2.0

// networkPolicy Isolated: the cluster's VM pods (selected by the cluster-UUID label DVP copies from the VM)
// take traffic only from their project, the parent's ingress and MetalLB, and the listed TCP ports; they may
// reach their project, the parent's DNS and anything outside the parent cluster.

variable "namespace" {
  type = string
}

variable "name" {
  type = string
}

variable "cluster_uuid" {
  type = string
}

variable "ingress_ports" {
  type    = list(number)
  default = [22]
}

locals {
  from_namespace = { for ns in ["d8-ingress-nginx", "d8-metallb"] : ns => {
    namespaceSelector = { matchLabels = { "kubernetes.io/metadata.name" = ns } }
  } }
  same_project = { namespaceSelector = { matchLabels = { "kubernetes.io/metadata.name" = var.namespace } } }
}

resource "kubernetes_manifest" "isolated" {
  manifest = {
    apiVersion = "networking.k8s.io/v1"
    kind       = "NetworkPolicy"
    metadata = {
      name      = var.name
      namespace = var.namespace
      labels = {
        "deckhouse.io/managed-by"       = "deckhouse"
        "dvp.deckhouse.io/cluster-uuid" = var.cluster_uuid
        "dvp.deckhouse.io/component"    = "dhctl"
      }
    }
    spec = {
      podSelector = { matchLabels = { "dvp.deckhouse.io/cluster-uuid" = var.cluster_uuid } }
      policyTypes = ["Ingress", "Egress"]
      ingress = concat(
        [{ from = concat([local.same_project], values(local.from_namespace)) }],
        length(var.ingress_ports) == 0 ? [] : [{
          from  = [{ ipBlock = { cidr = "0.0.0.0/0" } }]
          ports = [for p in var.ingress_ports : { protocol = "TCP", port = p }]
        }],
      )
      egress = [
        { to = concat([local.same_project], values(local.from_namespace)) },
        { to = [{ ipBlock = { cidr = "0.0.0.0/0" } }] },
        {
          to = [{ namespaceSelector = { matchLabels = { "kubernetes.io/metadata.name" = "kube-system" } } }]
          ports = [
            { protocol = "UDP", port = 53 },
            { protocol = "TCP", port = 53 },
          ]
        },
      ]
    }
  }

  // The policy is ours whole; take it back if someone edited it by hand.
  field_manager {
    force_conflicts = true
  }
}

output "name" {
  value = kubernetes_manifest.isolated.manifest.metadata.name
}
