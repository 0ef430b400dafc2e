// Copyright 2026 The cloud-provider-dvp Authors
// SPDX-License-Identifier: Apache-2.0

mock_provider "kubernetes" {
  mock_data "kubernetes_resource" {
    defaults = {
      object = { status = { phase = "Running", ipAddress = "10.0.0.5" } }
    }
  }
  mock_data "kubernetes_resources" {
    defaults = {
      objects = [{ metadata = { name = "generic" } }]
    }
  }
}

variables {
  namespace       = "demo-ns"
  user_data       = "#cloud-config\nhostname: demo-master-0\n"
  boot_disk_name  = "demo-master-0-root-ab91fd"
  data_disk_names = ["demo-master-0-kubernetes-data", "demo-master-0-additional-disk-0"]
  ip_address_name = "demo-master-0-auto"
  labels          = { "dvp.deckhouse.io/hostname" = "demo-master-0" }
  vm = {
    name                  = "demo-master-0"
    cloudinit_secret_name = "demo-master-0-cloudinit"
    ip_address_name       = "demo-master-0-auto"
    labels                = { "dvp.deckhouse.io/hostname" = "demo-master-0", team = "a" }
    annotations           = {}
    cores                 = 4
    core_fraction         = "" // none: DVP applies the VM class's default
    memory                = "8Gi"
    virtual_machine_class = "generic"
    bootloader            = "EFI"
    run_policy            = "AlwaysOnUnlessStoppedManually"
    live_migration_policy = "PreferForced"
    node_selector         = { "topology.kubernetes.io/zone" = "zone-a" }
    priority_class_name   = ""
    tolerations           = []
  }
}

run "create" {
  assert {
    condition = jsonencode(kubernetes_manifest.vm.manifest) == jsonencode({
      apiVersion = "virtualization.deckhouse.io/v1alpha2"
      kind       = "VirtualMachine"
      metadata = {
        name      = "demo-master-0"
        namespace = "demo-ns"
        labels    = { "dvp.deckhouse.io/hostname" = "demo-master-0", team = "a" }
      }
      spec = {
        virtualMachineClassName       = "generic"
        runPolicy                     = "AlwaysOnUnlessStoppedManually"
        liveMigrationPolicy           = "PreferForced"
        osType                        = "Generic"
        bootloader                    = "EFI"
        enableParavirtualization      = true
        terminationGracePeriodSeconds = 90
        disruptions                   = { restartApprovalMode = "Automatic" }
        cpu                           = { cores = 4 }
        memory                        = { size = "8Gi" }
        blockDeviceRefs = [
          { kind = "VirtualDisk", name = "demo-master-0-root-ab91fd" },
          { kind = "VirtualDisk", name = "demo-master-0-kubernetes-data" },
          { kind = "VirtualDisk", name = "demo-master-0-additional-disk-0" },
        ]
        provisioning                = { type = "UserDataRef", userDataRef = { kind = "Secret", name = "demo-master-0-cloudinit" } }
        virtualMachineIPAddressName = "demo-master-0-auto"
        nodeSelector                = { "topology.kubernetes.io/zone" = "zone-a" }
      }
    })
    error_message = "VM manifest: ${jsonencode(kubernetes_manifest.vm.manifest)}"
  }
  assert {
    // a wait that timed out on create would taint the VM: readiness is the read-back's postcondition
    condition     = length(kubernetes_manifest.vm.wait) == 0 && kubernetes_manifest.vm.field_manager[0].force_conflicts
    error_message = "the VM resource must not wait, and must own its fields"
  }
  assert {
    condition = (kubernetes_secret_v1.cloudinit.type == "provisioning.virtualization.deckhouse.io/cloud-init"
      && kubernetes_secret_v1.cloudinit.metadata[0].name == "demo-master-0-cloudinit"
    && nonsensitive(kubernetes_secret_v1.cloudinit.data["userData"]) == "#cloud-config\nhostname: demo-master-0\n")
    error_message = "cloud-init Secret"
  }
  assert {
    condition     = output.phase == "Running"
    error_message = "the phase comes from the read-back"
  }
}

