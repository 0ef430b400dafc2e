// Copyright 2026 The cloud-provider-dvp Authors
// SPDX-License-Identifier: Apache-2.0

mock_provider "kubernetes" {
  mock_data "kubernetes_resource" {
    defaults = {
      object = { status = { phase = "Bound", address = "10.0.0.40", conditions = [{ type = "Bound", status = "True", reason = "Bound", message = "" }] } }
    }
  }
  mock_data "kubernetes_resources" {
    defaults = {
      objects = []
    }
  }
}

variables {
  namespace = "demo-ns"
  name      = "demo-master-0-10-0-0-11"
  vm_name   = "demo-master-0"
  labels    = { "dvp.deckhouse.io/hostname" = "demo-master-0" }
  address   = "10.0.0.11"
}

run "static_address" {
  assert {
    condition = jsonencode(kubernetes_manifest.address.manifest) == jsonencode({
      apiVersion = "virtualization.deckhouse.io/v1alpha2"
      kind       = "VirtualMachineIPAddress"
      metadata   = { name = "demo-master-0-10-0-0-11", namespace = "demo-ns", labels = { "dvp.deckhouse.io/hostname" = "demo-master-0" } }
      spec       = { type = "Static", staticIP = "10.0.0.11" }
    })
    error_message = "manifest: ${jsonencode(kubernetes_manifest.address.manifest)}"
  }
  assert {
    // a wait that timed out on create would taint the address: a static one has nothing to wait for
    condition     = length(kubernetes_manifest.address.wait) == 0 && length(kubernetes_annotations.created) == 0
    error_message = "wait: ${jsonencode(kubernetes_manifest.address.wait)}"
  }
  assert {
    // dhctl's address is the input, whatever DVP says (the read-back mock says 10.0.0.40)
    condition     = output.name == "demo-master-0-10-0-0-11" && output.address == "10.0.0.11"
    error_message = "outputs: ${output.name} ${output.address}"
  }
}

// The address exists (run "static_address"), so the read-back happens at plan: a converge stops there with
// DVP's reason.
run "a_static_address_dvp_cannot_bind_fails_with_dvps_condition" {
  command = plan

  override_data {
    target = data.kubernetes_resource.address
    values = { object = { status = { phase = "Pending", address = "10.0.0.11", conditions = [
      { type = "Bound", status = "False", reason = "VirtualMachineIPAddressLeaseNotReady", message = "The VirtualMachineIPAddressLease \"ip-10-0-0-11\" belongs to a different namespace." },
    ] } } }
  }

  expect_failures = [terraform_data.ready]
}

run "a_static_address_dvp_is_still_setting_up_passes" {
  override_data {
    target = data.kubernetes_resource.address
    values = { object = { status = { phase = "Pending", address = "10.0.0.11", conditions = [
      { type = "Bound", status = "False", reason = "VirtualMachineIPAddressLeaseNotReady", message = "Waiting for the VirtualMachineIPAddressLease \"ip-10-0-0-11\" to be bound." },
    ] } } }
  }

  assert {
    condition     = output.address == "10.0.0.11"
    error_message = "an address DVP is binding is not an error"
  }
}

run "automatic_address" {
  variables {
    name    = "demo-master-0-auto"
    address = "Auto"
  }

  assert {
    condition     = jsonencode(kubernetes_manifest.address.manifest.spec) == jsonencode({ type = "Auto" })
    error_message = "spec: ${jsonencode(kubernetes_manifest.address.manifest.spec)}"
  }
  assert {
    // until DVP is done with the address, bound or refused, in either order of its two conditions
    condition = kubernetes_manifest.address.wait[0].fields == tomap({
      "status.conditions[0].message" = module.unfinished_stuck.auto_settled_message
      "status.conditions[1].message" = module.unfinished_stuck.auto_settled_message
    })
    error_message = "wait: ${jsonencode(kubernetes_manifest.address.wait)}"
  }
  assert {
    condition = (kubernetes_annotations.created[0].metadata[0].name == "demo-master-0-auto"
      && kubernetes_annotations.created[0].annotations == tomap({ "dvp.deckhouse.io/address-created" = "true" })
    && kubernetes_annotations.created[0].field_manager != "Terraform")
    error_message = "the mark of a finished creation"
  }
  assert {
    condition     = output.name == "demo-master-0-auto" && output.address == "10.0.0.40"
    error_message = "outputs: ${output.name} ${output.address}"
  }
}

