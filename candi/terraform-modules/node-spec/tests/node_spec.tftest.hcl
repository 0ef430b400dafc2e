// Copyright 2026 The cloud-provider-dvp Authors
// SPDX-License-Identifier: Apache-2.0

variables {
  prefix          = "demo"
  cluster_uuid    = "0b6f8a9e-0000-4000-8000-000000000001"
  node_group_name = "worker"
  node_index      = 0
  settings = {
    provider = { parameters = { namespace = "demo-ns" } }
    nodes = { parameters = {
      sshPublicKey       = "ssh-ed25519 AAAAkey"
      zones              = ["zone-c", "zone-a", "zone-b"]
      region             = "ru-central"
      ipAddresses        = { worker = ["10.0.0.21"] }
      additionalVMLabels = { bastion = "allowed", "dvp.deckhouse.io/cluster-uuid" = "spoofed" }
    } }
  }
  nodeGroups = {
    worker = { spec = { nodeType = "CloudPermanent", cloudInstances = {
      classReference = { kind = "DVPInstanceClass", name = "worker-class" }
      zones          = ["zone-a", "zone-b", "zone-x"]
    } } }
  }
  instanceClasses = {
    worker-class = { spec = {
      virtualMachine = {
        cpu                     = { cores = 2 }
        memory                  = { size = "4Gi" }
        virtualMachineClassName = "generic"
        additionalLabels        = { team = "a", "deckhouse.io/managed-by" = "me" }
        nodeSelector            = { rack = "r1" }
      }
      rootDisk        = { size = "30Gi", image = { kind = "VirtualImage", name = "ubuntu" } }
      additionalDisks = [{ size = "20Gi", storageClass = "slow" }]
    } }
  }
}

run "first_node_of_a_group" {
  command = plan

  assert {
    condition     = output.hostname == "demo-worker-0" && output.namespace == "demo-ns"
    error_message = "hostname ${output.hostname}, namespace ${output.namespace}"
  }
  assert {
    condition     = output.zone == "zone-a" && output.ip_address == "10.0.0.21"
    error_message = "zone ${output.zone}, address ${output.ip_address}"
  }
  assert {
    condition = output.vm == {
      name                  = "demo-worker-0"
      cloudinit_secret_name = "demo-worker-0-cloudinit"
      ip_address_name       = "demo-worker-0-10-0-0-21"
      labels = {
        team                            = "a"
        bastion                         = "allowed"
        "deckhouse.io/managed-by"       = "deckhouse"
        "dvp.deckhouse.io/cluster-uuid" = "0b6f8a9e-0000-4000-8000-000000000001"
        "dvp.deckhouse.io/hostname"     = "demo-worker-0"
        "dvp.deckhouse.io/component"    = "dhctl"
      }
      annotations           = {}
      cores                 = 2
      core_fraction         = "100%"
      memory                = "4Gi"
      virtual_machine_class = "generic"
      bootloader            = "EFI"
      run_policy            = "AlwaysOnUnlessStoppedManually"
      live_migration_policy = "PreferForced"
      node_selector = {
        rack                            = "r1"
        "topology.kubernetes.io/zone"   = "zone-a"
        "topology.kubernetes.io/region" = "ru-central"
      }
      priority_class_name = ""
      tolerations         = []
    }
    error_message = "vm: ${jsonencode(output.vm)}"
  }
  assert {
    condition     = output.root_disk == { name = "demo-worker-0-root-${substr(sha256(jsonencode({ kind = "VirtualImage", name = "ubuntu" })), 0, 6)}", size = "30Gi", storage_class = "", image = { kind = "VirtualImage", name = "ubuntu" } }
    error_message = "root disk: ${jsonencode(output.root_disk)}"
  }
  assert {
    condition     = output.kubernetes_data_disk == null
    error_message = "a class without etcdDisk has no kubernetes data disk"
  }
  assert {
    condition     = output.additional_disks == [{ name = "demo-worker-0-additional-disk-0", size = "20Gi", storage_class = "slow" }]
    error_message = "additional disks: ${jsonencode(output.additional_disks)}"
  }
}

run "later_nodes_take_zones_round_robin_and_auto_addresses" {
  command = plan

  variables {
    node_index = 3
  }

  assert {
    condition     = output.zone == "zone-b" && output.ip_address == "Auto" && output.vm.ip_address_name == "demo-worker-3-auto"
    error_message = "zone ${output.zone}, address ${output.ip_address}"
  }
}

run "master_class_gets_its_etcd_disk" {
  command = plan

  variables {
    node_group_name = "master"
    nodeGroups      = { master = { spec = { cloudInstances = { classReference = { name = "m" } } } } }
    instanceClasses = { m = { spec = {
      virtualMachine = { cpu = { cores = 4, coreFraction = "50%" }, memory = { size = "8Gi" }, virtualMachineClassName = "c", bootloader = "BIOS" }
      rootDisk       = { size = "50Gi", storageClass = "fast", image = { kind = "ClusterVirtualImage", name = "ubuntu-24-04" } }
      etcdDisk       = { size = "20Gi", storageClass = "fast" }
    } } }
  }

  assert {
    condition     = output.kubernetes_data_disk == { name = "demo-master-0-kubernetes-data", size = "20Gi", storage_class = "fast" }
    error_message = "etcd disk: ${jsonencode(output.kubernetes_data_disk)}"
  }
  assert {
    condition     = output.root_disk.name == "demo-master-0-root-ab91fd" && output.vm.core_fraction == "50%" && output.vm.bootloader == "BIOS"
    error_message = "master: ${jsonencode(output.root_disk)}"
  }
  assert {
    // no group zones: the cluster's zones, sorted, index 0
    condition     = output.zone == "zone-a" && output.ip_address == "Auto"
    error_message = "zone ${output.zone}"
  }
}

run "no_zones_no_selector" {
  command = plan

  variables {
    settings = { provider = { parameters = { namespace = "n" } }, nodes = { parameters = { sshPublicKey = "k" } } }
    instanceClasses = { worker-class = { spec = {
      virtualMachine = { cpu = { cores = 1 }, memory = { size = "1Gi" }, virtualMachineClassName = "c" }
      rootDisk       = { image = { kind = "ClusterVirtualImage", name = "i" } }
    } } }
    nodeGroups = { worker = { spec = { cloudInstances = { classReference = { name = "worker-class" } } } } }
  }

  assert {
    condition     = output.zone == "" && output.vm.node_selector == {} && output.root_disk.size == "50Gi"
    error_message = "zone ${output.zone}, selector ${jsonencode(output.vm.node_selector)}"
  }
}
