// Copyright 2026 The cloud-provider-dvp Authors
// SPDX-License-Identifier: Apache-2.0

mock_provider "kubernetes" {}

variables {
  namespace     = "demo-ns"
  name          = "demo-isolated"
  cluster_uuid  = "0b6f8a9e-0000-4000-8000-000000000001"
  ingress_ports = [22, 443]
}

run "isolated" {
  assert {
    condition     = jsonencode(kubernetes_manifest.isolated.manifest.spec.podSelector) == jsonencode({ matchLabels = { "dvp.deckhouse.io/cluster-uuid" = "0b6f8a9e-0000-4000-8000-000000000001" } })
    error_message = "the policy must select the cluster's VM pods"
  }
  assert {
    condition = jsonencode(kubernetes_manifest.isolated.manifest.spec.ingress[1]) == jsonencode({
      from  = [{ ipBlock = { cidr = "0.0.0.0/0" } }]
      ports = [{ protocol = "TCP", port = 22 }, { protocol = "TCP", port = 443 }]
    })
    error_message = "ingress: ${jsonencode(kubernetes_manifest.isolated.manifest.spec.ingress)}"
  }
  assert {
    condition     = [for p in kubernetes_manifest.isolated.manifest.spec.ingress[0].from : p.namespaceSelector.matchLabels["kubernetes.io/metadata.name"]] == ["demo-ns", "d8-ingress-nginx", "d8-metallb"]
    error_message = "ingress sources: ${jsonencode(kubernetes_manifest.isolated.manifest.spec.ingress[0])}"
  }
  assert {
    condition     = kubernetes_manifest.isolated.field_manager[0].force_conflicts == true
    error_message = "the policy must take its fields back"
  }
}

run "no_open_ports" {
  variables {
    ingress_ports = []
  }

  assert {
    condition     = length(kubernetes_manifest.isolated.manifest.spec.ingress) == 1
    error_message = "ingress: ${jsonencode(kubernetes_manifest.isolated.manifest.spec.ingress)}"
  }
}
