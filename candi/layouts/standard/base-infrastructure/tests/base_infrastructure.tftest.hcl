// Copyright 2026 The cloud-provider-dvp Authors
// SPDX-License-Identifier: Apache-2.0

mock_provider "kubernetes" {
  mock_data "kubernetes_resources" {
    defaults = {
      objects = [{ metadata = { name = "x" } }]
    }
  }
}

variables {
  clusterConfiguration = { cloud = { prefix = "demo" } }
  clusterUUID          = "0b6f8a9e-0000-4000-8000-000000000001"
  settings = {
    spec = {
      version = 2
      settings = {
        provider = { parameters = { namespace = "demo-ns" } }
        nodes    = { parameters = { layout = "Standard", sshPublicKey = "ssh-ed25519 AAAAkey", zones = ["a", "b"], ingressPorts = [22, 6443] } }
      }
    }
  }
  nodeGroups = {
    master = { spec = { nodeType = "CloudPermanent", cloudInstances = { classReference = { kind = "DVPInstanceClass", name = "master" } } } }
    cloud  = { spec = { nodeType = "CloudEphemeral", cloudInstances = { classReference = { kind = "DVPInstanceClass", name = "ephemeral" } } } }
  }
  instanceClasses = {
    master = { spec = {
      virtualMachine = { cpu = { cores = 4 }, memory = { size = "8Gi" }, virtualMachineClassName = "generic" }
      rootDisk       = { size = "50Gi", image = { kind = "ClusterVirtualImage", name = "ubuntu-24-04" } }
      etcdDisk       = { size = "15Gi", storageClass = "fast" }
    } }
    ephemeral = { spec = {
      virtualMachine = { cpu = { cores = 2 }, memory = { size = "4Gi" }, virtualMachineClassName = "other" }
      rootDisk       = { size = "30Gi", image = { kind = "VirtualImage", name = "ubuntu" } }
    } }
  }
  secrets = {
    d8-credentials = { stringData = { authScheme = "kubeconfig", secret = "YXBpVmVyc2lvbjogdjEKa2luZDogQ29uZmlnCmN1cnJlbnQtY29udGV4dDogc2EKY29udGV4dHM6Ci0gbmFtZTogc2EKICBjb250ZXh0OiB7Y2x1c3RlcjogZHZwLCB1c2VyOiBzYX0KY2x1c3RlcnM6Ci0gbmFtZTogZHZwCiAgY2x1c3Rlcjoge3NlcnZlcjogImh0dHBzOi8vMTI3LjAuMC4xOjY0NDMiLCBpbnNlY3VyZS1za2lwLXRscy12ZXJpZnk6IHRydWV9CnVzZXJzOgotIG5hbWU6IHNhCiAgdXNlcjoge3Rva2VuOiBub3QtYS1yZWFsLXRva2VufQo=" } }
  }
}

run "isolated_by_default" {
  assert {
    condition     = jsonencode(output.cloud_discovery_data) == jsonencode({ apiVersion = "deckhouse.io/v1", kind = "DVPCloudDiscoveryData", layout = "Standard", zones = ["a", "b"] })
    error_message = "discovery data: ${jsonencode(output.cloud_discovery_data)}"
  }
  assert {
    condition     = module.network_policy[*].name == ["demo-isolated"]
    error_message = "networkPolicy defaults to Isolated"
  }
}

run "no_policy_and_default_zone" {
  variables {
    settings = { spec = { version = 2, settings = {
      provider = { parameters = { namespace = "demo-ns", networkPolicy = "None" } }
      nodes    = { parameters = { layout = "Standard", sshPublicKey = "k" } }
    } } }
  }

  assert {
    condition     = length(module.network_policy) == 0 && output.cloud_discovery_data.zones == tolist(["default"])
    error_message = "networkPolicy None creates no policy"
  }
}