// Plans read by tests/candi (tofu test -verbose): which changes update the VM and which replace it.
run "change_cpu_memory_class_and_placement" {
  command = plan

  variables {
    vm = {
      name                  = "demo-master-0"
      cloudinit_secret_name = "demo-master-0-cloudinit"
      ip_address_name       = "demo-master-0-10-0-0-11"
      labels                = { "dvp.deckhouse.io/hostname" = "demo-master-0" }
      annotations           = { note = "x" }
      cores                 = 8
      core_fraction         = "50%"
      memory                = "16Gi"
      virtual_machine_class = "bigger"
      bootloader            = "BIOS"
      run_policy            = "AlwaysOn"
      live_migration_policy = "Never"
      node_selector         = {}
      priority_class_name   = "high"
      tolerations           = [{ key = "dedicated", operator = "Exists", effect = "NoSchedule" }]
    }
    data_disk_names = ["demo-master-0-kubernetes-data"]
    ip_address_name = "demo-master-0-10-0-0-11"
    user_data       = "#cloud-config\nhostname: demo-master-0\nnew: token\n"
  }
}

// The node-spec module's affinity (a class's nodeSelectorTerms, as Deckhouse's module's CRD
// crds/instance_class.yaml@21af0b5e2fcf016a7e5e0528b72345dc290008e0 takes them) is the VM's spec.affinity.
run "node_selector_terms_are_the_vms_required_node_affinity" {
  command = plan

  variables {
    vm = {
      name                  = "demo-master-0"
      cloudinit_secret_name = "demo-master-0-cloudinit"
      ip_address_name       = "demo-master-0-auto"
      labels                = { "dvp.deckhouse.io/hostname" = "demo-master-0" }
      annotations           = {}
      cores                 = 4
      core_fraction         = ""
      memory                = "8Gi"
      virtual_machine_class = "generic"
      bootloader            = "EFI"
      run_policy            = "AlwaysOnUnlessStoppedManually"
      live_migration_policy = "AlwaysSafe"
      node_selector         = { "topology.kubernetes.io/zone" = "zone-a" }
      affinity = { nodeAffinity = { requiredDuringSchedulingIgnoredDuringExecution = { nodeSelectorTerms = [
        { matchExpressions = [{ key = "node.example.com/pool", operator = "In", values = ["a"] }] },
      ] } } }
      priority_class_name = ""
      tolerations         = []
    }
  }

  assert {
    condition = jsonencode([kubernetes_manifest.vm.manifest.spec.liveMigrationPolicy, kubernetes_manifest.vm.manifest.spec.nodeSelector, kubernetes_manifest.vm.manifest.spec.affinity]) == jsonencode([
      "AlwaysSafe",
      { "topology.kubernetes.io/zone" = "zone-a" },
      { nodeAffinity = { requiredDuringSchedulingIgnoredDuringExecution = { nodeSelectorTerms = [
        { matchExpressions = [{ key = "node.example.com/pool", operator = "In", values = ["a"] }] },
      ] } } },
    ])
    error_message = "VM spec: ${jsonencode(kubernetes_manifest.vm.manifest.spec)}"
  }
}

run "change_boot_disk" {
  command = plan

  variables {
    boot_disk_name = "demo-master-0-root-5ce1e9"
  }
}

// The VM exists (run "create"), so the read-back happens at plan: a converge stops there with DVP's reason.
run "a_vm_of_a_missing_class_fails_with_dvps_condition" {
  command = plan

  override_data {
    target = data.kubernetes_resource.vm
    values = {
      object = { status = { phase = "Pending", conditions = [
        { type = "VirtualMachineClassReady", status = "False", reason = "VirtualMachineClassNotReady", message = "VirtualMachineClass \"generic\" not found" },
        { type = "BlockDevicesReady", status = "False", reason = "BlockDevicesNotReady", message = "VirtualDisk demo-master-0-root-ab91fd is Provisioning" },
      ] } }
    }
  }

  expect_failures = [terraform_data.ready]
}

run "a_vm_that_is_only_slow_passes" {
  override_data {
    target = data.kubernetes_resource.vm
    values = {
      object = { status = { phase = "Pending", conditions = [
        { type = "VirtualMachineClassReady", status = "True", reason = "VirtualMachineClassReady", message = "" },
        { type = "BlockDevicesReady", status = "False", reason = "BlockDevicesNotReady", message = "VirtualDisk demo-master-0-root-ab91fd is Provisioning" },
      ] } }
    }
  }

  assert {
    condition     = output.phase == "Pending"
    error_message = "a VM waiting for its disks is not an error"
  }
}

run "a_missing_class_is_refused_at_plan" {
  command = plan

  override_data {
    target = data.kubernetes_resources.vm_class
    values = { objects = [] }
  }

  expect_failures = [data.kubernetes_resources.vm_class]
}
