// Copyright 2026 The cloud-provider-dvp Authors
// SPDX-License-Identifier: Apache-2.0

mock_provider "kubernetes" {
  mock_data "kubernetes_resource" {
    defaults = {
      object = {
        metadata = { uid = "5a0e8d0c-1111-4222-8333-444455556666" }
        status   = { phase = "Running", ipAddress = "10.0.0.31", address = "10.0.0.31" }
      }
    }
  }
  mock_data "kubernetes_resources" {
    defaults = {
      objects = [{ metadata = { name = "x" } }]
    }
  }
  // no cloud-init Secret left by a killed apply (the provider's answer for one that does not exist: no uid)
  mock_data "kubernetes_secret_v1" {
    defaults = {
      metadata = { uid = "" }
    }
  }
}

variables {
  clusterConfiguration = { cloud = { prefix = "demo" } }
  clusterUUID          = "0b6f8a9e-0000-4000-8000-000000000001"
  nodeGroupName        = "worker"
  nodeIndex            = 2
  cloudConfig          = "I2Nsb3VkLWNvbmZpZwpwYWNrYWdlX3VwZGF0ZTogZmFsc2UK"
  settings = {
    spec = {
      version = 2
      settings = {
        provider = { parameters = { namespace = "demo-ns" } }
        nodes    = { parameters = { layout = "Standard", sshPublicKey = "ssh-ed25519 AAAAkey", zones = ["a", "b"] } }
      }
    }
  }
  nodeGroups = {
    master = { spec = { nodeType = "CloudPermanent", cloudInstances = { classReference = { kind = "DVPInstanceClass", name = "master" } } } }
    worker = { spec = { nodeType = "CloudPermanent", cloudInstances = { classReference = { kind = "DVPInstanceClass", name = "worker" } } } }
  }
  instanceClasses = {
    master = { spec = {
      virtualMachine = { cpu = { cores = 4 }, memory = { size = "8Gi" }, virtualMachineClassName = "generic" }
      rootDisk       = { size = "50Gi", image = { kind = "ClusterVirtualImage", name = "ubuntu-24-04" } }
      etcdDisk       = { size = "15Gi", storageClass = "fast" }
    } }
    worker = { spec = {
      virtualMachine = { cpu = { cores = 2 }, memory = { size = "4Gi" }, virtualMachineClassName = "generic" }
      rootDisk       = { size = "30Gi", image = { kind = "VirtualImage", name = "ubuntu" } }
    } }
  }
  secrets = {
    d8-credentials = { stringData = { authScheme = "kubeconfig", secret = "YXBpVmVyc2lvbjogdjEKa2luZDogQ29uZmlnCmN1cnJlbnQtY29udGV4dDogc2EKY29udGV4dHM6Ci0gbmFtZTogc2EKICBjb250ZXh0OiB7Y2x1c3RlcjogZHZwLCB1c2VyOiBzYX0KY2x1c3RlcnM6Ci0gbmFtZTogZHZwCiAgY2x1c3Rlcjoge3NlcnZlcjogImh0dHBzOi8vMTI3LjAuMC4xOjY0NDMiLCBpbnNlY3VyZS1za2lwLXRscy12ZXJpZnk6IHRydWV9CnVzZXJzOgotIG5hbWU6IHNhCiAgdXNlcjoge3Rva2VuOiBub3QtYS1yZWFsLXRva2VufQo=" } }
  }
}

run "third_worker" {
  assert {
    condition     = output.node_internal_ip_address == "10.0.0.31"
    error_message = "address: ${output.node_internal_ip_address}"
  }
  assert {
    condition     = module.node.hostname == "demo-worker-2" && module.node.zone == "a" && module.node.vm.ip_address_name == "demo-worker-2-auto"
    error_message = "node: ${module.node.hostname} ${module.node.zone}"
  }
  assert {
    condition     = module.node.kubernetes_data_disk == null && module.additional_disk.names == []
    error_message = "a worker has no etcd disk"
  }
  assert {
    // dhctl's document is a part of its own, byte for byte; the node part sets the hostname
    condition     = strcontains(nonsensitive(module.cloudinit.user_data), "\r\n${var.cloudConfig}\r\n") && yamldecode(base64decode(split("\r\n", nonsensitive(module.cloudinit.user_data))[13])).hostname == "demo-worker-2"
    error_message = "the bashible cloud-config must be passed with the node part"
  }
}