// Plans read by the assertions: which name an Auto address takes, from the node's addresses and its VM.
run "an_auto_address_the_vm_uses_keeps_its_name" {
  command = plan

  variables {
    name    = "demo-master-0-auto"
    address = "Auto"
  }
  override_data {
    target = data.kubernetes_resources.ours
    values = { objects = [{ metadata = { name = "demo-master-0-auto" }, status = { phase = "Attached" } }] }
  }
  override_data {
    target = data.kubernetes_resources.vm
    values = { objects = [{ metadata = { name = "demo-master-0" }, spec = { virtualMachineIPAddressName = "demo-master-0-auto" } }] }
  }

  assert {
    condition     = kubernetes_manifest.address.manifest.metadata.name == "demo-master-0-auto"
    error_message = "name: ${kubernetes_manifest.address.manifest.metadata.name}"
  }
  assert {
    condition     = length(output.unfinished_import_ids) == 0 && length(kubernetes_manifest.unfinished) == 0
    error_message = "unfinished: ${jsonencode(output.unfinished_import_ids)}"
  }
}

run "a_finished_auto_address_keeps_its_name_before_the_vm_uses_it" {
  command = plan

  variables {
    name    = "demo-master-0-auto"
    address = "Auto"
  }
  override_data {
    target = data.kubernetes_resources.ours
    values = { objects = [
      { metadata = { name = "demo-master-0-auto", annotations = { "dvp.deckhouse.io/address-created" = "true" } }, status = { phase = "Bound" } },
    ] }
  }

  assert {
    condition     = kubernetes_manifest.address.manifest.metadata.name == "demo-master-0-auto"
    error_message = "name: ${kubernetes_manifest.address.manifest.metadata.name}"
  }
  assert {
    condition     = length(output.unfinished_import_ids) == 0 && length(kubernetes_manifest.unfinished) == 0
    error_message = "unfinished: ${jsonencode(output.unfinished_import_ids)}"
  }
}

run "an_unfinished_auto_address_is_replaced_under_the_next_free_name" {
  command = plan

  variables {
    name    = "demo-master-0-auto"
    address = "Auto"
  }
  override_data {
    target = data.kubernetes_resources.ours
    values = { objects = [
      // its wait timed out, DVP bound it later; an earlier retry is unfinished too; the static one goes
      { metadata = { name = "demo-master-0-auto" }, status = { phase = "Bound" } },
      { metadata = { name = "demo-master-0-auto-1" }, status = { phase = "Pending" } },
      { metadata = { name = "demo-master-0-10-0-0-11", annotations = {} }, status = { phase = "Attached" } },
    ] }
  }
  override_data {
    target = data.kubernetes_resources.vm
    values = { objects = [{ metadata = { name = "demo-master-0" }, spec = { virtualMachineIPAddressName = "demo-master-0-10-0-0-11" } }] }
  }

  assert {
    condition     = kubernetes_manifest.address.manifest.metadata.name == "demo-master-0-auto-2" && output.name == "demo-master-0-auto-2"
    error_message = "name: ${kubernetes_manifest.address.manifest.metadata.name}"
  }
  assert {
    // both unfinished ones are imported and given an owner that does not exist, for the garbage collector
    condition = (keys(output.unfinished_import_ids) == ["demo-master-0-auto", "demo-master-0-auto-1"]
      && output.unfinished_import_ids["demo-master-0-auto-1"] == "apiVersion=virtualization.deckhouse.io/v1alpha2,kind=VirtualMachineIPAddress,namespace=demo-ns,name=demo-master-0-auto-1"
    && keys(kubernetes_manifest.unfinished) == ["demo-master-0-auto", "demo-master-0-auto-1"])
    error_message = "unfinished: ${jsonencode(output.unfinished_import_ids)}"
  }
  assert {
    condition = jsonencode(kubernetes_manifest.unfinished["demo-master-0-auto-1"].manifest) == jsonencode({
      apiVersion = "virtualization.deckhouse.io/v1alpha2"
      kind       = "VirtualMachineIPAddress"
      metadata = {
        labels          = { "dvp.deckhouse.io/hostname" = "demo-master-0" }
        name            = "demo-master-0-auto-1"
        namespace       = "demo-ns"
        ownerReferences = [{ apiVersion = "v1", kind = "ConfigMap", name = "demo-master-0-auto-1-unfinished", uid = "00000000-0000-0000-0000-000000000000" }]
      }
      spec = { type = "Auto" }
    })
    error_message = "manifest: ${jsonencode(kubernetes_manifest.unfinished["demo-master-0-auto-1"].manifest)}"
  }
}

