// Copyright 2026 The cloud-provider-dvp Authors
// SPDX-License-Identifier: Apache-2.0

// Everything one node needs, derived from the v2 objects: its instance class with defaults, zone, address,
// labels, node selector and object names. Pure data, so the rules are unit-tested without an API.
// Every value DVP would refuse is refused here, at plan, before any object exists; the message names the object
// and field to fix. The values stay computable when inputs are missing, so only those messages are shown.

locals {
  params     = try(var.settings.nodes.parameters, {})
  namespace  = try(tostring(var.settings.provider.parameters.namespace), "")
  node_group = try(var.nodeGroups[var.node_group_name], null)
  class_name = try(tostring(local.node_group.spec.cloudInstances.classReference.name), "")
  class      = try(var.instanceClasses[local.class_name].spec, null)
  vm         = try(local.class.virtualMachine, {})
  ic         = "DVPInstanceClass \"${local.class_name}\""
  is_master  = var.node_group_name == "master"

  // Zones the group may use: the cluster's zones narrowed by the group's; a node takes them round-robin.
  cluster_zones = try(tolist(local.params.zones), [])
  group_zones   = try(tolist(local.node_group.spec.cloudInstances.zones), [])
  foreign_zones = length(local.cluster_zones) == 0 ? [] : sort(setsubtract(local.group_zones, local.cluster_zones))
  zones         = length(local.group_zones) == 0 ? toset(local.cluster_zones) : setsubtract(local.group_zones, local.foreign_zones)
  zone_list     = sort(tolist(local.zones))
  zone          = length(local.zone_list) == 0 ? "" : local.zone_list[var.node_index % length(local.zone_list)]
  region        = try(tostring(local.params.region), "")

  group_addresses = try(local.params.ipAddresses[var.node_group_name], [])
  ip_address      = var.node_index < length(local.group_addresses) ? local.group_addresses[var.node_index] : "Auto"

  identity_labels = {
    "deckhouse.io/managed-by"       = "deckhouse"
    "dvp.deckhouse.io/cluster-uuid" = var.cluster_uuid
    "dvp.deckhouse.io/hostname"     = module.naming.hostname
    // The ownership rule of dvp_common: nodes made by dhctl are ours as capdvp's machines are.
    "dvp.deckhouse.io/component" = "dhctl"
  }
  // Reserved keys come last, so user labels never take over the identity labels.
  vm_labels = merge(try(local.vm.additionalLabels, {}), try(local.params.additionalVMLabels, {}), local.identity_labels)

  // The class's nodeSelector is a label map (the VM's nodeSelector) or Deckhouse's module's nodeSelectorTerms
  // (the VM's required node affinity, as for a pod); either ANDs with the zone and region labels.
  selector_raw   = try(local.vm.nodeSelector, {})
  selector_terms = try(local.selector_raw.nodeSelectorTerms, null)
  node_selector = merge(
    { for k, v in local.selector_raw : k => v if local.selector_terms == null },
    local.zone == "" ? {} : { "topology.kubernetes.io/zone" = local.zone },
    local.region == "" ? {} : { "topology.kubernetes.io/region" = local.region },
  )
  affinity = local.selector_terms == null ? null : {
    nodeAffinity = { requiredDuringSchedulingIgnoredDuringExecution = { nodeSelectorTerms = local.selector_terms } }
  }
  selector_field = "spec.virtualMachine.nodeSelector"
  selector_extra = local.selector_terms == null ? [] : sort([for k in keys(local.selector_raw) : k if k != "nodeSelectorTerms"])
  requirements = local.selector_terms == null ? [] : flatten([for i, t in local.selector_terms : concat(
    [for j, r in try(t.matchExpressions, []) : {
      where = "nodeSelectorTerms[${i}].matchExpressions[${j}]", node_field = false
      op    = try(tostring(r.operator), ""), key = try(tostring(r.key), ""), values = try(tolist(r.values), tolist([]))
    }],
    [for j, r in try(t.matchFields, []) : {
      where = "nodeSelectorTerms[${i}].matchFields[${j}]", node_field = true
      op    = try(tostring(r.operator), ""), key = try(tostring(r.key), ""), values = try(tolist(r.values), tolist([]))
    }],
  )])
  // The checks Kubernetes makes of a pod's node affinity: DVP could not make the VM's pod otherwise.
  selector_problems = concat(
    length(local.selector_extra) == 0 ? [] : ["${local.ic}: ${local.selector_field}: label keys (${join(", ", local.selector_extra)}) next to nodeSelectorTerms; write them as matchExpressions (operator In) of every term, or use only the label map"],
    local.selector_terms == null || try(length(local.selector_terms), 0) > 0 ? [] : ["${local.ic}: ${local.selector_field}.nodeSelectorTerms: must hold at least one term"],
    [for r in local.requirements : r.node_field ? (
      r.key == "metadata.name" && contains(["In", "NotIn"], r.op) && length(r.values) == 1 ? "" : "${local.ic}: ${local.selector_field}.${r.where}: only key metadata.name with operator In or NotIn and one node name"
      ) : (
      !contains(["In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt"], r.op) ? "${local.ic}: ${local.selector_field}.${r.where}.operator: \"${r.op}\" is not one of In, NotIn, Exists, DoesNotExist, Gt, Lt" :
      contains(["In", "NotIn"], r.op) && length(r.values) == 0 ? "${local.ic}: ${local.selector_field}.${r.where}.values: must not be empty for operator ${r.op}" :
      contains(["Exists", "DoesNotExist"], r.op) && length(r.values) > 0 ? "${local.ic}: ${local.selector_field}.${r.where}.values: must be empty for operator ${r.op}" :
      contains(["Gt", "Lt"], r.op) && !(length(r.values) == 1 && can(regex("^-?[0-9]+$", r.values[0]))) ? "${local.ic}: ${local.selector_field}.${r.where}.values: must be one integer for operator ${r.op}" : ""
    )],
  )

  // DVP takes quantities as strings; an integer (bytes) is passed as its decimal string.
  quantity = "^(\\+)?([0-9]+(\\.[0-9]*)?|\\.[0-9]+)(([KMGTPE]i)|[kMGTPE])?$"
  memory   = try(tostring(local.vm.memory.size), "")
  cores    = try(tonumber(local.vm.cpu.cores), 0)
  settings = {
    core_fraction         = try(tostring(local.vm.cpu.coreFraction), "") // "": the VM class's default
    bootloader            = try(tostring(local.vm.bootloader), "EFI")
    run_policy            = try(tostring(local.vm.runPolicy), "AlwaysOnUnlessStoppedManually")
    live_migration_policy = try(tostring(local.vm.liveMigrationPolicy), "PreferForced")
  }
  enums = {
    bootloader            = ["BIOS", "EFI", "EFIWithSecureBoot"]
    run_policy            = ["AlwaysOn", "AlwaysOff", "Manual", "AlwaysOnUnlessStoppedManually"]
    live_migration_policy = ["AlwaysSafe", "PreferSafe", "AlwaysForced", "PreferForced"]
  }
  fields = {
    bootloader            = "spec.virtualMachine.bootloader"
    run_policy            = "spec.virtualMachine.runPolicy"
    live_migration_policy = "spec.virtualMachine.liveMigrationPolicy"
  }

  root_image = {
    kind = try(tostring(local.class.rootDisk.image.kind), "")
    name = try(tostring(local.class.rootDisk.image.name), "")
  }
  root_size = try(tostring(local.class.rootDisk.size), "50Gi")
  etcd_size = try(tostring(local.class.etcdDisk.size), "15Gi")

  // Additional disks are keyed by their name, or by their index when unnamed (the names of older releases),
  // so removing a named entry leaves the others alone.
  additional_list = try(tolist(local.class.additionalDisks), [])
  additional = [for i, d in local.additional_list : {
    key           = try(tostring(d.name), tostring(i))
    size          = try(tostring(d.size), "10Gi")
    storage_class = try(tostring(d.storageClass), "")
  }]
  additional_keys = [for d in local.additional : d.key]
  disk_key        = "^[a-z0-9]([-a-z0-9]*[a-z0-9])?$"

  hostname = module.naming.hostname

  problems = compact(flatten([
    local.namespace == "" ? ["ModuleConfig cloud-provider-dvp: spec.settings.provider.parameters.namespace is required (the DVP project namespace)"] : [],
    local.node_group == null ? ["NodeGroup \"${var.node_group_name}\" not found (known: ${join(", ", sort(keys(var.nodeGroups)))})"] : [],
    local.node_group != null && local.class_name == "" ? ["NodeGroup \"${var.node_group_name}\": spec.cloudInstances.classReference.name is required"] : [],
    local.class_name != "" && local.class == null ? ["NodeGroup \"${var.node_group_name}\": spec.cloudInstances.classReference.name: DVPInstanceClass \"${local.class_name}\" not found"] : [],
    length(local.foreign_zones) > 0 ? ["NodeGroup \"${var.node_group_name}\": spec.cloudInstances.zones ${join(", ", local.foreign_zones)} not among the cluster zones (ModuleConfig spec.settings.nodes.parameters.zones: ${join(", ", local.cluster_zones)})"] : [],
    can(regex("^[a-z0-9]([-a-z0-9]*[a-z0-9])?$", local.hostname)) && length(local.hostname) <= 63 ? [] : ["clusterConfiguration.cloud.prefix and NodeGroup \"${var.node_group_name}\": hostname \"${local.hostname}\" must be a DNS label of at most 63 characters (it is the VirtualMachine name and a label value)"],
    local.class == null ? [] : concat(
      try(tostring(local.vm.virtualMachineClassName), "") == "" ? ["${local.ic}: spec.virtualMachine.virtualMachineClassName is required"] : [],
      local.cores >= 1 && floor(local.cores) == local.cores ? [] : ["${local.ic}: spec.virtualMachine.cpu.cores must be an integer of at least 1, got ${jsonencode(try(local.vm.cpu.cores, null))}"],
      local.settings.core_fraction == "" || can(regex("^(100|[1-9][0-9]?)%$", local.settings.core_fraction)) ? [] : ["${local.ic}: spec.virtualMachine.cpu.coreFraction must be a percentage from 1% to 100%, got ${jsonencode(try(local.vm.cpu.coreFraction, null))}"],
      can(regex(local.quantity, local.memory)) ? [] : ["${local.ic}: spec.virtualMachine.memory.size must be a quantity such as \"8Gi\", got ${jsonencode(try(local.vm.memory.size, null))}"],
      [for k, allowed in local.enums : contains(allowed, local.settings[k]) ? "" : "${local.ic}: ${local.fields[k]} must be one of ${join(", ", allowed)}, got \"${local.settings[k]}\""],
      local.root_image.kind == "VirtualDisk" ? ["${local.ic}: spec.rootDisk.image: kind: VirtualDisk cannot be a node image (DVP makes a disk only from an image or a snapshot, and nodes cannot share one boot disk); make a VirtualImage from that disk (dataSource.objectRef.kind: VirtualDisk) and set kind: VirtualImage and its name"] :
      contains(["ClusterVirtualImage", "VirtualImage"], local.root_image.kind) && local.root_image.name != "" ? [] : ["${local.ic}: spec.rootDisk.image needs kind ClusterVirtualImage or VirtualImage and a name"],
      length(try(local.vm.gpus, [])) == 0 ? [] : ["${local.ic}: spec.virtualMachine: gpus: not supported by this module yet (DVP passes GPUs through VirtualMachine spec.gpus behind its GPU feature gate); remove spec.virtualMachine.gpus"],
      local.selector_problems,
      can(regex(local.quantity, local.root_size)) ? [] : ["${local.ic}: spec.rootDisk.size must be a quantity, got \"${local.root_size}\""],
      local.is_master && !can(local.class.etcdDisk) ? ["${local.ic}: spec.etcdDisk is required for NodeGroup master (the etcd disk)"] : [],
      can(local.class.etcdDisk) && !can(regex(local.quantity, local.etcd_size)) ? ["${local.ic}: spec.etcdDisk.size must be a quantity, got \"${local.etcd_size}\""] : [],
      [for i, d in local.additional : can(regex(local.quantity, d.size)) ? "" : "${local.ic}: spec.additionalDisks[${i}].size must be a quantity, got \"${d.size}\""],
      [for i, d in local.additional : can(regex(local.disk_key, d.key)) && length(d.key) <= 20 ? "" : "${local.ic}: spec.additionalDisks[${i}].name \"${d.key}\" must be a DNS label of at most 20 characters"],
      length(distinct(local.additional_keys)) == length(local.additional_keys) ? [] : ["${local.ic}: spec.additionalDisks names must be unique (an unnamed entry is named by its index)"],
    ),
  ]))
}

module "naming" {
  source = "../naming"

  prefix               = var.prefix
  node_group_name      = var.node_group_name
  node_index           = var.node_index
  root_image           = local.root_image
  ip_address           = local.ip_address
  additional_disk_keys = distinct(local.additional_keys)
}
