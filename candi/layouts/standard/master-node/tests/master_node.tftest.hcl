// Copyright 2026 The cloud-provider-dvp Authors
// SPDX-License-Identifier: Apache-2.0

mock_provider "kubernetes" {
  mock_data "kubernetes_resource" {
    defaults = {
      object = {
        metadata = { uid = "5a0e8d0c-1111-4222-8333-444455556666" }
        status   = { phase = "Running", ipAddress = "10.0.0.5", address = "10.0.0.5" }
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
  nodeIndex            = 0
  settings = {
    apiVersion = "deckhouse.io/v1alpha1"
    kind       = "ModuleConfig"
    metadata   = { name = "cloud-provider-dvp" }
    spec = {
      version = 2
      settings = {
        provider = { parameters = { namespace = "demo-ns" } }
        nodes    = { parameters = { layout = "Standard", sshPublicKey = "ssh-ed25519 AAAAkey", ipAddresses = { master = ["10.0.0.5"] } } }
      }
    }
  }
  nodeGroups = {
    master = { spec = { nodeType = "CloudPermanent", cloudInstances = { classReference = { kind = "DVPInstanceClass", name = "master" } } } }
  }
  instanceClasses = {
    master = { spec = {
      virtualMachine  = { cpu = { cores = 4 }, memory = { size = "8Gi" }, virtualMachineClassName = "generic" }
      rootDisk        = { size = "50Gi", image = { kind = "ClusterVirtualImage", name = "ubuntu-24-04" } }
      etcdDisk        = { size = "15Gi", storageClass = "fast" }
      additionalDisks = [{ size = "10Gi", storageClass = "slow" }]
    } }
  }
  secrets = {
    d8-credentials = { stringData = { authScheme = "kubeconfig", secret = "YXBpVmVyc2lvbjogdjEKa2luZDogQ29uZmlnCmN1cnJlbnQtY29udGV4dDogc2EKY29udGV4dHM6Ci0gbmFtZTogc2EKICBjb250ZXh0OiB7Y2x1c3RlcjogZHZwLCB1c2VyOiBzYX0KY2x1c3RlcnM6Ci0gbmFtZTogZHZwCiAgY2x1c3Rlcjoge3NlcnZlcjogImh0dHBzOi8vMTI3LjAuMC4xOjY0NDMiLCBpbnNlY3VyZS1za2lwLXRscy12ZXJpZnk6IHRydWV9CnVzZXJzOgotIG5hbWU6IHNhCiAgdXNlcjoge3Rva2VuOiBub3QtYS1yZWFsLXRva2VufQo=" } }
  }
}

run "first_master" {
  assert {
    condition     = output.master_ip_address_for_ssh == "10.0.0.5" && output.node_internal_ip_address == "10.0.0.5"
    error_message = "addresses: ${output.master_ip_address_for_ssh}"
  }
  assert {
    condition     = output.kubernetes_data_device_path == "/dev/disk/by-id/scsi-0QEMU_QEMU_HARDDISK_1bd0769ae470c919fd03f159b22d5c61"
    error_message = "device path: ${output.kubernetes_data_device_path}"
  }
  assert {
    condition     = module.node.vm.name == "demo-master-0" && module.node.vm.ip_address_name == "demo-master-0-10-0-0-5"
    error_message = "names: ${jsonencode(module.node.vm)}"
  }
  assert {
    condition     = jsonencode(module.additional_disk.names) == jsonencode(["demo-master-0-additional-disk-0"]) && module.kubernetes_data_disk.name == "demo-master-0-kubernetes-data"
    error_message = "disks"
  }
  assert {
    condition     = module.credentials.host == "https://127.0.0.1:6443" && module.migration.source == "v2"
    error_message = "connection: ${module.credentials.host}"
  }
}

run "legacy_configuration_only" {
  variables {
    settings        = null
    nodeGroups      = {}
    instanceClasses = {}
    secrets         = {}
    nodeIndex       = 1
    providerClusterConfiguration = {
      apiVersion   = "deckhouse.io/v1"
      kind         = "DVPClusterConfiguration"
      layout       = "Standard"
      sshPublicKey = "ssh-ed25519 AAAAkey"
      provider     = { kubeconfigDataBase64 = "YXBpVmVyc2lvbjogdjEKa2luZDogQ29uZmlnCmN1cnJlbnQtY29udGV4dDogc2EKY29udGV4dHM6Ci0gbmFtZTogc2EKICBjb250ZXh0OiB7Y2x1c3RlcjogZHZwLCB1c2VyOiBzYX0KY2x1c3RlcnM6Ci0gbmFtZTogZHZwCiAgY2x1c3Rlcjoge3NlcnZlcjogImh0dHBzOi8vMTI3LjAuMC4xOjY0NDMiLCBpbnNlY3VyZS1za2lwLXRscy12ZXJpZnk6IHRydWV9CnVzZXJzOgotIG5hbWU6IHNhCiAgdXNlcjoge3Rva2VuOiBub3QtYS1yZWFsLXRva2VufQo=", namespace = "legacy-ns" }
      masterNodeGroup = {
        replicas = 3
        instanceClass = {
          virtualMachine = { cpu = { cores = 4 }, memory = { size = "8Gi" }, virtualMachineClassName = "generic", ipAddresses = ["10.0.0.4", "10.0.0.5"] }
          rootDisk       = { size = "50Gi", image = { kind = "ClusterVirtualImage", name = "ubuntu-24-04" } }
          etcdDisk       = { size = "15Gi" }
        }
      }
    }
  }

  assert {
    condition     = module.migration.source == "providerClusterConfiguration" && module.node.namespace == "legacy-ns"
    error_message = "the legacy configuration must drive the layout"
  }
  assert {
    condition     = module.node.hostname == "demo-master-1" && module.node.ip_address == "10.0.0.5"
    error_message = "node: ${module.node.hostname} ${module.node.ip_address}"
  }
}

// Masters change one at a time: while another master restarts to apply its configuration, the plan stops.
run "another_master_restarting_stops_the_plan" {
  command = plan

  override_data {
    target = data.kubernetes_resources.masters
    values = { objects = [
      { metadata = { name = "demo-master-0" }, status = { phase = "Running" } },
      { metadata = { name = "demo-master-1" }, status = { phase = "Stopping", conditions = [{ type = "AwaitingRestartToApplyConfiguration", status = "True" }] } },
    ] }
  }

  expect_failures = [data.kubernetes_resources.masters]
}

// DVP has not processed the other master's latest spec yet: it may be about to restart it.
run "a_master_with_a_change_dvp_has_not_processed_stops_the_plan" {
  command = plan

  override_data {
    target = data.kubernetes_resources.masters
    values = { objects = [
      { metadata = { name = "demo-master-1", generation = 3 }, status = { phase = "Running", observedGeneration = 2 } },
    ] }
  }

  expect_failures = [data.kubernetes_resources.masters]
}

run "other_masters_running_or_other_groups_busy_do_not_stop_it" {
  command = plan

  override_data {
    target = data.kubernetes_resources.masters
    values = { objects = [
      { metadata = { name = "demo-master-0" }, status = { phase = "Starting" } },
      { metadata = { name = "demo-master-1", generation = 2 }, status = { phase = "Running", observedGeneration = 2 } },
      { metadata = { name = "demo-worker-0", generation = 2 }, status = { phase = "Stopping", observedGeneration = 1 } },
    ] }
  }

  assert {
    condition     = module.node.hostname == "demo-master-0"
    error_message = "the plan must go on"
  }
}