run "a_retried_auto_address_keeps_its_new_name" {
  command = plan

  variables {
    name    = "demo-master-0-auto"
    address = "Auto"
  }
  override_data {
    target = data.kubernetes_resources.ours
    values = { objects = [
      { metadata = { name = "demo-master-0-auto" }, status = { phase = "Bound" } },
      { metadata = { name = "demo-master-0-auto-1", annotations = { "dvp.deckhouse.io/address-created" = "true" } }, status = { phase = "Attached" } },
    ] }
  }

  assert {
    condition     = kubernetes_manifest.address.manifest.metadata.name == "demo-master-0-auto-1"
    error_message = "name: ${kubernetes_manifest.address.manifest.metadata.name}"
  }
  assert {
    condition     = keys(output.unfinished_import_ids) == ["demo-master-0-auto"]
    error_message = "unfinished: ${jsonencode(output.unfinished_import_ids)}"
  }
}

run "an_unfinished_auto_address_dvp_cannot_bind_stops_the_plan" {
  command = plan

  variables {
    name    = "demo-master-0-auto"
    address = "Auto"
  }
  override_data {
    target = data.kubernetes_resources.ours
    values = { objects = [{ metadata = { name = "demo-master-0-auto" }, status = { phase = "Pending", conditions = [
      { type = "Bound", status = "False", reason = "VirtualMachineIPAddressLeaseNotReady", message = "Failed to allocate new IP address: no remaining ips." },
    ] } }] }
  }

  expect_failures = [kubernetes_manifest.address]
}

// The create's wait ended on DVP's refusal (the address exists, run "automatic_address"): the read-back stops the
// plan of the next converge at once, on the readiness marker alone.
run "an_auto_address_dvp_refused_fails_the_readiness_with_the_count_the_project_holds" {
  command = plan

  variables {
    name    = "demo-master-0-auto"
    address = "Auto"
  }
  override_data {
    target = data.kubernetes_resource.address
    values = { object = { status = { phase = "Pending", conditions = [
      { type = "Bound", status = "False", reason = "VirtualMachineIPAddressLeaseNotReady", message = "Failed to allocate new IP address: no remaining ips." },
      { type = "Attached", status = "False", reason = "VirtualMachineNotFound", message = "VirtualMachineIPAddress is not attached to any virtual machine." },
    ] } } }
  }
  override_data {
    target = data.kubernetes_resources.project
    values = { objects = [
      { metadata = { name = "a" }, status = { address = "10.0.0.2" } },
      { metadata = { name = "b" }, status = { address = "10.0.0.3" } },
      { metadata = { name = "pending" }, status = { phase = "Pending" } },
    ] }
  }

  assert {
    condition     = local.held == 2
    error_message = "held: ${local.held}"
  }
  expect_failures = [terraform_data.ready]
}

run "bad_address_is_rejected" {
  command = plan

  variables {
    address = "10.0.0.300"
  }

  expect_failures = [var.address]
}
