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
      zones          = ["zone-a", "zone-b"]
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
      additionalDisks = [{ size = "20Gi", storageClass = "slow" }, { name = "logs", size = 1073741824, storageClass = "slow" }]
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
    condition = { for k, v in output.vm : k => v if k != "affinity" } == {
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
      core_fraction         = ""
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
    // a label map stays the VM's nodeSelector: no affinity
    condition     = output.vm.affinity == null
    error_message = "affinity: ${jsonencode(output.vm.affinity)}"
  }
  assert {
    condition     = output.root_disk == { name = "demo-worker-0-root-${substr(sha256(jsonencode({ kind = "VirtualImage", name = "ubuntu" })), 0, 6)}", size = "30Gi", storage_class = "", image = { kind = "VirtualImage", name = "ubuntu" }, field = "DVPInstanceClass \"worker-class\": spec.rootDisk" }
    error_message = "root disk: ${jsonencode(output.root_disk)}"
  }
  assert {
    condition     = output.kubernetes_data_disk == null
    error_message = "a class without etcdDisk has no kubernetes data disk"
  }
  assert {
    // an unnamed entry is keyed (and named) by its index, as before; a named one by its name; sizes are strings
    condition = jsonencode(output.additional_disks) == jsonencode([
      { key = "0", name = "demo-worker-0-additional-disk-0", size = "20Gi", storage_class = "slow", field = "DVPInstanceClass \"worker-class\": spec.additionalDisks[0]" },
      { key = "logs", name = "demo-worker-0-additional-disk-logs", size = "1073741824", storage_class = "slow", field = "DVPInstanceClass \"worker-class\": spec.additionalDisks[1]" },
    ])
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
    condition     = output.kubernetes_data_disk == { name = "demo-master-0-kubernetes-data", size = "20Gi", storage_class = "fast", field = "DVPInstanceClass \"m\": spec.etcdDisk" }
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

// Plan-time refusals: one line per problem, naming the object and the field.
run "values_dvp_would_refuse_are_refused_at_plan" {
  command = plan

  variables {
    instanceClasses = { worker-class = { spec = {
      virtualMachine = {
        cpu                     = { cores = 1.5, coreFraction = "0%" }
        memory                  = { size = "8 GB" }
        virtualMachineClassName = "generic"
        runPolicy               = "Sometimes"
        liveMigrationPolicy     = "Never"
        bootloader              = "UEFI"
      }
      rootDisk        = { size = "30Gi", image = { kind = "VirtualDisk", name = "ubuntu" } }
      additionalDisks = [{ name = "Logs", size = "1Gi" }, { name = "a", size = "1Gi" }, { name = "a", size = "2Gi" }]
    } } }
  }

  expect_failures = [output.vm]

  assert {
    condition = output.problems == tolist([
      "DVPInstanceClass \"worker-class\": spec.virtualMachine.cpu.cores must be an integer of at least 1, got 1.5",
      "DVPInstanceClass \"worker-class\": spec.virtualMachine.cpu.coreFraction must be a percentage from 1% to 100%, got \"0%\"",
      "DVPInstanceClass \"worker-class\": spec.virtualMachine.memory.size must be a quantity such as \"8Gi\", got \"8 GB\"",
      "DVPInstanceClass \"worker-class\": spec.virtualMachine.bootloader must be one of BIOS, EFI, EFIWithSecureBoot, got \"UEFI\"",
      "DVPInstanceClass \"worker-class\": spec.virtualMachine.liveMigrationPolicy must be one of AlwaysSafe, PreferSafe, AlwaysForced, PreferForced, got \"Never\"",
      "DVPInstanceClass \"worker-class\": spec.virtualMachine.runPolicy must be one of AlwaysOn, AlwaysOff, Manual, AlwaysOnUnlessStoppedManually, got \"Sometimes\"",
      "DVPInstanceClass \"worker-class\": spec.rootDisk.image: kind: VirtualDisk cannot be a node image (DVP makes a disk only from an image or a snapshot, and nodes cannot share one boot disk); make a VirtualImage from that disk (dataSource.objectRef.kind: VirtualDisk) and set kind: VirtualImage and its name",
      "DVPInstanceClass \"worker-class\": spec.additionalDisks[0].name \"Logs\" must be a DNS label of at most 20 characters",
      "DVPInstanceClass \"worker-class\": spec.additionalDisks names must be unique (an unnamed entry is named by its index)",
    ])
    error_message = "problems: ${jsonencode(output.problems)}"
  }
}

// Deckhouse's module's DVPInstanceClass (crds/instance_class.yaml@21af0b5e2fcf016a7e5e0528b72345dc290008e0) takes
// nodeSelector as a core NodeSelector: the terms become the VM's required node affinity, ANDed with the zone and
// region labels. (Its Manual and Never live migration policies are refused: the run above.)
run "upstream_node_selector_terms" {
  command = plan

  variables {
    instanceClasses = { worker-class = { spec = {
      virtualMachine = {
        cpu = { cores = 2 }, memory = { size = "4Gi" }, virtualMachineClassName = "generic", liveMigrationPolicy = "AlwaysSafe"
        nodeSelector = { nodeSelectorTerms = [
          { matchExpressions = [{ key = "node.example.com/pool", operator = "In", values = ["a", "b"] }, { key = "spare", operator = "DoesNotExist" }] },
          { matchFields = [{ key = "metadata.name", operator = "In", values = ["dvp-node-3"] }] },
        ] }
      }
      rootDisk = { image = { kind = "ClusterVirtualImage", name = "i" } }
    } } }
  }

  assert {
    condition = jsonencode(output.vm.affinity) == jsonencode({ nodeAffinity = { requiredDuringSchedulingIgnoredDuringExecution = { nodeSelectorTerms = [
      { matchExpressions = [{ key = "node.example.com/pool", operator = "In", values = ["a", "b"] }, { key = "spare", operator = "DoesNotExist" }] },
      { matchFields = [{ key = "metadata.name", operator = "In", values = ["dvp-node-3"] }] },
    ] } } })
    error_message = "affinity: ${jsonencode(output.vm.affinity)}"
  }
  assert {
    condition     = output.vm.node_selector == { "topology.kubernetes.io/zone" = "zone-a", "topology.kubernetes.io/region" = "ru-central" } && output.vm.live_migration_policy == "AlwaysSafe" && length(output.problems) == 0
    error_message = "selector ${jsonencode(output.vm.node_selector)}, policy ${output.vm.live_migration_policy}, problems ${jsonencode(output.problems)}"
  }
}

run "node_selector_terms_a_pod_could_not_have_are_refused_at_plan" {
  command = plan

  variables {
    instanceClasses = { worker-class = { spec = {
      virtualMachine = {
        cpu = { cores = 2 }, memory = { size = "4Gi" }, virtualMachineClassName = "generic", gpus = [{ gpuClassName = "a100" }]
        nodeSelector = { rack = "r1", nodeSelectorTerms = [
          { matchExpressions = [
            { key = "a", operator = "In" }, { key = "b", operator = "Exists", values = ["x"] },
            { key = "c", operator = "Gt", values = ["ten"] }, { key = "d", operator = "Near" },
          ] },
          { matchFields = [{ key = "metadata.labels", operator = "In", values = ["n"] }] },
        ] }
      }
      rootDisk = { image = { kind = "ClusterVirtualImage", name = "i" } }
    } } }
  }

  expect_failures = [output.vm]

  assert {
    condition = output.problems == tolist([
      "DVPInstanceClass \"worker-class\": spec.virtualMachine: gpus: not supported by this module yet (DVP passes GPUs through VirtualMachine spec.gpus behind its GPU feature gate); remove spec.virtualMachine.gpus",
      "DVPInstanceClass \"worker-class\": spec.virtualMachine.nodeSelector: label keys (rack) next to nodeSelectorTerms; write them as matchExpressions (operator In) of every term, or use only the label map",
      "DVPInstanceClass \"worker-class\": spec.virtualMachine.nodeSelector.nodeSelectorTerms[0].matchExpressions[0].values: must not be empty for operator In",
      "DVPInstanceClass \"worker-class\": spec.virtualMachine.nodeSelector.nodeSelectorTerms[0].matchExpressions[1].values: must be empty for operator Exists",
      "DVPInstanceClass \"worker-class\": spec.virtualMachine.nodeSelector.nodeSelectorTerms[0].matchExpressions[2].values: must be one integer for operator Gt",
      "DVPInstanceClass \"worker-class\": spec.virtualMachine.nodeSelector.nodeSelectorTerms[0].matchExpressions[3].operator: \"Near\" is not one of In, NotIn, Exists, DoesNotExist, Gt, Lt",
      "DVPInstanceClass \"worker-class\": spec.virtualMachine.nodeSelector.nodeSelectorTerms[1].matchFields[0]: only key metadata.name with operator In or NotIn and one node name",
    ])
    error_message = "problems: ${jsonencode(output.problems)}"
  }
}

run "an_integer_memory_size_is_passed_as_a_string" {
  command = plan

  variables {
    instanceClasses = { worker-class = { spec = {
      virtualMachine = { cpu = { cores = 2 }, memory = { size = 4294967296 }, virtualMachineClassName = "generic" }
      rootDisk       = { image = { kind = "ClusterVirtualImage", name = "i" } }
    } } }
  }

  assert {
    condition     = output.vm.memory == "4294967296" && length(output.problems) == 0
    error_message = "memory ${jsonencode(output.vm.memory)}"
  }
}

run "missing_inputs_name_the_field_to_set" {
  command = plan

  variables {
    node_group_name = "master"
    settings        = { nodes = { parameters = { zones = ["zone-a"] } } }
    nodeGroups = {
      master = { spec = { cloudInstances = { classReference = { name = "m" }, zones = ["zone-a", "zone-q"] } } }
    }
    instanceClasses = { m = { spec = {
      virtualMachine = { cpu = { cores = 4 }, memory = { size = "8Gi" }, virtualMachineClassName = "c" }
      rootDisk       = { image = { kind = "ClusterVirtualImage", name = "i" } }
    } } }
  }

  expect_failures = [output.vm]

  assert {
    condition = output.problems == tolist([
      "ModuleConfig cloud-provider-dvp: spec.settings.provider.parameters.namespace is required (the DVP project namespace)",
      "NodeGroup \"master\": spec.cloudInstances.zones zone-q not among the cluster zones (ModuleConfig spec.settings.nodes.parameters.zones: zone-a)",
      "DVPInstanceClass \"m\": spec.etcdDisk is required for NodeGroup master (the etcd disk)",
    ])
    error_message = "problems: ${jsonencode(output.problems)}"
  }
}

run "unknown_node_group_and_class" {
  command = plan

  variables {
    node_group_name = "front"
  }

  expect_failures = [output.vm]

  assert {
    condition     = output.problems == tolist(["NodeGroup \"front\" not found (known: worker)"])
    error_message = "problems: ${jsonencode(output.problems)}"
  }
}

run "unknown_instance_class" {
  command = plan

  variables {
    instanceClasses = {}
  }

  expect_failures = [output.vm]

  assert {
    condition     = output.problems == tolist(["NodeGroup \"worker\": spec.cloudInstances.classReference.name: DVPInstanceClass \"worker-class\" not found"])
    error_message = "problems: ${jsonencode(output.problems)}"
  }
}

run "a_hostname_longer_than_a_label_value_is_refused" {
  command = plan

  variables {
    prefix = "a-prefix-that-is-far-too-long-for-a-label-value-of-kubernetes"
  }

  expect_failures = [output.vm]

  assert {
    condition     = output.problems == tolist(["clusterConfiguration.cloud.prefix and NodeGroup \"worker\": hostname \"a-prefix-that-is-far-too-long-for-a-label-value-of-kubernetes-worker-0\" must be a DNS label of at most 63 characters (it is the VirtualMachine name and a label value)"])
    error_message = "problems: ${jsonencode(output.problems)}"
  }
}
